package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/urldb"
)

// The demo database must be what wwturldb would write, and give the verdicts the demo
// promises when checked against the demo site itself.
func TestDemoDatabaseVerdicts(t *testing.T) {
	srv := httptest.NewServer(newSite(1 << 10))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/__urldb.zip")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	db, err := urldb.LoadZip(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("the demo database does not load: %v", err)
	}
	dom := db.Domains[0]
	if enc := string(dom.Encode()); !strings.Contains(enc, "_path: /static/style.css") {
		t.Fatalf("encoded: %s", enc)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	want := map[string]string{
		"/": "ok", "/data.txt": "ok", "/gallery": "ok", "/redirect/start": "ok", "/static/style.css": "ok",
		"/missing": "status", "/static/logo.svg": "content-type", "/static/app.js": "sha256",
	}
	for _, rec := range dom.Records {
		resp, err := client.Get(srv.URL + rec.Path)
		if err != nil {
			t.Fatal(err)
		}
		var r urldb.Response
		r.Status, r.Header = resp.StatusCode, httpmsg.Header(resp.Header)
		r.ReadBody(resp.Body)
		resp.Body.Close()
		v := urldb.CheckResponse(rec, r)
		if v.Code != want[rec.Path] {
			t.Errorf("%s: verdict %s (%s), want %s", rec.Path, v.Code, v.Problem, want[rec.Path])
		}
	}
}

func TestSiteLogsWhatItReceivedAndSent(t *testing.T) {
	s := newSite(3000)
	srv := httptest.NewServer(s)
	defer srv.Close()
	http.Post(srv.URL+"/api/binary", "application/octet-stream", bytes.NewReader([]byte{0, 0xff}))
	resp, _ := http.Get(srv.URL + "/big")
	big, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(big) != 3000 {
		t.Errorf("/big sent %d bytes", len(big))
	}
	if len(s.log) != 2 || s.log[0].BodyBase64 != "AP8=" || s.log[1].ResponseSize != 3000 {
		t.Errorf("log: %+v", s.log)
	}
}

func TestLoginSetsTwoCookies(t *testing.T) {
	srv := httptest.NewServer(newSite(1 << 10))
	defer srv.Close()
	resp, err := http.PostForm(srv.URL+"/login", map[string][]string{"user": {"zoë"}, "secret": {"hunter2"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Values("Set-Cookie"); resp.StatusCode != 200 || len(got) != 2 {
		t.Fatalf("status %d, Set-Cookie %q: want 200 and two cookies", resp.StatusCode, got)
	}
	resp, err = http.PostForm(srv.URL+"/login", map[string][]string{"user": {"zoë"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(resp.Header.Values("Set-Cookie")) != 0 {
		t.Errorf("without a password: status %d, cookies %q", resp.StatusCode, resp.Header.Values("Set-Cookie"))
	}
}

func TestSlowImageAnswersAfterItsDelay(t *testing.T) {
	srv := httptest.NewServer(newSite(0))
	defer srv.Close()
	for _, ms := range []int{0, 300} {
		start := time.Now()
		resp, err := http.Get(fmt.Sprintf("%s/slow.png?ms=%d", srv.URL, ms))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if took := time.Since(start); took < time.Duration(ms)*time.Millisecond {
			t.Errorf("ms=%d: answered after %v", ms, took)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(body, pixelPNG) {
			t.Errorf("ms=%d: %d %s, %d bytes", ms, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
}
