package recorder_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/capture"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

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
