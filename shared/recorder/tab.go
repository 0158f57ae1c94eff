package recorder

// A tab's state (tabState): all the recorder holds of one recorded tab, forgotten in
// one piece when the tab is detached; and the documents its frames show, by which a
// request is known to belong to a page that was left (pageLeft).

import (
	"errors"
	"slices"
	"time"
)

// tabState is all the recorder holds of one recorded tab, its workers and frames
// included: its requests in flight and what each waits for, the documents its frames
// show, its page's password fields, the copies of the files its pages send, and what
// it knows of the pages it left. A tab's state is made when something of it is first
// noted (Enable, or an event of the tab), and forgotten whole when the tab is detached
// (Detached): work of the tab still under way then, which ends after, finds no state
// of it and makes none. Its fields are guarded by the Recorder's mu.
type tabState struct {
	// pending holds the exchanges of the requests in flight, by target and id.
	pending map[requestKey]*pendingExchange
	// bodies holds the bodies streamed or taken, by target and network id.
	bodies map[requestKey]*responseBody
	// extras are the wire headers (ExtraInfo events) of each request, waiting to be
	// matched with its hops, in order.
	extras map[requestKey]*extraQueue
	// durable holds, by session ("" for the tab itself), the targets whose bodies the
	// browser keeps after they end.
	durable map[string]bool
	// documents holds, by frame, the document each frame shows now: a request of
	// another document of that frame belongs to a page that was left (see pageLeft).
	documents map[string]shownDocument
	// navigations holds, by frame, the last few navigations begun, by number (see
	// noteNavigation).
	navigations map[string][]navigationStart
	// restored holds the loader ids of the documents the browser has shown again from
	// its back/forward cache: documents it keeps there when they are left.
	restored map[string]bool
	// passwordNames are the names of the fields of type password its page had when it
	// last finished loading a frame (see askPasswordFields), or told of as it sent a
	// form (onPasswordsSent).
	passwordNames []string
	// passwordAsk is the question about its password fields last put to its page,
	// closed once answered: a request sent meanwhile waits for the answer.
	passwordAsk chan struct{}
	// uploads holds the copies of files its pages sent (see uploadScript); copying says
	// its pages run uploadScript.
	uploads *pageUploads
	copying bool
	// unreported counts, by Referer, the requests the browser never reported whose
	// ExtraInfo queues were dropped (see unreported).
	unreported map[string]int
	// left is what it knows of its pages to name the requests of those left as they
	// loaded (see leftPages).
	left leftPages
	// finishes counts its exchanges being finished (see finish), which its summary
	// waits for (see forgetTab).
	finishes *inflight
}

// newTabState returns the state of a tab of which nothing is known yet.
func newTabState() *tabState {
	return &tabState{
		pending:     map[requestKey]*pendingExchange{},
		bodies:      map[requestKey]*responseBody{},
		extras:      map[requestKey]*extraQueue{},
		durable:     map[string]bool{},
		documents:   map[string]shownDocument{},
		navigations: map[string][]navigationStart{},
		restored:    map[string]bool{},
		uploads:     &pageUploads{added: make(chan struct{})},
		unreported:  map[string]int{},
		left:        leftPages{named: map[requestKey]string{}, urls: map[string][]string{}},
		finishes:    &inflight{},
	}
}

// tab returns the state of tab id, made if it has none: for what an event of the tab,
// or its enabling, notes. Work that goes on after its event reads r.tabs instead, and
// finds none once the tab is detached. r.mu is held.
func (r *Recorder) tab(id int) *tabState {
	ts := r.tabs[id]
	if ts == nil {
		ts = newTabState()
		r.tabs[id] = ts
	}
	return ts
}

// isDurable says whether the browser keeps the bodies of target t after they end.
// r.mu is held.
func (r *Recorder) isDurable(t Target) bool {
	ts := r.tabs[t.TabID]
	return ts != nil && ts.durable[t.Session]
}

// pendingOf returns the exchange of the request of key in flight, or nil. r.mu is held.
func (r *Recorder) pendingOf(key requestKey) *pendingExchange {
	if ts := r.tabs[key.target.TabID]; ts != nil {
		return ts.pending[key]
	}
	return nil
}

// bodyOf returns the body streamed or taken for the request of key, or nil. r.mu is
// held.
func (r *Recorder) bodyOf(key requestKey) *responseBody {
	if ts := r.tabs[key.target.TabID]; ts != nil {
		return ts.bodies[key]
	}
	return nil
}

// inFlight says whether a request of any tab is in flight. r.mu is held.
func (r *Recorder) inFlight() bool {
	for _, ts := range r.tabs {
		if len(ts.pending) > 0 {
			return true
		}
	}
	return false
}

// forgetTab forgets all the recorder holds of tab, which may be attached again, once
// the requests the browser never reported are counted, and says what of them was not
// archived (see unreported): to the user, and in a note on each page that made them.
// It says so once the tab's exchanges being finished (those cut short as it was
// detached) are handed on, at most summaryWait later, so the summary comes after
// them; the wait is work the recorder does (Wait, WaitAnswered).
func (r *Recorder) forgetTab(tab int) {
	r.mu.Lock()
	ts := r.tabs[tab]
	delete(r.tabs, tab)
	if ts != nil {
		r.countUnreported(ts)
	}
	r.mu.Unlock()
	if ts == nil {
		return
	}
	msg := unreported(ts.unreported, ts.left.urls)
	if msg == "" {
		return
	}
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		waitAtMost(ts.finishes, summaryWait)
		r.report(errors.New(msg))
		r.notePages(ts.unreported, ts.left.urls)
	}()
}

// summaryWait bounds how long a tab's summary waits for its exchanges being finished.
const summaryWait = 5 * time.Second

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

// Pending returns how many requests of a tab (its workers and frames included) are
// in flight: sent and not yet finished, as far as the events handled so far tell.
func (r *Recorder) Pending(tabID int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ts := r.tabs[tabID]; ts != nil {
		return len(ts.pending)
	}
	return 0
}
