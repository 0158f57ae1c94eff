package webrequest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// The events a Translator makes are those the recorder reads: each sequence of
// Firefox's events, translated and handed to a real recorder as the Firefox build
// does, makes the exchanges the recorder would make of Chromium's.
func TestTranslatedEventsRecord(t *testing.T) {
	const (
		page = `"tabId":1,"frameId":0,"parentFrameId":-1`
		ok   = `"statusLine":"HTTP/1.1 200 OK","statusCode":200,"responseHeaders":[{"name":"Content-Type","value":"text/html"}]`
	)
	type step struct{ kind, details string }
	type want struct {
		method, url, reqBody, reqNote string
		status                        int
		protocol, respNote, cacheNote string
	}
	tests := []struct {
		name   string
		steps  []step
		bodies map[string]string // the bytes each request's filter passed on
		want   []want
	}{
		{"a fetch() POST: its bytes", []step{
			{"beforeRequest", `{"requestId":"1",` + page + `,"url":"https://a.test/api","method":"POST","type":"xmlhttprequest","timeStamp":1000,"requestBody":{"raw":[{"bytes":"eyJhIjoxfQ=="}]}}`},
			{"sendHeaders", `{"requestId":"1","tabId":1,"requestHeaders":[{"name":"Content-Type","value":"application/json"}]}`},
			{"responseStarted", `{"requestId":"1","tabId":1,"url":"https://a.test/api","timeStamp":1010,` + ok + `}`},
			{"completed", `{"requestId":"1","tabId":1}`},
			{"finished", `{"requestId":"1","tabId":1,"stopped":1020}`},
		}, map[string]string{"1": "<p>done</p>"}, []want{
			{method: "POST", url: "https://a.test/api", reqBody: `{"a":1}`, status: 200, protocol: "http/1.1"},
		}},
		{"a form Firefox submits itself: rebuilt from its fields, and said so", []step{
			{"beforeRequest", `{"requestId":"2",` + page + `,"url":"https://a.test/login","method":"POST","type":"main_frame","timeStamp":1000,"requestBody":{"formData":{"user":["ann"],"q":["a b"]}}}`},
			{"sendHeaders", `{"requestId":"2","tabId":1,"requestHeaders":[{"name":"Content-Type","value":"application/x-www-form-urlencoded"},{"name":"Content-Length","value":"14"}]}`},
			{"responseStarted", `{"requestId":"2","tabId":1,"url":"https://a.test/login","timeStamp":1010,` + ok + `}`},
			{"completed", `{"requestId":"2","tabId":1}`},
			{"finished", `{"requestId":"2","tabId":1,"stopped":1020}`},
		}, map[string]string{"2": "<p>hi</p>"}, []want{
			{method: "POST", url: "https://a.test/login", reqBody: "user=ann&q=a+b", reqNote: recorder.WhyRebuilt, status: 200, protocol: "http/1.1"},
		}},
		{"a redirect: each hop an exchange; the cache's copy said so", []step{
			{"beforeRequest", `{"requestId":"3",` + page + `,"url":"https://a.test/old","method":"GET","type":"main_frame","timeStamp":1000}`},
			{"beforeRedirect", `{"requestId":"3","tabId":1,"url":"https://a.test/old","statusLine":"HTTP/2 301","statusCode":301,"responseHeaders":[{"name":"Location","value":"/new"}]}`},
			{"beforeRequest", `{"requestId":"3",` + page + `,"url":"https://a.test/new","method":"GET","type":"main_frame","timeStamp":1005}`},
			{"responseStarted", `{"requestId":"3","tabId":1,"url":"https://a.test/new","timeStamp":1010,"fromCache":true,` + ok + `}`},
			{"completed", `{"requestId":"3","tabId":1}`},
			{"finished", `{"requestId":"3","tabId":1,"stopped":1020}`},
		}, map[string]string{"3": "<p>new</p>"}, []want{
			{method: "GET", url: "https://a.test/old", status: 301, protocol: "h2"},
			{method: "GET", url: "https://a.test/new", status: 200, protocol: "http/1.1", cacheNote: "cache"},
		}},
		{"a script whose page was left as its body came: marked", []step{
			{"beforeRequest", `{"requestId":"4",` + page + `,"url":"https://a.test/s.js","method":"GET","type":"script","timeStamp":1000}`},
			{"sendHeaders", `{"requestId":"4","tabId":1,"requestHeaders":[]}`},
			{"responseStarted", `{"requestId":"4","tabId":1,"url":"https://a.test/s.js","timeStamp":1010,` + ok + `}`},
			{"beforeRequest", `{"requestId":"5",` + page + `,"url":"https://a.test/next","method":"GET","type":"main_frame","timeStamp":1015}`},
			{"completed", `{"requestId":"4","tabId":1}`},
			{"finished", `{"requestId":"4","tabId":1,"stopped":1020}`},
		}, map[string]string{"4": "var a"}, []want{
			{method: "GET", url: "https://a.test/s.js", status: 200, protocol: "http/1.1", respNote: recorder.WhyLeftEndUnsure},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method != "Network.getResponseBody" {
					return map[string]any{}, nil
				}
				body, ok := tt.bodies[p["requestId"].(string)]
				if !ok {
					return nil, errors.New("No resource with given identifier found")
				}
				return map[string]any{"body": body}, nil
			}}
			r := recorder.NewRecorder(b)
			var mu sync.Mutex
			var got []*recorder.Exchange
			r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got = append(got, ex); mu.Unlock() }
			ctx := context.Background()
			tr := NewTranslator()
			for _, s := range tt.steps {
				events, err := tr.Handle(s.kind, []byte(s.details))
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range events {
					if err := r.HandleEvent(ctx, recorder.Target{TabID: e.Tab}, e.Method, e.Params, e.Data); err != nil {
						t.Fatalf("%s: %v", e.Method, err)
					}
				}
				r.Wait()
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(tt.want) {
				t.Fatalf("%d exchanges, want %d", len(got), len(tt.want))
			}
			for i, w := range tt.want {
				ex := got[i]
				if ex.Method != w.method || ex.URL != w.url || string(ex.ReqBody) != w.reqBody || !strings.HasPrefix(ex.ReqNote, w.reqNote) ||
					ex.Status != w.status || ex.Protocol != w.protocol || !strings.HasPrefix(ex.RespNote, w.respNote) || !strings.Contains(ex.CacheNote, w.cacheNote) {
					t.Errorf("exchange %d: %s %s body %q (%q), %d %s, note %q, cache %q; want %+v",
						i, ex.Method, ex.URL, ex.ReqBody, ex.ReqNote, ex.Status, ex.Protocol, ex.RespNote, ex.CacheNote, w)
				}
			}
		})
	}
}
