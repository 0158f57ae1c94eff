// Package recorder assembles the events of the Chrome DevTools Protocol into HTTP
// exchanges: each request with its response, headers as they were on the wire, and
// bodies read whole, streamed, or spooled to a Store when large, with notes on what
// is not exact. Its owner (capture.Service) feeds it events and takes its exchanges
// (Recorder.OnExchange).
package recorder

// The Recorder and the life of an exchange, from its request to its handing on
// (finish) or its cutting short (Detached). The events it acts on are in events.go
// (their params in wire.go), the commands it sends the browser in commands.go, a
// tab's state in tab.go, the wire headers (ExtraInfo) in extrainfo.go, the bodies in
// bodies.go, what the browser's cache did in cache.go, and the reasons an exchange is
// marked incomplete in reasons.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
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
	// OnPageLoaded is told when a tab's page has fired its load event.
	OnPageLoaded func(tabID int)
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
	// finishing holds the URL of each exchange being finished (see finish), until it
	// has been handed on: with the pending ones, what Underway lists.
	finishing map[*pendingExchange]string
	// resumes holds, by tab id, whether a tab the debugger left is attached again
	// (see Resumed).
	resumes map[int]*resumption
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
	noWait bool
	// lostToDetach says the body was not had because the debugger left the tab (see
	// fetchLostBody).
	lostToDetach bool
	reqWG        sync.WaitGroup // a request body being fetched
	frameID      string         // the frame that asked for it
	loaderID     string         // the document of that frame it belongs to
	seq          int            // the request's number in the order requests were made
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
		finishing:       make(map[*pendingExchange]string),
		resumes:         make(map[int]*resumption),
	}
}

// Underway returns the URLs of the exchanges the recorder has begun and not yet handed
// on (OnExchange), sorted, a URL once for each: what would be lost with the recorder
// were its process stopped now, since the browser's later events of a request go
// unheeded by a recorder that did not see it begin.
func (r *Recorder) Underway() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var urls []string
	for _, ts := range r.tabs {
		for _, p := range ts.pending {
			urls = append(urls, p.ex.URL)
		}
	}
	for _, url := range r.finishing {
		urls = append(urls, url)
	}
	slices.Sort(urls)
	return urls
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

// Detached finishes what is pending for a target that went away (closed tab, recording
// stopped, a worker or frame ended): each unfinished exchange is kept, marked as cut,
// and commands sent to it and not answered fail. A tab's target (no Session) covers
// its workers and frames, and all the recorder holds of the tab (its tabState) is then
// forgotten, once the requests the browser never reported are said (see unreported).
func (r *Recorder) Detached(ctx context.Context, t Target, reason string) {
	r.browser.abandon(t, fmt.Errorf("%w: %s", errTargetGone, reason))
	if t.Session == "" && reason != ReasonTakenOff {
		r.Resumed(t.TabID, false) // the tab is not attached again: bodies lost wait no more
	}
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
		p.lostToDetach = reason == ReasonTakenOff
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
	r.finishing[p] = p.ex.URL
	r.mu.Unlock()
	r.work.Add(1)
	ts.finishes.Add(1)
	go func() {
		defer r.work.Done()
		defer ts.finishes.Done()
		defer func() {
			r.mu.Lock()
			delete(r.finishing, p)
			r.mu.Unlock()
		}()
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
		if p.lostToDetach {
			r.fetchLostBody(ctx, key, p)
		}
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
