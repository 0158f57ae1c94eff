package webrequest

import (
	"encoding/json"
	"time"
)

// OpenWait is how long the background page holds the requests of a tab that a
// recorded tab opened, waiting for the core to attach it (capture's TabCreated): its
// first request can come before that, and Firefox gives a tab the address it is
// loading only once the response comes, so a first load that went by unseen could not
// be loaded again. A tab not attached within OpenWait goes on unrecorded.
const OpenWait = 10 * time.Second

// Attached notes that tab is now recorded; heldFromStart says that every request of
// it so far waited for this (the background page held them, OpenWait): nothing of it
// was loaded unseen.
func (t *Translator) Attached(tab int, heldFromStart bool) {
	if heldFromStart {
		t.heldFromStart[tab] = true
	} else {
		delete(t.heldFromStart, tab)
	}
}

// navigationHistory answers Page.getNavigationHistory, which the recorder asks to
// load a tab again once it is attached (recorder.CatchUp), for a tab that was held
// from its start: no entry, for nothing of it is to be loaded again. The answer is
// given once. ok is false for any other tab, whose address the background page gives.
func (t *Translator) navigationHistory(tab int) (result json.RawMessage, ok bool) {
	if !t.heldFromStart[tab] {
		return nil, false
	}
	delete(t.heldFromStart, tab)
	return json.RawMessage(`{"currentIndex":-1,"entries":[]}`), true
}
