package recorder_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// record runs events through a recorder and returns the exchanges it produced.
func record(t *testing.T, b *recordertest.Browser, events []recordertest.Event) []*recorder.Exchange {
	t.Helper()
	r := recorder.NewRecorder(b)
	r.StreamThreshold = 100
	var mu sync.Mutex
	var out []*recorder.Exchange
	r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); out = append(out, ex); mu.Unlock() }
	r.OnError = func(err error) { t.Errorf("recorder: %v", err) }
	ctx := context.Background()
	for _, ev := range events {
		if err := r.HandleEvent(ctx, recorder.Target{TabID: 7}, ev.Method, json.RawMessage(ev.Params), ev.Data); err != nil {
			t.Fatalf("%s: %v", ev.Method, err)
		}
		// Commands run on their own goroutines: let them finish, as a browser that
		// sends events at a human pace would.
		r.Wait()
	}
	r.Wait()
	return out
}

// recordAtOnce is record with the events handed over as fast as they come, as a busy
// browser sends them: work they cause is still under way when the next one arrives.
func recordAtOnce(t *testing.T, b *recordertest.Browser, events []recordertest.Event) []*recorder.Exchange {
	t.Helper()
	return recordTab(t, b, false, events)
}

// recordEnabled is recordAtOnce once the recorder has enabled the tab, as recording a
// tab begins: the page's script and its binding are added, the page asked for its
// password fields.
func recordEnabled(t *testing.T, b *recordertest.Browser, events []recordertest.Event) []*recorder.Exchange {
	t.Helper()
	return recordTab(t, b, true, events)
}

// recordTab hands events of tab 7 to a recorder as fast as they come, after enabling
// the tab if enable is set, and returns the exchanges it produced.
func recordTab(t *testing.T, b *recordertest.Browser, enable bool, events []recordertest.Event) []*recorder.Exchange {
	t.Helper()
	r := recorder.NewRecorder(b)
	var mu sync.Mutex
	var out []*recorder.Exchange
	r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); out = append(out, ex); mu.Unlock() }
	r.OnError = func(err error) { t.Errorf("recorder: %v", err) }
	ctx, tab := context.Background(), recorder.Target{TabID: 7}
	if enable {
		if err := r.Enable(ctx, tab); err != nil {
			t.Fatal(err)
		}
	}
	for _, ev := range events {
		if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
			t.Fatalf("%s: %v", ev.Method, err)
		}
	}
	r.Wait()
	return out
}

func TestRecorderRedirectChainAndFailures(t *testing.T) {
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			return map[string]any{"body": "end", "base64Encoded": false}, nil
		}
		return map[string]any{}, nil
	}}
	got := record(t, b, []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"3","type":"Document","request":{"url":"http://example.org/a","method":"GET","headers":{}}}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"3","type":"Document","request":{"url":"http://example.org/b","method":"GET","headers":{}},"redirectResponse":{"status":301,"statusText":"Moved Permanently","headers":{"Location":"/b","Content-Length":"51"}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"3","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"3"}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"4","request":{"url":"http://down.example/","method":"GET","headers":{}}}`},
		{Method: "Network.loadingFailed", Params: `{"requestId":"4","errorText":"net::ERR_CONNECTION_REFUSED"}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"5","request":{"url":"data:text/plain,hi","method":"GET","headers":{}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"5"}`},
	})
	byURL := map[string]*recorder.Exchange{}
	for _, ex := range got {
		byURL[ex.URL] = ex
	}
	if len(got) != 3 {
		t.Fatalf("got %d exchanges, want 3 (data: URLs are not archived)", len(got))
	}
	if a := byURL["http://example.org/a"]; a == nil || a.Status != 301 || !a.Redirected || len(a.RespBody) != 0 {
		t.Errorf("redirect hop: %+v", a)
	}
	if bEx := byURL["http://example.org/b"]; bEx == nil || bEx.Status != 200 || string(bEx.RespBody) != "end" {
		t.Errorf("final hop: %+v", bEx)
	}
	if f := byURL["http://down.example/"]; f == nil || f.Status != 0 || f.Failure != "the request failed (net::ERR_CONNECTION_REFUSED)" {
		t.Errorf("failed request: %+v", f)
	}
	if got := b.Sent("Network.getResponseBody"); len(got) != 1 {
		t.Errorf("bodies asked for: %v, want only the final hop's", got)
	}
}

func TestRecorderDetachKeepsWhatWasUnderWay(t *testing.T) {
	b := &recordertest.Browser{}
	r := recorder.NewRecorder(b)
	var got []*recorder.Exchange
	var mu sync.Mutex
	r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got = append(got, ex); mu.Unlock() }
	ctx := context.Background()
	r.HandleEvent(ctx, recorder.Target{TabID: 1}, "Network.requestWillBeSent", json.RawMessage(`{"requestId":"9","request":{"url":"http://example.org/slow","method":"GET","headers":{}}}`), nil)
	r.HandleEvent(ctx, recorder.Target{TabID: 2}, "Network.requestWillBeSent", json.RawMessage(`{"requestId":"9","request":{"url":"http://example.org/other-tab","method":"GET","headers":{}}}`), nil)
	r.Detached(ctx, recorder.Target{TabID: 1}, "tab closed")
	r.Wait()
	if len(got) != 1 || got[0].URL != "http://example.org/slow" || !strings.Contains(got[0].Failure, "tab closed") {
		t.Fatalf("after detach: %+v", got)
	}
}

func TestRecorderRejectsMalformedEvents(t *testing.T) {
	r := recorder.NewRecorder(&recordertest.Browser{})
	for _, m := range []string{"Network.requestWillBeSent", "Network.responseReceived", "Network.dataReceived", "Network.loadingFinished"} {
		err := r.HandleEvent(context.Background(), recorder.Target{TabID: 1}, m, json.RawMessage(`{"requestId":`), nil)
		if err == nil || !strings.Contains(err.Error(), m) {
			t.Errorf("%s with broken JSON: error %v, want one naming the event", m, err)
		}
	}
	err := r.HandleEvent(context.Background(), recorder.Target{TabID: 1}, "Network.dataReceived", json.RawMessage(`{"requestId":"1","data":"%%%"}`), nil)
	if err == nil {
		t.Error("bad base64 in dataReceived: no error")
	}
}

// TestEventFields: every event the recorder acts on is in EventFields, with the fields
// it reads; events left out of it are ignored, and its trees name JSON fields.
func TestEventFields(t *testing.T) {
	fields := recorder.EventFields()
	r := recorder.NewRecorder(&recordertest.Browser{Answer: func(string, map[string]any) (any, error) { return map[string]any{}, nil }})
	for method := range fields {
		// Params that are not an object fail to decode for an event that is acted on.
		if err := r.HandleEvent(context.Background(), recorder.Target{TabID: 1}, method, json.RawMessage(`[]`), nil); err == nil {
			t.Errorf("%s: in EventFields but not decoded", method)
		}
	}
	for _, method := range []string{"Page.domContentEventFired", "Network.policyUpdated", "Inspector.workerScriptLoaded"} {
		if fields[method] != nil {
			t.Errorf("%s: in EventFields", method)
		}
		if err := r.HandleEvent(context.Background(), recorder.Target{TabID: 1}, method, json.RawMessage(`[]`), nil); err != nil {
			t.Errorf("%s: not ignored: %v", method, err)
		}
	}
	resp := fields["Network.responseReceived"].(map[string]any)["response"].(map[string]any)
	if resp["headers"] != true || resp["status"] != true || resp["securityDetails"] != nil {
		t.Errorf("Network.responseReceived response fields: %v", resp)
	}
}

// WaitQuiet returns once no request is in flight, and at the latest QuietWait after
// the time it is given.
func TestWaitQuiet(t *testing.T) {
	// returns fails the test unless wait returns within limit: far less than the
	// time it would take if the case under test were not handled.
	returns := func(what string, limit time.Duration, wait func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(limit):
			t.Fatalf("WaitQuiet did not return within %v: %s", limit, what)
		}
	}
	r := recorder.NewRecorder(&recordertest.Browser{})
	// Nothing in flight: at once, though the deadline is an hour away.
	returns("nothing in flight", 10*time.Second, func() { r.WaitQuiet(time.Now().Add(time.Hour)) })
	ctx := context.Background()
	tab := recorder.Target{TabID: 1}
	r.HandleEvent(ctx, tab, "Network.requestWillBeSent", json.RawMessage(`{"requestId":"1","request":{"url":"http://example.org/","method":"GET","headers":{}}}`), nil)
	done := make(chan struct{})
	go func() { r.WaitQuiet(time.Now().Add(time.Hour)); close(done) }()
	select {
	case <-done:
		t.Fatal("WaitQuiet returned while a request was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	r.HandleEvent(ctx, tab, "Network.loadingFailed", json.RawMessage(`{"requestId":"1","errorText":"net::ERR_ABORTED"}`), nil)
	returns("the request in flight ended", 10*time.Second, func() { <-done })
	// A request in flight, but the deadline passed long ago: at once.
	r.HandleEvent(ctx, tab, "Network.requestWillBeSent", json.RawMessage(`{"requestId":"2","request":{"url":"http://example.org/","method":"GET","headers":{}}}`), nil)
	returns("deadline already passed", recorder.QuietWait/2, func() { r.WaitQuiet(time.Now().Add(-time.Hour)) })
	// A request in flight and a deadline ahead: at the deadline.
	returns("deadline ahead", 10*time.Second, func() { r.WaitQuiet(time.Now().Add(100 * time.Millisecond)) })
	r.Wait()
}

// silentWorkerBrowser answers every command but those sent to a worker's session,
// which it leaves unanswered until their context ends, as the browser does with a
// worker that ends while it is being set up.
type silentWorkerBrowser struct{ recordertest.Browser }

func (b *silentWorkerBrowser) Send(ctx context.Context, t recorder.Target, method string, params any) (json.RawMessage, error) {
	if t.Session != "" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return b.Browser.Send(ctx, t, method, params)
}

// A worker that ends while its commands wait for an answer: the commands fail when
// the browser says it is gone (Target.detachedFromTarget), the work is done, and
// nothing is reported, since nothing of the worker was missed.
func TestWorkerGoneWhileBeingSetUp(t *testing.T) {
	r := recorder.NewRecorder(&silentWorkerBrowser{})
	var reported []error
	var mu sync.Mutex
	r.OnError = func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }
	ctx := context.Background()
	tab := recorder.Target{TabID: 1}
	if err := r.HandleEvent(ctx, tab, "Target.attachedToTarget", json.RawMessage(`{"sessionId":"W","targetInfo":{"type":"worker"}}`), nil); err != nil {
		t.Fatal(err)
	}
	if waiting := r.WaitAnswered(50*time.Millisecond, time.Time{}); len(waiting) == 0 || !strings.Contains(waiting[0], "Network.enable") {
		t.Fatalf("before the worker ends, waiting for %q; want Network.enable", waiting)
	}
	if err := r.HandleEvent(ctx, tab, "Target.detachedFromTarget", json.RawMessage(`{"sessionId":"W"}`), nil); err != nil {
		t.Fatal(err)
	}
	if waiting := r.WaitAnswered(5*time.Second, time.Time{}); waiting != nil {
		t.Fatalf("after the worker ended, still waiting for %q", waiting)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 0 {
		t.Errorf("reported %v", reported)
	}
}

// A frame the browser attached is recorded, and what it holds, unless it is an
// extension's page (Chromium's PDF viewer, whose inner frame shows the PDF's URL with
// an answer of its own): that one is let run, and nothing of it is enabled.
func TestAttachedFrames(t *testing.T) {
	for _, tt := range []struct {
		name, info string
		enabled    bool
	}{
		{"a web page's frame", `{"type":"iframe","url":"https://example.org/frame"}`, true},
		{"a frame not yet navigated", `{"type":"iframe","url":""}`, true},
		{"a worker", `{"type":"worker","url":"https://example.org/w.js"}`, true},
		{"the PDF viewer's frame", `{"type":"iframe","url":"chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/index.html"}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &recordertest.Browser{}
			r := recorder.NewRecorder(b)
			ev := json.RawMessage(`{"sessionId":"S","waitingForDebugger":true,"targetInfo":` + tt.info + `}`)
			if err := r.HandleEvent(context.Background(), recorder.Target{TabID: 1}, "Target.attachedToTarget", ev, nil); err != nil {
				t.Fatal(err)
			}
			if waiting := r.WaitAnswered(5*time.Second, time.Time{}); waiting != nil {
				t.Fatalf("still waiting for %q", waiting)
			}
			if got := len(b.Sent("Network.enable")) == 1 && len(b.Sent("Target.setAutoAttach")) == 1; got != tt.enabled {
				t.Errorf("enabled = %v, want %v (sent %q)", got, tt.enabled, b.Sent(""))
			}
			if ran := b.Sent("Runtime.runIfWaitingForDebugger"); len(ran) != 1 {
				t.Errorf("told to run %d times, want once (sent %q)", len(ran), b.Sent(""))
			}
		})
	}
}

func TestRecorderWireHeadersFromExtraInfo(t *testing.T) {
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			return map[string]any{"body": "welcome"}, nil
		}
		return map[string]any{}, nil
	}}
	loginText := "HTTP/1.1 200 Logged In\r\nContent-Type: text/html\r\nSet-Cookie: sid=abc; HttpOnly\r\nSet-Cookie: theme=dark\r\nContent-Length: 7\r\n\r\n"
	redirectText := "HTTP/1.1 302 Found\r\nLocation: /home\r\nSet-Cookie: step=1\r\nContent-Length: 0\r\n\r\n"
	tests := []struct {
		name   string
		events []recordertest.Event
	}{
		{"extra info after the hop ended", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/login","method":"GET","headers":{"Accept":"*/*"}}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/home","method":"GET","headers":{"Accept":"*/*"}},"redirectHasExtraInfo":true,"redirectResponse":{"status":302,"headers":{"Location":"/home"}}}`},
			{Method: "Network.responseReceived", Params: `{"requestId":"1","hasExtraInfo":true,"response":{"status":200,"statusText":"OK","headers":{"Content-Type":"text/html","Content-Length":"7"}}}`},
			{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
			{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"1","headers":{"Accept":"*/*","Cookie":"old=1"}}`},
			{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"1","statusCode":302,"headers":{"Location":"/home"},"headersText":"` + strings.ReplaceAll(strings.ReplaceAll(redirectText, "\r", `\r`), "\n", `\n`) + `"}`},
			{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"1","headers":{"Accept":"*/*","Cookie":"step=1"}}`},
			{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"1","statusCode":200,"headers":{},"headersText":"` + strings.ReplaceAll(strings.ReplaceAll(loginText, "\r", `\r`), "\n", `\n`) + `"}`},
		}},
		{"extra info before each hop", []recordertest.Event{
			{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"1","headers":{"Accept":"*/*","Cookie":"old=1"}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/login","method":"GET","headers":{"Accept":"*/*"}}}`},
			{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"1","statusCode":302,"headers":{"Location":"/home"},"headersText":"` + strings.ReplaceAll(strings.ReplaceAll(redirectText, "\r", `\r`), "\n", `\n`) + `"}`},
			{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"1","headers":{"Accept":"*/*","Cookie":"step=1"}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/home","method":"GET","headers":{"Accept":"*/*"}},"redirectHasExtraInfo":true,"redirectResponse":{"status":302,"headers":{"Location":"/home"}}}`},
			// Without raw text (HTTP/2), repeated fields come joined by "\n".
			{Method: "Network.responseReceivedExtraInfo", Params: `{"requestId":"1","statusCode":200,"headers":{"content-type":"text/html","set-cookie":"sid=abc; HttpOnly\ntheme=dark","content-length":"7"}}`},
			{Method: "Network.responseReceived", Params: `{"requestId":"1","hasExtraInfo":true,"response":{"status":200,"statusText":"OK","headers":{"Content-Type":"text/html","Content-Length":"7"}}}`},
			{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := recordAtOnce(t, b, tt.events)
			if len(got) != 2 {
				t.Fatalf("got %d exchanges, want 2", len(got))
			}
			byURL := map[string]*recorder.Exchange{}
			for _, ex := range got {
				byURL[ex.URL] = ex
			}
			first, home := byURL["http://example.org/login"], byURL["http://example.org/home"]
			if first.ReqHeader.Get("Cookie") != "old=1" || home.ReqHeader.Get("Cookie") != "step=1" {
				t.Errorf("request cookies %q and %q, want old=1 and step=1", first.ReqHeader.Get("Cookie"), home.ReqHeader.Get("Cookie"))
			}
			if first.RespHeader.Get("Set-Cookie") != "step=1" {
				t.Errorf("redirect's Set-Cookie %q, want step=1 (%v)", first.RespHeader.Get("Set-Cookie"), first.RespHeader)
			}
			var cookies []string
			for _, f := range home.RespHeader {
				if strings.EqualFold(f.Name, "Set-Cookie") {
					cookies = append(cookies, f.Value)
				}
			}
			if strings.Join(cookies, " | ") != "sid=abc; HttpOnly | theme=dark" {
				t.Errorf("Set-Cookie fields %q, want both, in order", cookies)
			}
			head := strings.ToLower(string(home.ResponseHead()))
			if !strings.Contains(head, "set-cookie: sid=abc; httponly\r\n") || !strings.Contains(head, "theme=dark\r\n") {
				t.Errorf("response head lacks the cookies:\n%s", head)
			}
		})
	}
}

func TestRecorderLabelsWhatCutAnExchangeShort(t *testing.T) {
	start := `{"requestId":"%s","frameId":"F","loaderId":"L1","type":"Image","wallTime":%d,"request":{"url":"http://example.org/%s","method":"GET","headers":{}}}`
	answer := `{"requestId":"%s","response":{"status":200,"headers":{"Content-Type":"image/png","Content-Length":"10"}}}`
	left := recordertest.Event{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://example.org/next"}}`}
	// A response whose length as archived (decoded) the server does not declare.
	gzipped := `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/javascript","Content-Encoding":"gzip","Content-Length":"3"}}}`
	bodyOf := func(body string) func(string) (any, error) {
		return func(string) (any, error) { return map[string]any{"body": b64(body), "base64Encoded": true}, nil }
	}
	now := time.Now().Unix()
	tests := []struct {
		name    string
		events  []recordertest.Event
		detach  bool // the recording stops after the events
		body    func(method string) (any, error)
		failure string // the start of the label of an exchange without a response
		note    string // the start of the response's note, if it has a response
		mark    string // its Truncated value
	}{
		{"page left while the body came", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.png")},
			{Method: "Network.responseReceived", Params: fmt.Sprintf(answer, "1")},
			left,
			{Method: "Network.loadingFailed", Params: `{"requestId":"1","errorText":"net::ERR_ABORTED","canceled":true}`},
		}, false, nil, "", recorder.WhyPageLeft + " (net::ERR_ABORTED)", "disconnect"},
		{"a navigation that fails leaves the page as it was", []recordertest.Event{
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"http://example.org/"}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L2","frameId":"F","loaderId":"L2","type":"Document","request":{"url":"http://example.org:6000/","method":"GET","headers":{}}}`},
			{Method: "Network.loadingFailed", Params: `{"requestId":"L2","errorText":"net::ERR_UNSAFE_PORT"}`},
		}, false, nil, "the request failed (net::ERR_UNSAFE_PORT)", "", ""},
		{"a navigation that fails shows the error page in its stead", []recordertest.Event{
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"http://example.org/"}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L2","frameId":"F","loaderId":"L2","type":"Document","request":{"url":"http://example.org:6000/","method":"GET","headers":{}}}`},
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L3","url":"chrome-error://chromewebdata/","unreachableUrl":"http://example.org:6000/"}}`},
			{Method: "Network.loadingFailed", Params: `{"requestId":"L2","errorText":"net::ERR_UNSAFE_PORT"}`},
		}, false, nil, "the request failed (net::ERR_UNSAFE_PORT)", "", ""},
		{"a failed navigation handled before the commit of the one begun before it", []recordertest.Event{
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L0","url":"http://example.org/"}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L1","frameId":"F","loaderId":"L1","type":"Document","request":{"url":"http://example.org/a","method":"GET","headers":{}}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L2","frameId":"F","loaderId":"L2","type":"Document","request":{"url":"http://example.org:6000/","method":"GET","headers":{}}}`},
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L1","url":"http://example.org/a"}}`},
			{Method: "Network.loadingFailed", Params: `{"requestId":"L2","errorText":"net::ERR_UNSAFE_PORT"}`},
		}, false, nil, "the request failed (net::ERR_UNSAFE_PORT)", "", ""},
		{"a navigation that failed, reported after the next one came", []recordertest.Event{
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L0","url":"http://example.org/"}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L1","frameId":"F","loaderId":"L1","type":"Document","request":{"url":"http://example.org:6000/","method":"GET","headers":{}}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L2","frameId":"F","loaderId":"L2","type":"Document","request":{"url":"http://example.org/b","method":"GET","headers":{}}}`},
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://example.org/b"}}`},
			{Method: "Network.loadingFailed", Params: `{"requestId":"L1","errorText":"net::ERR_UNSAFE_PORT"}`},
		}, false, nil, "the request failed (net::ERR_UNSAFE_PORT)", "", ""},
		{"a navigation replaced by one begun after it", []recordertest.Event{
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L0","url":"http://example.org/"}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L1","frameId":"F","loaderId":"L1","type":"Document","request":{"url":"http://example.org/a","method":"GET","headers":{}}}`},
			{Method: "Network.requestWillBeSent", Params: `{"requestId":"L2","frameId":"F","loaderId":"L2","type":"Document","request":{"url":"http://example.org/b","method":"GET","headers":{}}}`},
			{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://example.org/b"}}`},
			{Method: "Network.loadingFailed", Params: `{"requestId":"L1","errorText":"net::ERR_ABORTED","canceled":true}`},
		}, false, nil, "the page was left before its response arrived (net::ERR_ABORTED)", "", ""},
		{"cancelled on the page still shown", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.png")},
			{Method: "Network.loadingFailed", Params: `{"requestId":"1","errorText":"net::ERR_ABORTED","canceled":true}`},
		}, false, nil, recorder.WhyCancelled + " (net::ERR_ABORTED)", "", ""},
		{"cancelled while its body came", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.png")},
			{Method: "Network.responseReceived", Params: fmt.Sprintf(answer, "1")},
			{Method: "Network.loadingFailed", Params: `{"requestId":"1","errorText":"net::ERR_ABORTED","canceled":true}`},
		}, false, nil, "", recorder.WhyCancelled, "disconnect"},
		{"requested long before Stop on a page left", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now-180, "a.png")},
			left,
		}, true, nil, "the page was left before its response arrived (requested 3m", "", ""},
		{"under way on the page shown when recording stopped", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now-180, "a.png")},
			{Method: "Network.responseReceived", Params: fmt.Sprintf(answer, "1")},
		}, true, nil, "", recorder.WhyStopped + " (requested 3m", "disconnect"},
		{"the body gone when it ended", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.png")},
			{Method: "Network.responseReceived", Params: fmt.Sprintf(answer, "1")},
			left,
			{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
		}, false, func(method string) (any, error) {
			return nil, errors.New(`{"code":-32000,"message":"No resource with given identifier found"}`)
		}, "", recorder.WhyPageLeft + " (the browser no longer had the body: No resource with given identifier found)", "unspecified"},
		{"Firefox: a body's end reported after its page was left", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.js")},
			{Method: "Network.responseReceived", Params: gzipped},
			left,
			{Method: "Network.loadingFinished", Params: `{"requestId":"1","webkeepEndsEarlyWhenLeft":true}`},
		}, false, bodyOf("part"), "", recorder.WhyLeftEndUnsure + " (4 bytes archived)", "unspecified"},
		{"Firefox: a body's end reported as its page was being left, the next not shown yet", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.js")},
			{Method: "Network.responseReceived", Params: gzipped},
			{Method: "Network.loadingFinished", Params: `{"requestId":"1","webkeepEndsEarlyWhenLeft":true}`},
		}, false, bodyOf(""), "", recorder.WhyLeftEndUnsure + " (0 bytes archived)", "unspecified"},
		{"Firefox: a body's end reported on the page still shown", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.js")},
			{Method: "Network.responseReceived", Params: gzipped},
			{Method: "Network.loadingFinished", Params: `{"requestId":"1","webkeepEndsEarlyWhenLeft":false}`},
		}, false, bodyOf("whole"), "", "", ""},
		{"Firefox: a body's end reported after its page was left, all its declared bytes here", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.png")},
			{Method: "Network.responseReceived", Params: fmt.Sprintf(answer, "1")},
			left,
			{Method: "Network.loadingFinished", Params: `{"requestId":"1","webkeepEndsEarlyWhenLeft":true}`},
		}, false, bodyOf("0123456789"), "", "", ""},
		{"a body's end reported after its page was left, by a browser that says it then", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.js")},
			{Method: "Network.responseReceived", Params: gzipped},
			left,
			{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
		}, false, bodyOf("whole"), "", "", ""},
		{"an empty body where 10 bytes were declared", []recordertest.Event{
			{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(start, "1", now, "a.png")},
			{Method: "Network.responseReceived", Params: fmt.Sprintf(answer, "1")},
			{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
		}, false, func(method string) (any, error) { return map[string]any{"body": ""}, nil },
			"", "the archived body has 0 of the 10 bytes the server declared", "length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Network.getResponseBody" && tt.body != nil {
					return tt.body(method)
				}
				if method == "Network.getResponseBody" || method == "Network.loadNetworkResource" {
					return nil, errors.New("not expected: " + method)
				}
				return map[string]any{}, nil
			}}
			r := recorder.NewRecorder(b)
			var got []*recorder.Exchange
			var mu sync.Mutex
			r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got = append(got, ex); mu.Unlock() }
			for _, ev := range tt.events {
				if err := r.HandleEvent(context.Background(), recorder.Target{TabID: 7}, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
					t.Fatal(err)
				}
				r.Wait()
			}
			if tt.detach {
				r.Detached(context.Background(), recorder.Target{TabID: 7}, "recording stopped")
				r.Wait()
			}
			if len(got) != 1 {
				t.Fatalf("got %d exchanges, want 1", len(got))
			}
			ex := got[0]
			if tt.failure != "" {
				if ex.Status != 0 || !strings.HasPrefix(ex.Failure, tt.failure) {
					t.Errorf("status %d, failure %q; want none and %q", ex.Status, ex.Failure, tt.failure)
				}
				return
			}
			if !strings.HasPrefix(ex.RespNote, tt.note) || ex.RespTruncated != tt.mark {
				t.Errorf("note %q, Truncated %q; want %q…, %q", ex.RespNote, ex.RespTruncated, tt.note, tt.mark)
			}
			if strings.Contains(ex.RespNote+ex.Failure, "detached") || strings.Contains(ex.RespNote, `{"code"`) {
				t.Errorf("label in the debugger's words: %q", ex.RespNote+ex.Failure)
			}
		})
	}
}
