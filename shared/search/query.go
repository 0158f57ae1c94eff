package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A Query is a parsed search: the clauses every match must (or must not) hold,
// and the filters on the documents' fields.
type Query struct {
	// Clauses are the words and phrases, in the order written.
	Clauses []Clause
	// Filters are the field filters, in the order written. Filters with the same
	// key are alternatives (site:a.org site:b.org is either site); filters with
	// different keys must all hold.
	Filters []Filter
}

// A Clause is a word or a quoted phrase of a query.
type Clause struct {
	// Text is the word or phrase as written, without quotes or minus sign.
	Text string
	// Phrase says Text was quoted.
	Phrase bool
	// Exclude says the clause was written with a minus sign: matches must not
	// hold it.
	Exclude bool
	// Tokens are Text's tokens. A match holds them at consecutive positions, so
	// that a word the tokenizer splits ("e-mail", a CJK word) is matched as the
	// phrase of its parts.
	Tokens []Token
}

// A Filter restricts matches by a document field.
type Filter struct {
	// Key is site, method, status, from, to, session or type.
	Key string
	// Value is the value as written, unquoted.
	Value string
	// Exclude says the filter was written with a minus sign (-site:example.com).
	Exclude bool

	lo, hi int       // status: the range of codes
	t      time.Time // from: the first instant; to: the instant after the last
}

// Filter keys.
const (
	FilterSite    = "site"    // host, or a parent domain of it: site:example.com
	FilterMethod  = "method"  // HTTP method, any case: method:post
	FilterStatus  = "status"  // code or class: status:404, status:4xx, status:200-299
	FilterFrom    = "from"    // captured on or after: from:2024, from:2024-01, from:2024-01-02
	FilterTo      = "to"      // captured on or before (the whole day, month or year)
	FilterSession = "session" // session id
	FilterType    = "type"    // MIME type prefix: type:text/html, type:application
)

var filterKeys = map[string]bool{
	FilterSite: true, FilterMethod: true, FilterStatus: true, FilterFrom: true,
	FilterTo: true, FilterSession: true, FilterType: true,
}

// ErrEmptyQuery is returned by ParseQuery for a query with nothing to search:
// no word that has a token and no filter.
var ErrEmptyQuery = errors.New("search: empty query")

// A SyntaxError is a query ParseQuery cannot read.
type SyntaxError struct {
	Offset int    // byte offset of the token in the query
	Token  string // the token, as written
	Msg    string // what is wrong with it
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("search: query: at %d, %q: %s", e.Offset, e.Token, e.Msg)
}

// ParseQuery parses a search query: words (all must match), "quoted phrases"
// (their words in order), -word and -"phrase" (must not match), and filters
// key:value (key:"value with spaces"), -key:value excluding. Dates are UTC.
// Text like "10:30" or "http://..." is a word, not a filter; a word of letters
// followed by a colon and a value is a filter, and an unknown key is an error.
func ParseQuery(s string) (Query, error) {
	var q Query
	i := 0
	for {
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += size
		}
		if i >= len(s) {
			break
		}
		start := i
		exclude := false
		if s[i] == '-' && i+1 < len(s) && !isSpaceAt(s, i+1) {
			exclude = true
			i++
		}
		if s[i] == '"' {
			text, end, err := quoted(s, i)
			if err != nil {
				return Query{}, err
			}
			i = end
			q.addClause(Clause{Text: text, Phrase: true, Exclude: exclude})
			continue
		}
		// A word runs to white space or a quote.
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) || r == '"' {
				break
			}
			j += size
		}
		word := s[i:j]
		key, value, isFilter := strings.Cut(word, ":")
		if isFilter && isFilterKey(key) && !strings.HasPrefix(value, "//") {
			if value == "" && j < len(s) && s[j] == '"' {
				v, end, err := quoted(s, j)
				if err != nil {
					return Query{}, err
				}
				value, j = v, end
			}
			f, err := parseFilter(strings.ToLower(key), value, exclude)
			if err != nil {
				return Query{}, &SyntaxError{Offset: start, Token: s[start:j], Msg: err.Error()}
			}
			q.Filters = append(q.Filters, f)
			i = j
			continue
		}
		q.addClause(Clause{Text: word, Exclude: exclude})
		i = j
	}
	if len(q.Clauses) == 0 && len(q.Filters) == 0 {
		return Query{}, ErrEmptyQuery
	}
	return q, nil
}

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// quoted reads the quoted string that starts at s[i] == '"': its text and the
// offset after the closing quote.
func quoted(s string, i int) (string, int, error) {
	end := strings.IndexByte(s[i+1:], '"')
	if end < 0 {
		return "", 0, &SyntaxError{Offset: i, Token: s[i:], Msg: "quote not closed"}
	}
	return s[i+1 : i+1+end], i + 2 + end, nil
}

// isFilterKey says key looks like a filter's: ASCII letters only. Whether it is
// a known one is checked after.
func isFilterKey(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// addClause adds c if it has tokens: punctuation alone is not searchable.
func (q *Query) addClause(c Clause) {
	c.Tokens = queryTokens(c.Text)
	if len(c.Tokens) > 0 {
		q.Clauses = append(q.Clauses, c)
	}
}

// parseFilter checks a filter's value and parses it.
func parseFilter(key, value string, exclude bool) (Filter, error) {
	f := Filter{Key: key, Value: value, Exclude: exclude}
	if !filterKeys[key] {
		return f, fmt.Errorf("unknown filter %q (site, method, status, from, to, session, type)", key)
	}
	if value == "" {
		return f, fmt.Errorf("filter %s: empty value", key)
	}
	switch key {
	case FilterStatus:
		lo, hi, ok := parseStatus(value)
		if !ok {
			return f, fmt.Errorf("filter status: %q is not a status code (404), class (4xx) or range (200-299)", value)
		}
		f.lo, f.hi = lo, hi
	case FilterFrom, FilterTo:
		start, next, ok := parseDate(value)
		if !ok {
			return f, fmt.Errorf("filter %s: %q is not a date (2024, 2024-01, 2024-01-02 or RFC 3339)", key, value)
		}
		if key == FilterFrom {
			f.t = start
		} else {
			f.t = next
		}
	case FilterSite:
		f.Value = strings.TrimSuffix(strings.ToLower(value), ".")
		if f.Value == "" {
			return f, fmt.Errorf("filter site: %q is not a host name", value)
		}
	}
	return f, nil
}

// parseStatus reads 404, 4xx or 200-299.
func parseStatus(v string) (lo, hi int, ok bool) {
	if len(v) == 3 && v[0] >= '1' && v[0] <= '9' && strings.EqualFold(v[1:], "xx") {
		lo = int(v[0]-'0') * 100
		return lo, lo + 99, true
	}
	a, b, isRange := strings.Cut(v, "-")
	lo, err := strconv.Atoi(a)
	if err != nil || lo < 100 || lo > 999 || len(a) != 3 {
		return 0, 0, false
	}
	if !isRange {
		return lo, lo, true
	}
	hi, err = strconv.Atoi(b)
	if err != nil || hi < lo || hi > 999 || len(b) != 3 {
		return 0, 0, false
	}
	return lo, hi, true
}

// parseDate reads a year, a month, a day or an RFC 3339 time, and returns its
// first instant and the instant after it.
func parseDate(v string) (start, next time.Time, ok bool) {
	for _, l := range []struct {
		layout string
		add    func(time.Time) time.Time
	}{
		{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
		{"2006-01", func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{"2006-01-02", func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
		{time.RFC3339Nano, func(t time.Time) time.Time { return t.Add(time.Nanosecond) }},
	} {
		if t, err := time.Parse(l.layout, v); err == nil {
			return t.UTC(), l.add(t).UTC(), true
		}
	}
	return time.Time{}, time.Time{}, false
}

// String returns the query in the form ParseQuery reads, each clause and filter
// as written.
func (q Query) String() string {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
	}
	for _, c := range q.Clauses {
		sep()
		if c.Exclude {
			b.WriteByte('-')
		}
		if c.Phrase {
			b.WriteString(`"` + c.Text + `"`)
		} else {
			b.WriteString(c.Text)
		}
	}
	for _, f := range q.Filters {
		sep()
		if f.Exclude {
			b.WriteByte('-')
		}
		b.WriteString(f.Key + ":")
		if f.Value == "" || strings.ContainsFunc(f.Value, func(r rune) bool { return unicode.IsSpace(r) || r == '"' }) {
			b.WriteString(`"` + f.Value + `"`)
		} else {
			b.WriteString(f.Value)
		}
	}
	return b.String()
}
