// Package cdxserver answers CDX server queries over sorted CDXJ lines, with the
// query semantics of pywb 2.6.7's CDX server (pywb/warcserver/index/query.py,
// cdxops.py, zipnum.py) and the collapse= parameter of the Internet Archive's
// wayback CDX server.
//
// ParseQuery reads the parameters once; Query.Answer then reads the lines of the
// query's key range from an iterator, so that the caller streams them from its
// storage, and writes the answer in cdxj, json or text form.
//
// filter= is pywb's: field:value tests that the field contains the value,
// =field:value that it is the value, ~field:regexp that the regexp matches at
// its start, and a leading "!" negates. (The Internet Archive's server reads
// field:regexp as a regexp; here that is ~field:regexp.)
package cdxserver

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webkeep/webkeep/shared/cdx"
)

// Match types of a CDX query, as pywb's CDX server names them.
const (
	MatchExact  = "exact"
	MatchPrefix = "prefix"
	MatchHost   = "host"
	MatchDomain = "domain"
)

// Timestamp padding of pywb's cdx_clamp (warcio's timeutils PAD_14_DOWN and
// PAD_14_UP): a short "from" is padded down, a short "to" up.
const (
	pad14Down = "10000101000000"
	pad14Up   = "29991231235959"
)

// DefaultLimit is the number of lines a query returns without limit=.
const DefaultLimit = 1000

// ErrQuery is returned (wrapped with the parameter) for a CDX query that cannot be
// answered: no url, an unknown matchType or output, a bad limit, timestamp,
// filter, collapse or page.
var ErrQuery = errors.New("cdxserver: invalid CDX query")

// A Query is a CDX server query: which keys, which times, which lines, in which
// order, how many and in which form.
type Query struct {
	URL       string // as given, after method/body query appending
	MatchType string // exact, prefix, host or domain
	Start     string // first key of the range (inclusive)
	End       string // end of the range (exclusive), compared with whole lines
	From, To  string // 14-digit bounds on the timestamp, inclusive; "" for none
	Limit     int    // maximum number of lines; 0 for no limit
	Output    string // "cdxj" (urlkey timestamp {json}), "json" (one object a line) or "text"

	Filters      []Filter   // filter=, all of which a line must pass
	Collapse     []Collapse // collapse=, in the order given
	CollapseTime int        // pywb's collapseTime=N: collapse on timestamp[:N] and status; 0 for none
	Fields       []string   // fields= or fl=: the fields to output, in order; nil for all
	Reverse      bool       // sort=reverse or reverse=true: descending order
	Closest      string     // closest=: 1 to 14 digits ("now" is replaced); lines nearest to it first

	Page         int  // page=: the page to read (0, the first, when not given)
	Paged        bool // page= was given
	PageSize     int  // pageSize=: secondary index blocks a page; 0 when not given (the index's default)
	ShowNumPages bool // showNumPages=: answer with the number of pages (see WriteNumPages)
}

// now is the clock of closest=now.
var now = time.Now

// ParseQuery reads a query as pywb's CDX server does (pywb/warcserver/index/query.py
// CDXQuery): without matchType, a url starting with "*." means domain and one ending
// in "*" means prefix. Beyond pywb, method= and requestBody= append pywb's non-GET
// key query to url (cdx.AppendQuery), so a POST capture is found by its request.
// limit is capped at maxLimit when maxLimit > 0.
//
// Booleans (reverse, showNumPages) are true unless empty or one of 0, false, f,
// off, as pywb's to_bool reads them. closest= orders by time distance with or
// without sort=closest, and takes precedence over sort=reverse, as in pywb.
func ParseQuery(v url.Values, maxLimit int) (*Query, error) {
	q := &Query{URL: v.Get("url"), MatchType: v.Get("matchType"), Output: v.Get("output"), Limit: DefaultLimit}
	if q.URL == "" {
		return nil, fmt.Errorf("%w: url= is required", ErrQuery)
	}
	if q.MatchType == "" {
		switch {
		case strings.HasPrefix(q.URL, "*."):
			q.URL, q.MatchType = q.URL[2:], MatchDomain
		case strings.HasSuffix(q.URL, "*"):
			q.URL, q.MatchType = q.URL[:len(q.URL)-1], MatchPrefix
		default:
			q.MatchType = MatchExact
		}
	}
	if m := v.Get("method"); m != "" {
		q.URL = cdx.AppendQuery(q.URL, strings.ToUpper(m), v.Get("requestBody"))
	}
	var err error
	if q.Start, q.End, err = SearchRange(q.URL, q.MatchType); err != nil {
		return nil, err
	}
	from := v.Get("from")
	if from == "" {
		from = v.Get("from_ts") // pywb's other name
	}
	if q.From, err = padTimestamp("from", from, pad14Down); err != nil {
		return nil, err
	}
	if q.To, err = padTimestamp("to", v.Get("to"), pad14Up); err != nil {
		return nil, err
	}
	if s := v.Get("limit"); s != "" {
		if q.Limit, err = atoi("limit", s, 1); err != nil {
			return nil, err
		}
	}
	if maxLimit > 0 {
		q.Limit = min(q.Limit, maxLimit)
	}
	switch q.Output {
	case "", "cdxj":
		q.Output = "cdxj"
	case "json", "text":
	default:
		return nil, fmt.Errorf("%w: output=%q: want cdxj, json or text", ErrQuery, clip(q.Output))
	}
	if err := q.parseOps(v); err != nil {
		return nil, err
	}
	if err := q.parsePages(v); err != nil {
		return nil, err
	}
	return q, nil
}

// parseOps reads the parameters of pywb's process_cdx and of the output.
func (q *Query) parseOps(v url.Values) error {
	for _, s := range v["filter"] {
		f, err := ParseFilter(s)
		if err != nil {
			return err
		}
		q.Filters = append(q.Filters, f)
	}
	for _, s := range v["collapse"] {
		c, err := parseCollapse(s)
		if err != nil {
			return err
		}
		q.Collapse = append(q.Collapse, c)
	}
	if s := v.Get("collapseTime"); s != "" {
		var err error
		if q.CollapseTime, err = atoi("collapseTime", s, 1); err != nil {
			return err
		}
	}
	fl := v.Get("fields")
	if fl == "" {
		fl = v.Get("fl")
	}
	if fl != "" {
		q.Fields = strings.Split(fl, ",")
	}
	sort := v.Get("sort")
	q.Reverse = toBool(v.Get("reverse")) || sort == "reverse"
	q.Closest = v.Get("closest")
	switch {
	case sort != "" && sort != "reverse" && sort != "closest":
		return fmt.Errorf("%w: sort=%q: want reverse or closest", ErrQuery, clip(sort))
	case sort == "closest" && q.Closest == "":
		return fmt.Errorf("%w: sort=closest needs closest=", ErrQuery)
	case q.Closest == "now":
		q.Closest = now().UTC().Format("20060102150405")
	case q.Closest != "" && (len(q.Closest) > 14 || strings.Trim(q.Closest, "0123456789") != ""):
		return fmt.Errorf("%w: closest=%q: want up to 14 digits or now", ErrQuery, clip(q.Closest))
	}
	if q.Descending() && len(q.Collapse)+min(q.CollapseTime, 1) > 1 {
		return fmt.Errorf("%w: collapse: sort=reverse takes one collapse field", ErrQuery)
	}
	return nil
}

// parsePages reads the pagination parameters of pywb's zipnum.py.
func (q *Query) parsePages(v url.Values) error {
	var err error
	if s := v.Get("page"); s != "" {
		if q.Page, err = atoi("page", s, 0); err != nil {
			return err
		}
		q.Paged = true
	}
	if s := v.Get("pageSize"); s != "" {
		if q.PageSize, err = atoi("pageSize", s, 1); err != nil {
			return err
		}
	}
	q.ShowNumPages = toBool(v.Get("showNumPages"))
	return nil
}

// Descending reports whether Answer wants its lines in descending order:
// sort=reverse without closest=.
func (q *Query) Descending() bool { return q.Reverse && q.Closest == "" }

// MayMatch reports whether an index whose first line begins with first and whose
// last line begins with last can hold lines of the query's range; lastCut says
// that last is a prefix cut from the line.
func (q *Query) MayMatch(first, last string, lastCut bool) bool {
	if first >= q.End {
		return false
	}
	return last >= q.Start || lastCut && strings.HasPrefix(q.Start, last)
}

func atoi(param, s string, least int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		if least == 0 {
			return 0, fmt.Errorf("%w: %s=%q: want a whole number", ErrQuery, param, clip(s))
		}
		return 0, fmt.Errorf("%w: %s=%q: want a positive integer", ErrQuery, param, clip(s))
	}
	return n, nil
}

// toBool is pywb's to_bool.
func toBool(s string) bool {
	switch strings.ToLower(s) {
	case "", "0", "false", "f", "off":
		return false
	}
	return true
}

func padTimestamp(param, ts, pad string) (string, error) {
	if ts == "" {
		return "", nil
	}
	if len(ts) > 14 || strings.Trim(ts, "0123456789") != "" {
		return "", fmt.Errorf("%w: %s=%q: want up to 14 digits", ErrQuery, param, clip(ts))
	}
	return ts + pad[len(ts):], nil
}

// SearchRange returns the key range [start, end) of a match type for url, as pywb's
// calc_search_range does for SURT-ordered indexes (pywb/utils/canonicalize.py).
func SearchRange(rawURL, matchType string) (start, end string, err error) {
	key, err := cdx.SURT(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("%w: url: %w", ErrQuery, err)
	}
	switch matchType {
	case MatchExact:
		return key, key + "!", nil
	case MatchPrefix:
		start = key
		if strings.HasSuffix(rawURL, "/") && !strings.HasSuffix(key, "/") {
			start += "/"
		} else if strings.HasSuffix(rawURL, "?") && !strings.HasSuffix(key, "?") {
			start += "?"
		}
		return start, incLastChar(start), nil
	case MatchHost:
		host, _, _ := strings.Cut(key, ")/")
		return host + ")/", host + "*", nil
	case MatchDomain:
		host, _, _ := strings.Cut(key, ")/")
		if !strings.Contains(host, ",") {
			return host + ",", host + "-", nil
		}
		return host + ")/", host + "-", nil
	}
	return "", "", fmt.Errorf("%w: matchType=%q: want exact, prefix, host or domain", ErrQuery, clip(matchType))
}

// incLastChar is pywb's inc_last_char: the last code point plus one.
func incLastChar(s string) string {
	r, n := utf8.DecodeLastRuneInString(s)
	return s[:len(s)-n] + string(r+1)
}

// clip shortens a parameter for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
