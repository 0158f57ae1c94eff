package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"math"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/warc"
)

// ErrRecord is returned (wrapped with the offset) when the record a capture names
// cannot answer: it is missing, of another type, or its HTTP header is unreadable.
var ErrRecord = errors.New("replay: capture cannot be read")

// A Response is a capture's answer, ready to give the browser.
type Response struct {
	Status int
	Reason string
	// Header is the recorded header, without what no longer holds for Body: the
	// Transfer-Encoding and Content-Length of the wire, a Content-Encoding
	// that was decoded, values the recorder redacted.
	Header httpmsg.Header
	// Body streams the payload; the caller closes it.
	Body io.ReadCloser
	// Size is the length of Body in bytes: the record's, or for a record in
	// segments its HTTP header's Content-Length; -1 when it is not known before
	// Body is read through (a body decoded here, segments with no length given).
	Size int64
	// Stored is the length in bytes of the payload as the record holds it
	// (before a Content-Encoding is decoded here); -1 when the record does not
	// say (segments with no length given: a large body written in parts).
	Stored int64
	// Capture is the capture that answered; Original, for a revisit, the capture
	// whose payload Body is.
	Capture, Original cdx.Entry
	// Record names the capture's record among all those replayed (its archive's,
	// its file's and its offset). A range answer of a named record keeps Body open
	// after it, under that name with the response's head, for a later range of the
	// same payload to read on from and Resume to find (ranges.go), and closes it
	// later: Body's Close must then release all that Body reads from. "" keeps
	// nothing open. Index.Open names a session's captures, whose file stays open;
	// the team archive's replay names its own.
	Record string

	// place is where Body lies in its file, for a range far into it (seek).
	place bodyPlace
	// inflated: Body is decoded from gzip or deflate here.
	inflated bool
}

// maxInflation bounds what gzip or deflate makes of a byte: a body stored
// compressed in n bytes is at most n*maxInflation bytes decoded (deflate's longest
// match, 258 bytes, from as little as two bits).
const maxInflation = 1032

// decodesPast reports whether Body, decoded here (its length not known before it is
// read), is longer than max bytes, finding out by reading and decoding its record
// a second time, up to max+1 bytes, so that Body is left unread. It is false when
// Body cannot be that long for the bytes stored, or its record cannot be read again.
func (r *Response) decodesPast(max int64) bool {
	p := r.place
	bound := r.Stored
	if r.inflated {
		bound = r.Stored * maxInflation
	}
	if r.Size >= 0 || r.Stored < 0 || bound <= max || p.open == nil {
		return false
	}
	n := p.length
	if p.segmented {
		n = -1
	}
	rc := p.open(p.at, n)
	defer rc.Close()
	again, err := readFirstResponse(rc)
	if err != nil {
		return false
	}
	defer again.Body.Close()
	read, _ := io.Copy(io.Discard, io.LimitReader(again.Body, max+1))
	return read > max
}

// Close closes Body, unless a range answer kept it for the next (then Body reads
// nothing, and Close closes nothing).
func (r *Response) Close() error { return r.Body.Close() }

// redacted is the value the recorder writes in place of a private header's.
const redacted = "[redacted by webkeep]"

// Open reads the answer of capture c from the WARC file f (the session's; records are found by offset, plain or gzip, segmented records
// joined). A revisit answers with its own status and header, if it has them, and
// its original's payload (the response with the same payload digest, under the same
// key if there is one, nearest in time).
func (ix *Index) Open(f File, c cdx.Entry) (*Response, error) {
	resp, err := OpenRecord(f, c)
	if err != nil {
		return nil, err
	}
	resp.Record = ix.record(c)
	if c.Mime != revisitMime {
		return resp, nil
	}
	orig, ok := ix.original(c)
	if !ok {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: revisit at offset %d: no response with payload digest %s", ErrRecord, c.Offset, c.Digest)
	}
	o, err := OpenRecord(f, orig)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if resp.Status == 0 {
		resp.Status, resp.Reason, resp.Header = o.Status, o.Reason, o.Header
	}
	resp.UseBody(o)
	return resp, nil
}

// record names the record of capture c (Response.Record): an Index is served from
// one file.
func (ix *Index) record(c cdx.Entry) string {
	return fmt.Sprintf("index %d, offset %d", ix.id, c.Offset)
}

// OpenRecord reads the answer of capture c from its own record in f alone: a
// revisit's own status and header, not its original's payload (which Open finds
// in the index).
func OpenRecord(f File, c cdx.Entry) (*Response, error) {
	resp, err := ReadResponseAt(f, c.Offset)
	if err != nil {
		return nil, err
	}
	resp.Capture, resp.Original = c, c
	resp.place.at, resp.place.length = c.Offset, c.Length
	resp.place.open = func(off, n int64) io.ReadCloser {
		if n < 0 {
			return io.NopCloser(f.Reader(off))
		}
		return io.NopCloser(io.LimitReader(f.Reader(off), n))
	}
	return resp, nil
}

// original finds the response a revisit refers to.
func (ix *Index) original(c cdx.Entry) (cdx.Entry, bool) {
	idx := ix.byDigest[c.Digest]
	var same []int
	for _, i := range idx {
		if ix.captures[i].URLKey == c.URLKey {
			same = append(same, i)
		}
	}
	if len(same) > 0 {
		idx = same
	}
	i, ok := ix.nearest(idx, parseTimestamp(c.Timestamp))
	if !ok {
		return cdx.Entry{}, false
	}
	return ix.captures[i], true
}

// ReadResponseAt reads the response or revisit record at offset of f, as
// ReadResponse does.
func ReadResponseAt(f File, offset int64) (*Response, error) {
	if size := f.Size(); offset < 0 || offset >= size {
		return nil, fmt.Errorf("%w: offset %d is outside the file (%d bytes)", ErrRecord, offset, size)
	}
	resp, err := readFirstResponse(f.Reader(offset))
	if err != nil {
		return nil, fmt.Errorf("at offset %d: %w", offset, err)
	}
	return resp, nil
}

// readFirstResponse reads the response or revisit record r starts with (a segmented
// one joined), as ReadResponse does.
func readFirstResponse(r io.Reader) (*Response, error) {
	rd, err := warc.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	rd.Reassemble(true)
	rec, err := rd.Next()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	if rec.Type != warc.TypeResponse && rec.Type != warc.TypeRevisit {
		return nil, fmt.Errorf("%w: the record is a %s", ErrRecord, rec.Type)
	}
	return ReadResponse(rec)
}

// ReadResponse reads the HTTP response a WARC response or revisit record holds:
// its status line and header, and a reader of its payload, decoded as replay
// gives it (see Response). A revisit without an HTTP header has Status 0 and an
// empty body. Errors wrap ErrRecord and name what could not be read.
func ReadResponse(rec *warc.Record) (*Response, error) {
	// The block is read through a LimitedReader, which counts what is left of it:
	// the body's length once the HTTP header is read, when the block's is known,
	// and in any case the HTTP header's length.
	limit := rec.BlockLength
	if limit < 0 {
		limit = math.MaxInt64
	}
	left := &io.LimitedReader{R: rec.Block, N: limit}
	br := bufio.NewReaderSize(left, 32<<10)
	resp := &Response{Header: httpmsg.Header{}, Size: -1, Stored: -1}
	line, err := textproto.NewReader(br).ReadLine()
	if rec.Type == warc.TypeRevisit && (err == io.EOF || line == "") {
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: status line: %v", ErrRecord, err)
	}
	proto, status, _ := strings.Cut(line, " ")
	code, reason, _ := strings.Cut(status, " ")
	n, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/") || err != nil || n < 100 || n > 999 {
		return nil, fmt.Errorf("%w: status line %q", ErrRecord, truncate(line))
	}
	resp.Status, resp.Reason = n, reason
	h, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil && !(errors.Is(err, io.EOF) && len(h) > 0) {
		return nil, fmt.Errorf("%w: HTTP header: %v", ErrRecord, err)
	}
	for k, vs := range h {
		for _, v := range vs {
			if v != redacted {
				resp.Header.Add(k, v)
			}
		}
	}
	rest := left.N + int64(br.Buffered())
	if rec.BlockLength >= 0 {
		resp.Stored = rest
	}
	coded := resp.Header.Get("Content-Encoding") != ""
	body, whole, err := decode(resp.Header, br)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	resp.Body = body
	resp.inflated = coded && resp.Header.Get("Content-Encoding") == ""
	resp.place.segmented = rec.Header.Get(warc.FieldSegmentNumber) == "1"
	if whole {
		resp.place.head = limit - left.N - int64(br.Buffered())
		resp.place.plain = rec.BlockLength >= 0 || resp.place.segmented
		// A record in segments does not know its length before its last segment:
		// its HTTP header does, the body being as the header describes it.
		if rec.BlockLength >= 0 {
			resp.Size = rest
		} else if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			resp.Size = n
		}
	}
	resp.Header.Del("Content-Length")
	resp.Header.Del("Transfer-Encoding")
	return resp, nil
}

// Encoded reports whether the body is still in a content encoding replay cannot
// undo (br, zstd): its bytes are not the payload's. A gzip or deflate
// Content-Encoding left on the header is on a body stored decoded (decode leaves
// it when the bytes are not compressed).
func (r *Response) Encoded() bool {
	switch strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))) {
	case "", "identity", "gzip", "x-gzip", "deflate":
		return false
	}
	return true
}

// decode undoes a chunked transfer encoding and a gzip or deflate content encoding
// still on an archived body (other tools archive the wire bytes; webkeep archives
// them decoded, the encoding kept as X-Archive-Orig-Content-Encoding). An encoding
// it cannot undo (br, zstd) stays, with its header. whole reports that the body is
// the rest of the record as it is, nothing decoded.
func decode(h httpmsg.Header, br *bufio.Reader) (body io.ReadCloser, whole bool, err error) {
	var r io.Reader = br
	whole = true
	if strings.Contains(strings.ToLower(h.Get("Transfer-Encoding")), "chunked") && looksChunked(br) {
		r = bufio.NewReader(httpmsg.NewChunkedReader(br))
		whole = false
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding"))) {
	case "gzip", "x-gzip":
		pr := bufio.NewReader(r)
		if head, _ := pr.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
			zr, err := gzip.NewReader(pr)
			if err != nil {
				return nil, false, fmt.Errorf("gzip body: %v", err)
			}
			h.Del("Content-Encoding")
			return zr, false, nil
		}
		return io.NopCloser(pr), whole, nil
	case "deflate":
		pr := bufio.NewReader(r)
		if head, _ := pr.Peek(2); len(head) == 2 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 && head[0]&0x0f == 8 {
			zr, err := zlib.NewReader(pr)
			if err != nil {
				return nil, false, fmt.Errorf("deflate body: %v", err)
			}
			h.Del("Content-Encoding")
			return zr, false, nil
		}
		return io.NopCloser(pr), whole, nil
	}
	return io.NopCloser(r), whole, nil
}

// looksChunked reports whether the body starts with a chunk-size line.
func looksChunked(br *bufio.Reader) bool {
	head, _ := br.Peek(20)
	i := bytes.IndexByte(head, '\r')
	if i <= 0 || i+1 >= len(head) || head[i+1] != '\n' {
		return false
	}
	size, _, _ := bytes.Cut(head[:i], []byte(";"))
	_, err := strconv.ParseUint(string(bytes.TrimSpace(size)), 16, 63)
	return err == nil
}
