package search

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Block-max metadata: what a search reads of a term before its posting blocks,
// to skip the blocks whose documents cannot enter the results.
//
// A block's frontier bounds what its documents score: the (term frequency,
// length) pairs of its documents that no other of them beats on both (a
// higher or equal frequency and a shorter or equal length), at most
// maxFrontier of them (two neighbours merge into the pair of the higher
// frequency and the shorter length, which beats both). BM25 grows with the
// frequency and falls with the length, so no document of the block scores more
// than the best of its frontier, whatever the corpus's average length and the
// term's idf at the time of the search. Frequencies and lengths are weighted
// as ranking weighs them (a title's tokens count titleWeight times).
//
// A block's title bound is the longest title (in tokens, bounded as the rank
// table bounds it) of its documents: a position below it may be a title's
// (weighing titleWeight), one at or above it is a text's, which bounds a
// document's frequency before its numbers are read.
//
// A term's summary, under keySummary, lists its sealed blocks in order: per
// block, its key's document id (as a delta from the previous block's), its
// first document (from the key's), its last (from its first), its number of
// documents, its frontier and its title bound.
const (
	keySummary  = "b/"
	maxFrontier = 8
)

// A point is a document's weighted term frequency and weighted length.
type point struct{ tf, dl uint32 }

// A frontier is the points of a block that bound its scores, by frequency
// descending (and so by length descending).
type frontier []point

// unknownFrontier bounds a block written before blocks had frontiers: an
// unbounded frequency and no length score as much as the term can.
var unknownFrontier = frontier{{tf: math.MaxUint32, dl: 0}}

// unknownTitle is the title bound of a block written before blocks had one:
// above any title's length.
const unknownTitle = math.MaxUint16 + 1

// add returns f with the point p taken in.
func (f frontier) add(p point) frontier { return f.addWithin(p, maxFrontier) }

// addWithin returns f with the point p taken in, at most most points kept.
func (f frontier) addWithin(p point, most int) frontier {
	for _, q := range f {
		if q.tf >= p.tf && q.dl <= p.dl {
			return f
		}
	}
	f = slices.DeleteFunc(f, func(q point) bool { return p.tf >= q.tf && p.dl <= q.dl })
	i, _ := slices.BinarySearchFunc(f, p, func(q, p point) int { return cmp.Compare(p.tf, q.tf) })
	f = slices.Insert(f, i, p)
	for len(f) > most {
		// Merge the two points of lowest frequency.
		n := len(f)
		f[n-2].dl = f[n-1].dl
		f = f[:n-1]
	}
	return f
}

// merge returns f with g's points taken in.
func (f frontier) merge(g frontier) frontier {
	for _, p := range g {
		f = f.add(p)
	}
	return f
}

// minDL returns the shortest length of f's points.
func (f frontier) minDL() uint32 {
	dl := uint32(math.MaxUint32)
	for _, p := range f {
		dl = min(dl, p.dl)
	}
	return dl
}

// A scorer computes BM25 contributions for a corpus's average length.
type scorer struct{ avgdl float64 }

// score is what a clause of inverse document frequency idf found tf times
// (weighted) adds to the score of a document of weighted length dl.
func (s scorer) score(idf, tf, dl float64) float64 {
	norm := bm25K1 * (1 - bm25B + bm25B*dl/s.avgdl)
	return idf * tf * (bm25K1 + 1) / (tf + norm)
}

// bound is the most a document of a block with frontier f can score for a
// clause of inverse document frequency idf, a little more so that rounding
// cannot put a score above it.
func (s scorer) bound(f frontier, idf float64) float64 {
	b := 0.0
	for _, p := range f {
		b = max(b, s.score(idf, float64(p.tf), float64(p.dl)))
	}
	return b * (1 + 1e-9)
}

func appendFrontier(b []byte, f frontier) []byte {
	b = binary.AppendUvarint(b, uint64(len(f)))
	for _, p := range f {
		b = binary.AppendUvarint(b, uint64(p.tf))
		b = binary.AppendUvarint(b, uint64(p.dl))
	}
	return b
}

func (r *reader) frontier() frontier {
	n := r.uvarint()
	if n == 0 || n > maxFrontier {
		r.fail()
		return nil
	}
	f := make(frontier, n)
	for i := range f {
		f[i] = point{tf: uint32(r.uvarint()), dl: uint32(r.uvarint())}
	}
	return f
}

// A blockRef is a posting block as a search knows it: from its term's summary
// or its header, then, once read, its value.
type blockRef struct {
	key   string
	id    DocID // the id in its key: its first document when it was sealed
	h     blockHeader
	value []byte // nil until read
	// Once its value is decoded: its header, with its strides, and its
	// entries.
	decoded *blockHeader
	body    []byte
}

// header returns the header of b, which is read, with its strides, and its
// entries.
func (b *blockRef) header() (blockHeader, []byte, error) {
	if b.decoded == nil {
		h, body, err := decodeHeader(b.value)
		if err != nil {
			return blockHeader{}, nil, fmt.Errorf("search: posting block %q: %w", b.key, err)
		}
		b.decoded, b.body = &h, body
	}
	return *b.decoded, b.body, nil
}

// summaryKey is the key of a term's summary.
func summaryKey(term string) string { return keySummary + term }

// encodeSummary encodes the summary of a term's sealed blocks.
func encodeSummary(blocks []*blockRef) []byte {
	var b []byte
	prev := DocID(0)
	for _, br := range blocks {
		b = binary.AppendUvarint(b, uint64(br.id-prev))
		b = binary.AppendUvarint(b, uint64(br.h.first-br.id))
		b = binary.AppendUvarint(b, uint64(br.h.last-br.h.first))
		b = binary.AppendUvarint(b, uint64(br.h.count))
		b = appendFrontier(b, br.h.front)
		b = binary.AppendUvarint(b, uint64(br.h.title))
		prev = br.id
	}
	return b
}

// decodeSummary decodes the summary of term's sealed blocks.
func decodeSummary(term string, v []byte) ([]*blockRef, error) {
	r := reader{b: v}
	var blocks []*blockRef
	prev := DocID(0)
	for len(r.b) > 0 && r.err == nil {
		br := &blockRef{id: prev + DocID(r.uvarint())}
		br.h.first = br.id + DocID(r.uvarint())
		br.h.last = br.h.first + DocID(r.uvarint())
		br.h.count = int(r.uvarint())
		br.h.front = r.frontier()
		br.h.title = int(min(r.uvarint(), unknownTitle))
		br.key = termKey(term) + docKey(br.id)
		blocks = append(blocks, br)
		prev = br.id
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: summary of %q", errCorrupt, term)
	}
	return blocks, nil
}
