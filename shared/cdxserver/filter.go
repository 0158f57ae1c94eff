package cdxserver

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// A FilterMode is how a filter compares a field with its value.
type FilterMode int

// Filter modes, as pywb's CDXFilter chooses them by the filter's first character.
const (
	FilterContains FilterMode = iota // field:value, the value is in the field
	FilterExact                      // =field:value, the field is the value
	FilterRegexp                     // ~field:regexp, the regexp matches at the field's start
)

// A Filter is one filter= parameter, as pywb's CDXFilter reads it:
// [!][=|~]field:value. Without "field:" it applies to the whole line. A field
// the line lacks is "". A regexp filter must come from ParseFilter.
type Filter struct {
	Invert bool       // "!": keep the lines that do not match
	Mode   FilterMode // contains, exact ("=") or regexp ("~")
	Field  string     // a CDXJ field, pywb's short and CDX names mapped; "" for the whole line
	Value  string
	re     *regexp.Regexp
}

// altFields is pywb's CDXObject.CDX_ALT_FIELDS: names of the CDX formats and
// short names. In pywb's dict "s" is given twice, and the second, length, wins.
var altFields = map[string]string{
	"u": "url", "original": "url",
	"statuscode": "status", "s": "length",
	"mimetype": "mime", "m": "mime",
	"l": "length", "o": "offset", "d": "digest",
	"t": "timestamp", "k": "urlkey", "f": "filename",
}

func fieldName(name string) string {
	if alt, ok := altFields[name]; ok {
		return alt
	}
	return name
}

// ParseFilter parses one filter= parameter. A regexp is Go's RE2 syntax
// anchored at the start of the field, as Python's re.match anchors; one that
// does not compile is an error wrapping ErrQuery.
func ParseFilter(s string) (Filter, error) {
	var f Filter
	rest := s
	if f.Invert = strings.HasPrefix(rest, "!"); f.Invert {
		rest = rest[1:]
	}
	switch {
	case strings.HasPrefix(rest, "="):
		f.Mode, rest = FilterExact, rest[1:]
	case strings.HasPrefix(rest, "~"):
		f.Mode, rest = FilterRegexp, rest[1:]
	}
	if field, value, ok := strings.Cut(rest, ":"); ok {
		f.Field, rest = fieldName(field), value
	}
	f.Value = rest
	if f.Mode == FilterRegexp {
		re, err := regexp.Compile(f.Value)
		if err != nil {
			return Filter{}, fmt.Errorf("%w: filter=%q: %w", ErrQuery, clip(s), err)
		}
		f.re = re
	}
	return f, nil
}

// String returns the filter in filter= syntax (with the field's mapped name).
func (f Filter) String() string {
	s := ""
	if f.Invert {
		s = "!"
	}
	s += [...]string{"", "=", "~"}[f.Mode]
	if f.Field != "" || strings.Contains(f.Value, ":") {
		s += f.Field + ":"
	}
	return s + f.Value
}

// match reports whether the line passes the filter.
func (f *Filter) match(r *record) bool {
	var v string
	if f.Field == "" {
		v = string(bytes.TrimRight(r.line.Text, " \t\r\n"))
	} else {
		v, _ = r.get(f.Field)
	}
	var ok bool
	switch f.Mode {
	case FilterExact:
		ok = v == f.Value
	case FilterRegexp:
		// A match starting at 0 exists iff the leftmost match starts there.
		loc := f.re.FindStringIndex(v)
		ok = loc != nil && loc[0] == 0
	default:
		ok = strings.Contains(v, f.Value)
	}
	return ok != f.Invert
}

// A Collapse is one collapse= parameter of the Internet Archive's CDX server:
// field or field:N. A line whose field (its first N characters when N > 0)
// equals that of the last line that passed this collapse is dropped.
type Collapse struct {
	Field string // a CDXJ field, named as for filters
	N     int    // the number of characters compared; 0 for the whole field
}

func parseCollapse(s string) (Collapse, error) {
	field, n, cut := strings.Cut(s, ":")
	c := Collapse{Field: fieldName(field)}
	if field == "" {
		return c, fmt.Errorf("%w: collapse=%q: want field or field:N", ErrQuery, clip(s))
	}
	if cut {
		var err error
		if c.N, err = atoi("collapse", n, 1); err != nil {
			return c, err
		}
	}
	return c, nil
}

// value returns the part of the line that the collapse compares.
func (c *Collapse) value(r *record) string {
	v, _ := r.get(c.Field)
	if c.N == 0 {
		return v
	}
	return firstRunes(v, c.N)
}

// firstRunes returns the first n code points of s, all of it when n < 0.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
