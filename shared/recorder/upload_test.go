package recorder_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// uploadCall is the Runtime.bindingCalled event of one message of the page's script,
// from the document of JavaScript context 1 (or message's "context", taken out).
func uploadCall(t *testing.T, message map[string]any) recordertest.Event {
	t.Helper()
	context := 1
	if c, ok := message["context"].(int); ok {
		context = c
		message = maps.Clone(message)
		delete(message, "context")
	}
	payload, err := json.Marshal(message)
	if err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(map[string]any{"name": "__webkeepUpload", "payload": string(payload), "executionContextId": context})
	return recordertest.Event{Method: "Runtime.bindingCalled", Params: string(params)}
}

// hiddenBodyExchange returns the events of a request to url whose body the browser
// hid, sent with the given headers and, on the wire, a Content-Length of length, with
// the page's messages between its start and its end.
func hiddenBodyExchange(url, method string, headers map[string]string, length int, messages []recordertest.Event) []recordertest.Event {
	request, _ := json.Marshal(map[string]any{"requestId": "5", "type": "Fetch", "request": map[string]any{"url": url, "method": method, "headers": headers, "hasPostData": true}})
	wireHeaders := maps.Clone(headers)
	wireHeaders["Content-Length"] = fmt.Sprint(length)
	wire, _ := json.Marshal(map[string]any{"requestId": "5", "headers": wireHeaders})
	events := []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: string(request)},
		{Method: "Network.requestWillBeSentExtraInfo", Params: string(wire)},
	}
	events = append(events, messages...)
	return append(events,
		recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"5","response":{"status":200,"headers":{}}}`},
		recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"5"}`})
}

// wantRequestBody checks that got is one exchange whose request body is marked
// truncated as truncated says, with a note that contains note, and is body when it is
// not truncated; it returns the exchange.
func wantRequestBody(t *testing.T, got []*recorder.Exchange, truncated bool, note, body string) *recorder.Exchange {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("got %d exchanges", len(got))
	}
	ex := got[0]
	if ex.ReqTruncated != truncated || !strings.Contains(ex.ReqNote, note) {
		t.Errorf("truncated=%v note=%q, want truncated=%v and a note with %q", ex.ReqTruncated, ex.ReqNote, truncated, note)
	}
	if !truncated && string(ex.ReqBody) != body {
		t.Errorf("body of %d bytes, want %d: %.80q", len(ex.ReqBody), len(body), ex.ReqBody)
	}
	return ex
}

// TestRecorderTakesFilesCopiedInThePage: a body the browser hides (a FormData with a
// file, a Blob) is archived from the page's copy when the copy encodes to the length
// sent, and stays marked, saying why, when it does not or when there is none.
func TestRecorderTakesFilesCopiedInThePage(t *testing.T) {
	const boundary = "----WebKitFormBoundaryV2e9BQYcHXYOqbNk"
	// The body Chromium sent for FormData a=x, f=File(["hello file"], "h.txt",
	// {type: "text/plain"}), b=y: 364 bytes, its Content-Length as sent.
	formBody := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"f\"; filename=\"h.txt\"\r\nContent-Type: text/plain\r\n\r\nhello file\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\ny\r\n" +
		"--" + boundary + "--\r\n"
	if len(formBody) != 364 {
		t.Fatalf("the vector is %d bytes, Chromium sent 364", len(formBody))
	}
	formEntries := []map[string]any{
		{"name": "a", "value": "x"},
		{"name": "f", "file": true, "filename": "h.txt", "type": "text/plain", "size": 10},
		{"name": "b", "value": "y"},
	}
	b64 := base64.StdEncoding.EncodeToString
	begin := func(url, kind string, size int, entries []map[string]any) map[string]any {
		return map[string]any{"op": "begin", "id": 1, "method": "POST", "url": url, "kind": kind, "size": size, "entries": entries}
	}
	data := func(entry int, s string) map[string]any {
		return map[string]any{"op": "data", "id": 1, "entry": entry, "data": b64([]byte(s))}
	}
	end := map[string]any{"op": "end", "id": 1}
	blob := []map[string]any{{"name": "", "file": true, "size": 7}}
	tests := []struct {
		name        string
		contentType string
		length      int
		copy        []map[string]any // the page's messages
		body        string           // the request body archived
		truncated   bool
		note        string // what the request's note contains
	}{
		{"a FormData with a file", "multipart/form-data; boundary=" + boundary, 364,
			[]map[string]any{begin("http://example.org/up", "form", 10, formEntries), data(1, "hello "), data(1, "file"), end},
			formBody, false, recorder.WhyCopiedFromPage},
		{"a Blob", "", 7,
			[]map[string]any{begin("http://example.org/up", "blob", 7, blob), data(0, "xhrfile"), end},
			"xhrfile", false, recorder.WhyCopiedFromPage},
		{"a copy of another length", "", 8,
			[]map[string]any{begin("http://example.org/up", "blob", 7, blob), data(0, "xhrfile"), end},
			"", true, "encode to 7 bytes, where the request sent 8"},
		{"two copies sent to one URL: the one of the length sent", "", 7,
			[]map[string]any{
				{"op": "begin", "id": 2, "method": "POST", "url": "http://example.org/up", "kind": "blob", "size": 5, "entries": []map[string]any{{"file": true, "size": 5}}},
				{"op": "data", "id": 2, "entry": 0, "data": b64([]byte("other"))},
				{"op": "end", "id": 2},
				begin("http://example.org/up", "blob", 7, blob), data(0, "xhrfile"), end},
			"xhrfile", false, recorder.WhyCopiedFromPage},
		{"copies of two documents, each its first", "", 7,
			[]map[string]any{
				{"op": "begin", "id": 1, "method": "POST", "url": "http://example.org/up", "kind": "blob", "size": 5, "entries": []map[string]any{{"file": true, "size": 5}}},
				{"op": "data", "id": 1, "entry": 0, "data": b64([]byte("other"))},
				{"op": "end", "id": 1},
				{"context": 2, "op": "begin", "id": 1, "method": "POST", "url": "http://example.org/up", "kind": "blob", "size": 7, "entries": []map[string]any{{"file": true, "size": 7}}},
				{"context": 2, "op": "data", "id": 1, "entry": 0, "data": b64([]byte("xhrfile"))},
				{"context": 2, "op": "end", "id": 1}},
			"xhrfile", false, recorder.WhyCopiedFromPage},
		{"a copy that failed", "", 7,
			[]map[string]any{begin("http://example.org/up", "blob", 7, blob), {"op": "fail", "id": 1, "why": "reading its files failed: NotReadableError"}},
			"", true, "reading its files failed: NotReadableError"},
		{"a copy longer than its file", "", 7,
			[]map[string]any{begin("http://example.org/up", "blob", 7, blob), data(0, "xhrfile!"), end},
			"", true, "longer than its file"},
		{"a copy of another request", "", 7,
			[]map[string]any{begin("http://example.org/other", "blob", 7, blob), data(0, "xhrfile"), end},
			"", true, "no copy of its files came from the page"},
		{"no copy", "", 7, nil, "", true, "no copy of its files came from the page"},
		{"a request the browser forgot before its body was asked for", "", 7,
			[]map[string]any{begin("http://example.org/gone", "blob", 7, blob), data(0, "xhrfile"), end},
			"xhrfile", false, recorder.WhyCopiedFromPage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := "http://example.org/up"
			if strings.Contains(tc.name, "forgot") {
				url = "http://example.org/gone"
			}
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Network.getRequestPostData" && url == "http://example.org/gone" {
					return nil, errors.New("No resource with given id was found")
				}
				if method == "Network.getRequestPostData" {
					return nil, errors.New("No post data available for the request")
				}
				return map[string]any{}, nil
			}}
			headers := map[string]string{}
			if tc.contentType != "" {
				headers["Content-Type"] = tc.contentType
			}
			var copies []recordertest.Event
			for _, m := range tc.copy {
				copies = append(copies, uploadCall(t, m))
			}
			events := hiddenBodyExchange(url, "POST", headers, tc.length, copies)
			ex := wantRequestBody(t, record(t, b, events), tc.truncated, tc.note, tc.body)
			if tc.truncated && !strings.Contains(ex.ReqNote, recorder.WhyHiddenBlob) {
				t.Errorf("note %q does not say the browser hid the body", ex.ReqNote)
			}
		})
	}
}

// TestRecorderTakesTheCopyOfAFormReportedAsFields: a multipart body the browser reports
// only as its form fields, a file part as its file name (Firefox), is archived from the
// page's copy of the form when it encodes to the length sent, and stays rebuilt and
// marked when no copy comes.
func TestRecorderTakesTheCopyOfAFormReportedAsFields(t *testing.T) {
	const boundary = "----geckoformboundary5e2a4b0c1d3f"
	body := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nup\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"h.txt\"\r\nContent-Type: text/plain\r\n\r\nhello file\r\n" +
		"--" + boundary + "--\r\n"
	entries := []map[string]any{
		{"name": "title", "value": "up"},
		{"name": "file", "file": true, "filename": "h.txt", "type": "text/plain", "size": 10},
	}
	begin := map[string]any{"op": "begin", "id": 7, "method": "POST", "url": "http://example.org/up", "kind": "form", "size": 10, "entries": entries}
	end := map[string]any{"op": "end", "id": 7}
	// Firefox's background page hands a copy's bytes over as the event's data.
	inData := uploadCall(t, map[string]any{"op": "data", "id": 7, "entry": 1, "data": ""})
	inData.Data = []byte("hello file")
	tests := []struct {
		name      string
		copy      []recordertest.Event
		truncated bool
		note      string
	}{
		{"the page's copy", []recordertest.Event{uploadCall(t, begin), uploadCall(t, map[string]any{"op": "data", "id": 7, "entry": 1, "data": base64.StdEncoding.EncodeToString([]byte("hello file"))}), uploadCall(t, end)}, false, recorder.WhyCopiedFromPage},
		{"the page's copy, its bytes as the event's", []recordertest.Event{uploadCall(t, begin), inData, uploadCall(t, end)}, false, recorder.WhyCopiedFromPage},
		{"no copy", nil, true, "a file part, which the browser reports as its file name only, is not in it (no copy of its files came from the page"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			headers := map[string]string{"Content-Type": "multipart/form-data; boundary=" + boundary, "Content-Length": fmt.Sprint(len(body))}
			request, _ := json.Marshal(map[string]any{"requestId": "5", "type": "Document", "request": map[string]any{
				"url": "http://example.org/up", "method": "POST", "headers": headers, "hasPostData": true,
				"webkeepFormFields": []map[string]any{{"name": "title", "value": "up"}, {"name": "file", "value": "h.txt"}},
			}})
			events := append([]recordertest.Event{{Method: "Network.requestWillBeSent", Params: string(request)}}, tc.copy...)
			events = append(events,
				recordertest.Event{Method: "Network.responseReceived", Params: `{"requestId":"5","response":{"status":200,"headers":{}}}`},
				recordertest.Event{Method: "Network.loadingFinished", Params: `{"requestId":"5"}`})
			wantRequestBody(t, record(t, &recordertest.Browser{}, events), tc.truncated, tc.note, body)
		})
	}
}

// TestRecorderWaitsForTheCopyOfAFile: on a tab whose pages run the copying script, a
// request that ends before its copy has come waits for it.
func TestRecorderWaitsForTheCopyOfAFile(t *testing.T) {
	var binding, script, shown any
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		switch method {
		case "Runtime.addBinding":
			binding = p["name"]
		case "Page.addScriptToEvaluateOnNewDocument":
			script = p["source"]
		case "Network.getRequestPostData":
			return nil, errors.New("No post data available for the request")
		case "Runtime.evaluate":
			if strings.Contains(fmt.Sprint(p["expression"]), "__webkeepUpload") {
				shown = p["expression"]
			}
			return map[string]any{"result": map[string]any{"value": []string{}}}, nil
		}
		return map[string]any{}, nil
	}}
	r := recorder.NewRecorder(b)
	var mu sync.Mutex
	var got []*recorder.Exchange
	r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got = append(got, ex); mu.Unlock() }
	ctx := context.Background()
	tab := recorder.Target{TabID: 3}
	if err := r.Enable(ctx, tab); err != nil {
		t.Fatal(err)
	}
	if src, _ := script.(string); binding != "__webkeepUpload" || !strings.Contains(src, `"__webkeepUpload"`) {
		t.Fatalf("the binding (%v) and the page's script that uses it were not added", binding)
	}
	if shown != script {
		t.Error("the document the tab showed as recording began did not run the page's script")
	}
	for _, ev := range []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"8","type":"XHR","request":{"url":"http://example.org/up","method":"PUT","headers":{},"hasPostData":true}}`},
		{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"8","headers":{"Content-Length":"3"}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"8","response":{"status":201,"headers":{}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"8"}`},
	} {
		if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond) // the page reads its file meanwhile
	for _, m := range []map[string]any{
		{"op": "begin", "id": 4, "method": "PUT", "url": "http://example.org/up", "kind": "blob", "size": 3, "entries": []map[string]any{{"file": true, "size": 3}}},
		{"op": "data", "id": 4, "entry": 0, "data": base64.StdEncoding.EncodeToString([]byte{0, 1, 2})},
		{"op": "end", "id": 4},
	} {
		ev := uploadCall(t, m)
		if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
			t.Fatal(err)
		}
	}
	r.Wait()
	if len(got) != 1 || got[0].ReqTruncated || string(got[0].ReqBody) != "\x00\x01\x02" {
		t.Fatalf("got %+v", got)
	}
}

// A copy whose document is gone before it has sent all its bytes (a form sent by
// navigation, its file read as it was sent) fails at once, saying so, when the browser
// says the document is gone, rather than after waiting for more bytes; a copy of
// another document of the tab goes on. The same in the order a queuing host hands the
// events over (queuedOrder), in which the events that say a document is gone wait with
// the others.
func TestRecorderFailsTheCopyOfADocumentGone(t *testing.T) {
	for _, order := range []struct {
		name    string
		reorder func(*testing.T, []recordertest.Event) []recordertest.Event
	}{
		{"in the browser's order", func(_ *testing.T, evs []recordertest.Event) []recordertest.Event { return evs }},
		{"queued", queuedOrder},
	} {
		t.Run(order.name, func(t *testing.T) { testCopyOfADocumentGone(t, order.reorder) })
	}
}

func testCopyOfADocumentGone(t *testing.T, reorder func(*testing.T, []recordertest.Event) []recordertest.Event) {
	for _, tt := range []struct {
		name, gone, params string
		failed             bool
	}{
		{"the tab shows another document", "Runtime.executionContextsCleared", `{}`, true},
		{"its document is gone", "Runtime.executionContextDestroyed", `{"executionContextId":1}`, true},
		{"another document is gone", "Runtime.executionContextDestroyed", `{"executionContextId":2}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				switch method {
				case "Network.getRequestPostData":
					return nil, errors.New("No post data available for the request")
				case "Runtime.evaluate":
					return map[string]any{"result": map[string]any{"value": []string{}}}, nil
				}
				return map[string]any{}, nil
			}}
			events := []recordertest.Event{
				uploadCall(t, map[string]any{"op": "begin", "id": 1, "method": "PUT", "url": "http://example.org/up", "kind": "blob", "size": 4, "entries": []map[string]any{{"file": true, "size": 4}}}),
				uploadCall(t, map[string]any{"op": "data", "id": 1, "entry": 0, "data": base64.StdEncoding.EncodeToString([]byte{0, 1})}),
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"8","type":"Document","request":{"url":"http://example.org/up","method":"PUT","headers":{},"hasPostData":true}}`},
				{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"8","headers":{"Content-Length":"4"}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"8","response":{"status":201,"headers":{}}}`},
				{Method: tt.gone, Params: tt.params},
				{Method: "Network.loadingFinished", Params: `{"requestId":"8"}`},
			}
			if !tt.failed {
				events = append(events, uploadCall(t, map[string]any{"op": "data", "id": 1, "entry": 0, "data": base64.StdEncoding.EncodeToString([]byte{2, 3})}),
					uploadCall(t, map[string]any{"op": "end", "id": 1}))
			}
			began := time.Now()
			got := recordEnabled(t, b, reorder(t, events))
			if len(got) != 1 {
				t.Fatalf("got %d exchanges", len(got))
			}
			ex := got[0]
			if !tt.failed {
				if ex.ReqTruncated || string(ex.ReqBody) != "\x00\x01\x02\x03" {
					t.Fatalf("the copy of the document still shown: truncated %v, body %q, note %q", ex.ReqTruncated, ex.ReqBody, ex.ReqNote)
				}
				return
			}
			if !ex.ReqTruncated || !strings.Contains(ex.ReqNote, recorder.WhyPageLeftMidCopy) {
				t.Errorf("truncated %v, note %q; want the copy failed: %s", ex.ReqTruncated, ex.ReqNote, recorder.WhyPageLeftMidCopy)
			}
			if took := time.Since(began); took > 3*time.Second {
				t.Errorf("the request waited %v for the bytes of a copy whose document was gone", took)
			}
		})
	}
}

// FuzzUploadMessages: whatever a page sends through the binding, the recorder neither
// fails nor takes a copy whose bytes are not those of a whole, well-formed copy.
func FuzzUploadMessages(f *testing.F) {
	f.Add(`{"op":"begin","id":1,"method":"POST","url":"http://example.org/up","kind":"blob","size":3,"entries":[{"file":true,"size":3}]}
{"op":"data","id":1,"entry":0,"data":"AAEC"}
{"op":"end","id":1}`)
	f.Add(`{"op":"begin","id":1,"method":"POST","url":"http://example.org/up","kind":"form","size":2,"entries":[{"name":"a","value":"x"},{"name":"f","file":true,"filename":"a\"b","size":2}]}
{"op":"data","id":1,"entry":0,"data":"AAEC"}
{"op":"data","id":1,"entry":1,"data":"AAE="}
{"op":"end","id":1}`)
	f.Add(`{"op":"begin","id":1,"size":-5,"entries":[{"file":true,"size":-5}]}
{"op":"data","id":1,"entry":-1,"data":"%%"}
{"op":"fail","id":1}
{"op":"end","id":2}`)
	f.Add("not json\n{}\n[]\n\"begin\"")
	f.Fuzz(func(t *testing.T, messages string) {
		b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
			if method == "Network.getRequestPostData" {
				return nil, errors.New("No post data available for the request")
			}
			return map[string]any{}, nil
		}}
		var calls []recordertest.Event
		for _, m := range strings.Split(messages, "\n") {
			params, _ := json.Marshal(map[string]any{"name": "__webkeepUpload", "payload": m})
			calls = append(calls, recordertest.Event{Method: "Runtime.bindingCalled", Params: string(params)})
		}
		events := hiddenBodyExchange("http://example.org/up", "POST", map[string]string{"Content-Type": "multipart/form-data; boundary=B"}, 3, calls)
		got := record(t, b, events)
		if len(got) != 1 {
			t.Fatalf("got %d exchanges", len(got))
		}
		if !got[0].ReqTruncated && len(got[0].ReqBody) != 3 {
			t.Fatalf("a body of %d bytes taken for a request of 3", len(got[0].ReqBody))
		}
	})
}

// TestRecorderReadsTheFilesAPageHolds: the files of a large copy are not sent by the
// page but held for the recorder, which reads them through DevTools as soon as the
// copy is announced.
func TestRecorderReadsTheFilesAPageHolds(t *testing.T) {
	file := strings.Repeat("0123456789", 300)
	tests := []struct {
		name      string
		held      string // the file the page holds ("" none)
		truncated bool
		note      string
	}{
		{"held", file, false, recorder.WhyCopiedFromPage},
		{"no longer held", "", true, "the page no longer held its file"},
		{"held, but shorter", file[:100], true, "had 100 bytes, not the 3000 announced"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				mu.Lock()
				defer mu.Unlock()
				switch method {
				case "Network.getRequestPostData":
					return nil, errors.New("No post data available for the request")
				case "Runtime.evaluate":
					asked = append(asked, p["expression"].(string))
					if tc.held == "" || !strings.Contains(p["expression"].(string), "get(1)?.[0]") {
						return map[string]any{"result": map[string]any{"type": "undefined"}}, nil
					}
					return map[string]any{"result": map[string]any{"type": "object", "objectId": "blob-object"}}, nil
				case "IO.resolveBlob":
					if p["objectId"] != "blob-object" {
						return nil, errors.New("no such object")
					}
					return map[string]any{"uuid": "u1"}, nil
				case "IO.read":
					if p["handle"] != "blob:u1" {
						return nil, errors.New("no such handle")
					}
					return map[string]any{"data": base64.StdEncoding.EncodeToString([]byte(tc.held)), "base64Encoded": true, "eof": true}, nil
				}
				return map[string]any{}, nil
			}}
			got := record(t, b, []recordertest.Event{
				uploadCall(t, map[string]any{"op": "begin", "id": 1, "method": "PUT", "url": "http://example.org/big", "kind": "blob", "size": 3000, "pull": true, "entries": []map[string]any{{"file": true, "size": 3000}}}),
				// A page that sends bytes for a copy it holds is not listened to.
				uploadCall(t, map[string]any{"op": "data", "id": 1, "entry": 0, "data": base64.StdEncoding.EncodeToString([]byte("forged"))}),
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"9","type":"Fetch","request":{"url":"http://example.org/big","method":"PUT","headers":{},"hasPostData":true}}`},
				{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"9","headers":{"Content-Length":"3000"}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"9","response":{"status":204,"headers":{}}}`},
				{Method: "Network.loadingFinished", Params: `{"requestId":"9"}`},
			})
			wantRequestBody(t, got, tc.truncated, tc.note, file)
			mu.Lock()
			defer mu.Unlock()
			if len(asked) == 0 || !strings.Contains(asked[len(asked)-1], "delete(1)") {
				t.Errorf("the page was not told to let go of its file: %q", asked)
			}
		})
	}
}
