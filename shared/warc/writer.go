package warc

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/klauspost/compress/flate"
)

// DefaultMaxBuffer is the largest block a Writer buffers by default. A block that is
// not an io.ReadSeeker and is longer than this is written as segments (section 7.2).
const DefaultMaxBuffer = 32 << 20

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Version is the version written: V09, V10 or V11. Zero means V11.
	Version Version
	// Gzip compresses each record as its own gzip member carrying the "sl" extra
	// field (sections 9.1 and 9.2).
	Gzip bool
	// Level is the gzip level (as in compress/gzip); zero means the default.
	Level int
	// MaxBuffer bounds the memory the Writer uses for one block (and, with Gzip, one
	// compressed member); zero means DefaultMaxBuffer. A longer block that cannot be
	// read twice, or whose member cannot be patched in place because the destination
	// is not an io.WriteSeeker, is written as segments of at most MaxBuffer bytes.
	MaxBuffer int64
	// TruncateAt, when positive, cuts longer blocks to this many bytes and marks
	// them "Truncated: length" (section 7.1).
	TruncateAt int64
	// Dedup, when set, turns a response whose payload was already written into a
	// revisit record that refers to the first one.
	Dedup *Deduper
	// Offset is the position in the file of the first byte written, when appending.
	Offset int64
	// NewID returns a fresh record-id URI; by default "urn:uuid:" and a random UUID.
	NewID func() string
	// NoPayloadDigest09 leaves out of WARC 0.9 records the "Payload-Digest" named
	// field that the Writer otherwise adds where WARC/1.1 has WARC-Payload-Digest
	// (HTTP requests and responses, resources, conversions), so that an index can be
	// built from record headers alone. The draft's examples have no such field.
	NoPayloadDigest09 bool
	// SumSHA1, when set, computes the digests of the blocks of 64 KiB or more that
	// the Writer holds whole in memory: a block it buffers (at most MaxBuffer bytes,
	// not segmented) and a *bytes.Reader holding exactly the block. It is called once
	// per such record with the block and, for an HTTP message whose payload digest is
	// wanted, the payload, and returns the SHA-1 sum of each argument, in order; an
	// error fails the record, before anything of it is written. Any other block is
	// hashed in Go. It lets a WebAssembly build take SHA-1 from the platform
	// (WebCrypto, see wasm/webcrypto), two to three times faster than Go's there on
	// large blocks but dearer per call, hence the lower bound.
	SumSHA1 func(data ...[]byte) ([][sha1.Size]byte, error)
	// Written, when set, is told of each record once it is written, each segment of a
	// segmented block its own record, with what an index needs of it, so that an
	// index can be built as the file is written, without reading the file again.
	Written func(*WrittenRecord)
}

// WrittenRecord is what a Writer tells WriterOptions.Written of a record it has just
// written. It and what it holds are valid only while Written runs.
type WrittenRecord struct {
	// Record has the record's Offset, its header fields as written (the digests
	// the Writer added included), its Version and its ContentType as written. Its
	// Block reads the block as written: for a revisit the HTTP header it kept, for
	// a segment its own part of the block.
	Record *Record
	// Header is the record's header as written, through the blank line that ends it.
	Header []byte
	// End is the file offset where the record (with gzip, its member) ends.
	End int64
	// PayloadDigest is the "sha1:BASE32" digest of what follows the HTTP header in
	// this record's own block, or of the whole block when it is not an HTTP message;
	// it is empty for a revisit and wherever the Writer did not compute it.
	PayloadDigest string
}

// RecordInfo tells where and how a record was written.
type RecordInfo struct {
	ID     string // record id of the (first segment of the) record
	Type   string // record type written: "revisit" when the record was deduplicated
	Offset int64  // offset of the record (its gzip member) in the file
	Length int64  // bytes written, gzip members and all segments included
	// BlockDigest and PayloadDigest are "sha1:BASE32" digests of the whole block and
	// of its payload (for HTTP messages, the bytes after the HTTP header).
	BlockDigest, PayloadDigest string
	Segments                   int    // number of records written: 1, or the segment count
	RefersTo                   string // for a deduplicated record, the id it refers to
	File                       string // set by a FileWriter: the file the record starts in
}

// Writer writes WARC records to an io.Writer.
type Writer struct {
	w    io.Writer
	ws   io.WriteSeeker // w, when it can seek (to patch a large member's sl field)
	opts WriterOptions
	off  int64
	err  error

	gz     memberWriter
	peek   []byte        // the start of a block read through io.ReaderAt, for httpHeadLen
	sample *flate.Writer // for storesWhole
	member bytes.Buffer  // one compressed member, to fill in sl before writing it
	hdr    []byte
	buf    []byte // a buffered block
	copy   []byte // copy buffer for seekable blocks
	dig    *digester
	ids    []byte // random bytes for record ids, drawn 16 at a time
}

// NewWriter returns a Writer that writes records to w.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	if opts.Version == 0 {
		opts.Version = V11
	}
	if opts.MaxBuffer <= 0 {
		opts.MaxBuffer = DefaultMaxBuffer
	}
	if opts.Level == 0 {
		opts.Level = flate.DefaultCompression
	}
	ww := &Writer{w: w, opts: opts, off: opts.Offset, dig: newDigester(), gz: memberWriter{level: opts.Level}}
	ww.ws, _ = w.(io.WriteSeeker)
	return ww
}

// Reset makes w write to dst from offset 0, as a new file, keeping its buffers and
// options. It clears an error from the previous destination.
func (w *Writer) Reset(dst io.Writer) {
	w.w = dst
	w.ws, _ = dst.(io.WriteSeeker)
	w.off = 0
	w.err = nil
}

// Offset returns the position in the file where the next record will start.
func (w *Writer) Offset() int64 { return w.off }

// Close finishes writing. It does not close the underlying io.Writer.
func (w *Writer) Close() error {
	if w.err == nil {
		w.err = ErrClosed
		return nil
	}
	if w.err == ErrClosed {
		return nil
	}
	return w.err
}

// newID returns a new record id.
func (w *Writer) newID() string {
	if w.opts.NewID != nil {
		return w.opts.NewID()
	}
	if len(w.ids) < 16 {
		w.ids = make([]byte, 16*256)
		rand.Read(w.ids)
	}
	var u [16]byte
	copy(u[:], w.ids[:16])
	w.ids = w.ids[16:]
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	var s [45]byte
	copy(s[:], "urn:uuid:")
	hex.Encode(s[9:17], u[0:4])
	s[17] = '-'
	hex.Encode(s[18:22], u[4:6])
	s[22] = '-'
	hex.Encode(s[23:27], u[6:8])
	s[27] = '-'
	hex.Encode(s[28:32], u[8:10])
	s[32] = '-'
	hex.Encode(s[33:45], u[10:16])
	return string(s[:])
}

// block is a block ready to be written: buffered in data, or in a seekable source
// at start.
type block struct {
	data  []byte
	rs    io.ReadSeeker
	start int64
	n     int64
}

// WriteRecord writes r, reading r.BlockLength bytes from r.Block. It fills in the
// record id and date when they are empty, and computes the block checksum (and, for
// WARC/1.1 HTTP messages, the payload digest). r itself is not modified.
func (w *Writer) WriteRecord(r *Record) (RecordInfo, error) {
	if w.err != nil {
		return RecordInfo{}, w.err
	}
	rec, err := w.normalize(r)
	if err != nil {
		return RecordInfo{}, err
	}
	rs, seekable := rec.Block.(io.ReadSeeker)
	// A long block that can be read twice is written whole: its digests are taken in
	// a first pass and it is streamed in a second. Only a WARC 0.9 gzip member must
	// know its compressed length before it is written (the sl field, section 9.2),
	// which takes a destination it can patch.
	streamable := !w.opts.Gzip || w.ws != nil || w.opts.Version != V09
	if rec.BlockLength > w.opts.MaxBuffer && !(seekable && streamable) {
		return w.writeSegments(&rec, w.opts.MaxBuffer, nil)
	}
	return w.writeOne(&rec, rs, seekable)
}

// normalize returns a copy of r with its id and date filled in, checked, and cut
// at TruncateAt.
func (w *Writer) normalize(r *Record) (Record, error) {
	rec := *r
	rec.Header = r.Header.Clone()
	if rec.ID == "" {
		rec.ID = w.newID()
	}
	if rec.Date.IsZero() {
		rec.Date = time.Now().Truncate(time.Second)
	}
	if rec.Block == nil {
		rec.Block = bytes.NewReader(nil)
		if rec.BlockLength != 0 {
			return rec, fmt.Errorf("warc: record %s: %w: no block for BlockLength %d", rec.ID, ErrLength, rec.BlockLength)
		}
	}
	if rec.BlockLength < 0 {
		return rec, fmt.Errorf("warc: record %s: %w: BlockLength %d", rec.ID, ErrLength, rec.BlockLength)
	}
	if rt, ok := recordTypes[rec.Type]; ok {
		for _, name := range rt.required {
			if !rec.Header.Has(name) {
				return rec, fmt.Errorf("warc: %s record %s: %w: %s", rec.Type, rec.ID, ErrMissing, name)
			}
		}
	}
	if t := w.opts.TruncateAt; t > 0 && rec.BlockLength > t {
		rec.BlockLength = t
		rec.Header.Set(FieldTruncated, TruncatedLength)
	}
	return rec, nil
}

// writeOne writes a record that is not segmented.
func (w *Writer) writeOne(r *Record, rs io.ReadSeeker, seekable bool) (RecordInfo, error) {
	rec := *r
	n := rec.BlockLength
	info := RecordInfo{ID: rec.ID, Type: rec.Type, Offset: w.off, Segments: 1}
	blk, err := w.prepare(&rec, rs, seekable)
	if err != nil {
		return info, err
	}
	info.BlockDigest = w.dig.blockDigest()
	info.PayloadDigest = w.dig.payloadDigest()
	var extra Header
	if w.opts.Dedup != nil && rec.Type == TypeResponse && info.PayloadDigest != "" && w.dig.headerLen >= 0 && w.dig.headerLen < n {
		if orig, ok := w.opts.Dedup.Lookup(info.PayloadDigest); ok {
			if err := w.toRevisit(&rec, &blk, orig, info.PayloadDigest); err != nil {
				return info, err
			}
			info.Type, info.RefersTo = rec.Type, orig.ID
			info.BlockDigest = w.dig.blockDigest()
		} else {
			w.opts.Dedup.Add(info.PayloadDigest, DedupEntry{ID: rec.ID, TargetURI: rec.TargetURI, Date: rec.Date})
		}
	}
	if w.opts.Version != V09 {
		extra = w.digestFields(&rec, info)
	} else {
		if rec.Type != TypeRevisit {
			// Computed afresh below; a revisit keeps the digest of the payload
			// its block no longer holds.
			rec.Header.Del(FieldPayloadDigest)
		}
		rec.Header.Del(FieldChecksum)
		rec.Header.Add(FieldChecksum, info.BlockDigest)
		if !w.opts.NoPayloadDigest09 && info.PayloadDigest != "" && carriesPayloadDigest(&rec) {
			rec.Header.Add(FieldPayloadDigest, info.PayloadDigest)
		}
	}
	info.Length, err = w.emit(&rec, rec.Header, extra, blk)
	if err == nil {
		payload := ""
		if rec.Type != TypeRevisit {
			payload = w.dig.payloadDigest()
		}
		err = w.written(&rec, info.Offset, extra, blk, payload)
	}
	return info, err
}

// written tells WriterOptions.Written of rec, its block blk, written at offset with
// the fields rec.Header and extra; w.hdr still holds its header, and w.off is where
// it ends. It fails only when a seekable source it read cannot be put back after
// the block.
func (w *Writer) written(rec *Record, offset int64, extra Header, blk block, payloadDigest string) error {
	if w.opts.Written == nil {
		return nil
	}
	r := *rec
	r.Version = w.opts.Version
	r.Header = append(rec.Header.Clone(), extra...)
	r.Offset = offset
	if w.opts.Version == V09 {
		r.ContentType = contentType09(rec.ContentType)
	} else {
		r.ContentType = contentType11(rec.ContentType, rec.Type)
	}
	r.Block = bytes.NewReader(blk.data)
	var sr *seekReaderAt
	if blk.data == nil && blk.n > 0 {
		ra, ok := blk.rs.(io.ReaderAt)
		if !ok {
			sr = &seekReaderAt{rs: blk.rs}
			ra = sr
		}
		r.Block = io.NewSectionReader(ra, blk.start, blk.n)
	}
	w.opts.Written(&WrittenRecord{Record: &r, Header: w.hdr, End: w.off, PayloadDigest: payloadDigest})
	if sr != nil && sr.moved {
		// Leave the source after the block, where writing it left it.
		if _, err := blk.rs.Seek(blk.start+blk.n, io.SeekStart); err != nil {
			return fmt.Errorf("warc: record %s: %w", rec.ID, err)
		}
	}
	return nil
}

// seekReaderAt reads a block's seekable source at given offsets, for a source that
// is not an io.ReaderAt.
type seekReaderAt struct {
	rs    io.ReadSeeker
	moved bool
}

func (s *seekReaderAt) ReadAt(p []byte, off int64) (int, error) {
	s.moved = true
	if _, err := s.rs.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(s.rs, p)
}

// digestFields returns the WARC/1.1 digest fields of a record.
func (w *Writer) digestFields(rec *Record, info RecordInfo) Header {
	extra := Header{{"WARC-Block-Digest", info.BlockDigest}}
	switch rec.Type {
	case TypeResponse, TypeRequest, TypeResource, TypeConversion:
		rec.Header.Del(FieldPayloadDigest)
		if info.PayloadDigest != "" && carriesPayloadDigest(rec) {
			extra = append(extra, Field{FieldPayloadDigest, info.PayloadDigest})
		}
	case TypeRevisit:
		if rec.Header.Has(FieldPayloadDigest) && !rec.Header.Has(FieldProfile) {
			rec.Header.Add(FieldProfile, ProfileIdenticalPayload)
		}
	}
	return extra
}

// carriesPayloadDigest reports whether a record gets a payload digest: HTTP requests
// and responses (the payload follows the HTTP header), resources and conversions
// (the payload is the block).
func carriesPayloadDigest(rec *Record) bool {
	switch rec.Type {
	case TypeResponse, TypeRequest:
		return isHTTP(rec.ContentType)
	case TypeResource, TypeConversion:
		return true
	}
	return false
}

// prepare makes the block ready to write and digests it: a seekable block is read
// once for the digests and rewound; any other block is buffered.
func (w *Writer) prepare(rec *Record, rs io.ReadSeeker, seekable bool) (block, error) {
	n := rec.BlockLength
	// The payload digest of an HTTP message costs a second SHA-1 over the payload
	// (fed in the same pass as the block's); it is skipped only for WARC 0.9
	// records that will not carry it and are not deduplicated.
	http := isHTTP(rec.ContentType) && (rec.Type == TypeResponse || rec.Type == TypeRequest)
	skip := http && w.opts.Version == V09 && w.opts.NoPayloadDigest09 && w.opts.Dedup == nil
	w.dig.reset(http && !skip)
	w.dig.noPayload = skip
	sum := w.opts.SumSHA1
	if n < sumSHA1Min {
		sum = nil
	}
	if sum != nil && seekable && n <= w.opts.MaxBuffer {
		if br, ok := rs.(*bytes.Reader); ok && int64(br.Len()) == n {
			// The block's own bytes reach SumSHA1, without a copy.
			start, err := rs.Seek(0, io.SeekCurrent)
			if err != nil {
				return block{}, fmt.Errorf("warc: record %s: %w", rec.ID, err)
			}
			ww := wholeWriter{dig: w.dig, sum: sum}
			if _, err := br.WriteTo(&ww); err != nil {
				return block{}, fmt.Errorf("warc: record %s: digests: %w", rec.ID, err)
			}
			if _, err := rs.Seek(start, io.SeekStart); err != nil {
				return block{}, fmt.Errorf("warc: record %s: %w", rec.ID, err)
			}
			return block{rs: rs, start: start, n: n}, nil
		}
		// Any other seekable block small enough is buffered, and hashed there.
		seekable = false
	}
	if seekable {
		start, err := rs.Seek(0, io.SeekCurrent)
		if err != nil {
			return block{}, fmt.Errorf("warc: record %s: %w", rec.ID, err)
		}
		if w.copy == nil {
			w.copy = make([]byte, 64<<10)
		}
		got, err := w.copyBlock(w.dig, rs, n)
		if err != nil {
			return block{}, fmt.Errorf("warc: record %s: reading block: %w", rec.ID, err)
		}
		if got != n {
			return block{}, fmt.Errorf("warc: record %s: %w: block has %d bytes, BlockLength says %d", rec.ID, ErrLength, got, n)
		}
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return block{}, fmt.Errorf("warc: record %s: %w", rec.ID, err)
		}
		return block{rs: rs, start: start, n: n}, nil
	}
	if int64(cap(w.buf)) < n {
		w.buf = make([]byte, n)
	}
	data := w.buf[:n]
	if got, err := io.ReadFull(rec.Block, data); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return block{}, fmt.Errorf("warc: record %s: %w: block has %d bytes, BlockLength says %d", rec.ID, ErrLength, got, n)
		}
		return block{}, fmt.Errorf("warc: record %s: reading block: %w", rec.ID, err)
	}
	if sum != nil {
		if err := w.dig.sumWhole(data, sum); err != nil {
			return block{}, fmt.Errorf("warc: record %s: digests: %w", rec.ID, err)
		}
		return block{data: data, n: n}, nil
	}
	w.dig.Write(data)
	return block{data: data, n: n}, nil
}

// sumSHA1Min is the smallest block given to WriterOptions.SumSHA1. Measured in node
// 20 (wasm/webcrypto, best of 5): a WebCrypto call costs about 0.4 ms whatever the
// size, and hashing a block and its payload takes 0.12 ms in Go for 16 KiB, 0.57 ms
// (0.43 ms with WebCrypto) for 64 KiB, 9.0 ms (3.3 ms) for 1 MiB. A variable, so that
// tests can lower it; at least 1, as an empty block is not worth a call.
var sumSHA1Min int64 = 64 << 10

// wholeWriter hands the one slice a *bytes.Reader's WriteTo writes, a whole block, to
// the digester's SumSHA1 path.
type wholeWriter struct {
	dig  *digester
	sum  func(data ...[]byte) ([][sha1.Size]byte, error)
	done bool
}

func (ww *wholeWriter) Write(p []byte) (int, error) {
	if ww.done {
		return 0, errors.New("block written in more than one piece")
	}
	ww.done = true
	if err := ww.dig.sumWhole(p, ww.sum); err != nil {
		return 0, err
	}
	return len(p), nil
}

// copyBlock copies n bytes of a block to dst. A *bytes.Reader holding exactly the
// block writes its bytes straight to dst, without a copy through the buffer (which
// matters in wasm, where copies are dear).
func (w *Writer) copyBlock(dst io.Writer, rs io.ReadSeeker, n int64) (int64, error) {
	if br, ok := rs.(*bytes.Reader); ok && int64(br.Len()) == n {
		return br.WriteTo(dst)
	}
	if w.copy == nil {
		w.copy = make([]byte, 64<<10)
	}
	return io.CopyBuffer(dst, io.LimitReader(rs, n), w.copy)
}

// toRevisit turns a response whose payload was already archived into a revisit
// record: its block keeps only the HTTP header.
func (w *Writer) toRevisit(rec *Record, blk *block, orig DedupEntry, payloadDigest string) error {
	hl := w.dig.headerLen
	if blk.data != nil {
		blk.data = blk.data[:hl]
	}
	blk.n = hl
	rec.Type = TypeRevisit
	rec.BlockLength = hl
	h := Header{{FieldRelatedRecordID, orig.ID}}
	h = append(h, rec.Header...)
	h.Set(FieldPayloadDigest, payloadDigest)
	h.Set(FieldProfile, ProfileIdenticalPayload)
	if orig.TargetURI != "" {
		h.Set(FieldRefersToTargetURI, orig.TargetURI)
	}
	if !orig.Date.IsZero() {
		h.Set(FieldRefersToDate, orig.Date.UTC().Format(layout10))
	}
	rec.Header = h
	// Digest the header part again for the revisit's own block digest.
	w.dig.reset(false)
	if blk.data != nil {
		w.dig.Write(blk.data)
		return nil
	}
	if _, err := blk.rs.Seek(blk.start, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.CopyBuffer(w.dig, io.LimitReader(blk.rs, hl), w.copy); err != nil {
		return err
	}
	_, err := blk.rs.Seek(blk.start, io.SeekStart)
	return err
}

// emit writes one record: header, block, CRLF CRLF; as a gzip member when asked.
// It returns the number of bytes written to the file.
func (w *Writer) emit(rec *Record, fields, extra Header, blk block) (int64, error) {
	var err error
	w.hdr = w.hdr[:0]
	if w.opts.Version == V09 {
		w.hdr, err = appendHeader09(w.hdr, rec, fields, blk.n)
	} else {
		w.hdr, err = appendHeader11(w.hdr, w.opts.Version, rec, fields, extra, blk.n)
	}
	if err != nil {
		return 0, fmt.Errorf("warc: record %s: %w", rec.ID, err)
	}
	ulen := int64(len(w.hdr)) + blk.n + 4
	if !w.opts.Gzip {
		n, err := w.writeBody(w.w, blk)
		w.off += n
		if err != nil {
			w.err = err
		}
		return n, err
	}
	head := len(w.hdr) + w.httpHeadLen(rec, blk)
	whole := w.storesWhole(blk)
	switch {
	case blk.n > w.opts.MaxBuffer && w.ws != nil:
		return w.emitSeek(blk, head, whole, ulen)
	case blk.n > w.opts.MaxBuffer:
		// Streamed as it is compressed; its sl lengths stay zero ("unknown"), which
		// readers of WARC/1.x do not need.
		cw := &countWriter{w: w.w}
		err := w.writeMember(cw, blk, head, whole)
		w.off += cw.n
		if err != nil {
			w.err = err
		}
		return cw.n, err
	}
	w.member.Reset()
	if err := w.writeMember(&w.member, blk, head, whole); err != nil {
		return 0, err
	}
	m := w.member.Bytes()
	if len(m) <= 0xffffffff && ulen <= 0xffffffff {
		binary.LittleEndian.PutUint32(m[slAt:], uint32(len(m)))
		binary.LittleEndian.PutUint32(m[slAt+4:], uint32(ulen))
	}
	n, err := w.w.Write(m)
	w.off += int64(n)
	if err != nil {
		w.err = err
	}
	return int64(n), err
}

// writeMember writes the record as one gzip member to dst, its first head bytes
// stored, or with whole all of it (see memberWriter).
func (w *Writer) writeMember(dst io.Writer, blk block, head int, whole bool) error {
	if err := w.gz.reset(dst, head, whole); err != nil {
		return err
	}
	if _, err := w.writeBody(&w.gz, blk); err != nil {
		return err
	}
	return w.gz.close()
}

// emitSeek writes a member straight to a seekable destination and patches sl after.
func (w *Writer) emitSeek(blk block, head int, whole bool, ulen int64) (int64, error) {
	start, err := w.ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: w.w}
	if err := w.writeMember(cw, blk, head, whole); err != nil {
		w.err = err
		return cw.n, err
	}
	w.off += cw.n
	if cw.n <= 0xffffffff && ulen <= 0xffffffff {
		var sl [8]byte
		binary.LittleEndian.PutUint32(sl[:], uint32(cw.n))
		binary.LittleEndian.PutUint32(sl[4:], uint32(ulen))
		if _, err := w.ws.Seek(start+slAt, io.SeekStart); err != nil {
			w.err = err
			return cw.n, err
		}
		if _, err := w.ws.Write(sl[:]); err != nil {
			w.err = err
			return cw.n, err
		}
		if _, err := w.ws.Seek(start+cw.n, io.SeekStart); err != nil {
			w.err = err
			return cw.n, err
		}
	}
	return cw.n, nil
}

// storedWholeMin is the shortest block that storesWhole looks at: a shorter one is
// read whole by a replay anyway.
const storedWholeMin = 1 << 20

// sampleLen is how much of a block storesWhole compresses to see whether it would
// gain.
const sampleLen = 64 << 10

// storesWhole reports whether the block is stored whole in its gzip member (see
// memberWriter): a block of storedWholeMin bytes or more whose middle does not
// compress by 3% at the Writer's level (a video, an image, an archive: what a
// reader seeks in by Range). It costs the compression of sampleLen bytes, and
// spares the compression of the rest.
func (w *Writer) storesWhole(blk block) bool {
	if blk.n < storedWholeMin {
		return false
	}
	at := blk.n/2 - sampleLen/2
	var p []byte
	if blk.data != nil {
		p = blk.data[at : at+sampleLen]
	} else if ra, ok := blk.rs.(io.ReaderAt); ok {
		if len(w.peek) < sampleLen {
			w.peek = make([]byte, max(sampleLen, maxHTTPHead))
		}
		k, _ := ra.ReadAt(w.peek[:sampleLen], blk.start+at)
		p = w.peek[:k]
	}
	if len(p) < sampleLen {
		return false
	}
	if w.sample == nil {
		w.sample, _ = flate.NewWriter(io.Discard, w.opts.Level)
	}
	var n countWriter
	n.w = io.Discard
	w.sample.Reset(&n)
	w.sample.Write(p)
	w.sample.Close()
	return n.n*100 >= int64(len(p))*97
}

// writeBody writes the prepared header, the block and the closing CRLF CRLF to dst.
func (w *Writer) writeBody(dst io.Writer, blk block) (int64, error) {
	cw := countWriter{w: dst}
	if _, err := cw.Write(w.hdr); err != nil {
		return cw.n, err
	}
	if blk.data != nil || blk.n == 0 {
		if _, err := cw.Write(blk.data); err != nil {
			return cw.n, err
		}
	} else {
		if _, err := blk.rs.Seek(blk.start, io.SeekStart); err != nil {
			return cw.n, err
		}
		if w.copy == nil {
			w.copy = make([]byte, 64<<10)
		}
		got, err := w.copyBlock(&cw, blk.rs, blk.n)
		if err != nil {
			return cw.n, err
		}
		if got != blk.n {
			return cw.n, fmt.Errorf("warc: %w: block changed between reads", ErrLength)
		}
	}
	_, err := cw.Write(crlf2)
	return cw.n, err
}

var crlf2 = []byte("\r\n\r\n")

// writeSegments writes a block too large to buffer as a first segment that keeps the
// record's type and "Segment-Number: 1", then continuation records (section 7.2).
// Each segment holds at most size bytes of the block; before, when set, is called
// before each segment is written with the length of its block.
func (w *Writer) writeSegments(rec *Record, size int64, before func(n int64) error) (RecordInfo, error) {
	info := RecordInfo{ID: rec.ID, Type: rec.Type, Offset: w.off}
	whole := newDigester()
	whole.reset(isHTTP(rec.ContentType) && (rec.Type == TypeResponse || rec.Type == TypeRequest))
	size = min(size, w.opts.MaxBuffer)
	if int64(cap(w.buf)) < size {
		w.buf = make([]byte, size)
	}
	truncated := rec.Header.Get(FieldTruncated)
	first := rec.Header.Clone()
	first.Del(FieldTruncated)
	first.Set(FieldSegmentNumber, "1")
	remaining := rec.BlockLength
	for seg := 1; remaining > 0; seg++ {
		n := min(size, remaining)
		data := w.buf[:n]
		if got, err := io.ReadFull(rec.Block, data); err != nil {
			return info, fmt.Errorf("warc: record %s segment %d: %w: block ended after %d of %d bytes", rec.ID, seg, ErrLength, rec.BlockLength-remaining+int64(got), rec.BlockLength)
		}
		remaining -= n
		if before != nil {
			if err := before(n); err != nil {
				return info, err
			}
			if seg == 1 {
				info.Offset = w.off
			}
		}
		whole.Write(data)
		// The first segment's payload digest is that of its own bytes after the
		// HTTP header, for WriterOptions.Written.
		w.dig.reset(seg == 1 && w.opts.Written != nil && whole.headerLen != -2)
		w.dig.Write(data)
		s := *rec
		s.BlockLength = n
		var h Header
		if seg == 1 {
			h = first
		} else {
			s.Type = TypeContinuation
			s.ID = w.newID()
			h = Header{{FieldSegmentNumber, strconv.Itoa(seg)}, {FieldSegmentOriginID, rec.ID}}
			if remaining == 0 {
				h.Add(FieldEndLength, strconv.FormatInt(rec.BlockLength, 10))
				if truncated != "" {
					h.Add(FieldTruncated, truncated)
				}
			}
		}
		digest := w.dig.blockDigest()
		var extra Header
		if w.opts.Version == V09 {
			h = append(h.Clone(), Field{FieldChecksum, digest})
		} else {
			extra = Header{{"WARC-Block-Digest", digest}}
		}
		at := w.off
		blk := block{data: data, n: n}
		n, err := w.emit(&s, h, extra, blk)
		info.Length += n
		info.Segments++
		if err != nil {
			return info, err
		}
		s.Header = h
		if err := w.written(&s, at, extra, blk, w.dig.payloadDigest()); err != nil {
			return info, err
		}
	}
	info.BlockDigest = whole.blockDigest()
	info.PayloadDigest = whole.payloadDigest()
	return info, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// DedupEntry is what a Deduper remembers of a payload's first record.
type DedupEntry struct {
	ID        string
	TargetURI string
	Date      time.Time
}

// Deduper remembers the payload digests already written, so that a Writer can write
// a revisit record instead of a second copy. One Deduper may serve several Writers
// (the files of a rotation) but not at the same time.
type Deduper struct {
	seen map[string]DedupEntry
}

// NewDeduper returns an empty Deduper.
func NewDeduper() *Deduper { return &Deduper{seen: make(map[string]DedupEntry)} }

// Lookup returns the first record written with the payload digest.
func (d *Deduper) Lookup(payloadDigest string) (DedupEntry, bool) {
	e, ok := d.seen[payloadDigest]
	return e, ok
}

// Add remembers a payload digest, unless it is already known.
func (d *Deduper) Add(payloadDigest string, e DedupEntry) {
	if _, ok := d.seen[payloadDigest]; !ok {
		d.seen[payloadDigest] = e
	}
}
