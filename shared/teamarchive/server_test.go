package teamarchive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

const testToken = "alice:alice-secret-0123456789"

func newTestServer(t testing.TB, cfg Config) (*Server, *MemBucket) {
	t.Helper()
	b := NewMemBucket()
	b.Now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	cfg.Bucket, cfg.Now = b, b.Now
	if cfg.Tokens == nil {
		cfg.Tokens = ParseTokens(testToken)
	}
	return NewServer(cfg), b
}

type req struct {
	method, path string
	token        string // "" sends none; "-" sends the test token
	body         []byte
	header       map[string]string
}

func do(t testing.TB, h http.Handler, r req) *httptest.ResponseRecorder {
	t.Helper()
	hr := httptest.NewRequest(r.method, "http://archive.test"+r.path, bytes.NewReader(r.body))
	hr.ContentLength = int64(len(r.body))
	if r.body == nil {
		hr.Body, hr.ContentLength = http.NoBody, 0
	}
	switch r.token {
	case "":
	case "-":
		hr.Header.Set("Authorization", "Bearer alice-secret-0123456789")
	default:
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	// As the Worker gets them (github.com/syumai/workers): a field's value split at
	// each comma into values of their own.
	for k, v := range r.header {
		hr.Header[http.CanonicalHeaderKey(k)] = strings.Split(v, ",")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, hr)
	return w
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantStatus(t testing.TB, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %s", w.Code, status, w.Body.String())
	}
}

func TestServerUploadListDownload(t *testing.T) {
	s, b := newTestServer(t, Config{})
	bundle := readTestdata(t, "sample-bundle.zip")
	w := do(t, s, req{method: "PUT", path: "/api/bundles/team-2024.zip", token: "-", body: bundle})
	wantStatus(t, w, http.StatusCreated)
	var info BundleInfo
	if err := json.Unmarshal(w.Body.Bytes(), &info); err != nil {
		t.Fatal(err)
	}
	if info.Name != "team-2024.zip" || info.Kind != KindBundle || info.Size != int64(len(bundle)) || info.Records != 6 ||
		info.Uploader != "alice" || len(info.SHA256) != 64 {
		t.Errorf("upload answered %+v", info)
	}

	// Upload a bare WARC too, and list both, one a page.
	warcFile := readTestdata(t, "sample-2025.warc.gz")
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/sample-2025.warc.gz", token: "-", body: warcFile}), http.StatusCreated)
	var names []string
	cursor := ""
	for range 3 {
		w := do(t, s, req{method: "GET", path: "/api/bundles?limit=1&cursor=" + cursor, token: "-"})
		wantStatus(t, w, http.StatusOK)
		var page struct {
			Bundles   []BundleInfo
			Cursor    string
			Truncated bool
		}
		json.Unmarshal(w.Body.Bytes(), &page)
		for _, b := range page.Bundles {
			names = append(names, b.Name+"/"+b.Kind+"/"+strconv.Itoa(b.Records)+"/"+b.Uploader+"/"+b.Uploaded.Format(time.RFC3339))
		}
		if !page.Truncated {
			break
		}
		cursor = page.Cursor
	}
	want := []string{"sample-2025.warc.gz/warc/6/alice/2025-01-02T03:04:05Z", "team-2024.zip/bundle/6/alice/2025-01-02T03:04:05Z"}
	if !slices.Equal(names, want) {
		t.Errorf("listing %v, want %v", names, want)
	}

	// Whole download, then ranges.
	w = do(t, s, req{method: "GET", path: "/api/bundles/team-2024.zip", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if !bytes.Equal(w.Body.Bytes(), bundle) || w.Header().Get("Accept-Ranges") != "bytes" {
		t.Errorf("download differs (%d bytes) or lacks Accept-Ranges", w.Body.Len())
	}
	w = do(t, s, req{method: "GET", path: "/api/bundles/team-2024.zip", token: "-", header: map[string]string{"Range": "bytes=100-199"}})
	wantStatus(t, w, http.StatusPartialContent)
	if !bytes.Equal(w.Body.Bytes(), bundle[100:200]) || w.Header().Get("Content-Range") != fmt.Sprintf("bytes 100-199/%d", len(bundle)) {
		t.Errorf("range: %q, %d bytes", w.Header().Get("Content-Range"), w.Body.Len())
	}
	w = do(t, s, req{method: "GET", path: "/api/bundles/team-2024.zip", token: "-", header: map[string]string{"Range": "bytes=-10"}})
	wantStatus(t, w, http.StatusPartialContent)
	if !bytes.Equal(w.Body.Bytes(), bundle[len(bundle)-10:]) {
		t.Error("suffix range differs")
	}
	// Several ranges: one answer in parts, each with its Content-Range; a range past
	// the end among them is left out.
	w = do(t, s, req{method: "GET", path: "/api/bundles/team-2024.zip", token: "-", header: map[string]string{"Range": fmt.Sprintf("bytes=10-19, 300-399,%d-", len(bundle)+5)}})
	wantStatus(t, w, http.StatusPartialContent)
	mt, params, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if mt != "multipart/byteranges" {
		t.Fatalf("several ranges: Content-Type %q", w.Header().Get("Content-Type"))
	}
	mr := multipart.NewReader(w.Body, params["boundary"])
	for _, want := range [][2]int{{10, 20}, {300, 400}} {
		part, err := mr.NextPart()
		if err != nil {
			t.Fatalf("part %v: %v", want, err)
		}
		got, _ := io.ReadAll(part)
		if cr := part.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes %d-%d/%d", want[0], want[1]-1, len(bundle)) || !bytes.Equal(got, bundle[want[0]:want[1]]) {
			t.Errorf("part %v: %q, %d bytes", want, cr, len(got))
		}
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Errorf("a part more than asked for: %v", err)
	}
	w = do(t, s, req{method: "GET", path: "/api/bundles/team-2024.zip", token: "-", header: map[string]string{"Range": "bytes=300-399,10-19"}})
	wantStatus(t, w, http.StatusOK) // out of order: the whole, as the RFC lets a server answer
	if w.Body.Len() != len(bundle) {
		t.Errorf("ranges out of order: %d bytes, want the whole %d", w.Body.Len(), len(bundle))
	}
	w = do(t, s, req{method: "GET", path: "/api/bundles/team-2024.zip", token: "-", header: map[string]string{"Range": fmt.Sprintf("bytes=%d-", len(bundle))}})
	wantStatus(t, w, http.StatusRequestedRangeNotSatisfiable)
	if w.Header().Get("Content-Range") != fmt.Sprintf("bytes */%d", len(bundle)) {
		t.Errorf("416 Content-Range %q", w.Header().Get("Content-Range"))
	}
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles/nope.zip", token: "-"}), http.StatusNotFound)

	// Every key is in the layout; nothing temporary is left.
	for _, k := range bundleKeys(b) {
		if !strings.HasPrefix(k, "data/") && !strings.HasPrefix(k, "cdx/") && !strings.HasPrefix(k, "index/") {
			t.Errorf("unexpected key %s", k)
		}
	}
	if n := len(bundleKeys(b)); n != 6 {
		t.Errorf("%d keys, want 6: %v", n, bundleKeys(b))
	}
}

// TestServerRecordFetch follows a CDX line to its record: the bundle's file with the
// line's offset and length is one gzip member holding the response.
func TestServerRecordFetch(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/b1.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")}), http.StatusCreated)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/w1.warc.gz", token: "-", body: readTestdata(t, "sample-2025.warc.gz")}), http.StatusCreated)
	w := do(t, s, req{method: "GET", path: "/api/cdx?url=http://sub.example.com/x&output=json", token: "-"})
	wantStatus(t, w, http.StatusOK)
	lines := strings.Split(strings.TrimSpace(w.Body.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), w.Body.String())
	}
	for _, line := range lines {
		var e struct{ URLKey, Timestamp, URL, Filename, Source, Offset, Length string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		off, _ := strconv.Atoi(e.Offset)
		n, _ := strconv.Atoi(e.Length)
		w := do(t, s, req{method: "GET", path: "/api/bundles/" + e.Source + "/" + e.Filename, token: "-",
			header: map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", off, off+n-1)}})
		wantStatus(t, w, http.StatusPartialContent)
		r, err := warc.NewReader(w.Body)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if rec.Type != warc.TypeResponse || rec.TargetURI != "https://sub.example.com/x" || rec.Date.Format("20060102150405") != e.Timestamp {
			t.Errorf("record %s %s %v for %s", rec.Type, rec.TargetURI, rec.Date, line)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("more than one record in the range: %v", err)
		}
	}
	// A deflated member is served whole.
	w = do(t, s, req{method: "GET", path: "/api/bundles/b1.zip/pages.jsonl", token: "-"})
	wantStatus(t, w, http.StatusOK)
	if !strings.Contains(w.Body.String(), `"url": "http://example.com/"`) {
		t.Errorf("pages.jsonl: %q", w.Body.String())
	}
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles/b1.zip/missing.warc.gz", token: "-"}), http.StatusNotFound)
}

// TestServerRecordReads: a record's Range read of a bundle member asks the bucket twice
// (the bundle's entry, then the range of its data), each trip a replay waits on; a
// bundle not there is a 404 that names it.
func TestServerRecordReads(t *testing.T) {
	s, b := newTestServer(t, Config{})
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/b1.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")}), http.StatusCreated)
	w := do(t, s, req{method: "GET", path: "/api/cdx?url=http://example.com/&output=json&limit=1", token: "-"})
	wantStatus(t, w, http.StatusOK)
	var e struct{ Filename, Source, Offset, Length string }
	if err := json.Unmarshal(bytes.TrimSpace(w.Body.Bytes()), &e); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	off, _ := strconv.Atoi(e.Offset)
	n, _ := strconv.Atoi(e.Length)
	c := &readCounter{Bucket: b}
	counted := NewServer(Config{Bucket: c, Now: b.Now, Tokens: ParseTokens(testToken)})
	w = do(t, counted, req{method: "GET", path: "/api/bundles/" + e.Source + "/" + e.Filename, token: "-",
		header: map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", off, off+n-1)}})
	wantStatus(t, w, http.StatusPartialContent)
	if w.Body.Len() != n {
		t.Errorf("%d bytes of the record's %d", w.Body.Len(), n)
	}
	if got := c.reads.Load(); got != 2 {
		t.Errorf("the record's read asked the bucket %d times, want 2", got)
	}
	w = do(t, counted, req{method: "GET", path: "/api/bundles/nosuch.zip/" + e.Filename, token: "-"})
	wantStatus(t, w, http.StatusNotFound)
	if !strings.Contains(w.Body.String(), "no bundle nosuch.zip") {
		t.Errorf("a bundle not there: %s", w.Body)
	}
}

// readCounter is a Bucket that counts the reads (Head and Get) asked of it.
type readCounter struct {
	Bucket
	reads atomic.Int32
}

func (c *readCounter) Head(ctx context.Context, key string) (*Object, error) {
	c.reads.Add(1)
	return c.Bucket.Head(ctx, key)
}

func (c *readCounter) Get(ctx context.Context, key string, r *Range) (*Object, io.ReadCloser, error) {
	c.reads.Add(1)
	return c.Bucket.Get(ctx, key, r)
}

// TestServerCDX checks every match type against the two uploads, keys as surt 0.3.1
// computes them, ranges as pywb's calc_search_range.
func TestServerCDX(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/b2024.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")}), http.StatusCreated)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/w2025.warc.gz", token: "-", body: readTestdata(t, "sample-2025.warc.gz")}), http.StatusCreated)
	for _, tc := range []struct {
		query string
		want  []string // "key timestamp source"
	}{
		{"url=http://example.com/", []string{"com,example)/ 20240102030405 b2024.zip", "com,example)/ 20250102030405 w2025.warc.gz"}},
		{"url=example.com/about/&matchType=exact", []string{"com,example)/about 20240302030405 b2024.zip", "com,example)/about 20250302030405 w2025.warc.gz"}},
		{"url=http://example.com/pa&matchType=prefix&to=2024", []string{"com,example)/page?a=1&b=2 20240202030405 b2024.zip"}},
		{"url=example.com/a*&from=2025", []string{"com,example)/about 20250302030405 w2025.warc.gz", "com,example)/api?__wb_method=post&a=1&b=2 20250502030405 w2025.warc.gz"}},
		{"url=example.com&matchType=host&from=20250101&to=20250301", []string{"com,example)/ 20250102030405 w2025.warc.gz", "com,example)/page?a=1&b=2 20250202030405 w2025.warc.gz"}},
		{"url=example.com&matchType=domain&from=2025&limit=5", []string{
			"com,example)/ 20250102030405 w2025.warc.gz", "com,example)/about 20250302030405 w2025.warc.gz",
			"com,example)/api?__wb_method=post&a=1&b=2 20250502030405 w2025.warc.gz", "com,example)/page?a=1&b=2 20250202030405 w2025.warc.gz",
			"com,example,sub)/x 20250402030405 w2025.warc.gz"}},
		{"url=*.example.com&limit=3", []string{"com,example)/ 20240102030405 b2024.zip", "com,example)/ 20250102030405 w2025.warc.gz", "com,example)/about 20240302030405 b2024.zip"}},
		{"url=com&matchType=domain&to=2024", []string{
			"com,example)/ 20240102030405 b2024.zip", "com,example)/about 20240302030405 b2024.zip",
			"com,example)/api?__wb_method=post&a=1&b=2 20240502030405 b2024.zip", "com,example)/page?a=1&b=2 20240202030405 b2024.zip",
			"com,example,sub)/x 20240402030405 b2024.zip"}},
		{"url=http://example.com/api&method=POST&requestBody=b%3D2%26a%3D1", []string{
			"com,example)/api?__wb_method=post&a=1&b=2 20240502030405 b2024.zip", "com,example)/api?__wb_method=post&a=1&b=2 20250502030405 w2025.warc.gz"}},
		{"url=http://example.com/api", nil},
		{"url=example.net&matchType=domain", nil},
	} {
		w := do(t, s, req{method: "GET", path: "/api/cdx?" + tc.query, token: "-"})
		wantStatus(t, w, http.StatusOK)
		var got []string
		for line := range strings.Lines(w.Body.String()) {
			key, rest, _ := strings.Cut(line, " ")
			ts, js, _ := strings.Cut(rest, " ")
			var e struct{ Source, URL, Filename string }
			if err := json.Unmarshal([]byte(js), &e); err != nil {
				t.Fatalf("%s: %q: %v", tc.query, line, err)
			}
			got = append(got, key+" "+ts+" "+e.Source)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.query, got, tc.want)
		}
	}
	// The lines are the index's own, "source" added in pywb's json.dumps style.
	w := do(t, s, req{method: "GET", path: "/api/cdx?url=example.org", token: "-"})
	w.Body = bytes.NewBufferString(withoutUpload(w.Body.String()))
	if !strings.HasPrefix(w.Body.String(), `org,example)/ 20240602030405 {"url": "http://example.org/", "mime": "text/html", "status": "200", "digest": "`) ||
		!strings.HasSuffix(w.Body.String(), `", "filename": "webkeep-sample.warc.gz", "source": "b2024.zip"}`+"\n"+`org,example)/ 20250602030405 {"url": "http://example.org/", "mime": "text/html", "status": "200", "digest": "`+
			w.Body.String()[strings.LastIndex(w.Body.String(), `"digest": "`)+11:]) {
		t.Errorf("cdxj lines:\n%s", w.Body.String())
	}
	for _, bad := range []string{"", "url=x&matchType=regex", "url=x&limit=none"} {
		wantStatus(t, do(t, s, req{method: "GET", path: "/api/cdx?" + bad, token: "-"}), http.StatusBadRequest)
	}
}

func TestServerRejects(t *testing.T) {
	s, b := newTestServer(t, Config{MaxBundleSize: 1 << 20})
	bundle := readTestdata(t, "sample-bundle.zip")
	for _, tc := range []struct {
		r      req
		status int
	}{
		{req{method: "PUT", path: "/api/bundles/x.zip", body: bundle}, http.StatusUnauthorized},
		{req{method: "PUT", path: "/api/bundles/x.zip", token: "wrong", body: bundle}, http.StatusUnauthorized},
		{req{method: "GET", path: "/api/bundles"}, http.StatusUnauthorized},
		{req{method: "GET", path: "/api/cdx?url=example.com"}, http.StatusUnauthorized},
		{req{method: "GET", path: "/api/urldb"}, http.StatusUnauthorized},
		{req{method: "GET", path: "/api/bundles", token: "wrong"}, http.StatusUnauthorized},
		{req{method: "PUT", path: "/api/bundles/..%2Fx", token: "-", body: bundle}, http.StatusBadRequest},
		{req{method: "PUT", path: "/api/bundles/%2e%2e", token: "-", body: bundle}, http.StatusBadRequest},
		{req{method: "PUT", path: "/api/bundles/.env", token: "-", body: bundle}, http.StatusBadRequest},
		{req{method: "PUT", path: "/api/bundles/a%00b", token: "-", body: bundle}, http.StatusBadRequest},
		{req{method: "PUT", path: "/api/bundles/a/b", token: "-", body: bundle}, http.StatusMethodNotAllowed},
		{req{method: "PUT", path: "/api/bundles/" + strings.Repeat("x", 200), token: "-", body: bundle}, http.StatusBadRequest},
		{req{method: "PUT", path: "/api/bundles/big.zip", token: "-", body: make([]byte, 1<<20+1)}, http.StatusRequestEntityTooLarge},
		{req{method: "PUT", path: "/api/bundles/empty.zip", token: "-", body: []byte{}}, http.StatusBadRequest},
		{req{method: "PUT", path: "/api/bundles/text.zip", token: "-", body: []byte("hello, world")}, http.StatusUnsupportedMediaType},
		{req{method: "PUT", path: "/api/bundles/trunc.zip", token: "-", body: bundle[:len(bundle)-30]}, http.StatusUnprocessableEntity},
		{req{method: "PUT", path: "/api/bundles/bad.warc.gz", token: "-", body: []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}}, http.StatusUnprocessableEntity},
		{req{method: "POST", path: "/api/bundles/x.zip", token: "-", body: bundle}, http.StatusMethodNotAllowed},
		{req{method: "GET", path: "/api/other", token: "-"}, http.StatusNotFound},
	} {
		w := do(t, s, tc.r)
		if w.Code != tc.status {
			t.Errorf("%s %s: %d, want %d: %s", tc.r.method, tc.r.path, w.Code, tc.status, w.Body.String())
		}
		if w.Code == http.StatusUnauthorized && !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s %s: 401 without WWW-Authenticate", tc.r.method, tc.r.path)
		}
	}
	if keys := b.Keys(); len(keys) != 0 {
		t.Errorf("rejected uploads left %v", keys)
	}

	// No overwrite unless asked; with ?overwrite=1 the old upload is removed.
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/x.zip", token: "-", body: bundle}), http.StatusCreated)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/x.zip", token: "-", body: readTestdata(t, "sample-2025.warc.gz")}), http.StatusConflict)
	w := do(t, s, req{method: "PUT", path: "/api/bundles/x.zip?overwrite=1", token: "-", body: readTestdata(t, "sample-2025.warc.gz")})
	wantStatus(t, w, http.StatusOK)
	if !strings.Contains(w.Body.String(), `"kind":"warc"`) || len(bundleKeys(b)) != 3 {
		t.Errorf("overwrite: %s, keys %v", w.Body.String(), bundleKeys(b))
	}
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/bundles/x.zip", token: "-"}), http.StatusNoContent)
	if keys := b.Keys(); len(keys) != 0 {
		t.Errorf("delete left %v", keys)
	}
}

// failingReader is a client that disconnects after n bytes.
type failingReader struct {
	data []byte
	n    int
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("connection reset by peer")
	}
	k := copy(p, f.data[:min(len(f.data), f.n)])
	f.data, f.n = f.data[k:], f.n-k
	return k, nil
}

func TestServerInterruptedUpload(t *testing.T) {
	s, b := newTestServer(t, Config{})
	bundle := readTestdata(t, "sample-bundle.zip")
	for _, body := range []io.Reader{&failingReader{data: bundle, n: 1000}, bytes.NewReader(bundle[:1000])} {
		hr := httptest.NewRequest("PUT", "/api/bundles/cut.zip", body)
		hr.ContentLength = int64(len(bundle))
		hr.Header.Set("Authorization", "Bearer alice-secret-0123456789")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, hr)
		wantStatus(t, w, http.StatusBadRequest)
		if !strings.Contains(w.Body.String(), "interrupted after 1000 bytes") {
			t.Errorf("answer %s", w.Body.String())
		}
	}
	if keys := b.Keys(); len(keys) != 0 {
		t.Errorf("interrupted uploads left %v", keys)
	}
	w := do(t, s, req{method: "GET", path: "/api/bundles", token: "-"})
	if !strings.Contains(w.Body.String(), `"bundles":[]`) {
		t.Errorf("listing after interrupted uploads: %s", w.Body.String())
	}

	// Chunked uploads (no Content-Length): the limit is enforced while reading.
	small, _ := newTestServer(t, Config{MaxBundleSize: int64(len(bundle))})
	for _, tc := range []struct {
		body   []byte
		status int
	}{{bundle, http.StatusCreated}, {append(bytes.Clone(bundle), 0), http.StatusRequestEntityTooLarge}} {
		hr := httptest.NewRequest("PUT", "/api/bundles/chunked.zip?overwrite=1", bytes.NewReader(tc.body))
		hr.ContentLength = -1
		hr.Header.Set("Authorization", "Bearer alice-secret-0123456789")
		w := httptest.NewRecorder()
		small.ServeHTTP(w, hr)
		wantStatus(t, w, tc.status)
	}
	if keys := bundleKeys(small.cfg.Bucket.(*MemBucket)); len(keys) != 3 {
		t.Errorf("keys after chunked uploads: %v", keys)
	}
	// The upload over the limit left nothing: the listing has the first one only.
	if w := do(t, small, req{method: "GET", path: "/api/bundles", token: "-"}); strings.Count(w.Body.String(), `"chunked.zip"`) != 1 {
		t.Errorf("listing after the chunked uploads: %s", w.Body.String())
	}
}

func TestServerPublicReads(t *testing.T) {
	s, _ := newTestServer(t, Config{PublicReads: true})
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/p.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")}), http.StatusCreated)
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles"}), http.StatusOK)
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles/p.zip"}), http.StatusOK)
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/cdx?url=example.org"}), http.StatusOK)
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles", token: "typo"}), http.StatusUnauthorized)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/q.zip", body: readTestdata(t, "sample-bundle.zip")}), http.StatusUnauthorized)
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/bundles/p.zip"}), http.StatusUnauthorized)
}

// TestServerConcurrentUploads: 50 uploads at once all listed, and of 10 uploads of
// one name exactly one wins, the others leave nothing behind.
func TestServerConcurrentUploads(t *testing.T) {
	s, b := newTestServer(t, Config{})
	bundle := readTestdata(t, "sample-bundle.zip")
	var wg sync.WaitGroup
	codes := make([]int, 60)
	for i := range 60 {
		wg.Go(func() {
			name := fmt.Sprintf("c%02d.zip", i)
			if i >= 50 {
				name = "same.zip"
			}
			codes[i] = do(t, s, req{method: "PUT", path: "/api/bundles/" + name, token: "-", body: bundle}).Code
		})
	}
	wg.Wait()
	created, conflicts := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
			conflicts++
		default:
			t.Errorf("status %d", c)
		}
	}
	if created != 51 || conflicts != 9 {
		t.Errorf("%d created, %d conflicts; want 51, 9", created, conflicts)
	}
	w := do(t, s, req{method: "GET", path: "/api/bundles?limit=1000", token: "-"})
	var page struct{ Bundles []BundleInfo }
	json.Unmarshal(w.Body.Bytes(), &page)
	if len(page.Bundles) != 51 || len(bundleKeys(b)) != 51*3 {
		t.Errorf("%d listed, %d keys; want 51, 153", len(page.Bundles), len(bundleKeys(b)))
	}
	w = do(t, s, req{method: "GET", path: "/api/cdx?url=example.org&limit=100", token: "-"})
	if n := strings.Count(w.Body.String(), "\n"); n != 51 {
		t.Errorf("CDX across 51 bundles: %d lines", n)
	}
}

func TestServerBundleWithoutIndex(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	w := do(t, s, req{method: "PUT", path: "/api/bundles/noindex.zip", token: "-", body: sampleBundle(t, bundleWARC(t), false)})
	wantStatus(t, w, http.StatusCreated)
	with := withoutUpload(do(t, s, req{method: "GET", path: "/api/cdx?url=*.example.com", token: "-"}).Body.String())
	s2, _ := newTestServer(t, Config{})
	do(t, s2, req{method: "PUT", path: "/api/bundles/noindex.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")})
	if want := withoutUpload(do(t, s2, req{method: "GET", path: "/api/cdx?url=*.example.com", token: "-"}).Body.String()); with != want || strings.Count(with, "\n") != 5 {
		t.Errorf("indexing the WARC gave\n%s\nthe bundle's own index\n%s", with, want)
	}
}

func TestPreflightAllowsTheExtensionToSendItsToken(t *testing.T) {
	srv := NewServer(Config{Bucket: NewMemBucket(), Tokens: ParseTokens("alice:s3cret")})
	req := httptest.NewRequest(http.MethodOptions, "/api/bundles/a.zip", nil)
	req.Header.Set("Origin", "chrome-extension://abcdefghijklmnop")
	req.Header.Set("Access-Control-Request-Method", "PUT")
	req.Header.Set("Access-Control-Request-Headers", "authorization")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusNoContent {
		t.Fatalf("preflight: %d", rec.Code)
	}
	h := rec.Header()
	if !strings.Contains(h.Get("Access-Control-Allow-Methods"), "PUT") || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") || h.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight headers: %v", h)
	}
}

// withoutUpload drops the "upload" field the merged index adds to each line (its
// value differs from upload to upload).
func withoutUpload(lines string) string {
	return regexp.MustCompile(`, ?"upload": ?"[^"]*"`).ReplaceAllString(lines, "")
}

// A bundle's own index is served as the merged index took it in: sorted lines, each
// naming the member that holds its record; the same lines a CDX query of its URLs
// answers. Reads need a token unless they are public; a bundle that is not there is
// 404.
func TestServerBundleIndex(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/b.zip", token: "-", body: readTestdata(t, "sample-bundle.zip")}), http.StatusCreated)
	w := do(t, s, req{method: "GET", path: "/api/bundles/b.zip?cdxj", token: "-"})
	wantStatus(t, w, http.StatusOK)
	index := w.Body.String()
	lines := strings.Split(strings.TrimSuffix(index, "\n"), "\n")
	if !slices.IsSorted(lines) || len(lines) != 6 {
		t.Fatalf("the bundle's index, %d lines, sorted %v:\n%s", len(lines), slices.IsSorted(lines), index)
	}
	queried := withoutUpload(do(t, s, req{method: "GET", path: "/api/cdx?url=*.example.com", token: "-"}).Body.String() +
		do(t, s, req{method: "GET", path: "/api/cdx?url=example.org", token: "-"}).Body.String())
	for _, l := range lines {
		key, _, _ := strings.Cut(l, "}")
		if !strings.Contains(queried, key) || !strings.Contains(l, `"filename"`) {
			t.Errorf("line %q is not among the CDX query's:\n%s", l, queried)
		}
	}
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles/b.zip?cdxj"}), http.StatusUnauthorized)
	wantStatus(t, do(t, s, req{method: "GET", path: "/api/bundles/none.zip?cdxj", token: "-"}), http.StatusNotFound)
}
