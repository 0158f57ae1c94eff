package main

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
)

func TestHumanBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1.0 KB"}, {1500, "1.5 KB"},
		{24 << 20, "25.2 MB"}, {999_999_999, "1000.0 MB"}, {3_000_000_000_000_000_000, "3000.0 PB"},
	} {
		if got := humanBytes(tc.n); got != tc.want {
			t.Errorf("humanBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestHumanDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {-5 * time.Second, "0s"}, {45 * time.Second, "45s"}, {1499 * time.Millisecond, "1s"},
		{185 * time.Second, "3m05s"}, {2*time.Hour + 3*time.Minute + 59*time.Second, "2h03m"},
	} {
		if got := humanDuration(tc.d); got != tc.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"", 0, false}, {"0", 0, false}, {" 1048576 ", 1048576, false},
		{"10 MB", 10_000_000, false}, {"10mb", 10_000_000, false}, {"1.5GB", 1_500_000_000, false},
		{"512 KiB", 512 << 10, false}, {"2 MiB", 2 << 20, false}, {"3 k", 3000, false}, {"7 B", 7, false},
		{"ten", 0, true}, {"10 parsecs", 0, true}, {"-1", 0, true}, {"MB", 0, true}, {"1.2.3 MB", 0, true},
		{"99999999999999999999", 0, true}, {"9999999999999 GB", 0, true}, {"1e400 MB", 0, true},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && !errors.Is(err, errSize) {
			t.Errorf("parseSize(%q): error %v is not errSize", tc.in, err)
		}
	}
}

func TestFormatSizeRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {10_000_000, "10 MB"}, {1_500_000, "1500 KB"}, {2_000_000_000, "2 GB"}, {1 << 20, "1048576"}, {999, "999"},
	} {
		got := formatSize(tc.n)
		if got != tc.want {
			t.Errorf("formatSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
		if back, err := parseSize(got); err != nil || back != tc.n {
			t.Errorf("parseSize(formatSize(%d)) = %d, %v", tc.n, back, err)
		}
	}
}

func TestCDXTime(t *testing.T) {
	for in, want := range map[string]string{
		"20240102030405": "2024-01-02 03:04:05",
		"2024010203":     "2024010203", // shorter CDX timestamps are shown as they are
		"":               "",
		"20241302030405": "20241302030405",
	} {
		if got := cdxTime(in); got != want {
			t.Errorf("cdxTime(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocalTime(t *testing.T) {
	if got := localTime(time.Time{}); got != "-" {
		t.Errorf("localTime(zero) = %q", got)
	}
	ts := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	if got, want := localTime(ts), ts.Local().Format("2006-01-02 15:04"); got != want {
		t.Errorf("localTime = %q, want %q", got, want)
	}
}

func TestVerdictSummary(t *testing.T) {
	for _, tc := range []struct {
		c           api.VerdictCounts
		long, short string
	}{
		{api.VerdictCounts{}, "nothing checked: load a URL database in the options to check responses", ""},
		{api.VerdictCounts{Pass: 3, Fail: 1}, "3 pass · 1 fail", "3 pass, 1 fail"},
		{api.VerdictCounts{Fail: 2}, "0 pass · 2 fail", "0 pass, 2 fail"},
	} {
		if got := verdictSummary(tc.c); got != tc.long {
			t.Errorf("verdictSummary(%+v) = %q, want %q", tc.c, got, tc.long)
		}
		if got := verdictShort(tc.c); got != tc.short {
			t.Errorf("verdictShort(%+v) = %q, want %q", tc.c, got, tc.short)
		}
	}
}

func TestVerdictText(t *testing.T) {
	for _, tc := range []struct {
		v           *api.Verdict
		label, text string
	}{
		{nil, "unchecked", "not in the URL database"},
		{&api.Verdict{OK: true, Code: "ok"}, "pass", "ok"},
		// The messages of shared/urldb's CheckResponse for a changed file and a wrong type.
		{&api.Verdict{Code: "sha256", Problem: "content SHA256 changed", Expected: "ab", Got: "cd"}, "fail",
			"sha256: content SHA256 changed: expected ab, got cd"},
		{&api.Verdict{Code: "content-type", Problem: "expected text/css; got text/plain", Expected: "text/css"}, "fail",
			"content-type: expected text/css; got text/plain: expected text/css, got -"},
		{&api.Verdict{OK: true, Code: "ok", Note: "(ignoring JS content-type nit)"}, "pass", "ok: (ignoring JS content-type nit)"},
	} {
		if got := verdictLabel(tc.v); got != tc.label {
			t.Errorf("verdictLabel(%+v) = %q, want %q", tc.v, got, tc.label)
		}
		if got := verdictText(tc.v); got != tc.text {
			t.Errorf("verdictText(%+v) = %q, want %q", tc.v, got, tc.text)
		}
	}
}

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		j    api.Job
		want string
	}{
		{api.Job{Done: 12}, "12"}, {api.Job{Done: 12, Total: 537}, "12 of 537 (2%)"}, {api.Job{Done: 537, Total: 537}, "537 of 537 (100%)"},
		{api.Job{Kind: "import", Done: 1_500_000, Total: 24_000_000}, "1.5 MB of 24.0 MB (6%)"},
	} {
		if got := jobProgress(tc.j); got != tc.want {
			t.Errorf("jobProgress(%+v) = %q, want %q", tc.j, got, tc.want)
		}
	}
	if got, want := transferProgress(1_500_000, 24_000_000), "1.5 MB of 24.0 MB (6%)"; got != want {
		t.Errorf("transferProgress = %q, want %q", got, want)
	}
	if got, want := transferProgress(2048, 0), "2.0 KB"; got != want {
		t.Errorf("transferProgress without total = %q, want %q", got, want)
	}
}

func TestParseCategories(t *testing.T) {
	for in, want := range map[string]string{
		"":                                  "",
		"redirect-ok":                       "redirect-ok",
		" static, redirect-ok  static\tb,,": "b|redirect-ok|static",
	} {
		got := parseCategories(in)
		if j := strings.Join(got, "|"); j != want {
			t.Errorf("parseCategories(%q) = %q, want %q", in, j, want)
		}
		if got == nil {
			t.Errorf("parseCategories(%q) = nil; the API wants a list", in)
		}
	}
}

func TestDownloads(t *testing.T) {
	// The paths of docs/api.md, "Downloads"; ids the end-to-end tests click.
	want := map[string]string{
		"download-bundle": "/api/sessions/s%2F1/bundle.zip",
		"download-warc":   "/api/sessions/s%2F1/warc.gz",
		"download-warc11": "/api/sessions/s%2F1/warc11.gz",
		"download-wacz":   "/api/sessions/s%2F1/webkeep-s%2F1.wacz",
		"download-cdxj":   "/api/sessions/s%2F1/index.cdxj",
	}
	got := downloads("s/1")
	if len(got) != len(want) {
		t.Fatalf("downloads = %d links, want %d", len(got), len(want))
	}
	for _, d := range got {
		if want[d.ID] != d.Path {
			t.Errorf("%s: %q, want %q", d.ID, d.Path, want[d.ID])
		}
	}
	if got := sessionPath("20250101-abc", "/records"); got != "/api/sessions/20250101-abc/records" {
		t.Errorf("sessionPath = %q", got)
	}
}

func TestSiteFindings(t *testing.T) {
	for _, tc := range []struct {
		s               api.Site
		datatxt, robots string
	}{
		{api.Site{}, "none", "none"},
		{api.Site{DataTxt: api.SiteFile{Status: 404}, Robots: api.SiteFile{Found: true, Format: "robots", Records: 2}}, "none (HTTP 404)", "found (robots), 2 record(s)"},
		{api.Site{DataTxt: api.SiteFile{Found: true, Format: "yaml", Datasets: []api.Dataset{
			{Name: "birds", Paths: []string{"/b.csv"}}, {Title: "Fish", Paths: []string{"/fish.csv"}}, {Paths: []string{"/x"}}, {},
		}}}, "found (yaml), 4 dataset(s): birds, Fish, /x, (unnamed)", "none"},
		{api.Site{DataTxt: api.SiteFile{Error: "HTTP 500"}, Robots: api.SiteFile{Found: true}}, "error: HTTP 500", "found"},
		{api.Site{DataTxt: api.SiteFile{Status: 200, NotFile: "the answer is an HTML page"}, Robots: api.SiteFile{Status: 200, NotFile: "the answer is text/html, not text"}},
			"none (HTTP 200: the answer is an HTML page)", "none (HTTP 200: the answer is text/html, not text)"},
	} {
		d, r := siteFindings(tc.s)
		if d != tc.datatxt || r != tc.robots {
			t.Errorf("siteFindings(%+v) = %q, %q; want %q, %q", tc.s, d, r, tc.datatxt, tc.robots)
		}
	}
}

func TestUTCTime(t *testing.T) {
	if got := utcTime(time.Time{}); got != "-" {
		t.Errorf("utcTime(zero) = %q", got)
	}
	ts := time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("CET", 3600))
	if got, want := utcTime(ts), "2025-03-04 04:06:07 UTC"; got != want {
		t.Errorf("utcTime = %q, want %q", got, want)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files"} {
		if got := plural(n, "file"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestProblemsDetail(t *testing.T) {
	s := api.SessionInfo{
		Reasons: map[string]int{"cancelled by the browser": 2, "the page was left before its body arrived": 312, "recording stopped before the response arrived": 2},
		Notes:   []string{"http://a/x.png: the page was left before its body arrived (net::ERR_ABORTED)"},
	}
	want := []string{
		"312 exchanges: the page was left before its body arrived",
		"2 exchanges: cancelled by the browser",
		"2 exchanges: recording stopped before the response arrived",
		"http://a/x.png: the page was left before its body arrived (net::ERR_ABORTED)",
	}
	if got := problems(s); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := problems(api.SessionInfo{}); len(got) != 0 {
		t.Errorf("no problems: %q", got)
	}
}

func TestPlainProblems(t *testing.T) {
	for _, tc := range []struct {
		reasons map[string]int
		notes   []string
		want    []string
	}{
		{map[string]int{"the page was left before its body arrived": 3, "the page was left before its body could be read": 1, "cancelled by the browser": 2, "recording stopped before the body ended": 1},
			nil, []string{
				"4 files were not kept whole because the page was left while they were loading: reload the page while recording, and let it finish, to keep them.",
				"2 requests were cancelled by the browser before they finished, as the page no longer needed them: usually nothing the page showed is missing.",
				"1 file was still loading when recording stopped: record the page again and let it finish loading before you press Stop.",
			}},
		{map[string]int{"the browser did not give the body": 1}, nil,
			[]string{"1 response arrived, but the browser discarded its content before webkeep could read it: reload the page while recording to keep it."}},
		{map[string]int{"body hidden by the browser": 2, "request body rebuilt from the form fields the browser reported": 1, "something new": 1}, nil, []string{
			"2 uploads sent files whose bytes the browser hides from extensions, and webkeep could not copy them from the page: they are kept without those bytes, marked as cut.",
			"1 request body was rebuilt from what the page or the browser reported, as the browser hides it: each record says how.",
			"1 request was not kept whole for another reason: the details below say which.",
		}},
		{map[string]int{"under way when webkeep's service worker stopped": 3}, nil,
			[]string{"3 requests were under way when the browser stopped webkeep's service worker, and are not recorded: reload the page while recording to keep them."}},
		{nil, []string{"http://a/: a note"}, []string{"1 note about this session's records: the details below."}},
		{nil, nil, nil},
	} {
		got := plainProblems(api.SessionInfo{Reasons: tc.reasons, Notes: tc.notes})
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%v:\n got %q\nwant %q", tc.reasons, got, tc.want)
		}
		for _, line := range got {
			if protocolText.MatchString(line) {
				t.Errorf("%q has protocol text", line)
			}
		}
	}
}

// protocolText is what a person should never read in a problem's plain line: a
// DevTools method or a network error code.
var protocolText = regexp.MustCompile(`\b(Network|Fetch|Page|IO|Runtime)\.[a-z]+[A-Za-z]*\b|net::ERR_|No resource with given identifier`)

func TestSessionFigures(t *testing.T) {
	s := api.SessionInfo{Pages: 3, Exchanges: 426, NonGET: 4, Failures: 2, Incomplete: 7, Records: 850, Bytes: 2500}
	want := "3 pages · 426 requests (4 not GET) · 2 without a response · 7 not kept whole · 2.5 KB"
	if got := sessionFigures(s); got != want {
		t.Errorf("sessionFigures = %q, want %q", got, want)
	}
	if got := sessionFigures(api.SessionInfo{Pages: 1, Exchanges: 1}); got != "1 page · 1 request (0 not GET) · 0 B" {
		t.Errorf("a clean session: %q", got)
	}
	if got := sessionFigures(api.SessionInfo{Pages: 4, Restored: 2, Exchanges: 6}); got != "4 pages (2 restored from the back/forward cache, no requests made) · 6 requests (0 not GET) · 0 B" {
		t.Errorf("pages restored from the back/forward cache: %q", got)
	}
}

func TestPageCount(t *testing.T) {
	for _, tc := range []struct {
		s    api.SessionInfo
		want string
	}{
		{api.SessionInfo{Pages: 3}, "3"},
		{api.SessionInfo{Pages: 4, Restored: 2}, "4 (2 restored)"},
	} {
		if got := pageCount(tc.s); got != tc.want {
			t.Errorf("pageCount(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestRecordStatus(t *testing.T) {
	for _, tc := range []struct {
		r    Record
		want string
	}{
		{Record{Record: api.Record{Fields: api.RecordFields{Mime: "text/html", Status: "200"}}}, "200"},
		{Record{Record: api.Record{Fields: api.RecordFields{Mime: "warc/revisit"}, RevisitStatus: 200}}, "200 revisit"},
		{Record{Record: api.Record{Fields: api.RecordFields{Mime: "warc/revisit", Status: "-"}}}, "revisit"},
	} {
		if got := recordStatus(&tc.r); got != tc.want {
			t.Errorf("recordStatus(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestLoginMark(t *testing.T) {
	if got := loginMark(api.SessionInfo{LoginPosts: 2}); !strings.HasPrefix(got, "holds 2 requests that sent a password (a login)") {
		t.Errorf("loginMark = %q", got)
	}
}

func TestCheckSummary(t *testing.T) {
	for _, tc := range []struct {
		res        api.CheckReport
		pass, fail int
		want       string
	}{
		{api.CheckReport{Checked: 4}, 1, 3, "4 URLs checked: 1 pass, 3 fail."},
		// A check counts what it fetched; a report without the count has its verdicts.
		{api.CheckReport{Verdicts: make([]api.Verdict, 2)}, 2, 0, "2 URLs checked: 2 pass, 0 fail."},
		{api.CheckReport{Checked: 1, Skipped: []string{"https://example.org/good", "https://example.org/static"}}, 0, 1,
			"1 URLs checked: 0 pass, 1 fail. 2 skipped: their site's data.txt or robots.txt disallows them, and the settings say to respect that."},
	} {
		if got := checkSummary(tc.res, tc.pass, tc.fail); got != tc.want {
			t.Errorf("checkSummary(%+v, %d, %d) = %q, want %q", tc.res, tc.pass, tc.fail, got, tc.want)
		}
	}
}

func TestSplitNotes(t *testing.T) {
	rec := func(url, mime, status string) Record {
		return Record{Record: api.Record{Fields: api.RecordFields{URL: url, Mime: mime, Status: status}}}
	}
	captures, notes := splitNotes([]Record{
		rec("http://a/", "text/html", "200"),
		rec("http://a/", "text/plain", ""),          // a note on http://a/
		rec("http://a/t.txt", "text/plain", "200"),  // a text response: a capture
		rec("http://a/big", "application/http", ""), // a segment's continuation
		rec("http://a/", "text/plain", ""),
	})
	if len(captures) != 3 || len(notes["http://a/"]) != 2 || len(notes) != 1 {
		t.Errorf("captures %d, notes %v", len(captures), notes)
	}
}

func TestSnippetParts(t *testing.T) {
	tests := []struct {
		in   string
		want []snippetPart
	}{
		{"", nil},
		{"no match here", []snippetPart{{"no match here", false}}},
		{"…the «Zürich» kettle «whistles»", []snippetPart{{"…the ", false}, {"Zürich", true}, {" kettle ", false}, {"whistles", true}}},
		{"«all»", []snippetPart{{"all", true}}},
		{"an «unclosed mark", []snippetPart{{"an «unclosed mark", false}}},
	}
	for _, tt := range tests {
		if got := snippetParts(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("snippetParts(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestSearchSummary(t *testing.T) {
	three := make([]api.SearchResult, 3)
	tests := []struct {
		res  api.SearchResults
		want string
	}{
		{api.SearchResults{Total: 0, MS: 0.42}, "Nothing found (0.4 ms): check the spelling, or use fewer words."},
		{api.SearchResults{Results: three[:1], Total: 1, MS: 12.3}, "1 answer found (12 ms)"},
		{api.SearchResults{Results: three, Total: 3, MS: 3}, "3 answers found (3.0 ms)"},
		{api.SearchResults{Results: three, Total: 143, MS: 40}, "The best 3 of 143 answers found (40 ms)"},
		{api.SearchResults{Results: three, Total: 1430, Estimated: true, MS: 40}, "The best 3 of about 1430 answers found (40 ms)"},
	}
	for _, tt := range tests {
		if got := searchSummary(tt.res); got != tt.want {
			t.Errorf("searchSummary(%+v) = %q, want %q", tt.res, got, tt.want)
		}
	}
}

func TestPageRecord(t *testing.T) {
	rec := func(url, ts, method string) Record {
		return Record{Record: api.Record{Timestamp: ts, Fields: api.RecordFields{URL: url, Method: method}}}
	}
	recs := []Record{
		rec("http://a.example/", "20240101000000", ""),
		rec("http://a.example/style.css", "20240101000001", ""),
		rec("http://a.example/", "20240101000500", "POST"),
		rec("http://a.example/", "20240101001000", ""),
	}
	at := func(ts string) time.Time { t, _ := time.Parse("20060102150405", ts); return t }
	tests := []struct {
		url, at string
		want    int
	}{
		{"http://a.example/", "20240101000002", 0},
		{"http://a.example/", "20240101000500", 0}, // the POST is not the page's capture
		{"http://a.example/", "20240101000900", 3},
		{"http://a.example/style.css", "20240101000000", 1},
		{"http://b.example/", "20240101000000", -1},
	}
	for _, tt := range tests {
		if got := pageRecord(recs, tt.url, at(tt.at)); got != tt.want {
			t.Errorf("pageRecord(%s, %s) = %d, want %d", tt.url, tt.at, got, tt.want)
		}
	}
}

func TestCaptureCheckSummary(t *testing.T) {
	tests := []struct {
		total, posted, restored int
		counts                  map[string]int
		failed                  int
		want                    string
	}{
		{16, 0, 0, map[string]int{"replays": 14, "differs": 1, "broken": 1}, 0, "16 pages checked: 14 replay, 1 differs, 1 broken"},
		{3, 0, 0, map[string]int{"replays": 1, "differs": 2}, 0, "3 pages checked: 1 replays, 2 differ"},
		{2, 0, 0, map[string]int{"broken": 1}, 1, "2 pages checked: 1 broken, 1 could not be checked"},
		{0, 0, 0, map[string]int{}, 0, "0 pages to check: none has a capture of its own"},
		{9, 2, 0, map[string]int{"replays": 9}, 0, "9 pages checked: 9 replay; not checked: 2 pages a form's POST answered (replayed from the form's page)"},
		{0, 0, 1, map[string]int{}, 0, "0 pages to check: none has a capture of its own; not checked: 1 visit the back/forward cache showed again (no capture of its own)"},
		{2, 1, 2, map[string]int{"replays": 2}, 0, "2 pages checked: 2 replay; not checked: 1 page a form's POST answered (replayed from the form's page); not checked: 2 visits the back/forward cache showed again (no capture of its own)"},
	}
	for _, tt := range tests {
		if got := captureCheckSummary(tt.total, tt.posted, tt.restored, tt.counts, tt.failed); got != tt.want {
			t.Errorf("captureCheckSummary(%d, %d, %d, %v, %d) = %q, want %q", tt.total, tt.posted, tt.restored, tt.counts, tt.failed, got, tt.want)
		}
	}
}
