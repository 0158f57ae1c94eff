package recorder

import "errors"

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
	if msg := unreported(ts.unreported, ts.left.urls); msg != "" {
		r.report(errors.New(msg))
		r.notePages(ts.unreported, ts.left.urls)
	}
}
