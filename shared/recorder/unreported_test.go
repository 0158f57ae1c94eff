package recorder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// The events of a page left as it loaded, as Chromium 156 sent them to the extension's
// debugger session in a traced quick-navigation run (scripts/test/e2e/realsite.test.mjs,
// 2026-11-26): the page's navigation and its first two requests (its style sheet and a
// script, from the memory cache) were reported; its next requests went out (their
// ExtraInfo came, with the page as Referer) but were never reported, while a plain
// DevTools client on the same tab was told of them.
const leftPage = "http://127.0.0.1:33779/doku.php?id=wiki:syntax"

var leftPageEvents = []recordertest.Event{
	{Method: "Network.requestWillBeSent", Params: `{"requestId":"14C6B5D0","loaderId":"14C6B5D0","frameId":"F","type":"Document","documentURL":"` + leftPage + `","request":{"url":"` + leftPage + `","method":"GET","headers":{}}}`},
	{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"14C6B5D0","headers":{"Host":"127.0.0.1:33779"}}`},
	{Method: "Network.responseReceived", Params: `{"requestId":"14C6B5D0","type":"Document","response":{"url":"` + leftPage + `","status":200,"headers":{"Content-Type":"text/html"}}}`},
	{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"14C6B5D0","statusCode":200,"headers":{"Content-Type":"text/html"},"headersText":"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"}`},
	{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"14C6B5D0","url":"` + leftPage + `"},"type":"Navigation"}`},
	{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"15177.60","headers":{"Host":"127.0.0.1:33779","Referer":"` + leftPage + `","Sec-Fetch-Dest":"image"}}`},
	{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"15177.61","headers":{"Host":"127.0.0.1:33779","Referer":"` + leftPage + `","Sec-Fetch-Dest":"image"}}`},
	{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"15177.61","statusCode":200,"headers":{},"headersText":"HTTP/1.1 200 OK\r\nContent-Type: image/svg+xml\r\n\r\n"}`},
	{Method: "Network.requestWillBeSent", Params: `{"requestId":"15177.57","loaderId":"14C6B5D0","frameId":"F","type":"Stylesheet","documentURL":"` + leftPage + `","request":{"url":"http://127.0.0.1:33779/lib/exe/css.php","method":"GET","headers":{}}}`},
	{Method: "Network.requestServedFromCache", Params: `{"requestId":"15177.57"}`},
	{Method: "Network.responseReceived", Params: `{"requestId":"15177.57","type":"Stylesheet","response":{"status":200,"headers":{}}}`},
	{Method: "Network.loadingFinished", Params: `{"requestId":"15177.57"}`},
	{Method: "Network.requestWillBeSent", Params: `{"requestId":"15177.58","loaderId":"14C6B5D0","frameId":"F","type":"Script","documentURL":"` + leftPage + `","request":{"url":"http://127.0.0.1:33779/lib/exe/jquery.php","method":"GET","headers":{}}}`},
	{Method: "Network.requestServedFromCache", Params: `{"requestId":"15177.58"}`},
}

// unreportedEvent is the ExtraInfo of a request, sent with referer, that the browser
// never reports.
func unreportedEvent(id, referer string) recordertest.Event {
	h := `{"Host":"127.0.0.1:33779"}`
	if referer != "" {
		h = `{"Host":"127.0.0.1:33779","Referer":"` + referer + `"}`
	}
	return recordertest.Event{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"` + id + `","headers":` + h + `}`}
}

func TestRecorderSaysWhatTheBrowserNeverReported(t *testing.T) {
	var manyPages []recordertest.Event
	for i := range 7 {
		manyPages = append(manyPages, unreportedEvent(fmt.Sprint("m", i), fmt.Sprintf("http://example.org/page%d", i)))
	}
	// More than the recorder keeps ExtraInfo for (4096 requests): counted all the same.
	var thousands []recordertest.Event
	for i := range 4100 {
		thousands = append(thousands, unreportedEvent(fmt.Sprint("t", i), leftPage))
	}
	for _, tc := range []struct {
		name   string
		events []recordertest.Event
		other  []recordertest.Event // of another tab, also recorded
		want   []string             // in the note; none: no note
		pages  map[string]string    // the notes for the archive: of each page, what they say
	}{
		{name: "every request reported", events: leftPageEvents[:5]},
		{
			name:   "a page left as it loaded",
			events: leftPageEvents,
			want:   []string{"2 requests begun by pages left as they loaded are not in the archive", "(by Referer: 2 of " + leftPage + ")"},
			pages:  map[string]string{leftPage: "2 requests this page began as it was left are not in the archive: the browser dropped its reports"},
		},
		{
			// The wire headers often come before the request's own report: a request
			// reported after them is not counted.
			name:   "reported after its wire headers",
			events: append(append(leftPageEvents[:5:5], unreportedEvent("15177.57", leftPage)), leftPageEvents[8:]...),
		},
		{
			name:   "one request, and one with no Referer",
			events: []recordertest.Event{unreportedEvent("1", leftPage), unreportedEvent("2", "")},
			want:   []string{"2 requests begun by", "1 of " + leftPage, "1 of a page that sent no Referer"},
			pages:  map[string]string{leftPage: "1 request this page began as it was left is not in the archive"},
		},
		{
			name:   "one request",
			events: []recordertest.Event{unreportedEvent("1", leftPage)},
			want:   []string{"1 request begun by pages left as they loaded is not in the archive", "(by Referer: 1 of " + leftPage + ")"},
			pages:  map[string]string{leftPage: "1 request this page began as it was left is not in the archive"},
		},
		{
			name:   "many pages",
			events: manyPages,
			want:   []string{"7 requests begun by", "1 of http://example.org/page0", "1 of http://example.org/page4, 2 more pages)"},
			pages: map[string]string{
				"http://example.org/page0": "1 request", "http://example.org/page1": "1 request", "http://example.org/page2": "1 request",
				"http://example.org/page3": "1 request", "http://example.org/page4": "1 request", "http://example.org/page5": "1 request",
				"http://example.org/page6": "1 request",
			},
		},
		{
			name:   "more than the recorder keeps",
			events: thousands,
			want:   []string{"4100 requests begun by", "(by Referer: 4100 of " + leftPage + ")"},
			pages:  map[string]string{leftPage: "4100 requests this page began"},
		},
		{
			// A navigation left the page as it loaded: the Fetch domain named one of its
			// two requests never reported.
			name: "named by the Fetch domain",
			events: []recordertest.Event{
				{Method: "Fetch.requestPaused", Params: `{"requestId":"interception-1","networkId":"1","request":{"method":"GET","url":"http://127.0.0.1:33779/lib/images/a.png"}}`},
				unreportedEvent("1", leftPage), unreportedEvent("2", leftPage),
			},
			want:  []string{"2 requests begun by", "1 of them named by the browser's Fetch domain"},
			pages: map[string]string{leftPage: "Their addresses, from the browser's Fetch domain: GET http://127.0.0.1:33779/lib/images/a.png (and 1 more)."},
		},
		{
			name:  "another tab's requests are its own",
			other: leftPageEvents,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := recorder.NewRecorder(&recordertest.Browser{})
			var mu sync.Mutex
			var notes []string
			r.OnError = func(err error) { mu.Lock(); notes = append(notes, err.Error()); mu.Unlock() }
			pageNotes := map[string]string{}
			r.OnPageNote = func(page, note string) { mu.Lock(); pageNotes[page] = note; mu.Unlock() }
			ctx := context.Background()
			feed := func(tab int, events []recordertest.Event) {
				for _, ev := range events {
					if err := r.HandleEvent(ctx, recorder.Target{TabID: tab}, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
						t.Fatalf("%s: %v", ev.Method, err)
					}
				}
			}
			feed(7, tc.events)
			feed(8, tc.other)
			r.Wait()
			r.Detached(ctx, recorder.Target{TabID: 7}, "recording stopped")
			r.Wait()
			mu.Lock()
			defer mu.Unlock()
			var said []string
			for _, n := range notes {
				if strings.Contains(n, "not in the archive") {
					said = append(said, n)
				}
			}
			if len(pageNotes) != len(tc.pages) {
				t.Errorf("notes for the archive %q, want one for each of %v", pageNotes, slices.Collect(maps.Keys(tc.pages)))
			}
			for page, w := range tc.pages {
				if !strings.Contains(pageNotes[page], w) {
					t.Errorf("note for the archive on %s: %q, want it to say %q", page, pageNotes[page], w)
				}
			}
			if len(tc.want) == 0 {
				if len(said) != 0 {
					t.Fatalf("noted %q, want no note", said)
				}
				return
			}
			if len(said) != 1 {
				t.Fatalf("notes %q, want one about requests never reported", notes)
			}
			for _, w := range tc.want {
				if !strings.Contains(said[0], w) {
					t.Errorf("note %q does not say %q", said[0], w)
				}
			}
			// Said once: the requests are forgotten with the tab.
			notes = nil
			mu.Unlock()
			r.Detached(ctx, recorder.Target{TabID: 7}, "recording stopped")
			mu.Lock()
			if len(notes) != 0 {
				t.Errorf("said again after a second detach: %q", notes)
			}
		})
	}
}

// The Fetch domain is enabled on a tab only when a navigation leaves a page that had
// not had its load event, and disabled after the window (see leftPages).
func TestRecorderPausesRequestsOnlyOfPagesLeftAsTheyLoad(t *testing.T) {
	const main = `"frameId":"F"`
	navigated := recordertest.Event{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"http://example.org/"},"type":"Navigation"}`}
	started := recordertest.Event{Method: "Page.frameStartedNavigating", Params: `{` + main + `,"navigationType":"differentDocument"}`}
	loaded := recordertest.Event{Method: "Page.loadEventFired", Params: `{"timestamp":1}`}
	restored := recordertest.Event{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"http://example.org/"},"type":"BackForwardCacheRestore"}`}
	for _, tc := range []struct {
		name       string
		events     []recordertest.Event
		pauses     bool
		endsAtLoad bool // the pauses end at the load event, not after the window
	}{
		{name: "left as it loaded", events: []recordertest.Event{navigated, started, started, navigated}, pauses: true},
		{name: "left as it loaded, the next page loaded", events: []recordertest.Event{navigated, started, started, navigated, loaded}, pauses: true, endsAtLoad: true},
		{name: "left after its load event", events: []recordertest.Event{navigated, started, loaded, started}},
		{name: "a frame's navigation", events: []recordertest.Event{navigated, started, {Method: "Page.frameStartedNavigating", Params: `{"frameId":"child","navigationType":"differentDocument"}`}}},
		{name: "within the document", events: []recordertest.Event{navigated, started, {Method: "Page.frameStartedNavigating", Params: `{` + main + `,"navigationType":"sameDocument"}`}}},
		{name: "the main frame not yet known", events: []recordertest.Event{started, started}},
		// A page shown again from the back/forward cache has no load event again.
		{name: "left after its restore", events: []recordertest.Event{navigated, started, loaded, started, restored, started}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &recordertest.Browser{}
			r := recorder.NewRecorder(b)
			ctx := context.Background()
			for _, ev := range tc.events {
				if err := r.HandleEvent(ctx, recorder.Target{TabID: 7}, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
					t.Fatalf("%s: %v", ev.Method, err)
				}
			}
			r.Wait()
			if got := len(b.Sent("Fetch.enable")); got != map[bool]int{true: 1}[tc.pauses] {
				t.Fatalf("Fetch.enable sent %d times, want pauses %v", got, tc.pauses)
			}
			if !tc.pauses {
				return
			}
			if ended := len(b.Sent("Fetch.disable")) == 1; ended != tc.endsAtLoad {
				t.Fatalf("Fetch.disable sent before the window's end: %v, want %v", ended, tc.endsAtLoad)
			}
			for deadline := time.Now().Add(5 * time.Second); len(b.Sent("Fetch.disable")) == 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("Fetch.disable never sent")
				}
			}
		})
	}
}

// A request of a page left as it loaded that the browser never reported, but the
// Fetch domain named, is archived once the window of pauses is over: whole when its
// body has every byte the server declared, marked otherwise.
func TestRecorderArchivesNamedRequestsNeverReported(t *testing.T) {
	const url = "http://127.0.0.1:33779/lib/images/a.png"
	events := []recordertest.Event{
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"` + leftPage + `"},"type":"Navigation"}`},
		{Method: "Page.frameStartedNavigating", Params: `{"frameId":"F","navigationType":"differentDocument"}`},
		{Method: "Page.frameStartedNavigating", Params: `{"frameId":"F","navigationType":"differentDocument"}`},
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://127.0.0.1:33779/doku.php?id=next"},"type":"Navigation"}`},
		{Method: "Fetch.requestPaused", Params: `{"requestId":"interception-1","networkId":"9","request":{"method":"GET","url":"` + url + `"}}`},
		unreportedEvent("9", leftPage),
		{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"9","statusCode":200,"headers":{},"headersText":"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 5\r\n\r\n"}`},
	}
	for _, tc := range []struct {
		name       string
		body       string
		err        error
		truncated  string
		noResponse bool // the response's wire head never came: archived without one, later
	}{
		{name: "its body whole", body: "hello"},
		{name: "its body short", body: "hel", truncated: "length"},
		{name: "its body gone", err: fmt.Errorf("No resource with given identifier found"), truncated: "disconnect"},
		{name: "no response", noResponse: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := events
			if tc.noResponse {
				events = events[:len(events)-1]
			}
			r := recorder.NewRecorder(givingBody(tc.body, tc.err))
			got := make(chan *recorder.Exchange, 1)
			r.OnExchange = func(ex *recorder.Exchange) { got <- ex }
			var mu sync.Mutex
			var notes []string
			r.OnError = func(err error) { mu.Lock(); notes = append(notes, err.Error()); mu.Unlock() }
			ctx := context.Background()
			for _, ev := range events {
				if err := r.HandleEvent(ctx, recorder.Target{TabID: 7}, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
					t.Fatalf("%s: %v", ev.Method, err)
				}
			}
			var ex *recorder.Exchange
			select {
			case ex = <-got:
			case <-time.After(20 * time.Second):
				t.Fatal("the request was never archived")
			}
			if tc.noResponse {
				if ex.URL != url || ex.Status != 0 || !strings.Contains(ex.Failure, "no response reported") {
					t.Errorf("archived %s status %d failure %q, want no response", ex.URL, ex.Status, ex.Failure)
				}
				return
			}
			if ex.URL != url || ex.Method != "GET" || ex.Status != 200 || string(ex.RespBody) != tc.body || ex.RespTruncated != tc.truncated {
				t.Errorf("archived %s %s %d %q truncated %q (%s), want body %q truncated %q", ex.Method, ex.URL, ex.Status, ex.RespBody, ex.RespTruncated, ex.RespNote, tc.body, tc.truncated)
			}
			if ex.PageURL != leftPage || ex.ReqHeader.Get("Referer") != leftPage {
				t.Errorf("page %q, request header %v", ex.PageURL, ex.ReqHeader)
			}
			if tc.truncated != "" && !strings.Contains(ex.RespNote, "dropped its report of this request") && !strings.Contains(ex.RespNote, "page was left") {
				t.Errorf("note %q", ex.RespNote)
			}
			r.Wait()
			r.Detached(ctx, recorder.Target{TabID: 7}, "recording stopped")
			r.Wait()
			mu.Lock()
			defer mu.Unlock()
			for _, n := range notes {
				if strings.Contains(n, "not in the archive") {
					t.Errorf("noted as never archived: %q", n)
				}
			}
		})
	}
}

// A request whose wire headers come just before the window of pauses ends, and which
// the host then reports (its events queued), is archived once, as reported: not first
// as never reported, and again.
func TestRecorderWaitsForARequestReportedLate(t *testing.T) {
	const url = "http://127.0.0.1:33779/lib/images/late.png"
	var mu sync.Mutex
	var got []*recorder.Exchange
	r := recorder.NewRecorder(givingBody("hello", nil))
	r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got = append(got, ex); mu.Unlock() }
	ctx := context.Background()
	tab := recorder.Target{TabID: 7}
	hand := func(evs ...recordertest.Event) {
		for _, ev := range evs {
			if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
				t.Fatalf("%s: %v", ev.Method, err)
			}
		}
	}
	// A page is left as it loads (a navigation begins while the one before it has not
	// had its load event), and the next page commits: the window ends 2 s later
	// (pauseWindow).
	hand(recordertest.Event{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"` + leftPage + `"},"type":"Navigation"}`},
		recordertest.Event{Method: "Page.frameStartedNavigating", Params: `{"frameId":"F","navigationType":"differentDocument"}`},
		recordertest.Event{Method: "Page.frameStartedNavigating", Params: `{"frameId":"F","navigationType":"differentDocument"}`},
		recordertest.Event{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://127.0.0.1:33779/doku.php?id=next"},"type":"Navigation"}`},
		recordertest.Event{Method: "Fetch.requestPaused", Params: `{"requestId":"interception-1","networkId":"9","request":{"method":"GET","url":"` + url + `"}}`})
	time.Sleep(1700 * time.Millisecond)
	hand(unreportedEvent("9", "http://127.0.0.1:33779/doku.php?id=next"),
		recordertest.Event{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"9","statusCode":200,"headers":{},"headersText":"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 5\r\n\r\n"}`})
	time.Sleep(700 * time.Millisecond) // the window ends meanwhile
	hand(recordertest.Event{Method: "Network.requestWillBeSent", Params: `{"requestId":"9","loaderId":"L2","frameId":"F","type":"Image","documentURL":"http://127.0.0.1:33779/doku.php?id=next","request":{"url":"` + url + `","method":"GET","headers":{}}}`},
		recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"9","type":"Image","response":{"url":"` + url + `","status":200,"headers":{"Content-Type":"image/png","Content-Length":"5"}}}`},
		recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"9"}`})
	r.Wait()
	r.Detached(ctx, tab, "recording stopped")
	r.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		for _, ex := range got {
			t.Logf("archived %s %d %q", ex.URL, ex.Status, ex.RespNote)
		}
		t.Fatalf("archived %d times, want once", len(got))
	}
	if ex := got[0]; ex.URL != url || ex.Status != 200 || string(ex.RespBody) != "hello" || ex.RespTruncated != "" {
		t.Errorf("archived %s %d %q truncated %q (%s)", ex.URL, ex.Status, ex.RespBody, ex.RespTruncated, ex.RespNote)
	}
}

// Chromium drops its report of a response (Network.responseReceived) to a DevTools
// client when the response comes as its page is left, a page kept in the
// back/forward cache included, though the wire's head (ExtraInfo) still comes; the
// request's end may be reported later, when the page is shown again. The exchange is
// archived with the wire's head once its page has been shown again from the cache:
// whole when its body is read whole, marked when it is cut. A page left for good, or
// kept in the cache and never shown again, is not waited for: before the recording
// stops (ReadLeftBodies), such an exchange takes the wire's head and what the browser
// gives of its body, marked unless it is every byte the server declared; with no
// response, labelled, when neither its response nor the wire's head ever came.
func TestRecorderTakesTheWiresHeadOfAResponseNeverReported(t *testing.T) {
	const page = "http://127.0.0.1:35535/"
	const image = "http://127.0.0.1:35535/slow.png?ms=1500"
	head := recordertest.Event{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"20","statusCode":200,"headers":{},"headersText":"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 5\r\n\r\n"}`}
	events := []recordertest.Event{
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"` + page + `"},"type":"Navigation"}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"20","loaderId":"L1","frameId":"F","type":"Image","documentURL":"` + page + `","request":{"method":"GET","url":"` + image + `","headers":{"Referer":"` + page + `"}}}`},
		{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"20","headers":{"Accept":"image/*","Referer":"` + page + `"}}`},
		{Method: "Page.frameStartedNavigating", Params: `{"frameId":"F","navigationType":"differentDocument"}`},
		head,
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://127.0.0.1:35535/hang"},"type":"Navigation"}`},
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"` + page + `"},"type":"BackForwardCacheRestore"}`},
	}
	finished := recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"20"}`}
	for _, tc := range []struct {
		name        string
		noHead      bool   // the wire's head never came either
		notModified bool   // the wire's head is a 304
		left        bool   // the page is never shown again
		leftAgain   bool   // the page, shown again, is left again (into the cache)
		end         string // "finished", "stopped" (recording stops first), or "read" (the left bodies read, then Stop)
		body        string
		bodyErr     error
		status      int
		truncated   string
		note        string // a part of the body's note, or of the failure
	}{
		{name: "ended, its body whole", end: "finished", body: "hello", status: 200},
		{name: "ended, its body no longer kept", end: "finished", bodyErr: fmt.Errorf("No resource with given identifier found"), status: 200, truncated: "unspecified", note: "only its head on the wire"},
		{name: "still coming at Stop", end: "stopped", status: 200, truncated: "disconnect", note: "recording stopped before the body ended"},
		{name: "ended, no head at all", noHead: true, end: "finished", note: "never its response"},
		{name: "ended, its page left for good", left: true, end: "finished", note: "never its response"},
		{name: "still coming at Stop, its page back in the cache", leftAgain: true, end: "stopped", status: 200, truncated: "disconnect", note: "the page was left before its body arrived"},
		{name: "its page left, its body given whole before Stop", left: true, end: "read", body: "hello", status: 200, note: "only its head on the wire, which came as its page was left, and gave all 5 bytes"},
		{name: "its page left, part of its body given before Stop", left: true, end: "read", body: "hel", status: 200, truncated: "length", note: "3 of the 5 bytes the server declared"},
		{name: "its page left, its body not given before Stop", left: true, end: "read", bodyErr: fmt.Errorf("No resource with given identifier found"), status: 200, truncated: "disconnect", note: "the page was left before its body arrived (the browser never reported this response, only its head on the wire, which came as its page was left; the browser did not give its body: "},
		{name: "its page left, no head at all", left: true, noHead: true, end: "read", note: "the page was left before its response arrived"},
		{name: "its page left, a 304 on the wire", left: true, notModified: true, end: "read", status: 304, note: "only its head on the wire, which came as its page was left; the page used the body the browser had cached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := recorder.NewRecorder(givingBody(tc.body, tc.bodyErr))
			got := make(chan *recorder.Exchange, 1)
			r.OnExchange = func(ex *recorder.Exchange) {
				if ex.URL == image {
					got <- ex
				}
			}
			ctx := context.Background()
			evs := slices.DeleteFunc(slices.Clone(events), func(e recordertest.Event) bool {
				return tc.noHead && e.Method == head.Method && e.Params == head.Params || tc.left && strings.Contains(e.Params, "BackForwardCacheRestore")
			})
			if tc.notModified {
				i := slices.IndexFunc(evs, func(e recordertest.Event) bool { return e.Method == head.Method && e.Params == head.Params })
				evs[i].Params = strings.Replace(strings.Replace(head.Params, `"statusCode":200`, `"statusCode":304`, 1), "200 OK", "304 Not Modified", 1)
			}
			if tc.leftAgain {
				evs = append(evs, recordertest.Event{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L3","url":"http://127.0.0.1:35535/forms"},"type":"Navigation"}`})
			}
			if tc.end == "finished" {
				evs = append(evs, finished)
			}
			for _, ev := range evs {
				if err := r.HandleEvent(ctx, recorder.Target{TabID: 7}, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
					t.Fatalf("%s: %v", ev.Method, err)
				}
			}
			if tc.end == "read" {
				r.Wait()
				r.ReadLeftBodies(ctx, 7)
			}
			if tc.end == "stopped" || tc.end == "read" {
				r.Wait()
				r.Detached(ctx, recorder.Target{TabID: 7}, "recording stopped")
			}
			var ex *recorder.Exchange
			select {
			case ex = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("the image was never archived")
			}
			if ex.Status != tc.status || string(ex.RespBody) != tc.body || ex.RespTruncated != tc.truncated {
				t.Errorf("status %d body %q truncated %q (%s; failure %q), want %d %q %q", ex.Status, ex.RespBody, ex.RespTruncated, ex.RespNote, ex.Failure, tc.status, tc.body, tc.truncated)
			}
			if tc.status != 0 && (ex.RespHeader.Get("Content-Length") != "5" || ex.RespHeader.Get("Content-Type") != "image/png") {
				t.Errorf("response head %v, want the wire's", ex.RespHeader)
			}
			if got := ex.RespNote + ex.Failure; !strings.Contains(got, tc.note) || tc.note == "" && got != "" {
				t.Errorf("note %q, failure %q, want %q", ex.RespNote, ex.Failure, tc.note)
			}
		})
	}
}

// givingBody is a browser whose Network.getResponseBody gives body, or fails with err.
func givingBody(body string, err error) *recordertest.Browser {
	return &recordertest.Browser{Answer: func(method string, _ map[string]any) (any, error) {
		if method != "Network.getResponseBody" {
			return map[string]any{}, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"body": body}, nil
	}}
}
