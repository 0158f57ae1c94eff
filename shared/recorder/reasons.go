package recorder

// The reasons an exchange is archived incomplete, and the labels that say them in its
// record (Failure, RespNote, ReqNote, RespTruncated) when the browser failed it, left
// its end unsure, began another request under its id, or went away before its end.

import (
	"fmt"
	"time"
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
