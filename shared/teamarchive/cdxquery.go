package teamarchive

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/webkeep/webkeep/internal/pyfmt"
	"github.com/webkeep/webkeep/shared/cdx"
)

// Match types of a CDX query, as pywb's CDX server names them.
const (
	MatchExact  = "exact"
	MatchPrefix = "prefix"
	MatchHost   = "host"
	MatchDomain = "domain"
)

// Timestamp padding of pywb's cdx_clamp (pywb/utils/timeutils.py PAD_14_DOWN and
// PAD_14_UP): a short "from" is padded down, a short "to" up.
const (
	pad14Down = "10000101000000"
	pad14Up   = "29991231235959"
)

// DefaultQueryLimit is the number of lines a query returns without limit=.
const DefaultQueryLimit = 1000

// ErrQuery is returned (wrapped with the parameter) for a CDX query that cannot be
// answered: no url, an unknown matchType, a bad limit or timestamp.
var ErrQuery = errors.New("teamarchive: invalid CDX query")

// A Query is a CDX server query: which keys, which times, how many lines.
type Query struct {
	URL       string // as given, after method/body query appending
	MatchType string // exact, prefix, host or domain
	Start     string // first key of the range (inclusive)
	End       string // end of the range (exclusive), compared with whole lines
	From, To  string // 14-digit bounds on the timestamp, inclusive; "" for none
	Limit     int    // maximum number of lines
	Output    string // "cdxj" (urlkey timestamp {json}) or "json" (one object a line)
}

// ParseQuery reads a query as pywb's CDX server does (pywb/warcserver/index/query.py
// CDXQuery): without matchType, a url starting with "*." means domain and one ending
// in "*" means prefix. Beyond pywb, method= and requestBody= append pywb's non-GET
// key query to url (cdx.AppendQuery), so a POST capture is found by its request.
// limit is capped at maxLimit.
func ParseQuery(v url.Values, maxLimit int) (*Query, error) {
	q := &Query{URL: v.Get("url"), MatchType: v.Get("matchType"), Output: v.Get("output"), Limit: DefaultQueryLimit}
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
	if q.From, err = padTimestamp("from", v.Get("from"), pad14Down); err != nil {
		return nil, err
	}
	if q.To, err = padTimestamp("to", v.Get("to"), pad14Up); err != nil {
		return nil, err
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%w: limit=%q: want a positive integer", ErrQuery, clip(s))
		}
		q.Limit = n
	}
	if maxLimit > 0 {
		q.Limit = min(q.Limit, maxLimit)
	}
	switch q.Output {
	case "", "text", "cdxj":
		q.Output = "cdxj"
	case "json":
	default:
		return nil, fmt.Errorf("%w: output=%q: want cdxj or json", ErrQuery, clip(q.Output))
	}
	return q, nil
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

// A cdxLine is one matching line of one bundle.
type cdxLine struct {
	line   string // "urlkey timestamp {json}" without the newline
	sortBy string // "urlkey timestamp"
	source string // bundle name
}

func (a *cdxLine) less(b *cdxLine) bool {
	if a.sortBy != b.sortBy {
		return a.sortBy < b.sortBy
	}
	if a.source != b.source {
		return a.source < b.source
	}
	return a.line < b.line
}

// A collector keeps the Limit smallest lines seen across bundles (a max-heap), so a
// query over many bundles needs memory for Limit lines, not for every match.
type collector struct {
	q     *Query
	lines []*cdxLine
}

func (c *collector) Len() int           { return len(c.lines) }
func (c *collector) Less(i, j int) bool { return c.lines[j].less(c.lines[i]) }
func (c *collector) Swap(i, j int)      { c.lines[i], c.lines[j] = c.lines[j], c.lines[i] }
func (c *collector) Push(x any)         { c.lines = append(c.lines, x.(*cdxLine)) }
func (c *collector) Pop() any {
	x := c.lines[len(c.lines)-1]
	c.lines = c.lines[:len(c.lines)-1]
	return x
}

// mayMatch reports whether a bundle whose index starts with a line beginning first
// and ends with a line beginning last can hold lines of the query's range. The
// prefixes are those stored in the listing entry, cut to a length (truncated says
// whether last was cut).
func (q *Query) mayMatch(first, last string, lastTruncated bool) bool {
	if first >= q.End {
		return false
	}
	if last < q.Start && (!lastTruncated || !strings.HasPrefix(q.Start, last)) {
		return false
	}
	return true
}

// scan adds the matching lines of one bundle's sorted CDXJ index. It stops at the
// end of the range, or when the bundle has given Limit lines (later lines of a
// sorted index cannot displace them). The error names the line.
func (c *collector) scan(r io.Reader, source string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), cdx.MaxLineLength)
	taken, lineNo := 0, 0
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		if string(line) < c.q.Start {
			continue
		}
		if string(line) >= c.q.End || taken == c.q.Limit {
			return nil
		}
		key, ts, _, err := cdx.SplitLine(line)
		if err != nil {
			return fmt.Errorf("%s: line %d: %w", source, lineNo, err)
		}
		if c.q.From != "" && string(ts) < c.q.From || c.q.To != "" && string(ts) > c.q.To {
			continue
		}
		l := &cdxLine{line: string(line), sortBy: string(line[:len(key)+1+len(ts)]), source: source}
		if len(c.lines) == c.q.Limit {
			if !l.less(c.lines[0]) {
				return nil
			}
			heap.Pop(c)
		}
		heap.Push(c, l)
		taken++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: line %d: %w", source, lineNo+1, err)
	}
	return nil
}

// write writes the kept lines in order, each with "source" (the bundle) added to
// its JSON as pywb's aggregating CDX server adds it. output=json lines are pywb's
// CDXObject.to_json: urlkey and timestamp first, then the index fields.
func (c *collector) write(w io.Writer) error {
	lines := slices.Clone(c.lines)
	slices.SortFunc(lines, func(a, b *cdxLine) int {
		if a.less(b) {
			return -1
		}
		return 1
	})
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, l := range lines {
		key, ts, js, err := cdx.SplitLine([]byte(l.line))
		if err != nil {
			return err
		}
		// Lines of pywb's indexer use json.dumps' ", " and ": "; warcio.js's are compact.
		sep, colon := ", ", ": "
		if !bytes.Contains(js, []byte(`": `)) {
			sep, colon = ",", ":"
		}
		buf = buf[:0]
		if c.q.Output == "json" {
			buf = append(buf, `{"urlkey"`...)
			buf = append(buf, colon...)
			buf = pyfmt.AppendJSONString(buf, string(key))
			buf = append(buf, sep+`"timestamp"`+colon...)
			buf = pyfmt.AppendJSONString(buf, string(ts))
			if inner := bytes.TrimSpace(js[1 : len(js)-1]); len(inner) > 0 {
				buf = append(buf, sep...)
				buf = append(buf, inner...)
			}
		} else {
			buf = append(buf, key...)
			buf = append(buf, ' ')
			buf = append(buf, ts...)
			buf = append(buf, ' ')
			buf = append(buf, bytes.TrimRight(js[:len(js)-1], " ")...)
			if len(bytes.TrimSpace(js[1:len(js)-1])) == 0 {
				sep = ""
			}
		}
		buf = append(buf, sep+`"source"`+colon...)
		buf = pyfmt.AppendJSONString(buf, l.source)
		buf = append(buf, "}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
