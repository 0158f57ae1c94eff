package webrequest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
)

func str(s string) *string { return &s }

func TestHeaderMap(t *testing.T) {
	tests := []struct {
		name string
		in   []Header
		want map[string]string
	}{
		{"none", nil, map[string]string{}},
		{"one each", []Header{{"A", str("1")}, {"B", str("2")}}, map[string]string{"A": "1", "B": "2"}},
		{"repeated, joined by newlines in order", []Header{{"Set-Cookie", str("a=1")}, {"X", str("x")}, {"Set-Cookie", str("b=2")}}, map[string]string{"Set-Cookie": "a=1\nb=2", "X": "x"}},
		{"binary value only: left out", []Header{{"Bin", nil}, {"A", str("")}}, map[string]string{"A": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := headerMap(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("headerMap = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResourceType(t *testing.T) {
	for in, want := range map[string]string{
		"main_frame": "Document", "sub_frame": "Document", "xmlhttprequest": "XHR", "beacon": "Ping",
		"imageset": "Image", "web_manifest": "Manifest", "object": "Other", "something new": "Other", "": "Other",
	} {
		if got := resourceType(in); got != want {
			t.Errorf("resourceType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewResponse(t *testing.T) {
	tests := []struct {
		statusLine, protocol, statusText string
	}{
		{"HTTP/1.1 200 OK", "http/1.1", "OK"},
		{"HTTP/2 404 Not Found Here", "h2", "Not Found Here"},
		{"HTTP/2.0 200", "h2", ""},
		{"HTTP/3 204 No Content", "h3", "No Content"},
		{"HTTP/1.0 302 Found", "http/1.0", "Found"},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.statusLine, func(t *testing.T) {
			d := &Details{URL: "https://a.test/", StatusLine: tt.statusLine, StatusCode: 200, IP: "10.0.0.1", FromCache: true,
				ResponseHeaders: []Header{{"Content-Type", str("text/html")}}}
			got := newResponse(d)
			want := &recorder.WireResponse{URL: d.URL, Status: 200, StatusText: tt.statusText, Headers: map[string]string{"Content-Type": "text/html"},
				Protocol: tt.protocol, RemoteIPAddress: "10.0.0.1", WebkeepFromHTTPCache: true}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("newResponse = %+v, want %+v", got, want)
			}
		})
	}
}

func TestRequestBodyJSON(t *testing.T) {
	tests := []struct {
		name string
		body string // the details' requestBody
		want string // the request of requestWillBeSent, its body's fields
	}{
		{"none", `null`, `"hasPostData":false`},
		{"raw bytes, a file part without", `{"raw":[{"bytes":"YWJj"},{"file":"x.bin"}]}`, `"hasPostData":true,"postDataEntries":[{"bytes":"YWJj"},{}]}`},
		{"form fields in the order given", `{"formData":{"z":["1","2"],"a":["3"]}}`, `"hasPostData":true,"webkeepFormFields":[{"name":"z","value":"1"},{"name":"z","value":"2"},{"name":"a","value":"3"}]}`},
		{"an error only: no fields, but fields", `{"error":"too large"}`, `"hasPostData":true,"webkeepFormFields":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTranslator()
			handle(t, tr, "beforeRequest", fmt.Sprintf(`{"requestId":"1","tabId":3,"url":"https://a.test/f","method":"POST","type":"xmlhttprequest","timeStamp":1000,"requestBody":%s}`, tt.body))
			got := handle(t, tr, "sendHeaders", `{"requestId":"1","tabId":3,"requestHeaders":[]}`)
			if len(got) != 1 || !strings.Contains(string(got[0].Params), tt.want) {
				t.Fatalf("events %s, want requestWillBeSent with %s", show(got), tt.want)
			}
		})
	}
}

// handle is tr.Handle that fails the test on an error.
func handle(t *testing.T, tr *Translator, kind, details string) []Event {
	t.Helper()
	events, err := tr.Handle(kind, []byte(details))
	if err != nil {
		t.Fatalf("Handle(%s): %v", kind, err)
	}
	return events
}

// show is the events as "tab method params" lines.
func show(events []Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "%d %s %s\n", e.Tab, e.Method, e.Params)
	}
	return b.String()
}

func TestTranslatorEvents(t *testing.T) {
	type step struct{ kind, details, want string }
	tests := []struct {
		name  string
		steps []step
	}{
		{"a page, then a script of it", []step{
			{"beforeRequest", `{"requestId":"10","tabId":1,"frameId":0,"parentFrameId":-1,"url":"https://a.test/","method":"GET","type":"main_frame","timeStamp":5000}`, ``},
			{"sendHeaders", `{"requestId":"10","tabId":1,"requestHeaders":[{"name":"Accept","value":"*/*"}]}`,
				`1 Network.requestWillBeSent {"requestId":"10","request":{"url":"https://a.test/","method":"GET","headers":{"Accept":"*/*"},"hasPostData":false},"wallTime":5,"type":"Document","documentURL":"https://a.test/","frameId":"0","loaderId":"10"}` + "\n"},
			{"responseStarted", `{"requestId":"10","tabId":1,"url":"https://a.test/","statusLine":"HTTP/1.1 200 OK","statusCode":200,"ip":"127.0.0.1","timeStamp":5010,"responseHeaders":[]}`,
				`1 Network.responseReceived {"requestId":"10","response":{"url":"https://a.test/","status":200,"statusText":"OK","headers":{},"protocol":"http/1.1","remoteIPAddress":"127.0.0.1","fromDiskCache":false,"fromPrefetchCache":false,"webkeepFromHTTPCache":false},"hasExtraInfo":false}` + "\n" +
					`1 Page.frameNavigated {"frame":{"id":"0","loaderId":"10","url":"https://a.test/"}}` + "\n"},
			{"beforeRequest", `{"requestId":"11","tabId":1,"frameId":0,"url":"https://a.test/s.js","method":"GET","type":"script","documentUrl":"https://a.test/","timeStamp":5020}`, ``},
			{"errorOccurred", `{"requestId":"11","tabId":1,"error":"NS_BINDING_ABORTED"}`,
				`1 Network.requestWillBeSent {"requestId":"11","request":{"url":"https://a.test/s.js","method":"GET","headers":{},"hasPostData":false},"wallTime":5.02,"type":"Script","documentURL":"https://a.test/","frameId":"0","loaderId":"10"}` + "\n" +
					`1 Network.loadingFailed {"requestId":"11","errorText":"NS_BINDING_ABORTED","canceled":true}` + "\n"},
			{"completed", `{"requestId":"10","tabId":1}`, ``},
			{"finished", `{"requestId":"10","tabId":1,"stopped":5100}`, `1 Network.loadingFinished {"requestId":"10","webkeepEndsEarlyWhenLeft":false}` + "\n"},
			{"finished", `{"requestId":"10","tabId":1,"stopped":5100}`, ``},
		}},
		{"a redirect: the next hop carries its response", []step{
			{"beforeRequest", `{"requestId":"20","tabId":2,"frameId":4,"parentFrameId":0,"url":"https://a.test/old","method":"GET","type":"sub_frame","timeStamp":1000}`, ``},
			{"beforeRedirect", `{"requestId":"20","tabId":2,"url":"https://a.test/old","statusLine":"HTTP/1.1 301 Moved Permanently","statusCode":301,"responseHeaders":[{"name":"Location","value":"/new"}]}`,
				`2 Network.requestWillBeSent {"requestId":"20","request":{"url":"https://a.test/old","method":"GET","headers":{},"hasPostData":false},"wallTime":1,"type":"Document","documentURL":"https://a.test/old","frameId":"4","loaderId":"20"}` + "\n"},
			{"beforeRequest", `{"requestId":"20","tabId":2,"frameId":4,"parentFrameId":0,"url":"https://a.test/new","method":"GET","type":"sub_frame","timeStamp":1001}`, ``},
			{"responseStarted", `{"requestId":"20","tabId":2,"statusLine":"HTTP/2 200","statusCode":200,"fromCache":true}`,
				`2 Network.requestWillBeSent {"requestId":"20","request":{"url":"https://a.test/new","method":"GET","headers":{},"hasPostData":false},"wallTime":1.001,"type":"Document","documentURL":"https://a.test/new","frameId":"4","loaderId":"20","redirectResponse":{"url":"https://a.test/old","status":301,"statusText":"Moved Permanently","headers":{"Location":"/new"},"protocol":"http/1.1","remoteIPAddress":"","fromDiskCache":false,"fromPrefetchCache":false,"webkeepFromHTTPCache":false}}` + "\n" +
					`2 Network.responseReceived {"requestId":"20","response":{"url":"","status":200,"statusText":"","headers":{},"protocol":"h2","remoteIPAddress":"","fromDiskCache":false,"fromPrefetchCache":false,"webkeepFromHTTPCache":true},"hasExtraInfo":false}` + "\n" +
					`2 Page.frameNavigated {"frame":{"id":"4","loaderId":"20","parentId":"0","url":"https://a.test/new"}}` + "\n"},
		}},
		{"events of a request not begun: none", []step{
			{"sendHeaders", `{"requestId":"30","tabId":1}`, ``},
			{"responseStarted", `{"requestId":"30","tabId":1}`, ``},
			{"finished", `{"requestId":"30","tabId":1}`, ``},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTranslator()
			for i, s := range tt.steps {
				if got := show(handle(t, tr, s.kind, s.details)); got != s.want {
					t.Errorf("step %d (%s):\n got %s\nwant %s", i, s.kind, got, s.want)
				}
			}
		})
	}
}

func TestTranslatorLeaving(t *testing.T) {
	// A script of frame 2 of tab 1 begins at 1000; its filter stops at 2000.
	tests := []struct {
		name   string
		change func(tr *Translator)
		want   bool
	}{
		{"nothing changed", func(tr *Translator) {}, false},
		{"its frame's navigation began meanwhile", func(tr *Translator) { navigate(tr, 1, 2, "n1", 1500) }, true},
		{"the tab's top frame navigated meanwhile", func(tr *Translator) { navigate(tr, 1, 0, "n1", 1500) }, true},
		{"another frame navigated", func(tr *Translator) { navigate(tr, 1, 3, "n1", 1500) }, false},
		{"another tab navigated", func(tr *Translator) { navigate(tr, 9, 2, "n1", 1500) }, false},
		{"a navigation before the request", func(tr *Translator) { navigate(tr, 1, 2, "n1", 1000) }, false},
		{"within the margin after the stop", func(tr *Translator) { navigate(tr, 1, 2, "n1", 2000+LeaveMargin) }, true},
		{"past the margin", func(tr *Translator) { navigate(tr, 1, 2, "n1", 2001+LeaveMargin) }, false},
		{"the page's beforeunload", func(tr *Translator) { tr.Leaving(1, 2, 1999) }, true},
		{"forgotten with its tab", func(tr *Translator) { tr.Leaving(1, 2, 1999); tr.Forget(1) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTranslator()
			tr.changed(1, 2, "r", 1000) // the request's own frame, not a change for it
			handle(t, tr, "beforeRequest", `{"requestId":"r","tabId":1,"frameId":2,"url":"https://a.test/s.js","type":"script","timeStamp":1000}`)
			tt.change(tr)
			handle(t, tr, "beforeRequest", `{"requestId":"r","tabId":1,"frameId":2,"url":"https://a.test/s.js","type":"script","timeStamp":1000}`)
			got := handle(t, tr, "finished", `{"requestId":"r","tabId":1,"stopped":2000}`)
			want := fmt.Sprintf(`1 Network.loadingFinished {"requestId":"r","webkeepEndsEarlyWhenLeft":%v}`+"\n", tt.want)
			if show(got) != want {
				t.Errorf("got %s, want %s", show(got), want)
			}
		})
	}
}

// navigate has a document request of a tab's frame begin at at.
func navigate(tr *Translator, tab, frame int, id string, at float64) {
	tr.beforeRequest(&Details{RequestID: id, TabID: tab, FrameID: frame, Type: "sub_frame", TimeStamp: at})
}

func TestTranslatorKeepsLastChanges(t *testing.T) {
	tr := NewTranslator()
	for i := range maxChanges + 5 {
		tr.Leaving(1, 0, float64(i))
	}
	list := tr.changes[frameKey{1, 0}]
	if len(list) != maxChanges || list[0].at != 5 {
		t.Errorf("kept %d changes from %v, want %d from 5", len(list), list[0].at, maxChanges)
	}
}

func TestForget(t *testing.T) {
	tr := NewTranslator()
	for _, tab := range []int{1, 2} {
		navigate(tr, tab, 0, fmt.Sprint("n", tab), 10)
		handle(t, tr, "responseStarted", fmt.Sprintf(`{"requestId":"n%d","tabId":%d,"timeStamp":20}`, tab, tab))
	}
	tr.Forget(1)
	for id, r := range tr.requests {
		if r.tab == 1 {
			t.Errorf("request %s of tab 1 kept", id)
		}
	}
	for k := range tr.documents {
		if k.tab == 1 {
			t.Errorf("document of %v kept", k)
		}
	}
	for k := range tr.changes {
		if k.tab == 1 {
			t.Errorf("changes of %v kept", k)
		}
	}
	if len(tr.requests) != 1 || len(tr.documents) != 1 || len(tr.changes) != 1 {
		t.Errorf("tab 2's state: %d requests, %d documents, %d frames with changes; want 1 each", len(tr.requests), len(tr.documents), len(tr.changes))
	}
}

func TestHandleErrors(t *testing.T) {
	tr := NewTranslator()
	for _, tt := range []struct{ kind, details string }{
		{"beforeRequest", `{`},
		{"beforeRequest", `{"requestBody":{"formData":[1]}}`},
		{"beforeRequest", `{"requestBody":{"formData":{"a":"not a list"}}}`},
		{"somethingElse", `{}`},
	} {
		if _, err := tr.Handle(tt.kind, []byte(tt.details)); err == nil {
			t.Errorf("Handle(%s, %s): no error", tt.kind, tt.details)
		}
	}
}

func TestBodyData(t *testing.T) {
	tests := []struct {
		name   string
		routed bool
		data   []byte
		want   string
		bytes  []byte
	}{
		{"bytes beside the event", false, []byte("abc"), `{"requestId":"7","dataLength":3,"encodedDataLength":3}`, []byte("abc")},
		{"stored by the shim: empty data", true, nil, `{"requestId":"7","dataLength":3,"encodedDataLength":3,"data":""}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := BodyData(5, "7", 3, tt.routed, tt.data)
			if e.Tab != 5 || e.Method != "Network.dataReceived" || string(e.Params) != tt.want || string(e.Data) != string(tt.bytes) {
				t.Errorf("BodyData = %d %s %s %q, want 5 Network.dataReceived %s %q", e.Tab, e.Method, e.Params, e.Data, tt.want, tt.bytes)
			}
		})
	}
}

func TestUpload(t *testing.T) {
	e := Upload(4, []byte(`{"op":"data","data":""}`), []byte{1, 2})
	var p struct {
		Name    string `json:"name"`
		Payload string `json:"payload"`
	}
	if err := json.Unmarshal(e.Params, &p); err != nil {
		t.Fatal(err)
	}
	if e.Tab != 4 || e.Method != "Runtime.bindingCalled" || p.Name != "__webkeepUpload" || p.Payload != `{"op":"data","data":""}` || len(e.Data) != 2 {
		t.Errorf("Upload = %d %s %s %v", e.Tab, e.Method, e.Params, e.Data)
	}
}

func TestAnswer(t *testing.T) {
	tests := []struct {
		method string
		ok     bool
		result string
		err    error
	}{
		{"Network.enable", true, "{}", nil},
		{"Page.addScriptToEvaluateOnNewDocument", true, "{}", nil},
		{"IO.close", true, "{}", nil},
		{"Network.getResponseBody", false, "", nil},
		{"Network.streamResourceContent", false, "", nil},
		{"Page.getNavigationHistory", false, "", nil},
		{"Page.reload", false, "", nil},
		{"Page.getLayoutMetrics", true, "", errors.New("Page.getLayoutMetrics is not available in Firefox")},
		{"Page.captureScreenshot", false, "", nil},
		{"Network.getRequestPostData", true, "", ErrFormFieldsOnly},
		{"Fetch.enable", true, "", errors.New("Fetch.enable is not available in Firefox")},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			result, ok, err := answer(tt.method)
			if ok != tt.ok || string(result) != tt.result || fmt.Sprint(err) != fmt.Sprint(tt.err) {
				t.Errorf("answer = %s, %v, %v; want %s, %v, %v", result, ok, err, tt.result, tt.ok, tt.err)
			}
		})
	}
}

func TestFormDataOrder(t *testing.T) {
	var f FormData
	if err := json.Unmarshal([]byte(`{"b":["1"],"a":["2","3"]}`), &f); err != nil {
		t.Fatal(err)
	}
	want := FormData{{Name: "b", Value: "1"}, {Name: "a", Value: "2"}, {Name: "a", Value: "3"}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("FormData = %v, want %v", f, want)
	}
}

func TestTranslatorLoaded(t *testing.T) {
	events, err := NewTranslator().Handle("loaded", []byte(`{"tabId":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Tab != 7 || events[0].Method != "Page.loadEventFired" || string(events[0].Params) != "{}" {
		t.Errorf("loaded = %+v, want tab 7's Page.loadEventFired", events)
	}
}
