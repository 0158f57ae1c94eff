package recorder_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/capture"
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

func TestRecorderPOSTWithBodyReadWhenFinished(t *testing.T) {
	binary := "\x00\x01\xff\xfe"
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			return map[string]any{"body": b64("{\"ok\":true}"), "base64Encoded": true}, nil
		}
		return map[string]any{}, nil
	}}
	got := record(t, b, []recordertest.Event{
		// ExtraInfo may come before its request: it must still be used.
		{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"1","headers":{"Content-Type":"application/octet-stream","Content-Length":"4","Cookie":"a=b"}}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","type":"Fetch","wallTime":1700000000.5,"request":{"url":"http://example.org/api","method":"POST","headers":{"Content-Type":"application/octet-stream"},"hasPostData":true,"postDataEntries":[{"bytes":"` + b64(binary) + `"}]}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"url":"http://example.org/api","status":200,"statusText":"OK","protocol":"http/1.1","remoteIPAddress":"127.0.0.1","headers":{"Content-Type":"application/json","Content-Length":"11"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
	})
	if len(got) != 1 {
		t.Fatalf("got %d exchanges, want 1", len(got))
	}
	ex := got[0]
	if string(ex.ReqBody) != binary {
		t.Errorf("request body %q, want %q", ex.ReqBody, binary)
	}
	if ex.ReqHeader.Get("Cookie") != "a=b" || ex.ReqHeader.Get("Content-Length") != "4" {
		t.Errorf("request headers are not the wire headers: %v", ex.ReqHeader)
	}
	if string(ex.RespBody) != `{"ok":true}` || ex.Status != 200 || ex.RemoteIP != "127.0.0.1" {
		t.Errorf("response: status %d ip %q body %q", ex.Status, ex.RemoteIP, ex.RespBody)
	}
	if ex.Started.Unix() != 1700000000 {
		t.Errorf("started %v, want the event's wall time", ex.Started)
	}
	if c := b.Sent("Network.streamResourceContent"); len(c) != 0 {
		t.Errorf("a small body of a worker's fetch was streamed: %v", c)
	}
}

func TestRecorderStreamsLargeBodies(t *testing.T) {
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		switch method {
		case "Network.streamResourceContent":
			return map[string]any{"bufferedData": b64("first-")}, nil
		case "Network.getResponseBody":
			return nil, errors.New("must not take a large body whole")
		}
		return map[string]any{}, nil
	}}
	got := record(t, b, []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"2","request":{"url":"http://example.org/big","method":"GET","headers":{}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"headers":{"Content-Length":"1000"}}}`},
		{Method: "Network.dataReceived", Params: `{"requestId":"2","dataLength":7,"data":"` + b64("second-") + `"}`},
		{Method: "Network.dataReceived", Params: `{"requestId":"2","dataLength":5,"data":"` + b64("third") + `"}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`},
	})
	if len(got) != 1 {
		t.Fatalf("got %d exchanges", len(got))
	}
	body, err := got[0].Body()
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(body)
	if string(all) != "first-second-third" || got[0].BodyLen() != 18 {
		t.Errorf("streamed body %q (length %d)", all, got[0].BodyLen())
	}
}

// Data that arrives while the browser has not yet answered the request to stream goes
// after what it had buffered, in order.
func TestRecorderStreamingKeepsOrderWhileAwaitingTheBuffer(t *testing.T) {
	release := make(chan struct{})
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.streamResourceContent" {
			<-release
			return map[string]any{"bufferedData": b64("1-")}, nil
		}
		return map[string]any{}, nil
	}}
	r := recorder.NewRecorder(b)
	r.StreamThreshold = 10
	r.BodyLimit = 7
	var got *recorder.Exchange
	done := make(chan struct{})
	r.OnExchange = func(ex *recorder.Exchange) { got = ex; close(done) }
	ctx := context.Background()
	for _, ev := range []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"s","request":{"url":"http://example.org/v","method":"GET","headers":{}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"s","response":{"status":200,"headers":{"Content-Length":"100"}}}`},
		{Method: "Network.dataReceived", Params: `{"requestId":"s","data":"` + b64("2-") + `"}`},
		// The shim passes body data as bytes, apart from the JSON.
		{Method: "Network.dataReceived", Params: `{"requestId":"s","dataLength":5}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"s"}`},
	} {
		var data []byte
		if ev.Params == `{"requestId":"s","dataLength":5}` {
			data = []byte("3-4-5")
		}
		if err := r.HandleEvent(ctx, recorder.Target{TabID: 1}, ev.Method, json.RawMessage(ev.Params), data); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	<-done
	body, _ := got.Body()
	all, _ := io.ReadAll(body)
	if string(all) != "1-2-3-4" || got.RespTruncated != "length" {
		t.Errorf("body %q truncated %q, want 1-2-3-4 cut at the limit", all, got.RespTruncated)
	}
}

// fakeRouter stores routed data the way the extension's shim does: in chunks under the
// prefix, each cut at the limit, beside what the recorder stores itself.
type fakeRouter struct {
	store   recorder.Store
	browser recorder.Browser // for ReadStream
	mu      sync.Mutex
	routes  map[string]*fakeRoute // by tab and request id
}

type fakeRoute struct {
	prefix string
	limit  int64
	size   int64
	cut    bool
	seq    int
}

func (f *fakeRouter) RouteBody(tab int, id, prefix string, limit int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[fmt.Sprint(tab, " ", id)] = &fakeRoute{prefix: prefix, limit: limit}
}

// data takes an event's data as the shim does, before the recorder sees the event; it
// says whether the data was routed.
func (f *fakeRouter) data(tab int, id string, p []byte) bool {
	return f.feed(fmt.Sprint(tab, " ", id), p)
}

// feed stores p as the route with the key would.
func (f *fakeRouter) feed(key string, p []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.routes[key]
	if r == nil {
		return false
	}
	if r.limit < 0 {
		r.cut = true
		return true
	}
	if r.limit > 0 && r.size+int64(len(p)) > r.limit {
		p, r.cut = p[:max(0, r.limit-r.size)], true
	}
	r.size += int64(len(p))
	f.store.Put(fmt.Sprintf("%s%010d", r.prefix, r.seq), p)
	r.seq++
	return true
}

// ReadStream reads an IO stream of the browser b as the shim does, one IO.read at a
// time.
func (f *fakeRouter) ReadStream(t recorder.Target, handle, prefix string, limit int64) (bool, error) {
	res, err := f.browser.Send(context.Background(), t, "IO.read", map[string]any{"handle": handle, "size": recorder.IOReadSize})
	if err != nil {
		return false, err
	}
	var c struct {
		Data string `json:"data"`
		EOF  bool   `json:"eof"`
	}
	json.Unmarshal(res, &c)
	p, _ := base64.StdEncoding.DecodeString(c.Data)
	f.mu.Lock()
	key := "io " + prefix
	if f.routes[key] == nil {
		f.routes[key] = &fakeRoute{prefix: prefix, limit: limit}
	}
	f.mu.Unlock()
	f.feed(key, p)
	return c.EOF, nil
}

func (f *fakeRouter) EndBody(prefix string) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, r := range f.routes {
		if r.prefix == prefix {
			delete(f.routes, k)
			return r.size, r.cut, nil
		}
	}
	return 0, false, nil
}

// A router takes the streamed data out of the events: the body is what the browser had
// buffered, then what the router stored, in order, cut at the limit as a whole.
func TestRecorderRoutedBody(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  string
		cut   bool
	}{
		{0, "buffered-one-two-three", false},
		{13, "buffered-one-", true},
		{5, "buffe", true},
	} {
		b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
			if method == "Network.streamResourceContent" {
				return map[string]any{"bufferedData": b64("buffered-")}, nil
			}
			return map[string]any{}, nil
		}}
		r := recorder.NewRecorder(b)
		r.StreamThreshold = 10
		r.BodyLimit = tc.limit
		r.Store = capture.NewMemStore()
		router := &fakeRouter{store: r.Store, routes: map[string]*fakeRoute{}}
		r.Router = router
		var got *recorder.Exchange
		done := make(chan struct{})
		r.OnExchange = func(ex *recorder.Exchange) { got = ex; close(done) }
		ctx := context.Background()
		for _, ev := range []struct{ method, params, data string }{
			{"Network.requestWillBeSent", `{"requestId":"s","request":{"url":"http://example.org/v","method":"GET","headers":{}}}`, ""},
			{"Network.responseReceived", `{"requestId":"s","response":{"status":200,"headers":{"Content-Length":"22"}}}`, ""},
			// The host marks the events whose data it took with empty data.
			{"Network.dataReceived", `{"requestId":"s","dataLength":4,"data":""}`, "one-"},
			{"Network.dataReceived", `{"requestId":"s","dataLength":4,"data":""}`, "two-"},
			{"Network.dataReceived", `{"requestId":"s","dataLength":5,"data":""}`, "three"},
			{"Network.loadingFinished", `{"requestId":"s"}`, ""},
		} {
			if ev.data != "" && !router.data(1, "s", []byte(ev.data)) {
				t.Fatal("the streamed body is not routed")
			}
			if err := r.HandleEvent(ctx, recorder.Target{TabID: 1}, ev.method, json.RawMessage(ev.params), nil); err != nil {
				t.Fatal(err)
			}
		}
		<-done
		body, _ := got.Body()
		all, _ := io.ReadAll(body)
		if string(all) != tc.want || got.BodyLen() != int64(len(tc.want)) || (got.RespTruncated == "length") != tc.cut {
			t.Errorf("limit %d: body %q (length %d, truncated %q), want %q", tc.limit, all, got.BodyLen(), got.RespTruncated, tc.want)
		}
		got.Release()
		if keys, _ := r.Store.Keys("spool/"); len(keys) != 0 {
			t.Errorf("limit %d: spooled chunks left after release: %q", tc.limit, keys)
		}
	}
}

// A routed body over wholeLimit that outran its stream: the router keeps none of what
// comes after the miss (it would be of no use), and the body is fetched again, read
// from the browser's IO stream through the router into the store, never through the
// recorder.
func TestRecorderFetchesAgainALargeBodyThatMissedItsStart(t *testing.T) {
	const length = recorder.WholeLimit + 10
	piece := make([]byte, recorder.IOReadSize)
	for i := range piece {
		piece[i] = byte(i)
	}
	first := fmt.Sprintf(`"Content-Length":"%d","ETag":"\"v1\"","Last-Modified":"Mon, 02 Nov 2026 10:00:00 GMT"`, length)
	for _, tc := range []struct {
		name  string
		again map[string]string // the header of the second answer
		note  string            // what the record's note says
		kept  bool
	}{
		{"the same version", map[string]string{"ETag": `"v1"`, "Last-Modified": "Mon, 02 Nov 2026 10:00:00 GMT"}, "this body was fetched again", true},
		{"no validators to compare", map[string]string{}, "this body was fetched again", true},
		{"another ETag", map[string]string{"etag": `"v2"`}, `another version of it (ETag "v2", not "v1")`, false},
		{"another date", map[string]string{"Last-Modified": "Sun, 22 Nov 2026 10:00:00 GMT"}, "another version of it (Last-Modified Sun, 22 Nov 2026", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := 0
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				switch method {
				case "Network.streamResourceContent":
					return map[string]any{"bufferedData": ""}, nil
				case "Network.getResponseBody":
					return nil, errors.New("a body over the browser's limit must not be read whole")
				case "Network.loadNetworkResource":
					return map[string]any{"resource": map[string]any{"success": true, "httpStatusCode": 200, "stream": "io1", "headers": tc.again}}, nil
				case "IO.read":
					n := min(recorder.IOReadSize, length-read)
					read += n
					return map[string]any{"data": base64.StdEncoding.EncodeToString(piece[:n]), "base64Encoded": true, "eof": read == length}, nil
				}
				return map[string]any{}, nil
			}}
			r := recorder.NewRecorder(b)
			r.Store = capture.NewMemStore()
			router := &fakeRouter{store: r.Store, browser: b, routes: map[string]*fakeRoute{}}
			r.Router = router
			var got *recorder.Exchange
			done := make(chan struct{})
			r.OnExchange = func(ex *recorder.Exchange) { got = ex; close(done) }
			ctx := context.Background()
			tab := recorder.Target{TabID: 1}
			if err := r.Enable(ctx, tab); err != nil {
				t.Fatal(err)
			}
			for _, ev := range []struct{ method, params, data string }{
				{"Network.requestWillBeSent", `{"requestId":"s","type":"Fetch","frameId":"F","request":{"url":"http://example.org/big","method":"GET","headers":{}}}`, ""},
				{"Network.responseReceived", `{"requestId":"s","response":{"status":200,"headers":{` + first + `}}}`, ""},
				{"Network.dataReceived", `{"requestId":"s","dataLength":4}`, ""}, // before the stream began
				{"Network.dataReceived", `{"requestId":"s","dataLength":4,"data":""}`, "late"},
				{"Network.loadingFinished", `{"requestId":"s"}`, ""},
			} {
				r.Wait()
				if ev.data != "" && !router.data(1, "s", []byte(ev.data)) {
					t.Fatal("the streamed body is not routed")
				}
				if err := r.HandleEvent(ctx, tab, ev.method, json.RawMessage(ev.params), nil); err != nil {
					t.Fatal(err)
				}
			}
			<-done
			defer got.Release()
			if !strings.Contains(got.RespNote, tc.note) {
				t.Errorf("note %q, want it to say %q", got.RespNote, tc.note)
			}
			if closed := b.Sent("IO.close"); len(closed) != 1 {
				t.Errorf("the stream was closed %d times", len(closed))
			}
			for _, c := range b.Sent("") {
				if strings.HasPrefix(c, "Fetch.") && !strings.HasPrefix(c, "Fetch.disable") {
					t.Errorf("a response was held: %s", c)
				}
			}
			if !tc.kept {
				if got.RespTruncated != "length" || got.BodyLen() != 0 {
					t.Errorf("another version was kept: truncated %q, %d bytes", got.RespTruncated, got.BodyLen())
				}
				return
			}
			if got.RespTruncated != "" || got.BodyLen() != length {
				t.Fatalf("truncated %q, %d bytes", got.RespTruncated, got.BodyLen())
			}
			body, _ := got.Body()
			all, _ := io.ReadAll(body)
			if len(all) != length || !bytes.Equal(all[:recorder.IOReadSize], piece) || !bytes.Equal(all[len(all)-10:], piece[:10]) {
				t.Errorf("body of %d bytes is not what the browser gave", len(all))
			}
		})
	}
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

func TestRecorderMarksHiddenFileBytes(t *testing.T) {
	body := "--X\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\r\n\r\n--X--\r\n"
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.getRequestPostData" {
			return map[string]any{"postData": body}, nil
		}
		return map[string]any{}, nil
	}}
	got := record(t, b, []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"6","request":{"url":"http://example.org/up","method":"POST","headers":{"Content-Type":"multipart/form-data; boundary=X"},"hasPostData":true}}`},
		{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"6","headers":{"Content-Type":"multipart/form-data; boundary=X","Content-Length":"200"}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"6","response":{"status":200,"headers":{}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"6"}`},
	})
	if len(got) != 1 {
		t.Fatalf("got %d exchanges", len(got))
	}
	if !got[0].ReqTruncated || !strings.Contains(got[0].ReqNote, "79 of its 200 bytes") || !strings.Contains(got[0].ReqNote, "file chosen by the user") {
		t.Errorf("hidden file bytes not marked: truncated=%v note=%q", got[0].ReqTruncated, got[0].ReqNote)
	}
}

func TestRecorderMarksBodiesTheBrowserKeeps(t *testing.T) {
	tests := []struct {
		name, answer, note string
	}{
		// A File or Blob sent with XHR or fetch(): the event says there is a body, the
		// browser gives none of it.
		{"blob", "No post data available for the request", "request body hidden by the browser (a file or blob the page sent): the archived request body lacks its bytes"},
		{"other error", "Target closed", "request body not available from the browser: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Network.getRequestPostData" {
					return nil, errors.New(tc.answer)
				}
				return map[string]any{}, nil
			}}
			got := record(t, b, []recordertest.Event{
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"7","request":{"url":"http://example.org/ajax?qqfile=a.png","method":"POST","headers":{"Content-Type":"application/octet-stream"},"hasPostData":true}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"7","response":{"status":200,"headers":{}}}`},
				{Method: "Network.loadingFinished", Params: `{"requestId":"7"}`},
			})
			if len(got) != 1 {
				t.Fatalf("got %d exchanges", len(got))
			}
			if !got[0].ReqTruncated || !strings.HasPrefix(got[0].ReqNote, tc.note) || len(got[0].ReqBody) != 0 {
				t.Errorf("truncated=%v note=%q body=%q, want truncated, a note beginning %q", got[0].ReqTruncated, got[0].ReqNote, got[0].ReqBody, tc.note)
			}
		})
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

// TestRecorderOnAPage: a page keeps its bodies past navigation (durable messages), and
// while it loads no response of it is held (no Fetch domain). The types that may carry
// large bodies are streamed from their request on, through redirects; the others are
// read whole when they finish. A stream that missed the start of its body gives way to
// reading it whole, unless the body is too large to read whole; an image whose body
// the browser dropped is fetched again, and the record says so. So is a GET body too
// large to read whole, streamed as it is read. A body fetched again is kept only if it
// comes back the same length and version. Nothing is ever held (no Fetch domain).
func TestRecorderOnAPage(t *testing.T) {
	const hugeLength = recorder.WholeLimit + 10
	zeros := make([]byte, recorder.IOReadSize)
	reads := map[string]int{} // stream handle -> bytes handed out
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		switch method {
		case "Network.streamResourceContent":
			return map[string]any{"bufferedData": ""}, nil
		case "Network.getResponseBody":
			switch p["requestId"] {
			case "img", "img2":
				return map[string]any{"body": "", "base64Encoded": true}, nil
			case "huge":
				return nil, errors.New("a body over the browser's limit must not be read whole")
			}
			return map[string]any{"body": b64("whole " + p["requestId"].(string)), "base64Encoded": true}, nil
		case "Network.loadNetworkResource":
			// The server has another version of img2 by now.
			return map[string]any{"resource": map[string]any{"success": true, "httpStatusCode": 200, "stream": p["url"], "headers": map[string]any{"ETag": `"b"`}}}, nil
		case "IO.read":
			switch h := p["handle"].(string); h {
			case "http://example.org/huge":
				n := min(recorder.IOReadSize, hugeLength-reads[h])
				reads[h] += n
				return map[string]any{"data": base64.StdEncoding.EncodeToString(zeros[:n]), "base64Encoded": true, "eof": reads[h] == hugeLength}, nil
			case "http://example.org/changed":
				return map[string]any{"data": "not the same", "eof": true}, nil
			}
			return map[string]any{"data": b64("image bytes"), "base64Encoded": true, "eof": true}, nil
		}
		return map[string]any{}, nil
	}}
	r := recorder.NewRecorder(b)
	var mu sync.Mutex
	got := map[string]*recorder.Exchange{}
	r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got[ex.URL] = ex; mu.Unlock() }
	ctx := context.Background()
	tab := recorder.Target{TabID: 3}
	if err := r.Enable(ctx, tab); err != nil {
		t.Fatal(err)
	}
	if len(b.Sent("Network.configureDurableMessages")) != 1 || len(b.Sent("Fetch.enable")) != 0 {
		t.Errorf("commands to enable a page: %v", b.Sent(""))
	}
	url := func(id string) string { return "http://example.org/" + id }
	req := func(id, typ string) recordertest.Event {
		return recordertest.Event{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(`{"requestId":%q,"type":%q,"frameId":"F","request":{"url":%q,"method":"GET","headers":{}}}`, id, typ, url(id))}
	}
	resp := func(id string, length int) recordertest.Event {
		h := "{}"
		if length > 0 {
			h = fmt.Sprintf(`{"Content-Length":"%d"}`, length)
		}
		return recordertest.Event{Method: "Network.responseReceived", Params: fmt.Sprintf(`{"requestId":%q,"response":{"status":200,"headers":%s}}`, id, h)}
	}
	data := func(id, d string) recordertest.Event {
		return recordertest.Event{Method: "Network.dataReceived", Params: fmt.Sprintf(`{"requestId":%q,"dataLength":%d,"data":%q}`, id, len(d), b64(d))}
	}
	arrived := func(id string, n int) recordertest.Event {
		return recordertest.Event{Method: "Network.dataReceived", Params: fmt.Sprintf(`{"requestId":%q,"dataLength":%d}`, id, n)}
	}
	fin := func(id string) recordertest.Event {
		return recordertest.Event{Method: "Network.loadingFinished", Params: fmt.Sprintf(`{"requestId":%q}`, id)}
	}
	for _, ev := range []recordertest.Event{
		req("font", "Font"), resp("font", 0), arrived("font", 4), fin("font"),
		req("xhr", "XHR"), resp("xhr", 0), data("xhr", "streamed"), fin("xhr"),
		req("late", "Fetch"), resp("late", 0), arrived("late", 5), data("late", "rest"), fin("late"),
		req("img", "Image"), resp("img", 0), arrived("img", 11), fin("img"),
		req("img2", "Image"), {Method: "Network.responseReceived", Params: `{"requestId":"img2","response":{"status":200,"headers":{"ETag":"\"a\""}}}`}, arrived("img2", 11), fin("img2"),
		req("huge", "Media"), arrived("huge", 1), resp("huge", hugeLength), data("huge", "rest"), fin("huge"),
		req("changed", "Media"), arrived("changed", 1), resp("changed", hugeLength), fin("changed"),
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"upload","type":"Fetch","request":{"url":"http://example.org/upload","method":"POST","headers":{}}}`},
		arrived("upload", 1), resp("upload", hugeLength), fin("upload"),
		req("doc", "Document"),
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"doc","type":"Document","request":{"url":"http://example.org/doc2","method":"GET","headers":{}},"redirectResponse":{"status":302,"headers":{"Location":"/doc2"}}}`},
		resp("doc", 0), data("doc", "page"), fin("doc"),
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"M","url":"http://example.org/doc2"}}`},
		req("next", "XHR"), resp("next", 0), data("next", "again"), fin("next"),
	} {
		if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
			t.Fatal(err)
		}
		r.Wait()
	}
	body := func(id string) string {
		ex := got[url(id)]
		if ex == nil {
			t.Fatalf("%s: not recorded", id)
		}
		rd, err := ex.Body()
		if err != nil {
			t.Fatal(err)
		}
		all, _ := io.ReadAll(rd)
		return string(all)
	}
	for id, want := range map[string]string{"font": "whole font", "xhr": "streamed", "late": "whole late", "img": "image bytes", "img2": "", "huge": string(make([]byte, hugeLength)), "changed": "", "upload": "", "doc2": "page", "next": "again"} {
		if b := body(id); b != want {
			t.Errorf("%s: body of %d bytes %.20q, want %d bytes %.20q", id, len(b), b, len(want), want)
		}
	}
	if ex := got[url("img")]; !strings.Contains(ex.RespNote, "fetched again") || ex.RespTruncated != "" {
		t.Errorf("image fetched again: note %q, truncated %q", ex.RespNote, ex.RespTruncated)
	}
	if ex := got[url("img2")]; ex.RespTruncated != "unspecified" || !strings.Contains(ex.RespNote, `another version of it (ETag "b", not "a")`) {
		t.Errorf("image fetched again in another version: note %q, truncated %q", ex.RespNote, ex.RespTruncated)
	}
	if ex := got[url("huge")]; ex.RespTruncated != "" || !strings.Contains(ex.RespNote, "fetched again") {
		t.Errorf("large body that missed its start: note %q, truncated %q", ex.RespNote, ex.RespTruncated)
	}
	if ex := got[url("changed")]; ex.RespTruncated != "length" || !strings.Contains(ex.RespNote, fmt.Sprintf("gave 12 bytes, not the %d of the response", hugeLength)) {
		t.Errorf("large body fetched again, not the same: note %q, truncated %q", ex.RespNote, ex.RespTruncated)
	}
	if ex := got[url("upload")]; ex.RespTruncated != "length" || !strings.Contains(ex.RespNote, "not kept") {
		t.Errorf("large answer to a POST that missed its start: note %q, truncated %q", ex.RespNote, ex.RespTruncated)
	}
	if ex := got[url("doc")]; ex == nil || ex.Status != 302 || !ex.Redirected {
		t.Errorf("redirect hop: %+v", ex)
	}
	streamed := map[string]int{}
	for _, c := range b.Sent("Network.streamResourceContent") {
		streamed[strings.TrimPrefix(c, "Network.streamResourceContent ")]++
	}
	if len(streamed) != 7 || streamed["xhr"] != 1 || streamed["late"] != 1 || streamed["huge"] != 1 || streamed["changed"] != 1 || streamed["upload"] != 1 || streamed["doc"] != 1 || streamed["next"] != 1 {
		t.Errorf("streamed: %v, want xhr, late, huge, changed, upload, doc (once, through its redirect) and next", streamed)
	}
	if held := b.Sent("Fetch.enable"); len(held) != 0 {
		t.Errorf("responses held: %q", held)
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

// A page left at once often never hears the end of its bodies: when the browser gives
// or streamed all the bytes the server declared, the body is archived unmarked.
func TestRecorderKeepsWholeBodiesOfPagesLeft(t *testing.T) {
	for _, tt := range []struct {
		name, given string
		whole       bool
	}{
		{"the browser gives it whole", "12345", true},
		{"the browser gives part of it", "12", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
				if method == "Network.getResponseBody" {
					return map[string]any{"body": tt.given}, nil
				}
				return map[string]any{}, nil
			}}
			r := recorder.NewRecorder(b)
			var got []*recorder.Exchange
			var mu sync.Mutex
			r.OnExchange = func(ex *recorder.Exchange) { mu.Lock(); got = append(got, ex); mu.Unlock() }
			ctx, tab := context.Background(), recorder.Target{TabID: 7}
			for _, ev := range []recordertest.Event{
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","frameId":"F","loaderId":"L1","type":"Image","request":{"url":"http://example.org/a.png","method":"GET","headers":{}}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Length":"5"}}}`},
				{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://example.org/next"}}`},
			} {
				if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
					t.Fatal(err)
				}
			}
			r.Wait()
			r.ReadLeftBodies(ctx, 7)
			r.Wait()
			r.Detached(ctx, tab, "recording stopped")
			r.Wait()
			if len(got) != 1 {
				t.Fatalf("got %d exchanges", len(got))
			}
			ex := got[0]
			if tt.whole && (string(ex.RespBody) != "12345" || ex.RespTruncated != "" || !strings.Contains(ex.RespNote, "gave all 5 bytes")) {
				t.Errorf("body %q, Truncated %q, note %q", ex.RespBody, ex.RespTruncated, ex.RespNote)
			}
			if !tt.whole && (ex.RespTruncated != "disconnect" || !strings.HasPrefix(ex.RespNote, recorder.WhyPageLeft)) {
				t.Errorf("a part kept unmarked: body %q, Truncated %q, note %q", ex.RespBody, ex.RespTruncated, ex.RespNote)
			}
		})
	}
	// A body streamed whole, whose end was never reported, is kept unmarked.
	b := &recordertest.Browser{Answer: func(method string, p map[string]any) (any, error) {
		if method == "Network.streamResourceContent" {
			return map[string]any{"bufferedData": b64("<html>")}, nil
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
	for _, ev := range []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"d","frameId":"F","loaderId":"L1","type":"Document","request":{"url":"http://example.org/","method":"GET","headers":{}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"d","response":{"status":200,"headers":{"Content-Length":"13"}}}`},
		{Method: "Network.dataReceived", Params: `{"requestId":"d","dataLength":7,"data":"` + b64("</html>") + `"}`},
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","loaderId":"L2","url":"http://example.org/next"}}`},
	} {
		if err := r.HandleEvent(ctx, tab, ev.Method, json.RawMessage(ev.Params), nil); err != nil {
			t.Fatal(err)
		}
		r.Wait()
	}
	r.Detached(ctx, tab, "recording stopped")
	r.Wait()
	if got == nil || string(got.RespBody) != "<html></html>" || got.RespTruncated != "" || !strings.Contains(got.RespNote, "all 13 bytes the server declared had arrived") {
		t.Errorf("streamed whole: %+v", got)
	}
}
