package teamarchive

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/warc"
)

// siteWARC writes a site's two pages as a browser loads them, each page's response
// followed by its resources' (per-record gzip, WARC/1.1): what a page's batch takes
// is its own answer and those recorded with it, up to the next page.
func siteWARC(t testing.TB, year int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: true})
	for i, x := range []struct{ url, ctype, body string }{
		{"http://site.example/", "text/html", fmt.Sprintf("<p>home in %d</p>", year)},
		{"http://site.example/style.css", "text/css", "body{color:red}"},
		{"http://site.example/logo.png", "image/png", "\x89PNG fake"},
		{"http://site.example/about", "text/html", "<p>about</p>"},
		{"http://site.example/about.js", "text/javascript", "var about=1"},
	} {
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", x.ctype, len(x.body), x.body)
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: x.url, Date: time.Date(year, 3, 1, 0, 0, i, 0, time.UTC),
			ContentType: "application/http; msgtype=response", Block: strings.NewReader(resp), BlockLength: int64(len(resp))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// batchOf asks s for the batch of page as of ts: the answers by URL (status,
// timestamp, body) and the response.
func batchOf(t testing.TB, s http.Handler, page, ts string) (map[string]string, *http.Response) {
	t.Helper()
	w := do(t, s, req{method: "GET", path: "/api/replay/batch?url=" + url.QueryEscape(page) + "&ts=" + ts, token: "-"})
	wantStatus(t, w, http.StatusOK)
	answers, bodies, err := replay.ReadBatch(w.Body)
	if err != nil {
		t.Fatalf("the batch of %s: %v", page, err)
	}
	got := map[string]string{}
	for i, a := range answers {
		got[a.URL] = fmt.Sprintf("%d %s %s", a.Status, a.Timestamp, bodies[i])
	}
	return got, w.Result()
}

func TestServerReplayBatch(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	// The site in 2024 in a bundle (its WARC a stored member), in 2025 as a bare WARC.
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/site-2024.zip", token: "-", body: sampleBundle(t, siteWARC(t, 2024), true)}), http.StatusCreated)
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/site-2025.warc.gz", token: "-", body: siteWARC(t, 2025)}), http.StatusCreated)
	for _, tt := range []struct {
		page, ts, source, file string
		want                   map[string]string
	}{
		{"http://site.example/", "2024", "site-2024.zip", "webkeep-sample.warc.gz", map[string]string{
			"http://site.example/":          "200 20240301000000 <p>home in 2024</p>",
			"http://site.example/style.css": "200 20240301000001 body{color:red}",
			"http://site.example/logo.png":  "200 20240301000002 \x89PNG fake",
		}},
		{"http://site.example/", "", "site-2025.warc.gz", "site-2025.warc.gz", map[string]string{
			"http://site.example/":          "200 20250301000000 <p>home in 2025</p>",
			"http://site.example/style.css": "200 20250301000001 body{color:red}",
			"http://site.example/logo.png":  "200 20250301000002 \x89PNG fake",
		}},
		{"http://site.example/about", "20240301", "site-2024.zip", "webkeep-sample.warc.gz", map[string]string{
			"http://site.example/about":    "200 20240301000003 <p>about</p>",
			"http://site.example/about.js": "200 20240301000004 var about=1",
			// Before the page, back to the previous page.
			"http://site.example/style.css": "200 20240301000001 body{color:red}",
			"http://site.example/logo.png":  "200 20240301000002 \x89PNG fake",
		}},
	} {
		got, resp := batchOf(t, s, tt.page, tt.ts)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("the batch of %s as of %q:\n%v\nwant\n%v", tt.page, tt.ts, got, tt.want)
		}
		c, err := url.ParseQuery(resp.Header.Get(api.TeamBatchCaptureHeader))
		if err != nil || c.Get("source") != tt.source || c.Get("file") != tt.file || c.Get("upload") == "" || c.Get("timestamp") != strings.Fields(tt.want[tt.page])[1] {
			t.Errorf("the batch of %s as of %q: %s %q", tt.page, tt.ts, api.TeamBatchCaptureHeader, resp.Header.Get(api.TeamBatchCaptureHeader))
		}
		timing := resp.Header.Get("Server-Timing")
		for _, step := range []string{"lookup;dur=", "index;dur=", "records;dur=", "build;dur=", "ranges;desc=1", "batch;desc=made"} {
			if !strings.Contains(timing, step) {
				t.Errorf("the batch of %s: Server-Timing %q lacks %s", tt.page, timing, step)
			}
		}
	}
	// A batch kept by the client: named by its ETag, it gets 304 after the lookup; a
	// batch of another capture is made.
	_, resp := batchOf(t, s, "http://site.example/", "2024")
	etag := resp.Header.Get("ETag")
	for _, tt := range []struct {
		ifNoneMatch string
		status      int
	}{{etag, http.StatusNotModified}, {`"other", ` + etag, http.StatusNotModified}, {`"source=site-2025.warc.gz"`, http.StatusOK}} {
		w := do(t, s, req{method: "GET", path: "/api/replay/batch?url=" + url.QueryEscape("http://site.example/") + "&ts=2024", token: "-", header: map[string]string{"If-None-Match": tt.ifNoneMatch}})
		if w.Code != tt.status || (w.Code == http.StatusNotModified && (w.Body.Len() != 0 || w.Header().Get("ETag") != etag)) {
			t.Errorf("If-None-Match %s: %d (%d bytes, ETag %s), want %d", tt.ifNoneMatch, w.Code, w.Body.Len(), w.Header().Get("ETag"), tt.status)
		}
		// A browser keeps the batch in its own cache, asking each time; the 304's
		// Server-Timing says the batch was not made.
		if cc := w.Header().Get("Cache-Control"); cc != "private, no-cache" {
			t.Errorf("If-None-Match %s: Cache-Control %q", tt.ifNoneMatch, cc)
		}
		if timing, made := w.Header().Get("Server-Timing"), w.Code == http.StatusOK; !strings.Contains(timing, "lookup;dur=") || strings.Contains(timing, "batch;desc=made") != made || strings.Contains(timing, "batch;desc=unchanged") == made {
			t.Errorf("If-None-Match %s: %d, Server-Timing %q", tt.ifNoneMatch, w.Code, timing)
		}
	}
	// A page not archived: an empty batch, no capture named.
	if got, resp := batchOf(t, s, "http://site.example/never", ""); len(got) != 0 || resp.Header.Get(api.TeamBatchCaptureHeader) != "" {
		t.Errorf("a page not archived: %v, %q", got, resp.Header.Get(api.TeamBatchCaptureHeader))
	}
	// Bad requests, and none without a token.
	for _, tt := range []struct {
		path, token string
		status      int
		says        string
	}{
		{"/api/replay/batch?ts=2024", "-", http.StatusBadRequest, "url= is required"},
		{"/api/replay/batch?url=http://site.example/&ts=2024-03", "-", http.StatusBadRequest, "want a time of up to 14 digits"},
		{"/api/replay/batch?url=http://site.example/", "", http.StatusUnauthorized, ""},
	} {
		w := do(t, s, req{method: "GET", path: tt.path, token: tt.token})
		if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.says) {
			t.Errorf("%s: %d %s, want %d saying %q", tt.path, w.Code, w.Body, tt.status, tt.says)
		}
	}
}

// A WARC stored deflated in its bundle cannot be read by range: the Worker does not
// make its batches (409, saying why), and the extension makes them as before.
func TestServerReplayBatchDeflated(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	data := siteWARC(t, 2024)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct {
		name string
		b    []byte
	}{{"site.warc.gz", data}, {"site.cdxj", indexOf(t, data, "site.warc.gz")}} {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(f.b)
	}
	zw.Close()
	wantStatus(t, do(t, s, req{method: "PUT", path: "/api/bundles/deflated.zip", token: "-", body: buf.Bytes()}), http.StatusCreated)
	w := do(t, s, req{method: "GET", path: "/api/replay/batch?url=" + url.QueryEscape("http://site.example/"), token: "-"})
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "site.warc.gz is stored deflated in bundle deflated.zip") {
		t.Errorf("a deflated WARC: %d %s", w.Code, w.Body)
	}
}
