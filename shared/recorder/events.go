package recorder

// The events the recorder acts on: HandleEvent finds an event's handler in
// eventHandlers, which decodes its params (wire.go) and calls its method. To act on
// another event, add its params type to wire.go, its handler here (or in the file of
// its concern: leaving.go, passwords.go, upload.go) and a line to eventHandlers; add it
// to UrgentEvents if what follows it must not wait for the others.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/api"
)

// eventHandler decodes the params of one DevTools event and acts on it.
type eventHandler struct {
	// params is the type the params are decoded into: its fields are those read (see
	// EventFields).
	params reflect.Type
	// handle decodes params and acts on them; data is as HandleEvent is given it.
	handle func(r *Recorder, ctx context.Context, t Target, params json.RawMessage, data []byte) error
}

// on returns the handler of an event whose params decode into an E, which act takes.
func on[E any](act func(r *Recorder, ctx context.Context, t Target, ev *E)) eventHandler {
	return eventHandler{
		params: reflect.TypeFor[E](),
		handle: func(r *Recorder, ctx context.Context, t Target, params json.RawMessage, _ []byte) error {
			var ev E
			if err := json.Unmarshal(params, &ev); err != nil {
				return err
			}
			act(r, ctx, t, &ev)
			return nil
		},
	}
}

// eventHandlers maps each event HandleEvent acts on to its handler.
var eventHandlers = map[string]eventHandler{
	"Network.requestWillBeSent":          on((*Recorder).onRequestWillBeSent),
	"Network.requestWillBeSentExtraInfo": on((*Recorder).onRequestExtraInfo),
	"Network.requestServedFromCache":     on((*Recorder).onServedFromCache),
	"Network.responseReceived":           on((*Recorder).onResponseReceived),
	"Network.responseReceivedExtraInfo":  on((*Recorder).onResponseExtraInfo),
	"Network.dataReceived":               {reflect.TypeFor[dataReceived](), (*Recorder).onDataReceived},
	"Network.loadingFinished":            on((*Recorder).onLoadingFinished),
	"Network.loadingFailed":              on((*Recorder).onLoadingFailed),
	"Target.attachedToTarget":            on((*Recorder).onAttachedToTarget),
	"Target.detachedFromTarget":          on((*Recorder).onDetachedFromTarget),
	"Page.frameNavigated":                on((*Recorder).onFrameNavigated),
	"Page.frameStoppedLoading":           on((*Recorder).onFrameStoppedLoading),
	"Page.frameStartedNavigating":        on((*Recorder).onFrameStartedNavigating),
	"Page.loadEventFired":                on((*Recorder).onLoadEventFired),
	"Fetch.requestPaused":                on((*Recorder).onRequestPaused),
	"Runtime.bindingCalled":              {reflect.TypeFor[bindingCalled](), (*Recorder).onBindingCalled},
	"Runtime.executionContextDestroyed":  on((*Recorder).onContextDestroyed),
	"Runtime.executionContextsCleared":   on((*Recorder).onContextsCleared),
}

// UrgentEvents are the events the recorder must act on before what follows them
// arrives: a new request, whose body may have to be streamed before any of it comes,
// with the wire headers of each hop of it (they are matched to hops by their order),
// and a worker or frame, held until it is set up. HandleEvent needs them in order
// among themselves but not with the others, which only ever follow them, so a host
// that queues events should hand these over at once.
//
// Page.frameStoppedLoading is one too: its question about the page's password fields
// must reach the page before a form of it is sent, which a script fills and submits
// within milliseconds of the load (the hurried-login test of
// scripts/test/e2e/realsite.test.mjs found the password archived when it waited its turn).
//
// Runtime.bindingCalled too: the copy of a file a page sends (see uploadScript) comes in
// many of them, which a request that has ended waits for, and which need their order
// among themselves only, and with the two events that say a document is gone
// (Runtime.executionContextDestroyed and executionContextsCleared), which are not
// urgent: a host hands it over only after those it holds (see UrgentAfterQueued).
//
// Page.frameStartedNavigating and Page.loadEventFired too: a navigation that leaves a
// page still loading must have the Fetch domain enabled before the page's last
// requests go (see leftPages).
//
// A request the recorder need not act on at once is the exception: a host may hand all
// of its events, its Network.requestWillBeSent and ExtraInfo included, to HandleEvent
// queued with the others, in their order (see QueuedRequest). The page then pays no
// processor time for them as it loads: on the demo gallery, six of its eight requests.
var UrgentEvents = []string{"Network.requestWillBeSent", "Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo", "Target.attachedToTarget", "Page.frameStoppedLoading", "Runtime.bindingCalled", "Page.frameStartedNavigating", "Page.loadEventFired"}

// UrgentAfterQueued are the urgent events that must also follow every event a host
// holds: it hands over all it holds first, then them. Runtime.bindingCalled, a piece
// of the copy of a file a page sends, keeps so its order with the events that say a
// document is gone (a copy its document began and had not ended fails when they come),
// which then need not be urgent: a page's two Runtime.executionContextsCleared cost it
// nothing as it loads.
var UrgentAfterQueued = []string{"Runtime.bindingCalled"}

// QueuedRequest says whether the request a Network.requestWillBeSent event begins
// (its first hop) needs nothing of the recorder before the events that follow it: it
// sends no body (whose copy and password fields must be asked for while the page
// holds them) and its resource type is none whose body is streamed from its request
// on (see streamedTypes: a stream must begin before the body comes). A host may then
// queue every event of that request with the others, in their order, the urgent ones
// too; the recorder reads each in the order of its own request's events, and a page's
// documents by the order of their requests (see pageLeft), not by the order events
// are handled in. The shim in the browser applies the same rule, given StreamedTypes;
// the ExtraInfo events the browser sends before their request it holds until the
// request comes, then hands them over its way, ahead of it.
func QueuedRequest(resourceType string, hasBody bool) bool {
	return !hasBody && !streamedTypes[resourceType]
}

// StreamedTypes returns the resource types whose requests are never queued (see
// QueuedRequest), sorted.
func StreamedTypes() []string {
	out := make([]string, 0, len(streamedTypes))
	for t := range streamedTypes {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Pacing is how a host that queues events hands the others than UrgentEvents to
// HandleEvent: while the browser is busy sending them (a page is loading), the
// recorder's work would take processor time from the page, so they wait until no event
// has come for Quiet, or Late after the oldest waiting one came, or until they hold
// more than HeldMax bytes of body data; then they go one at a time, each in a task of
// its own, so that what arrives meanwhile does not wait behind a burst of them. A
// request's wire headers (its ExtraInfo events, urgent), which the browser often
// reports before the request, wait for it up to Hold, then go as urgent as they are
// (Chromium's shim, extension/events.js). That a body is still arriving, with none of
// its bytes (a Network.dataReceived without data, or a routed body's progress in
// Firefox), is passed on at most once an Arrival for each request: stopping a
// recording waits for a body while such reports keep coming.
type Pacing struct {
	Quiet, Late time.Duration
	HeldMax     int
	Hold        time.Duration
	Arrival     time.Duration
}

// DefaultPacing is the pacing of the extension's service worker and of its Firefox
// background page (extension/pacing.js).
var DefaultPacing = Pacing{Quiet: 30 * time.Millisecond, Late: time.Second, HeldMax: 4 << 20, Hold: 500 * time.Millisecond, Arrival: time.Second}

// EventFields returns, for each DevTools event HandleEvent acts on, the fields of its
// params that it reads, as a tree: a name maps to true (the whole value) or to the
// tree of the fields read inside it. A host may drop other events, and other fields,
// before they reach the recorder (in the browser, decoding what is never read is most
// of the cost of an event), and may thin out Network.dataReceived events that carry
// no data: they only show that a body is still arriving.
func EventFields() map[string]any {
	out := make(map[string]any, len(eventHandlers))
	for method, h := range eventHandlers {
		out[method] = fieldTree(h.params)
	}
	return out
}

// fieldTree returns the JSON fields a value of type t is decoded from (see EventFields).
func fieldTree(t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return true
	}
	tree := map[string]any{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		tree[name] = fieldTree(f.Type)
	}
	return tree
}

// HandleEvent takes one DevTools event of target t. data, if not nil, is the decoded
// body data of a Network.dataReceived event, passed apart from params so that large
// bodies need not travel as base64 inside JSON. Events it does not act on (see
// EventFields) are ignored.
func (r *Recorder) HandleEvent(ctx context.Context, t Target, method string, params json.RawMessage, data []byte) error {
	h, ok := eventHandlers[method]
	if !ok {
		return nil
	}
	if err := h.handle(r, ctx, t, params, data); err != nil {
		return fmt.Errorf("recorder: %s: %w", method, err)
	}
	return nil
}

// onRequestWillBeSent begins the exchange of a request, finishing the hop before it
// when the request is a redirect's next hop, and begins reading its bodies: the
// response's streamed from the request on when its type may carry a large body on a
// target with durable messages (see streamedTypes), the request's when the browser
// left it out of the event.
func (r *Recorder) onRequestWillBeSent(ctx context.Context, t Target, ev *requestWillBeSent) {
	key := requestKey{t, ev.RequestID}
	r.mu.Lock()
	prev := r.pendingOf(key)
	r.mu.Unlock()
	if prev != nil && ev.RedirectResponse == nil {
		// A new request under the id of one whose end the browser never reported:
		// that one is over, and is kept as it is, marked, not lost.
		r.mu.Lock()
		prev.noWait = true
		left := r.pageLeft(key, prev)
		r.mu.Unlock()
		superseded(prev.ex, left)
		r.finish(ctx, key, prev, false, t)
		prev = nil
	}
	r.mu.Lock()
	// A redirect's next hop has the body streamed for the request, if any.
	var carried *responseBody
	if ts := r.tabs[t.TabID]; ts != nil {
		carried = ts.bodies[key]
		delete(ts.bodies, key)
	}
	r.mu.Unlock()
	if prev != nil && ev.RedirectResponse != nil {
		r.mu.Lock()
		setResponse(prev.ex, ev.RedirectResponse)
		prev.wantExtra = ev.RedirectHasExtraInfo
		prev.ex.Redirected = true
		r.mu.Unlock()
		r.finish(ctx, key, prev, false, t)
	}
	if !archivable(ev.Request.URL) {
		if carried != nil && carried.spool != nil {
			carried.spool.remove()
		}
		return
	}
	p := &pendingExchange{frameID: ev.FrameID, loaderID: ev.LoaderID, ex: &Exchange{
		Started:      wallTime(ev.WallTime),
		Method:       ev.Request.Method,
		URL:          ev.Request.URL,
		ReqHeader:    fieldsFromMap(ev.Request.Headers),
		PageURL:      ev.DocumentURL,
		ResourceType: ev.Type,
	}}
	r.mu.Lock()
	if prev == nil {
		r.requests++
		p.seq = r.requests
	} else {
		p.seq = prev.seq // a redirect's next hop: the navigation began with the first
	}
	ts := r.tab(t.TabID)
	p.navigation = ev.Type == "Document" && ev.RequestID == ev.LoaderID && ev.FrameID != ""
	if p.navigation && prev == nil {
		ts.noteNavigation(ev.FrameID, navigationStart{ev.LoaderID, p.seq})
	}
	r.setPending(key, p)
	r.addHop(key, p)
	if carried != nil {
		ts.bodies[key] = carried
	}
	fromRequest := ts.durable[t.Session]
	r.mu.Unlock()
	if fromRequest && carried == nil && streamedTypes[ev.Type] {
		r.stream(ctx, t, key, true, false)
	}
	r.readRequestBody(ctx, t, key, p, &ev.Request)
	if fromRequest && ev.Request.Method != "GET" && (ev.Request.HasPostData || ev.Request.PostData != nil || len(ev.Request.PostDataEntries) > 0) {
		var asked chan struct{}
		r.mu.Lock()
		if ts := r.tabs[t.TabID]; ts != nil {
			p.ex.PasswordDOM = slices.Clone(ts.passwordNames)
			asked = ts.passwordAsk
		}
		r.mu.Unlock()
		r.askPasswordFields(ctx, t, p, asked)
	}
}

// onRequestExtraInfo queues the request headers a hop sent on the wire.
func (r *Recorder) onRequestExtraInfo(_ context.Context, t Target, ev *requestExtraInfo) {
	r.queueExtra(t, ev.RequestID, func(q *extraQueue) { q.requests = append(q.requests, fieldsFromMap(ev.Headers)) })
}

// onResponseExtraInfo queues the response head a hop received on the wire.
func (r *Recorder) onResponseExtraInfo(_ context.Context, t Target, ev *responseExtraInfo) {
	r.queueExtra(t, ev.RequestID, func(q *extraQueue) { q.responses = append(q.responses, ev.wire()) })
}

// queueExtra handles an ExtraInfo event of request id of t: add puts the headers it
// carries in the queue of the request's hops, which then gives them to the hops
// waiting for them.
func (r *Recorder) queueExtra(t Target, id string, add func(q *extraQueue)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key, _ := r.find(t, id)
	q := r.extraQueue(key)
	add(q)
	q.match()
}

// onResponseReceived puts a response's head in its exchange, and has a large body
// stored as it arrives: routed, if it is streamed since its request, else streamed
// now on a target without durable messages.
func (r *Recorder) onResponseReceived(ctx context.Context, t Target, ev *responseReceived) {
	r.mu.Lock()
	key, p := r.find(t, ev.RequestID)
	if p != nil {
		setResponse(p.ex, &ev.Response)
		p.wantExtra = ev.HasExtraInfo
		switch {
		case ev.Response.FromDiskCache:
			p.cache = "disk"
		case ev.Response.FromPrefetchCache:
			p.cache = "prefetch"
		case ev.Response.WebkeepFromHTTPCache:
			p.cache = httpCache
		}
	}
	body := r.bodyOf(key)
	durable := r.isDurable(key.target)
	r.mu.Unlock()
	switch {
	case p == nil || !r.large(p.ex.RespHeader):
	case body != nil:
		// Streaming since the request: a large body's data is stored as it comes.
		r.route(body, key)
	case !durable:
		// Without durable messages, the browser has buffered the body from its
		// start, and gives that first. With them, a stream that began now would
		// miss the start: the body is read whole when it finishes.
		r.stream(ctx, t, key, false, true)
	}
}

// onServedFromCache notes that the renderer's memory cache answered a request.
func (r *Recorder) onServedFromCache(_ context.Context, t Target, ev *requestServedFromCache) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, p := r.find(t, ev.RequestID); p != nil {
		p.cache = "memory"
	}
}

// onDataReceived notes that some of a response body arrived, and adds its data, if
// the event carries some, to the body's stream. Its params are decoded from params;
// data, if not nil, is the event's data passed apart.
func (r *Recorder) onDataReceived(_ context.Context, t Target, params json.RawMessage, data []byte) error {
	var ev dataReceived
	if err := json.Unmarshal(params, &ev); err != nil {
		return err
	}
	b := data
	if b == nil && ev.Data != nil && *ev.Data != "" {
		var err error
		if b, err = base64.StdEncoding.DecodeString(*ev.Data); err != nil {
			return fmt.Errorf("request %s: data: %w", ev.RequestID, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key, p := r.find(t, ev.RequestID)
	if p != nil && ev.DataLength > 0 {
		p.received = true
	}
	body := r.bodyOf(key)
	switch {
	case body == nil || body.spool == nil:
	case b != nil:
		if body.awaiting {
			body.early = append(body.early, b)
		} else {
			body.spool.Write(b)
		}
	case body.fromRequest && ev.Data == nil && ev.DataLength > 0 && !body.missed:
		// Data the stream does not have: what it gets is of no use.
		body.missed = true
		body.spool.drop(key.target.TabID, ev.RequestID)
	}
	return nil
}

// onLoadingFinished finishes the exchange of a response that ended normally.
func (r *Recorder) onLoadingFinished(ctx context.Context, t Target, ev *loadingFinished) {
	r.mu.Lock()
	key, p := r.find(t, ev.RequestID)
	if p != nil {
		p.endedShown = !r.pageLeft(key, p)
		p.endUnsure = ev.WebkeepEndsEarlyWhenLeft
		r.headFromWire(key, p)
	}
	r.mu.Unlock()
	if p != nil {
		r.finish(ctx, key, p, true, t)
	}
}

// onLoadingFailed labels the exchange of a request that failed, and finishes it.
func (r *Recorder) onLoadingFailed(ctx context.Context, t Target, ev *loadingFailed) {
	r.mu.Lock()
	key, p := r.find(t, ev.RequestID)
	r.mu.Unlock()
	if p == nil {
		return
	}
	// Leaving a page aborts its requests; a request that failed otherwise (a network
	// error) failed, whether or not its page was left before the browser said so.
	aborted := ev.Canceled || ev.ErrorText == "net::ERR_ABORTED"
	r.mu.Lock()
	left := aborted && r.pageLeft(key, p)
	r.mu.Unlock()
	failed(p.ex, ev.ErrorText, ev.Canceled, left)
	r.finish(ctx, key, p, false, t)
}

// onAttachedToTarget sets up a worker or frame the browser attached, on a goroutine
// of its own (see attachChild).
func (r *Recorder) onAttachedToTarget(ctx context.Context, t Target, ev *attachedToTarget) {
	child := Target{TabID: t.TabID, Session: ev.SessionID}
	// The tab's state is there for the child's once it is set up.
	r.mu.Lock()
	r.tab(t.TabID)
	r.mu.Unlock()
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		r.attachChild(ctx, child, ev.TargetInfo.Type, ev.TargetInfo.URL)
	}()
}

// onDetachedFromTarget finishes what is pending for a worker or frame that ended.
func (r *Recorder) onDetachedFromTarget(ctx context.Context, t Target, ev *detachedFromTarget) {
	if ev.SessionID != "" {
		r.Detached(ctx, Target{TabID: t.TabID, Session: ev.SessionID}, "the worker or frame ended")
	}
}

// onFrameNavigated notes the document a frame now shows, and reports a top-level
// navigation of a tab to OnPage.
//
// A document restored from the back/forward cache comes back with the loader id it had
// when it was first loaded, and made no request: its requests still pending (frozen
// while it was cached) are its own again. The restore takes the next number in the
// order of requests, as the request of a navigation that loaded the page anew would:
// a navigation begun before it counts as replaced by it (one handled before it may
// have begun just after it, as urgent events overtake the others).
func (r *Recorder) onFrameNavigated(ctx context.Context, t Target, ev *frameNavigated) {
	restored := ev.Type == "BackForwardCacheRestore"
	if ev.Frame.LoaderID != "" {
		r.mu.Lock()
		ts := r.tab(t.TabID)
		doc := shownDocument{loader: ev.Frame.LoaderID}
		if restored {
			ts.restored[ev.Frame.LoaderID] = true
			r.requests++
			doc.seq = r.requests
		} else {
			for _, n := range ts.navigations[ev.Frame.ID] {
				if n.loader == doc.loader {
					doc.seq = n.seq
				}
			}
		}
		ts.documents[ev.Frame.ID] = doc
		if ev.Frame.ParentID == "" && t.Session == "" {
			ts.left.main = ev.Frame.ID
			if restored {
				// A restored document was loaded when it was left (the browser
				// keeps no page that was still loading), and has no load event
				// again: leaving it opens no window of pauses.
				ts.left.loading = false
			}
		}
		r.mu.Unlock()
	}
	if ev.Frame.ParentID == "" && t.Session == "" {
		r.committed(ctx, t)
	}
	if ev.Frame.ParentID == "" && t.Session == "" && archivable(ev.Frame.URL) && r.OnPage != nil {
		r.OnPage(Page{Page: api.Page{URL: ev.Frame.URL + ev.Frame.Fragment, TS: time.Now().UTC(), TabID: t.TabID, Restored: restored}, FrameID: ev.Frame.ID})
	}
}
