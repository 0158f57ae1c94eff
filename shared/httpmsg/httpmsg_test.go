package httpmsg_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

func TestStatusTextIsNetHTTPs(t *testing.T) {
	for code := 0; code < 1000; code++ {
		if got, want := httpmsg.StatusText(code), http.StatusText(code); got != want {
			t.Errorf("StatusText(%d) = %q, net/http: %q", code, got, want)
		}
	}
}

func TestStatusHasBody(t *testing.T) {
	for _, tc := range []struct {
		code int
		want bool
	}{
		{100, false}, {103, false}, {199, false}, {200, true}, {204, false}, {205, true},
		{206, true}, {301, true}, {304, false}, {404, true}, {500, true},
	} {
		if got := httpmsg.StatusHasBody(tc.code); got != tc.want {
			t.Errorf("StatusHasBody(%d) = %v, want %v", tc.code, got, tc.want)
		}
	}
}

func TestParseTimeIsNetHTTPs(t *testing.T) {
	at := time.Date(2026, 11, 26, 8, 49, 37, 0, time.UTC)
	for _, text := range []string{
		at.Format(http.TimeFormat), at.Format(time.RFC850), at.Format(time.ANSIC),
		"Thu, 26 Nov 2026 08:49:37 +0100", "0", "", "yesterday",
	} {
		got, gotErr := httpmsg.ParseTime(text)
		want, wantErr := http.ParseTime(text)
		if !got.Equal(want) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("ParseTime(%q) = %v, %v; net/http: %v, %v", text, got, gotErr, want, wantErr)
		}
	}
}

func TestHeader(t *testing.T) {
	h := httpmsg.Header{}
	h.Add("content-type", "text/html")
	h.Add("Set-Cookie", "a=1")
	h.Add("set-cookie", "b=2")
	c := h.Clone()
	h.Set("CONTENT-TYPE", "text/plain")
	h.Del("set-cookie")
	if h.Get("Content-Type") != "text/plain" || h.Values("Set-Cookie") != nil {
		t.Errorf("header after Set and Del: %q", h)
	}
	if c.Get("content-type") != "text/html" || strings.Join(c.Values("Set-Cookie"), " ") != "a=1 b=2" {
		t.Errorf("clone changed with its original: %q", c)
	}
	if httpmsg.CanonicalHeaderKey("x-archive-orig-content-length") != "X-Archive-Orig-Content-Length" {
		t.Error("CanonicalHeaderKey")
	}
}

func TestNewRequest(t *testing.T) {
	for _, tc := range []struct {
		body   io.Reader
		length int64
		noBody bool
	}{
		{nil, 0, true},
		{strings.NewReader("abc"), 3, false},
		{bytes.NewReader(nil), 0, true},
		{bytes.NewBufferString("abcd"), 4, false},
		{io.MultiReader(strings.NewReader("ab")), -1, false},
		{httpmsg.NoBody, 0, true},
	} {
		r, err := httpmsg.NewRequest(context.Background(), "", "https://example.org/a?b=c", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if r.Method != "GET" || r.ContentLength != tc.length || (r.Body == httpmsg.NoBody) != tc.noBody || r.URL.RawQuery != "b=c" {
			t.Errorf("NewRequest with %T: %s, length %d, body %T; want length %d", tc.body, r.Method, r.ContentLength, r.Body, tc.length)
		}
	}
	if _, err := httpmsg.NewRequest(context.Background(), "GET", "http://[::1", nil); err == nil {
		t.Error("a malformed URL made a request")
	}
}

// answer serves one request with h through net/http's types.
func answer(h httpmsg.Handler, method, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	nethttp.Handler(h).ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

func TestMux(t *testing.T) {
	mux := httpmsg.NewMux()
	route := func(name string) func(httpmsg.ResponseWriter, *httpmsg.Request) {
		return func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
			io.WriteString(w, name+" id="+r.PathValue("id")+" file="+r.PathValue("file"))
		}
	}
	mux.HandleFunc("GET /api/status", route("status"))
	mux.HandleFunc("GET /api/sessions/{id}", route("session"))
	mux.HandleFunc("DELETE /api/sessions/{id}", route("delete"))
	mux.HandleFunc("GET /api/sessions/{id}/{file}", route("file"))
	mux.HandleFunc("GET /api/sessions/{id}/wacz", route("wacz"))
	mux.HandleFunc("POST /api/replay/{id}/answer", route("answer"))
	// The same routes on net/http's ServeMux: the two must agree.
	std := http.NewServeMux()
	for _, p := range []string{"GET /api/status", "GET /api/sessions/{id}", "DELETE /api/sessions/{id}", "GET /api/sessions/{id}/{file}", "GET /api/sessions/{id}/wacz", "POST /api/replay/{id}/answer"} {
		name := map[string]string{"GET /api/status": "status", "GET /api/sessions/{id}": "session", "DELETE /api/sessions/{id}": "delete",
			"GET /api/sessions/{id}/{file}": "file", "GET /api/sessions/{id}/wacz": "wacz", "POST /api/replay/{id}/answer": "answer"}[p]
		std.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, name+" id="+r.PathValue("id")+" file="+r.PathValue("file"))
		})
	}
	for _, tc := range []struct {
		method, target string
		code           int
		body           string
	}{
		{"GET", "/api/status", 200, "status id= file="},
		{"HEAD", "/api/status", 200, "status id= file="},
		{"GET", "/api/sessions/s1", 200, "session id=s1 file="},
		{"DELETE", "/api/sessions/s1", 200, "delete id=s1 file="},
		{"GET", "/api/sessions/s1/wacz", 200, "wacz id=s1 file="},
		{"GET", "/api/sessions/s1/bundle.zip", 200, "file id=s1 file=bundle.zip"},
		{"GET", "/api/sessions/a%2Fb/x%20y", 200, "file id=a/b file=x y"},
		{"POST", "/api/sessions/s1", 405, "Method Not Allowed\n"},
		{"PUT", "/api/replay/r/answer", 405, "Method Not Allowed\n"},
		{"GET", "/api/sessions/", 404, "404 page not found\n"},
		{"GET", "/api/nothing", 404, "404 page not found\n"},
		{"GET", "/api/sessions/s1/wacz/more", 404, "404 page not found\n"},
	} {
		got, want := answer(mux, tc.method, tc.target), httptest.NewRecorder()
		std.ServeHTTP(want, httptest.NewRequest(tc.method, tc.target, nil))
		if got.Code != tc.code || got.Body.String() != tc.body {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.target, got.Code, got.Body, tc.code, tc.body)
		}
		if got.Code != want.Code || got.Body.String() != want.Body.String() || got.Header().Get("Allow") != want.Header().Get("Allow") {
			t.Errorf("%s %s: %d %q (Allow %q); net/http's ServeMux: %d %q (Allow %q)", tc.method, tc.target,
				got.Code, got.Body, got.Header().Get("Allow"), want.Code, want.Body, want.Header().Get("Allow"))
		}
	}
}

func TestMuxRefusesBadPatterns(t *testing.T) {
	for _, p := range []string{"/api/status", "GET api/status", "GET /a/{id}", " /x"} {
		func() {
			defer func() { recover() }()
			mux := httpmsg.NewMux()
			mux.HandleFunc("GET /a/{id}", func(httpmsg.ResponseWriter, *httpmsg.Request) {})
			mux.HandleFunc(p, func(httpmsg.ResponseWriter, *httpmsg.Request) {})
			t.Errorf("pattern %q was taken", p)
		}()
	}
}

// messages are HTTP responses as WARC records hold them, well and badly formed.
var messages = []string{
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello and more",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	"HTTP/1.0 404 Not Found\r\nX-A: 1\r\nx-a: 2\r\n\r\nthe rest of it",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
	"HTTP/1.1 204 No Content\r\nContent-Length: 4\r\n\r\nbody",
	"HTTP/1.1 304 Not Modified\r\n\r\n",
	"HTTP/1.1 200\r\n\r\nno reason",
	"HTTP/1.1 2000 OK\r\n\r\n",
	"FTP/1.1 200 OK\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
	"HTTP/1.1 200 OK\r\nBroken header\r\n\r\n",
	"HTTP/1.1 200 OK\r\n",
	"",
}

// FuzzReadResponse holds ReadResponse to net/http's on what net/http reads: the same
// status, header and body (TestReadResponseRefuses has what both refuse).
func FuzzReadResponse(f *testing.F) {
	for _, m := range messages {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, m string) {
		want, wantErr := http.ReadResponse(bufio.NewReader(strings.NewReader(m)), nil)
		if wantErr != nil || want.Header.Get("Transfer-Encoding") != "" && !strings.EqualFold(want.Header.Get("Transfer-Encoding"), "chunked") {
			return // net/http refuses it, or decodes a transfer coding that WARC records do not have
		}
		got, gotErr := httpmsg.ReadResponse(bufio.NewReader(strings.NewReader(m)))
		if gotErr != nil {
			t.Fatalf("%q: error %v; net/http reads it", m, gotErr)
		}
		if got.StatusCode != want.StatusCode || got.Status != want.Status || got.ProtoMajor != want.ProtoMajor || got.ProtoMinor != want.ProtoMinor {
			t.Errorf("%q: %d %q HTTP/%d.%d; net/http: %d %q HTTP/%d.%d", m, got.StatusCode, got.Status, got.ProtoMajor, got.ProtoMinor, want.StatusCode, want.Status, want.ProtoMajor, want.ProtoMinor)
		}
		gotBody, gotErr := io.ReadAll(got.Body)
		wantBody, wantErr := io.ReadAll(want.Body)
		// (net/http also refuses a body with data after its trailer, for the sake of
		// the connection: a WARC record has none to keep.)
		if !bytes.Equal(gotBody, wantBody) || wantErr == nil && gotErr != nil {
			t.Errorf("%q: body %q, %v; net/http: %q, %v", m, gotBody, gotErr, wantBody, wantErr)
		}
		for k, vs := range want.Header {
			if k != "Content-Length" && strings.Join(got.Header[k], "\n") != strings.Join(vs, "\n") {
				t.Errorf("%q: %s %q; net/http: %q", m, k, got.Header[k], vs)
			}
		}
	})
}

// FuzzChunkedReader holds NewChunkedReader to net/http/httputil's on what that
// reads, and to its io.ErrUnexpectedEOF for a body cut short.
func FuzzChunkedReader(f *testing.F) {
	for _, s := range []string{"5\r\nhello\r\n0\r\n\r\n", "5\nhello\n0\n\n", "3;a=b\r\nabc\r\n0\r\n", "3\r\nab", "3\r\nabcd\r\n", "x\r\n", "", "0\r\n", "ffffffffffffffffff\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := io.ReadAll(httpmsg.NewChunkedReader(strings.NewReader(s)))
		want, wantErr := io.ReadAll(httputil.NewChunkedReader(strings.NewReader(s)))
		if wantErr == nil && (gotErr != nil || !bytes.Equal(got, want)) {
			t.Errorf("%q: %q, %v; httputil: %q", s, got, gotErr, want)
		}
		if errors.Is(wantErr, io.ErrUnexpectedEOF) && !errors.Is(gotErr, io.ErrUnexpectedEOF) {
			t.Errorf("%q: error %v; httputil: %v", s, gotErr, wantErr)
		}
	})
}

// TestReadResponseRefuses has messages that are no HTTP response, or whose body
// breaks its framing: both readers refuse them, at once or while the body is read.
func TestReadResponseRefuses(t *testing.T) {
	for _, m := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\r\n",
		"HTTP/ 100 \n\n0",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"FTP/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nBroken header\r\n\r\n",
		"HTTP/1.1 200 OK\r\n",
		"",
	} {
		for name, read := range map[string]func(string) error{
			"httpmsg": func(m string) error {
				r, err := httpmsg.ReadResponse(bufio.NewReader(strings.NewReader(m)))
				if err == nil {
					_, err = io.ReadAll(r.Body)
				}
				return err
			},
			"net/http": func(m string) error {
				r, err := http.ReadResponse(bufio.NewReader(strings.NewReader(m)), nil)
				if err == nil {
					_, err = io.ReadAll(r.Body)
				}
				return err
			},
		} {
			if err := read(m); err == nil {
				t.Errorf("%s read %q", name, m)
			}
		}
	}
}
