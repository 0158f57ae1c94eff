package recorder

// The DevTools messages the recorder reads, as they are decoded: the request and
// response objects of the Network domain, the params of each event it acts on (the
// fields decoded are those EventFields lists), and what is taken from them as they are.

import (
	"math"
	"strings"
	"time"
)

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

// WireResponse is the response object of Network.responseReceived, as the recorder
// reads it; a host that makes the events itself (Firefox's, shared/webrequest)
// writes it.
type WireResponse struct {
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
		RequestID        string        `json:"requestId"`
		Request          cdpRequest    `json:"request"`
		WallTime         float64       `json:"wallTime"`
		RedirectResponse *WireResponse `json:"redirectResponse"`
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
		RequestID string       `json:"requestId"`
		Response  WireResponse `json:"response"`
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
			URL  string `json:"url"`
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

func setResponse(ex *Exchange, res *WireResponse) {
	ex.Status = res.Status
	ex.StatusText = res.StatusText
	ex.RespHeader = fieldsFromMap(res.Headers)
	ex.Protocol = res.Protocol
	ex.RemoteIP = strings.Trim(res.RemoteIPAddress, "[]")
}

// ArchivedPrefixes are how the URLs the recorder archives begin: those of what is
// fetched over the network (not data:, blob: or the browser's own).
var ArchivedPrefixes = []string{"http://", "https://"}

// extensionScheme begins the URL of an extension's page (Chromium's).
const extensionScheme = "chrome-extension://"

// archivable reports whether a URL names something fetched over the network.
func archivable(u string) bool {
	for _, p := range ArchivedPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

func wallTime(sec float64) time.Time {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return time.Now().UTC()
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC()
}
