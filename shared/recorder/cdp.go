// Package recorder assembles the events of the Chrome DevTools Protocol into HTTP
// exchanges: each request with its response, headers as they were on the wire, and
// bodies read whole, streamed, or spooled to a Store when large, with notes on what
// is not exact. Its owner (capture.Service) feeds it events and takes its exchanges
// (Recorder.OnExchange).
package recorder

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
)

// Target names one DevTools target: a tab, and within it a child session (a frame or a
// worker attached automatically), empty for the tab itself.
type Target struct {
	TabID   int    `json:"tabId"`
	Session string `json:"sessionId,omitempty"`
}

// covers reports whether other is t, or one of its workers and frames when t is a tab.
func (t Target) covers(other Target) bool {
	return t == other || t.Session == "" && t.TabID == other.TabID
}

// Browser sends DevTools Protocol commands to a target and returns the result object.
// In the extension it is chrome.debugger.sendCommand.
type Browser interface {
	Send(ctx context.Context, t Target, method string, params any) (json.RawMessage, error)
}

// Page is one top-level document the user visited, as the API sends it, and the
// browser's id of its frame, for requests made on its behalf.
type Page struct {
	api.Page
	FrameID string `json:"-"`
}

// DefaultStreamThreshold is the response size above which a streamed body's data is
// stored as it arrives rather than gathered in memory.
const DefaultStreamThreshold = 8 << 20

// Recorder assembles DevTools events into exchanges.
//
// Bodies are read when they finish (Network.getResponseBody); the browser keeps them
// for that even after the page has gone (durable messages), whereas without them a page
// that navigates away drops its bodies. A body larger than StreamThreshold (by
// Content-Length) is instead streamed (Network.streamResourceContent) into a spool in
// the Store as it arrives, so memory stays flat whatever its size. With durable
// messages the browser buffers nothing for a stream to start with, so streaming must
// begin before the body flows: the resource types that carry downloads and data
// (streamedTypes) are streamed from their request on. No response is held
// (interception, the Fetch domain, slows every request of a page, even those it lets
// go at once). A body that outran the request to stream it (a server on the same
// machine or network answers within the moment that takes) is read whole when it
// ends, as the browser gives a body up to wholeLimit; a larger one, of a GET, is
// fetched again, streamed, through the tab's network stack, and its record says so.
//
// Targets without durable messages (workers) stream a large body from its response,
// which the browser has buffered from the start.
// Events must be handed to HandleEvent in the order the browser emitted them, from one
// goroutine; the commands they cause run on goroutines of their own, so a slow command
// never holds the event stream back.
type Recorder struct {
	browser *commandLog // every command goes through it (see WaitAnswered)
	// OnExchange receives every finished exchange: completed, redirected or failed.
	// Calls may come from several goroutines.
	OnExchange func(*Exchange)
	// OnPage receives every top-level navigation.
	OnPage func(Page)
	// OnError receives problems that did not stop recording, for the user to see.
	OnError func(error)
	// OnPageNote receives a note for the archive itself about a page (its URL): what
	// the browser did not let the recorder keep of it that no exchange can carry
	// (requests the browser never reported).
	OnPageNote func(page, note string)
	// StreamThreshold is the Content-Length above which a body is streamed.
	StreamThreshold int64
	// Store keeps streamed bodies until they are written; nil keeps them in memory.
	Store Store
	// BodyLimit cuts streamed bodies after this many bytes (0: no limit).
	BodyLimit int64
	// Router, when set (with Store), takes a streamed body's data from its events and
	// puts it in the Store itself, so the bytes never pass through the recorder.
	Router BodyRouter

	mu sync.Mutex
	// tabs holds, by tab id, all the recorder holds of each recorded tab (see
	// tabState).
	tabs map[int]*tabState
	// requests numbers the requests of all tabs in the order the browser made them
	// (their Network.requestWillBeSent events are urgent: none overtakes another).
	requests int
	// pauseWindows counts the windows of pauses begun, in all tabs (see leftPages).
	pauseWindows int
	// kept holds the URLs whose response body some exchange handed on whole, with
	// that body when small (keptSize bytes in all): a 304 revalidation of one of them
	// is of a body the archive has, and a response the memory cache served is of that
	// body (see noteCache).
	kept     map[string][]byte
	keptSize int
	idle     chan struct{} // closed when the last request in flight ends (see setPending)
	work     inflight      // commands and finishes in flight
}

// BodyRouter is implemented by the code that hands events to the recorder when it can
// store a streamed body's data itself, as the events arrive: in the extension, the
// service worker's shim puts them in IndexedDB at once, so that half a gigabyte does not
// cross into the core and wait in its memory. The recorder still decides which bodies
// are streamed, under which keys, and how much of them is kept.
type BodyRouter interface {
	// RouteBody sends the data of the Network.dataReceived events of request id in tab
	// (any of its targets) to the Store, in chunks under prefix whose keys are prefix
	// followed by a 10-digit sequence number, keeping at most limit bytes (0: all;
	// negative: none). Those events then reach HandleEvent without their data. Routing
	// a request again replaces its route.
	RouteBody(tabID int, requestID, prefix string, limit int64)
	// ReadStream reads the next piece of the DevTools IO stream handle of t and stores
	// its data as RouteBody stores an event's, under prefix; EndBody ends it. done says
	// that the stream, or as much of it as limit keeps, has ended.
	ReadStream(t Target, handle, prefix string, limit int64) (done bool, err error)
	// EndBody stops routing to prefix and returns, once every chunk is stored, how many
	// bytes were kept and whether more came than limit allowed.
	EndBody(prefix string) (size int64, cut bool, err error)
}

type requestKey struct {
	target Target
	id     string
}

type pendingExchange struct {
	ex       *Exchange
	extra    Fields        // request headers as sent on the wire (ExtraInfo)
	respWire *responseWire // response headers as received on the wire (ExtraInfo)
	// headFromWire says the browser never reported the response: its head is the
	// wire's (see headFromWire).
	headFromWire bool
	// wantExtra says the browser announced ExtraInfo events for this hop
	// (hasExtraInfo): finishing waits a moment for those not yet come.
	wantExtra bool
	// noWait says the target is gone: no event will come any more.
	noWait   bool
	reqWG    sync.WaitGroup // a request body being fetched
	frameID  string         // the frame that asked for it
	loaderID string         // the document of that frame it belongs to
	seq      int            // the request's number in the order requests were made
	// navigation says the request is its frame's navigation to a new document (the
	// document's own request, whose id is its loader id).
	navigation bool
	received   bool // some of the body has arrived
	// hiddenBody says the browser hid (some of) the request body: a File or Blob.
	hiddenBody bool
	// unreadBody says the browser gave none of the request body, for another reason.
	unreadBody bool
	// cache names the browser's cache that served the response without the network
	// ("memory", "disk", "prefetch", httpCache), empty when it came from the network.
	cache string
	// endUnsure says the browser reported the body's end as its page was being left,
	// and may have ended it early then without saying so (see endedWhenLeft).
	endUnsure bool
	// revalidated says the wire carried a 304 for the browser's cached copy, which it
	// gave the page as its response (see takeExtra).
	revalidated bool
	// endedShown says the response ended (Network.loadingFinished) while its page was
	// still shown: a body the browser no longer has when asked was dropped as the page
	// was left, after it had arrived.
	endedShown bool
}

// NewRecorder returns a recorder that issues its commands through b.
func NewRecorder(b Browser) *Recorder {
	return &Recorder{
		browser:         &commandLog{Browser: b, sent: map[int]sentCommand{}},
		StreamThreshold: DefaultStreamThreshold,
		tabs:            make(map[int]*tabState),
		kept:            make(map[string][]byte),
	}
}

// Enable prepares a newly attached tab: the Network and Page domains, with bodies kept
// by the browser until they are read (durable messages), and automatic attachment to
// the tab's workers and out-of-process frames, which get the same treatment.
func (r *Recorder) Enable(ctx context.Context, t Target) error {
	if err := r.enable(ctx, t, "page"); err != nil {
		return err
	}
	// A session the browser kept while the service worker restarted may still have
	// the Fetch domain on, its window's end lost with the worker: its requests would
	// wait to be let go for ever (see leftPages). Firefox has no such domain. Both
	// are sent aside: a tab opened from a recorded one must be enabled before its
	// first load goes.
	r.work.Add(1)
	aside := context.WithoutCancel(ctx)
	go func() {
		defer r.work.Done()
		r.browser.Send(aside, t, "Fetch.disable", nil)
		r.mainFrame(aside, t)
	}()
	// The page may have loaded before: its password fields are asked for now, and are
	// known before recording is said to have begun, so that a login sent at once is
	// found (a question asked as the login is sent may be answered by the next page).
	// A page that does not answer soon is asked again on a goroutine.
	ask, cancel := context.WithTimeout(ctx, passwordAskLimit)
	defer cancel()
	names, err := r.passwordFieldNames(ask, t)
	if err != nil {
		r.rememberPasswordFields(ctx, t)
		return nil
	}
	r.mu.Lock()
	if ts := r.tabs[t.TabID]; ts != nil {
		ts.passwordNames = names
	}
	r.mu.Unlock()
	return nil
}

type step struct {
	method string
	params any
}

func (r *Recorder) enable(ctx context.Context, t Target, kind string) error {
	steps := []step{
		{"Network.enable", map[string]any{
			// Larger bodies are streamed, not buffered.
			"maxTotalBufferSize":    256 << 20,
			"maxResourceBufferSize": 64 << 20,
			"maxPostDataSize":       64 << 20,
		}},
		// The browser's cache stays on: a response it serves from its cache is archived
		// as the page used it, and says so (see noteCache).
		{"Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}},
	}
	if kind == "page" || kind == "iframe" {
		// Workers have no Page domain and no durable messages: their bodies are read
		// from the buffers of the Network domain when they finish.
		steps = append([]step{{"Page.enable", nil}}, steps...)
		steps = append(steps,
			step{"Network.configureDurableMessages", map[string]any{"maxTotalBufferSize": 256 << 20, "maxResourceBufferSize": 64 << 20}})
	}
	for _, s := range steps {
		if _, err := r.browser.Send(ctx, t, s.method, s.params); err != nil {
			return fmt.Errorf("recorder: %s on tab %d (%s): %w", s.method, t.TabID, kind, err)
		}
	}
	if kind == "page" || kind == "iframe" {
		// The copies of the files its documents send (see uploadScript). A browser
		// that cannot run it (Firefox's shim) leaves those bodies marked as hidden.
		copying := true
		for _, s := range []step{
			{"Runtime.enable", nil},
			{"Runtime.addBinding", map[string]any{"name": uploadBinding}},
			{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": uploadScript}},
		} {
			if _, err := r.browser.Send(ctx, t, s.method, s.params); err != nil {
				copying = false
				break
			}
		}
		if t.Session == "" {
			r.mu.Lock()
			r.tab(t.TabID).copying = copying
			r.mu.Unlock()
		}
		if copying && kind == "page" && t.Session == "" {
			// The document the tab shows already, loaded before recording began, runs
			// it too. A page that is going away as it is asked needs it no more.
			r.browser.Send(ctx, t, "Runtime.evaluate", map[string]any{"expression": uploadScript, "silent": true})
		}
	}
	if kind == "page" || kind == "iframe" {
		// A tab's state is made as it is enabled; a frame's enabling, which goes on
		// aside, notes nothing of a tab detached meanwhile.
		r.mu.Lock()
		if ts := r.tabs[t.TabID]; ts != nil || t.Session == "" {
			r.tab(t.TabID).durable[t.Session] = true
		}
		r.mu.Unlock()
	}
	return nil
}

// attachChild enables a worker or frame that the browser attached on its own, then
// lets it run: it waits for the debugger until told to go on.
func (r *Recorder) attachChild(ctx context.Context, t Target, kind string) {
	defer r.browser.Send(ctx, t, "Runtime.runIfWaitingForDebugger", nil)
	switch kind {
	case "iframe", "worker", "shared_worker", "service_worker":
		// A short-lived worker may be gone before it is enabled: nothing was missed.
		if err := r.enable(ctx, t, kind); err != nil && !errors.Is(err, errTargetGone) && !strings.Contains(err.Error(), "Session with given id not found") {
			r.report(err)
		}
	}
}

// Receiving returns the URLs of the responses of a tab that have begun but not ended:
// bodies still arriving.
func (r *Recorder) Receiving(tab int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var urls []string
	if ts := r.tabs[tab]; ts != nil {
		for _, p := range ts.pending {
			if p.ex.Status != 0 {
				urls = append(urls, p.ex.URL)
			}
		}
	}
	slices.Sort(urls)
	return urls
}

// QuietWait bounds how long work that can wait for a quiet moment (see WaitQuiet)
// waits: a page should be done loading by then, and a request still going (a download,
// a stream of events) must not hold everything back.
const QuietWait = time.Second

// WaitQuiet waits until no request is in flight in any recorded tab, or QuietWait has
// passed since from. Work that can wait (compressing and storing records) then leaves
// the processors to a page that is loading.
func (r *Recorder) WaitQuiet(from time.Time) {
	r.mu.Lock()
	idle := r.idle
	r.mu.Unlock()
	if idle == nil {
		return
	}
	t := time.NewTimer(time.Until(from.Add(QuietWait)))
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// setPending records or forgets (p nil) the exchange of a request in flight, and
// keeps r.idle: open while some request is in flight, nil when none is.
// r.mu is held.
func (r *Recorder) setPending(key requestKey, p *pendingExchange) {
	if p != nil {
		r.tab(key.target.TabID).pending[key] = p
		if r.idle == nil {
			r.idle = make(chan struct{})
		}
		return
	}
	if ts := r.tabs[key.target.TabID]; ts != nil {
		delete(ts.pending, key)
	}
	if !r.inFlight() && r.idle != nil {
		close(r.idle)
		r.idle = nil
	}
}

// Wait blocks until every command and finish in flight is done.
func (r *Recorder) Wait() { r.work.Wait() }

// WaitAnswered is Wait, as long as the browser answers and until is not past (zero:
// no such bound): it gives up once no command has been answered for d, or at until,
// and then returns the commands still waiting for their answer, as "method
// (seconds)". Long work that goes on (a large body read a piece at a time) is waited
// for until then.
func (r *Recorder) WaitAnswered(d time.Duration, until time.Time) (waiting []string) {
	for {
		step := d
		if !until.IsZero() {
			step = min(step, time.Until(until))
		}
		if step > 0 && waitAtMost(&r.work, step) {
			return nil
		}
		if (until.IsZero() || time.Now().Before(until)) && time.Since(r.browser.lastAnswered()) < d {
			continue
		}
		if waiting = r.browser.waiting(); len(waiting) == 0 {
			waiting = []string{"work without a command under way"}
		}
		return waiting
	}
}

// waitAtMost waits for wg (a sync.WaitGroup, an inflight) for at most d, and reports
// whether it is done.
func waitAtMost(wg interface{ Wait() }, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// commandLog is a Browser that keeps the commands waiting for an answer, so that a
// wait that gives up can say which.
type commandLog struct {
	Browser
	mu       sync.Mutex
	next     int
	sent     map[int]sentCommand
	gone     map[Target]error // workers and frames that ended, and why
	answered time.Time        // when the last answer came
}

// touch counts as an answer: work that talks to the browser by other means than
// Send (a BodyRouter reading a stream) goes on.
func (b *commandLog) touch() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.answered = time.Now()
}

// lastAnswered returns when the browser last answered a command.
func (b *commandLog) lastAnswered() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answered
}

type sentCommand struct {
	method string
	target Target
	since  time.Time
	cancel context.CancelCauseFunc
}

// errTargetGone is why a command to a target that went away fails: the browser
// does not always answer it (a worker that ended while being set up).
var errTargetGone = errors.New("target gone")

func (b *commandLog) Send(ctx context.Context, t Target, method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	b.mu.Lock()
	if why := b.gone[t]; why != nil {
		b.mu.Unlock()
		cancel(nil)
		return nil, fmt.Errorf("%s: %w", method, why)
	}
	b.next++
	id := b.next
	b.sent[id] = sentCommand{method, t, time.Now(), cancel}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.sent, id)
		b.answered = time.Now()
		b.mu.Unlock()
		cancel(nil)
	}()
	res, err := b.Browser.Send(ctx, t, method, params)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%s: %w", method, context.Cause(ctx))
	} else if err != nil {
		err = plainError(err)
	}
	return res, err
}

// plainError turns the error of a DevTools command, which the browser gives as the
// protocol's JSON error object ({"code":-32000,"message":"No resource with given
// identifier found"}), into its message, the words a user can read. Other errors are
// returned as they are.
func plainError(err error) error {
	msg := err.Error()
	i := strings.Index(msg, `{"code"`)
	if i < 0 {
		return err
	}
	var obj struct {
		Message string `json:"message"`
		Data    string `json:"data"`
	}
	if json.Unmarshal([]byte(msg[i:]), &obj) != nil || obj.Message == "" {
		return err
	}
	plain := obj.Message
	if obj.Data != "" {
		plain += " (" + obj.Data + ")"
	}
	return &browserError{plain: msg[:i] + plain, err: err}
}

// browserError is a DevTools command's error in plain words; it unwraps to the error
// the browser gave.
type browserError struct {
	plain string
	err   error
}

func (e *browserError) Error() string { return e.plain }
func (e *browserError) Unwrap() error { return e.err }

// abandon cancels the commands sent to t, or to any target t covers, with why. A
// worker or frame (t with a Session) is gone for good: later commands to it fail at
// once. A tab may be attached again, and forgets its workers and frames.
func (b *commandLog) abandon(t Target, why error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.sent {
		if t.covers(c.target) {
			c.cancel(why)
		}
	}
	if t.Session != "" {
		if b.gone == nil {
			b.gone = map[Target]error{}
		}
		b.gone[t] = why
		return
	}
	for g := range b.gone {
		if t.covers(g) {
			delete(b.gone, g)
		}
	}
}

// waiting lists the commands sent and not answered, oldest first.
func (b *commandLog) waiting() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := make([]int, 0, len(b.sent))
	for id := range b.sent {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		c := b.sent[id]
		out = append(out, fmt.Sprintf("%s (%.0f s)", c.method, time.Since(c.since).Seconds()))
	}
	return out
}

// cdpRequest is the request object of Network.requestWillBeSent.
type cdpRequest struct {
	URL             string            `json:"url"`
	Method          string            `json:"method"`
	Headers         map[string]string `json:"headers"`
	PostData        *string           `json:"postData"`
	HasPostData     bool              `json:"hasPostData"`
	PostDataEntries []struct {
		Bytes *string `json:"bytes"`
	} `json:"postDataEntries"`
	// FormFields is a body reported only as parsed form fields (see FormField).
	FormFields []FormField `json:"webkeepFormFields"`
}

// cdpResponse is the response object of Network.responseReceived.
type cdpResponse struct {
	URL             string            `json:"url"`
	Status          int               `json:"status"`
	StatusText      string            `json:"statusText"`
	Headers         map[string]string `json:"headers"`
	Protocol        string            `json:"protocol"`
	RemoteIPAddress string            `json:"remoteIPAddress"`
	// FromDiskCache and FromPrefetchCache say the browser's HTTP cache or its
	// prefetch cache answered, not the network.
	FromDiskCache     bool `json:"fromDiskCache"`
	FromPrefetchCache bool `json:"fromPrefetchCache"`
	// WebkeepFromHTTPCache says the browser's HTTP cache gave the page its copy, as
	// a browser says it whose reports tell no more (Firefox's webRequest fromCache,
	// set by the Firefox build's shim): whether the server was asked to revalidate
	// the copy first (a 304 on the wire) is not said.
	WebkeepFromHTTPCache bool `json:"webkeepFromHTTPCache"`
}

// The events HandleEvent acts on, each with the fields it reads.
type (
	// requestWillBeSent is the params of Network.requestWillBeSent.
	requestWillBeSent struct {
		RequestID        string       `json:"requestId"`
		Request          cdpRequest   `json:"request"`
		WallTime         float64      `json:"wallTime"`
		RedirectResponse *cdpResponse `json:"redirectResponse"`
		// RedirectHasExtraInfo says ExtraInfo events come for the redirect's hop.
		RedirectHasExtraInfo bool   `json:"redirectHasExtraInfo"`
		Type                 string `json:"type"`
		DocumentURL          string `json:"documentURL"`
		FrameID              string `json:"frameId"`
		LoaderID             string `json:"loaderId"`
	}
	// requestExtraInfo is the params of Network.requestWillBeSentExtraInfo.
	requestExtraInfo struct {
		RequestID string            `json:"requestId"`
		Headers   map[string]string `json:"headers"`
	}
	// requestServedFromCache is the params of Network.requestServedFromCache: the
	// renderer's memory cache answered the request, which never reached the network.
	requestServedFromCache struct {
		RequestID string `json:"requestId"`
	}
	// responseReceived is the params of Network.responseReceived.
	responseReceived struct {
		RequestID string      `json:"requestId"`
		Response  cdpResponse `json:"response"`
		// HasExtraInfo says ExtraInfo events come (or came) for this hop.
		HasExtraInfo bool `json:"hasExtraInfo"`
	}
	// responseExtraInfo is the params of Network.responseReceivedExtraInfo: the
	// response's headers as received, Set-Cookie included. HeadersText, the raw
	// header block, is given for HTTP/1.x only.
	responseExtraInfo struct {
		RequestID   string            `json:"requestId"`
		StatusCode  int               `json:"statusCode"`
		Headers     map[string]string `json:"headers"`
		HeadersText string            `json:"headersText"`
	}
	// dataReceived is the params of Network.dataReceived.
	dataReceived struct {
		RequestID string `json:"requestId"`
		// Data is absent when the body is not streamed, and empty when the host
		// stored it itself (BodyRouter).
		Data       *string `json:"data"`
		DataLength int     `json:"dataLength"`
	}
	// loadingFinished is the params of Network.loadingFinished.
	loadingFinished struct {
		RequestID string `json:"requestId"`
		// WebkeepEndsEarlyWhenLeft says the end came after a navigation of the page
		// began, from a browser that may then end a body early without saying so:
		// Firefox's response filter, which stops after part of the body, or none,
		// when the page is being left (set by the Firefox build's shim).
		WebkeepEndsEarlyWhenLeft bool `json:"webkeepEndsEarlyWhenLeft"`
	}
	// loadingFailed is the params of Network.loadingFailed.
	loadingFailed struct {
		RequestID string `json:"requestId"`
		ErrorText string `json:"errorText"`
		Canceled  bool   `json:"canceled"`
	}
	// attachedToTarget is the params of Target.attachedToTarget.
	attachedToTarget struct {
		SessionID  string `json:"sessionId"`
		TargetInfo struct {
			Type string `json:"type"`
		} `json:"targetInfo"`
	}
	// detachedFromTarget is the params of Target.detachedFromTarget: a worker or
	// out-of-process frame is gone.
	detachedFromTarget struct {
		SessionID string `json:"sessionId"`
	}
	// frameStoppedLoading is the params of Page.frameStoppedLoading: a frame has
	// loaded, and its form fields are there to be asked about.
	frameStoppedLoading struct {
		FrameID string `json:"frameId"`
	}
	// frameNavigated is the params of Page.frameNavigated.
	frameNavigated struct {
		Frame struct {
			ID       string `json:"id"`
			LoaderID string `json:"loaderId"`
			ParentID string `json:"parentId"`
			URL      string `json:"url"`
			Fragment string `json:"urlFragment"`
		} `json:"frame"`
		// Type is "BackForwardCacheRestore" for a document the browser showed again
		// from its back/forward cache (with its old loader id, and no request), and
		// "Navigation" otherwise.
		Type string `json:"type"`
	}
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
// scripts/e2e/realsite.test.mjs found the password archived when it waited its turn).
//
// Runtime.bindingCalled too: the copy of a file a page sends (see uploadScript) comes in
// many of them, which a request that has ended waits for, and which need their order
// among themselves only, and with the two events that say a document is gone
// (Runtime.executionContextDestroyed and executionContextsCleared): a copy that its
// document began and had not ended then fails at once.
//
// Page.frameStartedNavigating and Page.loadEventFired too: a navigation that leaves a
// page still loading must have the Fetch domain enabled before the page's last
// requests go (see leftPages).
var UrgentEvents = []string{"Network.requestWillBeSent", "Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo", "Target.attachedToTarget", "Page.frameStoppedLoading", "Runtime.bindingCalled", "Runtime.executionContextDestroyed", "Runtime.executionContextsCleared", "Page.frameStartedNavigating", "Page.loadEventFired"}

// Pacing is how a host that queues events hands the others than UrgentEvents to
// HandleEvent: while the browser is busy sending them (a page is loading), the
// recorder's work would take processor time from the page, so they wait until no event
// has come for Quiet, or Late after the oldest waiting one came, or until they hold
// more than HeldMax bytes of body data; then they go one at a time, each in a task of
// its own, so that what arrives meanwhile does not wait behind a burst of them.
type Pacing struct {
	Quiet, Late time.Duration
	HeldMax     int
}

// DefaultPacing is the pacing of the extension's service worker and of its Firefox
// background page (extension/pacing.js).
var DefaultPacing = Pacing{Quiet: 30 * time.Millisecond, Late: time.Second, HeldMax: 4 << 20}

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
		r.attachChild(ctx, child, ev.TargetInfo.Type)
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

// CatchUp reloads a tab that already shows a web page when the recorder attaches, so
// the page is recorded whole. It returns the reloaded URL, or "" if there was nothing
// to catch up with.
func (r *Recorder) CatchUp(ctx context.Context, t Target) (string, error) {
	res, err := r.browser.Send(ctx, t, "Page.getNavigationHistory", nil)
	if err != nil {
		return "", err
	}
	var h struct {
		CurrentIndex int `json:"currentIndex"`
		Entries      []struct {
			URL string `json:"url"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(res, &h); err != nil {
		return "", fmt.Errorf("Page.getNavigationHistory: %w", err)
	}
	if h.CurrentIndex < 0 || h.CurrentIndex >= len(h.Entries) || !archivable(h.Entries[h.CurrentIndex].URL) {
		return "", nil
	}
	if _, err := r.browser.Send(ctx, t, "Page.reload", map[string]any{"ignoreCache": true}); err != nil {
		return "", err
	}
	return h.Entries[h.CurrentIndex].URL, nil
}

// find returns the key and exchange of a request. A request can start in one target
// and end in another of the same tab (a worker's script is asked for by the page and
// answered to the worker), so other targets of the tab are tried. r.mu is held.
func (r *Recorder) find(t Target, id string) (requestKey, *pendingExchange) {
	key := requestKey{t, id}
	ts := r.tabs[t.TabID]
	if ts == nil {
		return key, nil
	}
	if p := ts.pending[key]; p != nil {
		return key, p
	}
	for k, p := range ts.pending {
		if k.id == id {
			return k, p
		}
	}
	return key, nil
}

// bodyOf returns the body streamed or taken for the request of key, or nil. r.mu is
// held.
func (r *Recorder) bodyOf(key requestKey) *responseBody {
	if ts := r.tabs[key.target.TabID]; ts != nil {
		return ts.bodies[key]
	}
	return nil
}

// inflight counts work in progress. Unlike a sync.WaitGroup, work may be added while
// someone waits: the wait ends whenever the count reaches zero.
type inflight struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n reaches zero
}

// Add adds delta to the count.
func (c *inflight) Add(delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += delta
	if c.n == 0 && c.zero != nil {
		close(c.zero)
		c.zero = nil
	}
}

// Done subtracts one.
func (c *inflight) Done() { c.Add(-1) }

// Wait blocks until the count is zero.
func (c *inflight) Wait() {
	c.mu.Lock()
	if c.n == 0 {
		c.mu.Unlock()
		return
	}
	if c.zero == nil {
		c.zero = make(chan struct{})
	}
	ch := c.zero
	c.mu.Unlock()
	<-ch
}

// Detached finishes what is pending for a target that went away (closed tab, recording
// stopped, a worker or frame ended): each unfinished exchange is kept, marked as cut,
// and commands sent to it and not answered fail. A tab's target (no Session) covers
// its workers and frames.
func (r *Recorder) Detached(ctx context.Context, t Target, reason string) {
	r.browser.abandon(t, fmt.Errorf("%w: %s", errTargetGone, reason))
	r.mu.Lock()
	var cut []requestKey
	if ts := r.tabs[t.TabID]; ts != nil {
		for key := range ts.pending {
			if t.covers(key.target) {
				cut = append(cut, key)
			}
		}
		for session := range ts.durable {
			if t.covers(Target{t.TabID, session}) {
				delete(ts.durable, session)
			}
		}
	}
	r.mu.Unlock()
	for _, key := range cut {
		r.mu.Lock()
		p := r.pendingOf(key)
		r.mu.Unlock()
		if p == nil {
			continue
		}
		r.mu.Lock()
		p.noWait = true
		left := r.pageLeft(key, p)
		r.headFromWire(key, p)
		r.mu.Unlock()
		cutShort(p.ex, reason, left, time.Now())
		r.finish(ctx, key, p, false, key.target)
	}
	if t.Session == "" {
		// The tab is forgotten with its pages (it may be attached again).
		r.forgetTab(t.TabID)
	}
}

// finish hands an exchange on once its bodies are in. withBody says the response ended
// normally, so a body not yet taken is asked for, of the target where it ended.
func (r *Recorder) finish(ctx context.Context, key requestKey, p *pendingExchange, withBody bool, ended Target) {
	r.mu.Lock()
	ts := r.tabs[key.target.TabID]
	if ts == nil || ts.pending[key] != p {
		r.mu.Unlock()
		return
	}
	r.setPending(key, nil)
	bodyKey := key
	body := ts.bodies[key]
	if body == nil {
		for k, b := range ts.bodies {
			if k.id == key.id {
				bodyKey, body = k, b
				break
			}
		}
	}
	delete(ts.bodies, bodyKey)
	r.mu.Unlock()
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		p.reqWG.Wait()
		r.takeExtra(key, p)
		ex := p.ex
		hidden := p.hiddenBody
		if n, err := strconv.Atoi(ex.ReqHeader.Get("Content-Length")); err == nil && n != len(ex.ReqBody) && !ex.ReqTruncated {
			ex.ReqTruncated, hidden = true, true
			ex.ReqNote = fmt.Sprintf("request body incomplete: the browser revealed %d of its %d bytes (a %s is never revealed)", len(ex.ReqBody), n, "file chosen by the user")
		}
		if (hidden || p.unreadBody) && ex.ReqTruncated {
			r.fillHiddenBody(key.target.TabID, ex, p.noWait, hidden)
		}
		if len(ex.ReqBody) > 0 && !ex.ReqTruncated && !ex.ReqHeader.Has("Content-Length") {
			// The browser adds Content-Length below the layer DevTools reports from; a
			// fixed-length body was sent with it, and replay tools key on it.
			ex.ReqHeader = append(ex.ReqHeader, Field{Name: "Content-Length", Value: strconv.Itoa(len(ex.ReqBody))})
		}
		r.takeResponseBody(ctx, key, p, body, withBody, ended)
		if ex.RespTruncated == "disconnect" && declaredWhole(ex) {
			// Its end was never reported, but every byte the server declared is here.
			ex.RespTruncated = ""
			ex.RespNote = fmt.Sprintf("the browser never reported the end of this body (%s), but all %d bytes the server declared had arrived", ex.RespNote, ex.BodyLen())
		}
		if p.endUnsure {
			endedWhenLeft(ex)
		}
		if ex.Status == 0 && ex.Failure == "" {
			// Its end was reported, and neither its response nor the wire's head.
			ex.Failure = "the browser reported the end of this request but never its response"
		}
		checkLength(ex)
		r.noteCache(ex, p.cache, p.revalidated)
		if r.OnExchange != nil {
			r.OnExchange(ex)
		}
	}()
}

func (r *Recorder) report(err error) {
	if r.OnError != nil {
		r.OnError(err)
	}
}

func setResponse(ex *Exchange, res *cdpResponse) {
	ex.Status = res.Status
	ex.StatusText = res.StatusText
	ex.RespHeader = fieldsFromMap(res.Headers)
	ex.Protocol = res.Protocol
	ex.RemoteIP = strings.Trim(res.RemoteIPAddress, "[]")
}

// headFromWire gives p's exchange the response head the wire carried (ExtraInfo) when
// the browser never reported the response itself and the exchange's document is one
// the browser keeps in its back/forward cache (it has shown it again from there).
// Chromium drops its report of a response to a DevTools client when the response comes
// as the page that asked for it is left into the cache, though the head's ExtraInfo,
// sent by the network layer, still comes; the request stays open, frozen with the
// page, and its end is reported when the page is shown again. It is called when the
// end is reported or the exchange is cut (Stop): the exchange had a response, and its
// body is read, or marked, as any other's. The exchanges of a page left for good, or
// left into the cache and never shown again (which is not known to be there), take
// the wire's head before the recording stops, in ReadLeftBodies; not here, when the
// tab is already detached and their bodies can no longer be asked for. r.mu is held.
func (r *Recorder) headFromWire(key requestKey, p *pendingExchange) {
	w := p.respWire
	ts := r.tabs[key.target.TabID]
	if p.ex.Status != 0 || w == nil || w.status < 200 || ts == nil || !ts.restored[p.loaderID] {
		return
	}
	w.give(p.ex)
	p.headFromWire = true
}

// whyHeadFromWire begins the note of an exchange whose response the browser never
// reported (see headFromWire) when its body could not be read.
const whyHeadFromWire = "the browser never reported this response, only its head on the wire, which came as its page was left"

// archivable reports whether a URL names something fetched over the network.
func archivable(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

func wallTime(sec float64) time.Time {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return time.Now().UTC()
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC()
}

// responseWire is a response's head as the browser received it (ExtraInfo).
type responseWire struct {
	status     int
	statusText string // from the raw status line, when there is one
	header     Fields
}

// give makes w the response head of ex.
func (w responseWire) give(ex *Exchange) {
	ex.Status, ex.StatusText, ex.RespHeader = w.status, w.statusText, w.header
}

// wire returns the response head that ev reports: the raw header block when the
// browser gives one (HTTP/1.x: every line in its order, repeated fields kept), else
// the header object, whose repeated fields the browser joined with "\n".
func (ev *responseExtraInfo) wire() responseWire {
	w := responseWire{status: ev.StatusCode}
	if ev.HeadersText != "" {
		if text, header, ok := parseHeadBlock(ev.HeadersText); ok {
			w.statusText, w.header = text, header
			return w
		}
	}
	w.header = fieldsFromMap(ev.Headers)
	return w
}

// parseHeadBlock parses a raw HTTP/1.x response head ("HTTP/1.1 200 OK\r\nName:
// value\r\n...") into its reason phrase and its fields, in order. Folded lines
// (obsolete, but still sent) continue the field before them. ok is false when the
// text does not begin with a status line.
func parseHeadBlock(text string) (reason string, header Fields, ok bool) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	status := strings.SplitN(lines[0], " ", 3)
	if len(status) < 2 || !strings.HasPrefix(status[0], "HTTP/") {
		return "", nil, false
	}
	if len(status) == 3 {
		reason = strings.TrimSpace(status[2])
	}
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(header) > 0 {
			header[len(header)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		name, value, found := strings.Cut(line, ":")
		if !found || !httpToken(strings.TrimSpace(name)) {
			continue // not a field line
		}
		header = append(header, Field{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	return reason, header, true
}

// extraQueue matches the ExtraInfo events of one request id with its hops (a request
// and the requests its redirects led to). The browser sends them in the order of the
// hops, but before or after the hops' own events: each kind is given to the hops in
// order, whichever comes first.
type extraQueue struct {
	hops      []*pendingExchange // hops that still lack some of their ExtraInfo
	requests  []Fields
	responses []responseWire
	// reported says the browser reported the request itself (requestWillBeSent):
	// without it, the queue holds all the recorder knows of a request (see
	// unreported).
	reported bool
}

// maxExtraQueues bounds the requests whose ExtraInfo waits for their hops: events of
// requests the recorder never saw begin (they began before it attached) are dropped
// beyond it.
const maxExtraQueues = 4096

// extraQueue returns the queue of key's request id, made if there is none. r.mu is held.
func (r *Recorder) extraQueue(key requestKey) *extraQueue {
	ts := r.tab(key.target.TabID)
	if q := ts.extraQueueOf(key); q != nil {
		return q
	}
	if r.extraQueues() >= maxExtraQueues {
		for _, other := range r.tabs {
			r.countUnreported(other)
		}
	}
	q := &extraQueue{}
	ts.extras[key] = q
	return q
}

// extraQueueOf returns the queue of key's request id, of any target of the tab, or nil.
func (ts *tabState) extraQueueOf(key requestKey) *extraQueue {
	if q := ts.extras[key]; q != nil {
		return q
	}
	for k, q := range ts.extras {
		if k.id == key.id {
			return q
		}
	}
	return nil
}

// extraQueues counts the queues of ExtraInfo of all tabs. r.mu is held.
func (r *Recorder) extraQueues() int {
	n := 0
	for _, ts := range r.tabs {
		n += len(ts.extras)
	}
	return n
}

// addHop adds a new hop of key's request, which takes the ExtraInfo waiting for it.
// r.mu is held.
func (r *Recorder) addHop(key requestKey, p *pendingExchange) {
	q := r.extraQueue(key)
	q.reported = true
	q.hops = append(q.hops, p)
	q.match()
}

// match gives the waiting ExtraInfo to the hops, in order. A response's ExtraInfo is
// for the first hop still without one, unless that hop's response is known and has
// another status: then that hop never gets one (it was given up waiting).
func (q *extraQueue) match() {
	for _, p := range q.hops {
		if p.extra == nil && len(q.requests) > 0 {
			p.extra, q.requests = q.requests[0], q.requests[1:]
		}
	}
	for _, p := range q.hops {
		if p.respWire != nil {
			continue
		}
		// A 304 on the wire may be given to the page as the cached copy's status.
		for len(q.responses) > 0 && p.ex.Status != 0 && q.responses[0].status != 0 && q.responses[0].status != p.ex.Status && q.responses[0].status != 304 {
			q.responses = q.responses[1:] // a late one for a hop already given up on
		}
		if len(q.responses) == 0 {
			break
		}
		w := q.responses[0]
		p.respWire, q.responses = &w, q.responses[1:]
	}
	q.hops = slices.DeleteFunc(q.hops, func(p *pendingExchange) bool { return p.extra != nil && p.respWire != nil })
}

// extraWait bounds how long an ending hop waits for the ExtraInfo events the browser
// announced and has not sent yet. (A variable for the tests.)
var extraWait = 2 * time.Second

// takeExtra waits, up to extraWait, for the ExtraInfo of p that the browser
// announced, then puts the wire headers in p's exchange and forgets p's place in the
// queue. An answer of the renderer's memory cache made no request of the network,
// which sends the ExtraInfo events: none comes, though its response still says it has
// them, as the one it was cached from did (waiting for them held the reading of its
// body back until its page had been left and the body was gone).
func (r *Recorder) takeExtra(key requestKey, p *pendingExchange) {
	deadline := time.Now().Add(extraWait)
	for {
		r.mu.Lock()
		done := p.noWait || !p.wantExtra || p.cache == "memory" || p.extra != nil && (p.respWire != nil || p.ex.Status == 0)
		if done || time.Now().After(deadline) {
			// A tab detached meanwhile has no queues left.
			if ts := r.tabs[key.target.TabID]; ts != nil {
				q := r.extraQueue(key)
				q.hops = slices.DeleteFunc(q.hops, func(h *pendingExchange) bool { return h == p })
				if len(q.hops) == 0 && len(q.requests) == 0 && len(q.responses) == 0 {
					for k, v := range ts.extras {
						if v == q {
							delete(ts.extras, k)
						}
					}
				}
			}
			extra, wire := p.extra, p.respWire
			r.mu.Unlock()
			if extra != nil {
				p.ex.ReqHeader = extra
			}
			if wire != nil && wire.status == 304 && p.ex.Status != 304 && p.ex.Status != 0 {
				// The browser's HTTP cache revalidated its copy and gave the page that
				// copy: the page's head is the one archived, with its body.
				p.revalidated = true
			} else if wire != nil && p.ex.Status != 0 {
				p.ex.RespHeader = wire.header
				if wire.statusText != "" {
					p.ex.StatusText = wire.statusText
				}
			}
			return
		}
		r.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

// shownDocument is the document a frame shows: its loader id, and the number of the
// request that began its navigation (0 if unknown: it began before the recorder came).
type shownDocument struct {
	loader string
	seq    int
}

// navigationStart is a navigation of a frame to a new document: the document's loader
// id and the number of its request.
type navigationStart struct {
	loader string
	seq    int
}

// keptNavigations is how many of the last navigations of a frame are remembered: a
// document commits before more than a few others begin after it.
const keptNavigations = 8

// noteNavigation remembers that a navigation of the tab's frame began. r.mu is held.
func (ts *tabState) noteNavigation(frame string, n navigationStart) {
	kept := append(ts.navigations[frame], n)
	if len(kept) > keptNavigations {
		kept = slices.Delete(kept, 0, len(kept)-keptNavigations)
	}
	ts.navigations[frame] = kept
}

// pageLeft says whether p's request belongs to a document its frame no longer shows:
// the page was left, or another navigation replaced the one the request was. A
// navigation that fails leaves its frame showing the document before it (or the
// browser's error page, which commits with the failed navigation's loader id, or is
// reported after the failure): it was not left. The order of requests decides, not the
// order events are handled in: urgent events overtake the others (see UrgentEvents), so
// a request may be handled before the commit of a document that came before it.
// r.mu is held.
func (r *Recorder) pageLeft(key requestKey, p *pendingExchange) bool {
	if p.loaderID == "" || p.frameID == "" {
		return false
	}
	ts := r.tabs[key.target.TabID]
	if ts == nil {
		return false
	}
	now, ok := ts.documents[p.frameID]
	switch {
	case !ok || now.loader == p.loaderID:
		return false
	case p.navigation:
		return now.seq > p.seq // replaced by a navigation begun after it
	}
	return true // a document of its frame came after the one it belongs to
}

// Bounds of Recorder.kept: how many URLs it remembers, the largest body it keeps, and
// the bytes of bodies it keeps in all (beyond which it forgets them all).
const (
	maxKept         = 100000
	maxKeptBody     = 1 << 20
	maxKeptBodySize = 16 << 20
)

// noteCache says in ex what the browser's cache did, if anything: cache names the
// cache that answered without the network ("memory", "disk", "prefetch", or httpCache; see
// pendingExchange.cache); revalidated says the browser's HTTP cache revalidated its
// copy (the wire carried a 304) and gave the page that copy; a 304 answer is the
// server's to the page's own revalidation of a copy in its memory cache, whose body
// the page used. A 304 of a URL whose body no exchange of this recorder handed on is of
// a body the archive lacks: that is said as a note on the response (RespNote), which
// the user sees; the rest goes in CacheNote. A 304 of a body the archive holds needs
// no note: its record is what the wire carried.
//
// The browser gives the body of a response its memory cache served only while the page
// is there: once the page was left, the body is that of the URL's last response handed
// on whole, which is what that cache holds, when it was small enough to keep.
func (r *Recorder) noteCache(ex *Exchange, cache string, revalidated bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	body, kept := r.kept[ex.URL]
	served := fmt.Sprintf("%s %s cache, not fetched from the server at this time", WhyFromCache, cache)
	if cache == httpCache {
		served = WhyFromCache + " HTTP cache (the browser does not say whether it asked the server to revalidate its copy first, which the server then answered with 304 Not Modified)"
	}
	switch {
	case cache != "" && ex.Status == 200 && ex.RespTruncated != "" && ex.BodyLen() == 0 && body != nil:
		ex.RespBody, ex.RespTruncated = body, ""
		ex.CacheNote = fmt.Sprintf("%s: the browser gave none of its body (%s), so the body archived is that of the last response of this URL archived before, which is what the cache holds", served, ex.RespNote)
		ex.RespNote = ""
		checkLength(ex)
	case cache != "":
		ex.CacheNote = served + ": a response the server sent before, as the page used it"
	case revalidated:
		ex.CacheNote = WhyRevalidated + ": the server answered 304 Not Modified, and the page got the cached response, archived here as the page got it"
	case ex.Status == 304 && kept:
		// Archived as sent, of a body the archive holds: the record says it all.
	case ex.Status == 304:
		ex.CacheNote = WhyRevalidated + ": the server answered 304 Not Modified, archived as sent"
		why := "the page used the body the browser had cached, which no response of this URL archived whole before holds (it was cached before this recording began, or its response here is incomplete): it is not in this archive"
		if ex.RespNote != "" {
			why = ex.RespNote + "; " + why
		}
		ex.RespNote = why
	}
	if ex.Status != 200 || ex.RespTruncated != "" || ex.BodyLen() == 0 {
		return
	}
	if len(r.kept) >= maxKept || r.keptSize+len(ex.RespBody) > maxKeptBodySize {
		clear(r.kept)
		r.keptSize = 0
	}
	r.keptSize -= len(r.kept[ex.URL])
	if ex.respSpool == nil && len(ex.RespBody) <= maxKeptBody {
		r.kept[ex.URL] = ex.RespBody
		r.keptSize += len(ex.RespBody)
	} else {
		r.kept[ex.URL] = nil
	}
}

// httpCache is the cache named by a browser that says only that its HTTP cache
// answered, not whether the server was asked first (cdpResponse.WebkeepFromHTTPCache).
const httpCache = "HTTP"

// WhyFromCache begins the note on a response the browser's cache served without the
// network ("served from the browser's memory cache, ..."); WhyRevalidated, the note on
// a response whose copy in the browser's cache the server said was still good.
const (
	WhyFromCache   = "served from the browser's"
	WhyRevalidated = "the browser revalidated the copy in its cache"
)

// The reasons an exchange is archived incomplete, as its records say them (Failure,
// RespNote, ReqNote): each begins with one of these, so that they can be counted by
// reason.
const (
	WhyPageLeft = "the page was left before its body arrived"
	// WhyLeftUnread is why a body that had arrived is not archived: the page was left
	// (or put in the back/forward cache) before the recorder read it, and the browser
	// keeps the bodies of its memory cache's answers only while their page is shown.
	WhyLeftUnread = "the page was left before its body could be read"
	// WhyLeftEndUnsure is why a body whose end a browser reported as its page was
	// being left is not known whole (see endedWhenLeft).
	WhyLeftEndUnsure = "the page was being left as its body was passed on, and the browser may then end a body early without saying so: it may be cut"
	WhyCancelled     = "cancelled by the browser"
	WhyStopped       = "recording stopped before the body ended"
	// WhyHiddenFile is why a request body lacks bytes.
	WhyHiddenFile = "body hidden by the browser (file chosen by the user)"
	// WhyHiddenBlob is why a request body that a page sent as a File or Blob with
	// XHR or fetch() has no bytes: the browser shows DevTools none of it.
	WhyHiddenBlob = "body hidden by the browser (a file or blob the page sent)"
)

// noPostData is the browser's answer to Network.getRequestPostData for a body it keeps
// to itself (a File or Blob), though its request event says it has one.
const noPostData = "No post data available for the request"

// whyLeftBeforeResponse is why an exchange whose page was left has no response.
const whyLeftBeforeResponse = "the page was left before its response arrived"

// failed labels an exchange that the browser reported failed (Network.loadingFailed)
// with errorText: before its response came (no response) or while its body came (the
// body is then marked truncated). cancelled says the browser cancelled it, left that
// its page was left meanwhile.
func failed(ex *Exchange, errorText string, cancelled, left bool) {
	var why string
	switch {
	case left && ex.Status == 0:
		why = whyLeftBeforeResponse
	case left:
		why = WhyPageLeft
	case cancelled:
		why = WhyCancelled
	case ex.Status == 0:
		why = "the request failed"
	default:
		why = "the connection ended before the body did"
	}
	why += " (" + errorText + ")"
	if ex.Status == 0 {
		ex.Failure = why
		return
	}
	ex.RespNote = why
	ex.RespTruncated = "disconnect"
}

// endedWhenLeft marks ex, whose end a browser reported once a navigation of its page
// had begun, when that browser may end a body early then without saying so (Firefox,
// whose response filter stops after part of a body, or none, as the page is left:
// seen on DokuWiki, a page of 61657 bytes archived with 61412, scripts of 413661 with
// 262144 and with none, the filter's state "finishedtransferringdata" each time):
// unless the server declared the length of the body as archived and all of it is
// here, it is not known whole.
func endedWhenLeft(ex *Exchange) {
	if !bodyUnmarked(ex) || declaredWhole(ex) {
		return
	}
	ex.RespTruncated = "unspecified"
	why := WhyLeftEndUnsure + fmt.Sprintf(" (%d bytes archived)", ex.BodyLen())
	if ex.RespNote != "" {
		why = ex.RespNote + "; " + why
	}
	ex.RespNote = why
}

// superseded labels an exchange whose end the browser never reported before it began
// another request under the same id. left says its page had been left.
func superseded(ex *Exchange, left bool) {
	const reused = " (the browser began another request under its id without reporting its end)"
	switch {
	case left && ex.Status == 0:
		ex.Failure = whyLeftBeforeResponse + reused
	case ex.Status == 0:
		ex.Failure = "no response reported" + reused
	case left:
		ex.RespNote, ex.RespTruncated = WhyPageLeft+reused, "disconnect"
	default:
		ex.RespNote, ex.RespTruncated = "the end of the body was never reported"+reused, "disconnect"
	}
}

// cutShort labels an exchange still under way when its target went away for reason
// (recording stopped, the tab closed, a worker ended) at now. left says its page had
// been left before.
func cutShort(ex *Exchange, reason string, left bool, now time.Time) {
	var why string
	switch {
	case left && ex.Status == 0:
		why = whyLeftBeforeResponse
	case left:
		why = WhyPageLeft
	case reason == "recording stopped" && ex.Status == 0:
		why = "recording stopped before the response arrived"
	case reason == "recording stopped":
		why = WhyStopped
	case ex.Status == 0:
		why = "no response before the debugger left: " + reason
	default:
		why = "the body had not ended when the debugger left: " + reason
	}
	if !ex.Started.IsZero() && now.Sub(ex.Started) >= time.Second {
		why += fmt.Sprintf(" (requested %s before)", now.Sub(ex.Started).Round(time.Second))
	}
	if ex.Status == 0 {
		ex.Failure = why
		return
	}
	ex.RespNote = why
	ex.RespTruncated = "disconnect"
}

// httpToken says whether s is an HTTP token (RFC 9110, 5.6.2), as a field name is.
func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
