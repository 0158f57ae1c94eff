package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

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
// has moved on to the next record start: call Next again to continue. Once the input
// has failed (a read error other than io.EOF), it returns that error, wrapped, and
// nothing more.
func (r *Reader) Next() (*Record, error) {
	if err := r.inputFailed(); err != nil {
		return nil, err
	}
	if s := r.segments; s != nil {
		// Continuations of an unfinished reassembled record are not records of their own.
		r.segments = nil
		if _, err := io.Copy(io.Discard, s); err != nil {
			return nil, err
		}
	}
	rec, err := r.next()
	if err != nil {
		if ierr := r.inputFailed(); ierr != nil {
			// Not damage: the bytes were not read, and nothing after them will be.
			return nil, ierr
		}
	}
	if err != nil || !r.reassemble || rec.Type == TypeContinuation || rec.Header.Get(FieldSegmentNumber) != "1" {
		return rec, err
	}
	r.segments = &segmentReader{r: r, origin: rec, seg: 1, block: rec.Block}
	rec.Block = r.segments
	rec.BlockLength = -1
	return rec, nil
}

// inputFailed returns the error the input failed with (one other than io.EOF), which
// ends the reading: a Reader that moved on past it as past damage would find the same
// error again at every record.
func (r *Reader) inputFailed() error {
	if err := r.src.in.err; err != nil {
		return fmt.Errorf("warc: reading the input at byte %d: %w", r.src.in.n, err)
	}
	return nil
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
		r.mem.inMember() && r.mem.cur.coff == r.recMember.coff &&
		(int64(r.recMember.slU) == end+4 || (blk.law && int64(r.recMember.slU) == end)) {
		// Skip the rest of the member by its sl length, without inflating it.
		target := r.recMember.coff + int64(r.recMember.slC)
		if r.src.pos() <= target {
			if _, err := r.src.discard(target - r.src.pos()); err != nil {
				return r.resyncAfter(r.recStart, fmt.Errorf("%w: sl skip past end of file", ErrSkipLength))
			}
			r.mem.state = betweenMembers
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
			err = fmt.Errorf("%w: record %s: block cut short with %d bytes missing: %w", ErrLength, b.rec.ID, b.remaining, err)
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
