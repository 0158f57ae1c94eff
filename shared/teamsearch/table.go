package teamsearch

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/search"
)

// Table layout: a segment's keys and values, sorted, in blocks of about
// tableBlock bytes, then the blocks' index, then a footer.
//
//	block   entries: uvarint key length, key, uvarint value length, value
//	index   per block: uvarint first key length, first key, uvarint offset, uvarint length
//	footer  index offset and index length (8 bytes each, big-endian), then tableMagic
const (
	tableBlock  = 16 << 10
	tableMagic  = "wksearch"
	footerBytes = 24
	// maxWindow bounds the bytes of one read of neighbouring blocks.
	maxWindow = 1 << 20
)

// ErrTable wraps the errors of a table that does not decode.
var ErrTable = errors.New("teamsearch: corrupt segment table")

// errReadOnly is returned by a table's writes: segments are written whole.
var errReadOnly = errors.New("teamsearch: a segment table is read-only")

// A blockRef is where one block of a table lies, and its first key.
type blockRef struct {
	first     string
	off, size int64
}

// buildTable lays the entries of s out as a table, in key order. It returns the
// table's bytes and where its index is in them.
func buildTable(s *search.MemStore) (data []byte, indexOff, indexLen int64, err error) {
	var buf bytes.Buffer
	var refs []blockRef
	var block []byte
	first := ""
	flush := func() {
		if len(block) == 0 {
			return
		}
		refs = append(refs, blockRef{first: first, off: int64(buf.Len()), size: int64(len(block))})
		buf.Write(block)
		block = block[:0]
	}
	err = s.Scan("", func(key string, value []byte) bool {
		if len(block) == 0 {
			first = key
		}
		block = binary.AppendUvarint(block, uint64(len(key)))
		block = append(block, key...)
		block = binary.AppendUvarint(block, uint64(len(value)))
		block = append(block, value...)
		if len(block) >= tableBlock {
			flush()
		}
		return true
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("teamsearch: laying out a segment: %w", err)
	}
	flush()
	indexOff = int64(buf.Len())
	var ix []byte
	for _, r := range refs {
		ix = binary.AppendUvarint(ix, uint64(len(r.first)))
		ix = append(ix, r.first...)
		ix = binary.AppendUvarint(ix, uint64(r.off))
		ix = binary.AppendUvarint(ix, uint64(r.size))
	}
	buf.Write(ix)
	var foot [footerBytes]byte
	binary.BigEndian.PutUint64(foot[0:], uint64(indexOff))
	binary.BigEndian.PutUint64(foot[8:], uint64(len(ix)))
	copy(foot[16:], tableMagic)
	buf.Write(foot[:])
	return buf.Bytes(), indexOff, int64(len(ix)), nil
}

// parseFooter reads a table's footer: where its index is.
func parseFooter(foot []byte, size int64) (off, n int64, err error) {
	if len(foot) != footerBytes || string(foot[16:]) != tableMagic {
		return 0, 0, fmt.Errorf("%w: no footer", ErrTable)
	}
	o, l := binary.BigEndian.Uint64(foot[0:]), binary.BigEndian.Uint64(foot[8:])
	if o > uint64(size) || l > uint64(size)-o || o+l+footerBytes != uint64(size) {
		return 0, 0, fmt.Errorf("%w: footer says the index is %d bytes at %d of %d", ErrTable, l, o, size)
	}
	return int64(o), int64(l), nil
}

// parseIndex decodes a table's block index, checking that the blocks lie one
// after the other below end and that their first keys increase.
func parseIndex(b []byte, end int64) ([]blockRef, error) {
	var refs []blockRef
	var next int64
	for len(b) > 0 {
		var r blockRef
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, fmt.Errorf("%w: index entry %d", ErrTable, len(refs))
		}
		r.first, b = string(b[k:k+int(n)]), b[k+int(n):]
		off, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, fmt.Errorf("%w: index entry %d", ErrTable, len(refs))
		}
		size, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 {
			return nil, fmt.Errorf("%w: index entry %d", ErrTable, len(refs))
		}
		b = b[k1+k2:]
		if off != uint64(next) || size == 0 || size > uint64(end)-off {
			return nil, fmt.Errorf("%w: block %d at %d (%d bytes) is not where the blocks continue (%d) or passes %d", ErrTable, len(refs), off, size, next, end)
		}
		r.off, r.size = int64(off), int64(size)
		if len(refs) > 0 && r.first <= refs[len(refs)-1].first {
			return nil, fmt.Errorf("%w: block %d's first key is not above the previous block's", ErrTable, len(refs))
		}
		next = r.off + r.size
		refs = append(refs, r)
	}
	return refs, nil
}

// An entry is one key and value of a block.
type entry struct {
	key   string
	value []byte
}

// parseBlock decodes a block's entries, checking that their keys increase.
func parseBlock(b []byte) ([]entry, error) {
	var out []entry
	for len(b) > 0 {
		var e entry
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, fmt.Errorf("%w: block entry %d", ErrTable, len(out))
		}
		e.key, b = string(b[k:k+int(n)]), b[k+int(n):]
		n, k = binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, fmt.Errorf("%w: block entry %d", ErrTable, len(out))
		}
		e.value, b = b[k:k+int(n)], b[k+int(n):]
		if len(out) > 0 && e.key <= out[len(out)-1].key {
			return nil, fmt.Errorf("%w: block keys out of order at %q", ErrTable, e.key)
		}
		out = append(out, e)
	}
	return out, nil
}

// readCount counts the reads of segments and their bytes.
type readCount struct{ reads, bytes atomic.Int64 }

// A table reads one segment from the blob store as a read-only search.Store:
// blocks are read when first needed and kept; a read that misses takes the
// blocks after the one it needs too, twice as many bytes each time (up to
// maxWindow), so that scanning a region costs a number of reads logarithmic
// in its size.
type table struct {
	ctx    context.Context
	blobs  mergedindex.Blobs
	key    string
	meta   []byte // the index's "m", held by the directory entry
	refs   []blockRef
	reads  *readCount
	mu     sync.Mutex
	blocks map[int][]entry
	window int64
	fixed  bool // the window no longer grows (reads here and there)
}

// scattered says the reads to come are scattered (a few results' texts): each
// takes its block only.
func (t *table) scattered() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.window, t.fixed = tableBlock, true
}

// openTable reads a segment's block index (one read).
func openTable(ctx context.Context, blobs mergedindex.Blobs, seg *segment, reads *readCount) (*table, error) {
	t := &table{ctx: ctx, blobs: blobs, key: seg.Blob, meta: seg.Meta, reads: reads, blocks: map[int][]entry{}, window: tableBlock}
	b, err := t.read(seg.IndexOff, seg.IndexLen)
	if err != nil {
		return nil, err
	}
	if t.refs, err = parseIndex(b, seg.IndexOff); err != nil {
		return nil, fmt.Errorf("segment %s: %w", seg.Blob, err)
	}
	return t, nil
}

func (t *table) read(off, n int64) ([]byte, error) {
	t.reads.reads.Add(1)
	t.reads.bytes.Add(n)
	rc, err := t.blobs.GetBlob(t.ctx, t.key, off, n)
	if err != nil {
		return nil, fmt.Errorf("teamsearch: reading segment %s: %w", t.key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, n+1))
	if err == nil && int64(len(b)) != n {
		err = fmt.Errorf("%d bytes where %d were asked", len(b), n)
	}
	if err != nil {
		return nil, fmt.Errorf("teamsearch: reading segment %s: %w", t.key, err)
	}
	return b, nil
}

// block returns block i's entries, reading it and the blocks after it that the
// window takes and that are not held yet.
func (t *table) block(i int) ([]entry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if es, ok := t.blocks[i]; ok {
		return es, nil
	}
	j := i + 1
	size := t.refs[i].size
	for j < len(t.refs) && size+t.refs[j].size <= t.window {
		if _, held := t.blocks[j]; held {
			break
		}
		size += t.refs[j].size
		j++
	}
	if !t.fixed {
		t.window = min(2*t.window, maxWindow)
	}
	b, err := t.read(t.refs[i].off, size)
	if err != nil {
		return nil, err
	}
	for k := i; k < j; k++ {
		r := t.refs[k]
		at := r.off - t.refs[i].off
		es, err := parseBlock(b[at : at+r.size])
		if err != nil {
			return nil, fmt.Errorf("segment %s block %d: %w", t.key, k, err)
		}
		t.blocks[k] = es
	}
	return t.blocks[i], nil
}

// blockOf returns the block a key would be in: the last whose first key is not
// above it (0 when none is).
func (t *table) blockOf(key string) int {
	i, found := slices.BinarySearchFunc(t.refs, key, func(r blockRef, k string) int { return strings.Compare(r.first, k) })
	if found || i == 0 {
		return i
	}
	return i - 1
}

// Get implements search.Store.
func (t *table) Get(key string) ([]byte, error) {
	if key == "m" && t.meta != nil {
		return t.meta, nil
	}
	if len(t.refs) == 0 {
		return nil, search.ErrNotFound
	}
	es, err := t.block(t.blockOf(key))
	if err != nil {
		return nil, err
	}
	i, found := slices.BinarySearchFunc(es, key, func(e entry, k string) int { return strings.Compare(e.key, k) })
	if !found {
		return nil, search.ErrNotFound
	}
	return es[i].value, nil
}

// Scan implements search.Store.
func (t *table) Scan(prefix string, fn func(key string, value []byte) bool) error {
	for i := t.blockOf(prefix); i < len(t.refs); i++ {
		if i > 0 && t.refs[i].first > prefix && !strings.HasPrefix(t.refs[i].first, prefix) {
			return nil
		}
		es, err := t.block(i)
		if err != nil {
			return err
		}
		for _, e := range es {
			if e.key < prefix {
				continue
			}
			if !strings.HasPrefix(e.key, prefix) {
				return nil
			}
			if !fn(e.key, e.value) {
				return nil
			}
		}
	}
	return nil
}

// Put implements search.Store: a table is read-only.
func (t *table) Put(string, []byte) error { return errReadOnly }

// Delete implements search.Store: a table is read-only.
func (t *table) Delete(string) error { return errReadOnly }
