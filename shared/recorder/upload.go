package recorder

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"slices"
	"strings"
	"time"
)

// copierScript copies the files a page sends (see uploadScript); Firefox's content
// script runs it too (extension-firefox/content.js), and its messages reach the
// recorder as the same event.
//
//go:embed copier.js
var copierScript string

//go:embed upload.js
var uploadJS string

// The browser never shows DevTools the bytes of a File or Blob that a page sends: the
// recorder copies them in the page itself. uploadScript runs in the main world of
// every recorded document before the page's scripts; it copies the files of each body
// it sees sent (fetch(), XHR, a form submitted by navigation) and hands them to the
// recorder through the binding uploadBinding (Runtime.bindingCalled), in messages of
// these kinds:
//
//	{"op":"begin","id":1,"method":"POST","url":"...","kind":"blob"|"form","size":N,"entries":[...]}
//	{"op":"data","id":1,"entry":0,"data":"<base64>"}
//	{"op":"end","id":1}
//	{"op":"fail","id":1,"why":"..."}
//
// A request whose body the browser hid takes the copy sent with its method and URL
// from its tab, rebuilt as the browser encodes it, when the copy's length is the
// Content-Length sent; else its body stays marked truncated, and its note says why.
// It is the copier (copier.js) and upload.js, which installs it, in a scope of their
// own.
var uploadScript = "(() => {\n" + copierScript + uploadJS + "})();\n"

// uploadBinding is the name of the binding through which uploadScript reports.
const uploadBinding = "__webkeepUpload"

const (
	// uploadBeginWait is how long a request whose body the browser hid waits, once it
	// has ended, for the page's copy to be announced.
	uploadBeginWait = time.Second
	// uploadEndWait is how long it then waits for more of the copy's bytes: as long as
	// they keep coming, it waits for the last.
	uploadEndWait = 5 * time.Second
	// uploadKeep is how long a copy no request took is kept.
	uploadKeep = 30 * time.Second
	// maxUploadBytes bounds the bytes of copies a tab holds at once; a copy that would
	// exceed it is dropped (and its request stays marked).
	maxUploadBytes = 64 << 20
	// maxUploadCopies bounds the copies a tab holds at once, and maxUploadEntries the
	// entries of one: what a page announces beyond them is ignored.
	maxUploadCopies  = 64
	maxUploadEntries = 10000
)

// WhyCopiedFromPage begins the note of a request body whose files were copied in the
// page as it sent them.
const WhyCopiedFromPage = "request body rebuilt with the files copied in the page as it sent them (the browser hides a file's bytes from extensions)"

// bindingCalled is the params of Runtime.bindingCalled.
type bindingCalled struct {
	Name    string `json:"name"`
	Payload string `json:"payload"`
	// Context is the JavaScript context of the document that called: a copy's id is
	// its document's own.
	Context int `json:"executionContextId"`
}

// contextDestroyed is the params of Runtime.executionContextDestroyed.
type contextDestroyed struct {
	Context int `json:"executionContextId"`
}

// WhyPageLeftMidCopy is why a copy failed whose page was gone before it had read its
// files (a form sent by navigation, its files read as it was sent). copier.js says the
// same as its page is left.
const WhyPageLeftMidCopy = "the page was left before it had read its files"

// onContextDestroyed fails at once the copies that a document which is gone had begun
// and not ended: no more of their bytes will come.
func (r *Recorder) onContextDestroyed(_ context.Context, t Target, ev *contextDestroyed) {
	r.failCopiesOf(t, func(c copySource) bool { return c == copySource{t.Session, ev.Context} })
}

// onContextsCleared is onContextDestroyed for every document of a target: the browser
// says so when the target's main frame shows another document.
func (r *Recorder) onContextsCleared(_ context.Context, t Target, _ *struct{}) {
	r.failCopiesOf(t, func(c copySource) bool { return c.session == t.Session })
}

// failCopiesOf fails the copies of t's tab not yet ended whose document gone says is
// gone.
func (r *Recorder) failCopiesOf(t Target, gone func(copySource) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts := r.tabs[t.TabID]
	if ts == nil {
		return
	}
	u := ts.uploads
	for _, c := range u.copies {
		if !c.pull && gone(c.from) {
			u.fail(c, WhyPageLeftMidCopy)
		}
	}
}

// uploadMessage is one message of uploadScript (see uploadScript).
type uploadMessage struct {
	Op      string        `json:"op"`
	ID      int           `json:"id"`
	Method  string        `json:"method"`
	URL     string        `json:"url"`
	Kind    string        `json:"kind"`
	Size    int64         `json:"size"`
	Entries []uploadEntry `json:"entries"`
	Entry   int           `json:"entry"`
	Data    string        `json:"data"`
	Why     string        `json:"why"`
	// Pull says the page holds the files for the recorder to read (see pullCopy)
	// instead of sending their bytes.
	Pull bool `json:"pull"`
	// Names are the page's fields of type password, in a message of op "passwords"
	// (see onPasswordsSent).
	Names []string `json:"names"`
}

// uploadEntry is one entry of a copied body: a text field, or a file and its bytes.
type uploadEntry struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	File     bool   `json:"file"`
	FileName string `json:"filename"`
	Type     string `json:"type"`
	Size     int64  `json:"size"`
	bytes    []byte
}

// pageUpload is the copy of one body a page sent.
type pageUpload struct {
	from    copySource // the document that sent it
	id      int
	method  string
	url     string
	kind    string
	size    int64
	entries []uploadEntry
	at      time.Time
	why     string        // why the copy is not whole, when it is not
	done    chan struct{} // closed at its end or failure
	more    chan struct{} // closed, and replaced, when some of its bytes come
	ended   bool
	taken   bool
	pull    bool // the recorder reads its files (see pullCopy); the page sends no bytes
}

// copySource is the document of a tab that sent a copy: the DevTools session of its
// frame's target, and its JavaScript context there.
type copySource struct {
	session string
	context int
}

// pageUploads holds the copies of one tab.
type pageUploads struct {
	copies []*pageUpload
	bytes  int64
	added  chan struct{} // closed, and replaced, when a copy is announced
}

// onBindingCalled takes a message of uploadScript. A host may hand a "data" message's
// bytes over as the event's data, its "data" field empty (Firefox's background page
// does: decoding them in Go from base64 inside JSON inside JSON cost more than the
// upload itself, BENCHMARKS.md).
func (r *Recorder) onBindingCalled(ctx context.Context, t Target, params json.RawMessage, data []byte) error {
	var ev bindingCalled
	if err := json.Unmarshal(params, &ev); err != nil {
		return err
	}
	if ev.Name != uploadBinding {
		return nil
	}
	var m uploadMessage
	if err := json.Unmarshal([]byte(ev.Payload), &m); err != nil {
		return nil // the page's own call, or garbage: nothing to take
	}
	if m.Op == "passwords" {
		r.onPasswordsSent(t.TabID, m.Names)
		return nil
	}
	r.takeCopyMessage(ctx, t, ev.Context, &m, data)
	return nil
}

// takeCopyMessage takes a message of a copy (begin, data, end or fail) from the
// document of context ctxID; data, if not nil, is a "data" message's bytes.
func (r *Recorder) takeCopyMessage(ctx context.Context, t Target, ctxID int, m *uploadMessage, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tab := r.tab(t.TabID).uploads
	from := copySource{t.Session, ctxID}
	now := time.Now()
	if m.Op == "begin" {
		tab.expire(now)
		if len(tab.copies) >= maxUploadCopies || len(m.Entries) > maxUploadEntries || tab.find(from, m.ID) != nil {
			return
		}
		c := &pageUpload{pull: m.Pull, from: from, id: m.ID, method: m.Method, url: m.URL, kind: m.Kind, size: m.Size, entries: m.Entries, at: now, done: make(chan struct{}), more: make(chan struct{})}
		tab.copies = append(tab.copies, c)
		var sum int64
		for _, e := range m.Entries {
			if e.Size < 0 {
				sum = -1
				break
			}
			sum += e.Size
		}
		switch {
		case sum != m.Size || m.Size < 0:
			tab.fail(c, "the page's copy was malformed")
		case tab.bytes+m.Size > maxUploadBytes:
			tab.fail(c, fmt.Sprintf("the copies of the tab's files would exceed %d bytes", maxUploadBytes))
		case m.Pull:
			r.work.Add(1)
			go func() {
				defer r.work.Done()
				r.pullCopy(ctx, t, tab, c)
			}()
		}
		close(tab.added)
		tab.added = make(chan struct{})
		return
	}
	c := tab.find(from, m.ID)
	if c == nil || c.ended || c.pull {
		return
	}
	switch m.Op {
	case "data":
		b, err := data, error(nil)
		if b == nil {
			b, err = base64.StdEncoding.DecodeString(m.Data)
		}
		switch {
		case err != nil || m.Entry < 0 || m.Entry >= len(c.entries) || !c.entries[m.Entry].File:
			tab.fail(c, "the page's copy was malformed")
		case int64(len(c.entries[m.Entry].bytes)+len(b)) > c.entries[m.Entry].Size:
			tab.fail(c, "the page's copy was longer than its file")
		default:
			c.entries[m.Entry].bytes = append(c.entries[m.Entry].bytes, b...)
			tab.bytes += int64(len(b))
			close(c.more)
			c.more = make(chan struct{})
		}
	case "end":
		c.ended = true
		close(c.done)
	case "fail":
		tab.fail(c, m.Why)
	}
}

// fail ends c, a copy of u, without its bytes, for reason why. r.mu is held.
func (u *pageUploads) fail(c *pageUpload, why string) {
	if c.ended {
		return
	}
	c.why, c.ended = why, true
	u.release(c)
	close(c.done)
}

// release lets go of the bytes of c, a copy of u. r.mu is held.
func (u *pageUploads) release(c *pageUpload) {
	for i := range c.entries {
		u.bytes -= int64(len(c.entries[i].bytes))
		c.entries[i].bytes = nil
	}
}

// find returns the copy id of the document from, or nil.
func (u *pageUploads) find(from copySource, id int) *pageUpload {
	for _, c := range u.copies {
		if c.from == from && c.id == id {
			return c
		}
	}
	return nil
}

// expire forgets the copies that no request took within uploadKeep. r.mu is held.
func (u *pageUploads) expire(now time.Time) {
	kept := u.copies[:0]
	for _, c := range u.copies {
		if !c.taken && now.Sub(c.at) > uploadKeep {
			u.release(c)
			continue
		}
		kept = append(kept, c)
	}
	clear(u.copies[len(kept):])
	u.copies = kept
}

// drop forgets c, a copy of u that a request took. r.mu is held.
func (u *pageUploads) drop(c *pageUpload) {
	u.release(c)
	if i := slices.Index(u.copies, c); i >= 0 {
		u.copies = slices.Delete(u.copies, i, i+1)
	}
}

// takeUpload waits for the page's copy of the body of ex, a request of tab whose body
// the browser hid, and takes it: it returns the copy, or nil and why there is none.
// The copy is the first not yet taken with the request's method and URL whose
// encoding has the length sent (the page may have sent several to one URL, and files
// the browser does not hide are copied too). noWait says the tab is gone: no copy will
// come any more. Nor will one come from a tab whose pages do not run uploadScript.
func (r *Recorder) takeUpload(tab int, ex *Exchange, noWait bool) (*pageUpload, string) {
	contentType, sent := ex.ReqHeader.Get("Content-Type"), declaredLength(ex.ReqHeader)
	if sent < 0 {
		return nil, "the page's copy of its files cannot be checked: the request's length is not known"
	}
	r.mu.Lock()
	ts := r.tabs[tab]
	noWait = noWait || ts == nil || !ts.copying
	r.mu.Unlock()
	timer := time.NewTimer(uploadBeginWait)
	defer timer.Stop()
	lengths := map[int64]bool{} // of the copies to the request's URL
	for {
		r.mu.Lock()
		// A tab detached meanwhile has no copies, and sends none.
		u := &pageUploads{}
		if ts := r.tabs[tab]; ts != nil {
			u = ts.uploads
		}
		added := u.added
		var c *pageUpload
		for _, x := range u.copies {
			if x.taken || x.method != ex.Method || x.url != ex.URL {
				continue
			}
			n, err := x.encodedLength(contentType)
			if err == nil && n == sent {
				c = x
				break
			}
			lengths[n] = err == nil
		}
		if c != nil {
			c.taken = true
		}
		r.mu.Unlock()
		if c != nil {
			return r.awaitUpload(u, c)
		}
		if noWait {
			break
		}
		select {
		case <-added:
			continue
		case <-timer.C:
		}
		break
	}
	if len(lengths) > 0 {
		var ns []string
		for n, ok := range lengths {
			if ok {
				ns = append(ns, fmt.Sprint(n))
			}
		}
		slices.Sort(ns)
		return nil, fmt.Sprintf("the page's copies of files sent there encode to %s bytes, where the request sent %d", strings.Join(ns, " or "), sent)
	}
	return nil, "no copy of its files came from the page: the page's script did not see it sent (a worker's request, or a body built another way)"
}

// awaitUpload waits for c, a copy of u that was taken, to end, as long as its bytes
// keep coming (at least every uploadEndWait).
func (r *Recorder) awaitUpload(u *pageUploads, c *pageUpload) (*pageUpload, string) {
	timer := time.NewTimer(uploadEndWait)
	defer timer.Stop()
	for waiting := true; waiting; {
		r.mu.Lock()
		more := c.more
		r.mu.Unlock()
		select {
		case <-c.done:
			waiting = false
		case <-more:
			timer.Reset(uploadEndWait)
		case <-timer.C:
			r.mu.Lock()
			u.fail(c, fmt.Sprintf("no more of its bytes came for %s", uploadEndWait))
			r.mu.Unlock()
			waiting = false
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.why != "" {
		u.drop(c)
		return nil, "the page's copy of its files failed: " + c.why
	}
	return c, ""
}

// byteCounter is an io.Writer that counts what it is given.
type byteCounter int64

// Write counts p.
func (n *byteCounter) Write(p []byte) (int, error) {
	*n += byteCounter(len(p))
	return len(p), nil
}

// encodedLength is the length of the body the browser sends for c, for the request's
// Content-Type, known from the copy's announcement before its bytes come.
func (c *pageUpload) encodedLength(contentType string) (int64, error) {
	var n byteCounter
	err := c.encode(&n, contentType, func(_ io.Writer, e *uploadEntry) { n += byteCounter(e.Size) })
	return int64(n), err
}

// body returns the body the browser sent for c, for the request's Content-Type.
func (c *pageUpload) body(contentType string) ([]byte, error) {
	var b bytes.Buffer
	err := c.encode(&b, contentType, func(w io.Writer, e *uploadEntry) { w.Write(e.bytes) })
	return b.Bytes(), err
}

// encode writes the body the browser sends for c, for the request's Content-Type, to
// w, with file writing the bytes of each file: a blob's bytes, or a FormData in the
// HTML standard's multipart/form-data encoding, as Chromium writes it.
func (c *pageUpload) encode(w io.Writer, contentType string, file func(io.Writer, *uploadEntry)) error {
	if c.kind == "blob" {
		if len(c.entries) != 1 || !c.entries[0].File {
			return fmt.Errorf("a copied blob has %d parts", len(c.entries))
		}
		file(w, &c.entries[0])
		return nil
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return fmt.Errorf("the request's Content-Type %q names no multipart boundary", contentType)
	}
	writeMultipart(w, params["boundary"], c.entries, file)
	return nil
}

// writeMultipart writes entries to w in the HTML standard's multipart/form-data
// encoding with boundary, as browsers write it, with file writing the bytes of each
// file.
func writeMultipart(w io.Writer, boundary string, entries []uploadEntry, file func(io.Writer, *uploadEntry)) {
	quote := strings.NewReplacer("\n", "%0A", "\r", "%0D", `"`, "%22")
	for i := range entries {
		e := &entries[i]
		fmt.Fprintf(w, "--%s\r\nContent-Disposition: form-data; name=\"%s\"", boundary, quote.Replace(e.Name))
		if !e.File {
			fmt.Fprintf(w, "\r\n\r\n%s\r\n", e.Value)
			continue
		}
		typ := e.Type
		if typ == "" {
			typ = "application/octet-stream"
		}
		fmt.Fprintf(w, "; filename=\"%s\"\r\nContent-Type: %s\r\n\r\n", quote.Replace(e.FileName), typ)
		file(w, e)
		io.WriteString(w, "\r\n")
	}
	fmt.Fprintf(w, "--%s--\r\n", boundary)
}

// fillHiddenBody puts in ex, a request of tab whose body the browser did not give
// (marked truncated), the page's copy of its files when one comes whose encoding has
// the Content-Length sent; otherwise, when the browser hid the body (hidden: a file),
// it adds to the request's note why it stays marked.
func (r *Recorder) fillHiddenBody(tab int, ex *Exchange, noWait, hidden bool) {
	c, why := r.takeUpload(tab, ex, noWait)
	if c != nil {
		body, err := c.body(ex.ReqHeader.Get("Content-Type"))
		r.mu.Lock()
		if ts := r.tabs[tab]; ts != nil {
			ts.uploads.drop(c)
		}
		r.mu.Unlock()
		switch {
		case err != nil:
			why = "the page's copy of its files could not be encoded: " + err.Error()
		case int64(len(body)) != declaredLength(ex.ReqHeader):
			why = fmt.Sprintf("the page's copy of its files encodes to %d bytes where the request sent %d", len(body), declaredLength(ex.ReqHeader))
		default:
			ex.ReqBody, ex.ReqTruncated = body, false
			ex.ReqNote = fmt.Sprintf("%s: %d bytes of files, the length matches the one sent", WhyCopiedFromPage, c.size)
			return
		}
	}
	if hidden {
		ex.ReqNote += " (" + why + ")"
	}
}
