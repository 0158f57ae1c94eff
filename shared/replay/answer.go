package replay

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
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
	// Withheld is true for a capture whose body is not given to the page (too
	// large to carry, or a record that could not be read to its end); Why says why.
	Withheld bool   `json:"withheld,omitempty"`
	Why      string `json:"why,omitempty"`
	// Save is true for a navigation to a download too large to carry: the
	// navigation gets 204 (the tab stays on its page) and the replay bar saves the
	// file from the archive, as the browser saved it live (large.go).
	Save bool `json:"save,omitempty"`
	// Stream is set for a script's fetch() of a body too large to carry: the
	// request gets the "not replayed" page, which the replay's script in the page
	// turns into a response of this head whose body it reads from the archive as a
	// stream (large.go). The replay bar logs whether the page took it.
	Stream *StreamHead `json:"stream,omitempty"`
	// TakesDebugger is set for the tab's own navigation to a PDF, given to it:
	// Chromium shows it in its PDF viewer, a frame of one of its own extensions, and
	// takes the replay's debugger off the tab, which the replay bar attaches again
	// at once (large.go, showsPDF).
	TakesDebugger bool `json:"takesDebugger,omitempty"`
	// ShowsPDF is set for the tab's own navigation to a PDF too large to carry,
	// given webkeep's page that reads it into a Blob and shows it (large.go,
	// viewerPage): before it shows it, the page asks the replay bar to hold the tab,
	// which the bar does for such a page alone.
	ShowsPDF bool `json:"showsPDF,omitempty"`
	// Loader is set for a page's script too large to carry, answered with
	// webkeep's loader in its place (loader.go): the replay bar turns on the channel
	// through which the loader says, if it cannot run the script, why.
	Loader bool `json:"loader,omitempty"`
}

// A StreamHead is the head of a capture whose body is given to a page's fetch() as a
// stream: its status, reason, header lines and body's length in bytes.
type StreamHead struct {
	Status  int           `json:"status"`
	Reason  string        `json:"reason,omitempty"`
	Headers []HeaderField `json:"headers"`
	Size    int64         `json:"size"`
}

// StreamHeader is the header the replay bar adds to the answer of an Answer with a
// Stream, naming the stream for the replay's script in the page (large.go).
const StreamHeader = "X-Webkeep-Stream"

// ErrCut is returned (wrapped with the URL and why) by Serve when it cut an
// answer's body short after the answer had begun: the caller must end the answer
// with an error (panic with httpmsg.ErrAbortHandler), not let it end as though whole.
var ErrCut = errors.New("replay: body cut short")

// DefaultMaxBody is the longest body Serve gives a request unless the Index says
// otherwise. The browser takes a replayed body in one DevTools message, as base64
// text that the replay bar holds while the browser reads it: a body of 100 MB took
// the extension's process 0.8-0.9 GB more and the browser's 1.3-1.4 GB at the peak
// (BENCHMARKS.md). A larger body is withheld, with a page that says so, so that one
// capture cannot exhaust the browser.
const DefaultMaxBody = 64 << 20

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
//
// A body longer than MaxBody is withheld: when its length is known beforehand, the
// request gets the "not replayed" page (Answer.Status 404, Withheld true); when it
// is found out as the body streams, or the record cannot be read to its end, the
// Answer is Withheld and the error wraps ErrCut: the caller must end the API's
// answer with an error.
func (ix *Index) Serve(w httpmsg.ResponseWriter, r *Request, at string, f File) (Answer, error) {
	m, ok := ix.Lookup(r, at)
	if !ok {
		return RespondNotArchived(w, r, "", "this session"), nil
	}
	open := func() (*Response, error) { return ix.Open(f, m.Capture) }
	resp, ok := Resume(ix.record(m.Capture), r, open)
	if !ok {
		var err error
		if resp, err = open(); err != nil {
			return RespondNotArchived(w, r, err.Error(), "this session"), nil
		}
	}
	defer resp.Close()
	return Respond(w, r, m, resp, cmp.Or(ix.MaxBody, DefaultMaxBody), "the session's WARC")
}

// Respond writes the answer of the capture m, whose response resp is open, as Serve
// does, withholding a body longer than max; holder names what holds such a body
// whole ("the session's WARC"). Replays of other archives (the team's) answer
// with it too.
//
// A GET with a Range header gets the bytes it asks for (ranges.go).
func Respond(w httpmsg.ResponseWriter, r *Request, m Match, resp *Response, max int64, holder string) (Answer, error) {
	a := Answer{URL: r.URL}
	a.Archived, a.Timestamp, a.Approximate, a.Why = true, m.Capture.Timestamp, m.Approximate, m.Why
	if rng := r.Header.Get("Range"); rng != "" && r.Method == "GET" {
		if ans, err, handled := respondRange(w, r, a, resp, rng, max, holder); handled {
			return ans, err
		}
	}
	if !r.Script && isPDF(resp.Header) {
		switch {
		case showsPDF(r, resp, max):
			a.TakesDebugger = true
			resp.Header = resp.Header.Clone()
			resp.Header.Del("Accept-Ranges") // the viewer's own range requests would come while no debugger is on
		case viewer(r, a, resp) != "pdf": // one too large for one answer is shown from a Blob (respondLarge)
			return withholdPDF(w, r, a, resp, max, holder), nil
		}
	}
	if resp.Size > max || resp.Size < 0 && unknownLarge(r, a, resp, max) {
		return respondLarge(w, r, a, resp, max, holder), nil
	}
	a.Status, a.Reason = resp.Status, resp.Reason
	a.Headers = fields(resp.Header)
	writeAnswer(w, a)
	n, err := io.Copy(w, io.LimitReader(resp.Body, max+1))
	switch {
	case err != nil:
		a.Withheld, a.Why = true, fmt.Sprintf("the archive's record could not be read to its end (%d bytes read): %v", n, err)
	case n > max:
		a.Withheld, a.Why = true, tooLarge(-1, max, holder)
	default:
		return a, nil
	}
	return a, fmt.Errorf("%w: %s: %s", ErrCut, r.URL, a.Why)
}

// pageHeaders are the header of the pages Serve makes (not archived, not replayed).
var pageHeaders = []HeaderField{{"Content-Type", "text/html; charset=utf-8"}, {"Cache-Control", "no-store"}}

// RespondNotArchived answers r with the "not archived" page; why, if not empty,
// says why a capture found could not answer; where names the archive ("this
// session").
func RespondNotArchived(w httpmsg.ResponseWriter, r *Request, why, where string) Answer {
	a := Answer{URL: r.URL, Status: httpmsg.StatusNotFound, Reason: "Not Archived", Headers: pageHeaders, Why: why}
	writeAnswer(w, a)
	io.WriteString(w, notArchivedPage(r.Method, r.URL, why, where))
	return a
}

// tooLarge says why a body of n bytes (-1: not known) is withheld, max being the
// limit and holder what holds it whole, and how to have it: from the replay bar,
// whose list of what was not replayed links each to its file.
func tooLarge(n, max int64, holder string) string {
	const mb = 1 << 20
	size := ""
	if n >= 0 {
		size = " (" + strconv.FormatFloat(float64(n)/mb, 'f', 1, 64) + " MB)"
	}
	return fmt.Sprintf(`the body%s is larger than the %d MB a replay gives the browser in one answer; %s holds it whole, and "Save the file" in webkeep's replay bar saves it`, size, max/mb, holder)
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
	return notArchivedPage(method, url, why, "this session")
}

func notArchivedPage(method, url, why, where string) string {
	tail := ` in ` + where + `; nothing was fetched from the network.</p>`
	if why != "" {
		tail += `<p>` + escapeHTML.Replace(why) + `</p>`
	}
	return servedPage("Not archived", "webkeep-not-archived", "webkeep has no capture of ", method+" "+url, tail)
}

// NotReplayedPage is the page a request gets whose capture is withheld (see
// Serve): why says why, and also (HTML, a paragraph or "") what else may be done.
func NotReplayedPage(method, url, timestamp, why, also string) string {
	tail := ""
	if timestamp != "" {
		tail = ` (` + escapeHTML.Replace(timestamp) + `)`
	}
	tail += ` but does not give it to the page: ` + escapeHTML.Replace(why) + `. Nothing was fetched from the network.</p>` + also
	return servedPage("Not replayed", "webkeep-not-replayed", "webkeep has a capture of ", method+" "+url, tail)
}

// servedPage is a page of the replay's own: title, then a paragraph of lead, the
// request (escaped, in a code element of id id) and tail (HTML, ending the paragraph).
func servedPage(title, id, lead, request, tail string) string {
	return `<!doctype html><html><head><meta charset="utf-8"><title>` + title + `</title></head>` +
		`<body style="font-family:sans-serif;margin:2em"><h1>` + title + `</h1><p>` + lead +
		`<code id="` + id + `">` + escapeHTML.Replace(request) + `</code>` + tail + "</body></html>\n"
}

// A Log keeps what a replay answered, for the replay bar. It is safe for
// concurrent use.
type Log struct {
	mu          sync.Mutex
	answered    int
	missed      []string
	approximate []Answer
	withheld    []Answer
}

// LogView is a Log's content, as the API shows it.
type LogView struct {
	Answered    int      `json:"answered"`
	Missed      []string `json:"missed"`
	Approximate []Answer `json:"approximate"`
	// Withheld lists the captures found but not given to the page, each with why.
	Withheld []Answer `json:"withheld"`
}

// MaxLogged is how many missed, approximate and withheld answers a Log keeps.
const MaxLogged = 1000

// Add logs an answer.
func (l *Log) Add(a Answer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case a.Stream != nil:
		// Offered as a stream: the replay bar says whether the page took it.
	case a.Withheld:
		if len(l.withheld) < MaxLogged {
			l.withheld = append(l.withheld, a)
		}
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
	l.answered, l.missed, l.approximate, l.withheld = 0, nil, nil, nil
}

// View returns a copy of the log.
func (l *Log) View() LogView {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LogView{
		Answered: l.answered, Missed: append([]string{}, l.missed...),
		Approximate: append([]Answer{}, l.approximate...), Withheld: append([]Answer{}, l.withheld...),
	}
}

// ErrRequest is returned (wrapped) for a replayed request the API cannot read.
var ErrRequest = errors.New("replay: invalid request")

// PausedRequest is the request of a DevTools Fetch.requestPaused event, as the
// extension passes it: its method, URL, headers and post data entries (base64).
type PausedRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// ResourceType is the event's: "Document" for a navigation of the tab or a
	// frame, "XHR" for a script's fetch() or XMLHttpRequest.
	ResourceType string `json:"resourceType"`
	// Tab is true for the tab's own navigation (of its top frame).
	Tab             bool `json:"tab,omitempty"`
	PostDataEntries []struct {
		Bytes string `json:"bytes"`
	} `json:"postDataEntries"`
}

// Request converts a paused request into the Request that is looked up.
func (p *PausedRequest) Request() (*Request, error) {
	if p.URL == "" || p.Method == "" {
		return nil, fmt.Errorf("%w: method and url are required", ErrRequest)
	}
	r := &Request{Method: p.Method, URL: p.URL, Header: httpmsg.Header{}, Navigation: p.ResourceType == "Document", Tab: p.ResourceType == "Document" && p.Tab, Script: p.ResourceType == "XHR" || p.ResourceType == "Fetch", Image: p.ResourceType == "Image", ScriptElement: p.ResourceType == "Script"}
	for k, v := range p.Headers {
		r.Header.Add(k, v) // under its canonical name: DevTools may give "range"
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
