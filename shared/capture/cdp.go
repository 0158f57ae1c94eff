package capture

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Target names one DevTools target: a tab, and within it a child session (a frame or a
// worker attached automatically), empty for the tab itself.
type Target struct {
	TabID   int    `json:"tabId"`
	Session string `json:"sessionId,omitempty"`
}

// Browser sends DevTools Protocol commands to a target and returns the result object.
// In the extension it is chrome.debugger.sendCommand.
type Browser interface {
	Send(ctx context.Context, t Target, method string, params any) (json.RawMessage, error)
}

// Page is one top-level document the user visited.
type Page struct {
	ID    string    `json:"id"`
	URL   string    `json:"url"`
	Title string    `json:"title,omitempty"`
	TS    time.Time `json:"ts"`
	TabID int       `json:"tabId"`
}

// Recorder assembles DevTools Network events into exchanges. Events must be handed to
// HandleEvent in the order the browser emitted them, from one goroutine.
type Recorder struct {
	browser Browser
	// OnExchange receives every finished exchange: completed, redirected or failed.
	OnExchange func(*Exchange)
	// OnPage receives every top-level navigation.
	OnPage func(Page)
	// OnError receives problems that did not stop recording (a body that could not be
	// read, say), for the user to see.
	OnError func(error)

	pending map[requestKey]*pendingExchange
}

type requestKey struct {
	target Target
	id     string
}

type pendingExchange struct {
	ex        *Exchange
	streaming bool     // streamResourceContent succeeded: data arrives with dataReceived
	chunks    [][]byte // response body as it arrives
	extra     Fields   // request headers as sent on the wire (ExtraInfo)
}

// NewRecorder returns a recorder that issues its commands through b.
func NewRecorder(b Browser) *Recorder {
	return &Recorder{browser: b, pending: make(map[requestKey]*pendingExchange)}
}

// Enable prepares a newly attached target: the Network and Page domains, with buffers
// large enough that a body is not evicted before it is read.
func (r *Recorder) Enable(ctx context.Context, t Target) error {
	steps := []struct {
		method string
		params any
	}{
		{"Network.enable", map[string]any{
			"maxTotalBufferSize":    512 << 20,
			"maxResourceBufferSize": 256 << 20,
			"maxPostDataSize":       64 << 20,
		}},
		{"Page.enable", nil},
		// The cache would answer repeat loads without a body to record.
		{"Network.setCacheDisabled", map[string]any{"cacheDisabled": true}},
	}
	for _, s := range steps {
		if _, err := r.browser.Send(ctx, t, s.method, s.params); err != nil {
			return fmt.Errorf("capture: %s on tab %d: %w", s.method, t.TabID, err)
		}
	}
	return nil
}

// cdpRequest is the request object of Network.requestWillBeSent.
type cdpRequest struct {
	URL             string            `json:"url"`
	URLFragment     string            `json:"urlFragment"`
	Method          string            `json:"method"`
	Headers         map[string]string `json:"headers"`
	PostData        *string           `json:"postData"`
	HasPostData     bool              `json:"hasPostData"`
	PostDataEntries []struct {
		Bytes *string `json:"bytes"`
	} `json:"postDataEntries"`
}

// cdpResponse is the response object of Network.responseReceived.
type cdpResponse struct {
	URL             string            `json:"url"`
	Status          int               `json:"status"`
	StatusText      string            `json:"statusText"`
	Headers         map[string]string `json:"headers"`
	Protocol        string            `json:"protocol"`
	RemoteIPAddress string            `json:"remoteIPAddress"`
}

// HandleEvent takes one DevTools event of target t.
func (r *Recorder) HandleEvent(ctx context.Context, t Target, method string, params json.RawMessage) error {
	switch method {
	case "Network.requestWillBeSent":
		var ev struct {
			RequestID        string       `json:"requestId"`
			Request          cdpRequest   `json:"request"`
			WallTime         float64      `json:"wallTime"`
			RedirectResponse *cdpResponse `json:"redirectResponse"`
			Type             string       `json:"type"`
			DocumentURL      string       `json:"documentURL"`
		}
		if err := json.Unmarshal(params, &ev); err != nil {
			return fmt.Errorf("capture: %s: %w", method, err)
		}
		key := requestKey{t, ev.RequestID}
		if p := r.pending[key]; p != nil && ev.RedirectResponse != nil {
			setResponse(p.ex, ev.RedirectResponse)
			p.ex.Redirected = true
			r.finish(key, p)
		}
		if !archivable(ev.Request.URL) {
			return nil
		}
		ex := &Exchange{
			Started:      wallTime(ev.WallTime),
			Method:       ev.Request.Method,
			URL:          ev.Request.URL,
			ReqHeader:    fieldsFromMap(ev.Request.Headers),
			PageURL:      ev.DocumentURL,
			ResourceType: ev.Type,
		}
		p := &pendingExchange{ex: ex}
		r.pending[key] = p
		r.readRequestBody(ctx, t, key, p, &ev.Request)
	case "Network.requestWillBeSentExtraInfo":
		var ev struct {
			RequestID string            `json:"requestId"`
			Headers   map[string]string `json:"headers"`
		}
		if err := json.Unmarshal(params, &ev); err != nil {
			return fmt.Errorf("capture: %s: %w", method, err)
		}
		if p := r.pending[requestKey{t, ev.RequestID}]; p != nil && p.extra == nil {
			p.extra = fieldsFromMap(ev.Headers)
		}
	case "Network.responseReceived":
		var ev struct {
			RequestID string      `json:"requestId"`
			Response  cdpResponse `json:"response"`
		}
		if err := json.Unmarshal(params, &ev); err != nil {
			return fmt.Errorf("capture: %s: %w", method, err)
		}
		key := requestKey{t, ev.RequestID}
		p := r.pending[key]
		if p == nil {
			return nil
		}
		setResponse(p.ex, &ev.Response)
		res, err := r.browser.Send(ctx, t, "Network.streamResourceContent", map[string]any{"requestId": ev.RequestID})
		if err != nil {
			r.report(fmt.Errorf("DEBUG stream %s: %w", p.ex.URL, err))
		}
		if err == nil {
			var out struct {
				BufferedData string `json:"bufferedData"`
			}
			if json.Unmarshal(res, &out) == nil {
				if b, err := base64.StdEncoding.DecodeString(out.BufferedData); err == nil {
					p.streaming = true
					if len(b) > 0 {
						p.chunks = append(p.chunks, b)
					}
				}
			}
		}
	case "Network.dataReceived":
		var ev struct {
			RequestID string `json:"requestId"`
			Data      string `json:"data"`
		}
		if err := json.Unmarshal(params, &ev); err != nil {
			return fmt.Errorf("capture: %s: %w", method, err)
		}
		if p := r.pending[requestKey{t, ev.RequestID}]; p != nil && p.streaming && ev.Data != "" {
			b, err := base64.StdEncoding.DecodeString(ev.Data)
			if err != nil {
				return fmt.Errorf("capture: %s %s: data: %w", method, ev.RequestID, err)
			}
			p.chunks = append(p.chunks, b)
		}
	case "Network.loadingFinished":
		var ev struct {
			RequestID string `json:"requestId"`
		}
		if err := json.Unmarshal(params, &ev); err != nil {
			return fmt.Errorf("capture: %s: %w", method, err)
		}
		key := requestKey{t, ev.RequestID}
		p := r.pending[key]
		if p == nil {
			return nil
		}
		if !p.streaming {
			r.fetchBody(ctx, t, p, ev.RequestID)
		}
		r.finish(key, p)
	case "Network.loadingFailed":
		var ev struct {
			RequestID string `json:"requestId"`
			ErrorText string `json:"errorText"`
			Canceled  bool   `json:"canceled"`
		}
		if err := json.Unmarshal(params, &ev); err != nil {
			return fmt.Errorf("capture: %s: %w", method, err)
		}
		key := requestKey{t, ev.RequestID}
		p := r.pending[key]
		if p == nil {
			return nil
		}
		p.ex.Failure = ev.ErrorText
		if ev.Canceled {
			p.ex.Failure = "canceled: " + ev.ErrorText
		}
		r.finish(key, p)
	case "Page.frameNavigated":
		var ev struct {
			Frame struct {
				ID       string `json:"id"`
				ParentID string `json:"parentId"`
				URL      string `json:"url"`
				Fragment string `json:"urlFragment"`
			} `json:"frame"`
		}
		if err := json.Unmarshal(params, &ev); err != nil {
			return fmt.Errorf("capture: %s: %w", method, err)
		}
		if ev.Frame.ParentID == "" && t.Session == "" && archivable(ev.Frame.URL) && r.OnPage != nil {
			r.OnPage(Page{URL: ev.Frame.URL + ev.Frame.Fragment, TS: time.Now().UTC(), TabID: t.TabID})
		}
	}
	return nil
}

// Detached drops what is pending for a target that went away (closed tab, navigation to
// a page the debugger cannot follow): each unfinished exchange is kept, marked as cut.
func (r *Recorder) Detached(t Target, reason string) {
	for key, p := range r.pending {
		if key.target.TabID != t.TabID {
			continue
		}
		if p.ex.Status == 0 {
			p.ex.Failure = "detached: " + reason
		} else {
			p.ex.RespNote = "detached before the body ended: " + reason
		}
		r.finish(key, p)
	}
}

// readRequestBody fills in the request body: postDataEntries are exact bytes; when the
// browser did not include them, they are asked for.
func (r *Recorder) readRequestBody(ctx context.Context, t Target, key requestKey, p *pendingExchange, req *cdpRequest) {
	if !req.HasPostData && req.PostData == nil && len(req.PostDataEntries) == 0 {
		return
	}
	var body []byte
	complete := len(req.PostDataEntries) > 0
	for i, e := range req.PostDataEntries {
		if e.Bytes == nil {
			complete = false
			continue
		}
		b, err := base64.StdEncoding.DecodeString(*e.Bytes)
		if err != nil {
			r.report(fmt.Errorf("capture: request %s body entry %d: %w", key.id, i, err))
			complete = false
			continue
		}
		body = append(body, b...)
	}
	if complete {
		p.ex.ReqBody = body
		return
	}
	res, err := r.browser.Send(ctx, t, "Network.getRequestPostData", map[string]any{"requestId": key.id})
	if err == nil {
		var out struct {
			PostData      string `json:"postData"`
			Base64Encoded bool   `json:"base64Encoded"`
		}
		if err = json.Unmarshal(res, &out); err == nil {
			if out.Base64Encoded {
				body, err = base64.StdEncoding.DecodeString(out.PostData)
			} else {
				body = []byte(out.PostData)
			}
		}
		if err == nil {
			p.ex.ReqBody = body
			return
		}
	}
	p.ex.ReqBody = body
	p.ex.ReqNote = "request body not available from the browser (a file chosen by the user, or a stream): " + err.Error()
}

// fetchBody reads a body that was not streamed (cached, or finished before streaming
// could start).
func (r *Recorder) fetchBody(ctx context.Context, t Target, p *pendingExchange, id string) {
	if p.ex.Status == 0 || p.ex.Status == 204 || p.ex.Status == 304 || (p.ex.Status >= 300 && p.ex.Status < 400) {
		return
	}
	res, err := r.browser.Send(ctx, t, "Network.getResponseBody", map[string]any{"requestId": id})
	if err == nil {
		var out struct {
			Body          string `json:"body"`
			Base64Encoded bool   `json:"base64Encoded"`
		}
		if err = json.Unmarshal(res, &out); err == nil {
			if out.Base64Encoded {
				var b []byte
				if b, err = base64.StdEncoding.DecodeString(out.Body); err == nil {
					p.chunks = [][]byte{b}
					return
				}
			} else {
				p.chunks = [][]byte{[]byte(out.Body)}
				return
			}
		}
	}
	p.ex.RespNote = "response body not available from the browser: " + err.Error()
}

func (r *Recorder) finish(key requestKey, p *pendingExchange) {
	delete(r.pending, key)
	if p.extra != nil {
		p.ex.ReqHeader = p.extra
	}
	if len(p.chunks) == 1 {
		p.ex.RespBody = p.chunks[0]
	} else if len(p.chunks) > 1 {
		n := 0
		for _, c := range p.chunks {
			n += len(c)
		}
		body := make([]byte, 0, n)
		for _, c := range p.chunks {
			body = append(body, c...)
		}
		p.ex.RespBody = body
	}
	if r.OnExchange != nil {
		r.OnExchange(p.ex)
	}
}

func (r *Recorder) report(err error) {
	if r.OnError != nil {
		r.OnError(err)
	}
}

func setResponse(ex *Exchange, res *cdpResponse) {
	ex.Status = res.Status
	ex.StatusText = res.StatusText
	ex.RespHeader = fieldsFromMap(res.Headers)
	ex.Protocol = res.Protocol
	ex.RemoteIP = strings.Trim(res.RemoteIPAddress, "[]")
}

// archivable reports whether a URL names something fetched over the network.
func archivable(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

func wallTime(sec float64) time.Time {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return time.Now().UTC()
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC()
}
