package search

import (
	"errors"
	"slices"
	"testing"
)

// cursorBlocks encodes lists of documents, each a block of the postings
// pos[d] gives them, as a search reads them.
func cursorBlocks(t *testing.T, lists [][]DocID, pos func(DocID) []uint32) []*blockRef {
	t.Helper()
	var blocks []*blockRef
	for _, docs := range lists {
		var p postings
		h := blockHeader{}
		for _, d := range docs {
			p.add(d, pos(d))
			h.front = h.front.add(point{tf: uint32(len(pos(d))), dl: 100})
		}
		v := p.encodeBlock(h)
		bh, _, err := decodeHeader(v)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, &blockRef{key: termKey("x") + docKey(docs[0]), id: docs[0], h: bh, value: v})
	}
	return blocks
}

// TestCursor walks blocks looking documents up in order, as a pruned search
// does: it finds those the blocks hold with their positions, across blocks,
// whether or not it read the positions of the ones it passed.
func TestCursor(t *testing.T) {
	pos := func(d DocID) []uint32 {
		out := []uint32{uint32(d % 7)}
		for i := range d % 4 {
			out = append(out, uint32(d%7)+10*uint32(i+1))
		}
		return out
	}
	blocks := [][]DocID{{2, 3, 5, 8, 13}, {21, 34, 35}, {55, 89, 144, 233}}
	tests := []struct {
		name string
		find []DocID
	}{
		{"every document", []DocID{2, 3, 5, 8, 13, 21, 34, 35, 55, 89, 144, 233}},
		{"documents not held", []DocID{0, 1, 4, 13, 14, 20, 36, 200, 233, 300}},
		{"every other", []DocID{3, 8, 21, 35, 89, 233}},
		{"the same twice", []DocID{5, 5, 34, 34}},
		{"past the end", []DocID{1000, 2000}},
	}
	held := slices.Concat(blocks...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cursor{blocks: cursorBlocks(t, blocks, pos)}
			for _, d := range tt.find {
				got, ok := c.find(d)
				want := slices.Contains(held, d)
				if ok != want {
					t.Fatalf("find(%d): %v, want %v", d, ok, want)
				}
				if ok && !slices.Equal(got, pos(d)) {
					t.Errorf("find(%d): positions %v, want %v", d, got, pos(d))
				}
			}
			if c.err != nil {
				t.Errorf("error %v", c.err)
			}
		})
	}
	t.Run("next", func(t *testing.T) {
		c := cursor{blocks: cursorBlocks(t, blocks, pos)}
		var got []DocID
		for c.next() {
			got = append(got, c.doc)
		}
		if !slices.Equal(got, held) || c.err != nil {
			t.Errorf("next: %v, %v; want %v", got, c.err, held)
		}
	})
}

// TestCursorStrides looks documents up in blocks long enough to have strides
// (and a block too short to), as TestCursor does: a cursor seeks to the stride
// that may hold a document and finds what it finds walking every entry.
func TestCursorStrides(t *testing.T) {
	pos := func(d DocID) []uint32 { return []uint32{uint32(d % 5), 100 + uint32(d%300)} }
	var long, longer []DocID
	for d := DocID(10); d < 400; d += 3 {
		long = append(long, d)
	}
	for d := DocID(500); d < 1500; d += 2 {
		longer = append(longer, d)
	}
	lists := [][]DocID{long, longer, {1600, 1601, 1700}}
	held := slices.Concat(lists...)
	blocks := cursorBlocks(t, lists, pos)
	if h, _, _ := blocks[1].header(); len(h.strides) != (len(longer)+strideEntries-1)/strideEntries {
		t.Fatalf("a block of %d entries has %d strides", len(longer), len(h.strides))
	}
	for _, step := range []DocID{1, 2, 7, 33, 64, 101, 500} {
		c := cursor{blocks: cursorBlocks(t, lists, pos)}
		for d := DocID(0); d < 1800; d += step {
			got, ok := c.find(d)
			if want := slices.Contains(held, d); ok != want {
				t.Fatalf("step %d: find(%d): %v, want %v", step, d, ok, want)
			}
			if ok && !slices.Equal(got, pos(d)) {
				t.Fatalf("step %d: find(%d): positions %v, want %v", step, d, got, pos(d))
			}
		}
		if c.err != nil {
			t.Errorf("step %d: error %v", step, c.err)
		}
	}
}

// TestStridesAcrossFlushes adds pages a few at a time, as recording commits
// them: every block, sealed or tail, has strides, and each knows its pages'
// longest length (which bounds a match's score from below), whatever the
// flushes its entries came in; checkSummaries checks them against the pages.
func TestStridesAcrossFlushes(t *testing.T) {
	s := NewMemStore()
	ix := indexWith(t, s, &Options{FlushDocs: 7}, syntheticDocs(600))
	checkSummaries(t, ix, s)
	blocks, strided := 0, 0
	s.Scan(keyTerm, func(key string, value []byte) bool {
		h, _, err := decodeHeader(value)
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		blocks++
		if len(h.strides) > 0 {
			strided++
		}
		for k, st := range h.strides {
			if st.longest == unknownLength {
				t.Errorf("%q: stride %d of %d does not know its pages' longest length", key, k, len(h.strides))
			}
		}
		return true
	})
	if strided != blocks {
		t.Errorf("%d of %d blocks have strides", strided, blocks)
	}
}

// TestDecodeStrides checks that a block whose strides do not agree with its
// entries is said corrupt: a stride beginning past the entries, counts that
// do not add up to the block's, a document going back.
func TestDecodeStrides(t *testing.T) {
	var p postings
	for d := DocID(100); d < 300; d++ {
		p.add(d, []uint32{1, 2})
	}
	good := p.encodeBlock(blockHeader{front: frontier{{tf: 2, dl: 10}}})
	h, body, err := decodeHeader(good)
	if err != nil || len(h.strides) != 7 {
		t.Fatalf("%d strides, %v", len(h.strides), err)
	}
	tests := []struct {
		name   string
		change func(*blockHeader)
	}{
		{"a stride past the entries", func(h *blockHeader) { h.strides[6].offset = len(body) + 10 }},
		{"counts that do not add up", func(h *blockHeader) { h.strides[2].count++ }},
		{"a document going back", func(h *blockHeader) { h.strides[3].prev = h.strides[2].prev - 1 }},
		{"a first stride not at the start", func(h *blockHeader) { h.strides[0].offset = 1; h.strides[1].offset++ }},
		{"a stride after the last document", func(h *blockHeader) { h.strides[6].prev = h.last + 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad, _, _ := decodeHeader(good)
			tt.change(&bad)
			if _, _, err := decodeHeader(append(appendHeader(nil, bad), body...)); !errors.Is(err, errCorrupt) {
				t.Errorf("error %v, want errCorrupt", err)
			}
		})
	}
}

// TestCursorCorrupt checks that a cursor says a block is corrupt, rather
// than finding what it does not hold: a block cut short, one whose last
// document is not its header's, one with bytes after its last entry.
func TestCursorCorrupt(t *testing.T) {
	pos := func(d DocID) []uint32 { return []uint32{1, 200, 4000} }
	tests := []struct {
		name    string
		corrupt func([]byte) []byte
	}{
		{"cut short", func(v []byte) []byte { return v[:len(v)-2] }},
		{"bytes after the last entry", func(v []byte) []byte { return append(v, 1, 1, 1) }},
		{"last document not the header's", func(v []byte) []byte {
			// The first entry's distance (0) becomes 1: every document is one
			// further.
			_, body, _ := decodeHeader(v)
			out := append([]byte(nil), v[:len(v)-len(body)]...)
			return append(append(out, 1), body[1:]...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks := cursorBlocks(t, [][]DocID{{1, 2, 3}}, pos)
			blocks[0].value = tt.corrupt(blocks[0].value)
			c := cursor{blocks: blocks}
			for c.next() {
			}
			if !errors.Is(c.err, errCorrupt) {
				t.Errorf("error %v, want errCorrupt", c.err)
			}
		})
	}
}

// TestPrunedWiki checks pruned searches against exhaustive ones over pages
// like the extension benchmark's, whose common words have blocks enough for
// a search to read most of them at once, and that it then scans their keys
// rather than reading their blocks one by one; but for a phrase of them,
// which reads a few blocks of its pair.
func TestPrunedWiki(t *testing.T) {
	vocab := wikiVocabulary()
	s := &countingStore{MemStore: NewMemStore()}
	ix := indexOf(t, s, wikiDocs(20000))
	two, phrase := vocab[20]+" "+vocab[30], `"`+vocab[5]+" "+vocab[6]+`"`
	checkTopK(t, ix, "wiki", []string{two, phrase, vocab[0], vocab[len(vocab)*8/10],
		vocab[20] + " -" + vocab[30], phrase + " -" + vocab[40], vocab[3] + " " + phrase})
	for _, query := range []string{two, phrase} {
		q, _ := ParseQuery(query)
		var terms []string
		for _, tok := range q.Clauses[0].Tokens {
			terms = append(terms, tok.Term)
		}
		if len(q.Clauses) > 1 {
			terms = append(terms, q.Clauses[1].Tokens[0].Term)
		}
		tbs, err := ix.readTerms(terms)
		if err != nil {
			t.Fatal(err)
		}
		blocks := 0
		for _, tb := range tbs {
			blocks += len(tb.blocks)
		}
		s.blockKeys, s.termScans = 0, 0
		if _, err := ix.Search(q, 20); err != nil {
			t.Fatal(err)
		}
		switch {
		case query == phrase && (s.termScans > 0 || 10*s.blockKeys > blocks):
			// A phrase of common words reads the blocks of its pair.
			t.Errorf("%q: %d blocks read one by one and %d scans, for tokens of %d blocks", query, s.blockKeys, s.termScans, blocks)
		case query == two && (s.termScans == 0 || s.blockKeys >= blocks):
			t.Errorf("%q: %d blocks read one by one and %d scans, for terms of %d blocks", query, s.blockKeys, s.termScans, blocks)
		}
	}
}
