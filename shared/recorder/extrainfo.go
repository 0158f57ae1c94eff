package recorder

// The headers as they were on the wire: the browser reports them apart
// (Network.requestWillBeSentExtraInfo and responseReceivedExtraInfo), before or after
// the hops they belong to; each request's are queued and given to its hops in order
// (extraQueue), and an ending hop waits a moment for those announced (takeExtra).

import (
	"slices"
	"strings"
	"time"
)

// responseWire is a response's head as the browser received it (ExtraInfo).
type responseWire struct {
	status     int
	statusText string // from the raw status line, when there is one
	header     Fields
}

// give makes w the response head of ex.
func (w responseWire) give(ex *Exchange) {
	ex.Status, ex.StatusText, ex.RespHeader = w.status, w.statusText, w.header
}

// wire returns the response head that ev reports: the raw header block when the
// browser gives one (HTTP/1.x: every line in its order, repeated fields kept), else
// the header object, whose repeated fields the browser joined with "\n".
func (ev *responseExtraInfo) wire() responseWire {
	w := responseWire{status: ev.StatusCode}
	if ev.HeadersText != "" {
		if text, header, ok := parseHeadBlock(ev.HeadersText); ok {
			w.statusText, w.header = text, header
			return w
		}
	}
	w.header = fieldsFromMap(ev.Headers)
	return w
}

// parseHeadBlock parses a raw HTTP/1.x response head ("HTTP/1.1 200 OK\r\nName:
// value\r\n...") into its reason phrase and its fields, in order. Folded lines
// (obsolete, but still sent) continue the field before them. ok is false when the
// text does not begin with a status line.
func parseHeadBlock(text string) (reason string, header Fields, ok bool) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	status := strings.SplitN(lines[0], " ", 3)
	if len(status) < 2 || !strings.HasPrefix(status[0], "HTTP/") {
		return "", nil, false
	}
	if len(status) == 3 {
		reason = strings.TrimSpace(status[2])
	}
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(header) > 0 {
			header[len(header)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		name, value, found := strings.Cut(line, ":")
		if !found || !httpToken(strings.TrimSpace(name)) {
			continue // not a field line
		}
		header = append(header, Field{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	return reason, header, true
}

// httpToken says whether s is an HTTP token (RFC 9110, 5.6.2), as a field name is.
func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// extraQueue matches the ExtraInfo events of one request id with its hops (a request
// and the requests its redirects led to). The browser sends them in the order of the
// hops, but before or after the hops' own events: each kind is given to the hops in
// order, whichever comes first.
type extraQueue struct {
	hops      []*pendingExchange // hops that still lack some of their ExtraInfo
	requests  []Fields
	responses []responseWire
	// reported says the browser reported the request itself (requestWillBeSent):
	// without it, the queue holds all the recorder knows of a request (see
	// unreported).
	reported bool
	// since is when the queue was made: the request's first ExtraInfo came then, or
	// the request itself.
	since time.Time
}

// maxExtraQueues bounds the requests whose ExtraInfo waits for their hops: events of
// requests the recorder never saw begin (they began before it attached) are dropped
// beyond it.
const maxExtraQueues = 4096

// extraQueue returns the queue of key's request id, made if there is none. r.mu is held.
func (r *Recorder) extraQueue(key requestKey) *extraQueue {
	ts := r.tab(key.target.TabID)
	if q := ts.extraQueueOf(key); q != nil {
		return q
	}
	if r.extraQueues() >= maxExtraQueues {
		for _, other := range r.tabs {
			r.countUnreported(other)
		}
	}
	q := &extraQueue{since: time.Now()}
	ts.extras[key] = q
	return q
}

// extraQueueOf returns the queue of key's request id, of any target of the tab, or nil.
func (ts *tabState) extraQueueOf(key requestKey) *extraQueue {
	if q := ts.extras[key]; q != nil {
		return q
	}
	for k, q := range ts.extras {
		if k.id == key.id {
			return q
		}
	}
	return nil
}

// extraQueues counts the queues of ExtraInfo of all tabs. r.mu is held.
func (r *Recorder) extraQueues() int {
	n := 0
	for _, ts := range r.tabs {
		n += len(ts.extras)
	}
	return n
}

// addHop adds a new hop of key's request, which takes the ExtraInfo waiting for it.
// r.mu is held.
func (r *Recorder) addHop(key requestKey, p *pendingExchange) {
	q := r.extraQueue(key)
	q.reported = true
	q.hops = append(q.hops, p)
	q.match()
}

// match gives the waiting ExtraInfo to the hops, in order. A response's ExtraInfo is
// for the first hop still without one, unless that hop's response is known and has
// another status: then that hop never gets one (it was given up waiting).
func (q *extraQueue) match() {
	for _, p := range q.hops {
		if p.extra == nil && len(q.requests) > 0 {
			p.extra, q.requests = q.requests[0], q.requests[1:]
		}
	}
	for _, p := range q.hops {
		if p.respWire != nil {
			continue
		}
		// A 304 on the wire may be given to the page as the cached copy's status.
		for len(q.responses) > 0 && p.ex.Status != 0 && q.responses[0].status != 0 && q.responses[0].status != p.ex.Status && q.responses[0].status != 304 {
			q.responses = q.responses[1:] // a late one for a hop already given up on
		}
		if len(q.responses) == 0 {
			break
		}
		w := q.responses[0]
		p.respWire, q.responses = &w, q.responses[1:]
	}
	q.hops = slices.DeleteFunc(q.hops, func(p *pendingExchange) bool { return p.extra != nil && p.respWire != nil })
}

// extraWait bounds how long an ending hop waits for the ExtraInfo events the browser
// announced and has not sent yet. (A variable for the tests.)
var extraWait = 2 * time.Second

// takeExtra waits, up to extraWait, for the ExtraInfo of p that the browser
// announced, then puts the wire headers in p's exchange and forgets p's place in the
// queue. An answer of the renderer's memory cache made no request of the network,
// which sends the ExtraInfo events: none comes, though its response still says it has
// them, as the one it was cached from did (waiting for them held the reading of its
// body back until its page had been left and the body was gone).
func (r *Recorder) takeExtra(key requestKey, p *pendingExchange) {
	deadline := time.Now().Add(extraWait)
	for {
		r.mu.Lock()
		done := p.noWait || !p.wantExtra || p.cache == "memory" || p.extra != nil && (p.respWire != nil || p.ex.Status == 0)
		if done || time.Now().After(deadline) {
			// A tab detached meanwhile has no queues left.
			if ts := r.tabs[key.target.TabID]; ts != nil {
				q := r.extraQueue(key)
				q.hops = slices.DeleteFunc(q.hops, func(h *pendingExchange) bool { return h == p })
				if len(q.hops) == 0 && len(q.requests) == 0 && len(q.responses) == 0 {
					for k, v := range ts.extras {
						if v == q {
							delete(ts.extras, k)
						}
					}
				}
			}
			extra, wire := p.extra, p.respWire
			r.mu.Unlock()
			if extra != nil {
				p.ex.ReqHeader = extra
			}
			if wire != nil && wire.status == 304 && p.ex.Status != 304 && p.ex.Status != 0 {
				// The browser's HTTP cache revalidated its copy and gave the page that
				// copy: the page's head is the one archived, with its body.
				p.revalidated = true
			} else if wire != nil && p.ex.Status != 0 {
				p.ex.RespHeader = wire.header
				if wire.statusText != "" {
					p.ex.StatusText = wire.statusText
				}
			}
			return
		}
		r.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

// headFromWire gives p's exchange the response head the wire carried (ExtraInfo) when
// the browser never reported the response itself and the exchange's document is one
// the browser keeps in its back/forward cache (it has shown it again from there).
// Chromium drops its report of a response to a DevTools client when the response comes
// as the page that asked for it is left into the cache, though the head's ExtraInfo,
// sent by the network layer, still comes; the request stays open, frozen with the
// page, and its end is reported when the page is shown again. It is called when the
// end is reported or the exchange is cut (Stop): the exchange had a response, and its
// body is read, or marked, as any other's. The exchanges of a page left for good, or
// left into the cache and never shown again (which is not known to be there), take
// the wire's head before the recording stops, in ReadLeftBodies; not here, when the
// tab is already detached and their bodies can no longer be asked for. r.mu is held.
func (r *Recorder) headFromWire(key requestKey, p *pendingExchange) {
	w := p.respWire
	ts := r.tabs[key.target.TabID]
	if p.ex.Status != 0 || w == nil || w.status < 200 || ts == nil || !ts.restored[p.loaderID] {
		return
	}
	w.give(p.ex)
	p.headFromWire = true
}

// whyHeadFromWire begins the note of an exchange whose response the browser never
// reported (see headFromWire) when its body could not be read.
const whyHeadFromWire = "the browser never reported this response, only its head on the wire, which came as its page was left"
