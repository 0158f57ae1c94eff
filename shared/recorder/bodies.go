package recorder

// The bodies of an exchange, and the ways the recorder gets them from the browser:
// a request body from its event or asked for (readRequestBody); a response body
// streamed into a spool as it arrives (stream, route), read whole when it ends
// (readWhole), or fetched again when the browser kept none of it (fetchAgain,
// fetchAgainStreamed); and the checks of what was got against what the server
// declared (declaredWhole, checkLength).

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// responseBody is a body being streamed into a spool.
type responseBody struct {
	spool    *spool   // nil if streaming failed: the body is then read whole when it ends
	awaiting bool     // streaming asked for; the data buffered before it not yet in
	early    [][]byte // data that came while awaiting
	// answered is closed once the browser answered the request to stream: awaiting
	// is then false, and spool nil if streaming failed.
	answered chan struct{}
	// fromRequest says the stream was asked for with the request, on a target with
	// durable messages, where the browser buffers nothing for a stream to start with.
	fromRequest bool
	// missed says that some of such a body arrived before streaming began and is not
	// in the spool: the body is read whole when it ends.
	missed bool
}

// streamedTypes are the resource types whose bodies a target with durable messages
// streams from their request on: those that carry downloads, media and data, where a
// body may be too large to read whole. The browser streams nothing of the others
// (images, scripts, style sheets, fonts); they are read whole when they finish.
var streamedTypes = map[string]bool{"Document": true, "Media": true, "XHR": true, "Fetch": true, "EventSource": true, "Other": true}

// large says whether a response's declared length calls for streaming.
func (r *Recorder) large(h Fields) bool {
	return declaredLength(h) > r.StreamThreshold
}

// stream starts streaming a body into a spool. The body is registered at once, so no
// data event is missed while the browser answers; what the browser had buffered before
// comes first, then what arrived meanwhile. fromRequest says the stream begins with
// the request, on a target with durable messages (see responseBody.fromRequest); large,
// that the body is known to be large, so its data is stored as it comes (route).
func (r *Recorder) stream(ctx context.Context, t Target, key requestKey, fromRequest, large bool) {
	body := &responseBody{awaiting: true, answered: make(chan struct{}), fromRequest: fromRequest, spool: newSpool(r.Store, r.BodyLimit)}
	r.mu.Lock()
	r.tab(key.target.TabID).bodies[key] = body
	r.mu.Unlock()
	if large {
		r.route(body, key)
	}
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		defer close(body.answered)
		res, err := r.browser.Send(ctx, t, "Network.streamResourceContent", map[string]any{"requestId": key.id})
		var buffered []byte
		if err == nil {
			var out struct {
				BufferedData string `json:"bufferedData"`
			}
			if err = json.Unmarshal(res, &out); err == nil {
				buffered, err = base64.StdEncoding.DecodeString(out.BufferedData)
			}
		}
		if err != nil {
			// Most often the body had already ended: it is read whole at the end.
			body.spool.remove()
			r.mu.Lock()
			defer r.mu.Unlock()
			body.awaiting, body.early = false, nil
			body.spool = nil
			if ts := r.tabs[key.target.TabID]; ts != nil {
				delete(ts.bodies, key)
			}
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		body.spool.Write(buffered)
		for _, c := range body.early {
			body.spool.Write(c)
		}
		body.awaiting, body.early = false, nil
	}()
}

// route has the host store the rest of a streamed body's data itself, when it can.
func (r *Recorder) route(body *responseBody, key requestKey) {
	if r.Router == nil || r.Store == nil || body.spool == nil || body.spool.router != nil {
		return
	}
	body.spool.route(r.Router, key.target.TabID, key.id)
}

// readRequestBody fills in the request body: postDataEntries are exact bytes; when the
// browser did not include them, they are asked for.
func (r *Recorder) readRequestBody(ctx context.Context, t Target, key requestKey, p *pendingExchange, req *cdpRequest) {
	if !req.HasPostData && req.PostData == nil && len(req.PostDataEntries) == 0 {
		return
	}
	if len(req.PostDataEntries) == 0 && req.FormFields != nil {
		p.ex.ReqBody, p.ex.ReqNote, p.ex.ReqTruncated = rebuildFormBody(p.ex.ReqHeader.Get("Content-Type"), declaredLength(p.ex.ReqHeader), req.FormFields)
		// A body not rebuilt whole (a file part, reported by its name only) takes the
		// page's copy of its form when one comes (Firefox's content script), or its
		// note says why there is none.
		p.hiddenBody = p.ex.ReqTruncated
		return
	}
	var body []byte
	complete := len(req.PostDataEntries) > 0
	hidden := false // an entry the browser keeps to itself: a file chosen by the user
	for i, e := range req.PostDataEntries {
		if e.Bytes == nil {
			complete, hidden = false, true
			continue
		}
		b, err := base64.StdEncoding.DecodeString(*e.Bytes)
		if err != nil {
			r.report(fmt.Errorf("recorder: request %s body entry %d: %w", key.id, i, err))
			complete = false
			continue
		}
		body = append(body, b...)
	}
	if complete {
		p.ex.ReqBody = body
		return
	}
	p.reqWG.Add(1)
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		defer p.reqWG.Done()
		res, err := r.browser.Send(ctx, t, "Network.getRequestPostData", map[string]any{"requestId": key.id})
		if err == nil {
			var out struct {
				PostData      string `json:"postData"`
				Base64Encoded bool   `json:"base64Encoded"`
			}
			if err = json.Unmarshal(res, &out); err == nil {
				var b []byte
				if out.Base64Encoded {
					b, err = base64.StdEncoding.DecodeString(out.PostData)
				} else {
					b = []byte(out.PostData)
				}
				if err == nil && !hidden {
					p.ex.ReqBody = b
					return
				}
				if err == nil && len(b) > len(body) {
					body = b
				}
			}
		}
		p.ex.ReqBody = body
		p.ex.ReqTruncated = true
		// A body the browser says is there but gives no byte of: a File or Blob that the
		// page sent with XHR or fetch().
		blob := err != nil && req.HasPostData && len(req.PostDataEntries) == 0 && strings.Contains(err.Error(), noPostData)
		p.hiddenBody = hidden || blob
		// A body the browser could not give at all (the request already forgotten) may
		// still be a File the page sent: its copy is taken if one matches.
		p.unreadBody = !p.hiddenBody && len(body) == 0
		switch {
		case hidden:
			p.ex.ReqNote = "request " + WhyHiddenFile + ": the archived request body lacks the file's bytes"
		case blob:
			p.ex.ReqNote = "request " + WhyHiddenBlob + ": the archived request body lacks its bytes"
		default:
			p.ex.ReqNote = "request body not available from the browser: " + err.Error()
		}
	}()
}

// takeResponseBody puts in p's exchange, as it finishes, the response body that body
// (nil if none) streamed into a spool, once the browser has answered the request to
// stream it. A body that was not streamed, or whose stream failed or missed its start,
// is read whole instead (readWhole) when its response ended normally (withBody) and
// has one, from the target where it ended, or the one where it began if the browser
// keeps bodies there.
func (r *Recorder) takeResponseBody(ctx context.Context, key requestKey, p *pendingExchange, body *responseBody, withBody bool, ended Target) {
	ex := p.ex
	var sp *spool
	if body != nil {
		// Streaming may still await what was buffered before it began.
		<-body.answered
		r.mu.Lock()
		sp = body.spool // nil if streaming failed: the body is read whole below
		missed := body.missed
		r.mu.Unlock()
		if sp != nil && missed {
			sp.remove()
			sp = nil
		}
	}
	switch {
	case sp != nil:
		if err := sp.finish(); err != nil {
			ex.RespNote = err.Error()
		}
		if b, ok := sp.held(); ok {
			ex.RespBody = b
			sp.remove()
		} else {
			ex.respSpool = sp
		}
		if sp.cut {
			ex.RespTruncated = "length"
		}
	case withBody && ex.Status != 0 && ex.Status != 204 && ex.Status != 304 && !ex.Redirected:
		// A request that began in a page and ended in another target (a worker's
		// script) is read from the page, where the browser keeps bodies.
		from := ended
		r.mu.Lock()
		if r.isDurable(key.target) {
			from = key.target
		}
		r.mu.Unlock()
		// Read at once: the browser drops what it kept for a tab when the tab
		// closes or the recording stops.
		r.readWhole(ctx, from, key.id, p)
	}
}

// declaredWhole says whether ex's archived body is as long as the server declared
// (Content-Length, with no content coding that the browser undid), and not empty.
func declaredWhole(ex *Exchange) bool {
	if ce := ex.RespHeader.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return false
	}
	n, err := strconv.ParseInt(ex.RespHeader.Get("Content-Length"), 10, 64)
	return err == nil && n > 0 && n == ex.BodyLen()
}

// ReadLeftBodies asks the browser, before recording of tab stops, for the bodies of
// the responses whose page was left and whose end it never reported (it often does
// not, for a page left at once): an exchange whose whole body it gives (as long as
// the server declared) is finished with it; the others are left to Detached, which
// marks them. An exchange whose response the browser reported only by its head on the
// wire (its page was left as the response came: for good, or into the back/forward
// cache, where it is frozen) is finished with that head and what the browser gives of
// its body, marked unless it is whole (readBodyOnWire).
func (r *Recorder) ReadLeftBodies(ctx context.Context, tab int) {
	// The requests never reported but named, whose window of pauses is not over.
	r.recoverUnreported(ctx, Target{TabID: tab}, true)
	r.mu.Lock()
	var left []requestKey
	if ts := r.tabs[tab]; ts != nil {
		for key, p := range ts.pending {
			onWire := p.ex.Status == 0 && p.respWire != nil && p.respWire.status >= 200
			if (p.ex.Status != 0 || onWire) && !p.ex.Redirected && r.pageLeft(key, p) && ts.bodies[key] == nil {
				left = append(left, key)
			}
		}
	}
	r.mu.Unlock()
	for _, key := range left {
		r.work.Add(1)
		go func() {
			defer r.work.Done()
			r.mu.Lock()
			p := r.pendingOf(key)
			var ex Exchange
			if p != nil {
				ex = *p.ex
			}
			onWire := p != nil && ex.Status == 0
			if onWire {
				p.respWire.give(&ex)
			}
			r.mu.Unlock()
			switch {
			case p == nil:
				return
			case onWire:
				switch whole := r.readBodyOnWire(ctx, key.target, key.id, &ex, whyHeadFromWire); {
				case whole && ex.BodyLen() > 0:
					ex.RespNote = fmt.Sprintf("%s, and gave all %d bytes of its body that the server declared when asked", whyHeadFromWire, ex.BodyLen())
				case whole:
					ex.RespNote = whyHeadFromWire // an answer with no body
				}
			default:
				b, err := r.getResponseBody(ctx, key.target, "Network.getResponseBody", key.id)
				if err != nil {
					return
				}
				ex.RespBody = b
				if !declaredWhole(&ex) {
					return
				}
				ex.RespNote = fmt.Sprintf("the browser never reported the end of this body (the page was left), but gave all %d bytes the server declared when asked", len(b))
			}
			r.mu.Lock()
			if r.pendingOf(key) != p || (onWire && p.ex.Status != 0) {
				// Finished meanwhile, or its response reported after all.
				r.mu.Unlock()
				return
			}
			p.ex.Status, p.ex.StatusText, p.ex.RespHeader = ex.Status, ex.StatusText, ex.RespHeader
			p.ex.RespBody, p.ex.RespNote, p.ex.RespTruncated = ex.RespBody, ex.RespNote, ex.RespTruncated
			p.headFromWire = p.headFromWire || onWire
			r.mu.Unlock()
			r.finish(ctx, key, p, false, key.target)
		}()
	}
}

// readBodyOnWire reads from the network layer (which keeps bodies, durable messages)
// the body of ex, request id of target t, whose response the browser reported only by
// its head on the wire, and why says so: unless the answer has no body, ex gets what
// the browser gives, and is marked, with why, unless that is every byte the server
// declared. It reports whether the body is whole.
func (r *Recorder) readBodyOnWire(ctx context.Context, t Target, id string, ex *Exchange, why string) bool {
	if !hasBody(ex) {
		return true
	}
	body, err := r.getResponseBody(ctx, t, "Network.getResponseBody", id)
	ex.RespBody = body
	switch {
	case err != nil:
		ex.RespTruncated, ex.RespNote = "disconnect", WhyPageLeft+" ("+why+"; the browser did not give its body: "+err.Error()+")"
	case !declaredWhole(ex):
		ex.RespTruncated = "disconnect"
		ex.RespNote = fmt.Sprintf("%s; its body (%d bytes) was asked for after and cannot be known whole (no length the server declared to compare with)", why, len(body))
		if n := declaredLength(ex.RespHeader); n >= 0 && ex.RespHeader.Get("Content-Encoding") == "" {
			ex.RespTruncated, ex.RespNote = "length", fmt.Sprintf("%s; its body was asked for after: %d of the %d bytes the server declared", why, len(body), n)
		}
	default:
		return true
	}
	return false
}

// checkLength marks a response whose archived body is not as long as the server
// declared (Content-Length, with no content coding that the browser undid) and that
// nothing marked yet: never an unmarked difference.
func checkLength(ex *Exchange) {
	if !bodyUnmarked(ex) {
		return
	}
	if ce := ex.RespHeader.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return
	}
	n, err := strconv.ParseInt(ex.RespHeader.Get("Content-Length"), 10, 64)
	if err != nil || n == ex.BodyLen() {
		return
	}
	ex.RespTruncated = "length"
	why := fmt.Sprintf("the archived body has %d of the %d bytes the server declared", ex.BodyLen(), n)
	if ex.RespNote != "" {
		why = ex.RespNote + "; " + why
	}
	ex.RespNote = why
}

// bodyUnmarked says ex's response has a body, a final one, not yet marked: one that a
// check of its length or its end may mark.
func bodyUnmarked(ex *Exchange) bool {
	return ex.RespTruncated == "" && !ex.Redirected && hasBody(ex)
}

// hasBody says whether ex's response is one that has a body: a final status that
// carries one, to a method other than HEAD.
func hasBody(ex *Exchange) bool {
	return ex.Status >= 200 && httpmsg.StatusHasBody(ex.Status) && ex.Method != "HEAD"
}

// wholeLimit is the largest body read whole: the browser keeps no more of one body.
const wholeLimit = 64 << 20

// readWhole reads a finished body from the network layer, which keeps it (durable
// messages) even after the page has gone.
func (r *Recorder) readWhole(ctx context.Context, t Target, id string, p *pendingExchange) {
	ex := p.ex
	if n, err := strconv.ParseInt(ex.RespHeader.Get("Content-Length"), 10, 64); err == nil && n > wholeLimit {
		if ex.Method == "GET" {
			why := fmt.Sprintf("the body (%d bytes) arrived before it could be streamed, and the browser keeps at most %d bytes of a body to read whole", n, wholeLimit)
			if !r.fetchAgainStreamed(ctx, t, p, why) {
				ex.RespTruncated = "length"
			}
			return
		}
		ex.RespTruncated = "length"
		ex.RespNote = fmt.Sprintf("the body (%d bytes) arrived before it could be streamed, and the browser keeps at most %d bytes of a body to read whole: it is not kept", n, wholeLimit)
		return
	}
	b, err := r.getResponseBody(ctx, t, "Network.getResponseBody", id)
	if top := (Target{TabID: t.TabID}); len(b) == 0 && p.received && t != top {
		// A worker's response that the page held (it holds its workers' requests too)
		// is kept by the page.
		if b2, err2 := r.getResponseBody(ctx, top, "Network.getResponseBody", id); err2 == nil {
			b, err = b2, nil
		}
	}
	if err != nil {
		r.mu.Lock()
		left := r.pageLeft(requestKey{t, id}, p)
		r.mu.Unlock()
		ex.RespTruncated = "unspecified"
		switch {
		case left && p.endedShown:
			ex.RespNote = WhyLeftUnread + " (it had arrived, but the browser no longer had it when asked: " + err.Error() + ")"
		case left:
			ex.RespNote = WhyPageLeft + " (the browser no longer had the body: " + err.Error() + ")"
		case p.headFromWire:
			ex.RespNote = whyHeadFromWire + ", and the browser did not give its body: " + err.Error()
		default:
			ex.RespNote = "the browser did not give the body: " + err.Error()
		}
		p.lostToDetach = lostToDetach(err)
	}
	ex.RespBody = b
	// The browser drops the body of an image it could not decode: it then gives an
	// empty body, or none.
	dropped := err == nil || strings.Contains(err.Error(), "No resource with given identifier")
	if dropped && len(b) == 0 && p.received && ex.ResourceType == "Image" && ex.Method == "GET" {
		r.fetchAgain(ctx, t, p)
	}
}

// fetchAgain fills in the body of an image the browser received but kept none of (it
// drops the body of an image it cannot decode) by fetching its URL once more through
// the tab's network stack, as the page's frame. The record says so.
func (r *Recorder) fetchAgain(ctx context.Context, t Target, p *pendingExchange) {
	ex := p.ex
	f := LoadResource(ctx, r.browser, t, p.frameID, ex.URL, true, wholeLimit)
	const why = "the browser kept none of the body it received (an image it could not decode)"
	if other := f.differs(ex, int64(len(f.Body))); other != "" {
		ex.RespNote = why + ", and fetching it again " + other
		ex.RespTruncated = "unspecified"
		return
	}
	ex.RespBody = f.Body
	ex.RespNote = why + ": this body was fetched again at " + time.Now().UTC().Format(time.RFC3339)
}

// fetchAgainStreamed fills in the body of a GET response that the browser no longer
// gives, why (a body over wholeLimit that outran the request to stream it: the browser
// gives such a body only to a stream begun before it flowed), by fetching its URL once
// more through the tab's network stack, as the page's frame, streamed into a spool. The
// record says so; if the answer differs in status or length, or names another version
// of the resource (ETag, Last-Modified), it is not the same body and is not kept, and
// fetchAgainStreamed reports false.
func (r *Recorder) fetchAgainStreamed(ctx context.Context, t Target, p *pendingExchange, why string) bool {
	ex := p.ex
	sp := newSpool(r.Store, r.BodyLimit)
	f, handle := openResource(ctx, r.browser, t, p.frameID, ex.URL, true)
	if f.Err == nil {
		if r.Router != nil && r.Store != nil {
			// The data goes from the browser's answers into the store as the events'
			// of a routed body do, and never through the recorder.
			f.Err = sp.readRouted(r.Router, t, handle, r.browser.touch)
			r.browser.Send(ctx, t, "IO.close", map[string]any{"handle": handle})
		} else {
			_, f.Err = copyStream(ctx, r.browser, t, handle, sp, -1)
		}
	}
	if err := sp.finish(); err != nil && f.Err == nil {
		f.Err = err
	}
	size := sp.size
	if sp.cut {
		size = -1 // the body limit cut it: its length is unknown
	}
	if other := f.differs(ex, size); other != "" {
		ex.RespNote = why + "; fetching it again " + other
		sp.remove()
		return false
	}
	ex.RespNote = why + ": this body was fetched again at " + time.Now().UTC().Format(time.RFC3339)
	if b, ok := sp.held(); ok {
		ex.RespBody = b
		sp.remove()
	} else {
		ex.respSpool = sp
	}
	if sp.cut {
		ex.RespTruncated = "length"
	}
	return true
}

// validators are the response fields by which a server says which version of a
// resource it sent.
var validators = []string{"ETag", "Last-Modified"}

// differs says how an answer of size bytes (negative: unknown) to fetching ex's URL
// again shows that it is not the body ex stands for ("gave status 404, not 200"), or
// returns "" if nothing does: it failed, or its status, its length (when ex's
// response declared one) or a validator that both answers carry differs.
func (f LoadedResource) differs(ex *Exchange, size int64) string {
	if f.Err != nil {
		return "failed: " + f.Err.Error()
	}
	if f.Status != ex.Status {
		return fmt.Sprintf("gave status %d, not %d", f.Status, ex.Status)
	}
	if n := ex.RespHeader.Get("Content-Length"); n != "" && size >= 0 && n != strconv.FormatInt(size, 10) {
		return fmt.Sprintf("gave %d bytes, not the %s of the response", size, n)
	}
	again := fieldsFromMap(f.Header)
	for _, name := range validators {
		if was, now := ex.RespHeader.Get(name), again.Get(name); was != "" && now != "" && was != now {
			return fmt.Sprintf("gave another version of it (%s %s, not %s)", name, now, was)
		}
	}
	return ""
}

// getResponseBody calls a getResponseBody command (Fetch or Network) and decodes the
// body.
func (r *Recorder) getResponseBody(ctx context.Context, t Target, method, id string) ([]byte, error) {
	res, err := r.browser.Send(ctx, t, method, map[string]any{"requestId": id})
	if err != nil {
		return nil, err
	}
	var out struct {
		Body          string `json:"body"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if out.Base64Encoded {
		return base64.StdEncoding.DecodeString(out.Body)
	}
	return []byte(out.Body), nil
}

// declaredLength is the Content-Length of h, or -1 if it has none.
func declaredLength(h Fields) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get("Content-Length")), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
