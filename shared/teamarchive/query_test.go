package teamarchive

import (
	"errors"
	"net/url"
	"testing"
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
	for _, tc := range []struct {
		query string
		want  Query
	}{
		// Wildcards as pywb's CDXQuery reads them.
		{"url=*.example.com", Query{URL: "example.com", MatchType: "domain", Start: "com,example)/", End: "com,example-", Limit: DefaultQueryLimit, Output: "cdxj"}},
		{"url=example.com/pa*", Query{URL: "example.com/pa", MatchType: "prefix", Start: "com,example)/pa", End: "com,example)/pb", Limit: DefaultQueryLimit, Output: "cdxj"}},
		// Timestamps padded as cdx_clamp pads them (PAD_14_DOWN, PAD_14_UP).
		{"url=example.com&from=2024&to=202406&limit=5&output=json", Query{URL: "example.com", MatchType: "exact", Start: "com,example)/", End: "com,example)/!",
			From: "20240101000000", To: "20240631235959", Limit: 5, Output: "json"}},
		// A POST is looked up by its pywb key.
		{"url=http://example.com/api&method=post&requestBody=a%3D1%26b%3D2", Query{URL: "http://example.com/api?__wb_method=POST&a=1&b=2", MatchType: "exact",
			Start: "com,example)/api?__wb_method=post&a=1&b=2", End: "com,example)/api?__wb_method=post&a=1&b=2!", Limit: DefaultQueryLimit, Output: "cdxj"}},
		{"url=example.com&limit=999999", Query{URL: "example.com", MatchType: "exact", Start: "com,example)/", End: "com,example)/!", Limit: 5000, Output: "cdxj"}},
	} {
		v, _ := url.ParseQuery(tc.query)
		q, err := ParseQuery(v, 5000)
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		if *q != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.query, *q, tc.want)
		}
	}
	for _, bad := range []string{"", "matchType=exact", "url=x&matchType=regex", "url=x&limit=0", "url=x&limit=-1", "url=x&from=2024-01", "url=x&to=123456789012345", "url=x&output=xml"} {
		v, _ := url.ParseQuery(bad)
		if _, err := ParseQuery(v, 0); !errors.Is(err, ErrQuery) {
			t.Errorf("%q: %v, want ErrQuery", bad, err)
		}
	}
}

// TestParseRange follows the examples of RFC 9110 section 14.1.2 for a 10000-byte
// representation.
func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		header  string
		size    int64
		want    Range
		partial bool
		err     bool
	}{
		{"bytes=0-499", 10000, Range{0, 500}, true, false},
		{"bytes=500-999", 10000, Range{500, 500}, true, false},
		{"bytes=-500", 10000, Range{9500, 500}, true, false},
		{"bytes=9500-", 10000, Range{9500, 500}, true, false},
		{"bytes=0-0", 10000, Range{0, 1}, true, false},
		{"bytes=9999-20000", 10000, Range{9999, 1}, true, false},
		{"bytes=-20000", 10000, Range{0, 10000}, true, false},
		{"bytes=0-0,-1", 10000, Range{}, false, false},
		{"bytes=500-400", 10000, Range{}, false, false},
		{"bytes=+1-2", 10000, Range{}, false, false},
		{"items=0-1", 10000, Range{}, false, false},
		{"", 10000, Range{}, false, false},
		{"bytes=10000-", 10000, Range{}, false, true},
		{"bytes=-0", 10000, Range{}, false, true},
		{"bytes=0-", 0, Range{}, false, true},
	} {
		got, partial, err := parseRange(tc.header, tc.size)
		if got != tc.want || partial != tc.partial || (err != nil) != tc.err {
			t.Errorf("parseRange(%q, %d) = %+v, %v, %v", tc.header, tc.size, got, partial, err)
		}
	}
}
