package cdx

// Indexing WARC files as pywb 2.6.7's cdx-indexer does with --sort --cdxj
// --postappend (pywb/indexer/archiveindexer.py, DefaultRecordParser with
// append_post, over warcio 1.7.4's ArchiveIterator and ArcWarcRecordLoader).
// docs/cdx.md lists every field and where pywb's behaviour comes from.

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webkeep/webkeep/shared/httpmsg"
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

// errSharedMember is the error for a gzip file compressed whole rather than record
// by record.
var errSharedMember = errors.New("the record shares a gzip member with the one before it: the file is not compressed record by record (warcio recompress makes it so)")

// An Indexer turns the records of WARC files into CDXJ entries.
type Indexer struct {
	// Dialect selects the JSON body rendering of keys.
	Dialect Dialect
	// Problems, if set, receives damage found in a file; indexing goes on.
	Problems func(error)
	// Workers is how many sections of a gzip file are indexed at the same
	// time; zero means one per CPU (runtime.GOMAXPROCS), one means serially.
	Workers int
	// NonSURT makes keys canonical URLs rather than SURTs, as pywb's
	// cdx-indexer --unsurt does: "example.com/a?b=1" for "com,example)/a?b=1".
	NonSURT bool

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
	key, err := ix.canonicalize(url)
	if err != nil {
		return "", err
	}
	ix.lastURL, ix.lastKey = url, key
	return key, nil
}

// canonicalize is pywb's canonicalize: the SURT, or with NonSURT the SURT
// turned back into a URL.
func (ix *Indexer) canonicalize(url string) (string, error) {
	key, err := SURT(url)
	if err != nil || !ix.NonSURT {
		return key, err
	}
	return unsurt(key), nil
}

// unsurt is pywb's unsurt: the host part of a SURT (up to ")/") reversed and
// joined with dots; a key without ")/" is returned as it is.
func unsurt(key string) string {
	i := strings.Index(key, ")/")
	if i < 0 {
		return key
	}
	parts := strings.Split(key[:i], ",")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + key[i+1:]
}

// indexed is a record on its way to becoming an entry: pywb's entry plus
// what pairing needs.
type indexed struct {
	entry Entry
	typ   string
	id    string
	// concurrent is the record's WARC-Concurrent-To, the one field pywb pairs
	// a request and a response by.
	concurrent string
	skip       bool // indexed only for pairing (requests, warcinfo)
	none       bool // not indexed at all: only its offset counts
	method     string
	query      string

	// In a plain (uncompressed) file a record's length is its header and
	// block, without the newlines after it (warcio's ArchiveIterator): rec
	// and headerLen give the block's end, read when the next record starts
	// (a WARC 0.9 block's length is settled only once it has been read);
	// trailer is what the writer wrote after the block when rec is nil.
	rec       *warc.Record
	headerLen int64
	trailer   int64
}

// length returns the record's length in the file when the next record (or the
// end of the file) is at next.
func (it *indexed) length(next int64) int64 {
	n := next - it.entry.Offset
	if it.rec != nil && it.rec.BlockLength >= 0 {
		n = min(n, it.headerLen+it.rec.BlockLength)
	}
	return max(n-it.trailer, 0)
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
	end, err := ix.scan(cr, 0, filename, func(err error) bool {
		if ix.Problems != nil {
			ix.Problems(fmt.Errorf("%s: %w", filename, err))
		}
		return true
	}, func(it *indexed) error { return p.add(it) })
	if err != nil {
		return err
	}
	if p.pending != nil && end < 0 {
		// The last record runs to the end of the file.
		if _, err := io.Copy(io.Discard, cr); err != nil {
			return fmt.Errorf("cdx: %s: %w", filename, err)
		}
		end = cr.n
	}
	return p.finish(end)
}

// scan reads the records of r, a file or a section of one that starts at file
// offset base, and calls add with each record's indexed form (its length not yet
// known). damage is told of each damaged range; scan stops if it returns false.
// It returns the file offset where the last record ends, as warcio counts it: in a
// gzip file the end of its member (members after it that hold no record do not
// count); -1 when that is the end of r.
func (ix *Indexer) scan(r io.Reader, base int64, filename string, damage func(error) bool, add func(*indexed) error) (int64, error) {
	wr, err := warc.NewReader(r)
	if err != nil {
		return -1, fmt.Errorf("cdx: %s: %w", filename, err)
	}
	// Most blocks are read only as far as their HTTP header: members with sl
	// (webkeep's WARC 0.9) are skipped without inflating the rest.
	wr.Lazy(true)
	if ix.br == nil {
		ix.br = bufio.NewReaderSize(nil, 32<<10)
	}
	lastOffset := int64(-1)
	for {
		rec, err := wr.Next()
		if err == io.EOF {
			if wr.Gzip() {
				return base + wr.RecordsEnd(), nil
			}
			return -1, nil
		}
		var de *warc.DamageError
		if errors.As(err, &de) {
			if !damage(err) {
				return -1, nil
			}
			continue
		}
		if err != nil {
			return -1, fmt.Errorf("cdx: %s: %w", filename, err)
		}
		rec.Offset += base
		if wr.Gzip() && rec.Offset == lastOffset {
			// Not gzip record by record: no offset or length would find this
			// record, and pywb's indexer refuses the file here too.
			return -1, fmt.Errorf("cdx: %s: record at %d: %w", filename, rec.Offset, errSharedMember)
		}
		lastOffset = rec.Offset
		raw := wr.RawHeader()
		it, err := ix.record(rec, filename, "")
		if err != nil {
			return -1, fmt.Errorf("cdx: %s: record at %d: %w", filename, rec.Offset, err)
		}
		if it != nil && !it.none && rec.Type != warc.TypeWarcinfo && rec.Date.IsZero() {
			// pywb's indexer stops at a record without a WARC-Date it can read.
			if !damage(fmt.Errorf("record at %d: %s record without a usable WARC-Date, not indexed", rec.Offset, rec.Type)) {
				return -1, nil
			}
			it = nil
		}
		if it == nil {
			// Not indexed, but it ends the record before it.
			it = &indexed{skip: true, none: true, entry: Entry{Offset: rec.Offset}}
		} else if rec.Version != warc.V09 {
			// The reader folds WARC-Concurrent-To and WARC-Refers-To into one
			// field; pywb pairs by the first only.
			it.concurrent = rawField(raw, "WARC-Concurrent-To")
		}
		if !wr.Gzip() {
			it.rec, it.headerLen = rec, int64(len(raw))
		}
		if rec.TargetURI == "" && httpRecordTypes[rec.Type] {
			// pywb's indexer stops at such a record (warcio calls startswith
			// on the missing URI); webkeep reports it and goes on.
			if !damage(fmt.Errorf("record at %d: %s record without WARC-Target-URI, not indexed", rec.Offset, rec.Type)) {
				return -1, nil
			}
		}
		if err := add(it); err != nil {
			return -1, err
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
		p.pending.entry.Length = p.pending.length(it.entry.Offset)
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
		p.pending.entry.Length = p.pending.length(end)
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
	// join_request_records: same URL, and the later record's WARC-Concurrent-To
	// names the earlier (both missing counts as equal, as None == None).
	if it.entry.URL == prev.entry.URL && it.concurrent == prev.id &&
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
		if key, err := ix.canonicalize(newURL); err == nil {
			resp.entry.URLKey = key
			req.entry.URLKey = key
		}
		resp.entry.Method = req.method
		resp.entry.RequestBody = req.query
	}
	return true
}

// httpRecordTypes are the record types warcio reads an HTTP message from
// (ArcWarcRecordLoader.HTTP_RECORDS).
var httpRecordTypes = map[string]bool{warc.TypeResponse: true, warc.TypeRequest: true, warc.TypeRevisit: true}

// concurrentTo returns the WARC-Concurrent-To that webkeep's WARC/1.1 writer
// writes for rec: the first Related-Record-ID, or for a revisit or conversion
// (whose first is WARC-Refers-To) the second.
func concurrentTo(rec *warc.Record) string {
	skip := 0
	if rec.Type == warc.TypeRevisit || rec.Type == warc.TypeConversion {
		skip = 1
	}
	for _, f := range rec.Header {
		if strings.EqualFold(f.Name, warc.FieldRelatedRecordID) {
			if skip == 0 {
				return f.Value
			}
			skip--
		}
	}
	return ""
}

// rawField returns the value of the first field called name in a raw WARC/1.x
// header, without angle brackets, or "".
func rawField(raw []byte, name string) string {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) > len(name) && line[len(name)] == ':' && asciiEqualFold(line[:len(name)], name) {
			v := strings.TrimFunc(pyText(line[len(name)+1:]), pyIsSpace)
			if len(v) >= 2 && v[0] == '<' && v[len(v)-1] == '>' {
				v = v[1 : len(v)-1]
			}
			return v
		}
	}
	return ""
}

// asciiEqualFold reports whether b equals s but for the case of ASCII letters.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i]|0x20, s[i]|0x20
		if x != y || (x < 'a' || x > 'z') && b[i] != s[i] {
			return false
		}
	}
	return true
}

// pyText is a header line as warcio decodes it: UTF-8, or where that fails,
// ISO-8859-1.
func pyText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// pyString is pyText for a header value already read as a string.
func pyString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return pyText([]byte(s))
}

// targetURI is WARC-Target-URI as warcio gives it to pywb: decoded, and with
// spaces percent-encoded (ArcWarcRecordLoader._ensure_target_uri_format; the
// warc reader has already dropped the angle brackets Wget 1.19 wrote).
func targetURI(rec *warc.Record) string {
	u := rec.TargetURI
	if rec.Type == warc.TypeWarcinfo {
		// pywb's warcinfo entry is keyed by WARC-Filename; the reader gives
		// it as "filedesc:" and the name when there is no WARC-Target-URI.
		if f := rec.Header.Get(warc.FieldFilename); f != "" {
			u = f
		} else if name, ok := strings.CutPrefix(u, "filedesc:"); ok {
			u = name
		} else {
			u = ""
		}
	}
	return strings.ReplaceAll(pyString(u), " ", "%20")
}

// record is create_record_iter and parse_warc_record for one record. payloadDigest,
// when not empty, is the "sha1:BASE32" digest of the record's payload, which
// record then need not read. It returns nil for a record pywb skips before
// pairing requests with responses.
func (ix *Indexer) record(rec *warc.Record, filename, payloadDigest string) (*indexed, error) {
	if rec.ContentType == "application/warc-fields" {
		// Any type, warcinfo and metadata included: an exact, case-sensitive match.
		return nil, nil
	}
	it := &indexed{typ: rec.Type, id: rec.ID, concurrent: concurrentTo(rec)}
	e := &it.entry
	e.Type = rec.Type
	e.Offset = rec.Offset
	e.Filename = filename
	e.URL = targetURI(rec)
	if rec.Type == warc.TypeWarcinfo {
		it.skip = true
		return it, nil
	}
	e.Timestamp = timestamp14(rec.Date)
	e.Metadata = pyString(rec.Header.Get("WARC-Json-Metadata"))
	// WARC-Payload-Digest as it is, without a leading "sha1:"; computed below
	// when absent.
	e.Digest = "-"
	for _, f := range payloadDigestFields {
		if d := rec.Header.Get(f); d != "" {
			e.Digest = strings.TrimPrefix(d, "sha1:")
			break
		}
	}
	var key string
	if e.URL != "" {
		var err error
		if key, err = ix.surt(e.URL); err != nil {
			return nil, err
		}
	}
	e.URLKey = key

	// The HTTP message: read from the block of a response, request or revisit
	// with an http: or https: URI and a block; otherwise, or when the block
	// holds no status line or header, warcio makes up "HTTP/1.0 200 OK" with
	// the record's Content-Type and Content-Length.
	ix.br.Reset(rec.Block)
	ctype := rec.ContentType
	if rec.Version == warc.V09 {
		// A WARC 0.9 record is indexed as pywb indexes its WARC/1.1 form.
		ctype = warc.ContentType11(ctype, rec.Type)
	}
	var msg httpMessage
	if httpRecordTypes[rec.Type] && rec.BlockLength != 0 &&
		(strings.HasPrefix(e.URL, "http:") || strings.HasPrefix(e.URL, "https:")) {
		if err := msg.read(ix.br); err != nil {
			return nil, err
		}
	}
	if !msg.ok() {
		msg = httpMessage{protocol: "HTTP/1.0", statusline: "200 OK", header: httpmsg.Header{}}
		if ctype != "" {
			msg.header.Set("Content-Type", ctype)
		}
		if rec.BlockLength >= 0 {
			msg.header.Set("Content-Length", strconv.FormatInt(rec.BlockLength, 10))
		}
	}
	if msg.statusCode() == "-" {
		// Skipped before anything else (create_record_iter).
		return nil, nil
	}
	ctype, _ = header(msg.header, "Content-Type")
	switch rec.Type {
	case warc.TypeRevisit:
		e.Mime = "warc/revisit"
	case warc.TypeRequest:
		e.Mime = mimeOf(ctype, "-")
		e.MimeDetected = pyString(rec.Header.Get("WARC-Identified-Payload-Type"))
	default:
		e.Mime = mimeOf(ctype, "unk")
		e.MimeDetected = pyString(rec.Header.Get("WARC-Identified-Payload-Type"))
	}
	e.Status = "-"
	if rec.Type == warc.TypeResponse {
		if code := msg.statusCode(); code != "" {
			e.Status = code
			if code == "204" && strings.Contains(msg.statusline, "Error") {
				e.Status = "-"
			}
		}
	}
	switch {
	case rec.Type == warc.TypeRequest:
		it.skip = true
		it.method = strings.ToUpper(msg.protocol)
		r := &Request{Method: it.method, Header: msg.header}
		if it.method == "POST" || it.method == "PUT" {
			cl, _ := header(msg.header, "Content-Length")
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
	case e.Digest == "-" && rec.Type != warc.TypeRevisit && payloadDigest != "":
		e.Digest = strings.TrimPrefix(payloadDigest, "sha1:")
	case e.Digest == "-" && rec.Type != warc.TypeRevisit:
		// base32 of the SHA-1 of what follows the HTTP header (the whole
		// block when there is none), as the file holds it: not de-chunked.
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

// httpMessage is the start of an HTTP message as warcio's
// StatusAndHeadersParser (verify off) reads it.
type httpMessage struct {
	protocol   string         // the first line's first word: "HTTP/1.1", or a request's method
	statusline string         // the rest of the first line, stripped: "200 OK", "/path HTTP/1.1"
	header     httpmsg.Header // the fields under canonical names, each name's values in order
	fields     int
}

// ok is StatusAndHeaders.__bool__: a status or at least one field.
func (m *httpMessage) ok() bool { return m.statusline != "" || m.fields > 0 }

// statusCode is get_statuscode: the status line up to its first space.
func (m *httpMessage) statusCode() string {
	code, _, _ := strings.Cut(m.statusline, " ")
	return code
}

// read reads the message's first line and header from br. Lines are decoded
// as UTF-8 or ISO-8859-1 and stripped of trailing whitespace (Python's); a
// field's value loses its leading whitespace and gains its continuation lines
// as they are; a line without ":" is dropped; the header ends at the first
// line that is empty once stripped, or at the end of the block. An empty
// first line ends the message there.
func (m *httpMessage) read(br *bufio.Reader) error {
	m.header = httpmsg.Header{}
	total := 0
	readLine := func() (string, bool, error) { return readHeaderLine(br, &total) }
	first, any, err := readLine()
	if err != nil || !any || first == "" {
		// An empty block (a revisit's EOFError) or an empty first line.
		return err
	}
	protocol, rest, found := strings.Cut(first, " ")
	m.protocol = protocol
	if found {
		m.statusline = strings.TrimFunc(rest, pyIsSpace)
	}
	line, _, err := readLine()
	for err == nil && line != "" {
		name, value, hasValue := strings.Cut(line, ":")
		name = strings.TrimRight(name, " \t")
		value = strings.TrimLeftFunc(value, pyIsSpace)
		var next string
		next, _, err = readLine()
		for err == nil && next != "" && (next[0] == ' ' || next[0] == '\t') {
			value += next
			next, _, err = readLine()
		}
		if hasValue {
			k := httpmsg.CanonicalHeaderKey(name)
			m.header[k] = append(m.header[k], value)
			m.fields++
		}
		line = next
	}
	return err
}

// readHeaderLine reads one line of an HTTP header, decoded and stripped as warcio
// does, and whether there was one; total counts the header's bytes.
func readHeaderLine(br *bufio.Reader, total *int) (string, bool, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		full := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull && *total+len(full) <= maxHTTPHeader {
			line, err = br.ReadSlice('\n')
			full = append(full, line...)
		}
		line = full
	}
	*total += len(line)
	if *total > maxHTTPHeader {
		return "", false, fmt.Errorf("HTTP header longer than %d bytes", maxHTTPHeader)
	}
	if err != nil && err != io.EOF {
		return "", false, err
	}
	return strings.TrimRightFunc(pyText(line), pyIsSpace), len(line) > 0, nil
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
