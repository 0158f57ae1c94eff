package recorder_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// queuedOrder is the order a host that queues events hands them to the recorder in,
// at its latest: the urgent events of requests QueuedRequest does not allow to queue,
// and the page's own urgent events, as they come (those of UrgentAfterQueued after
// every event held until then); every other event, those of queued requests included
// (their ExtraInfo events too, when they come before the request), in their order,
// once all have come.
func queuedOrder(t *testing.T, events []recordertest.Event) []recordertest.Event {
	t.Helper()
	type params struct {
		RequestID string `json:"requestId"`
		Type      string `json:"type"`
		Request   struct {
			HasPostData bool    `json:"hasPostData"`
			PostData    *string `json:"postData"`
		} `json:"request"`
	}
	decode := func(ev recordertest.Event) params {
		var p params
		if err := json.Unmarshal([]byte(ev.Params), &p); err != nil {
			t.Fatalf("%s: %v", ev.Method, err)
		}
		return p
	}
	queued := map[string]bool{} // by request id, decided by its first hop
	for _, ev := range events {
		p := decode(ev)
		if _, seen := queued[p.RequestID]; !seen && ev.Method == "Network.requestWillBeSent" {
			queued[p.RequestID] = recorder.QueuedRequest(p.Type, p.Request.HasPostData || p.Request.PostData != nil)
		}
	}
	var now, later []recordertest.Event
	for _, ev := range events {
		p := decode(ev)
		if slices.Contains(recorder.UrgentAfterQueued, ev.Method) {
			now = append(append(now, later...), ev)
			later = nil
		} else if slices.Contains(recorder.UrgentEvents, ev.Method) && !(p.RequestID != "" && queued[p.RequestID]) {
			now = append(now, ev)
		} else {
			later = append(later, ev)
		}
	}
	return append(now, later...)
}

// exchangesJSON is the exchanges as JSON, in the order of their URLs.
func exchangesJSON(t *testing.T, exs []*recorder.Exchange) []string {
	t.Helper()
	var out []string
	for _, ex := range exs {
		b, err := json.Marshal(ex)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// TestQueuedRequestsRecordAsInOrder hands pages' events to the recorder in the
// browser's order and in a queuing host's (queuedOrder): the exchanges are the same.
func TestQueuedRequestsRecordAsInOrder(t *testing.T) {
	const (
		navA   = `{"requestId":"LA","frameId":"F","loaderId":"LA","type":"Document","documentURL":"http://example.org/","wallTime":1700000000,"request":{"url":"http://example.org/","method":"GET","headers":{"Accept":"text/html"}}}`
		shownA = `{"frame":{"id":"F","loaderId":"LA","url":"http://example.org/"},"type":"Navigation"}`
		navB   = `{"requestId":"LB","frameId":"F","loaderId":"LB","type":"Document","documentURL":"http://example.org/next","wallTime":1700000001,"request":{"url":"http://example.org/next","method":"GET","headers":{}}}`
		shownB = `{"frame":{"id":"F","loaderId":"LB","url":"http://example.org/next"},"type":"Navigation"}`
		html   = `{"requestId":"%s","response":{"status":200,"protocol":"http/1.1","headers":{"Content-Type":"text/html"}}}`
		png    = `{"requestId":"%s","hasExtraInfo":true,"response":{"status":200,"protocol":"http/1.1","headers":{"Content-Type":"image/png"}}}`
		moved  = "HTTP/1.1 302 Found\r\nLocation: /b.png\r\nSet-Cookie: hop=1\r\n\r\n"
		okPNG  = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nSet-Cookie: seen=1\r\n\r\n"
	)
	text := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	ev := func(method, params string, id ...string) recordertest.Event {
		if len(id) > 0 {
			params = strings.Replace(params, "%s", id[0], 1)
		}
		return recordertest.Event{Method: method, Params: params}
	}
	img := func(id, url, loader string) recordertest.Event {
		return ev("Network.requestWillBeSent", `{"requestId":"`+id+`","frameId":"F","loaderId":"`+loader+`","type":"Image","documentURL":"http://example.org/","wallTime":1700000000.5,"request":{"url":"`+url+`","method":"GET","headers":{"Accept":"image/*"}}}`)
	}
	// wire is an image's two ExtraInfo events: its headers as sent, with a cookie, and
	// as received.
	wire := func(id, head string) []recordertest.Event {
		return []recordertest.Event{
			ev("Network.requestWillBeSentExtraInfo", `{"requestId":"`+id+`","headers":{"Accept":"image/*","Cookie":"sid=`+id+`"}}`),
			ev("Network.responseReceivedExtraInfo", `{"requestId":"`+id+`","statusCode":200,"headers":{},"headersText":`+text(head)+`}`),
		}
	}
	finished := func(id string) recordertest.Event { return ev("Network.loadingFinished", `{"requestId":"`+id+`"}`) }
	loadA := []recordertest.Event{ev("Page.frameStartedNavigating", `{"frameId":"F","navigationType":"differentDocument"}`), ev("Network.requestWillBeSent", navA), ev("Network.responseReceived", html, "LA"), ev("Page.frameNavigated", shownA), finished("LA")}
	leaveForB := []recordertest.Event{ev("Page.frameStartedNavigating", `{"frameId":"F","navigationType":"differentDocument"}`), ev("Network.requestWillBeSent", navB), ev("Network.responseReceived", html, "LB"), ev("Page.frameNavigated", shownB), finished("LB")}
	tests := []struct {
		name   string
		events []recordertest.Event
	}{
		{"a page's images, loaded whole, then left", slices.Concat(loadA,
			[]recordertest.Event{img("2", "http://example.org/a.png", "LA")}, wire("2", okPNG),
			[]recordertest.Event{ev("Network.responseReceived", png, "2"), finished("2"), ev("Page.loadEventFired", `{}`), ev("Page.frameStoppedLoading", `{"frameId":"F"}`)},
			leaveForB)},
		{"an image whose page is left as it loads", slices.Concat(loadA,
			[]recordertest.Event{img("3", "http://example.org/slow.png", "LA")}, wire("3", okPNG),
			leaveForB,
			[]recordertest.Event{ev("Network.responseReceived", png, "3"), finished("3")})},
		{"images whose wire headers come before them", slices.Concat(loadA,
			wire("5", okPNG)[:1], wire("6", okPNG)[:1],
			[]recordertest.Event{img("5", "http://example.org/a.png", "LA"), img("6", "http://example.org/b.png", "LA")},
			wire("5", okPNG)[1:], wire("6", okPNG)[1:],
			[]recordertest.Event{ev("Network.responseReceived", png, "5"), ev("Network.responseReceived", png, "6"), finished("5"), finished("6"), ev("Page.loadEventFired", `{}`)})},
		{"an image redirected, each hop with its wire headers", slices.Concat(loadA,
			[]recordertest.Event{img("4", "http://example.org/a.png", "LA")}, wire("4", moved),
			[]recordertest.Event{ev("Network.requestWillBeSent", `{"requestId":"4","frameId":"F","loaderId":"LA","type":"Image","documentURL":"http://example.org/","wallTime":1700000000.6,"redirectHasExtraInfo":true,"redirectResponse":{"status":302,"headers":{"Location":"/b.png"}},"request":{"url":"http://example.org/b.png","method":"GET","headers":{}}}`)},
			wire("4", okPNG),
			[]recordertest.Event{ev("Network.responseReceived", png, "4"), finished("4"), ev("Page.loadEventFired", `{}`)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := func() *recordertest.Browser {
				return &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
					if method == "Network.getResponseBody" {
						return map[string]any{"body": "body of " + p["requestId"].(string)}, nil
					}
					return map[string]any{}, nil
				}}
			}
			inOrder := exchangesJSON(t, record(t, b(), tt.events))
			queued := exchangesJSON(t, record(t, b(), queuedOrder(t, tt.events)))
			if len(inOrder) < 2 {
				t.Fatalf("in the browser's order, %d exchanges", len(inOrder))
			}
			if !slices.Equal(inOrder, queued) {
				t.Errorf("the exchanges differ:\nin order:\n%s\nqueued:\n%s", strings.Join(inOrder, "\n"), strings.Join(queued, "\n"))
			}
		})
	}
}
