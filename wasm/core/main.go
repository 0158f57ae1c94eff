//go:build js && wasm

// Command core is webkeep's service-worker core, compiled to WebAssembly. The service
// worker's shim (extension/sw.js) instantiates it once and hands it every debugger and
// tab event and every request for /api/...; the core calls back into the shim's host
// object for what only JavaScript can do (chrome.debugger, IndexedDB, the badge).
// Firefox's background page (extension-firefox/background.js) runs the same core and
// hands it webRequest events instead, which it turns into the debugger's (firefox.go).
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
	"syscall/js"

	"github.com/webkeep/webkeep/shared/capture"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/wacz"
	"github.com/webkeep/webkeep/shared/webrequest"
	"github.com/webkeep/webkeep/wasm/jsfetch"
	"github.com/webkeep/webkeep/wasm/jsglue"
	"github.com/webkeep/webkeep/wasm/jspromise"
	"github.com/webkeep/webkeep/wasm/webcrypto"
)

func main() {
	// Wasm memory grows with the Go heap and never shrinks: collect sooner than the
	// default (heap at twice what is live), and hard near a ceiling, so writing a large
	// record (an 8 MB segment, its compressor, 4 MB store chunks) leaves it small. The
	// ceiling is above what a loaded URL database keeps live (tens of MB at the 32 MiB
	// limit): a live heap over it would have the collector run without end, and every
	// request wait on it.
	mark("webkeep: main")
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryLimit)
	host := js.Global().Get("webkeepHost")
	if host.IsUndefined() {
		panic("core: globalThis.webkeepHost is not defined by the service worker")
	}
	h := &jsHost{v: host}
	if host.Get("firefox").Truthy() {
		h.firefox = &firefox{t: webrequest.NewTranslator()}
	}
	svc, err := capture.NewService(&jsStore{v: host.Get("store")}, h)
	if err != nil {
		js.Global().Get("console").Call("error", "webkeep core: "+err.Error())
		return
	}
	mark("webkeep: service")
	handler := svc.Handler()
	ctx := context.Background()
	// A recording whose tabs are gone (the browser was closed or killed while it
	// recorded) is closed before anything is answered: no page shows a phantom one.
	if err := svc.Reconcile(ctx); err != nil {
		js.Global().Get("console").Call("error", "webkeep core: "+err.Error())
	}
	mark("webkeep: reconciled")

	api := js.Global().Get("Object").New()
	// event(tabId, sessionId, method, paramsJSON, bytes): a chrome.debugger event; bytes,
	// when not null, is the body data the shim took out of the params.
	api.Set("event", js.FuncOf(func(this js.Value, args []js.Value) any {
		t := recorder.Target{TabID: args[0].Int(), Session: optString(args[1])}
		var data []byte
		if len(args) > 4 && args[4].Type() == js.TypeObject {
			data = jsglue.Bytes(args[4])
		}
		svc.Event(ctx, t, args[2].String(), json.RawMessage(args[3].String()), data)
		return nil
	}))
	// detached(tabId, reason): chrome.debugger.onDetach.
	api.Set("detached", js.FuncOf(func(this js.Value, args []js.Value) any {
		tab, reason := args[0].Int(), args[1].String()
		svc.TabDetached(ctx, tab, reason)
		return nil
	}))
	// takenOff(tabId): chrome.debugger.onDetach for a tab still open after it (the
	// browser took the debugger off it, as it does for its PDF viewer).
	api.Set("takenOff", js.FuncOf(func(this js.Value, args []js.Value) any {
		svc.TabTakenOff(ctx, args[0].Int())
		return nil
	}))
	// tabCreated(tabId, openerTabId): chrome.tabs.onCreated.
	api.Set("tabCreated", js.FuncOf(func(this js.Value, args []js.Value) any {
		tab, opener := args[0].Int(), args[1].Int()
		svc.TabCreated(ctx, tab, opener)
		return nil
	}))
	// handle(request): a fetch Request for /api/..., answered with a Response promise.
	api.Set("handle", js.FuncOf(func(this js.Value, args []js.Value) any {
		return jsglue.Serve(handler, args[0])
	}))
	// underway(): a promise of what a stop of the core now would lose of the recording
	// (underwayJSON): the shim keeps it where a restarted core finds it.
	// It answers with a promise: the service's lock it takes may be held by a goroutine
	// waiting for the store, which a callback blocking the event loop would deadlock.
	api.Set("underway", js.FuncOf(func(this js.Value, args []js.Value) any {
		return jsglue.Promise(func() (any, error) { return underwayJSON(svc), nil })
	}))
	// stoppedUnderway(json): the last underway() of a core whose process stopped, with
	// the events the shim still held for it: archived in its session
	// (capture.Service.StoppedUnderway).
	api.Set("stoppedUnderway", js.FuncOf(func(this js.Value, args []js.Value) any {
		var u underwayRecording
		if err := json.Unmarshal([]byte(args[0].String()), &u); err != nil {
			js.Global().Get("console").Call("error", "webkeep core: what a stopped worker had under way: "+err.Error())
			return nil
		}
		go func() {
			if err := svc.StoppedUnderway(u.Session, u.URLs, u.More, u.Events); err != nil {
				js.Global().Get("console").Call("error", "webkeep core: "+err.Error())
			}
		}()
		return nil
	}))
	// maxLostNotes: how many of the requests a stop lost StoppedUnderway names each in
	// a record; the shim keeps as many URLs, and counts the rest.
	api.Set("maxLostNotes", capture.MaxLostNotes)
	// archivedPrefixes: how the URLs of what the core records begin; the shim keeps
	// no other URL as under way (a data: image is never recorded, nor lost).
	api.Set("archivedPrefixes", jsList(recorder.ArchivedPrefixes))
	// fields: the debugger events the core acts on, each with the fields of its params
	// that the core reads (recorder.EventFields); the shim drops the rest.
	api.Set("fields", recorder.EventFields())
	// urgent: the events the page waits on, to hand over ahead of the others.
	api.Set("urgent", jsList(recorder.UrgentEvents))
	// afterQueued: those of them that go only after every event the shim holds.
	api.Set("afterQueued", jsList(recorder.UrgentAfterQueued))
	// streamedTypes: the resource types whose requests' urgent events never wait (the
	// others' may: recorder.QueuedRequest).
	api.Set("streamedTypes", jsList(recorder.StreamedTypes()))
	// stopPaths: the API paths while whose answer the shim hands each event over at
	// once (capture.StopPaths).
	api.Set("stopPaths", jsList(capture.StopPaths))
	// pacing: how the shim hands the other events over (recorder.Pacing).
	api.Set("pacing", map[string]any{
		"quietMs":   recorder.DefaultPacing.Quiet.Milliseconds(),
		"lateMs":    recorder.DefaultPacing.Late.Milliseconds(),
		"heldMax":   recorder.DefaultPacing.HeldMax,
		"holdMs":    recorder.DefaultPacing.Hold.Milliseconds(),
		"arrivalMs": recorder.DefaultPacing.Arrival.Milliseconds(),
	})
	if h.firefox != nil {
		h.firefox.svc, h.firefox.ctx = svc, ctx
		h.firefox.register(api)
	}
	js.Global().Set("webkeepCore", api)
	if ready := js.Global().Get("webkeepCoreReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// underwayJSON says what a stop of the core now would lose of the recording
// (capture.Service.Underway), as the JSON of an underwayRecording, or "" when
// nothing is recorded.
func underwayJSON(svc *capture.Service) string {
	session, urls := svc.Underway()
	if session == "" {
		return ""
	}
	u := underwayRecording{Session: session, URLs: urls}
	if len(urls) > capture.MaxLostNotes {
		u.URLs, u.More = urls[:capture.MaxLostNotes], len(urls)-capture.MaxLostNotes
	}
	b, err := json.Marshal(u)
	if err != nil {
		return ""
	}
	return string(b)
}

// underwayRecording is what a stop of the core would lose of a recording (underway):
// the URLs of the first capture.MaxLostNotes requests under way, and a count of those
// left out (more); and, from the shim, the events it held for the core (events).
type underwayRecording struct {
	Session string   `json:"session"`
	URLs    []string `json:"urls"`
	More    int      `json:"more,omitempty"`
	Events  int      `json:"events,omitempty"`
}

const (
	gcPercent   = 25
	memoryLimit = 128 << 20
)

// jsList returns list as js.ValueOf takes a list, for an Array of strings.
func jsList(list []string) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

// mark records a step of the core's start with performance.mark, where there is one:
// "webkeep: main" once the Go runtime and every package's init have run, "webkeep:
// service" once the service has read its settings and sessions from the store,
// "webkeep: reconciled" once a recording whose tabs are gone is closed.
func mark(name string) {
	if p := js.Global().Get("performance"); p.Truthy() && p.Get("mark").Type() == js.TypeFunction {
		p.Call("mark", name)
	}
}

func optString(v js.Value) string {
	if v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

// jsHost is capture.Host over the shim's host object. It makes the core's own HTTP
// requests (the team archive, Check all, site files) with the browser's fetch, so the
// core links none of net/http's client.
type jsHost struct {
	v js.Value
	// firefox, when not nil, says the host is Firefox's background page, which has no
	// debugger: the core answers the commands Firefox needs nothing for, and those
	// its translator knows the answer to (webrequest Translator.Answer).
	firefox *firefox
	jsfetch.Client
}

// The service makes its HTTP requests through a host that is a urldb.Doer.
var _ urldb.Doer = (*jsHost)(nil)

func (h *jsHost) Send(ctx context.Context, t recorder.Target, method string, params any) (json.RawMessage, error) {
	if h.firefox != nil {
		if result, ok, err := h.firefox.answer(t.TabID, method); ok {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			return result, nil
		}
	}
	p := "{}"
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		p = string(b)
	}
	sent := h.v.Call("send", t.TabID, jsSession(t), method, p)
	type answer struct {
		v   js.Value
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		v, err := jspromise.Await(sent)
		answered <- answer{v, err}
	}()
	select {
	case a := <-answered:
		if a.err != nil {
			return nil, fmt.Errorf("%s: %w", method, a.err)
		}
		return json.RawMessage(a.v.String()), nil
	case <-ctx.Done():
		// The browser may still answer; the answer is dropped.
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// jsSession is a target's DevTools session for the shim: null for the tab itself.
func jsSession(t recorder.Target) any {
	if t.Session == "" {
		return js.Null()
	}
	return t.Session
}

func (h *jsHost) Attach(ctx context.Context, tabID int) error {
	held, err := jspromise.Await(h.v.Call("attach", tabID))
	if err == nil && h.firefox != nil {
		// Firefox's page says whether it held every request of the tab until now.
		h.firefox.attached(tabID, held.Truthy())
	}
	return err
}

func (h *jsHost) Detach(ctx context.Context, tabID int) error {
	_, err := jspromise.Await(h.v.Call("detach", tabID))
	return err
}

func (h *jsHost) Badge(tabID int, text string) { h.v.Call("badge", tabID, text) }

// WACZSigner signs the WACZ downloads with the browser's key, which WebCrypto makes
// the first time and IndexedDB keeps, not extractable (capture.SigningHost).
func (h *jsHost) WACZSigner() (wacz.Signer, error) {
	s, err := webcrypto.WACZSigner()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenTabs lists the browser's tabs (capture.TabLister): the shim answers the ids
// chrome.tabs.query gives and the page targets chrome.debugger.getTargets gives.
func (h *jsHost) OpenTabs(ctx context.Context) ([]capture.OpenTab, error) {
	v, err := jspromise.Await(h.v.Call("tabs"))
	if err != nil {
		return nil, fmt.Errorf("listing tabs: %w", err)
	}
	var answer struct {
		Tabs    []int `json:"tabs"`
		Targets []struct {
			TabID    int    `json:"tabId"`
			ID       string `json:"id"`
			Attached bool   `json:"attached"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(v.String()), &answer); err != nil {
		return nil, fmt.Errorf("listing tabs: %w", err)
	}
	open := make([]capture.OpenTab, len(answer.Tabs))
	for i, id := range answer.Tabs {
		open[i].ID = id
		for _, t := range answer.Targets {
			if t.TabID == id {
				open[i].Target, open[i].Attached = t.ID, t.Attached
			}
		}
	}
	return open, nil
}

// RouteBody has the shim put a streamed body's data in IndexedDB as its events arrive
// (recorder.BodyRouter): the bytes do not cross into Go's memory, which never shrinks.
func (h *jsHost) RouteBody(tabID int, requestID, prefix string, limit int64) {
	h.v.Get("body").Call("route", tabID, requestID, prefix, float64(limit))
}

// ReadStream has the shim read a piece of a DevTools IO stream into IndexedDB, as it
// does a routed body's events (recorder.BodyRouter).
func (h *jsHost) ReadStream(t recorder.Target, handle, prefix string, limit int64) (bool, error) {
	if h.firefox != nil {
		return false, fmt.Errorf("IO.read: %w", webrequest.ErrNoStreams)
	}
	v, err := jspromise.Await(h.v.Get("body").Call("read", t.TabID, jsSession(t), handle, prefix, float64(limit)))
	if err != nil {
		return false, fmt.Errorf("IO.read: %w", err)
	}
	return v.Truthy(), nil
}

func (h *jsHost) EndBody(prefix string) (int64, bool, error) {
	v, err := jspromise.Await(h.v.Get("body").Call("end", prefix))
	if err != nil {
		return 0, false, fmt.Errorf("streamed body %s: %w", prefix, err)
	}
	return int64(v.Get("size").Float()), v.Get("cut").Truthy(), nil
}

// jsStore is capture.Store over the shim's IndexedDB store.
type jsStore struct {
	v js.Value
	// scratch carries values into JavaScript, which copies them before put returns:
	// one array, not a new one per value for the garbage collector to find.
	scratch js.Value
	size    int
	mu      sync.Mutex
	free    []js.Value // arrays for Get to read into
}

func (s *jsStore) Put(key string, value []byte) error {
	return s.PutBatch([]string{key}, [][]byte{value})
}

// readBuffer is the size of the arrays large values are read into, reused: a
// streamed body's chunks (1 MB) fit.
const readBuffer = 1 << 20

// PutBatch puts the values in one IndexedDB transaction (capture.BatchStore), carried
// into JavaScript, which copies them before putAll returns, through the scratch array.
func (s *jsStore) PutBatch(keys []string, values [][]byte) error {
	total := 0
	for _, v := range values {
		total += len(v)
	}
	if total > s.size {
		s.size = max(total, 64<<10)
		s.scratch = js.Global().Get("Uint8Array").New(s.size)
	}
	jk, jv := make([]any, len(keys)), make([]any, len(values))
	at := 0
	for i, v := range values {
		a := s.scratch.Call("subarray", at, at+len(v))
		js.CopyBytesToJS(a, v)
		jk[i], jv[i] = keys[i], a
		at += len(v)
	}
	if _, err := jspromise.Await(s.v.Call("putAll", jk, jv)); err != nil {
		if len(keys) > 1 {
			return fmt.Errorf("store put %s and %d more: %w", keys[0], len(keys)-1, err)
		}
		return fmt.Errorf("store put %s: %w", keys[0], err)
	}
	return nil
}

func (s *jsStore) Get(key string) ([]byte, error) {
	var into js.Value
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		into, s.free = s.free[n-1], s.free[:n-1]
	}
	s.mu.Unlock()
	if into.IsUndefined() {
		into = js.Global().Get("Uint8Array").New(readBuffer)
	}
	v, err := jspromise.Await(s.v.Call("get", key, into))
	if into.Get("byteLength").Int() == 0 && err == nil && !v.IsNull() && !v.IsUndefined() {
		// Read into it: its buffer went to the result.
		into = js.Global().Get("Uint8Array").New(v.Get("buffer"))
	}
	defer func() {
		s.mu.Lock()
		if into.Get("byteLength").Int() == readBuffer && len(s.free) < 4 {
			s.free = append(s.free, into)
		}
		s.mu.Unlock()
	}()
	if err != nil {
		return nil, fmt.Errorf("store get %s: %w", key, err)
	}
	if v.IsNull() || v.IsUndefined() {
		return nil, notFound(key)
	}
	return jsglue.Bytes(v), nil
}

// notFound is the error of a key the store does not hold: capture.ErrNotFound, with the
// key. It is made without fmt: a cold start reads the settings and the state, which a
// store may not hold, and would otherwise compile fmt's formatting (33 KB of wasm, of
// the 1.2 MB a cold start compiles; BENCHMARKS.md) only to say so.
type notFound string

func (k notFound) Error() string { return capture.ErrNotFound.Error() + ": " + string(k) }

func (k notFound) Unwrap() error { return capture.ErrNotFound }

func (s *jsStore) Keys(prefix string) ([]string, error) {
	v, err := jspromise.Await(s.v.Call("keys", prefix))
	if err != nil {
		return nil, fmt.Errorf("store keys %s: %w", prefix, err)
	}
	keys := make([]string, v.Length())
	for i := range keys {
		keys[i] = v.Index(i).String()
	}
	return keys, nil
}

// Scan reads the keys with the prefix and their values in one IndexedDB
// transaction (capture.BulkStore).
func (s *jsStore) Scan(prefix string) ([]string, [][]byte, error) {
	v, err := jspromise.Await(s.v.Call("scan", prefix))
	if err != nil {
		return nil, nil, fmt.Errorf("store scan %s: %w", prefix, err)
	}
	all, err := unpack(v)
	if err != nil {
		return nil, nil, fmt.Errorf("store scan %s: %w", prefix, err)
	}
	n := len(all) / 2
	keys := make([]string, n)
	for i := range keys {
		keys[i] = string(all[i])
	}
	return keys, all[n:], nil
}

// GetMany reads the values under keys in one IndexedDB transaction
// (capture.BulkStore): nil for a key the store does not hold.
func (s *jsStore) GetMany(keys []string) ([][]byte, error) {
	jk := make([]any, len(keys))
	for i, k := range keys {
		jk[i] = k
	}
	v, err := jspromise.Await(s.v.Call("getMany", jk))
	if err == nil {
		var out [][]byte
		if out, err = unpack(v); err == nil && len(out) != len(keys) {
			err = fmt.Errorf("%d values for %d keys", len(out), len(keys))
		}
		if err == nil {
			return out, nil
		}
	}
	return nil, fmt.Errorf("store get %d keys: %w", len(keys), err)
}

// unpack reads what the shim's store packed: {bytes, lengths}, the values one after
// the other and their lengths as little-endian int32s, -1 for a missing value
// (nil). Two copies, whatever the number of values.
func unpack(v js.Value) ([][]byte, error) {
	bytes, lengths := jsglue.Bytes(v.Get("bytes")), jsglue.Bytes(v.Get("lengths"))
	out := make([][]byte, len(lengths)/4)
	at := 0
	for i := range out {
		n := int(int32(binary.LittleEndian.Uint32(lengths[4*i:])))
		if n < 0 {
			continue
		}
		if at+n > len(bytes) {
			return nil, fmt.Errorf("packed values: %d bytes, lengths to %d", len(bytes), at+n)
		}
		out[i] = bytes[at : at+n : at+n]
		at += n
	}
	return out, nil
}

func (s *jsStore) Delete(prefix string) error {
	_, err := jspromise.Await(s.v.Call("delete", prefix))
	if err != nil {
		return fmt.Errorf("store delete %s: %w", prefix, err)
	}
	return nil
}
