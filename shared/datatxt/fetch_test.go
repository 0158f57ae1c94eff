package datatxt

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

func TestURL(t *testing.T) {
	tests := []struct{ site, name, want string }{
		{"https://datatxt.org/", "data.txt", "https://datatxt.org/data.txt"},
		{"http://www.bar.com:8001/", "data.txt", "http://www.bar.com:8001/data.txt"}, // the draft's example
		{"https://example.org/a/b?c", "robots.txt", "https://example.org/robots.txt"},
	}
	for _, tt := range tests {
		got, err := URL(tt.site, tt.name)
		if err != nil || got != tt.want {
			t.Errorf("URL(%q, %q) = %q, %v, want %q", tt.site, tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []string{"example.org", "ftp://example.org/", "http://", "%"} {
		if _, err := URL(bad, "data.txt"); err == nil {
			t.Errorf("URL(%q) succeeded", bad)
		}
	}
}

func TestGet(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/data.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write([]byte("- path: a.csv\n  name: a\n"))
	})
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nDisallow: /private\n"))
	})
	mux.HandleFunc("/gone/data.txt", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	mux.HandleFunc("/broken/data.txt", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "oops", http.StatusInternalServerError)
	})
	mux.HandleFunc("/bad/data.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("- path: {x: 1}\n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	before := time.Now()
	f, err := Get(ctx, nethttp.Client{Client: srv.Client()}, srv.URL+"/data.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Datasets()) != 1 || f.Datasets()[0].Name != "a" {
		t.Errorf("datasets = %+v", f.Datasets())
	}
	if f.Expires.Before(before.Add(time.Hour)) || f.Expires.After(time.Now().Add(time.Hour)) {
		t.Errorf("Expires = %v, want an hour from now", f.Expires)
	}

	r, err := Get(ctx, nethttp.Client{}, srv.URL+"/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed("bot", "/private/x") || !r.Allowed("bot", "/public") {
		t.Error("robots.txt rules not applied")
	}
	if r.Expires.Before(before.Add(DefaultExpiry)) {
		t.Errorf("Expires = %v, want the 7-day default", r.Expires)
	}

	for path, want := range map[string]error{
		"/missing/data.txt": ErrNotFound,
		"/gone/data.txt":    ErrNotFound,
		"/broken/data.txt":  ErrStatus,
		"/bad/data.txt":     ErrFormat,
	} {
		if _, err := Get(ctx, nethttp.Client{Client: srv.Client()}, srv.URL+path); !errors.Is(err, want) {
			t.Errorf("Get %s: %v, want %v", path, err, want)
		}
	}
}
