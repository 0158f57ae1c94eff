package search

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// The keys of an index (see the package documentation).
const (
	keyMeta    = "m"
	keyDoc     = "d/"
	keyTerms   = "f/"
	keyText    = "x/"
	keySession = "s/"
	keyTerm    = "t/"
	tailSuffix = "~"
)

// errCorrupt is wrapped by the errors of values that do not decode.
var errCorrupt = errors.New("search: corrupt index value")

const base32Digits = "0123456789abcdefghijklmnopqrstuv"

// docKey is the eight base-32 digits of id, which sort as the ids do.
func docKey(id DocID) string {
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = base32Digits[id&31]
		id >>= 5
	}
	return string(b[:])
}

func parseDocKey(s string) (DocID, error) {
	if len(s) != 8 {
		return 0, fmt.Errorf("%w: document key %q", errCorrupt, s)
	}
	var id DocID
	for i := 0; i < 8; i++ {
		d := strings.IndexByte(base32Digits, s[i])
		if d < 0 {
			return 0, fmt.Errorf("%w: document key %q", errCorrupt, s)
		}
		id = id<<5 | DocID(d)
	}
	return id, nil
}

// termKey is the prefix of a term's blocks.
func termKey(term string) string { return keyTerm + term + "\x00" }

// The index's version, the first byte of its meta key: 2 since posting blocks
// have frontiers and terms summaries (blockmax.go).
const version = 2

// metaLegacy is the flag of meta.legacy in its encoding.
const metaLegacy = 1

func (m meta) encode() []byte {
	b := []byte{version}
	b = binary.AppendUvarint(b, uint64(m.next))
	b = binary.AppendUvarint(b, m.docs)
	b = binary.AppendUvarint(b, m.length)
	var flags uint64
	if m.legacy {
		flags |= metaLegacy
	}
	return binary.AppendUvarint(b, flags)
}

// decodeMeta decodes the meta key of an index of version 2, or of version 1,
// which it reads as a version 2 index with legacy blocks.
func decodeMeta(v []byte) (meta, error) {
	r := reader{b: v}
	ver := r.byte()
	if ver != 1 && ver != version {
		return meta{}, fmt.Errorf("%w: index version %d", errCorrupt, ver)
	}
	m := meta{next: DocID(r.uvarint()), docs: r.uvarint(), length: r.uvarint(), legacy: ver == 1}
	if ver == version {
		m.legacy = r.uvarint()&metaLegacy != 0
	}
	return m, r.err
}

// record is a document's fields as its "d/" value holds them.
type record struct {
	length, titleLen                       int // tokens of the text and of the title
	status                                 int
	time                                   time.Time
	session, url, method, mime, ref, title string
}

// encodeRecord encodes a document's fields: the numbers first, so that ranking
// reads them without the strings.
func encodeRecord(d Document, length, titleLen int) []byte {
	b := make([]byte, 0, 32+len(d.Session)+len(d.URL)+len(d.Method)+len(d.Mime)+len(d.Ref)+len(d.Title))
	b = binary.AppendUvarint(b, uint64(length))
	b = binary.AppendUvarint(b, uint64(titleLen))
	b = binary.AppendUvarint(b, uint64(max(d.Status, 0)))
	var ms int64
	if !d.Time.IsZero() {
		ms = d.Time.UnixMilli()
	}
	b = binary.AppendVarint(b, ms)
	for _, s := range []string{d.Session, d.URL, d.Method, d.Mime, d.Ref, d.Title} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// decodeRecord decodes a record, only its numbers when light.
func decodeRecord(v []byte, light bool) (record, error) {
	r := reader{b: v}
	rec := record{length: int(r.uvarint()), titleLen: int(r.uvarint()), status: int(r.uvarint())}
	if ms := r.varint(); ms != 0 {
		rec.time = time.UnixMilli(ms).UTC()
	}
	if !light {
		for _, s := range []*string{&rec.session, &rec.url, &rec.method, &rec.mime, &rec.ref, &rec.title} {
			*s = r.string()
		}
	}
	if r.err != nil {
		return record{}, r.err
	}
	return rec, nil
}

// encodeTerms front-codes a sorted list of terms: for each, the bytes it shares
// with the previous one, then its other bytes, lengths as uvarints.
func encodeTerms(terms []string) []byte {
	var b []byte
	prev := ""
	for _, t := range terms {
		n := 0
		for n < len(prev) && n < len(t) && prev[n] == t[n] {
			n++
		}
		b = binary.AppendUvarint(b, uint64(n))
		b = binary.AppendUvarint(b, uint64(len(t)-n))
		b = append(b, t[n:]...)
		prev = t
	}
	return b
}

func decodeTerms(v []byte) ([]string, error) {
	r := reader{b: v}
	var terms []string
	prev := ""
	for len(r.b) > 0 && r.err == nil {
		n := int(r.uvarint())
		if n > len(prev) {
			return nil, fmt.Errorf("%w: term list", errCorrupt)
		}
		t := prev[:n] + r.string()
		terms = append(terms, t)
		prev = t
	}
	return terms, r.err
}

// blockHeader begins a posting block: a 0 byte (which a block of version 1,
// whose first number is its count, never begins with), its number of
// documents, the first and last of them, its frontier and its title bound
// (blockmax.go). A block with strides (every block written since they were)
// has a second 0 byte (where another block's count, never 0, begins) and its
// strides after its title bound.
type blockHeader struct {
	count       int
	first, last DocID
	front       frontier
	title       int      // no document of the block has a longer title (tokens)
	strides     []stride // none for a block written before strides
}

// A stride is a run of a block's entries, strideEntries of them but for its
// last: a search can bound what their documents score without decoding them,
// skip them, or begin there. offset is where its entries begin in the block's,
// prev the document its first entry's delta is from (the block's first for
// the first stride), front the frontier of its documents (at most
// maxStrideFrontier points), and index the number of entries before it (not
// stored). longest and title bound what a match in it scores from below: no
// document of it is longer (weighted, as a point's length; unknownLength when
// not known), none has a shorter title (in tokens).
type stride struct {
	count, offset, index int
	prev                 DocID
	front                frontier
	longest              uint32
	title                int
}

// unknownLength is the longest length of a stride whose documents' lengths
// are not known.
const unknownLength = math.MaxUint32

const (
	strideEntries     = 32
	maxStrideFrontier = 2
)

// note takes in the entry of document id and point pt, title tokens long,
// that begins at offset in the block's entries and was appended after h.last
// (an empty block's first and last are id already).
func (h *blockHeader) note(id DocID, pt point, title, offset int) {
	if len(h.strides) == 0 && h.count > 0 {
		// A block read without strides is one so far.
		h.strides = []stride{{count: h.count, prev: h.first, front: slices.Clone(h.front), longest: unknownLength}}
	}
	if n := len(h.strides); n == 0 || h.strides[n-1].count >= strideEntries {
		h.strides = append(h.strides, stride{offset: offset, index: h.count, prev: h.last, title: title})
	}
	s := &h.strides[len(h.strides)-1]
	s.count++
	s.front = s.front.addWithin(pt, maxStrideFrontier)
	s.longest = max(s.longest, pt.dl)
	s.title = min(s.title, title)
	h.count++
	h.last = id
	h.front = h.front.add(pt)
	h.title = max(h.title, title)
}

// span returns the documents stride k of h may hold.
func (h *blockHeader) span(k int) (lo, hi DocID) {
	lo, hi = h.first, h.last
	if k > 0 {
		lo = h.strides[k].prev + 1
	}
	if k+1 < len(h.strides) {
		hi = h.strides[k+1].prev
	}
	return lo, hi
}

func appendHeader(b []byte, h blockHeader) []byte {
	b = append(b, 0)
	if len(h.strides) > 0 {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(h.count))
	b = binary.AppendUvarint(b, uint64(h.first))
	b = binary.AppendUvarint(b, uint64(h.last))
	b = appendFrontier(b, h.front)
	b = binary.AppendUvarint(b, uint64(h.title))
	if len(h.strides) > 0 {
		b = binary.AppendUvarint(b, uint64(len(h.strides)))
		prev, offset := h.first, 0
		for _, s := range h.strides {
			b = binary.AppendUvarint(b, uint64(s.count))
			b = binary.AppendUvarint(b, uint64(s.offset-offset))
			b = binary.AppendUvarint(b, uint64(s.prev-prev))
			b = appendFrontier(b, s.front)
			b = binary.AppendUvarint(b, uint64(s.longest))
			b = binary.AppendUvarint(b, uint64(s.title))
			prev, offset = s.prev, s.offset
		}
	}
	return b
}

// decodeHeader returns a block's header and its entries. A block of version 1
// has no frontier: its frontier is unknownFrontier, its title bound
// unknownTitle.
func decodeHeader(v []byte) (blockHeader, []byte, error) {
	r := reader{b: v}
	legacy := len(v) > 0 && v[0] != 0
	strided := len(v) > 1 && v[0] == 0 && v[1] == 0
	if !legacy {
		r.byte()
	}
	if strided {
		r.byte()
	}
	h := blockHeader{count: int(r.uvarint()), first: DocID(r.uvarint()), last: DocID(r.uvarint())}
	if legacy {
		h.front, h.title = unknownFrontier, unknownTitle
	} else {
		h.front = r.frontier()
		h.title = int(min(r.uvarint(), unknownTitle))
	}
	// An entry takes two bytes at least.
	if r.err != nil || h.last < h.first || h.count <= 0 || h.count > len(v)/2 {
		return blockHeader{}, nil, fmt.Errorf("%w: posting block header", errCorrupt)
	}
	if strided {
		if err := h.decodeStrides(&r); err != nil {
			return blockHeader{}, nil, err
		}
	}
	return h, r.b, nil
}

// decodeStrides reads h's strides from r and checks them against h and the
// entries that follow them in r.
func (h *blockHeader) decodeStrides(r *reader) error {
	bad := fmt.Errorf("%w: posting block strides", errCorrupt)
	// A stride takes seven bytes at least.
	n := r.uvarint()
	if n < 1 || n > uint64(h.count) || n > uint64(len(r.b)/7) {
		return bad
	}
	h.strides = make([]stride, n)
	prev, offset, index := h.first, 0, 0
	for k := range h.strides {
		s := &h.strides[k]
		s.count = int(min(r.uvarint(), uint64(h.count)))
		s.offset = offset + int(min(r.uvarint(), uint64(len(r.b))))
		s.prev = prev + DocID(r.uvarint())
		s.front = r.frontier()
		s.longest = uint32(min(r.uvarint(), unknownLength))
		s.title = int(min(r.uvarint(), unknownTitle))
		s.index = index
		if r.err != nil || s.count == 0 || (k > 0 && s.offset <= offset) || s.prev < prev || s.prev > h.last || (k == 0 && (s.offset != 0 || s.prev != h.first)) {
			return bad
		}
		prev, offset, index = s.prev, s.offset, index+s.count
	}
	if index != h.count || offset >= len(r.b) {
		return bad
	}
	return nil
}

// appendEntry appends a posting: the document's distance from the previous
// one, its number of positions, and the positions as deltas.
func appendEntry(b []byte, delta uint64, pos []uint32) []byte {
	return appendPositions(binary.AppendUvarint(b, delta), pos)
}

// appendPositions appends a posting's number of positions and the positions
// as deltas.
func appendPositions(b []byte, pos []uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(pos)))
	prev := uint32(0)
	for _, p := range pos {
		b = binary.AppendUvarint(b, uint64(p-prev))
		prev = p
	}
	return b
}

// postings is a posting list in memory: documents in order, and the positions
// of each (pos[off[i]:off[i+1]]).
type postings struct {
	docs []DocID
	off  []int32
	pos  []uint32
}

func (p *postings) positions(i int) []uint32 {
	end := len(p.pos)
	if i+1 < len(p.off) {
		end = int(p.off[i+1])
	}
	return p.pos[p.off[i]:end]
}

func (p *postings) add(d DocID, pos []uint32) {
	p.docs = append(p.docs, d)
	p.off = append(p.off, int32(len(p.pos)))
	p.pos = append(p.pos, pos...)
}

// decodeBlock appends the postings of a block.
func (p *postings) decodeBlock(v []byte) error {
	h, body, err := decodeHeader(v)
	if err != nil {
		return err
	}
	r := reader{b: body}
	// Each entry takes at least two bytes, which bounds what a corrupt count
	// can make this reserve.
	n := min(h.count, len(body)/2)
	p.docs, p.off = slices.Grow(p.docs, n), slices.Grow(p.off, n)
	d := h.first
	for i := 0; i < h.count; i++ {
		d += DocID(r.uvarint())
		n := r.uvarint()
		if n > uint64(len(r.b)) || r.err != nil {
			return fmt.Errorf("%w: posting block", errCorrupt)
		}
		p.docs = append(p.docs, d)
		p.off = append(p.off, int32(len(p.pos)))
		pos := uint32(0)
		for j := uint64(0); j < n; j++ {
			pos += uint32(r.uvarint())
			p.pos = append(p.pos, pos)
		}
	}
	if r.err != nil || d != h.last || len(r.b) != 0 {
		return fmt.Errorf("%w: posting block", errCorrupt)
	}
	return nil
}

// encodeBlock encodes p, which is not empty, as one block of the frontier
// and title bound of h.
func (p *postings) encodeBlock(h blockHeader) []byte {
	out := blockHeader{count: len(p.docs), first: p.docs[0], last: p.docs[len(p.docs)-1], front: h.front, title: h.title}
	// Its strides are bounded as the block is: its points are not known.
	var front frontier
	for _, pt := range h.front {
		front = front.addWithin(pt, maxStrideFrontier)
	}
	var body []byte
	prev := p.docs[0]
	for i, d := range p.docs {
		if i%strideEntries == 0 {
			out.strides = append(out.strides, stride{count: min(strideEntries, len(p.docs)-i), offset: len(body), index: i, prev: prev, front: front, longest: unknownLength})
		}
		body = appendEntry(body, uint64(d-prev), p.positions(i))
		prev = d
	}
	return append(appendHeader(nil, out), body...)
}

// compressText compresses a document's text for snippets.
func compressText(text string) []byte {
	var buf bytes.Buffer
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	io.WriteString(w, text)
	w.Close()
	flateWriters.Put(w)
	return buf.Bytes()
}

func decompressText(v []byte) (string, error) {
	r := flateReaders.Get().(io.ReadCloser)
	defer flateReaders.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(v), nil); err != nil {
		return "", fmt.Errorf("%w: text: %v", errCorrupt, err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("%w: text: %v", errCorrupt, err)
	}
	return string(b), nil
}

// flateReaders keeps flate readers, whose state is large too, for reuse.
var flateReaders = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// flateWriters keeps flate writers, whose state is large, for reuse.
var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// reader decodes uvarints and strings, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
