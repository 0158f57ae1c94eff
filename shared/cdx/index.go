package cdx

// Indexing WARC files as pywb's cdx-indexer does with --cdxj --postappend
// (pywb/indexer/archiveindexer.py, DefaultRecordParser with append_post).

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/warc"
)

// maxHTTPHeader bounds the HTTP header read from a record block.
const maxHTTPHeader = 1 << 20

// maxRequestBody bounds the request body read for the key: longer bodies
// are read this far (pywb reads them whole; the query keeps 4096
// characters, of base64 at most 3072 bytes, of form text at most 4096 code
// points, but JSON or multipart may need more).
const maxRequestBody = 64 << 20

// payloadDigestFields are the named fields whose value is the payload's
// "sha1:BASE32" digest: WARC/1.1's, and the one webkeep's WARC 0.9 records
// carry so that the index needs no payload.
var payloadDigestFields = []string{warc.FieldPayloadDigest, "Payload-Digest"}

// An Indexer turns the records of WARC files into CDXJ entries.
type Indexer struct {
	// Dialect selects the JSON body rendering of keys.
	Dialect Dialect
	// Problems, if set, receives damage found in a file; indexing goes on.
	Problems func(error)
	// Workers is how many sections of a gzip file are indexed at the same
	// time; zero means one per CPU (runtime.GOMAXPROCS), one means serially.
	Workers int

	br  *bufio.Reader
	buf []byte
	// lastURL and lastKey remember the last SURT computed: a request and its
	// response share a URL.
	lastURL, lastKey string
}

// surt is SURT, remembering the last key.
func (ix *Indexer) surt(url string) (string, error) {
	if url == ix.lastURL && ix.lastKey != "" {
		return ix.lastKey, nil
	}
	key, err := SURT(url)
	if err != nil {
		return "", err
	}
	ix.lastURL, ix.lastKey = url, key
	return key, nil
}

// indexed is a record on its way to becoming an entry: pywb's entry plus
// what pairing needs.
type indexed struct {
	entry   Entry
	typ     string
	id      string
	related string
	skip    bool // indexed only for pairing (requests, warcinfo)
	none    bool // not indexed at all: only its offset counts
	method  string
	query   string
}

// Index reads the WARC file r (0.9, 1.0 or 1.1, plain or gzip) and calls emit
// with the entry of every record that pywb's indexer writes, in file order,
// with request bodies appended to the keys of the responses they belong to.
// filename is written in each entry.
//
// A gzip file that is also an io.ReaderAt and an io.Seeker (an *os.File) is
// cut at gzip member starts into sections, which one worker per CPU (Workers)
// index at the same time; the entries are the same.
func (ix *Indexer) Index(r io.Reader, filename string, emit func(*Entry) error) error {
	if f, ok := r.(readSeekerAt); ok {
		done, err := ix.indexParallel(f, filename, emit)
		if done || err != nil {
			return err
		}
	}
	return ix.indexSerial(r, filename, emit)
}

// indexSerial indexes r record by record.
func (ix *Indexer) indexSerial(r io.Reader, filename string, emit func(*Entry) error) error {
	cr := &countingReader{r: r}
	p := pairer{ix: ix, emit: emit}
	err := ix.scan(cr, 0, filename, func(err error) bool {
		if ix.Problems != nil {
			ix.Problems(fmt.Errorf("%s: %w", filename, err))
		}
		return true
	}, func(it *indexed) error { return p.add(it) })
	if err != nil {
		return err
	}
	if p.pending != nil {
		// The last record runs to the end of the file.
		if _, err := io.Copy(io.Discard, cr); err != nil {
			return fmt.Errorf("cdx: %s: %w", filename, err)
		}
	}
	return p.finish(cr.n)
}

// scan reads the records of r, a file or a section of one that starts at file
// offset base, and calls add with each record's indexed form (its length not yet
// known). damage is told of each damaged range; scan stops if it returns false.
func (ix *Indexer) scan(r io.Reader, base int64, filename string, damage func(error) bool, add func(*indexed) error) error {
	wr, err := warc.NewReader(r)
	if err != nil {
		return fmt.Errorf("cdx: %s: %w", filename, err)
	}
	// Most blocks are read only as far as their HTTP header: members with sl
	// (webkeep's WARC 0.9) are skipped without inflating the rest.
	wr.Lazy(true)
	if ix.br == nil {
		ix.br = bufio.NewReaderSize(nil, 32<<10)
	}
	for {
		rec, err := wr.Next()
		if err == io.EOF {
			return nil
		}
		var de *warc.DamageError
		if errors.As(err, &de) {
			if !damage(err) {
				return nil
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("cdx: %s: %w", filename, err)
		}
		rec.Offset += base
		it, err := ix.record(rec, filename, "")
		if err != nil {
			return fmt.Errorf("cdx: %s: record at %d: %w", filename, rec.Offset, err)
		}
		if it == nil {
			// Not indexed, but it ends the record before it.
			it = &indexed{skip: true, none: true, entry: Entry{Offset: rec.Offset}}
		}
		if err := add(it); err != nil {
			return err
		}
	}
}

// pairer gives each record its length (up to the next record) and pairs
// requests with responses as join_request_records does: it holds one entry
// back to pair it with the next.
type pairer struct {
	ix      *Indexer
	emit    func(*Entry) error
	pending *indexed // waits for its length: the next record's offset
	prev    *indexed
	queue   []*indexed
}

// add takes the next record in file order.
func (p *pairer) add(it *indexed) error {
	if p.pending != nil {
		p.pending.entry.Length = it.entry.Offset - p.pending.entry.Offset
		p.join(p.pending)
		p.pending = nil
	}
	if it.none {
		return nil
	}
	p.pending = it
	return p.flush()
}

// finish ends the file at offset end.
func (p *pairer) finish(end int64) error {
	if p.pending != nil {
		p.pending.entry.Length = end - p.pending.entry.Offset
		p.join(p.pending)
		p.pending = nil
	}
	if p.prev != nil {
		p.queue = append(p.queue, p.prev)
		p.prev = nil
	}
	return p.flush()
}

func (p *pairer) join(it *indexed) {
	prev := p.prev
	if prev == nil {
		p.prev = it
		return
	}
	if it.entry.URL == prev.entry.URL && it.related == prev.id && prev.id != "" &&
		(p.ix.merge(it, prev) || p.ix.merge(prev, it)) {
		p.queue = append(p.queue, prev, it)
		p.prev = nil
		return
	}
	p.queue = append(p.queue, prev)
	p.prev = it
}

func (p *pairer) flush() error {
	for _, it := range p.queue {
		if it.skip || it.entry.URL == "" || it.entry.URLKey == "" {
			continue
		}
		if it.typ == "metadata" && it.entry.Mime == "text/anvl" {
			continue
		}
		if err := p.emit(&it.entry); err != nil {
			return err
		}
	}
	p.queue = p.queue[:0]
	return nil
}

// merge is merge_request_data: resp takes the request's method and body
// query when req is a request and resp is not.
func (ix *Indexer) merge(resp, req *indexed) bool {
	if req.typ != warc.TypeRequest || resp.typ == warc.TypeRequest {
		return false
	}
	url := resp.entry.URL
	newURL := strings.ReplaceAll(ix.Dialect.AppendQuery(url, req.method, req.query), "WB_wombat_", "")
	if newURL != url {
		if key, err := SURT(newURL); err == nil {
			resp.entry.URLKey = key
			req.entry.URLKey = key
		}
		resp.entry.Method = req.method
		resp.entry.RequestBody = req.query
	}
	return true
}

// record is create_record_iter and parse_warc_record for one record. payloadDigest,
// when not empty, is the "sha1:BASE32" digest of the record's payload, which
// record then need not read.
func (ix *Indexer) record(rec *warc.Record, filename, payloadDigest string) (*indexed, error) {
	if rec.ContentType == "application/warc-fields" && rec.Type != warc.TypeWarcinfo {
		return nil, nil
	}
	it := &indexed{typ: rec.Type, id: rec.ID, related: rec.Header.Get(warc.FieldRelatedRecordID)}
	e := &it.entry
	e.Offset = rec.Offset
	e.Filename = filename
	if rec.Type == warc.TypeWarcinfo {
		it.skip = true
		return it, nil
	}
	e.URL = rec.TargetURI
	e.Timestamp = timestamp14(rec.Date)
	e.Metadata = rec.Header.Get("WARC-Json-Metadata")
	for _, f := range payloadDigestFields {
		if d := rec.Header.Get(f); d != "" {
			e.Digest = strings.TrimPrefix(d, "sha1:")
			break
		}
	}
	if e.Digest == "" {
		e.Digest = "-"
	}
	var key string
	if e.URL != "" {
		var err error
		if key, err = ix.surt(e.URL); err != nil {
			return nil, err
		}
	}
	e.URLKey = key

	httpRecord := (rec.Type == warc.TypeResponse || rec.Type == warc.TypeRequest || rec.Type == warc.TypeRevisit) &&
		(strings.HasPrefix(e.URL, "http:") || strings.HasPrefix(e.URL, "https:"))
	ix.br.Reset(rec.Block)
	var status string
	var h http.Header
	if httpRecord {
		var err error
		status, h, err = readHTTPHeader(ix.br)
		if err != nil {
			return nil, err
		}
	}
	ctype := rec.ContentType
	if httpRecord {
		ctype, _ = header(h, "Content-Type")
	}
	switch {
	case rec.Type == warc.TypeRevisit:
		e.Mime = "warc/revisit"
	case rec.Type == warc.TypeRequest:
		e.Mime = mimeOf(ctype, "-")
	default:
		e.Mime = mimeOf(ctype, "unk")
		e.MimeDetected = rec.Header.Get("WARC-Identified-Payload-Type")
	}
	e.Status = "-"
	if rec.Type == warc.TypeResponse {
		if code, _, _ := strings.Cut(status, " "); code != "" {
			e.Status = code
			if code == "204" && strings.Contains(status, "Error") {
				e.Status = "-"
			}
		}
	}
	switch {
	case rec.Type == warc.TypeRequest:
		it.skip = true
		it.method = strings.ToUpper(status)
		if httpRecord {
			r := &Request{Method: it.method, Header: h}
			if cl, ok := header(h, "Content-Length"); ok {
				if n, ok := pyInt(cl); ok && n > 0 {
					if n > maxRequestBody {
						n = maxRequestBody
					}
					ix.buf = ix.buf[:0]
					b := bytes.NewBuffer(ix.buf)
					if _, err := io.Copy(b, io.LimitReader(ix.br, n)); err != nil {
						return nil, err
					}
					ix.buf = b.Bytes()
					r.Body = ix.buf
				}
			}
			it.method, it.query = ix.Dialect.BodyQuery(r)
		}
	case e.Digest == "-" && rec.Type != warc.TypeRevisit && payloadDigest != "":
		e.Digest = strings.TrimPrefix(payloadDigest, "sha1:")
	case e.Digest == "-" && rec.Type != warc.TypeRevisit:
		sum := sha1.New()
		if _, err := io.Copy(sum, ix.br); err != nil {
			return nil, err
		}
		e.Digest = base32.StdEncoding.EncodeToString(sum.Sum(nil))
	}
	return it, nil
}

// timestamp14 is t.UTC().Format("20060102150405").
func timestamp14(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	if year < 0 || year > 9999 {
		return t.Format("20060102150405")
	}
	var b [14]byte
	put := func(at, n, w int) {
		for k := at + w - 1; k >= at; k-- {
			b[k] = byte('0' + n%10)
			n /= 10
		}
	}
	put(0, year, 4)
	put(4, int(month), 2)
	put(6, day, 2)
	put(8, hour, 2)
	put(10, minute, 2)
	put(12, sec, 2)
	return string(b[:])
}

// mimeOf is extract_mime: the content type up to the first ";" or space.
func mimeOf(ctype, def string) string {
	if ctype == "" {
		return def
	}
	if i := strings.IndexAny(ctype, "; "); i >= 0 {
		return ctype[:i]
	}
	return ctype
}

// readHTTPHeader reads an HTTP message header as warcio's
// StatusAndHeadersParser does: for a response it returns the status line
// after the protocol ("200 OK"), for a request the method; header lines
// may be folded; the header ends at an empty line or the end of the block.
func readHTTPHeader(br *bufio.Reader) (string, http.Header, error) {
	h := http.Header{}
	var first string
	var last string
	total := 0
	for n := 0; ; n++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			full := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull && len(full) < maxHTTPHeader {
				line, err = br.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		total += len(line)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return "", nil, err
		}
		if total > maxHTTPHeader {
			return "", nil, fmt.Errorf("HTTP header longer than %d bytes", maxHTTPHeader)
		}
		s := string(bytes.TrimRight(line, "\r\n"))
		if n == 0 {
			first = s
			if err == io.EOF {
				break
			}
			continue
		}
		if s == "" {
			break
		}
		if (s[0] == ' ' || s[0] == '\t') && last != "" {
			vals := h[last]
			vals[len(vals)-1] += " " + strings.TrimSpace(s)
		} else if name, value, ok := strings.Cut(s, ":"); ok {
			last = strings.TrimSpace(name)
			h[last] = append(h[last], strings.TrimSpace(value))
		}
		if err == io.EOF {
			break
		}
	}
	_, rest, _ := strings.Cut(first, " ")
	if strings.HasPrefix(first, "HTTP/") {
		return rest, h, nil
	}
	method, _, _ := strings.Cut(first, " ")
	return method, h, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
