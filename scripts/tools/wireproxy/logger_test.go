package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log the test reads while the proxy writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) exchanges(t *testing.T) []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Exchange
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var ex Exchange
		if err := json.Unmarshal([]byte(line), &ex); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, ex)
	}
	return out
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func TestLoggerRecordsTheWire(t *testing.T) {
	hang := make(chan struct{})
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/login":
			w.Header().Add("Set-Cookie", "a=1; Path=/")
			w.Header().Add("Set-Cookie", "b=2; Path=/")
			w.Header().Set("Location", "/home")
			w.WriteHeader(http.StatusFound)
		case "/gz":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipped("héllo"))
		case "/slow":
			w.Header().Set("Content-Length", "100000")
			w.Write(bytes.Repeat([]byte("x"), 1000))
			w.(http.Flusher).Flush()
			<-hang
		default:
			w.Write([]byte("plain"))
		}
	}))
	defer app.Close()
	defer close(hang)
	to, _ := url.Parse(app.URL)
	rp := newProxy(to, log.New(io.Discard, "", 0))
	var wire syncBuffer
	proxy := httptest.NewServer(newLogger(rp, &wire))
	defer proxy.Close()

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Post(proxy.URL+"/login?x=1", "application/x-www-form-urlencoded", strings.NewReader("u=zoë&p=1"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	req, _ := http.NewRequest("GET", proxy.URL+"/gz", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err = http.DefaultTransport.RoundTrip(req) // Go's client would ask for gzip and decode it itself
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(res.Body)
	res.Body.Close()
	// A client that leaves before the body ends.
	res, err = http.Get(proxy.URL + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Read(make([]byte, 10))
	res.Body.Close()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()

	var got []Exchange
	for end := time.Now().Add(10 * time.Second); ; {
		if got = wire.exchanges(t); len(got) == 3 || time.Now().After(end) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 3 {
		t.Fatalf("logged %d exchanges, want 3: %+v", len(got), got)
	}
	byURL := map[string]Exchange{}
	for _, ex := range got {
		byURL[ex.URL] = ex
	}
	tests := []struct {
		url                   string
		method                string
		status                int
		requestSize           int64
		responseSize, decoded int64
		decodedSHA            string
		complete              bool
		setCookies            int
		errorContains         string
	}{
		{"/login?x=1", "POST", 302, int64(len("u=zoë&p=1")), 0, 0, sum(nil), true, 2, ""},
		{"/gz", "GET", 200, 0, int64(len(gzipped("héllo"))), int64(len("héllo")), sum([]byte("héllo")), true, 0, ""},
		{"/slow", "GET", 200, 0, -1, -1, "", false, 0, "went away"},
	}
	for _, tc := range tests {
		ex, ok := byURL[tc.url]
		if !ok {
			t.Errorf("%s not logged", tc.url)
			continue
		}
		if ex.Method != tc.method || ex.Status != tc.status || ex.RequestSize != tc.requestSize || ex.Complete != tc.complete {
			t.Errorf("%s: got %s %d, request %d bytes, complete %v; want %s %d, %d, %v", tc.url, ex.Method, ex.Status, ex.RequestSize, ex.Complete, tc.method, tc.status, tc.requestSize, tc.complete)
		}
		if tc.responseSize >= 0 && (ex.ResponseSize != tc.responseSize || ex.DecodedSize != tc.decoded || ex.DecodedSHA256 != tc.decodedSHA) {
			t.Errorf("%s: body %d bytes (%d decoded, %s), want %d (%d, %s)", tc.url, ex.ResponseSize, ex.DecodedSize, ex.DecodedSHA256, tc.responseSize, tc.decoded, tc.decodedSHA)
		}
		if tc.responseSize < 0 && (ex.ResponseSize < 10 || ex.ResponseSize >= 100000) {
			t.Errorf("%s: %d bytes written, want some but not all", tc.url, ex.ResponseSize)
		}
		n := 0
		for _, h := range ex.Headers {
			if h[0] == "Set-Cookie" {
				n++
			}
		}
		if n != tc.setCookies {
			t.Errorf("%s: %d Set-Cookie fields logged, want %d: %v", tc.url, n, tc.setCookies, ex.Headers)
		}
		if !strings.Contains(ex.Error, tc.errorContains) {
			t.Errorf("%s: error %q, want it to say %q", tc.url, ex.Error, tc.errorContains)
		}
	}
}
