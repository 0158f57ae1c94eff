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

// Held counts, by kind, what r holds of tab: its state, the entries of it (per tab,
// and per request) and the workers and frames of the tab that its command log
// remembers as gone. Kinds it holds none of are left out: a tab the recorder holds
// nothing of gives an empty map.
func (r *Recorder) Held(tab int) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	held := map[string]int{}
	count := func(kind string, n int) {
		if n > 0 {
			held[kind] += n
		}
	}
	one := func(kind string, ok bool) {
		if ok {
			count(kind, 1)
		}
	}
	if ts := r.tabs[tab]; ts != nil {
		count("tab", 1)
		count("pending", len(ts.pending))
		count("bodies", len(ts.bodies))
		count("extras", len(ts.extras))
		count("durable", len(ts.durable))
		count("documents", len(ts.documents))
		count("navigations", len(ts.navigations))
		count("restored", len(ts.restored))
		count("passwordNames", len(ts.passwordNames))
		one("passwordAsk", ts.passwordAsk != nil)
		count("copies", len(ts.uploads.copies))
		one("copying", ts.copying)
		count("unreported", len(ts.unreported))
		one("main frame", ts.left.main != "")
		one("loading", ts.left.loading)
		one("pausing", ts.left.pausing != 0)
		count("named", len(ts.left.named))
		count("unreported named", len(ts.left.urls))
	}
	r.browser.mu.Lock()
	for t := range r.browser.gone {
		one("gone targets", t.TabID == tab)
	}
	r.browser.mu.Unlock()
	return held
}
