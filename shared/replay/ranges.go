package replay

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// Range requests (RFC 9110, section 14) answered from a capture, as a server
// answers them: a media element asks for "bytes=0-", then for the range it seeks
// to, and plays and seeks only when it gets 206 Partial Content.
//
// A request for one range of a 200 capture whose length is known gets 206 with
// those bytes and Content-Range; a range past the end gets 416 with
// "Content-Range: bytes */length". An open range ("bytes=N-") is answered with
// RangeChunk bytes from N, as streaming servers answer a chunk at a time, so that
// any size plays; the player asks for the next. A player asks for one range at a
// time, and after a seek it still waits for the answer to the range it asked for
// before, which the page gets in one message whose cost grows with its size: a small
// chunk keeps seeks short, and plays a video through as fast as larger ones did
// (docs/benchmarks-history.md, "Seeks: one chunk size"). A capture read for a range
// is kept open where the range ended (one whose Response names its record,
// Response.Record; a few of them, MaxKeptBodies), so that a later range of the same
// payload reads on from there instead of from the record's start, whose gzip member
// is inflated up to the range: playing a large capture through reads it about once.
// The response's head (status, header, where its body lies) is kept with the body,
// under that name, and answers the next range of that record without the record
// being opened again (Resume). A range far on from any
// such body (a seek, back or on) of a record webkeep wrote is read from where it
// lies in the record (seek.go): the segments before it skipped, and a member stored
// whole (warc.StoredMember: a large body that does not compress, a video) read from
// the very byte, so that a seek costs about what it plays.
// A capture that was itself a 206 answers a range within the bytes it holds; a
// range it does not hold is not archived (and listed as missed).
// Several ranges, or a header that is not one, get the whole capture (200), which
// RFC 9110 allows.

// RangeChunk is the most bytes an open range ("bytes=N-") gets in one answer.
const RangeChunk = 256 << 10

// MaxKeptBodies bounds the bodies kept open after a range (each holds a stored chunk
// of its record, and the inflater's window).
const MaxKeptBodies = 4

// byteRange is a requested range, resolved against a length: first and last
// byte, inclusive; open when the request named no last byte.
type byteRange struct {
	first, last int64
	open        bool
}

// parseRange reads a Range header of one byte range against size (the
// representation's length). ok is false for a header to ignore (absent, not
// bytes, several ranges, malformed); satisfiable is false for one past the end.
func parseRange(h string, size int64) (r byteRange, ok, satisfiable bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(h), "bytes=")
	if !found || strings.Contains(spec, ",") {
		return r, false, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return r, false, false
	}
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "" && b == "":
		return r, false, false
	case a == "": // the last b bytes
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 0 {
			return r, false, false
		}
		if n == 0 || size == 0 {
			return r, true, false
		}
		return byteRange{max(0, size-n), size - 1, false}, true, true
	}
	first, err := strconv.ParseInt(a, 10, 64)
	if err != nil || first < 0 {
		return r, false, false
	}
	last := int64(-1) // open
	if b != "" {
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
			return r, false, false
		}
	}
	if first >= size {
		return r, true, false
	}
	if last < 0 {
		return byteRange{first, size - 1, true}, true, true
	}
	return byteRange{first, min(last, size-1), false}, true, true
}

// contentRange parses a recorded 206's Content-Range: "bytes first-last/total"
// (total "*" when unknown: -1).
func contentRange(h string) (r byteRange, total int64, ok bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(h), "bytes ")
	if !found {
		return r, 0, false
	}
	span, tot, found := strings.Cut(spec, "/")
	a, b, found2 := strings.Cut(span, "-")
	if !found || !found2 {
		return r, 0, false
	}
	first, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	last, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first {
		return r, 0, false
	}
	total = -1
	if t := strings.TrimSpace(tot); t != "*" {
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n <= last {
			return r, 0, false
		}
		total = n
	}
	return byteRange{first, last, false}, total, true
}

// formatTotal writes a Content-Range total: the length, or "*".
func formatTotal(n int64) string {
	if n < 0 {
		return "*"
	}
	return strconv.FormatInt(n, 10)
}

func (r byteRange) String() string { return fmt.Sprintf("bytes %d-%d", r.first, r.last) }

// respondRange answers a request for the range rng of the capture resp, as the
// package comment above says; handled is false when the whole capture is the
// answer instead.
func respondRange(w httpmsg.ResponseWriter, r *Request, a Answer, resp *Response, rng string, max int64, holder string) (Answer, error, bool) {
	var held byteRange // the bytes of the representation that Body holds
	var total int64    // the representation's length; -1 unknown
	switch {
	case resp.Status == httpmsg.StatusOK && resp.Size >= 0:
		held, total = byteRange{0, resp.Size - 1, false}, resp.Size
	case resp.Status == httpmsg.StatusPartialContent:
		var ok bool
		if held, total, ok = contentRange(resp.Header.Get("Content-Range")); !ok {
			return a, nil, false
		}
	default:
		return a, nil, false
	}
	size := total
	if size < 0 {
		size = held.last + 1
	}
	want, ok, satisfiable := parseRange(rng, size)
	if !ok {
		return a, nil, false
	}
	if !satisfiable {
		a.Status, a.Reason = httpmsg.StatusRangeNotSatisfiable, "Range Not Satisfiable"
		a.Headers = withField(fields(resp.Header), "Content-Range", "bytes */"+formatTotal(total))
		writeAnswer(w, a)
		return a, nil, true
	}
	if want.first < held.first || want.first > held.last {
		why := fmt.Sprintf("the archive holds %s of it, not the range asked for (%s)", held, want)
		return RespondNotArchived(w, r, why, holder), nil, true
	}
	if want.open {
		want.last = min(want.last, want.first+RangeChunk-1)
	}
	want.last = min(want.last, held.last, want.first+max-1)
	// The body to read the range from: one kept where an earlier range of the same
	// payload ended, if it ended at or before this one's start; else this capture's.
	payload := ""
	if d := cmp.Or(resp.Original.Digest, resp.Capture.Digest); resp.Record != "" && d != "" {
		payload = fmt.Sprintf("%s %s/%s", d, held, formatTotal(total))
	}
	body, at := resp.Body, held.first
	k, took := openBodies.take(payload, want.first)
	if took {
		body, at = k.body, k.at
	}
	// Far on, or back, the range is read from where it lies in the record instead.
	if want.first-at > seekGap {
		if b, ok := resp.seek(want.first - held.first); ok {
			if took {
				openBodies.keep(k)
			}
			body, at = b, want.first
		}
	}
	// done ends this answer's use of body, read up to next: kept for the next range
	// when the capture holds more (failed is false), else closed if it was a kept
	// one (the caller closes its own).
	done := func(next int64, failed bool) {
		switch {
		case !failed && payload != "" && next <= held.last:
			if body == resp.Body {
				resp.Body = io.NopCloser(strings.NewReader("")) // the caller's Close is not this body's now
			}
			openBodies.keep(keptBody{payload: payload, body: body, at: next, head: resp.head()})
		case body != resp.Body:
			body.Close()
		}
	}
	_, err := io.CopyN(io.Discard, body, want.first-at)
	if err != nil && body != resp.Body {
		// A kept body that cannot be read on (its session's file gone): this
		// capture's own, from its start.
		body.Close()
		body = resp.Body
		_, err = io.CopyN(io.Discard, body, want.first-held.first)
	}
	if err != nil {
		done(0, true)
		why := fmt.Sprintf("the archive's record could not be read to byte %d: %v", want.first, err)
		return RespondNotArchived(w, r, why, holder), nil, true
	}
	a.Status, a.Reason = httpmsg.StatusPartialContent, "Partial Content"
	a.Headers = withField(withField(fields(resp.Header), "Content-Range", want.String()+"/"+formatTotal(total)), "Accept-Ranges", "bytes")
	a.Headers = loaderRead(r, a.Headers)
	writeAnswer(w, a)
	n, err := io.Copy(w, io.LimitReader(body, want.last-want.first+1))
	if err != nil || n != want.last-want.first+1 {
		done(0, true)
		a.Withheld, a.Why = true, fmt.Sprintf("the archive's record could not be read to the end of %s (%d bytes read): %v", want, n, err)
		return a, fmt.Errorf("%w: %s: %s", ErrCut, r.URL, a.Why), true
	}
	done(want.last+1, false)
	return a, nil, true
}

// seekGap is how far on from where a body is a range starts for it to be read from
// where it lies in its record (Response.seek) rather than by reading on: the
// bytes between, read and dropped, cost more than opening the record there.
const seekGap = 1 << 20

// openBodies are the bodies kept open after a range, the most recent last.
var openBodies = keptBodies{}

// keptBodies holds bodies of captures read up to a point, each for the next range of
// its payload to read on from.
type keptBodies struct {
	mu     sync.Mutex
	bodies []keptBody
}

// A keptBody is a payload's body read up to at (the offset, in the representation,
// of the next byte it gives). payload names the payload and the bytes its capture
// holds: its digest, the range held and the length. head is the response it is the
// body of, without its Body, for Resume.
type keptBody struct {
	payload string
	body    io.ReadCloser
	at      int64
	head    Response
}

// head returns r without its Body, its header its own copy: what Resume answers with.
func (r *Response) head() Response {
	h := *r
	h.Body, h.Header = nil, r.Header.Clone()
	return h
}

// Resume returns the response of the capture whose record is named record
// (Response.Record), for r, a GET with a Range, when an earlier range answer of
// that record kept its body open: the head of that answer's response (its status,
// header and where its body lies), read from no file, so that a player asking for
// range after range of a capture has its record opened once. The range is then
// read on from the body kept, or from where it lies in the record; the Body
// returned, read only when neither can answer it, opens the capture by open
// first. ok is false when no body of record is kept, or r asks for no range: the
// caller opens the capture itself.
func Resume(record string, r *Request, open func() (*Response, error)) (resp *Response, ok bool) {
	if record == "" || r.Method != "GET" || r.Header.Get("Range") == "" {
		return nil, false
	}
	openBodies.mu.Lock()
	defer openBodies.mu.Unlock()
	for _, k := range openBodies.bodies {
		if k.head.Record == record {
			h := k.head
			h.Header = k.head.Header.Clone()
			h.Body = &openedOnRead{open: open}
			return &h, true
		}
	}
	return nil, false
}

// openedOnRead is a response's Body that opens the response when first read.
type openedOnRead struct {
	open func() (*Response, error)
	body io.ReadCloser
	err  error
}

func (o *openedOnRead) Read(p []byte) (int, error) {
	if o.body == nil && o.err == nil {
		resp, err := o.open()
		if err != nil {
			o.err = fmt.Errorf("opening the record again: %w", err)
		} else {
			o.body = resp.Body
		}
	}
	if o.err != nil {
		return 0, o.err
	}
	return o.body.Read(p)
}

func (o *openedOnRead) Close() error {
	if o.body == nil {
		return nil
	}
	return o.body.Close()
}

// take removes and returns the body of payload that has read furthest without
// passing first; ok is false when none is kept (or payload is "": nothing to match).
func (k *keptBodies) take(payload string, first int64) (b keptBody, ok bool) {
	if payload == "" {
		return b, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	best := -1
	for i, c := range k.bodies {
		if c.payload == payload && c.at <= first && (best < 0 || c.at > k.bodies[best].at) {
			best = i
		}
	}
	if best < 0 {
		return b, false
	}
	b = k.bodies[best]
	k.bodies = slices.Delete(k.bodies, best, best+1)
	return b, true
}

// keep keeps b; past MaxKeptBodies, the one kept longest is closed.
func (k *keptBodies) keep(b keptBody) {
	k.mu.Lock()
	k.bodies = append(k.bodies, b)
	var out []keptBody
	if n := len(k.bodies) - MaxKeptBodies; n > 0 {
		out = slices.Clone(k.bodies[:n])
		k.bodies = slices.Delete(k.bodies, 0, n)
	}
	k.mu.Unlock()
	for _, b := range out {
		b.body.Close()
	}
}

// withField sets name to value in a sorted header list, replacing any values.
func withField(fs []HeaderField, name, value string) []HeaderField {
	out := fs[:0:0]
	for _, f := range fs {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	out = append(out, HeaderField{name, value})
	slices.SortStableFunc(out, func(a, b HeaderField) int { return strings.Compare(a.Name, b.Name) })
	return out
}
