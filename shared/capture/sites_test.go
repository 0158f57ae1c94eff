package capture

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// httpBrowser answers Network.loadNetworkResource and IO.read by fetching the URL for
// real, as the tab's network stack would.
type httpBrowser struct {
	mu      sync.Mutex
	streams map[string][]byte
}

func (b *httpBrowser) answer(method string, p map[string]any) (any, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch method {
	case "Network.loadNetworkResource":
		u := p["url"].(string)
		resp, err := http.Get(u)
		if err != nil {
			return map[string]any{"resource": map[string]any{"success": false, "netErrorName": "net::ERR_CONNECTION_REFUSED"}}, nil
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		headers := map[string]any{}
		for k := range resp.Header {
			headers[k] = resp.Header.Get(k)
		}
		b.streams[u] = body
		return map[string]any{"resource": map[string]any{"success": true, "httpStatusCode": resp.StatusCode, "stream": u, "headers": headers}}, nil
	case "IO.read":
		h := p["handle"].(string)
		body, ok := b.streams[h]
		if !ok {
			return nil, errors.New("no such stream")
		}
		delete(b.streams, h)
		return map[string]any{"data": base64.StdEncoding.EncodeToString(body), "base64Encoded": true, "eof": true}, nil
	}
	return map[string]any{}, nil
}

func TestFetchSiteFindsOnlyTextFiles(t *testing.T) {
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data.txt":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "- path: /prices.csv\n  name: prices\n")
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()
	// A site that answers every path with its own page, status 200.
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><head><title>Shop</title></head><body>User-agent: welcome!</body></html>")
	}))
	defer pages.Close()
	// One that says its page is text.
	liar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "<html><body>Disallow: everything</body></html>")
	}))
	defer liar.Close()
	for _, tt := range []struct {
		name, origin         string
		datatxt, robots      bool
		datatxtWhy, robotWhy string
	}{
		{"files", files.URL, true, true, "", ""},
		{"pages", pages.URL, false, false, "the answer is text/html, not text", "the answer is text/html, not text"},
		{"liar", liar.URL, false, false, "the answer is an HTML page", "the answer is an HTML page"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hb := &httpBrowser{streams: map[string][]byte{}}
			site, err := fetchSite(context.Background(), &recordertest.Browser{Answer: hb.answer}, recorder.Target{TabID: 1}, "F", tt.origin+"/private/page", "webkeep")
			if err != nil {
				t.Fatal(err)
			}
			if site.DataTxt.Found != tt.datatxt || site.Robots.Found != tt.robots || site.DataTxt.NotFile != tt.datatxtWhy || site.Robots.NotFile != tt.robotWhy {
				t.Errorf("data.txt %+v\nrobots.txt %+v", site.DataTxt, site.Robots)
			}
			if site.DataTxt.Error != "" || site.Robots.Error != "" {
				t.Errorf("errors: %q, %q", site.DataTxt.Error, site.Robots.Error)
			}
			if site.Allowed != !tt.robots {
				t.Errorf("allowed %v: only the real robots.txt disallows /private", site.Allowed)
			}
		})
	}
}

// The site files remember the origins of one session only: a page of another session
// starts their list again, so it does not grow with every session recorded.
func TestSiteFilesKeepOneSessionsOrigins(t *testing.T) {
	store := NewMemStore()
	a := newSession(store, "a", time.Unix(1, 0))
	b := newSession(store, "b", time.Unix(2, 0))
	f := &siteFiles{}
	for i, step := range []struct {
		sess *Session
		url  string
		want []string // the origins remembered after the page
	}{
		{a, "https://one.test/x", []string{"https://one.test"}},
		{a, "https://one.test/y", []string{"https://one.test"}},
		{a, "http://two.test/", []string{"http://two.test", "https://one.test"}},
		{b, "https://three.test/", []string{"https://three.test"}},
		{b, "https://one.test/", []string{"https://one.test", "https://three.test"}},
	} {
		// No frame: nothing is fetched, the origin is remembered all the same.
		f.read(step.sess, recorder.Page{Page: api.Page{URL: step.url}}, "webkeep")
		got := slices.Sorted(maps.Keys(f.seen))
		if !slices.Equal(got, step.want) {
			t.Errorf("after page %d (%s of session %s): remembered %v, want %v", i, step.url, step.sess.info.ID, got, step.want)
		}
	}
}
