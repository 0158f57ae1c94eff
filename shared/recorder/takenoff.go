package recorder

// A tab the browser takes the debugger off while it stays open. Chromium shows a PDF in
// its PDF viewer, a frame of one of its own extensions, and takes an extension's
// debugger off a tab that shows one, saying target_closed as for a tab closed; the
// PDF's body goes to the viewer, and the browser gives none of it (found in Chromium
// 156; scripts/probe/pdfrecord.mjs). The host then attaches again, which the browser
// allows on the PDF itself, and says so (Resumed): the tab is recorded on, and a
// document whose body was lost to the detach is fetched again through the tab, its
// record saying so (fetchLostBody).

import (
	"context"
	"errors"
	"strings"
	"time"
)

// ReasonTakenOff is the reason Detached is given for a tab whose debugger the browser
// took off while the tab stays open: the host attaches again, then calls Resumed.
const ReasonTakenOff = "the browser took the debugger off the tab, which stays open (it shows a page no extension may debug, such as Chromium's PDF viewer)"

// resumeWait is how long a body lost to a detach waits to know whether its tab is
// attached again: the host knows a tab stayed open a moment after the detach.
const resumeWait = 5 * time.Second

// A resumption says whether a tab the debugger left was attached again. It is kept,
// once known, for the bodies that ask after (an exchange cut by the detach is finished
// after it), until the tab is enabled again (forgetResumption).
type resumption struct {
	done chan struct{} // closed once known
	ok   bool
}

// resumeOf returns the tab's resumption: the one under way or known, or a new one.
// r.mu must be held.
func (r *Recorder) resumeOf(tabID int) *resumption {
	res := r.resumes[tabID]
	if res == nil {
		res = &resumption{done: make(chan struct{})}
		r.resumes[tabID] = res
	}
	return res
}

// forgetResumption forgets what is known of a tab's last detach, as it is enabled: a
// detach after this one is another's. One still waited for is kept.
func (r *Recorder) forgetResumption(tabID int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if res := r.resumes[tabID]; res != nil {
		select {
		case <-res.done:
			delete(r.resumes, tabID)
		default:
		}
	}
}

// Resumed says whether a tab the debugger left (Detached) was attached again: the
// bodies lost to the detach are then fetched again, or marked lost.
func (r *Recorder) Resumed(tabID int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.resumeOf(tabID)
	select {
	case <-res.done:
		res = &resumption{done: make(chan struct{})} // an earlier detach's: this one's replaces it
		r.resumes[tabID] = res
	default:
	}
	res.ok = ok
	close(res.done)
}

// awaitResume reports whether the tab was attached again after the debugger left it,
// waiting resumeWait at most to know.
func (r *Recorder) awaitResume(ctx context.Context, tabID int) bool {
	r.mu.Lock()
	res := r.resumeOf(tabID)
	r.mu.Unlock()
	timer := time.NewTimer(resumeWait)
	defer timer.Stop()
	select {
	case <-res.done:
		return res.ok
	case <-timer.C:
	case <-ctx.Done():
	}
	r.mu.Lock()
	if r.resumes[tabID] == res {
		delete(r.resumes, tabID)
	}
	r.mu.Unlock()
	return false
}

// lostToDetach says whether a command failed because the debugger had left the tab.
func lostToDetach(err error) bool {
	return errors.Is(err, errTargetGone) || strings.Contains(err.Error(), "is not attached")
}

// whyTakenOff is what the record of a body fetched again after the debugger was taken
// off says.
const whyTakenOff = "the browser took the debugger off the tab before the body could be read (it showed the document in a viewer no extension may debug, such as Chromium's PDF viewer)"

// fetchLostBody fills in the body of a GET document of the tab (the tab's or a frame's
// in its process) that was lost because the debugger left the tab (p.lostToDetach),
// once the tab is attached again, by fetching it again through the tab as its frame
// (fetchAgainStreamed). A tab not attached again, or a frame gone, leaves the record as
// it was, the failure to fetch it again added to its note.
func (r *Recorder) fetchLostBody(ctx context.Context, key requestKey, p *pendingExchange) {
	ex := p.ex
	if ex.Method != "GET" || ex.ResourceType != "Document" || key.target.Session != "" || ex.Status != 200 || ex.Redirected {
		return
	}
	if !r.awaitResume(ctx, key.target.TabID) {
		return
	}
	before := *ex
	ex.RespBody, ex.respSpool, ex.RespTruncated = nil, nil, ""
	if r.fetchAgainStreamed(ctx, Target{TabID: key.target.TabID}, p, whyTakenOff) {
		if before.respSpool != nil {
			before.respSpool.remove()
		}
		return
	}
	note := ex.RespNote
	*ex = before
	ex.RespNote += "; " + note
}
