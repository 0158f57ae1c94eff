package recorder_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// The event sequences of a recorded tab going back and forward with Chromium's
// back/forward cache on, as Chromium 156 sent them (scripts/test/e2e/bfcache.test.mjs; ids
// shortened): a page restored from the cache comes back in Page.frameNavigated of type
// BackForwardCacheRestore with the loader id of its first load, and makes no request;
// a request of a page put in the cache is frozen with it, its response delivered when
// the page is shown again.
func TestRecorderBackForwardCache(t *testing.T) {
	const (
		navA     = `{"requestId":"LA","frameId":"F","loaderId":"LA","type":"Document","request":{"url":"http://example.org/","method":"GET","headers":{}}}`
		shownA   = `{"frame":{"id":"F","loaderId":"LA","url":"http://example.org/"},"type":"Navigation"}`
		navB     = `{"requestId":"LB","frameId":"F","loaderId":"LB","type":"Document","request":{"url":"http://example.org/forms","method":"GET","headers":{}}}`
		shownB   = `{"frame":{"id":"F","loaderId":"LB","url":"http://example.org/forms"},"type":"Navigation"}`
		restoreA = `{"frame":{"id":"F","loaderId":"LA","url":"http://example.org/"},"type":"BackForwardCacheRestore"}`
		restoreB = `{"frame":{"id":"F","loaderId":"LB","url":"http://example.org/forms"},"type":"BackForwardCacheRestore"}`
		// An image of page A, answered slowly, and one whose body never ends.
		slow    = `{"requestId":"11","frameId":"F","loaderId":"LA","type":"Image","request":{"url":"http://example.org/slow.png","method":"GET","headers":{}}}`
		hang    = `{"requestId":"12","frameId":"F","loaderId":"LA","type":"Image","request":{"url":"http://example.org/hang","method":"GET","headers":{}}}`
		png     = `{"requestId":"%s","response":{"status":200,"headers":{"Content-Type":"image/png"}}}`
		htmlRes = `{"requestId":"%s","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`
		// Page B's style sheet, answered by the renderer's memory cache.
		css = `{"requestId":"32","frameId":"F","loaderId":"LB","type":"Stylesheet","request":{"url":"http://example.org/style.css","method":"GET","headers":{}}}`
	)
	ev := func(method, params string, args ...any) recordertest.Event {
		if len(args) > 0 {
			params = strings.Replace(params, "%s", args[0].(string), 1)
		}
		return recordertest.Event{Method: method, Params: params}
	}
	// loadA and loadB load each page whole, navigating to it.
	loadA := []recordertest.Event{ev("Network.requestWillBeSent", navA), ev("Network.responseReceived", htmlRes, "LA"), ev("Page.frameNavigated", shownA), ev("Network.loadingFinished", `{"requestId":"LA"}`)}
	loadB := []recordertest.Event{ev("Network.requestWillBeSent", navB), ev("Network.responseReceived", htmlRes, "LB"), ev("Page.frameNavigated", shownB), ev("Network.loadingFinished", `{"requestId":"LB"}`)}
	seq := func(parts ...[]recordertest.Event) []recordertest.Event { return slices.Concat(parts...) }
	one := func(e ...recordertest.Event) []recordertest.Event { return e }

	type want struct {
		url, body     string
		failure, note string // the starts of the labels
		mark          string
	}
	tests := []struct {
		name   string
		events []recordertest.Event
		// late says the browser answers for bodies only once every event was handled.
		late     bool
		detach   bool // the recording stops after the events
		want     []want
		restored []bool // the pages reported, restored or not
	}{
		{"A, B, back to A and forward to B: the restores make no request", seq(loadA, loadB, one(ev("Page.frameNavigated", restoreA), ev("Page.frameNavigated", restoreB))), false, false,
			[]want{{url: "http://example.org/", body: "<p>A</p>"}, {url: "http://example.org/forms", body: "<p>B</p>"}},
			[]bool{false, false, true, true}},
		{"an image of A answered while A was in the cache, delivered when it is restored", seq(loadA, one(ev("Network.requestWillBeSent", slow)), loadB, one(
			ev("Page.frameNavigated", restoreA), ev("Network.responseReceived", png, "11"), ev("Network.loadingFinished", `{"requestId":"11"}`))), false, false,
			[]want{{url: "http://example.org/", body: "<p>A</p>"}, {url: "http://example.org/forms", body: "<p>B</p>"}, {url: "http://example.org/slow.png", body: "PNG"}},
			[]bool{false, false, true}},
		{"an image of A still coming when A went in the cache again and recording stopped", seq(loadA, one(ev("Network.requestWillBeSent", hang), ev("Network.responseReceived", png, "12")), loadB, one(
			ev("Page.frameNavigated", restoreA), ev("Page.frameNavigated", restoreB))), false, true,
			[]want{{url: "http://example.org/", body: "<p>A</p>"}, {url: "http://example.org/forms", body: "<p>B</p>"}, {url: "http://example.org/hang", note: recorder.WhyPageLeft, mark: "disconnect"}},
			[]bool{false, false, true, true}},
		{"an image of A still coming on A restored when recording stopped", seq(loadA, one(ev("Network.requestWillBeSent", hang), ev("Network.responseReceived", png, "12")), loadB, one(
			ev("Page.frameNavigated", restoreA))), false, true,
			[]want{{url: "http://example.org/", body: "<p>A</p>"}, {url: "http://example.org/forms", body: "<p>B</p>"}, {url: "http://example.org/hang", note: recorder.WhyStopped, mark: "disconnect"}},
			[]bool{false, false, true}},
		{"a navigation begun before going back, cancelled by the page restored", seq(loadA, loadB, one(
			ev("Network.requestWillBeSent", strings.ReplaceAll(navA, `"LA"`, `"LC"`)),
			ev("Page.frameNavigated", restoreA), ev("Network.loadingFailed", `{"requestId":"LC","errorText":"net::ERR_ABORTED","canceled":true}`))), false, false,
			[]want{{url: "http://example.org/", body: "<p>A</p>"}, {url: "http://example.org/forms", body: "<p>B</p>"}, {url: "http://example.org/", failure: "the page was left before its response arrived (net::ERR_ABORTED)"}},
			[]bool{false, false, true}},
		{"a body of the memory cache, read after its page went in the cache", seq(loadA, loadB, one(
			ev("Network.requestWillBeSent", css), ev("Network.requestServedFromCache", `{"requestId":"32"}`), ev("Network.responseReceived", htmlRes, "32"),
			ev("Network.loadingFinished", `{"requestId":"32"}`), ev("Page.frameNavigated", restoreA))), true, false,
			[]want{{url: "http://example.org/", body: "<p>A</p>"}, {url: "http://example.org/forms", body: "<p>B</p>"}, {url: "http://example.org/style.css", note: recorder.WhyLeftUnread + " (it had arrived", mark: "unspecified"}},
			[]bool{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handled := make(chan struct{})
			bodies := map[string]string{"LA": "<p>A</p>", "LB": "<p>B</p>", "11": "PNG"}
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method != "Network.getResponseBody" {
					return map[string]any{}, nil
				}
				id, _ := p["requestId"].(string)
				if tt.late && id == "32" {
					<-handled
				}
				if body, ok := bodies[id]; ok {
					return map[string]any{"body": body}, nil
				}
				return nil, errors.New(`{"code":-32000,"message":"No resource with given identifier found"}`)
			}}
			r := recorder.NewRecorder(b)
			var mu sync.Mutex
			var got []*recorder.Exchange
			var pages []recorder.Page
			r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got = append(got, ex); mu.Unlock() }
			r.OnPage = func(p recorder.Page) { pages = append(pages, p) }
			ctx, tab := context.Background(), recorder.Target{TabID: 7}
			for _, e := range tt.events {
				if err := r.HandleEvent(ctx, tab, e.Method, json.RawMessage(e.Params), nil); err != nil {
					t.Fatalf("%s: %v", e.Method, err)
				}
				if !tt.late {
					r.Wait()
				}
			}
			close(handled)
			r.Wait()
			if tt.detach {
				r.Detached(ctx, tab, "recording stopped")
				r.Wait()
			}
			var restored []bool
			for _, p := range pages {
				restored = append(restored, p.Restored)
			}
			if !slices.Equal(restored, tt.restored) {
				t.Errorf("pages restored %v, want %v", restored, tt.restored)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d exchanges, want %d", len(got), len(tt.want))
			}
			for _, w := range tt.want {
				i := slices.IndexFunc(got, func(ex *recorder.Exchange) bool {
					return ex.URL == w.url && (w.failure == "") == (ex.Failure == "")
				})
				if i < 0 {
					t.Errorf("no exchange of %s", w.url)
					continue
				}
				ex := got[i]
				switch {
				case w.failure != "":
					if !strings.HasPrefix(ex.Failure, w.failure) {
						t.Errorf("%s: failure %q, want %q…", w.url, ex.Failure, w.failure)
					}
				case string(ex.RespBody) != w.body || !strings.HasPrefix(ex.RespNote, w.note) || ex.RespTruncated != w.mark || w.note == "" && ex.RespNote != "":
					t.Errorf("%s: body %q, note %q, Truncated %q; want %q, %q…, %q", w.url, ex.RespBody, ex.RespNote, ex.RespTruncated, w.body, w.note, w.mark)
				}
			}
		})
	}
}
