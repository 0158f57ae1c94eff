package capture

// Fuzz targets for the API routes that take a body the user (or a page, or a file)
// chose: import, URL-database load, settings (with the domain rules), adding a record
// to the URL database, renaming a session. Each runs the Service's handler over an
// in-memory store that holds a session recorded before, and checks what every answer
// must be, whatever the body: no panic, no 5xx, a 4xx with a JSON error that says
// what it is about, and the earlier session's records unchanged. Seeds are valid
// bodies (testdata/, see testdata/README.md) and hostile ones; inputs the fuzzer found
// are under testdata/fuzz/.

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
	"github.com/webkeep/webkeep/shared/urldb"
)

// apiFixture is a service over an in-memory store holding one recorded session, and
// that session's downloads as they were before any fuzzed call.
type apiFixture struct {
	svc     *Service
	h       http.Handler
	session string // the session recorded before
	offset  int64  // of a response in it
	warc    []byte // its WARC, as downloaded
	index   []byte // its sorted CDXJ, as downloaded
}

func newAPIFixture(t testing.TB) *apiFixture {
	t.Helper()
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info, err := svc.Start(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []recordertest.Event{
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","url":"http://example.org/"}}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/","method":"GET","headers":{}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"2","request":{"url":"http://example.org/form","method":"POST","headers":{"Content-Type":"text/plain"},"postData":"a=1"}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"headers":{"Content-Type":"text/plain"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`},
	} {
		svc.Event(ctx, recorder.Target{TabID: 1}, ev.Method, json.RawMessage(ev.Params), nil)
	}
	if _, err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	fx := &apiFixture{svc: svc, h: nethttp.Handler(svc.Handler()), session: info.ID}
	fx.warc, fx.index = fx.downloads(t)
	var recs []struct {
		Fields struct {
			Offset string `json:"offset"`
			Mime   string `json:"mime"`
		} `json:"fields"`
	}
	rec := fx.serve("GET", "/api/sessions/"+info.ID+"/records", "", nil)
	if err := json.Unmarshal(rec.Body.Bytes(), &recs); err != nil || len(recs) < 2 {
		t.Fatalf("the session recorded before: %v: %s", err, rec.Body)
	}
	fmt.Sscan(recs[0].Fields.Offset, &fx.offset)
	return fx
}

func (fx *apiFixture) serve(method, target, contentType string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	fx.h.ServeHTTP(rec, req)
	return rec
}

// downloads returns the WARC and index of the session recorded before.
func (fx *apiFixture) downloads(t testing.TB) (warc, index []byte) {
	t.Helper()
	for _, d := range []struct {
		path string
		dst  *[]byte
	}{{"/warc.gz", &warc}, {"/index.cdxj", &index}} {
		rec := fx.serve("GET", "/api/sessions/"+fx.session+d.path, "", nil)
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Fatalf("GET %s of the session recorded before: %d %s", d.path, rec.Code, rec.Body)
		}
		*d.dst = rec.Body.Bytes()
	}
	return warc, index
}

// follow waits for the job a 202 answer started and answers as a synchronous call
// would have: 200 and the job's result when it is done, 400 and its error when it
// failed. Any other answer is returned as it is.
func (fx *apiFixture) follow(rec *httptest.ResponseRecorder) *httptest.ResponseRecorder {
	var ref struct {
		Job string `json:"job"`
	}
	if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &ref) != nil || ref.Job == "" {
		return rec
	}
	for {
		j := fx.serve("GET", "/api/jobs/"+ref.Job, "", nil)
		var job Job
		json.Unmarshal(j.Body.Bytes(), &job)
		out := httptest.NewRecorder()
		switch job.State {
		case "running":
			time.Sleep(time.Millisecond)
			continue
		case "done":
			b, _ := json.Marshal(job.Result)
			out.WriteHeader(http.StatusOK)
			out.Write(b)
		default:
			b, _ := json.Marshal(map[string]string{"error": job.Error})
			out.WriteHeader(http.StatusBadRequest)
			out.Write(b)
		}
		return out
	}
}

// callTimeout bounds how long one fuzzed request may take before it counts as hung.
const callTimeout = 20 * time.Second

// call sends a fuzzed request and checks the answer: no 5xx; an error is a 4xx whose
// JSON body says what it is about (matches about); the session recorded before is as
// it was. It returns the answer.
func (fx *apiFixture) call(t *testing.T, method, target, contentType string, body []byte, about *regexp.Regexp) *httptest.ResponseRecorder {
	t.Helper()
	// A call that hangs fails with every goroutine's stack (the fuzzer reports a
	// worker that stops answering, but not where it is stuck).
	watchdog := time.AfterFunc(callTimeout, func() {
		stacks := make([]byte, 1<<20)
		panic(fmt.Sprintf("%s %s: no answer after %v:\n%s", method, target, callTimeout, stacks[:runtime.Stack(stacks, true)]))
	})
	rec := fx.follow(fx.serve(method, target, contentType, body))
	watchdog.Stop()
	where := fmt.Sprintf("%s %s (%d bytes)", method, strings.SplitN(target, "?", 2)[0], len(body))
	t.Logf("%s: %d %.300s", where, rec.Code, rec.Body)
	switch {
	case rec.Code >= 500:
		t.Fatalf("%s: %d for a body the user chose: %s", where, rec.Code, rec.Body)
	case rec.Code >= 400:
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
			t.Fatalf("%s: %d without a JSON error: %v: %q", where, rec.Code, err, rec.Body)
		}
		if !about.MatchString(e.Error) {
			t.Fatalf("%s: %d: the error %q does not say what it is about (%s)", where, rec.Code, e.Error, about)
		}
	case rec.Code >= 200 && rec.Code < 300 && rec.Code != http.StatusNoContent:
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s: %d with an answer that is not JSON: %q", where, rec.Code, rec.Body)
		}
	}
	warc, index := fx.downloads(t)
	if !bytes.Equal(warc, fx.warc) || !bytes.Equal(index, fx.index) {
		t.Fatalf("%s: the session recorded before changed: WARC %d bytes (was %d), index %q (was %q)", where, len(warc), len(fx.warc), index, fx.index)
	}
	return rec
}

// dropOtherSessions deletes the sessions made since the fixture's, so that a fuzzer
// running for minutes does not keep them all.
func (fx *apiFixture) dropOtherSessions(t *testing.T) {
	list, err := fx.svc.sessions.list()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.ID != fx.session {
			if err := fx.svc.archive.delete(s.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func readTestdata(f *testing.F, name string) []byte {
	f.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// zipOf returns a zip of the files, in the order given (name, content, name, ...).
func zipOf(files ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		w, _ := zw.Create(files[i])
		io.WriteString(w, files[i+1])
	}
	zw.Close()
	return buf.Bytes()
}

// gzipOf returns data gzipped.
func gzipOf(data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// withDeclaredSize returns a zip whose first entry claims sizes it does not have: a
// zip's central directory is the user's to write.
func withDeclaredSize(z []byte, size uint32) []byte {
	out := bytes.Clone(z)
	if i := bytes.LastIndex(out, []byte("PK\x01\x02")); i >= 0 && i+28 <= len(out) {
		for _, at := range []int{i + 20, i + 24} { // compressed and uncompressed size
			out[at], out[at+1], out[at+2], out[at+3] = byte(size), byte(size>>8), byte(size>>16), byte(size>>24)
		}
	}
	return out
}

// billionLaughs is a YAML alias bomb: each level refers to the one before nine times.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", n, n, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = n
	}
	return b.String()
}

const deepJSON = 10001 // one past encoding/json's limit

// hostileJSON are bodies no JSON route may fall over on.
func hostileJSON() []string {
	return []string{
		"",
		"null",
		"[]",
		`"x"`,
		strings.Repeat("[", deepJSON) + strings.Repeat("]", deepJSON),
		strings.Repeat(`{"a":`, deepJSON) + "1" + strings.Repeat("}", deepJSON),
		"{\"name\":\"\xff\xfe\"}",
		"\xef\xbb\xbf{}",
		`{"offset":-1}`,
		`{"offset":9223372036854775807}`,
		`{"offset":1e400}`,
		`{"bodyLimit":-9223372036854775808}`,
		`{"bodyLimit":99999999999999999999999}`,
		`{`,
	}
}

// An import is bad input when the body is not a WARC or a bundle; it must never
// fail the service or touch an earlier session.
var importError = regexp.MustCompile(`^import`)

func FuzzImport(f *testing.F) {
	warc11 := readTestdata(f, "appendix-b-1.1.warc.gz")
	warc09 := readTestdata(f, "appendix-b-0.9.warc")
	bundle := readTestdata(f, "sample-bundle.zip")
	for _, body := range [][]byte{
		warc11, warc09, bundle,
		warc11[:len(warc11)/2], // truncated gzip
		warc09[:len(warc09)-10],
		gzipOf(warc09)[:100],
		gzipOf([]byte("not a WARC at all")),
		gzipOf(nil),
		[]byte("\r\n\r\n"),
		[]byte("WARC/1.0\r\nContent-Length: 99999999999999999\r\n\r\n"),
		[]byte("WARC/1.0\r\nContent-Length: -5\r\nWARC-Type: resource\r\n\r\n"),
		[]byte("warc/0.9 -10 response http://x/ 20060101000000 text/plain uuid:1\r\n\r\n"),
		[]byte("warc/0.9 999999999999999999999 response http://x/ 20060101000000 text/plain uuid:1\r\n\r\n"),
		[]byte("WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: \xff\xfe\r\nContent-Length: 2\r\n\r\nab\r\n\r\n"),
		zipOf("../../x.warc.gz", string(warc11)),
		zipOf("/etc/x.warc", string(warc09), "pages.jsonl", "\xff\n{\"format\":1}\n"),
		zipOf("a.warc.gz", "not gzip"),
		withDeclaredSize(zipOf("a.warc", string(warc09)), 0xffffffff),
		bundle[:len(bundle)/2],
		[]byte("PK\x03\x04"),
		{},
	} {
		f.Add(body, "name")
	}
	f.Add(warc11, strings.Repeat("n", 300))
	f.Add(warc11, "\xff\x00\n")
	fx := newAPIFixture(f)
	f.Fuzz(func(t *testing.T, body []byte, name string) {
		defer fx.dropOtherSessions(t)
		rec := fx.call(t, "POST", "/api/import?name="+url.QueryEscape(name), "application/octet-stream", body, importError)
		if rec.Code != http.StatusOK {
			return
		}
		// An import that succeeds made a session with records, under a name a
		// rename would have allowed.
		var info SessionInfo
		json.Unmarshal(rec.Body.Bytes(), &info)
		if info.Records == 0 {
			t.Fatalf("an import of %d bytes answered a session without records: %s", len(body), rec.Body)
		}
		if want, err := checkSessionName(info.Name); err != nil || want != info.Name {
			t.Fatalf("imported as %q: %v", info.Name, err)
		}
	})
}

// A URL-database upload's errors name the file, or say that the upload is unreadable.
var databaseError = regexp.MustCompile(`\.yaml|upload|database|files|zip|\.`)

func FuzzURLDatabase(f *testing.F) {
	var domains []string
	for _, name := range []string{"binder.wwt-forum.org.yaml", "data1.wwtassets.org.yaml", "web.wwtassets.org.yaml"} {
		domains = append(domains, "db/"+name, string(readTestdata(f, "urldb/"+name)))
	}
	valid := zipOf(domains...)
	for _, body := range [][]byte{
		valid,
		valid[:len(valid)/2],
		zipOf("../../x.yaml", domains[1]),
		zipOf("..\\..\\x.yaml", domains[1]),
		zipOf("db/../../../etc/example.org.yaml", domains[1]),
		zipOf("example.org.yaml", billionLaughs()),
		zipOf("example.org.yaml", strings.Repeat("- ", 10000)+"x"),
		zipOf("example.org.yaml", strings.Repeat("[", 10000)),
		zipOf("example.org.yaml", "---\nhttps:\n  /:\n    content-length: -1\n    status: -200\n"),
		zipOf("example.org.yaml", "---\n\xff\xfe: \xc3\x28\n"),
		zipOf("example.org.yaml", "&a [*a]"),
		withDeclaredSize(valid, 0xffffffff),
		[]byte("not a zip"),
		{},
	} {
		f.Add(body, uint8(0))
	}
	f.Add([]byte(domains[3]), uint8(1)) // a folder upload, as multipart
	f.Add([]byte(billionLaughs()), uint8(1))
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.yaml\"\r\n\r\nab"), uint8(2))
	fx := newAPIFixture(f)
	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		contentType := "application/zip"
		switch kind % 3 {
		case 1:
			// The body is a file of a folder upload.
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			w, _ := mw.CreateFormFile("files", "db/example.org.yaml")
			w.Write(body)
			mw.Close()
			body, contentType = buf.Bytes(), mw.FormDataContentType()
		case 2:
			// The body is the whole multipart body.
			contentType = "multipart/form-data; boundary=b"
		}
		rec := fx.call(t, "POST", "/api/urldb", contentType, body, databaseError)
		if rec.Code != http.StatusOK {
			return
		}
		// What was loaded is exported under names that stay in their folder.
		exp := fx.serve("GET", "/api/urldb/export.zip", "", nil)
		if exp.Code != http.StatusOK {
			t.Fatalf("export after a load: %d %s", exp.Code, exp.Body)
		}
		zr, err := zip.NewReader(bytes.NewReader(exp.Body.Bytes()), int64(exp.Body.Len()))
		if err != nil {
			t.Fatalf("export after a load: %v", err)
		}
		for _, zf := range zr.File {
			if !safeFileName(zf.Name) {
				t.Fatalf("export after a load holds %q", zf.Name)
			}
		}
	})
}

// isJSONObject says whether body is one JSON object.
func isJSONObject(body []byte) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(body, &v) == nil && v != nil
}

// safeFileName says whether a name is one file name that stays in the folder it is
// unpacked in.
func safeFileName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00") && utf8.ValidString(name)
}

// A settings error names the field, or says the body is not settings.
var settingsError = regexp.MustCompile(`settings|headerPolicy|bodyLimit|warcVersion|cdxDialect|agent|domainRules|teamEndpoint|teamToken|respectDisallow`)

func FuzzSettings(f *testing.F) {
	for _, body := range append(hostileJSON(),
		`{"headerPolicy":"keep","bodyLimit":5,"warcVersion":"1.1","cdxDialect":"pywb-2.8","agent":"webkeep","respectDisallow":true,"teamEndpoint":"https://team.example","teamToken":"t"}`,
		`{"domainRules":{"example.org":"domain example.org\nwebsite www\n  canonical https://www.example.org/\n"}}`,
		`{"domainRules":{"example.org":"`+strings.Repeat("(", 10000)+`"}}`,
		`{"domainRules":{"../../x":"a"}}`,
		`{"domainRules":{"\u0000":"a","":"b"}}`,
		`{"domainRules":{"EXAMPLE.org":"","example.org":""}}`,
		`{"domainRules":null,"agent":null}`,
		`{"teamEndpoint":"http://\xff"}`,
		`{"bodyLimit":"5"}`,
		`{"respectDisallow":"yes"}`,
	) {
		f.Add([]byte(body))
	}
	fx := newAPIFixture(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		before := fx.serve("GET", "/api/settings", "", nil).Body.String()
		rec := fx.call(t, "PUT", "/api/settings", "application/json", body, settingsError)
		if rec.Code == http.StatusOK && !isJSONObject(body) {
			t.Fatalf("settings %q, which are no JSON object, were taken", body)
		}
		after := fx.serve("GET", "/api/settings", "", nil).Body.String()
		if rec.Code >= 400 && after != before {
			t.Fatalf("refused settings changed the stored ones: %s, was %s", after, before)
		}
		if rec.Code == http.StatusOK && after != rec.Body.String() {
			t.Fatalf("saved settings %s, but GET answers %s", rec.Body, after)
		}
	})
}

// An error adding a record names the session, the offset or the body's fields.
var addRecordError = regexp.MustCompile(`add|session|offset|record|response|URL`)

func FuzzAddRecord(f *testing.F) {
	fx := newAPIFixture(f)
	valid := fmt.Sprintf(`{"session":%q,"offset":%d,"categories":["api"],"static":true}`, fx.session, fx.offset)
	for _, body := range append(hostileJSON(),
		valid,
		fmt.Sprintf(`{"session":%q,"offset":-1}`, fx.session),
		fmt.Sprintf(`{"session":%q,"offset":1}`, fx.session),
		fmt.Sprintf(`{"session":%q,"offset":9223372036854775807}`, fx.session),
		fmt.Sprintf(`{"session":%q,"offset":%d,"categories":["\u0000","%s",""]}`, fx.session, fx.offset, strings.Repeat("c", 100000)),
		fmt.Sprintf(`{"session":%q,"offset":%d,"categories":null}`, fx.session, fx.offset),
		`{"session":"../../x","offset":0}`,
		`{"session":"","offset":0}`,
	) {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := fx.call(t, "POST", "/api/urldb/records", "application/json", body, addRecordError)
		if rec.Code != http.StatusOK {
			return
		}
		// What was added is exported as domain files that load again, with the
		// record in them as it was added.
		var added struct {
			Domain, Path string
			Record       struct{ Categories []string }
		}
		json.Unmarshal(rec.Body.Bytes(), &added)
		exp := fx.serve("GET", "/api/urldb/export.zip", "", nil)
		db, err := urldb.LoadZip(bytes.NewReader(exp.Body.Bytes()), int64(exp.Body.Len()))
		if err != nil {
			t.Fatalf("the database exported after adding %s does not load: %v", body, err)
		}
		dom := db.Domain(added.Domain)
		if dom == nil || dom.Record(added.Path) == nil {
			t.Fatalf("the database exported after adding %s lacks %s %s", body, added.Domain, added.Path)
		}
		if got := dom.Record(added.Path).Categories; strings.Join(got, "\x00") != strings.Join(added.Record.Categories, "\x00") {
			t.Fatalf("categories %q were added, %q exported", added.Record.Categories, got)
		}
	})
}

// A rename's error names the name.
var renameError = regexp.MustCompile(`name`)

func FuzzRenameSession(f *testing.F) {
	for _, body := range append(hostileJSON(),
		`{"name":"a session"}`,
		`{"name":""}`,
		`{"name":"   "}`,
		`{"name":"`+strings.Repeat("x", 201)+`"}`,
		`{"name":"\u0000\u202e\n"}`,
		`{"name":5}`,
	) {
		f.Add([]byte(body))
	}
	fx := newAPIFixture(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := fx.call(t, "PATCH", "/api/sessions/"+fx.session, "application/json", body, renameError)
		if rec.Code == http.StatusOK {
			var info SessionInfo
			json.Unmarshal(rec.Body.Bytes(), &info)
			if n := utf8.RuneCountInString(info.Name); n == 0 || n > 200 || !utf8.ValidString(info.Name) {
				t.Fatalf("renamed to %q", info.Name)
			}
		}
	})
}
