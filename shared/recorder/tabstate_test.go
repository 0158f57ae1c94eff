package recorder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// A tab the recorder stops recording leaves nothing of it in the recorder: not its
// requests under way (finished, marked as cut), their bodies and wire headers, nor its
// documents, navigations, password fields, copies of files, workers and frames, or
// what it knew of the pages it left. Another tab's state is untouched.
func TestRecorderDetachedTabLeavesNoState(t *testing.T) {
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		switch method {
		case "Runtime.evaluate":
			if expr, _ := p["expression"].(string); strings.Contains(expr, "password") {
				return map[string]any{"result": map[string]any{"value": []string{"pw"}}}, nil
			}
		case "Page.getFrameTree":
			return map[string]any{"frameTree": map[string]any{"frame": map[string]any{"id": "M"}}}, nil
		case "Network.getResponseBody":
			return map[string]any{"body": b64("body of " + p["requestId"].(string)), "base64Encoded": true}, nil
		case "Network.streamResourceContent":
			return map[string]any{"bufferedData": ""}, nil
		}
		return map[string]any{}, nil
	}}
	r := recorder.NewRecorder(b)
	var mu sync.Mutex
	got := map[string]*recorder.Exchange{}
	r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got[ex.URL] = ex; mu.Unlock() }
	var notes []string
	r.OnError = func(err error) { mu.Lock(); notes = append(notes, err.Error()); mu.Unlock() }
	ctx := context.Background()
	tab, other := recorder.Target{TabID: 3}, recorder.Target{TabID: 4}
	frame := recorder.Target{TabID: 3, Session: "S"}
	for _, tt := range []recorder.Target{tab, other} {
		if err := r.Enable(ctx, tt); err != nil {
			t.Fatal(err)
		}
	}
	r.Wait()
	url := func(path string) string { return "http://example.org/" + path }
	nav := func(id, path string) string {
		return fmt.Sprintf(`{"requestId":%q,"loaderId":%q,"frameId":"M","type":"Document","request":{"url":%q,"method":"GET","headers":{}}}`, id, id, url(path))
	}
	req := func(id, typ, loader, path string) string {
		return fmt.Sprintf(`{"requestId":%q,"loaderId":%q,"frameId":"M","type":%q,"request":{"url":%q,"method":"GET","headers":{}}}`, id, loader, typ, url(path))
	}
	resp := func(id string) string {
		return fmt.Sprintf(`{"requestId":%q,"hasExtraInfo":true,"response":{"status":200,"headers":{"Content-Type":"text/html"}}}`, id)
	}
	shown := func(loader, path, typ string) string {
		return fmt.Sprintf(`{"frame":{"id":"M","loaderId":%q,"url":%q},"type":%q}`, loader, url(path), typ)
	}
	type event struct {
		target         recorder.Target
		method, params string
	}
	for _, ev := range []event{
		// A worker and a frame of the tab.
		{tab, "Target.attachedToTarget", `{"sessionId":"S","targetInfo":{"type":"iframe"}}`},
		{tab, "Target.attachedToTarget", `{"sessionId":"W","targetInfo":{"type":"worker"}}`},
		{tab, "Page.frameStartedNavigating", `{"frameId":"M","navigationType":"differentDocument"}`},
		// A navigation, redirected, with its wire headers, and a page of it.
		{tab, "Network.requestWillBeSentExtraInfo", `{"requestId":"L1","headers":{"Host":"example.org"}}`},
		{tab, "Network.requestWillBeSent", nav("L1", "start")},
		{tab, "Network.requestWillBeSent", `{"requestId":"L1","loaderId":"L1","frameId":"M","type":"Document","request":{"url":"http://example.org/doc","method":"GET","headers":{}},"redirectResponse":{"status":302,"headers":{"Location":"/doc"}}}`},
		{tab, "Network.requestWillBeSentExtraInfo", `{"requestId":"L1","headers":{"Host":"example.org"}}`},
		{tab, "Network.responseReceived", resp("L1")},
		{tab, "Network.responseReceivedExtraInfo", `{"requestId":"L1","statusCode":200,"headers":{"Content-Type":"text/html"}}`},
		{tab, "Network.dataReceived", `{"requestId":"L1","dataLength":4}`},
		{tab, "Network.loadingFinished", `{"requestId":"L1"}`},
		{tab, "Page.frameNavigated", shown("L1", "doc", "Navigation")},
		{tab, "Page.loadEventFired", `{}`},
		{tab, "Page.frameStoppedLoading", `{"frameId":"M"}`},
		// A style sheet of the page, read whole when it ends.
		{tab, "Network.requestWillBeSent", req("css", "Stylesheet", "L1", "style.css")},
		{tab, "Network.responseReceived", `{"requestId":"css","response":{"status":200,"headers":{}}}`},
		{tab, "Network.loadingFinished", `{"requestId":"css"}`},
		// The page copies a file it sends, and names its password fields.
		{tab, "Runtime.bindingCalled", `{"name":"__webkeepUpload","executionContextId":5,"payload":"{\"op\":\"begin\",\"id\":1,\"method\":\"POST\",\"url\":\"http://example.org/up\",\"kind\":\"blob\",\"size\":3,\"entries\":[{\"file\":true,\"size\":3}]}"}`},
		{tab, "Runtime.bindingCalled", `{"name":"__webkeepUpload","executionContextId":5,"payload":"{\"op\":\"passwords\",\"names\":[\"pin\"]}"}`},
		// A request the browser never reported, named by the Fetch domain.
		{tab, "Network.requestWillBeSentExtraInfo", `{"requestId":"ghost","headers":{"Referer":"http://example.org/doc"}}`},
		{tab, "Fetch.requestPaused", `{"requestId":"interception-1","networkId":"ghost","request":{"method":"GET","url":"http://example.org/ghost.png"}}`},
		// Another navigation, then back to the first page from the back/forward cache.
		{tab, "Network.requestWillBeSent", nav("L2", "next")},
		{tab, "Network.responseReceived", resp("L2")},
		{tab, "Page.frameNavigated", shown("L2", "next", "Navigation")},
		{tab, "Page.frameNavigated", shown("L1", "doc", "BackForwardCacheRestore")},
		// Under way when the tab goes: a download streamed from its request on, one
		// in the frame, and a hop whose wire headers came and whose response did not.
		{tab, "Network.requestWillBeSent", req("slow", "Media", "L1", "slow.mp4")},
		{tab, "Network.responseReceived", `{"requestId":"slow","response":{"status":200,"headers":{"Content-Length":"100000"}}}`},
		{tab, "Network.dataReceived", `{"requestId":"slow","dataLength":3,"data":"` + b64("abc") + `"}`},
		{frame, "Network.requestWillBeSent", `{"requestId":"f1","frameId":"FR","loaderId":"LF","type":"XHR","request":{"url":"http://example.org/frame-xhr","method":"GET","headers":{}}}`},
		{tab, "Network.requestWillBeSent", req("hop", "Fetch", "L1", "hop")},
		{tab, "Network.requestWillBeSentExtraInfo", `{"requestId":"hop","headers":{"Host":"example.org"}}`},
		// The worker ends.
		{tab, "Target.detachedFromTarget", `{"sessionId":"W"}`},
		// The other tab: a navigation under way, and the document it shows.
		{other, "Network.requestWillBeSent", nav("O1", "other")},
		{other, "Page.frameNavigated", shown("O0", "shown", "Navigation")},
	} {
		if err := r.HandleEvent(ctx, ev.target, ev.method, json.RawMessage(ev.params), nil); err != nil {
			t.Fatalf("%s: %v", ev.method, err)
		}
		r.Wait()
	}
	before := r.Held(tab.TabID)
	for _, kind := range []string{"tab", "pending", "bodies", "extras", "named", "durable", "documents", "navigations", "restored", "passwordNames", "passwordAsk", "copies", "copying", "main frame"} {
		if before[kind] == 0 {
			t.Errorf("before the tab is detached, it holds no %s: the test does not cover it (%v)", kind, before)
		}
	}
	otherBefore := r.Held(other.TabID)

	r.Detached(ctx, tab, "tab closed")
	r.Wait()

	if held := r.Held(tab.TabID); len(held) != 0 {
		t.Errorf("a detached tab left state behind: %v", held)
	}
	if held := r.Held(other.TabID); !maps.Equal(held, otherBefore) || held["pending"] != 1 || held["navigations"] != 1 || held["documents"] != 1 {
		t.Errorf("the other tab's state changed when a tab was detached: %v, was %v", held, otherBefore)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"slow.mp4", "frame-xhr", "hop"} {
		if ex := got[url(path)]; ex == nil || !strings.Contains(ex.Failure+ex.RespNote, "tab closed") {
			t.Errorf("%s, under way when the tab was detached: %+v, want it kept, marked as cut", path, ex)
		}
	}
	if ex := got[url("doc")]; ex == nil || string(ex.RespBody) != "body of L1" {
		t.Errorf("the page: %+v", ex)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "1 request begun by pages left") {
		t.Errorf("notes: %q, want one about the request never reported", notes)
	}
}
