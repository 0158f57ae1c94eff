package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// An Answer says how a replayed request is answered: what the browser's
// Fetch.fulfillRequest gets (status, header) and what the replay bar shows.
type Answer struct {
	Status  int           `json:"status"`
	Reason  string        `json:"reason,omitempty"`
	Headers []HeaderField `json:"headers"`
	// Archived is false for the "not archived" page.
	Archived    bool   `json:"archived"`
	URL         string `json:"url"`                 // the requested URL
	Timestamp   string `json:"timestamp,omitempty"` // the capture's
	Approximate bool   `json:"approximate,omitempty"`
	Why         string `json:"why,omitempty"`
}

// A HeaderField is one header line, as the DevTools protocol names them.
type HeaderField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// AnswerHeader is the HTTP header of the API's answer that carries the Answer, as
// base64 of its JSON (header values must be ASCII); the body is the replayed body.
const AnswerHeader = "X-Webkeep-Answer"

// Serve answers r from ix and the WARC file f, the capture nearest to at, and
// writes it to w: status 200, the Answer in AnswerHeader, the body streamed. A
// request nothing answers gets the "not archived" page (Answer.Status 404,
// Archived false). The Answer is returned for the log.
func (ix *Index) Serve(w httpmsg.ResponseWriter, r *Request, at string, f File) Answer {
	a := Answer{URL: r.URL}
	m, ok := ix.Lookup(r, at)
	var why string
	if ok {
		resp, err := ix.Open(f, m.Capture)
		if err == nil {
			defer resp.Body.Close()
			a.Status, a.Reason, a.Archived = resp.Status, resp.Reason, true
			a.Timestamp, a.Approximate, a.Why = m.Capture.Timestamp, m.Approximate, m.Why
			a.Headers = fields(resp.Header)
			writeAnswer(w, a)
			io.Copy(w, resp.Body)
			return a
		}
		why = err.Error()
	}
	a.Status, a.Reason = httpmsg.StatusNotFound, "Not Archived"
	a.Headers = []HeaderField{{"Content-Type", "text/html; charset=utf-8"}, {"Cache-Control", "no-store"}}
	a.Why = why
	writeAnswer(w, a)
	io.WriteString(w, NotArchivedPage(r.Method, r.URL, why))
	return a
}

// fields lists a header's lines, sorted by name.
func fields(h httpmsg.Header) []HeaderField {
	out := []HeaderField{}
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, HeaderField{k, v})
		}
	}
	slices.SortStableFunc(out, func(a, b HeaderField) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func writeAnswer(w httpmsg.ResponseWriter, a Answer) {
	b, _ := json.Marshal(a)
	w.Header().Set(AnswerHeader, base64.StdEncoding.EncodeToString(b))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(httpmsg.StatusOK)
}

// ReadAnswer decodes the Answer of an API answer's header.
func ReadAnswer(h httpmsg.Header) (Answer, error) {
	var a Answer
	b, err := base64.StdEncoding.DecodeString(h.Get(AnswerHeader))
	if err != nil {
		return a, fmt.Errorf("replay: %s: %w", AnswerHeader, err)
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("replay: %s: %w", AnswerHeader, err)
	}
	return a, nil
}

// NotArchivedPage is the page a request that is not in the archive gets.
func NotArchivedPage(method, url, why string) string {
	var b bytes.Buffer
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>Not archived</title></head>` +
		`<body style="font-family:sans-serif;margin:2em"><h1>Not archived</h1><p>webkeep has no capture of <code id="webkeep-not-archived">`)
	b.WriteString(escapeHTML.Replace(method + " " + url))
	b.WriteString(`</code> in this session; nothing was fetched from the network.</p>`)
	if why != "" {
		b.WriteString(`<p>` + escapeHTML.Replace(why) + `</p>`)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// A Log keeps what a replay answered, for the replay bar. It is safe for
// concurrent use.
type Log struct {
	mu          sync.Mutex
	answered    int
	missed      []string
	approximate []Answer
}

// LogView is a Log's content, as the API shows it.
type LogView struct {
	Answered    int      `json:"answered"`
	Missed      []string `json:"missed"`
	Approximate []Answer `json:"approximate"`
}

// MaxLogged is how many missed and approximate answers a Log keeps.
const MaxLogged = 1000

// Add logs an answer.
func (l *Log) Add(a Answer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !a.Archived:
		if len(l.missed) < MaxLogged && !slices.Contains(l.missed, a.URL) {
			l.missed = append(l.missed, a.URL)
		}
	case a.Approximate:
		if len(l.approximate) < MaxLogged {
			l.approximate = append(l.approximate, a)
		}
		l.answered++
	default:
		l.answered++
	}
}

// Reset empties the log.
func (l *Log) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.answered, l.missed, l.approximate = 0, nil, nil
}

// View returns a copy of the log.
func (l *Log) View() LogView {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LogView{Answered: l.answered, Missed: append([]string{}, l.missed...), Approximate: append([]Answer{}, l.approximate...)}
}

// ErrRequest is returned (wrapped) for a replayed request the API cannot read.
var ErrRequest = errors.New("replay: invalid request")

// PausedRequest is the request of a DevTools Fetch.requestPaused event, as the
// extension passes it: its method, URL, headers and post data entries (base64).
type PausedRequest struct {
	Method          string            `json:"method"`
	URL             string            `json:"url"`
	Headers         map[string]string `json:"headers"`
	PostDataEntries []struct {
		Bytes string `json:"bytes"`
	} `json:"postDataEntries"`
}

// Request converts a paused request into the Request that is looked up.
func (p *PausedRequest) Request() (*Request, error) {
	if p.URL == "" || p.Method == "" {
		return nil, fmt.Errorf("%w: method and url are required", ErrRequest)
	}
	r := &Request{Method: p.Method, URL: p.URL, Header: httpmsg.Header{}}
	for k, v := range p.Headers {
		r.Header[k] = []string{v}
	}
	for i, e := range p.PostDataEntries {
		b, err := base64.StdEncoding.DecodeString(e.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: postDataEntries[%d]: %v", ErrRequest, i, err)
		}
		r.Body = append(r.Body, b...)
	}
	return r, nil
}

// escapeHTML escapes text for HTML as html.EscapeString does. The html package is not
// imported for it: its initialiser keeps the table of every HTML entity (for
// UnescapeString) in the binary, which the service-worker core does not need.
var escapeHTML = strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;")
