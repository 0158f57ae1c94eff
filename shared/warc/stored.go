package warc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrNotStored is returned by a StoredMember's reader where the member's bytes are
// not laid out as a stored member's: it was not written stored whole, or it is
// damaged.
var ErrNotStored = errors.New("warc: not a stored member")

// A StoredMember is a gzip member laid out as the Writer stores a record whole (see
// memberWriter): its gzip header, blocks of maxStoredBlock bytes stored as they are,
// a last one holding the rest, and the trailer. Any of its inflated bytes can be
// read from where it lies, nothing before it inflated.
type StoredMember struct {
	// Length is the member's length in the file; Size its inflated length.
	Length, Size int64
}

// storedOverhead is what a stored member holds besides its blocks' contents: the
// gzip header the Writer writes and the trailer.
var storedOverhead = int64(len(gzipHeaderSL)) + 8

// StoredMemberOfLength returns the stored member whose length is n bytes; false
// when no stored member has that length. That a member has the length does not
// make it a stored one: its reader checks each block it reads.
func StoredMemberOfLength(n int64) (StoredMember, bool) {
	t := n - storedOverhead // the blocks: Size bytes and 5 for each of its Size/maxStoredBlock+1 headers
	if t < 5 {
		return StoredMember{}, false
	}
	blocks := (t + 1 + maxStoredBlock + 4) / (maxStoredBlock + 5)
	size := t - 5*blocks
	if size < 0 || size/maxStoredBlock+1 != blocks {
		return StoredMember{}, false
	}
	return StoredMember{Length: n, Size: size}, true
}

// BlockOffset returns the offset, from the member's start, of the block that holds
// its inflated byte u: where a reader of the member from u starts.
func (m StoredMember) BlockOffset(u int64) int64 {
	return int64(len(gzipHeaderSL)) + u/maxStoredBlock*(maxStoredBlock+5)
}

// NewReader returns a reader of the member's inflated bytes from u to its end,
// reading r, which starts at m.BlockOffset(u) from the member's start. It checks
// the header of each block it reads (its type, its length, which the layout
// fixes); where one is not as it should be, the reader fails with ErrNotStored,
// having given only bytes of blocks whose headers were. The trailer's CRC-32, of
// the whole member, is not checked.
func (m StoredMember) NewReader(r io.Reader, u int64) io.Reader {
	return &storedMemberReader{r: r, m: m, u: u, skip: u % maxStoredBlock}
}

type storedMemberReader struct {
	r    io.Reader
	m    StoredMember
	u    int64 // the next inflated byte
	left int64 // bytes of the current block still to read; 0: a header is next
	skip int64 // bytes at the start of the next block before u
	err  error
}

func (s *storedMemberReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.u >= s.m.Size {
		return 0, io.EOF
	}
	if s.left == 0 {
		if s.err = s.block(); s.err != nil {
			return 0, s.err
		}
	}
	n, err := s.r.Read(p[:min(int64(len(p)), s.left)])
	s.u += int64(n)
	s.left -= int64(n)
	if err == io.EOF && s.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil && err != io.EOF {
		s.err = fmt.Errorf("warc: stored member, inflated byte %d: %w", s.u, err)
		return n, s.err
	}
	return n, nil
}

// block reads and checks the header of the block the next byte is in, and skips
// what of the block comes before it.
func (s *storedMemberReader) block() error {
	first := s.u - s.skip
	want := min(s.m.Size-first, maxStoredBlock)
	final := first+maxStoredBlock > s.m.Size
	var h [5]byte
	if _, err := io.ReadFull(s.r, h[:]); err != nil {
		return fmt.Errorf("warc: stored member, block at inflated byte %d: %w", first, err)
	}
	n, nn := binary.LittleEndian.Uint16(h[1:]), binary.LittleEndian.Uint16(h[3:])
	if (h[0] == 1) != final || h[0]&^1 != 0 || int64(n) != want || n != ^nn {
		return fmt.Errorf("%w: the block at inflated byte %d has the header % x", ErrNotStored, first, h)
	}
	if _, err := io.CopyN(io.Discard, s.r, s.skip); err != nil {
		return fmt.Errorf("warc: stored member, block at inflated byte %d: %w", first, err)
	}
	s.left, s.skip = want-s.skip, 0
	return nil
}

// A MemberHead is what the start of a gzip member this package wrote says of the
// member and of the record in it, read without inflating anything (see
// memberWriter): enough to skip the member, or to read its block from any byte
// when it is stored whole.
type MemberHead struct {
	// Length and Size are the member's length and inflated length (its sl field).
	Length, Size int64
	// Record is the record's header; its Block reads nothing.
	Record *Record
	// BlockAt is where the record's block starts in the inflated bytes.
	BlockAt int64
	// Stored reports that the member is stored whole: StoredMember{Length, Size}.
	Stored bool
}

// MemberHeadRead is the most ReadMemberHead reads: the gzip header, a stored
// block's header, and a record header; a longer header is not read.
const MemberHeadRead = 16 << 10

// ReadMemberHead reads the start of the gzip member r starts at, as this package
// writes it: a gzip header with its sl field filled in, then the record's header in
// stored blocks. It reads at most MemberHeadRead bytes of r. A member laid out
// otherwise (another tool's, or one written as it streamed, whose sl is not filled
// in) is an error wrapping ErrNotStored.
func ReadMemberHead(r io.Reader) (MemberHead, error) {
	rd, err := NewReader(io.LimitReader(r, MemberHeadRead))
	if err != nil {
		return MemberHead{}, err
	}
	if !rd.gzip {
		return MemberHead{}, fmt.Errorf("%w: not gzip", ErrNotStored)
	}
	rd.Lazy(true)
	rec, err := rd.next()
	if err != nil {
		return MemberHead{}, err
	}
	m := rd.recMember
	if !rd.aligned || !m.hasSL || m.slC == 0 {
		return MemberHead{}, fmt.Errorf("%w: no sl lengths in its gzip header", ErrNotStored)
	}
	h := MemberHead{Length: int64(m.slC), Size: int64(m.slU), Record: rec, BlockAt: int64(len(rd.raw))}
	if rec.BlockLength < 0 || h.BlockAt+rec.BlockLength+4 != h.Size {
		return MemberHead{}, fmt.Errorf("%w: its record (%d bytes of header, %d of block) is not its sl length %d", ErrNotStored, h.BlockAt, rec.BlockLength, h.Size)
	}
	sm, ok := StoredMemberOfLength(h.Length)
	h.Stored = ok && sm.Size == h.Size
	rec.Block = bytes.NewReader(nil)
	return h, nil
}
