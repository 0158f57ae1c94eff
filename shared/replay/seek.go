package replay

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/warc"
)

// A range far into a large body is read from where it lies in its record, nothing
// before it read (Response.seek), when the record was written by webkeep: its
// gzip member (each segment's, for a record in segments) says its lengths and
// holds its header uncompressed, so members before the range are skipped by their
// lengths, and one stored whole (warc.StoredMember: a body that does not compress,
// a video) is read from the very byte; a compressed one is inflated from its start.

// seekMin is the shortest body read by seek: a shorter one is read whole anyway.
const seekMin = 1 << 20

// bodyPlace is where a capture's body lies in its file: the record's (first)
// member at at, of length bytes, the body its block's bytes from head on, as
// recorded (nothing decoded: plain), through the continuation records that follow
// when segmented. open reads n bytes of the file from off (n < 0: to its end).
type bodyPlace struct {
	at, length, head int64
	plain, segmented bool
	open             func(off, n int64) io.ReadCloser
}

// SeekWith makes ranges far into Body read from where they lie in the capture's
// file by the readers open returns, each of n bytes of the file from off (n < 0:
// to its end), instead of the File's Readers.
func (r *Response) SeekWith(open func(off, n int64) io.ReadCloser) {
	if r.place.open != nil {
		r.place.open = open
	}
}

// UseBody makes o's payload r's: r's Body, Size, Stored and Original become o's, as
// well as where ranges of it are read from; a Content-Encoding decoded from o's
// body goes from r's header too (a revisit's header says what its original's
// said). r's own Body is closed.
func (r *Response) UseBody(o *Response) {
	r.Body.Close()
	r.Body, r.Size, r.Stored, r.Original, r.place, r.inflated = o.Body, o.Size, o.Stored, o.Original, o.place, o.inflated
	if o.inflated {
		r.Header.Del("Content-Encoding")
	}
}

// seek returns a reader of Body's bytes from its byte n to its end, read from where
// they lie in the file, and true; false when they cannot be found so (a record not
// written by webkeep, a body decoded). The first bytes are read before it returns.
func (r *Response) seek(n int64) (io.ReadCloser, bool) {
	p := r.place
	if p.open == nil || !p.plain || r.Size < seekMin || n < 0 || n >= r.Size {
		return nil, false
	}
	s := &seekReader{p: p}
	if err := s.start(r.Original, r.Size, p.head+n); err != nil {
		s.Close()
		return nil, false
	}
	br := bufio.NewReaderSize(io.LimitReader(s, r.Size-n), 32<<10)
	if _, err := br.Peek(1); err != nil {
		s.Close()
		return nil, false
	}
	return readCloser{br, s}, true
}

// A segment is one member of a record: where it is in the file, and what its head
// says of it. A segment placed by a jump (segments) has no head until it is read.
type segment struct {
	off  int64
	head warc.MemberHead
	// block is its block's length: its head's, or, not yet read, its neighbours'.
	block int64
}

// read reports whether the segment's head has been read.
func (s segment) read() bool { return s.head.Record != nil }

// segments finds the member of the record at p that holds byte b of its block
// (whose body is size bytes), reading the members' heads from the first on, and
// returns the segment and the byte within its block. The heads read are kept for
// the capture c. A record of many segments alike (a long video's, stored whole)
// is not read head after head: once two are known, the one that holds b is read
// where their lengths say it lies (jump), and read one by one only when it is not
// there.
func (p bodyPlace) segments(c cdx.Entry, size, b int64) (segment, int64, error) {
	if m, ok := warc.StoredMemberOfLength(p.length); ok && !p.segmented {
		// One member, stored whole by its length (its sl field may not be filled in:
		// a member written as it streamed): its block ends 4 bytes before its end.
		block := p.head + size
		if at := m.Size - 4 - block; at > 0 && b < block {
			h := warc.MemberHead{Length: m.Length, Size: m.Size, Record: &warc.Record{BlockLength: block}, BlockAt: at, Stored: true}
			return segment{p.at, h, block}, b, nil
		}
	}
	// Two files alike in all of these are copies of one file.
	key := fmt.Sprint(c.Filename, " ", c.Offset, " ", c.Length, " ", c.Digest, " ", c.Timestamp, " ", c.URL)
	segs := segmentTables.get(key)
	defer func() { segmentTables.put(key, segs) }()
	jumped := false
	for i := 0; ; i++ {
		if i == len(segs) && i >= 2 && !jumped {
			jumped = true
			segs = p.jump(segs, b)
		}
		if i == len(segs) {
			off := p.at
			if i > 0 {
				off = segs[i-1].off + segs[i-1].head.Length
			}
			h, err := p.segmentHead(off, i)
			if err != nil {
				return segment{}, 0, err
			}
			segs = append(segs, segment{off, h, h.Record.BlockLength})
		}
		if !segs[i].read() && b < segs[i].block {
			h, err := p.segmentHead(segs[i].off, i)
			if err != nil {
				return segment{}, 0, err
			}
			segs[i].head, segs[i].block = h, h.Record.BlockLength
		}
		bl := segs[i].block
		if b < bl {
			return segs[i], b, nil
		}
		if !p.segmented {
			return segment{}, 0, fmt.Errorf("byte %d is past the record's block (%d bytes)", b, bl)
		}
		b -= bl
	}
}

// segmentHead reads the head of the member at off, segment i (from 0) of the
// record at p: a continuation record numbered i+1 unless it is the first.
func (p bodyPlace) segmentHead(off int64, i int) (warc.MemberHead, error) {
	rc := p.open(off, warc.MemberHeadRead)
	h, err := warc.ReadMemberHead(rc)
	rc.Close()
	if err != nil {
		return h, fmt.Errorf("the record's member at %d: %w", off, err)
	}
	if i > 0 && (h.Record.Type != warc.TypeContinuation || h.Record.Header.Get(warc.FieldSegmentNumber) != strconv.Itoa(i+1)) {
		return h, fmt.Errorf("the record's segment %d at %d is a %s record numbered %q", i+1, off, h.Record.Type, h.Record.Header.Get(warc.FieldSegmentNumber))
	}
	return h, nil
}

// jump places the segment that holds byte b of the blocks after the known segments
// segs (those read, and those placed), when the last is a continuation read and b
// lies two segments or more past it: the segments in between are taken to be
// alike, each the last one's block and member lengths, the member a byte longer
// where its number has a digit more (its header names it; webkeep writes a large
// body in segments of one size, and a member stored whole is as long as its block
// and header make it). The segment is read there; if it is the one numbered so,
// segs is returned with the segments up to it placed, otherwise as it was.
func (p bodyPlace) jump(segs []segment, b int64) []segment {
	n := len(segs)
	if n < 2 || !p.segmented || !segs[n-1].read() {
		return segs
	}
	last := segs[n-1]
	if last.head.Record.Type != warc.TypeContinuation || last.block <= 0 || b < 2*last.block {
		return segs
	}
	digits := func(i int) int64 { return int64(len(strconv.Itoa(i + 1))) } // segment i's number
	skip := int(b / last.block)                                            // segments wholly before b
	placed := slices.Clone(segs)
	off := last.off + last.head.Length
	for i := n; i < n+skip; i++ {
		placed = append(placed, segment{off: off, block: last.block})
		off += last.head.Length + digits(i) - digits(n-1)
	}
	target := n + skip
	h, err := p.segmentHead(off, target)
	if err != nil {
		return segs
	}
	return append(placed, segment{off, h, h.Record.BlockLength})
}

// segmentTables keeps the heads of the members of the records sought in last.
var segmentTables = segmentCache{tables: map[string][]segment{}}

// maxSegmentTables bounds the records whose members' heads segmentCache keeps.
const maxSegmentTables = 16

// segmentCache keeps the members' heads of a few records (of 1 GiB in segments of
// 8 MiB: 128 heads).
type segmentCache struct {
	mu     sync.Mutex
	tables map[string][]segment
	order  []string // oldest first
}

func (s *segmentCache) get(key string) []segment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tables[key]
}

func (s *segmentCache) put(key string, segs []segment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tables[key]; !ok {
		s.order = append(s.order, key)
		if len(s.order) > maxSegmentTables {
			delete(s.tables, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.tables[key] = segs
}

// seekReader reads a record's block from a byte on: from the member that holds it,
// then the blocks of the continuation records after it.
type seekReader struct {
	p      bodyPlace
	cur    io.Reader
	next   int64 // the file offset of the member after the current one
	seg    int   // the current segment's number
	rest   *warc.Reader
	closer []io.Closer
}

// start makes s read the block of the record at s.p (of capture c, whose body is
// size bytes) from its byte b.
func (s *seekReader) start(c cdx.Entry, size, b int64) error {
	seg, b, err := s.p.segments(c, size, b)
	if err != nil {
		return err
	}
	h := seg.head
	s.next = seg.off + h.Length
	s.seg, _ = strconv.Atoi(h.Record.Header.Get(warc.FieldSegmentNumber))
	if h.Stored {
		m := warc.StoredMember{Length: h.Length, Size: h.Size}
		u := h.BlockAt + b
		from := seg.off + m.BlockOffset(u)
		rc := s.p.open(from, s.next-from)
		s.closer = append(s.closer, rc)
		s.cur = io.LimitReader(m.NewReader(rc, u), h.Record.BlockLength-b)
		return nil
	}
	rc := s.p.open(seg.off, h.Length)
	s.closer = append(s.closer, rc)
	rd, err := warc.NewReader(rc)
	if err != nil {
		return err
	}
	rec, err := rd.Next()
	if err != nil {
		return err
	}
	if rec.ID != h.Record.ID || rec.BlockLength != h.Record.BlockLength {
		return fmt.Errorf("the record's member at %d is not the one its head said", seg.off)
	}
	if _, err := io.CopyN(io.Discard, rec.Block, b); err != nil {
		return fmt.Errorf("the record's member at %d: %w", seg.off, err)
	}
	s.cur = rec.Block
	return nil
}

func (s *seekReader) Read(p []byte) (int, error) {
	for {
		n, err := s.cur.Read(p)
		if err != io.EOF || !s.p.segmented {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
		// The next segment's block, from a reader of the file from there on.
		if s.rest == nil {
			rc := s.p.open(s.next, -1)
			s.closer = append(s.closer, rc)
			if s.rest, err = warc.NewReader(rc); err != nil {
				return 0, err
			}
		}
		rec, err := s.rest.Next()
		if err != nil {
			return 0, fmt.Errorf("the record's segment %d: %w", s.seg+1, err)
		}
		if rec.Type != warc.TypeContinuation || rec.Header.Get(warc.FieldSegmentNumber) != strconv.Itoa(s.seg+1) {
			return 0, fmt.Errorf("the record's segment %d is a %s record numbered %q", s.seg+1, rec.Type, rec.Header.Get(warc.FieldSegmentNumber))
		}
		s.seg++
		s.cur = rec.Block
	}
}

func (s *seekReader) Close() error {
	for _, c := range s.closer {
		c.Close()
	}
	return nil
}

// readCloser reads from a Reader and closes a Closer.
type readCloser struct {
	io.Reader
	io.Closer
}
