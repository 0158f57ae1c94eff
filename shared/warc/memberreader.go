package warc

// Reading gzip members (section 9): a memberStream inflates a file's members as one
// stream and remembers where each starts, so that a record can be given the offset
// of its member and skipped by its sl field; a lazy one inflates a member only as
// far as its record is read. The members' layout is in member.go.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// countReader is the raw input behind a bufio.Reader. It counts the bytes the
// bufio.Reader takes from the file, so the offset of the next unread byte is known
// with nothing between the bufio.Reader and a gzip decompressor, which reads a
// *bufio.Reader fastest (and, reading byte by byte where it must, exactly up to
// the end of its member).
type countReader struct {
	br *bufio.Reader
	in fileCounter
}

// fileCounter counts the bytes read from r, and keeps the first error other than
// io.EOF that r returned: the input failed, and nothing after it can be read.
type fileCounter struct {
	r   io.Reader
	n   int64
	err error
}

func (c *fileCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
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

// memberState is where a memberStream is in its input.
type memberState uint8

const (
	// betweenMembers: the next byte of input starts a member, or the input ends.
	betweenMembers memberState = iota
	// fromInput: the current member is being inflated from the input.
	fromInput
	// fromCopy: the current member is being inflated (or its stored head handed
	// out) from a copy of its first bytes; the input is still where it starts.
	fromCopy
	// copyUsedUp: the copy ran out; the member is inflated afresh next, from a
	// longer copy or from the input.
	copyUsedUp
	// inputEnded: the input ended cleanly, after a member.
	inputEnded
)

// memberStream inflates a sequence of gzip members as one stream, remembering where
// each member starts.
type memberStream struct {
	src      *countReader
	gz       *gzip.Reader
	dec      io.Reader // gz, or stored while handing out a stored head
	state    memberState
	err      error  // sticky, whatever the state: the stream failed (until a resync)
	produced int64  // inflated bytes handed out
	cur      member // the member being inflated
	starts   []member
	// onEnd, when set, is told of each member that ends cleanly, with the file and
	// stream positions of its end.
	onEnd func(m member, cEnd, uEnd int64)

	// lazy: a member with sl longer than lazyPrefix is first inflated from a copy
	// of its first lazyPrefix compressed bytes (state fromCopy), leaving the input
	// where the member starts, so that it can be skipped by sl without inflating
	// the rest. Only if more is read is it inflated again (state copyUsedUp), from
	// a longer copy and then from the input (skipping what was already handed
	// out). pass counts these fresh starts: each member is inflated at most three
	// times, so a copy that ends in damage, or at the end of the file, cannot send
	// it round again.
	lazy    bool
	prefix  bytes.Reader // the copy, while inflating from it
	window  int          // its length
	pass    int          // fresh starts of this member: 0 first copy, 1 longer copy, 2 input
	given   int64        // bytes of this member handed out
	scratch []byte
	stored  storedReader // the stored head of a member (see memberWriter), read from the copy
}

// lazyPrefix is how many compressed bytes of a member a lazy Reader inflates
// first: enough for a WARC header and a short HTTP header. When more is read, it
// inflates afresh from four times as many, then from the input.
const lazyPrefix = 512

// storedPrefix is how many bytes of a member a lazy Reader looks at for a
// stored head (see memberWriter): the longest head it reads without inflating.
const storedPrefix = 16 << 10

// inMember reports whether the stream is inside a member: it has started one and
// not yet seen its end.
func (m *memberStream) inMember() bool {
	return m.state == fromInput || m.state == fromCopy || m.state == copyUsedUp
}

func (m *memberStream) Read(p []byte) (int, error) {
	for {
		if m.err != nil {
			return 0, m.err
		}
		switch m.state {
		case inputEnded:
			return 0, io.EOF
		case betweenMembers:
			if err := m.start(); err != nil {
				return 0, err
			}
			continue
		case copyUsedUp:
			if err := m.inflateAgain(); err != nil {
				return 0, err
			}
			continue
		}
		n, err := m.dec.Read(p)
		m.produced += int64(n)
		m.given += int64(n)
		if m.state == fromCopy && err != nil {
			// The copy ran out (or the member is not what sl says): go on from
			// a longer copy, or from the input itself, which handles the end and
			// any damage.
			m.state = copyUsedUp
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err == io.EOF {
			m.state = betweenMembers
			if m.onEnd != nil {
				m.onEnd(m.cur, m.src.pos(), m.produced)
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			return n, m.fail(m.cur.coff, err)
		}
		return n, nil
	}
}

// fail makes the stream fail with damage to the member that starts at file
// offset off, found where the input now is.
func (m *memberStream) fail(off int64, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	m.err = &DamageError{Offset: off, End: m.src.pos(), Err: fmt.Errorf("%w: %v", ErrGzip, err)}
	return m.err
}

// inflateFrom starts the gzip reader on a member's bytes in r.
func (m *memberStream) inflateFrom(r io.Reader) error {
	var err error
	if m.gz == nil {
		m.gz, err = gzip.NewReader(r)
	} else {
		err = m.gz.Reset(r)
	}
	if err != nil {
		return err
	}
	m.gz.Multistream(false)
	m.dec = m.gz
	return nil
}

// start begins the member at the current input position.
func (m *memberStream) start() error {
	if _, err := m.src.br.Peek(1); err != nil {
		if err == io.EOF {
			m.state = inputEnded
			return io.EOF
		}
		m.err = err
		return err
	}
	at := m.src.pos()
	m.given, m.pass = 0, 0
	if m.lazy {
		c, u, ok := m.startFromStoredHead()
		if !ok {
			c, u, ok = m.startFromCopy(lazyPrefix)
		}
		if ok {
			m.cur = member{coff: at, uoff: m.produced, slC: c, slU: u, hasSL: true}
			m.starts = append(m.starts, m.cur)
			return nil
		}
	}
	if err := m.inflateFrom(m.src.br); err != nil {
		return m.fail(at, err)
	}
	m.state = fromInput
	m.cur = member{coff: at, uoff: m.produced}
	m.cur.slC, m.cur.slU, m.cur.hasSL = parseSL(m.gz.Header.Extra)
	m.starts = append(m.starts, m.cur)
	return nil
}

// startFromStoredHead starts reading the member at the input position from a copy
// of its first bytes, without inflating, if it opens with a stored head (as this
// package writes them) and has an sl field that says it is longer than its gzip
// header; it returns its sl lengths.
func (m *memberStream) startFromStoredHead() (slC, slU uint32, ok bool) {
	p, _ := m.src.br.Peek(storedPrefix)
	extra, at, ok := parseGzipHeader(p)
	if !ok || at >= len(p) || p[at]&7 != 0 {
		return 0, 0, false
	}
	c, u, ok := parseSL(extra)
	if !ok || int64(c) <= int64(at) {
		return 0, 0, false
	}
	m.window = len(p)
	m.stored = storedReader{p: p[at:min(int64(len(p)), int64(c))]}
	m.dec = &m.stored
	m.state = fromCopy
	return c, u, true
}

// startFromCopy starts inflating the member at the input position from a copy of
// its first n bytes, if it has an sl field that says it is longer, and returns
// its sl lengths.
func (m *memberStream) startFromCopy(n int) (slC, slU uint32, ok bool) {
	p, _ := m.src.br.Peek(n)
	m.window = len(p)
	m.prefix.Reset(p)
	if err := m.inflateFrom(&m.prefix); err != nil {
		return 0, 0, false
	}
	c, u, ok := parseSL(m.gz.Header.Extra)
	if !ok || int64(c) <= int64(len(p)) {
		return 0, 0, false
	}
	m.state = fromCopy
	return c, u, true
}

// inflateAgain inflates the current member afresh, from a longer copy or from the
// input, which is still where it starts, and skips the bytes already handed out.
// The longer copy is tried once, and only if the input holds more than the first
// one: near the end of the file both copies are the same bytes, and the second
// would fail as the first did.
func (m *memberStream) inflateAgain() error {
	m.pass++
	if m.pass == 1 {
		if p, _ := m.src.br.Peek(4 * lazyPrefix); len(p) > m.window {
			if _, _, ok := m.startFromCopy(len(p)); ok {
				return m.skipGiven()
			}
		}
	}
	m.state = fromInput
	if err := m.inflateFrom(m.src.br); err != nil {
		return m.fail(m.cur.coff, err)
	}
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
			return m.fail(m.cur.coff, err)
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

// errNotStored is what a storedReader returns where the stored head ends.
var errNotStored = errors.New("warc: end of the stored head")

// storedReader hands out the contents of the stored, non-final deflate blocks
// that open a gzip member, read from a copy of the member's first bytes. At the
// first other block, or at the end of the copy, it returns errNotStored.
type storedReader struct {
	p    []byte // the copy, from the rest of the current block on
	left int    // bytes of the current block not yet handed out
}

func (s *storedReader) Read(b []byte) (int, error) {
	for s.left == 0 {
		// BFINAL 0, BTYPE 00; the other five bits pad to the byte.
		if len(s.p) < 5 || s.p[0]&7 != 0 {
			return 0, errNotStored
		}
		n, nn := binary.LittleEndian.Uint16(s.p[1:]), binary.LittleEndian.Uint16(s.p[3:])
		if n != ^nn {
			return 0, errNotStored
		}
		s.p, s.left = s.p[5:], int(n)
	}
	k := min(len(b), s.left, len(s.p))
	if k == 0 {
		return 0, errNotStored
	}
	copy(b, s.p[:k])
	s.p, s.left = s.p[k:], s.left-k
	return k, nil
}

// parseGzipHeader parses the gzip header (RFC 1952) at the start of p and
// returns its extra field and its length. It reports false when p does not
// start with a whole deflate member header it can take without checks (FHCRC
// set, reserved flags).
func parseGzipHeader(p []byte) (extra []byte, n int, ok bool) {
	if len(p) < 10 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 || p[3]&0xe2 != 0 {
		return nil, 0, false
	}
	flg, i := p[3], 10
	if flg&4 != 0 {
		if len(p) < i+2 {
			return nil, 0, false
		}
		x := int(binary.LittleEndian.Uint16(p[i:]))
		i += 2
		if len(p) < i+x {
			return nil, 0, false
		}
		extra = p[i : i+x]
		i += x
	}
	for _, bit := range []byte{8, 16} { // FNAME, FCOMMENT: zero-terminated
		if flg&bit != 0 {
			z := bytes.IndexByte(p[i:], 0)
			if z < 0 {
				return nil, 0, false
			}
			i += z + 1
		}
	}
	return extra, i, true
}
