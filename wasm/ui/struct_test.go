package main

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/capture"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/datatxt"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/warc"
)

// roundTrip encodes v as the core does (encoding/json) and decodes it into out.
func roundTrip(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// The pages' view of SessionInfo must read what the core writes: encode a
// capture.SessionInfo and decode it here.
func TestSessionInfoMatchesCore(t *testing.T) {
	created := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	core := capture.SessionInfo{
		ID: "20250601-100000-ab", Name: "demo", Created: created, Updated: created.Add(95 * time.Second),
		Records: 42, Exchanges: 20, NonGET: 8, Pages: 9, Failures: 1, Bytes: 123456,
		Notes: []string{"tab 3 closed"}, Verdicts: capture.Verdicts{Pass: 5, Fail: 2},
		Incomplete: 3, Reasons: map[string]int{capture.WhyPageLeft: 3}, LoginPosts: 1,
	}
	b, err := json.Marshal(core)
	if err != nil {
		t.Fatal(err)
	}
	var got SessionInfo
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := SessionInfo{
		ID: core.ID, Name: core.Name, Created: created, Updated: core.Updated,
		Records: 42, Exchanges: 20, NonGET: 8, Pages: 9, Failures: 1, Bytes: 123456, Notes: core.Notes,
		Verdicts:   VerdictCounts{Pass: 5, Fail: 2},
		Incomplete: 3, Reasons: map[string]int{capture.WhyPageLeft: 3}, LoginPosts: 1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v\nwant    %+v", got, want)
	}
	st := capture.Status{Recording: true, Tabs: []int{3, 5}, Session: &core}
	b, _ = json.Marshal(st)
	var gotSt Status
	if err := json.Unmarshal(b, &gotSt); err != nil {
		t.Fatal(err)
	}
	if !gotSt.Recording || len(gotSt.Tabs) != 2 || gotSt.Session == nil || gotSt.Session.Records != 42 {
		t.Errorf("status decoded as %+v", gotSt)
	}
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

func TestRecordMatchesCDX(t *testing.T) {
	got := records(t, cdx.Entry{
		URLKey: "org,example)/api/item?__wb_method=put&a=1", Timestamp: "20250601100005",
		URL: "https://example.org/api/item", Mime: "application/json", Status: "201",
		Digest: "ABCDEF", Length: 812, Offset: 40960, Method: "PUT", RequestBody: "a=1", Filename: "s.warc.gz",
	})
	want := Record{
		URLKey: "org,example)/api/item?__wb_method=put&a=1", Timestamp: "20250601100005",
		Fields: RecordFields{URL: "https://example.org/api/item", Mime: "application/json", Status: "201",
			Digest: "ABCDEF", Length: "812", Offset: "40960", Filename: "s.warc.gz", Method: "PUT", RequestBody: "a=1"},
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("decoded %+v\nwant    %+v", got, want)
	}
}

func TestRecordWithVerdict(t *testing.T) {
	// A record as docs/api.md lists it, with the verdict shared/urldb gives a CSS
	// file served as text/plain.
	verdict := urldb.CheckResponse(&urldb.Record{Path: "/a.css", ContentType: "text/css", ContentLength: -1},
		urldb.Response{Status: 200, Header: http.Header{"Content-Type": {"text/plain"}}, Length: -1})
	verdict.URL, verdict.Domain = "https://example.org/a.css", "example.org"
	vb, err := json.Marshal(verdict)
	if err != nil {
		t.Fatal(err)
	}
	rec := records(t, cdx.Entry{URLKey: "org,example)/a.css", Timestamp: "20250601100005", URL: "https://example.org/a.css", Mime: "text/plain", Status: "200"})
	rb, _ := json.Marshal(rec[0])
	in := "[" + strings.TrimSuffix(string(rb), "}") + `,"verdict":` + string(vb) + "}]"
	var got []Record
	if err := json.Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	v := got[0].Verdict
	if v == nil || v.OK != verdict.OK || v.Code != verdict.Code || v.Status != 200 || v.Expected != verdict.Expected ||
		v.Got != verdict.Got || v.Domain != "example.org" || v.Problem != verdict.Problem {
		t.Errorf("verdict decoded as %+v, the core wrote %+v", v, verdict)
	}
	if verdict.OK || verdict.Code == "" {
		t.Errorf("the check passed a CSS file served as text/plain: %+v", verdict)
	}
}

func TestJobFinished(t *testing.T) {
	for state, want := range map[string]bool{"": false, JobRunning: false, JobDone: true, JobCancelled: true, JobFailed: true} {
		if got := (Job{State: state}).Finished(); got != want {
			t.Errorf("Job{State: %q}.Finished() = %v", state, got)
		}
	}
}

func TestRecordDetailMatchesCore(t *testing.T) {
	date := time.Date(2025, 6, 1, 10, 0, 5, 0, time.UTC)
	core := capture.RecordDetail{
		Offset: 4096, Type: "response", URI: "http://127.0.0.1/api/json", Date: date, ID: "<urn:uuid:1>",
		Fields: warc.Header{{Name: "WARC-Type", Value: "response"}, {Name: "Related-Record-ID", Value: "a"}, {Name: "Related-Record-ID", Value: "b"}},
		HTTP:   "HTTP/1.1 201 Created\r\nContent-Type: application/json", Length: 120,
		Request: &capture.RecordDetail{Type: "request", HTTP: "POST /api/json HTTP/1.1\r\nHost: 127.0.0.1"},
	}
	var got RecordDetail
	roundTrip(t, core, &got)
	want := RecordDetail{
		Offset: 4096, Type: "response", URI: core.URI, Date: date, ID: core.ID,
		Fields: []Field{{"WARC-Type", "response"}, {"Related-Record-ID", "a"}, {"Related-Record-ID", "b"}},
		HTTP:   core.HTTP, BlockLength: 120, Request: &RecordDetail{Type: "request", HTTP: core.Request.HTTP},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v\nwant    %+v", got, want)
	}
}

func TestReportMatchesCore(t *testing.T) {
	core := capture.Report{
		Session:  capture.SessionInfo{ID: "s"},
		Verdicts: []urldb.Verdict{{URL: "http://a/x", Domain: "a", Path: "/x", Code: urldb.CodeStatus, Problem: "HTTP 404", Status: 404}},
		Sites: []capture.Site{{
			Origin: "http://127.0.0.1:8080", Agent: "webkeep", Allowed: true, Page: "http://127.0.0.1:8080/",
			DataTxt: capture.SiteFile{Found: true, Format: "yaml", Datasets: []datatxt.Dataset{{Name: "birds", Paths: []string{"/b.csv"}}}},
			Robots:  capture.SiteFile{Status: 404},
		}},
	}
	var got Report
	roundTrip(t, core, &got)
	if len(got.Verdicts) != 1 || got.Verdicts[0].Problem != "HTTP 404" || got.Verdicts[0].Status != 404 || verdictLabel(&got.Verdicts[0]) != "fail" {
		t.Errorf("verdicts decoded as %+v", got.Verdicts)
	}
	if len(got.Sites) != 1 || !got.Sites[0].Allowed || got.Sites[0].Agent != "webkeep" {
		t.Fatalf("sites decoded as %+v", got.Sites)
	}
	d, r := siteFindings(got.Sites[0])
	if d != "found (yaml), 1 dataset(s): birds" || r != "none (HTTP 404)" {
		t.Errorf("siteFindings = %q, %q", d, r)
	}
}

func TestPageMatchesCore(t *testing.T) {
	ts := time.Date(2025, 6, 1, 10, 0, 5, 0, time.UTC)
	var got []Page
	roundTrip(t, []capture.Page{{ID: "p1", URL: "http://a/", Title: "Home", TS: ts, TabID: 7}}, &got)
	if want := []Page{{ID: "p1", URL: "http://a/", Title: "Home", TS: ts, TabID: 7}}; !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}

func TestJobMatchesCore(t *testing.T) {
	core := capture.Job{ID: "j1", Kind: "check", State: "done", Done: 537, Total: 537,
		Result: capture.CheckReport{Checked: 2, Passed: 1, Failed: 1, Session: "s9",
			Verdicts: []urldb.Verdict{{URL: "http://a/x", OK: true, Code: "ok"}, {URL: "http://a/y", Code: "sha256"}}}}
	var got Job
	roundTrip(t, core, &got)
	if got.ID != "j1" || got.State != JobDone || !got.Finished() || jobProgress(got) != "537 of 537 (100%)" {
		t.Errorf("job decoded as %+v", got)
	}
	var res CheckResult
	if err := json.Unmarshal(got.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Checked != 2 || res.Failed != 1 || res.Session != "s9" || len(res.Verdicts) != 2 || res.Verdicts[1].Code != "sha256" {
		t.Errorf("check result decoded as %+v", res)
	}
}

func TestDatabaseInfoMatchesCore(t *testing.T) {
	var got URLDB
	roundTrip(t, capture.DatabaseInfo{Loaded: true, Domains: []capture.DomainInfo{{Name: "example.org", Records: 3}}, Records: 3,
		Problems: []string{"example.org.yaml:4: duplicate record"}}, &got)
	want := URLDB{Loaded: true, Domains: []Domain{{"example.org", 3}}, Records: 3, Problems: []string{"example.org.yaml:4: duplicate record"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}

// The settings as the core stores and answers them: the page sends back what it read,
// the token aside, and the core accepts it.
func TestSettingsMatchCore(t *testing.T) {
	core := capture.DefaultSettings()
	// A rule of shared/urlrules/testdata/example_net.rules (the Snap! document's Test 1).
	core.DomainRules = map[string]string{"example.net": "everything_else {\n  protocol = any;\n}\n"}
	core.TeamEndpoint = "https://team.example"
	core.TeamTokenSet = true
	var s Settings
	roundTrip(t, core, &s)
	if s.HeaderPolicy != "redact" || s.PasswordPolicy != "redact" || s.WARCVersion != "0.9" || s.CDXDialect != "pywb-2.6.7" || s.Agent != "webkeep" ||
		!s.TeamTokenSet || s.DomainRules["example.net"] == "" {
		t.Errorf("decoded %+v", s)
	}
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), `"teamToken"`) || strings.Contains(string(b), "clearTeamToken") {
		t.Errorf("an unchanged token is sent: %s", b)
	}
	var back capture.Settings
	roundTrip(t, s, &back)
	if err := back.Validate(); err != nil {
		t.Errorf("the core refuses what the page sends back: %v", err)
	}
	s.ClearTeamToken = true
	roundTrip(t, s, &back)
	if !back.ClearTeamToken {
		t.Error("clearTeamToken does not reach the core")
	}
}
