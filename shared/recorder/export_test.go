package recorder

import "time"

// The external tests (package recorder_test) size their bodies by these.
const (
	IOReadSize = ioReadSize
	WholeLimit = wholeLimit
)

// SetExtraWait sets how long an ending hop waits for its ExtraInfo, and returns a
// function that sets it back.
func SetExtraWait(d time.Duration) (restore func()) {
	old := extraWait
	extraWait = d
	return func() { extraWait = old }
}

// Held counts, by kind, what r holds of tab: the entries of its per-tab and
// per-request state that are left, and the workers and frames of it that its command
// log remembers as gone. Kinds it holds none of are left out: a tab the recorder
// holds nothing of gives an empty map.
func (r *Recorder) Held(tab int) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	held := map[string]int{}
	count := func(kind string, n int) {
		if n > 0 {
			held[kind] += n
		}
	}
	ofTab := func(k requestKey) int {
		if k.target.TabID == tab {
			return 1
		}
		return 0
	}
	for k := range r.pending {
		count("pending", ofTab(k))
	}
	for k := range r.bodies {
		count("bodies", ofTab(k))
	}
	for k := range r.extras {
		count("extras", ofTab(k))
	}
	for k := range r.left.named {
		count("named", ofTab(k))
	}
	for t := range r.durable {
		count("durable", ofTab(requestKey{target: t}))
	}
	for k := range r.documents {
		if k.tab == tab {
			count("documents", 1)
		}
	}
	for k := range r.navigations {
		if k.tab == tab {
			count("navigations", 1)
		}
	}
	count("cached", len(r.cached[tab]))
	if _, ok := r.passwordNames[tab]; ok {
		count("passwordNames", 1)
	}
	if r.passwordAsks[tab] != nil {
		count("passwordAsks", 1)
	}
	if u := r.uploads[tab]; u != nil {
		count("uploads", 1+len(u.copies))
	}
	if _, ok := r.copying[tab]; ok {
		count("copying", 1)
	}
	count("unreported", len(r.unreportedPages[tab]))
	if _, ok := r.left.main[tab]; ok {
		count("main frame", 1)
	}
	if _, ok := r.left.loading[tab]; ok {
		count("loading", 1)
	}
	if _, ok := r.left.pausing[tab]; ok {
		count("pausing", 1)
	}
	count("unreported named", len(r.left.urls[tab]))
	r.browser.mu.Lock()
	for t := range r.browser.gone {
		count("gone targets", ofTab(requestKey{target: t}))
	}
	r.browser.mu.Unlock()
	return held
}
