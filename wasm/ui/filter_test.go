package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
)

// demoRecords are records of the kinds the demo site gives (scripts/tools/demosite): a page,
// a stylesheet, a JSON POST, a PUT, a 404 and a redirect, as the cdx package indexes
// them.
func demoRecords(t *testing.T) []Record {
	recs := records(t,
		cdx.Entry{URLKey: "1,0,0,127)/", Timestamp: "20250601100001", URL: "http://127.0.0.1/", Mime: "text/html", Status: "200"},
		cdx.Entry{URLKey: "1,0,0,127)/style.css", Timestamp: "20250601100002", URL: "http://127.0.0.1/style.css", Mime: "text/css", Status: "200"},
		cdx.Entry{URLKey: "1,0,0,127)/api/json?__wb_method=post&a=1", Timestamp: "20250601100003", URL: "http://127.0.0.1/api/json",
			Mime: "application/json", Status: "201", Method: "POST", RequestBody: "a=1"},
		cdx.Entry{URLKey: "1,0,0,127)/api/item?__wb_method=put", Timestamp: "20250601100004", URL: "http://127.0.0.1/api/item",
			Mime: "application/json", Status: "200", Method: "PUT"},
		cdx.Entry{URLKey: "1,0,0,127)/missing", Timestamp: "20250601100005", URL: "http://127.0.0.1/missing", Mime: "text/plain", Status: "404"},
		cdx.Entry{URLKey: "1,0,0,127)/redirect/start", Timestamp: "20250601100006", URL: "http://127.0.0.1/redirect/start", Mime: "text/html", Status: "301"},
	)
	recs[0].Verdict = &api.Verdict{OK: true, Code: "ok"}
	recs[1].Verdict = &api.Verdict{Code: "sha256", Problem: "content SHA256 changed"}
	recs[4].Verdict = &api.Verdict{Code: "status", Problem: "HTTP 404"}
	return recs
}

func TestParseFilter(t *testing.T) {
	for in, want := range map[string]Filter{
		"":                        {},
		"  Foo  bar ":             {Words: []string{"foo", "bar"}},
		"method:post status:4xx":  {Method: "post", Status: "4xx"},
		"type:json verdict:FAIL":  {Type: "json", Verdict: "fail"},
		"mime:css url:/api/ x":    {Type: "css", URL: "/api/", Words: []string{"x"}},
		"http://127.0.0.1/ size:": {Words: []string{"http://127.0.0.1/", "size:"}},
		"host:example.org":        {Words: []string{"host:example.org"}},
	} {
		if got := ParseFilter(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseFilter(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestFilterMatch(t *testing.T) {
	recs := demoRecords(t)
	for _, tc := range []struct {
		filter string
		want   string // paths of the matching records
	}{
		{"", "/ /style.css /api/json /api/item /missing /redirect/start"},
		{"method:POST", "/api/json"},
		{"method:get", "/ /style.css /missing /redirect/start"},
		{"status:404", "/missing"},
		{"status:2xx", "/ /style.css /api/json /api/item"},
		{"status:3xx", "/redirect/start"},
		{"status:20", ""},
		{"type:json", "/api/json /api/item"},
		{"type:TEXT/", "/ /style.css /missing /redirect/start"},
		{"verdict:pass", "/"},
		{"verdict:fail", "/style.css /missing"},
		{"verdict:unchecked", "/api/json /api/item /redirect/start"},
		{"verdict:sha256", "/style.css"},
		{"url:/api/", "/api/json /api/item"},
		{"api put", "/api/item"},
		{"__wb_method=post", "/api/json"}, // the CDX key is searched too
		{"content sha256", "/style.css"},  // and the verdict's reason
		{"type:json method:put status:2xx", "/api/item"},
		{"nothing-like-this", ""},
	} {
		f := ParseFilter(tc.filter)
		var got []string
		for i := range recs {
			if f.Match(&recs[i]) {
				got = append(got, strings.TrimPrefix(recs[i].Fields.URL, "http://127.0.0.1"))
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("filter %q matches %q, want %q", tc.filter, strings.Join(got, " "), tc.want)
		}
	}
}

func TestDistinct(t *testing.T) {
	recs := demoRecords(t)
	if got := distinct(recs, recordMethod); !reflect.DeepEqual(got, []string{"GET", "POST", "PUT"}) {
		t.Errorf("methods: %q", got)
	}
	if got := distinct(recs, statusClass); !reflect.DeepEqual(got, []string{"2xx", "3xx", "4xx"}) {
		t.Errorf("status classes: %q", got)
	}
	if got := distinct(recs, func(r *Record) string { return r.Fields.Mime }); !reflect.DeepEqual(got, []string{"application/json", "text/css", "text/html", "text/plain"}) {
		t.Errorf("types: %q", got)
	}
	if got := distinct(nil, recordMethod); got != nil {
		t.Errorf("no records: %q", got)
	}
	if got := statusClass(&Record{Record: api.Record{Fields: api.RecordFields{Status: "-"}}}); got != "" {
		t.Errorf("statusClass(-) = %q", got)
	}
}

func FuzzFilter(f *testing.F) {
	for _, s := range []string{"", "method:POST status:4xx", "verdict:fail type:", "url::: a:b:c", "status:xx"} {
		f.Add(s, "http://127.0.0.1/a?b", "404", "POST")
	}
	f.Fuzz(func(t *testing.T, filter, url, status, method string) {
		r := Record{Record: api.Record{Fields: api.RecordFields{URL: url, Status: status, Method: method}}}
		ParseFilter(filter).Match(&r)
		statusClass(&r)
	})
}

// records is a session's records as GET /api/sessions/{id}/records answers: each CDXJ
// line the cdx package writes, as {"urlkey", "timestamp", "fields"}.
func records(t testing.TB, entries ...cdx.Entry) []Record {
	var b strings.Builder
	b.WriteString("[")
	for i, e := range entries {
		line := strings.TrimSuffix(string(e.AppendLine(nil, cdx.Pywb267)), "\n")
		key, rest, _ := strings.Cut(line, " ")
		ts, fields, _ := strings.Cut(rest, " ")
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(key)
		b.WriteString(`{"urlkey":` + string(k) + `,"timestamp":"` + ts + `","fields":` + fields + `}`)
	}
	b.WriteString("]")
	var out []Record
	if err := json.Unmarshal([]byte(b.String()), &out); err != nil {
		t.Fatalf("decoding %s: %v", b.String(), err)
	}
	return out
}
