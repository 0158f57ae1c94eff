package warc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// MaxHeaderBytes bounds the size of one record header; a longer one is damage.
const MaxHeaderBytes = 1 << 20

// DamageError reports a damaged part of a file: the bytes from Offset up to End were
// skipped. For gzip files both are offsets in the compressed file. The Reader has
// already moved on to the next record start when it returns one.
type DamageError struct {
	Offset, End int64
	Err         error
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("warc: damaged bytes %d-%d: %v", e.Offset, e.End, e.Err)
}

func (e *DamageError) Unwrap() error { return e.Err }

// countReader is the raw input behind a bufio.Reader. It counts the bytes the
// bufio.Reader takes from the file, so the offset of the next unread byte is known
// with nothing between the bufio.Reader and a gzip decompressor, which reads a
// *bufio.Reader fastest (and, reading byte by byte where it must, exactly up to
// the end of its member).
type countReader struct {
	br *bufio.Reader
	in fileCounter
}

// fileCounter counts the bytes read from r.
type fileCounter struct {
	r io.Reader
	n int64
}

func (c *fileCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func newCountReader(r io.Reader) *countReader {
	c := &countReader{in: fileCounter{r: r}}
	c.br = bufio.NewReaderSize(&c.in, 64<<10)
	return c
}

// pos returns the file offset of the next unread byte.
func (c *countReader) pos() int64 { return c.in.n - int64(c.br.Buffered()) }

// restart reads on from r, which is at file offset off.
func (c *countReader) restart(r io.Reader, off int64) {
	c.in = fileCounter{r: r, n: off}
	c.br.Reset(&c.in)
}

func (c *countReader) discard(n int64) (int64, error) {
	var done int64
	for done < n {
		k := int(min(n-done, 1<<30))
		d, err := c.br.Discard(k)
		done += int64(d)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// member is one gzip member: where it starts in the file and in the inflated stream,
// and its sl skip-lengths (zero when absent).
type member struct {
	coff, uoff int64
	slC, slU   uint32
	hasSL      bool
}

// memberStream inflates a sequence of gzip members as one stream, remembering where
// each member starts.
type memberStream struct {
	src      *countReader
	gz       *gzip.Reader
	dec      io.Reader // gz, or stored while handing out a stored head
	in       bool      // inside a member
	done     bool      // clean end of input
	produced int64     // inflated bytes handed out
	cur      member    // the member being inflated
	starts   []member
	err      error
	// onEnd, when set, is told of each member that ends cleanly, with the file and
	// stream positions of its end.
	onEnd func(m member, cEnd, uEnd int64)

	// lazy: a member with sl longer than lazyPrefix is first inflated from a copy
	// of its first lazyPrefix compressed bytes, leaving the input where the member
	// starts, so that it can be skipped by sl without inflating the rest. Only if
	// more is read is it inflated again, from a longer copy and then from the
	// input (skipping what was already handed out). pass counts these fresh
	// starts: each member is inflated at most three times, so a copy that ends
	// in damage, or at the end of the file, cannot send it round again.
	lazy     bool
	prefix   bytes.Reader // the copy, while inflating from it
	window   int          // its length
	pass     int          // fresh starts of this member: 0 first copy, 1 longer copy, 2 input
	fromCopy bool         // inflating from prefix
	redo     bool         // the copy is used up: inflate from the input next
	given    int64        // bytes of this member handed out
	scratch  []byte
	stored   storedReader // the stored head of a member (see memberWriter), read from the copy
}

// lazyPrefix is how many compressed bytes of a member a lazy Reader inflates
// first: enough for a WARC header and a short HTTP header. When more is read, it
// inflates afresh from four times as many, then from the input.
const lazyPrefix = 512

// storedPrefix is how many bytes of a member a lazy Reader looks at for a
// stored head (see memberWriter): the longest head it reads without inflating.
const storedPrefix = 16 << 10

func (m *memberStream) Read(p []byte) (int, error) {
	for {
		if m.err != nil {
			return 0, m.err
		}
		if m.done {
			return 0, io.EOF
		}
		if !m.in {
			if err := m.start(); err != nil {
				return 0, err
			}
			continue
		}
		if m.redo {
			if err := m.inflateAgain(); err != nil {
				return 0, err
			}
			continue
		}
		n, err := m.dec.Read(p)
		m.produced += int64(n)
		m.given += int64(n)
		if m.fromCopy && err != nil {
			// The copy ran out (or the member is not what sl says): go on from
			// a longer copy, or from the input itself, which handles the end and
			// any damage.
			m.redo = true
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err == io.EOF {
			m.in = false
			if m.onEnd != nil {
				m.onEnd(m.cur, m.src.pos(), m.produced)
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			m.err = &DamageError{Offset: m.cur.coff, End: m.src.pos(), Err: fmt.Errorf("%w: %v", ErrGzip, err)}
			return n, m.err
		}
		return n, nil
	}
}

// start begins the member at the current input position.
func (m *memberStream) start() error {
	if _, err := m.src.br.Peek(1); err != nil {
		if err == io.EOF {
			m.done = true
			return io.EOF
		}
		m.err = err
		return err
	}
	at := m.src.pos()
	m.fromCopy, m.redo, m.given, m.pass = false, false, 0, 0
	if m.lazy {
		if c, u, ok := m.startFromCopy(lazyPrefix, true); ok {
			m.in = true
			m.cur = member{coff: at, uoff: m.produced, slC: c, slU: u, hasSL: true}
			m.starts = append(m.starts, m.cur)
			return nil
		}
	}
	var err error
	if m.gz == nil {
		m.gz, err = gzip.NewReader(m.src.br)
	} else {
		err = m.gz.Reset(m.src.br)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		m.err = &DamageError{Offset: at, End: m.src.pos(), Err: fmt.Errorf("%w: %v", ErrGzip, err)}
		return m.err
	}
	m.gz.Multistream(false)
	m.dec = m.gz
	m.in = true
	m.cur = member{coff: at, uoff: m.produced}
	m.cur.slC, m.cur.slU, m.cur.hasSL = parseSL(m.gz.Header.Extra)
	m.starts = append(m.starts, m.cur)
	return nil
}

// startFromCopy starts inflating the member at the input position from a copy of
// its first n bytes, if it has an sl field that says it is longer, and returns
// its sl lengths. With stored, a member that opens with a stored head (as this
// package writes them) is read from the copy without inflating.
func (m *memberStream) startFromCopy(n int, stored bool) (slC, slU uint32, ok bool) {
	if stored {
		p, _ := m.src.br.Peek(storedPrefix)
		if extra, at, ok := parseGzipHeader(p); ok && at < len(p) && p[at]&7 == 0 {
			if c, u, ok := parseSL(extra); ok && int64(c) > int64(at) {
				m.window = len(p)
				m.stored = storedReader{p: p[at:min(int64(len(p)), int64(c))]}
				m.dec = &m.stored
				m.fromCopy = true
				return c, u, true
			}
		}
	}
	p, _ := m.src.br.Peek(n)
	m.window = len(p)
	m.prefix.Reset(p)
	var err error
	if m.gz == nil {
		m.gz, err = gzip.NewReader(&m.prefix)
	} else {
		err = m.gz.Reset(&m.prefix)
	}
	if err != nil {
		return 0, 0, false
	}
	c, u, ok := parseSL(m.gz.Header.Extra)
	if !ok || int64(c) <= int64(len(p)) {
		return 0, 0, false
	}
	m.gz.Multistream(false)
	m.dec = m.gz
	m.fromCopy = true
	return c, u, true
}

// inflateAgain inflates the current member afresh, from a longer copy or from the
// input, which is still where it starts, and skips the bytes already handed out.
// The longer copy is tried once, and only if the input holds more than the first
// one: near the end of the file both copies are the same bytes, and the second
// would fail as the first did.
func (m *memberStream) inflateAgain() error {
	m.redo = false
	m.pass++
	if m.fromCopy && m.pass == 1 {
		if p, _ := m.src.br.Peek(4 * lazyPrefix); len(p) > m.window {
			if _, _, ok := m.startFromCopy(len(p), false); ok {
				return m.skipGiven()
			}
		}
	}
	m.fromCopy = false
	var err error
	if m.gz == nil {
		m.gz, err = gzip.NewReader(m.src.br)
	} else {
		err = m.gz.Reset(m.src.br)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		m.err = &DamageError{Offset: m.cur.coff, End: m.src.pos(), Err: fmt.Errorf("%w: %v", ErrGzip, err)}
		return m.err
	}
	m.gz.Multistream(false)
	m.dec = m.gz
	return m.skipGiven()
}

// skipGiven inflates and drops the bytes of the member already handed out.
func (m *memberStream) skipGiven() error {
	if m.scratch == nil {
		m.scratch = make([]byte, 32<<10)
	}
	for skip := m.given; skip > 0; {
		n, err := m.gz.Read(m.scratch[:min(skip, int64(len(m.scratch)))])
		skip -= int64(n)
		if err != nil && skip > 0 {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			m.err = &DamageError{Offset: m.cur.coff, End: m.src.pos(), Err: fmt.Errorf("%w: %v", ErrGzip, err)}
			return m.err
		}
	}
	return nil
}

// parseSL finds the "sl" subfield (section 9.2) in a gzip extra field.
func parseSL(extra []byte) (c, u uint32, ok bool) {
	for len(extra) >= 4 {
		n := int(binary.LittleEndian.Uint16(extra[2:4]))
		if 4+n > len(extra) {
			return 0, 0, false
		}
		if extra[0] == 's' && extra[1] == 'l' && n == 8 {
			return binary.LittleEndian.Uint32(extra[4:8]), binary.LittleEndian.Uint32(extra[8:12]), true
		}
		extra = extra[4+n:]
	}
	return 0, 0, false
}

// Reader reads WARC records, of any version, from a plain or gzip file.
type Reader struct {
	file   io.Reader
	seeker io.Seeker // file, if it can seek
	gzip   bool
	src    *countReader
	mem    *memberStream
	br     *bufio.Reader // the (inflated) record stream
	pos    int64         // position in the record stream of the next unread byte

	cur        *Record
	blk        *blockReader
	recStart   int64 // stream position where cur starts
	recMember  member
	aligned    bool // cur starts at the start of a gzip member
	damage     error
	reassemble bool
	segments   *segmentReader // the reassembled record being read
	problems   []error
	raw        []byte // the current record's header, as read
	dataLength int64
}

// NewReader returns a Reader for a WARC file, detecting gzip by its magic number.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{file: r}
	rd.seeker, _ = r.(io.Seeker)
	rd.src = newCountReader(r)
	head, err := rd.src.br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	rd.gzip = len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b
	rd.reset(0)
	return rd, nil
}

// reset starts reading afresh at file offset off, where the input now is.
func (r *Reader) reset(off int64) {
	r.pos = 0
	r.cur, r.blk, r.damage = nil, nil, nil
	if r.gzip {
		if r.mem == nil {
			r.mem = &memberStream{src: r.src}
		} else {
			gz, onEnd, lazy, scratch := r.mem.gz, r.mem.onEnd, r.mem.lazy, r.mem.scratch
			*r.mem = memberStream{src: r.src, gz: gz, onEnd: onEnd, lazy: lazy, scratch: scratch}
		}
		if r.br == nil {
			r.br = bufio.NewReaderSize(r.mem, 64<<10)
		} else {
			r.br.Reset(r.mem)
		}
	} else {
		r.br = r.src.br
		r.pos = off
	}
}

// Gzip reports whether the file is gzip-compressed.
func (r *Reader) Gzip() bool { return r.gzip }

// Reassemble makes the Reader join segmented records (section 7.2): the Block of a
// record with "Segment-Number: 1" continues through the continuation records that
// follow it, which Next then does not return. Its BlockLength is -1 until the last
// segment has been read, and then the total.
func (r *Reader) Reassemble(on bool) { r.reassemble = on }

// Lazy makes the Reader inflate a gzip member that has an sl field (section 9.2)
// only as far as its record is read. A record whose block is skipped, or read only
// as far as its HTTP header, then costs little more than inflating its header; a
// block read through costs its first two kilobytes of compressed data inflated
// twice. Indexers want it; readers of whole blocks do not. Call it before the
// first Next.
func (r *Reader) Lazy(on bool) {
	if r.mem != nil {
		r.mem.lazy = on
	}
}

// SeekRecord moves to the record that starts at file offset off (for gzip files, the offset
// of its member). The input must be an io.Seeker.
func (r *Reader) SeekRecord(off int64) error {
	if r.seeker == nil {
		return ErrNotSeekable
	}
	if _, err := r.seeker.Seek(off, io.SeekStart); err != nil {
		return err
	}
	r.src.restart(r.file, off)
	r.reset(off)
	return nil
}

// RawHeader returns the current record's header exactly as it was read, through the
// blank line that ends it. It is valid until the next call to Next.
func (r *Reader) RawHeader() []byte { return r.raw }

// DataLength returns the current record's declared length: for WARC 0.9 the
// data-length of its header-line (header and block), for WARC/1.x its
// Content-Length (the block).
func (r *Reader) DataLength() int64 { return r.dataLength }

// Problems returns what was wrong in the last record's header that did not stop it
// being read (an unparsable date, a bad field line), each with its offset.
func (r *Reader) Problems() []error { return r.problems }

// RecordsEnd returns, once Next has returned io.EOF, the file offset where the last
// record ends: in a gzip file the end of the member that starts it, so that gzip
// members after it holding no record (empty ones, or newlines only) are not
// counted; in a plain file the end of the file.
func (r *Reader) RecordsEnd() int64 {
	if r.gzip && r.mem != nil {
		for _, m := range r.mem.starts {
			if m.uoff > r.recStart {
				return m.coff
			}
		}
	}
	return r.src.pos()
}

// fileOffset converts a position in the record stream to a file offset: for gzip
// files, the start of the member that holds it.
func (r *Reader) fileOffset(pos int64) (int64, bool) {
	if !r.gzip {
		return pos, true
	}
	starts := r.mem.starts
	for i := len(starts) - 1; i >= 0; i-- {
		if starts[i].uoff <= pos {
			return starts[i].coff, starts[i].uoff == pos
		}
	}
	return r.src.pos(), true
}

// memberAt returns the member that starts exactly at stream position pos.
func (r *Reader) memberAt(pos int64) (member, bool) {
	for i := len(r.mem.starts) - 1; i >= 0; i-- {
		if r.mem.starts[i].uoff == pos {
			return r.mem.starts[i], true
		}
		if r.mem.starts[i].uoff < pos {
			break
		}
	}
	return member{}, false
}

// prune forgets members that start before pos, keeping the one that holds it.
func (r *Reader) prune(pos int64) {
	s := r.mem.starts
	i := 0
	for i+1 < len(s) && s[i+1].uoff <= pos {
		i++
	}
	if i > 0 {
		r.mem.starts = append(s[:0], s[i:]...)
	}
}

// Next returns the next record. Whatever was left unread of the previous record's
// block is skipped (using sl, without inflating, when the record is a whole gzip
// member). At the end it returns io.EOF. On damage it returns a *DamageError and
// has moved on to the next record start: call Next again to continue.
func (r *Reader) Next() (*Record, error) {
	if s := r.segments; s != nil {
		// Continuations of an unfinished reassembled record are not records of their own.
		r.segments = nil
		if _, err := io.Copy(io.Discard, s); err != nil {
			return nil, err
		}
	}
	rec, err := r.next()
	if err != nil || !r.reassemble || rec.Type == TypeContinuation || rec.Header.Get(FieldSegmentNumber) != "1" {
		return rec, err
	}
	r.segments = &segmentReader{r: r, origin: rec, seg: 1, block: rec.Block}
	rec.Block = r.segments
	rec.BlockLength = -1
	return rec, nil
}

func (r *Reader) next() (*Record, error) {
	r.problems = r.problems[:0]
	if r.cur != nil {
		if err := r.finish(); err != nil {
			return nil, err
		}
	}
	if err := r.skipNewlines(); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, r.resyncAfter(r.pos, err)
	}
	r.recStart = r.pos
	if r.gzip {
		r.prune(r.pos)
		r.recMember, r.aligned = r.memberAt(r.pos)
	}
	r.raw = r.raw[:0]
	rec, err := r.readHeader()
	if err != nil {
		return nil, r.resyncAfter(r.recStart, err)
	}
	r.dataLength = rec.BlockLength
	if rec.Version == V09 {
		r.dataLength += int64(len(r.raw))
	}
	rec.Offset, _ = r.fileOffset(r.recStart)
	r.blk = &blockReader{r: r, rec: rec, remaining: rec.BlockLength, law: rec.Version == V09}
	rec.Block = r.blk
	r.cur = rec
	return rec, nil
}

// finish skips what is left of the current record and checks what follows it.
func (r *Reader) finish() error {
	rec, blk := r.cur, r.blk
	defer func() { r.cur, r.blk = nil, nil }()
	if blk.err != nil {
		return r.resyncAfter(r.recStart, blk.err)
	}
	end := r.pos + blk.remaining - r.recMember.uoff // through the block
	if blk.remaining >= 0 && r.gzip && r.aligned && r.recMember.hasSL && r.recMember.slC > 0 &&
		r.mem.in && r.mem.cur.coff == r.recMember.coff &&
		(int64(r.recMember.slU) == end+4 || (blk.law && int64(r.recMember.slU) == end)) {
		// Skip the rest of the member by its sl length, without inflating it.
		target := r.recMember.coff + int64(r.recMember.slC)
		if r.src.pos() <= target {
			if _, err := r.src.discard(target - r.src.pos()); err != nil {
				return r.resyncAfter(r.recStart, fmt.Errorf("%w: sl skip past end of file", ErrSkipLength))
			}
			r.mem.in = false
			r.mem.produced = r.recMember.uoff + int64(r.recMember.slU)
			r.br.Reset(r.mem)
			r.pos = r.mem.produced
			return nil
		}
	}
	if blk.remaining > 0 {
		if err := blk.skip(); err != nil {
			return r.resyncAfter(r.recStart, err)
		}
	}
	// The block must be followed by CRLF CRLF (readers may tolerate more or fewer
	// newlines, section 5.1), then a record or the end.
	if err := r.skipNewlines(); err != nil {
		if err == io.EOF {
			return nil
		}
		return r.resyncAfter(r.recStart, err)
	}
	if !r.atRecordStart() {
		return r.resyncAfter(r.recStart, fmt.Errorf("%w: record %s at %d: no record start after its %d-byte block", ErrLength, rec.ID, rec.Offset, rec.BlockLength))
	}
	return nil
}

// skipNewlines consumes CR and LF bytes; io.EOF when the input ends.
func (r *Reader) skipNewlines() error {
	for {
		b, err := r.br.ReadByte()
		if err != nil {
			return err
		}
		if b != '\r' && b != '\n' {
			r.br.UnreadByte()
			return nil
		}
		r.pos++
	}
}

// atRecordStart reports whether the input continues with "warc/" (any case) and a
// version number.
func (r *Reader) atRecordStart() bool {
	p, _ := r.br.Peek(7)
	return looksLikeStart(p)
}

func looksLikeStart(p []byte) bool {
	return len(p) >= 7 && (p[0]|0x20) == 'w' && (p[1]|0x20) == 'a' && (p[2]|0x20) == 'r' &&
		(p[3]|0x20) == 'c' && p[4] == '/' && '0' <= p[5] && p[5] <= '9' && p[6] == '.'
}

// resyncAfter reports damage that began at stream position from, and moves to the
// next plausible record start: "warc/" and a version at the start of a line (as
// section 5.1 suggests), or, when a gzip member is broken, the next gzip member.
func (r *Reader) resyncAfter(from int64, cause error) error {
	r.cur, r.blk = nil, nil
	var de *DamageError
	if errors.As(cause, &de) && r.gzip && errors.Is(cause, ErrGzip) {
		// The compressed data itself is broken: find the next member in the file.
		start := de.Offset
		end := r.resyncGzip()
		return &DamageError{Offset: start, End: end, Err: de.Err}
	}
	start, _ := r.fileOffset(from)
	err := r.scan()
	var end int64
	if err != nil && errors.As(err, &de) {
		// The scan ran into a broken member; report both as one range.
		end = r.resyncGzip()
		return &DamageError{Offset: start, End: end, Err: cause}
	}
	if r.gzip {
		if err == io.EOF {
			end = r.src.pos()
		} else {
			end, _ = r.fileOffset(r.pos)
		}
	} else {
		end = r.pos
	}
	return &DamageError{Offset: start, End: end, Err: cause}
}

// scan moves forward in the record stream to the next line that starts a record.
func (r *Reader) scan() error {
	for {
		p, err := r.br.Peek(r.br.Size())
		if len(p) == 0 {
			if err == nil {
				err = io.EOF
			}
			return err
		}
		i := 0
		for ; i < len(p); i++ {
			if (p[i]|0x20) != 'w' || (i > 0 && p[i-1] != '\n') {
				continue
			}
			if i+7 > len(p) && err == nil {
				break // too near the end of the window: look again from here
			}
			if looksLikeStart(p[i:]) {
				r.br.Discard(i)
				r.pos += int64(i)
				return nil
			}
		}
		r.br.Discard(i)
		r.pos += int64(i)
		if err != nil && i == len(p) {
			return err
		}
	}
}

// resyncGzip abandons the current member and finds the next gzip member header in
// the file; it returns the file offset where reading resumes.
func (r *Reader) resyncGzip() int64 {
	m := r.mem
	m.in, m.err = false, nil
	defer func() { r.br.Reset(m); r.pos = m.produced }()
	for {
		p, _ := r.src.br.Peek(3)
		if len(p) < 3 {
			r.src.discard(int64(len(p)))
			m.done = true
			return r.src.pos()
		}
		if p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 {
			r.src.discard(1)
			continue
		}
		at := r.src.pos()
		if m.start() == nil {
			return at
		}
		m.err, m.in = nil, false
		if r.seeker != nil {
			// Go on from the byte after the false magic number.
			if _, err := r.seeker.Seek(at+1, io.SeekStart); err == nil {
				r.src.restart(r.file, at+1)
			}
		}
	}
}

// readHeader reads a record header, of any version, at the current position.
func (r *Reader) readHeader() (*Record, error) {
	first, err := r.readLine(false)
	if err != nil {
		return nil, err
	}
	if len(first) >= 8 && asciiEqualFold(first[:8], "warc/0.9") && (len(first) == 8 || first[8] == ' ' || first[8] == '\t') {
		return r.readHeader09(first)
	}
	lower := strings.ToLower(first)
	switch {
	case lower == "warc/1.0" || lower == "warc/1.1":
		return r.readHeader1(lower)
	}
	if len(first) > 40 {
		first = first[:40] + "..."
	}
	if strings.HasPrefix(lower, "warc/") {
		return nil, fmt.Errorf("%w: %q", ErrVersion, first)
	}
	return nil, fmt.Errorf("%w: %q is not a WARC record start", ErrHeader, first)
}

// asciiEqualFold reports whether s equals the lower-case ASCII lower but for
// the case of ASCII letters.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// indexBlank returns the index of the first space or tab in s, or -1.
func indexBlank(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			return i
		}
	}
	return -1
}

// parseDate09 parses a 14-digit creation-date, as time.Parse(layout09, s) does.
func parseDate09(s string) (time.Time, error) {
	if len(s) == len(layout09) {
		var v [6]int
		ok := true
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				ok = false
				break
			}
			k := 0
			if i >= 4 {
				k = (i-4)/2 + 1
			}
			v[k] = v[k]*10 + int(c-'0')
		}
		if ok {
			t := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], 0, time.UTC)
			if t.Year() == v[0] && int(t.Month()) == v[1] && t.Day() == v[2] && t.Hour() == v[3] && t.Minute() == v[4] && t.Second() == v[5] {
				return t, nil
			}
		}
	}
	return time.Parse(layout09, s) // the error, or an unusual form
}

// readLine reads one header line without its line end. A WARC 0.9 line ends only at
// CRLF: a bare LF is part of the text (the ruling on section 3's grammar).
func (r *Reader) readLine(crlfOnly bool) (string, error) {
	var line []byte
	for {
		frag, err := r.br.ReadSlice('\n')
		r.pos += int64(len(frag))
		r.raw = append(r.raw, frag...)
		if line == nil && err == nil && len(frag) <= MaxHeaderBytes && bytes.HasSuffix(frag, []byte("\r\n")) {
			// The common case: the whole line, CRLF-terminated, in the buffer.
			return string(frag[:len(frag)-2]), nil
		}
		line = append(line, frag...)
		if len(line) > MaxHeaderBytes {
			return "", fmt.Errorf("%w: more than %d bytes", ErrTooLong, MaxHeaderBytes)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", fmt.Errorf("%w: header cut short: %v", ErrHeader, err)
		}
		if crlfOnly && !bytes.HasSuffix(line, []byte("\r\n")) {
			continue
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
		return string(line), nil
	}
}

// readFields reads named fields up to the blank line, unfolding continuation lines.
func (r *Reader) readFields(crlfOnly bool) (Header, error) {
	h := make(Header, 0, 8)
	total := 0
	for {
		at := r.pos
		line, err := r.readLine(crlfOnly)
		if err != nil {
			return nil, err
		}
		total += len(line)
		if total > MaxHeaderBytes {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLong, MaxHeaderBytes)
		}
		if line == "" {
			if len(h) == 0 {
				return nil, nil
			}
			return h, nil
		}
		if (line[0] == ' ' || line[0] == '\t') && len(h) > 0 {
			h[len(h)-1].Value += " " + strings.TrimLeft(line, " \t")
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || checkFieldName(name) != nil {
			off, _ := r.fileOffset(at)
			r.problems = append(r.problems, fmt.Errorf("%w at %d: %q is not a named field", ErrField, off, truncate(line)))
			continue
		}
		h = append(h, Field{name, strings.Trim(value, " \t")})
	}
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// readHeader09 parses the positional parameters of a WARC 0.9 header-line
// (section 5.1) and the named fields after it.
func (r *Reader) readHeader09(line string) (*Record, error) {
	var tok [7]string
	n := 0
	for rest := line; ; {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			break
		}
		end := indexBlank(rest)
		if end < 0 {
			end = len(rest)
		}
		if n < len(tok) {
			tok[n] = rest[:end]
		}
		n++
		rest = rest[end:]
	}
	if n != 7 {
		return nil, fmt.Errorf("%w: warc/0.9 header-line has %d parameters, want 7", ErrHeader, n)
	}
	length, err := parseLength(tok[1])
	if err != nil {
		return nil, fmt.Errorf("%w: data-length %q", ErrHeader, tok[1])
	}
	rec := &Record{Version: V09, Type: tok[2], TargetURI: tok[3], ContentType: tok[5], ID: tok[6]}
	// Heritrix (2006) wrote the record-id before the content-type: a record-id is a
	// URI and has a scheme and ":"; a content-type has none.
	if strings.Contains(rec.ContentType, ":") && !strings.Contains(rec.ID, ":") {
		rec.ContentType, rec.ID = rec.ID, rec.ContentType
	}
	if rec.Date, err = parseDate09(tok[4]); err != nil {
		off, _ := r.fileOffset(r.recStart)
		r.problems = append(r.problems, fmt.Errorf("%w at %d: creation-date %q is not a 14-digit timestamp", ErrField, off, tok[4]))
	}
	if rec.Header, err = r.readFields(true); err != nil {
		return nil, err
	}
	for i, f := range rec.Header {
		if strings.EqualFold(f.Name, payloadDigest09) {
			rec.Header[i].Name = FieldPayloadDigest
		}
	}
	headerLen := r.pos - r.recStart
	rec.BlockLength = length - headerLen
	if rec.BlockLength < 0 {
		return nil, fmt.Errorf("%w: data-length %d is shorter than the %d-byte header", ErrLength, length, headerLen)
	}
	return rec, nil
}

// parseLength parses a length of decimal digits (zero-padded ones included).
func parseLength(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// readHeader1 parses a WARC/1.0 or 1.1 header and maps its fields to this package's
// WARC 0.9 names.
func (r *Reader) readHeader1(versionLine string) (*Record, error) {
	rec := &Record{Version: V11}
	if versionLine == "warc/1.0" {
		rec.Version = V10
	}
	fields, err := r.readFields(false)
	if err != nil {
		return nil, err
	}
	length := int64(-1)
	var filename string
	refers := 0
	for _, f := range fields {
		lname := strings.ToLower(f.Name)
		switch lname {
		case "warc-type":
			rec.Type = f.Value
		case "warc-record-id":
			rec.ID = unbracket(f.Value)
		case "warc-date":
			rec.Date, err = parseDate1(f.Value)
			if err != nil {
				off, _ := r.fileOffset(r.recStart)
				r.problems = append(r.problems, fmt.Errorf("%w at %d: WARC-Date %q", ErrField, off, f.Value))
			}
		case "warc-target-uri":
			rec.TargetURI = unbracket(f.Value)
		case "content-type":
			rec.ContentType = f.Value
		case "content-length":
			if length, err = parseLength(f.Value); err != nil {
				return nil, fmt.Errorf("%w: Content-Length %q", ErrHeader, f.Value)
			}
		case "warc-filename":
			filename = f.Value
		case "warc-refers-to":
			// The record a revisit or conversion derives from comes first.
			rec.Header = append(rec.Header, Field{})
			copy(rec.Header[refers+1:], rec.Header[refers:])
			rec.Header[refers] = Field{FieldRelatedRecordID, unbracket(f.Value)}
			refers++
		default:
			if name, ok := field09[lname]; ok {
				v := f.Value
				if idField11[lname] {
					v = unbracket(v)
				}
				rec.Header = append(rec.Header, Field{name, v})
			} else {
				rec.Header = append(rec.Header, f)
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", ErrHeader)
	}
	if rec.Type == TypeWarcinfo && rec.TargetURI == "" && filename != "" {
		rec.TargetURI = "filedesc:" + filename
	} else if filename != "" {
		rec.Header = append(rec.Header, Field{FieldFilename, filename})
	}
	rec.BlockLength = length
	return rec, nil
}

func unbracket(s string) string {
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		return s[1 : len(s)-1]
	}
	return s
}

// parseDate1 parses a WARC/1.x date (W3C-ISO8601, to any precision); a 14-digit
// timestamp is accepted too.
func parseDate1(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	for _, layout := range []string{"2006-01-02T15:04Z", "2006-01-02", "2006-01", "2006", layout09} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: date %q", ErrField, s)
}

// blockReader reads the current record's block from the record stream.
type blockReader struct {
	r         *Reader
	rec       *Record
	remaining int64
	// law: WARC 0.9 only. The LAW library's data-length also counted the closing
	// CRLF CRLF; the last 4 bytes are held back until what follows them shows which
	// form the record has.
	law bool
	err error
}

func (b *blockReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.r.blk != b {
		return 0, fmt.Errorf("warc: record %s: block read after Next", b.rec.ID)
	}
	if b.remaining == 0 {
		return 0, io.EOF
	}
	if b.law {
		if b.remaining <= 4 {
			b.decide()
			if b.remaining == 0 {
				return 0, io.EOF
			}
		} else if int64(len(p)) > b.remaining-4 {
			p = p[:b.remaining-4]
		}
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.r.br.Read(p)
	b.r.pos += int64(n)
	b.remaining -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		var de *DamageError
		if !errors.As(err, &de) {
			err = fmt.Errorf("%w: record %s: block cut short with %d bytes missing: %v", ErrLength, b.rec.ID, b.remaining, err)
		}
		b.err = err
	}
	return n, err
}

// decide settles the LAW form when the last 4 bytes of the declared block are next:
// if they are CRLF CRLF and no CRLF CRLF follows them, they were the record end.
func (b *blockReader) decide() {
	b.law = false
	p, _ := b.r.br.Peek(int(b.remaining) + 4)
	if b.remaining == 4 && len(p) >= 4 && string(p[:4]) == "\r\n\r\n" {
		rest := p[4:]
		if len(rest) == 0 || !bytes.HasPrefix(rest, []byte("\r\n")) {
			b.remaining = 0
			b.rec.BlockLength -= 4
		}
	}
}

// skip discards the rest of the block, seeking over a long one in a plain file.
func (b *blockReader) skip() error {
	r := b.r
	if !r.gzip && r.seeker != nil && b.remaining > 1<<20 {
		target := r.pos + b.remaining - 4
		if _, err := r.seeker.Seek(target, io.SeekStart); err == nil {
			r.src.restart(r.file, target)
			r.pos = target
			b.remaining = 4
		}
	}
	_, err := io.Copy(io.Discard, b)
	return err
}
