package urldb

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// site serves the responses the check tests need, by path.
func site() http.Handler {
	mux := http.NewServeMux()
	body := []byte("static content\n")
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<p>hi</p>"))
	})
	mux.HandleFunc("/static", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})
	mux.HandleFunc("/js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-javascript")
		w.Write([]byte("1"))
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/html", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/found", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/html", http.StatusFound)
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	mux.HandleFunc("/notype", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // suppress sniffing
		w.Write([]byte("x"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	return mux
}

var staticSum = sha256.Sum256([]byte("static content\n"))

func TestCheckVerdicts(t *testing.T) {
	srv := httptest.NewServer(site())
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	rec := func(path, ct string, cats ...string) *Record {
		return &Record{Path: path, ContentType: ct, Categories: cats, ContentLength: -1}
	}
	static := func(path string, n int64, sum []byte) *Record {
		r := rec(path, "text/plain")
		r.ContentLength, r.ContentSHA256 = n, sum
		return r
	}
	other := sha256.Sum256([]byte("other content!\n"))
	tests := []struct {
		rec           *Record
		ok            bool
		code, problem string
		note          string
	}{
		{rec("/html", "text/html"), true, CodeOK, "", ""},
		{rec("/html", "text/plain"), false, CodeContentType, "expected content-type text/plain; got text/html", ""},
		{rec("/html", "text/plain", CategoryContentTypeChangeOK), true, CodeOK, "", ""},
		{rec("/moved", "X-301-Redirect"), true, CodeOK, "", ""},
		{rec("/found", "X-301-Redirect"), false, CodeRedirect, "expected X-301-Redirect; got X-302-Redirect", ""},
		{rec("/moved", "text/html"), false, CodeRedirect, "expected text/html; got X-301-Redirect", ""},
		{rec("/moved", "text/html", CategoryRedirectOK), true, CodeOK, "", ""},
		{rec("/html", "X-301-Redirect"), false, CodeRedirect, "expected content-type X-301-Redirect; got text/html", ""},
		{rec("/gone", "text/html"), false, CodeStatus, "HTTP 410", ""},
		{rec("/missing", "text/html", CategoryRedirectOK), false, CodeStatus, "HTTP 404", ""},
		{rec("/js", "application/javascript"), true, CodeOK, "", "(ignoring JS content-type nit)"},
		{rec("/notype", "text/html"), false, CodeNoContentType, "expected content-type text/html; got no Content-Type header", ""},
		{static("/static", 15, staticSum[:]), true, CodeOK, "", ""},
		{static("/static", 16, staticSum[:]), false, CodeLength, "content length changed from 16 to 15", ""},
		{static("/static", 15, other[:]), false, CodeSHA256, "content SHA256 changed", ""},
		{rec("/slow", "text/html"), false, CodeTimeout, "no response in 300ms", ""},
	}
	d := &Domain{Name: "example.com"}
	var targets []Target
	for _, tt := range tests {
		targets = append(targets, Target{d, tt.rec, "http://" + host + tt.rec.Path})
	}
	// A closed port: connection refused.
	dead := httptest.NewServer(site())
	deadURL := dead.URL
	dead.Close()
	targets = append(targets, Target{d, rec("/html", "text/html"), deadURL + "/html"})

	c := &Checker{Timeout: 300 * time.Millisecond, Concurrency: 4, PerHost: 2}
	var got []Verdict
	progress := 0
	c.Progress = func(done, total int) { progress = done }
	if err := c.Check(context.Background(), targets, func(v Verdict) { got = append(got, v) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(targets) || progress != len(targets) {
		t.Fatalf("%d verdicts, progress %d, for %d targets", len(got), progress, len(targets))
	}
	for i, tt := range tests {
		v := got[i]
		if v.URL != targets[i].URL || v.OK != tt.ok || v.Code != tt.code || v.Problem != tt.problem || v.Note != tt.note {
			t.Errorf("%s %s: got %+v, want ok=%v code=%s problem=%q note=%q", tt.rec.Path, tt.rec.ContentType, v, tt.ok, tt.code, tt.problem, tt.note)
		}
	}
	last := got[len(got)-1]
	if last.OK || last.Code != CodeNetwork || !strings.HasPrefix(last.Problem, "fetch failed: ") {
		t.Errorf("closed port: %+v", last)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Error(err)
	}
}

func TestCheckResponseWithoutBody(t *testing.T) {
	r := &Record{Path: "/a", ContentType: "text/plain", ContentLength: 3, ContentSHA256: staticSum[:]}
	v := CheckResponse(r, Response{Status: 200, Header: httpmsg.Header{"Content-Type": {"text/plain"}}, Length: -1})
	if !v.OK || v.Code != CodeUnverified {
		t.Errorf("got %+v", v)
	}
	r.Categories = []string{CategoryDeprecated}
	if v := CheckResponse(r, Response{Status: 500}); !v.OK || v.Code != CodeDeprecated {
		t.Errorf("deprecated: %+v", v)
	}
	// requests' is_redirect needs a Location: a 301 without one is content.
	v = CheckResponse(&Record{Path: "/", ContentType: "X-301-Redirect", ContentLength: -1},
		Response{Status: 301, Header: httpmsg.Header{"Content-Type": {"text/html"}}})
	if v.OK || v.Problem != "expected content-type X-301-Redirect; got text/html" {
		t.Errorf("301 without Location: %+v", v)
	}
}

func TestNewRecord(t *testing.T) {
	h := httpmsg.Header{"Content-Type": {"text/plain; charset=utf-8"}}
	r, err := NewRecord("/a", Response{Status: 200, Header: h, Length: 15, SHA256: staticSum[:]}, true)
	if err != nil || r.ContentType != "text/plain" || r.ContentLength != 15 {
		t.Errorf("static: %+v %v", r, err)
	}
	r, err = NewRecord("/a", Response{Status: 302, Header: httpmsg.Header{"Location": {"/b"}}, Length: -1}, true)
	if err != nil || r.ContentType != "X-302-Redirect" || r.Static() {
		t.Errorf("redirect: %+v %v", r, err)
	}
	if _, err := NewRecord("/a", Response{Status: 404}, false); err == nil || err.Error() != "cannot record response: HTTP status 404" {
		t.Errorf("404: %v", err)
	}
}
