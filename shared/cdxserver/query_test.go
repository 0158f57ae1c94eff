package cdxserver

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSearchRange checks the ranges of pywb's calc_search_range doctests
// (pywb/utils/canonicalize.py, surt-ordered cases).
func TestSearchRange(t *testing.T) {
	for _, tc := range []struct {
		url, match, start, end string
	}{
		{"http://example.com/path/file.html", "exact", "com,example)/path/file.html", "com,example)/path/file.html!"},
		{"http://example.com/path/file.html", "prefix", "com,example)/path/file.html", "com,example)/path/file.htmm"},
		{"http://example.com/path/", "prefix", "com,example)/path/", "com,example)/path0"},
		{"http://example.com/path?", "prefix", "com,example)/path?", "com,example)/path@"},
		{"http://example.com/path/?", "prefix", "com,example)/path?", "com,example)/path@"},
		{"http://example.com/path/file.html", "host", "com,example)/", "com,example*"},
		{"http://example.com/path/file.html", "domain", "com,example)/", "com,example-"},
		{"com", "domain", "com,", "com-"},
	} {
		start, end, err := SearchRange(tc.url, tc.match)
		if err != nil || start != tc.start || end != tc.end {
			t.Errorf("SearchRange(%q, %s) = %q, %q, %v; want %q, %q", tc.url, tc.match, start, end, err, tc.start, tc.end)
		}
	}
	if _, _, err := SearchRange("http://example.com/", "blah"); !errors.Is(err, ErrQuery) {
		t.Errorf("matchType=blah: %v, want ErrQuery", err)
	}
}

func TestParseQuery(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 3600)) }
	exact := Query{URL: "example.com", MatchType: "exact", Start: "com,example)/", End: "com,example)/!", Limit: DefaultLimit, Output: "cdxj"}
	with := func(f func(q *Query)) Query {
		q := exact
		f(&q)
		return q
	}
	for _, tc := range []struct {
		query string
		want  Query
	}{
		// Wildcards as pywb's CDXQuery reads them.
		{"url=*.example.com", Query{URL: "example.com", MatchType: "domain", Start: "com,example)/", End: "com,example-", Limit: DefaultLimit, Output: "cdxj"}},
		{"url=example.com/pa*", Query{URL: "example.com/pa", MatchType: "prefix", Start: "com,example)/pa", End: "com,example)/pb", Limit: DefaultLimit, Output: "cdxj"}},
		// Timestamps padded as cdx_clamp pads them (PAD_14_DOWN, PAD_14_UP).
		{"url=example.com&from=2024&to=202406&limit=5&output=json", with(func(q *Query) { q.From, q.To, q.Limit, q.Output = "20240101000000", "20240631235959", 5, "json" })},
		{"url=example.com&from_ts=2024", with(func(q *Query) { q.From = "20240101000000" })},
		// A POST is looked up by its pywb key.
		{"url=http://example.com/api&method=post&requestBody=a%3D1%26b%3D2", Query{URL: "http://example.com/api?__wb_method=POST&a=1&b=2", MatchType: "exact",
			Start: "com,example)/api?__wb_method=post&a=1&b=2", End: "com,example)/api?__wb_method=post&a=1&b=2!", Limit: DefaultLimit, Output: "cdxj"}},
		{"url=example.com&limit=999999", with(func(q *Query) { q.Limit = 5000 })},
		{"url=example.com&output=text", with(func(q *Query) { q.Output = "text" })},
		// Filters as pywb's CDXFilter reads them, CDX names mapped.
		{"url=example.com&filter=mimetype:html&filter=!=status:200&filter=~url:.*php$&filter=whole line&filter=!~s:1",
			with(func(q *Query) {
				q.Filters = []Filter{{Field: "mime", Value: "html"}, {Invert: true, Mode: FilterExact, Field: "status", Value: "200"},
					{Mode: FilterRegexp, Field: "url", Value: ".*php$"}, {Value: "whole line"}, {Invert: true, Mode: FilterRegexp, Field: "length", Value: "1"}}
			})},
		{"url=example.com&collapse=timestamp:10&collapse=digest&collapseTime=8", with(func(q *Query) {
			q.Collapse, q.CollapseTime = []Collapse{{"timestamp", 10}, {"digest", 0}}, 8
		})},
		{"url=example.com&fl=urlkey,original&fields=timestamp", with(func(q *Query) { q.Fields = []string{"timestamp"} })},
		{"url=example.com&fl=urlkey,original", with(func(q *Query) { q.Fields = []string{"urlkey", "original"} })},
		{"url=example.com&sort=reverse&collapse=digest", with(func(q *Query) { q.Reverse, q.Collapse = true, []Collapse{{"digest", 0}} })},
		{"url=example.com&reverse=1", with(func(q *Query) { q.Reverse = true })},
		{"url=example.com&reverse=off", exact},
		{"url=example.com&closest=2014&sort=closest", with(func(q *Query) { q.Closest = "2014" })},
		{"url=example.com&closest=now", with(func(q *Query) { q.Closest = "20240506060809" })},
		// Closest takes precedence over reverse, so any collapse goes with it.
		{"url=example.com&closest=2014&reverse=true&collapseTime=4&collapse=digest",
			with(func(q *Query) {
				q.Closest, q.Reverse, q.CollapseTime, q.Collapse = "2014", true, 4, []Collapse{{"digest", 0}}
			})},
		{"url=example.com&page=2&pageSize=4&showNumPages=true", with(func(q *Query) { q.Page, q.Paged, q.PageSize, q.ShowNumPages = 2, true, 4, true })},
	} {
		v, _ := url.ParseQuery(tc.query)
		q, err := ParseQuery(v, 5000)
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		for i := range q.Filters {
			q.Filters[i].re = nil
		}
		if !reflect.DeepEqual(*q, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.query, *q, tc.want)
		}
	}
}

func TestParseQueryErrors(t *testing.T) {
	for _, tc := range []struct{ query, msg string }{
		{"", "url= is required"},
		{"matchType=exact", "url= is required"},
		{"url=x&matchType=regex", `matchType="regex"`},
		{"url=x&limit=0", `limit="0": want a positive integer`},
		{"url=x&limit=-1", "limit"},
		{"url=x&limit=none", "limit"},
		{"url=x&from=2024-01", `from="2024-01": want up to 14 digits`},
		{"url=x&to=123456789012345", "to="},
		{"url=x&output=xml", `output="xml": want cdxj, json or text`},
		{"url=x&output=link", "output="},
		{"url=x&filter=~url:(", `filter="~url:("`},
		{"url=x&filter=!~mime:a)", "filter="},
		{"url=x&collapse=", "collapse="},
		{"url=x&collapse=digest:x", `collapse="x"`},
		{"url=x&collapse=digest:0", "collapse="},
		{"url=x&collapseTime=-1", "collapseTime="},
		{"url=x&sort=closest", "sort=closest needs closest="},
		{"url=x&sort=random", `sort="random"`},
		{"url=x&closest=2014-01", "closest="},
		{"url=x&sort=reverse&collapse=digest&collapse=urlkey", "sort=reverse takes one collapse field"},
		{"url=x&sort=reverse&collapse=digest&collapseTime=10", "sort=reverse"},
		{"url=x&page=-1", `page="-1": want a whole number`},
		{"url=x&page=one", "page="},
		{"url=x&pageSize=0", `pageSize="0"`},
		{"url=x&pageSize=not-an-integer", "pageSize="}, // pywb test_zipnum.py test_invalid_int_param
	} {
		v, _ := url.ParseQuery(tc.query)
		_, err := ParseQuery(v, 0)
		if !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want ErrQuery with %q", tc.query, err, tc.msg)
		}
	}
}

func TestFilterString(t *testing.T) {
	for _, s := range []string{"mime:html", "!=status:200", "~url:.*php$", "!~url:a", "whole line", "=:x:y", "!", ""} {
		f, err := ParseFilter(s)
		if err != nil || f.String() != s {
			t.Errorf("ParseFilter(%q).String() = %q, %v", s, f.String(), err)
		}
	}
	if f, _ := ParseFilter("statuscode:200"); f.String() != "status:200" {
		t.Errorf("statuscode:200 -> %q", f.String())
	}
}

// TestTimestampToSec follows the doctests of warcio's timeutils.py
// timestamp_to_datetime and timestamp_to_sec, which cdx_sort_closest uses.
func TestTimestampToSec(t *testing.T) {
	for _, tc := range []struct {
		ts   string
		want string
	}{
		{"2014122609501011", "2014-12-26 09:50:10"},
		{"20141226095010", "2014-12-26 09:50:10"},
		{"2014122609501", "2014-12-26 09:50:59"},
		{"201412260950", "2014-12-26 09:50:59"},
		{"20141226095", "2014-12-26 09:59:59"},
		{"2014122609", "2014-12-26 09:59:59"},
		{"201412260", "2014-12-26 23:59:59"},
		{"20141226", "2014-12-26 23:59:59"},
		{"2014122", "2014-12-31 23:59:59"},
		{"201410", "2014-10-31 23:59:59"},
		{"20141", "2014-12-31 23:59:59"},
		{"2014", "2014-12-31 23:59:59"},
		{"201", "2019-12-31 23:59:59"},
		{"20", "2099-12-31 23:59:59"},
		{"2", "2999-12-31 23:59:59"},
		{"3", "2999-12-31 23:59:59"},
		{"", "2999-12-31 23:59:59"},
		{"20131709005601", "2013-12-09 00:56:01"},
		{"40001965252477", "2999-12-31 23:24:59"},
		{"2010abc", "2010-12-31 23:59:59"},
		{"20120230", "2012-02-29 23:59:59"},
	} {
		got := time.Unix(timestampToSec(tc.ts), 0).UTC().Format(time.DateTime)
		if got != tc.want {
			t.Errorf("timestampToSec(%q) = %s, want %s", tc.ts, got, tc.want)
		}
	}
	if got := timestampToSec("20131226095010"); got != 1388051410 {
		t.Errorf("timestamp_to_sec('20131226095010') = %d", got)
	}
	if got := timestampToSec("2014"); got != 1420070399 {
		t.Errorf("timestamp_to_sec('2014') = %d", got)
	}
}
