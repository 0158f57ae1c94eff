package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Naming the requests of pages left as they load.
//
// The browser drops its reports of the requests a page makes as it is left (see
// unreported), but its Fetch domain, which sees each request leave the browser, is
// told of every one of them: in quick-navigation runs on DokuWiki a plain DevTools
// client paused (and at once let go) 121 of the 122 requests it was never told of
// (scripts/probe/fetchdomain.mjs, BENCHMARKS.md). Pausing every request costs a page's
// load about a fifth of its time, so the recorder pauses them only when a navigation
// leaves a page before its load event, from the navigation's start to pauseWindow
// after the next document commits, or its load event if that comes first: a page
// loaded whole is left at no cost. The host lets each request paused on a
// target where the recorder enabled the Fetch domain (Fetch.enable, until Fetch.disable
// or the target's detaching) go at once, with Fetch.continueRequest, and then hands the
// Fetch.requestPaused event to HandleEvent: a request is never held back by the
// recorder's queue of events. The recorder only notes its method and URL under its
// network id, and a request never reported is then named by its address in the notes.

// pauseWindow is how long the Fetch domain stays enabled after the next document
// commits, when a navigation left a page that was still loading: the browser drops
// the reports of the page left around the commit and in the half second after it.
// maxPauses bounds the window from the navigation's start, when no commit comes.
const (
	pauseWindow = 2 * time.Second
	maxPauses   = 10 * time.Second
)

// answerWait is how long after a navigation left a loading page a request of it that
// was never reported, and has had no response, is archived without one.
const answerWait = maxPauses + pauseWindow

// maxNamed bounds the requests named by the Fetch domain that the recorder holds.
const maxNamed = 4096

// maxNamedByPage bounds the addresses a note gives of one page's unreported requests.
const maxNamedByPage = 20

// leftPages is what the recorder knows of the pages of a tab to name the requests of
// those left as they loaded (part of its tabState, guarded by the Recorder's mu).
type leftPages struct {
	main    string                // its main frame's id, "" until known
	loading bool                  // its document has not had its load event
	pausing int                   // the number of its last window of pauses begun, 0 when none is on (see pauseWindow)
	named   map[requestKey]string // the method and URL of each paused request, by network id
	urls    map[string][]string   // by Referer, the named requests never reported
}

type (
	// frameStartedNavigating is the params of Page.frameStartedNavigating.
	frameStartedNavigating struct {
		FrameID        string `json:"frameId"`
		NavigationType string `json:"navigationType"`
	}
	// loadEventFired is the params of Page.loadEventFired (none read).
	loadEventFired struct{}
	// requestPaused is the params of Fetch.requestPaused.
	requestPaused struct {
		NetworkID string `json:"networkId"`
		Request   struct {
			Method string `json:"method"`
			URL    string `json:"url"`
		} `json:"request"`
	}
)

// onFrameStartedNavigating begins a window of pauses when a navigation of a tab's main
// frame leaves a document that had not had its load event.
func (r *Recorder) onFrameStartedNavigating(ctx context.Context, t Target, ev *frameStartedNavigating) {
	if t.Session != "" || strings.Contains(strings.ToLower(ev.NavigationType), "samedocument") {
		return
	}
	r.mu.Lock()
	ts := r.tabs[t.TabID]
	if ts == nil || ts.left.main == "" || ts.left.main != ev.FrameID {
		r.mu.Unlock()
		return
	}
	l := &ts.left
	leaving := l.loading
	l.loading = true
	if !leaving {
		r.mu.Unlock()
		return
	}
	already := l.pausing != 0
	r.pauseWindows++
	window := r.pauseWindows
	l.pausing = window
	r.mu.Unlock()
	if !already {
		r.command(ctx, t, "Fetch.enable", map[string]any{"patterns": []map[string]any{{"urlPattern": "*", "requestStage": "Request"}}})
	}
	// The window ends pauseWindow after the next document commits (onFrameNavigated),
	// at its load event, or at the latest maxPauses after the navigation began.
	r.endPausesAfter(ctx, t, window, maxPauses)
	// A response slow to come is given longer; a request with none by then is
	// archived without one.
	time.AfterFunc(answerWait, func() {
		r.work.Add(1)
		defer r.work.Done()
		r.recoverUnreported(ctx, t, true)
	})
}

// endPausesAfter ends t's window of pauses window after d, the requests it named
// and never reported archived first (those that have had a response).
func (r *Recorder) endPausesAfter(ctx context.Context, t Target, window int, d time.Duration) {
	time.AfterFunc(d, func() {
		r.work.Add(1)
		defer r.work.Done()
		r.recoverUnreported(ctx, t, false)
		r.endPauses(ctx, t, window)
	})
}

// committed ends the window of pauses of tab t, if one is on, pauseWindow after the
// document that a navigation brought committed. r.mu is not held.
func (r *Recorder) committed(ctx context.Context, t Target) {
	r.mu.Lock()
	window := 0
	if ts := r.tabs[t.TabID]; ts != nil {
		window = ts.left.pausing
	}
	r.mu.Unlock()
	if window != 0 {
		r.endPausesAfter(ctx, t, window, pauseWindow)
	}
}

// endPauses disables the Fetch domain on t if window is its last window of pauses
// begun (0: whichever it is).
func (r *Recorder) endPauses(ctx context.Context, t Target, window int) {
	r.mu.Lock()
	ts := r.tabs[t.TabID]
	last := ts != nil && ts.left.pausing != 0 && (window == 0 || ts.left.pausing == window)
	if last {
		ts.left.pausing = 0
	}
	r.mu.Unlock()
	if last {
		r.command(ctx, t, "Fetch.disable", nil)
	}
}

// onLoadEventFired notes that a tab's document has had its load event, and ends the
// window of pauses early: the requests the page makes from then on are its own,
// which the browser reports. A document restored from the back/forward cache has no
// load event again; it counts as loaded (onFrameNavigated), and leaving it opens no
// window.
func (r *Recorder) onLoadEventFired(ctx context.Context, t Target, _ *loadEventFired) {
	if t.Session != "" {
		return
	}
	r.mu.Lock()
	if ts := r.tabs[t.TabID]; ts != nil {
		ts.left.loading = false
	}
	r.mu.Unlock()
	r.endPauses(ctx, t, 0)
	if r.OnPageLoaded != nil {
		r.OnPageLoaded(t.TabID)
	}
}

// onRequestPaused notes the method and URL of a request the Fetch domain paused
// (which the host has let go), under its network id.
func (r *Recorder) onRequestPaused(_ context.Context, t Target, ev *requestPaused) {
	if ev.NetworkID == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	named := 0
	for _, ts := range r.tabs {
		named += len(ts.left.named)
	}
	if named >= maxNamed {
		for _, ts := range r.tabs {
			clear(ts.left.named)
		}
	}
	r.tab(t.TabID).left.named[requestKey{t, ev.NetworkID}] = ev.Request.Method + " " + ev.Request.URL
}

// nameUnreported notes, by the page that made it, the address of a request never
// reported that the Fetch domain named, and forgets its name. r.mu is held.
func (l *leftPages) nameUnreported(k requestKey, page string) {
	name, ok := l.named[k]
	if !ok {
		return
	}
	delete(l.named, k)
	l.urls[page] = append(l.urls[page], name)
}

// addresses says the addresses of named requests, at most maxNamedByPage of them, of
// n requests in all.
func addresses(named []string, n int) string {
	if len(named) == 0 {
		return ""
	}
	shown := named[:min(len(named), maxNamedByPage)]
	s := " Their addresses, from the browser's Fetch domain: " + strings.Join(shown, ", ")
	if more := n - len(shown); more > 0 {
		s += fmt.Sprintf(" (and %d more)", more)
	}
	return s + "."
}

// mainFrame asks a newly attached tab for its main frame's id.
func (r *Recorder) mainFrame(ctx context.Context, t Target) {
	res, err := r.browser.Send(ctx, t, "Page.getFrameTree", nil)
	if err != nil {
		return // known at its next navigation (onFrameNavigated)
	}
	var tree struct {
		FrameTree struct {
			Frame struct {
				ID string `json:"id"`
			} `json:"frame"`
		} `json:"frameTree"`
	}
	if json.Unmarshal(res, &tree) == nil && tree.FrameTree.Frame.ID != "" {
		r.mu.Lock()
		if ts := r.tabs[t.TabID]; ts != nil { // not detached meanwhile
			ts.left.main = tree.FrameTree.Frame.ID
		}
		r.mu.Unlock()
	}
}

// recoverUnreported archives the requests of tab t that the browser never reported
// but the Fetch domain named, once the window of pauses in which they were made is
// over: their address from the Fetch domain, their request and response heads from
// the wire (the ExtraInfo events), their body asked for after (the network layer
// keeps it, durable messages, unless the page's leaving cut it short). Such an
// exchange is byte-exact only when the body has every byte the server declared;
// otherwise it is marked, and the note says why. What is archived is no longer counted
// as never reported. Unless all is true, a request that has had no response yet, or
// whose wire headers came less than reportGrace ago, is left for later.
func (r *Recorder) recoverUnreported(ctx context.Context, t Target, all bool) {
	type found struct {
		key  requestKey
		name string
		req  Fields
		resp *responseWire
	}
	var todo []found
	r.mu.Lock()
	ts := r.tabs[t.TabID]
	if ts == nil { // detached: what it named is counted in its note
		r.mu.Unlock()
		return
	}
	for k, q := range ts.extras {
		if q.reported || len(q.requests) == 0 || (!all && (len(q.responses) == 0 || time.Since(q.since) < reportGrace)) {
			continue
		}
		name, ok := ts.left.named[k]
		if !ok {
			continue
		}
		f := found{key: k, name: name, req: q.requests[0]}
		if len(q.responses) > 0 {
			w := q.responses[0]
			f.resp = &w
		}
		todo = append(todo, f)
		delete(ts.left.named, k)
		delete(ts.extras, k)
	}
	r.mu.Unlock()
	for _, f := range todo {
		method, url, _ := strings.Cut(f.name, " ")
		ex := &Exchange{Started: time.Now(), Method: method, URL: url, ReqHeader: f.req, PageURL: f.req.Get("Referer")}
		if !archivable(url) {
			continue
		}
		if n := declaredLength(f.req); n > 0 {
			ex.ReqTruncated, ex.ReqNote = true, fmt.Sprintf("request body not kept: %s, and none of its %d bytes", whyRecovered, n)
		}
		switch {
		case f.resp == nil:
			ex.Failure = "no response reported: " + whyRecovered
		default:
			f.resp.give(ex)
			r.readBodyOnWire(ctx, f.key.target, f.key.id, ex, whyRecovered)
		}
		if r.OnExchange != nil {
			r.OnExchange(ex)
		}
	}
}

// reportGrace is how long after its wire headers came a request may still be reported
// by a host that queues events: the shim holds a request's ExtraInfo until the request
// comes (DefaultPacing.Hold at most), then queues them with it, ahead of it, and the
// queue waits up to DefaultPacing.Late. A window of pauses that ends sooner than that
// after a request's wire headers came leaves it to the last look (answerWait), rather
// than archive it as never reported and then again as reported.
var reportGrace = DefaultPacing.Hold + DefaultPacing.Late

// whyRecovered says how an exchange that the browser never reported was recorded.
const whyRecovered = "the browser dropped its report of this request as the page was left (its address is from the Fetch domain, its headers from the wire)"
