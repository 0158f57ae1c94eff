package recorder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// The page's fields of type password are known from when it loaded: a form that
// navigates away may be gone by the time its request is seen.
func TestRecorderKnowsThePasswordFieldsOfTheFormsPage(t *testing.T) {
	var mu sync.Mutex
	fields := []string{"secret"} // the login page; the page that follows has none
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Runtime.evaluate" {
			mu.Lock()
			defer mu.Unlock()
			return map[string]any{"result": map[string]any{"value": fields}}, nil
		}
		return map[string]any{}, nil
	}}
	r := recorder.NewRecorder(b)
	var got *recorder.Exchange
	r.OnExchange = func(ex *recorder.Exchange) { got = ex }
	ctx, tab := context.Background(), recorder.Target{TabID: 7}
	if err := r.Enable(ctx, tab); err != nil {
		t.Fatal(err)
	}
	for i, ev := range []recordertest.Event{
		{Method: "Page.frameStoppedLoading", Params: `{"frameId":"F"}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","type":"Document","frameId":"F","request":{"url":"http://example.org/login","method":"POST","headers":{"Content-Type":"application/x-www-form-urlencoded"},"hasPostData":true,"postDataEntries":[{"bytes":"` + b64("user=a&secret=b") + `"}]}}`},
		{Method: "Network.loadingFailed", Params: `{"requestId":"1","errorText":"net::ERR_ABORTED"}`},
	} {
		if i == 1 {
			mu.Lock()
			fields = nil // the form's page is gone when its request is seen
			mu.Unlock()
		}
		if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
			t.Fatal(err)
		}
		r.Wait()
	}
	if got == nil || fmt.Sprint(got.PasswordDOM) != "[secret]" {
		t.Fatalf("password fields from the page: %+v", got)
	}
}

// A form filled and sent within moments of its page's load (a script, a password
// manager) goes before the page has answered the question its load raised: the
// request waits for that answer, since the page that sends the form is the one asked.
func TestRecorderWaitsForThePasswordFieldsOfAPageJustLoaded(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	loaded := false // the login page has loaded: the next question is answered late
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method != "Runtime.evaluate" {
			return map[string]any{}, nil
		}
		mu.Lock()
		late := loaded
		loaded = false
		mu.Unlock()
		if late {
			<-release
			return map[string]any{"result": map[string]any{"value": []string{"p"}}}, nil
		}
		return map[string]any{"result": map[string]any{"value": []string{}}}, nil // another page
	}}
	r := recorder.NewRecorder(b)
	var got *recorder.Exchange
	r.OnExchange = func(ex *recorder.Exchange) { got = ex }
	ctx, tab := context.Background(), recorder.Target{TabID: 7}
	if err := r.Enable(ctx, tab); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	loaded = true
	mu.Unlock()
	for i, ev := range []recordertest.Event{
		{Method: "Page.frameStoppedLoading", Params: `{"frameId":"F"}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","type":"Document","frameId":"F","request":{"url":"http://example.org/doku.php","method":"POST","headers":{"Content-Type":"application/x-www-form-urlencoded"},"hasPostData":true,"postDataEntries":[{"bytes":"` + b64("u=a&p=b") + `"}]}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":302,"headers":{"Location":"/"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
	} {
		if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			close(release)
		}
	}
	r.Wait()
	if got == nil || fmt.Sprint(got.PasswordDOM) != "[p]" {
		t.Fatalf("password fields of the page just loaded: %+v", got)
	}
	if !slices.Contains(recorder.UrgentEvents, "Page.frameStoppedLoading") {
		t.Error("Page.frameStoppedLoading waits its turn behind the page's other events: its question may reach the page after a form is sent")
	}
}

// The page tells its password fields as it sends a form (uploadScript): a login sent
// before the recorder has heard the page load, whose questions only the next page
// answers, still has them, whether the page's report comes before its request or
// after.
func TestRecorderTakesThePasswordFieldsThePageTells(t *testing.T) {
	told := recordertest.Event{Method: "Runtime.bindingCalled", Params: `{"name":"__webkeepUpload","executionContextId":3,"payload":"{\"op\":\"passwords\",\"names\":[\"p\",\"\"]}"}`}
	sent := recordertest.Event{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","type":"Document","frameId":"F","request":{"url":"http://example.org/doku.php","method":"POST","headers":{"Content-Type":"application/x-www-form-urlencoded"},"hasPostData":true,"postDataEntries":[{"bytes":"` + b64("u=a&p=b") + `"}]}}`}
	answered := []recordertest.Event{
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":302,"headers":{"Location":"/"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
	}
	for _, tt := range []struct {
		name   string
		events []recordertest.Event
		want   string
	}{
		{"told before the request", append([]recordertest.Event{told, sent}, answered...), "[p]"},
		{"told after the request", append([]recordertest.Event{sent, told}, answered...), "[p]"},
		{"not told", append([]recordertest.Event{sent}, answered...), "[]"},
		{"told by the page's own call", append([]recordertest.Event{{Method: "Runtime.bindingCalled", Params: `{"name":"__webkeepUpload","payload":"not json"}`}, sent}, answered...), "[]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Runtime.evaluate" { // every question is answered by the next page
					return map[string]any{"result": map[string]any{"value": []string{}}}, nil
				}
				return map[string]any{}, nil
			}}
			got := recordEnabled(t, b, tt.events)
			if len(got) != 1 || fmt.Sprint(got[0].PasswordDOM) != tt.want {
				t.Fatalf("got %+v; want one exchange, with the password fields %s", got, tt.want)
			}
		})
	}
}
