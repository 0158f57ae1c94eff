package capture

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/warc"
)

func send(t *testing.T, h http.Handler, method, path, contentType string, body []byte, out any) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if out != nil && rec.Code < 300 {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, rec.Body)
		}
	}
	return rec
}

// runJob sends a request that starts a job (202 {"job": id}), follows the job until
// it ends, and decodes its result into out (if not nil) when it is done.
func runJob(t *testing.T, h http.Handler, method, path, contentType string, body []byte, out any) Job {
	t.Helper()
	var ref struct {
		Job string `json:"job"`
	}
	if rec := send(t, h, method, path, contentType, body, &ref); rec.Code != http.StatusAccepted {
		return Job{State: "failed", Error: fmt.Sprintf("%d %s", rec.Code, rec.Body)}
	}
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var j Job
		send(t, h, "GET", "/api/jobs/"+ref.Job, "", nil, &j)
		if j.State == "running" {
			continue
		}
		if out != nil && j.State == "done" {
			b, _ := json.Marshal(j.Result)
			if err := json.Unmarshal(b, out); err != nil {
				t.Fatalf("%s %s: the job's result: %v", method, path, err)
			}
		}
		return j
	}
	t.Fatalf("%s %s: job %s still running after 5 minutes", method, path, ref.Job)
	return Job{}
}

func TestSettingsValidateAndKeepTheTokenSecret(t *testing.T) {
	svc, _ := NewService(NewMemStore(), newFakeHost())
	h := nethttp.Handler(svc.Handler())
	var got Settings
	send(t, h, "GET", "/api/settings", "", nil, &got)
	if got.HeaderPolicy != "redact" || got.Agent != "webkeep" || got.WARCVersion != "0.9" {
		t.Errorf("defaults: %+v", got)
	}
	for _, tc := range []struct {
		body, field string
	}{
		{`{"headerPolicy":"maybe"}`, "headerPolicy"},
		{`{"bodyLimit":-1}`, "bodyLimit"},
		{`{"warcVersion":"2.0"}`, "warcVersion"},
		{`{"cdxDialect":"x"}`, "cdxDialect"},
		{`{"agent":"two words"}`, "agent"},
		{`{"teamEndpoint":"ftp://x"}`, "teamEndpoint"},
		{`{"domainRules":{"example.org":"this is not a rule"}}`, "domainRules[example.org]"},
		{`{"headerPolicy":`, "not valid JSON"},
	} {
		rec := send(t, h, "PUT", "/api/settings", "application/json", []byte(tc.body), nil)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tc.field) {
			t.Errorf("PUT %s: %d %s, want 400 naming %s", tc.body, rec.Code, rec.Body, tc.field)
		}
	}
	send(t, h, "PUT", "/api/settings", "application/json", []byte(`{"headerPolicy":"keep","bodyLimit":5,"teamEndpoint":"https://team.example","teamToken":"s3cret"}`), &got)
	if got.TeamToken != "" || !got.TeamTokenSet || got.BodyLimit != 5 {
		t.Errorf("after save: %+v", got)
	}
	// An update without a token keeps it; nothing answers it back.
	rec := send(t, h, "PUT", "/api/settings", "application/json", []byte(`{"headerPolicy":"redact","teamEndpoint":"https://team.example"}`), &got)
	if !got.TeamTokenSet || strings.Contains(rec.Body.String(), "s3cret") {
		t.Errorf("token after an update without one: %+v %s", got, rec.Body)
	}
	if svc.settings.get().TeamToken != "s3cret" {
		t.Error("the stored token was lost")
	}
}

func TestHeaderPolicyAndBodyLimit(t *testing.T) {
	ex := &recorder.Exchange{
		ReqHeader:  recorder.Fields{{Name: "Cookie", Value: "session=abc"}, {Name: "Authorization", Value: "Bearer x"}, {Name: "Accept", Value: "*/*"}},
		RespHeader: recorder.Fields{{Name: "Set-Cookie", Value: "id=1"}, {Name: "Content-Type", Value: "text/plain"}},
		RespBody:   []byte("0123456789"),
	}
	s := DefaultSettings()
	s.BodyLimit = 4
	applyPolicy(ex, s)
	if ex.ReqHeader.Get("Cookie") != redactedValue || ex.ReqHeader.Get("Authorization") != redactedValue || ex.ReqHeader.Get("Accept") != "*/*" {
		t.Errorf("request headers: %v", ex.ReqHeader)
	}
	if ex.RespHeader.Get("Set-Cookie") != redactedValue {
		t.Errorf("response headers: %v", ex.RespHeader)
	}
	if string(ex.RespBody) != "0123" || ex.RespTruncated != "length" {
		t.Errorf("body %q truncated %q", ex.RespBody, ex.RespTruncated)
	}
	keep := &recorder.Exchange{ReqHeader: recorder.Fields{{Name: "Cookie", Value: "a=b"}}}
	s.HeaderPolicy = "keep"
	applyPolicy(keep, s)
	if keep.ReqHeader.Get("Cookie") != "a=b" {
		t.Error("keep policy redacted")
	}
}

const demoDomain = `---
https: false
---
_path: /good
content-type: text/html
---
_path: /bad
content-type: text/html
---
_path: /static
content-length: 5
content-sha256: 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
content-type: text/plain
`

func dbZip(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		f, _ := zw.Create(name)
		io.WriteString(f, data)
	}
	zw.Close()
	return buf.Bytes()
}

func TestURLDatabaseVerdictsAddAndExport(t *testing.T) {
	store := NewMemStore()
	host := newFakeHost()
	svc, _ := NewService(store, host)
	h := nethttp.Handler(svc.Handler())

	if j := runJob(t, h, "POST", "/api/urldb?name=x.zip", "application/zip", []byte("not a zip"), nil); j.State != "failed" || !strings.Contains(j.Error, "x.zip: the upload is neither a zip") {
		t.Errorf("a broken upload: %+v", j)
	}
	var info DatabaseInfo
	runJob(t, h, "POST", "/api/urldb", "application/zip", dbZip(t, map[string]string{
		"db/example.org.yaml": demoDomain,
		"db/broken.org.yaml":  "---\nhttps: [\n",
	}), &info)
	if !info.Loaded || info.Records != 3 || len(info.Problems) == 0 || !strings.Contains(info.Problems[0], "broken.org.yaml") {
		t.Fatalf("loaded: %+v", info)
	}
	// The database survives a restart.
	svc2, _ := NewService(store, host)
	if got := svc2.db.Info(); got.Records != 3 {
		t.Errorf("after restart: %+v", got)
	}

	sess, _ := createSession(store, "s", time.Now())
	svc.sessions.add(sess)
	svc.state.Session = sess.info.ID
	for _, ex := range []*recorder.Exchange{
		{Method: "GET", URL: "http://example.org/good", Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/html"}}, RespBody: []byte("x")},
		{Method: "GET", URL: "http://example.org/bad", Status: 404, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/html"}}},
		{Method: "GET", URL: "http://example.org/static", Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/plain"}}, RespBody: []byte("hellx")},
		{Method: "GET", URL: "http://example.org/new", Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "application/json; charset=utf-8"}}, RespBody: []byte("{}")},
	} {
		svc.exchange(ex)
	}
	svc.flushWrites()
	got := sess.Info().Verdicts
	if got.Pass != 1 || got.Fail != 2 {
		t.Errorf("verdicts: %+v", got)
	}
	var rep Report
	send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/report", "", nil, &rep)
	codes := map[string]string{}
	for _, v := range rep.Verdicts {
		codes[v.Path] = v.Code
	}
	if codes["/good"] != "ok" || codes["/bad"] != "status" || codes["/static"] == "ok" || codes["/static"] == "" {
		t.Errorf("verdict codes: %v", codes)
	}

	// Add the unlisted response to the database, then export it.
	var recs []struct {
		Fields struct {
			URL    string `json:"url"`
			Offset string `json:"offset"`
		} `json:"fields"`
		Verdict *struct{ Code string } `json:"verdict"`
	}
	send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/records", "", nil, &recs)
	var offset string
	for _, r := range recs {
		if strings.HasSuffix(r.Fields.URL, "/new") {
			offset = r.Fields.Offset
			if r.Verdict != nil {
				t.Errorf("an unlisted URL has a verdict: %+v", r.Verdict)
			}
		}
		if strings.HasSuffix(r.Fields.URL, "/bad") && (r.Verdict == nil || r.Verdict.Code != "status") {
			t.Errorf("records do not carry verdicts: %+v", r)
		}
	}
	body := `{"session":"` + sess.info.ID + `","offset":` + offset + `,"categories":["api"],"static":true}`
	var added struct {
		Domain, Path string
	}
	if rec := send(t, h, "POST", "/api/urldb/records", "application/json", []byte(body), &added); rec.Code != http.StatusOK {
		t.Fatalf("add: %d %s", rec.Code, rec.Body)
	}
	if added.Domain != "example.org" || added.Path != "/new" {
		t.Errorf("added %+v", added)
	}
	rec := send(t, h, "GET", "/api/urldb/export.zip", "", nil, nil)
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := zr.Open("example.org.yaml")
	yaml, _ := io.ReadAll(f)
	for _, want := range []string{"_path: /new", "content-type: application/json", "content-length: 2", "- api"} {
		if !strings.Contains(string(yaml), want) {
			t.Errorf("exported domain lacks %q:\n%s", want, yaml)
		}
	}
}

func TestURLDatabaseFromAFolderUpload(t *testing.T) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, _ := mw.CreateFormFile("files", "db/example.org.yaml")
	io.WriteString(w, demoDomain)
	w, _ = mw.CreateFormFile("files", "db/README.md")
	io.WriteString(w, "not a domain")
	mw.Close()
	svc, _ := NewService(NewMemStore(), newFakeHost())
	var info DatabaseInfo
	runJob(t, nethttp.Handler(svc.Handler()), "POST", "/api/urldb", mw.FormDataContentType(), buf.Bytes(), &info)
	if info.Records != 3 || len(info.Domains) != 1 || info.Domains[0].Name != "example.org" {
		t.Errorf("folder upload: %+v", info)
	}
	// Check all reads example.org over http: the host access the extension asks for.
	if !slices.Equal(info.Origins, []string{"http://example.org/*"}) {
		t.Errorf("origins %q, want http://example.org/*", info.Origins)
	}
}

// The host access Check all asks for: each site of the database once, by scheme and
// host, whatever its port.
func TestOriginPatterns(t *testing.T) {
	var targets []urldb.Target
	for _, u := range []string{"https://b.example/x", "http://127.0.0.1:8080/a", "https://b.example/y?z", "http://[::1]:9/", "ftp://c.example/", "https://a.example"} {
		targets = append(targets, urldb.Target{URL: u})
	}
	want := []string{"http://127.0.0.1/*", "http://[::1]/*", "https://a.example/*", "https://b.example/*"}
	if got := originPatterns(targets); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCheckAllAgainstALocalServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "ok")
		case "/static":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "hello")
		case "/data.txt":
			io.WriteString(w, "User-agent: other\nDisallow: /\n\nUser-agent: webkeep\nDisallow: /good\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	svc, _ := NewService(NewMemStore(), newFakeHost())
	h := nethttp.Handler(svc.Handler())
	if rec := send(t, h, "POST", "/api/urldb/check", "", nil, nil); rec.Code != http.StatusConflict {
		t.Errorf("check without a database: %d", rec.Code)
	}
	svc.db.Replace([]urldb.File{{Name: host + ".yaml", Data: []byte(demoDomain)}})
	var started struct{ Job string }
	send(t, h, "POST", "/api/urldb/check", "application/json", []byte(`{"record":true}`), &started)
	var job Job
	deadline := time.Now().Add(20 * time.Second)
	for {
		send(t, h, "GET", "/api/jobs/"+started.Job, "", nil, &job)
		if job.State != "running" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if job.State != "done" || job.Done != 3 || job.Total != 3 {
		t.Fatalf("job: %+v", job)
	}
	raw, _ := json.Marshal(job.Result)
	var rep CheckReport
	json.Unmarshal(raw, &rep)
	if rep.Checked != 3 || rep.Passed != 2 || rep.Failed != 1 || rep.Session == "" {
		t.Errorf("report: %+v", rep)
	}
	sess, err := svc.sessions.find(rep.Session)
	if err != nil || sess.Info().Exchanges != 3 {
		t.Errorf("recorded session: %v %+v", err, sess.Info())
	}
	if rec := send(t, h, "DELETE", "/api/jobs/nope", "", nil, nil); rec.Code != http.StatusNotFound {
		t.Errorf("cancel of an unknown job: %d", rec.Code)
	}
}

func TestImportWARCAndBundleAndDownloadWARC11(t *testing.T) {
	store := NewMemStore()
	svc, _ := NewService(store, newFakeHost())
	h := nethttp.Handler(svc.Handler())
	src, _ := createSession(store, "src", time.Now())
	for _, ex := range sampleExchanges() {
		src.WriteExchange(ex)
	}
	svc.sessions.add(src)

	// WARC/1.1 download: readable, same records.
	rec := send(t, h, "GET", "/api/sessions/"+src.info.ID+"/warc11.gz", "", nil, nil)
	rd, err := warc.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Version != warc.V11 {
			t.Errorf("version %v", r.Version)
		}
		n++
	}
	if n != src.Info().Records {
		t.Errorf("WARC/1.1 has %d records, the session %d", n, src.Info().Records)
	}

	// Import the 1.1 file, then the bundle: both give back every record, the index
	// finds the POST, and pages come along with a bundle.
	var info SessionInfo
	if j := runJob(t, h, "POST", "/api/import?name=from-1.1", "", rec.Body.Bytes(), &info); j.State != "done" {
		t.Fatalf("import WARC/1.1: %+v", j)
	}
	if info.Name != "from-1.1" || info.Records != src.Info().Records || info.NonGET != 2 || !info.Imported {
		t.Errorf("imported: %+v", info)
	}
	src.AddPage(recorder.Page{Page: api.Page{URL: "http://example.org/", TS: time.Now()}})
	src.AddPage(recorder.Page{Page: api.Page{URL: "http://example.org/", TS: time.Now(), Restored: true}})
	var bundle bytes.Buffer
	if err := src.WriteBundle(&bundle); err != nil {
		t.Fatal(err)
	}
	runJob(t, h, "POST", "/api/import", "", bundle.Bytes(), &info)
	if info.Records != src.Info().Records || info.Pages != 2 || info.Restored != 1 {
		t.Errorf("imported bundle: %+v", info)
	}
	if j := runJob(t, h, "POST", "/api/import?name=b.zip", "", []byte("PK\x03\x04garbage"), nil); j.State != "failed" || !strings.Contains(j.Error, "import b.zip: not a readable zip") {
		t.Errorf("a broken bundle: %+v", j)
	}
	if j := runJob(t, h, "POST", "/api/import", "", []byte("hello"), nil); j.State != "failed" {
		t.Errorf("not a WARC: %+v", j)
	}
}

func TestRenameRecordDetailAndPages(t *testing.T) {
	store := NewMemStore()
	svc, _ := NewService(store, newFakeHost())
	h := nethttp.Handler(svc.Handler())
	sess, _ := createSession(store, "old", time.Now())
	svc.sessions.add(sess)
	for _, ex := range sampleExchanges() {
		sess.WriteExchange(ex)
	}
	var info SessionInfo
	send(t, h, "PATCH", "/api/sessions/"+sess.info.ID, "application/json", []byte(`{"name":"new name"}`), &info)
	if info.Name != "new name" {
		t.Errorf("rename: %+v", info)
	}
	if r := send(t, h, "PATCH", "/api/sessions/"+sess.info.ID, "application/json", []byte(`{"name":"  "}`), nil); r.Code != http.StatusBadRequest {
		t.Errorf("empty name: %d", r.Code)
	}
	// The lines are written by hand, streamed: each must read as an api.Record, and
	// hold nothing the pages do not know of.
	var recs []api.Record
	dec := json.NewDecoder(send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/records", "", nil, nil).Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&recs); err != nil || len(recs) == 0 {
		t.Fatalf("records: %d, %v", len(recs), err)
	}
	var post string
	for _, r := range recs {
		if strings.HasSuffix(r.Fields.URL, "/api?x=1") {
			post = r.Fields.Offset
		}
	}
	var d RecordDetail
	send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/record?offset="+post, "", nil, &d)
	if d.Type != "response" || !strings.HasPrefix(d.HTTP, "HTTP/1.1 201") || d.Request == nil || !strings.HasPrefix(d.Request.HTTP, "POST /api?x=1 HTTP/1.1") {
		t.Errorf("detail: %+v", d)
	}
	if r := send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/record?offset="+post, "", nil, nil); !strings.Contains(r.Body.String(), `"fields":[{"name":"Related-Record-ID","value":"`+d.Request.ID+`"},`) {
		t.Errorf("detail: the WARC fields are not [{\"name\", \"value\"}]: %s", r.Body)
	}
	if r := send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/record?offset=3", "", nil, nil); r.Code != http.StatusNotFound {
		t.Errorf("no record at 3: %d", r.Code)
	}
}

func TestWACZDownloadHoldsWARC11IndexAndPages(t *testing.T) {
	store := NewMemStore()
	svc, _ := NewService(store, newFakeHost())
	sess, _ := createSession(store, "w", time.Now())
	svc.sessions.add(sess)
	for _, ex := range sampleExchanges() {
		sess.WriteExchange(ex)
	}
	sess.AddPage(recorder.Page{Page: api.Page{URL: "http://example.org/", TS: time.Now()}})
	// Shown again from the back/forward cache: a visit without a capture of its own.
	sess.AddPage(recorder.Page{Page: api.Page{URL: "http://example.org/", TS: time.Now(), Restored: true}})
	if info := sess.Info(); info.Pages != 2 || info.Restored != 1 {
		t.Errorf("pages %d, restored %d; want 2, 1", info.Pages, info.Restored)
	}
	rec := send(t, nethttp.Handler(svc.Handler()), "GET", "/api/sessions/"+sess.info.ID+"/wacz", "", nil, nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Disposition"), ".wacz") {
		t.Fatalf("wacz: %d %v", rec.Code, rec.Header())
	}
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	for _, name := range []string{"archive/" + sess.BaseName() + ".warc.gz", "indexes/index.cdx.gz", "indexes/index.idx", "pages/pages.jsonl", "datapackage.json", "datapackage-digest.json"} {
		if files[name] == nil {
			t.Errorf("the WACZ lacks %s (has %v)", name, files)
		}
	}
	f, _ := files["archive/"+sess.BaseName()+".warc.gz"].Open()
	rd, err := warc.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	first, err := rd.Next()
	if err != nil || first.Version != warc.V11 {
		t.Errorf("the WACZ's WARC is not 1.1: %v %v", first, err)
	}
	p, _ := files["pages/pages.jsonl"].Open()
	pages, _ := io.ReadAll(p)
	if !bytes.Contains(pages, []byte(`"url":"http://example.org/"`)) && !bytes.Contains(pages, []byte(`"url": "http://example.org/"`)) {
		t.Errorf("pages: %s", pages)
	}
	if n := bytes.Count(pages, []byte("http://example.org/")); n != 1 {
		t.Errorf("the WACZ lists the page %d times, want once (the restored visit left out): %s", n, pages)
	}
	// Only answers are indexed: the notes of the failed request and of the upload
	// whose file the browser hid are metadata records, which ReplayWeb.page would
	// take for captures of their URLs.
	ix, _ := files["indexes/index.cdx.gz"].Open()
	zr2, err := gzip.NewReader(ix)
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := io.ReadAll(zr2)
	if bytes.Contains(lines, []byte("http://down.example/")) {
		t.Errorf("the failed request's note is indexed:\n%s", lines)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		if !strings.Contains(line, `"status":`) && !strings.Contains(line, `"mime":"warc/revisit"`) {
			t.Errorf("a line that is no answer: %s", line)
		}
	}
	if !bytes.Contains(lines, []byte(`"method":"POST"`)) {
		t.Errorf("no POST in the index:\n%s", lines)
	}
}

func TestCheckAllRespectsDisallow(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data.txt":
			io.WriteString(w, "User-agent: webkeep\nDisallow: /good\n")
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /static\n")
		default:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "x")
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	svc, _ := NewService(NewMemStore(), newFakeHost())
	set := DefaultSettings()
	set.RespectDisallow = true
	svc.settings.update(set)
	svc.db.Replace([]urldb.File{{Name: host + ".yaml", Data: []byte(demoDomain)}})
	job, err := svc.db.checkAll("", false)
	if err != nil {
		t.Fatal(err)
	}
	var got Job
	for got.State == "" || got.State == "running" {
		time.Sleep(10 * time.Millisecond)
		got, _ = svc.jobs.get(job.ID)
	}
	var rep CheckReport
	if err := json.Unmarshal(got.Result, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Checked != 1 || len(rep.Skipped) != 2 {
		t.Errorf("checked %d, skipped %v; want /bad checked, /good (data.txt) and /static (robots.txt) skipped", rep.Checked, rep.Skipped)
	}
}

// A URL that names the same page under another form (a version label, "w" for "www")
// finds its database record through the site's domain rules, set on the options page
// or kept in the database's domain metadata; pages carry their canonical URL.
func TestDomainRulesCanonicalizeForTheDatabaseAndPages(t *testing.T) {
	const rules = `long_form {
  required host = "[a-z0-9]+\.";
  optional version = flag("[0-9]+\.[0-9]+\.", "1.0.");
  required www = website("w{1,4}", "www");
}`
	for _, where := range []string{"settings", "database"} {
		t.Run(where, func(t *testing.T) {
			store := NewMemStore()
			svc, _ := NewService(store, newFakeHost())
			domain := "---\nhttps: false\n---\n_path: /page\ncontent-type: text/html\n"
			if where == "settings" {
				set := DefaultSettings()
				set.DomainRules = map[string]string{"example.org": rules}
				if _, err := svc.settings.update(set); err != nil {
					t.Fatal(err)
				}
			} else {
				domain = "---\nhttps: false\nurl-rules: |\n" + indent(rules) + "---\n_path: /page\ncontent-type: text/html\n"
			}
			if _, err := svc.db.Replace([]urldb.File{{Name: "test.www.example.org.yaml", Data: []byte(domain)}}); err != nil {
				t.Fatal(err)
			}
			sess, _ := createSession(store, "r", time.Now())
			svc.sessions.add(sess)
			svc.state.Session = sess.info.ID
			svc.exchange(&recorder.Exchange{Method: "GET", URL: "http://test.3.59.w.example.org/page", Status: 200,
				RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/html"}}, RespBody: []byte("x")})
			svc.page(recorder.Page{Page: api.Page{URL: "http://test.3.59.w.example.org/page", TS: time.Now()}})
			svc.flushWrites()
			vs, _ := sess.Verdicts()
			if len(vs) != 1 || !vs[0].OK || vs[0].Domain != "test.www.example.org" {
				t.Errorf("verdicts: %+v", vs)
			}
			pages, _ := sess.Pages()
			if len(pages) != 1 || pages[0].Canonical != "http://test.www.example.org/page" || pages[0].Website != "test.www.example.org" {
				t.Errorf("pages: %+v", pages)
			}
		})
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// The options page's domain rules apply to a site however its name is written there:
// in capitals, in Unicode or in its "xn--" form. They are kept under the name as the
// rules see hosts; a key that is no host name, or two keys for one name, are refused.
func TestDomainRulesForAnySpellingOfTheDomain(t *testing.T) {
	for _, key := range []string{"bücher.de", "BÜCHER.de", "xn--bcher-kva.de"} {
		svc, _ := NewService(NewMemStore(), newFakeHost())
		set := DefaultSettings()
		set.DomainRules = map[string]string{key: "any { protocol = any; }", "example.org": ""}
		saved, err := svc.settings.update(set)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if _, ok := saved.DomainRules["bücher.de"]; !ok {
			t.Errorf("%s: saved as %v", key, saved.DomainRules)
		}
		if c, _ := svc.canonical("https://www.xn--bcher-kva.de/x"); c != "http://www.xn--bcher-kva.de/x" {
			t.Errorf("rules keyed %q: canonical %q", key, c)
		}
		if c, _ := svc.canonical("https://www.example.net/x"); c != "" {
			t.Errorf("rules keyed %q apply to another domain: %q", key, c)
		}
	}
	for _, tc := range []struct {
		rules map[string]string
		want  string
	}{
		{map[string]string{"a b": "x"}, "domainRules[a b]: not a host or domain name"},
		{map[string]string{"bücher.de": "", "xn--bcher-kva.de": ""}, "the same domain as"},
	} {
		svc, _ := NewService(NewMemStore(), newFakeHost())
		set := DefaultSettings()
		set.DomainRules = tc.rules
		if _, err := svc.settings.update(set); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.rules, err, tc.want)
		}
	}
}

// The archive page's record list: every CDXJ line of the session but those of the
// continuation records of a body written in segments, which are parts of one record.
func TestRecordsListLeavesOutContinuations(t *testing.T) {
	svc, _ := NewService(NewMemStore(), newFakeHost())
	h := nethttp.Handler(svc.Handler())
	sess, _ := createSession(svc.store, "r", time.Now())
	svc.sessions.add(sess)
	exs := append(sampleExchanges(), &recorder.Exchange{
		Started: time.Now(), Method: "GET", URL: "http://example.org/big", Status: 200,
		RespHeader: recorder.Fields{{Name: "Content-Type", Value: "message/http"}}, RespBody: make([]byte, 2*maxRecordBuffer+1),
	})
	for _, ex := range exs {
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	cr, err := sess.CDXLines()
	lines := strings.Count(string(readAll(t, cr, err)), "\n")
	var recs []struct {
		Fields struct{ URL, Mime, Status string }
	}
	send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/records", "", nil, &recs)
	var big int
	for _, r := range recs {
		if strings.HasSuffix(r.Fields.URL, "/big") {
			big++
			if r.Fields.Status != "200" {
				t.Errorf("the big body's line: %+v", r.Fields)
			}
		}
	}
	// 3 responses, 2 notes, the big response; its 2 continuation records are left out.
	if len(recs) != 6 || big != 1 || lines != 8 {
		t.Errorf("%d records listed (%d for /big) of %d lines", len(recs), big, lines)
	}
}

func TestRecordsGiveTheStatusOfRevisits(t *testing.T) {
	store := NewMemStore()
	svc, _ := NewService(store, newFakeHost())
	h := nethttp.Handler(svc.Handler())
	sess, _ := createSession(store, "r", time.Now())
	svc.sessions.add(sess)
	for _, ex := range append(sampleExchanges()[:2], sampleExchanges()[:2]...) { // the same payloads again: revisits
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	var recs []struct {
		Fields        struct{ URL, Mime, Status string }
		RevisitStatus int `json:"revisitStatus"`
	}
	send(t, h, "GET", "/api/sessions/"+sess.info.ID+"/records", "", nil, &recs)
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s %s %d", r.Fields.Mime, r.Fields.Status, r.RevisitStatus))
	}
	want := "text/html 200 0, application/json 201 0, warc/revisit  200, warc/revisit  201"
	if strings.Join(got, ", ") != want {
		t.Errorf("records: %s\nwant %s", strings.Join(got, ", "), want)
	}
}
