package recorder_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// What the browser's cache did is said in the archive: a response served from a cache,
// a 304 answer to a revalidation (with or without the body in the archive), and a
// cached copy revalidated by the HTTP cache and given to the page; a body the memory
// cache served that the browser no longer gives is the one archived before.
func TestRecorderNotesWhatTheCacheDid(t *testing.T) {
	const first = `{"requestId":"1","frameId":"F","loaderId":"L","type":"Stylesheet","request":{"url":"http://example.org/a.css","method":"GET","headers":{}}}`
	firstEvents := []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: first},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Length":"4"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
	}
	second := func(id string, more ...recordertest.Event) []recordertest.Event {
		return append([]recordertest.Event{{Method: "Network.requestWillBeSent", Params: `{"requestId":"` + id + `","frameId":"F","loaderId":"L","type":"Stylesheet","request":{"url":"http://example.org/a.css","method":"GET","headers":{}}}`}}, more...)
	}
	for _, tc := range []struct {
		name string
		// bodies answers Network.getResponseBody by request id; missing: an error.
		bodies    map[string]string
		events    []recordertest.Event
		status    int
		body      string
		header    string // a field the last exchange's head must have
		truncated string
		cache     string // in the last exchange's CacheNote
		note      string // in its RespNote
	}{
		{
			name:   "served from the memory cache",
			bodies: map[string]string{"1": "body", "2": "body"},
			events: append(firstEvents, second("2",
				recordertest.Event{Method: "Network.requestServedFromCache", Params: `{"requestId":"2"}`},
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"headers":{"Content-Length":"4"}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`})...),
			status: 200, body: "body", cache: "served from the browser's memory cache",
		},
		{
			name:   "served from the disk cache",
			bodies: map[string]string{"2": "disk"},
			events: second("2",
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"fromDiskCache":true,"headers":{"Content-Length":"4"}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`}),
			status: 200, body: "disk", cache: "served from the browser's disk cache",
		},
		{
			name:   "served from the HTTP cache, revalidated or not (Firefox)",
			bodies: map[string]string{"2": "http"},
			events: second("2",
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"webkeepFromHTTPCache":true,"headers":{"Content-Length":"4"}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`}),
			status: 200, body: "http", cache: "served from the browser's HTTP cache (the browser does not say whether it asked the server to revalidate its copy first",
		},
		{
			name:   "from the memory cache, its body gone: the one archived before",
			bodies: map[string]string{"1": "body"},
			events: append(firstEvents, second("2",
				recordertest.Event{Method: "Network.requestServedFromCache", Params: `{"requestId":"2"}`},
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"headers":{"Content-Length":"4"}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`})...),
			status: 200, body: "body", cache: "so the body archived is that of the last response of this URL archived before",
		},
		{
			name:   "from the memory cache, its body gone and none archived before",
			bodies: map[string]string{},
			events: second("2",
				recordertest.Event{Method: "Network.requestServedFromCache", Params: `{"requestId":"2"}`},
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"headers":{"Content-Length":"4"}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`}),
			status: 200, truncated: "unspecified", cache: "served from the browser's memory cache", note: "the browser did not give the body",
		},
		{
			name:   "a 304 of a body archived before",
			bodies: map[string]string{"1": "body", "2": ""},
			events: append(firstEvents, second("2",
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","hasExtraInfo":true,"response":{"status":304,"headers":{"ETag":"\"x\""}}}`},
				recordertest.Event{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"2","statusCode":304,"headersText":"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n"}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`})...),
			status: 304, header: "ETag",
		},
		{
			name:   "a 304 of a body cached before recording",
			bodies: map[string]string{"2": ""},
			events: second("2",
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":304,"headers":{}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`}),
			status: 304, cache: "304 Not Modified, archived as sent", note: "it is not in this archive",
		},
		{
			name:   "revalidated by the HTTP cache, given to the page as 200",
			bodies: map[string]string{"2": "body"},
			events: second("2",
				recordertest.Event{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"2","statusCode":304,"headersText":"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n"}`},
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","hasExtraInfo":true,"response":{"status":200,"headers":{"Content-Type":"text/css","Content-Length":"4"}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`}),
			status: 200, body: "body", header: "Content-Type", cache: "the page got the cached response, archived here as the page got it",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method != "Network.getResponseBody" {
					return map[string]any{}, nil
				}
				body, ok := tc.bodies[p["requestId"].(string)]
				if !ok {
					return nil, errors.New("No resource with given identifier found")
				}
				return map[string]any{"body": b64(body), "base64Encoded": true}, nil
			}}
			got := record(t, b, tc.events)
			if len(got) == 0 {
				t.Fatal("no exchange")
			}
			ex := got[len(got)-1]
			if ex.Status != tc.status || string(ex.RespBody) != tc.body || ex.RespTruncated != tc.truncated {
				t.Errorf("status %d body %q truncated %q, want %d %q %q", ex.Status, ex.RespBody, ex.RespTruncated, tc.status, tc.body, tc.truncated)
			}
			if tc.header != "" && !ex.RespHeader.Has(tc.header) {
				t.Errorf("head %v has no %s", ex.RespHeader, tc.header)
			}
			if tc.cache == "" && ex.CacheNote != "" || !strings.Contains(ex.CacheNote, tc.cache) {
				t.Errorf("cache note %q, want it to say %q", ex.CacheNote, tc.cache)
			}
			if tc.note == "" && ex.RespNote != "" || !strings.Contains(ex.RespNote, tc.note) {
				t.Errorf("response note %q, want %q", ex.RespNote, tc.note)
			}
			for _, other := range got[:len(got)-1] {
				if other.CacheNote != "" {
					t.Errorf("%s from the network has a cache note %q", other.URL, other.CacheNote)
				}
			}
		})
	}
}

// The recorded tab's cache stays on: the recorder never disables it.
func TestRecorderLeavesTheCacheOn(t *testing.T) {
	b := &recordertest.Browser{Answer: func(string, map[string]any) (any, error) { return map[string]any{}, nil }}
	r := recorder.NewRecorder(b)
	if err := r.Enable(t.Context(), recorder.Target{TabID: 7}); err != nil {
		t.Fatal(err)
	}
	if sent := b.Sent("Network.setCacheDisabled"); len(sent) != 0 {
		t.Errorf("the cache was turned off: %v", sent)
	}
}

// A request id the browser uses again for a new request, without a redirect and before
// it reported the end of the first, does not lose the first: it is archived, marked.
func TestRecorderKeepsARequestWhoseIDIsUsedAgain(t *testing.T) {
	const req = `{"requestId":"9","frameId":"F","loaderId":"L","type":"Image","request":{"url":"http://example.org/i.png","method":"GET","headers":{}}}`
	for _, tc := range []struct {
		name   string
		events []recordertest.Event
		want   string // in the first exchange's Failure or RespNote
	}{
		{"no response yet", []recordertest.Event{{Method: "Network.requestWillBeSent", Params: req}}, "no response reported (the browser began another request under its id"},
		{"its body under way", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: req},
			{Method: "Network.responseReceived", Params: `{"requestId":"9","response":{"status":200,"headers":{"Content-Length":"3"}}}`},
		}, "the end of the body was never reported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Network.getResponseBody" {
					return map[string]any{"body": b64("png"), "base64Encoded": true}, nil
				}
				return map[string]any{}, nil
			}}
			events := append(tc.events,
				recordertest.Event{Method: "Network.requestWillBeSent", Params: req},
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"9","response":{"status":200,"headers":{"Content-Length":"3"}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"9"}`})
			got := record(t, b, events)
			if len(got) != 2 {
				t.Fatalf("got %d exchanges, want 2", len(got))
			}
			first, second := got[0], got[1]
			if !strings.Contains(first.Failure+first.RespNote, tc.want) || first.Status != 0 && first.RespTruncated == "" {
				t.Errorf("the first: failure %q, note %q, truncated %q; want %q, marked", first.Failure, first.RespNote, first.RespTruncated, tc.want)
			}
			if string(second.RespBody) != "png" || second.RespTruncated != "" || second.Failure != "" {
				t.Errorf("the second: body %q truncated %q failure %q", second.RespBody, second.RespTruncated, second.Failure)
			}
		})
	}
}

// A response the memory cache served says it has ExtraInfo, as the network response it
// was cached from did, but no ExtraInfo comes: its body is read as soon as it ends,
// while its page is there, not after a wait for ExtraInfo, whichever of its events says
// first that the memory cache answered.
func TestRecorderReadsAMemoryCachedBodyAtOnce(t *testing.T) {
	defer recorder.SetExtraWait(time.Hour)()
	request := recordertest.Event{Method: "Network.requestWillBeSent", Params: `{"requestId":"2","frameId":"F","loaderId":"L","type":"Script","request":{"url":"http://example.org/load.js","method":"GET","headers":{}}}`}
	served := recordertest.Event{Method: "Network.requestServedFromCache", Params: `{"requestId":"2"}`}
	response := recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"2","hasExtraInfo":true,"response":{"status":200,"headers":{"Content-Length":"4"}}}`}
	finished := recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`}
	for _, tc := range []struct {
		name   string
		events []recordertest.Event
	}{
		{"served from the cache, then the response", []recordertest.Event{request, served, response, finished}},
		{"the response, then served from the cache", []recordertest.Event{request, response, served, finished}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Network.getResponseBody" {
					return map[string]any{"body": b64("body"), "base64Encoded": true}, nil
				}
				return map[string]any{}, nil
			}}
			r := recorder.NewRecorder(b)
			got := make(chan *recorder.Exchange, 1)
			r.OnExchange = func(ex *recorder.Exchange) { got <- ex }
			r.OnError = func(err error) { t.Errorf("recorder: %v", err) }
			for _, ev := range tc.events {
				if err := r.HandleEvent(context.Background(), recorder.Target{TabID: 7}, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
					t.Fatalf("%s: %v", ev.Method, err)
				}
			}
			select {
			case ex := <-got:
				if string(ex.RespBody) != "body" || !strings.Contains(ex.CacheNote, "memory cache") {
					t.Errorf("body %q, cache note %q", ex.RespBody, ex.CacheNote)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the exchange did not end: the recorder waits for ExtraInfo that a response from the memory cache never has")
			}
			r.Wait()
		})
	}
}
