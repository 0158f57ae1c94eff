package warc

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/flate"
)

// A gzip member written by this package (section 9: one member per record) is
// laid out so that an indexer can read a record's head without inflating
// anything:
//
//	gzip header, with the sl extra field of section 9.2
//	stored deflate blocks: the record's head, that is its header and, when
//	  the block is an HTTP message, the HTTP header
//	compressed deflate blocks: the rest of the record
//	CRC-32 and ISIZE
//
// This is an ordinary gzip member that any gzip reader inflates; only a reader
// that looks at the deflate blocks (as a lazy Reader does) gains from it. The
// head, left uncompressed, makes a file about 2% larger (a few hundred bytes per
// record).
//
// A large record whose body does not compress (a video, an archive: see
// Writer.storesWhole) is stored whole instead, every block stored and full but the
// last, which is final:
//
//	gzip header, as above (24 bytes)
//	stored deflate blocks of maxStoredBlock bytes, not final
//	a final stored block of the rest (maybe none)
//	CRC-32 and ISIZE
//
// Where any of its bytes lies then follows from its position alone, so that a
// reader can start anywhere in it, inflating nothing before (StoredMember): a seek
// in a recorded video reads only what it plays.

// maxHTTPHead is how far into an HTTP block the end of its HTTP header is looked
// for. A longer HTTP header is compressed with the rest.
const maxHTTPHead = 16 << 10

// maxStoredBlock is the most a stored deflate block holds (RFC 1951, 3.2.4).
const maxStoredBlock = 0xffff

// memberWriter writes one gzip member whose first headLen bytes go into stored
// deflate blocks and the rest into compressed ones.
type memberWriter struct {
	dst     io.Writer
	fw      *flate.Writer
	level   int
	crc     uint32
	size    uint32
	head    []byte // the head, gathered until it is whole
	headLen int
	stored  bool // the head has been written
	whole   bool // every block is stored; head gathers the current block
}

// gzipHeaderSL is the gzip header (RFC 1952) of a member: deflate, FEXTRA, no
// modification time, unknown OS, and the sl field with both lengths still zero
// (filled in at slAt once known).
var gzipHeaderSL = []byte{
	0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 255,
	12, 0, 's', 'l', 8, 0, 0, 0, 0, 0, 0, 0, 0, 0,
}

// slAt is where the two sl lengths start in a member written by this package.
const slAt = 16

// reset starts a member on dst whose first headLen bytes are stored, or, with
// whole, all of whose bytes are.
func (m *memberWriter) reset(dst io.Writer, headLen int, whole bool) error {
	m.dst, m.crc, m.size, m.head, m.headLen, m.stored, m.whole = dst, 0, 0, m.head[:0], headLen, headLen == 0, whole
	if whole {
		_, err := dst.Write(gzipHeaderSL)
		return err
	}
	if m.fw == nil {
		fw, err := flate.NewWriter(dst, m.level)
		if err != nil {
			return err
		}
		m.fw = fw
	} else {
		m.fw.Reset(dst)
	}
	_, err := dst.Write(gzipHeaderSL)
	return err
}

func (m *memberWriter) Write(p []byte) (int, error) {
	n := len(p)
	m.crc = crc32.Update(m.crc, crc32.IEEETable, p)
	m.size += uint32(n)
	if m.whole {
		for len(p) > 0 {
			k := min(maxStoredBlock-len(m.head), len(p))
			m.head = append(m.head, p[:k]...)
			p = p[k:]
			if len(m.head) == maxStoredBlock {
				if err := m.writeStored(m.head, false); err != nil {
					return 0, err
				}
				m.head = m.head[:0]
			}
		}
		return n, nil
	}
	if !m.stored {
		k := min(m.headLen-len(m.head), len(p))
		m.head = append(m.head, p[:k]...)
		p = p[k:]
		if len(m.head) == m.headLen {
			if err := m.writeHead(); err != nil {
				return 0, err
			}
		}
	}
	if len(p) > 0 {
		if _, err := m.fw.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// writeHead writes the gathered head as stored blocks, none of them final.
func (m *memberWriter) writeHead() error {
	m.stored = true
	for h := m.head; len(h) > 0; {
		k := min(len(h), maxStoredBlock)
		if err := m.writeStored(h[:k], false); err != nil {
			return err
		}
		h = h[k:]
	}
	return nil
}

// writeStored writes p (at most maxStoredBlock bytes) as one stored block, the
// last one when final.
func (m *memberWriter) writeStored(p []byte, final bool) error {
	var hdr [5]byte
	if final {
		hdr[0] = 1 // BFINAL 1, BTYPE 00; the other five bits pad to the byte
	}
	binary.LittleEndian.PutUint16(hdr[1:], uint16(len(p)))
	binary.LittleEndian.PutUint16(hdr[3:], ^uint16(len(p)))
	if _, err := m.dst.Write(hdr[:]); err != nil {
		return err
	}
	_, err := m.dst.Write(p)
	return err
}

// close ends the deflate stream and writes the gzip trailer.
func (m *memberWriter) close() error {
	switch {
	case m.whole:
		if err := m.writeStored(m.head, true); err != nil {
			return err
		}
	case !m.stored:
		if err := m.writeHead(); err != nil {
			return err
		}
		fallthrough
	default:
		if err := m.fw.Close(); err != nil {
			return err
		}
	}
	var tr [8]byte
	binary.LittleEndian.PutUint32(tr[:4], m.crc)
	binary.LittleEndian.PutUint32(tr[4:], m.size)
	_, err := m.dst.Write(tr[:])
	return err
}

// httpHeadLen returns the length of the HTTP header (through its blank line) at
// the start of an HTTP block, or 0 when the block is not an HTTP message or the
// header does not end within maxHTTPHead bytes.
func (w *Writer) httpHeadLen(rec *Record, blk block) int {
	if !isHTTP(rec.ContentType) || blk.n == 0 {
		return 0
	}
	var p []byte
	if blk.data != nil {
		p = blk.data[:min(int64(len(blk.data)), maxHTTPHead)]
	} else if ra, ok := blk.rs.(io.ReaderAt); ok {
		if w.peek == nil {
			w.peek = make([]byte, maxHTTPHead)
		}
		k, _ := ra.ReadAt(w.peek[:min(blk.n, maxHTTPHead)], blk.start)
		p = w.peek[:k]
	}
	if i := bytes.Index(p, crlf2); i >= 0 {
		return i + len(crlf2)
	}
	return 0
}
