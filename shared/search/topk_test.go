package search

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// topKQueries are queries of every kind a pruned search answers: common and
// rare words, several words, phrases, exclusions and filters.
var topKQueries = []string{
	"the", "museum", "museum castle", `"the archive"`, "the -museum", "rare3",
	"the site:site7.example", "castle status:200", "or one", `"is was"`,
	"the -museum -castle", `the -"is was"`, "of session:session-4",
	"archive from:2024-01-10 to:2024-01-20", "the -site:site3.example", "unique77",
	"zürich müssen", `"of the" alpha`,
}

// topKDocs are syntheticDocs(n) an hour apart, with ties: every 25th
// document repeats the one before (the same score, a later time), and every
// 50th also its time (the same score and time, a higher id).
func topKDocs(n int) []Document {
	docs := syntheticDocs(n)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range docs {
		docs[i].Time = base.Add(time.Duration(i) * time.Hour)
		if i%25 == 0 && i > 0 {
			docs[i].Title, docs[i].Text = docs[i-1].Title, docs[i-1].Text
			if i%50 == 0 {
				docs[i].Time = docs[i-1].Time
			}
		}
	}
	return docs
}

// checkTopK checks that a search's first limit results are the first limit
// of the exhaustive ranking (limit 0), in the same order with the same
// scores, and that its total is the exhaustive one's, or close to it when
// it says it is an estimate.
func checkTopK(t *testing.T, ix *Index, stage string, queries []string) {
	t.Helper()
	for _, query := range queries {
		q, err := ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		all, err := ix.Search(q, 0)
		if err != nil {
			t.Fatalf("%s: %q: %v", stage, query, err)
		}
		if all.Estimated {
			t.Errorf("%s: %q: the exhaustive search estimates its total", stage, query)
		}
		for _, limit := range []int{1, 5, 20, 1000} {
			got, err := ix.Search(q, limit)
			if err != nil {
				t.Fatalf("%s: %q limit %d: %v", stage, query, limit, err)
			}
			want := all.Hits[:min(limit, len(all.Hits))]
			switch {
			case !got.Estimated && got.Total != all.Total:
				t.Errorf("%s: %q limit %d: total %d, want %d", stage, query, limit, got.Total, all.Total)
			case got.Estimated && (got.Total < len(got.Hits) || got.Total < all.Total/2 || got.Total > 2*all.Total):
				t.Errorf("%s: %q limit %d: estimated total %d, want about %d", stage, query, limit, got.Total, all.Total)
			}
			if !slices.EqualFunc(got.Hits, want, func(a, b Result) bool { return a.ID == b.ID && a.Score == b.Score }) {
				t.Errorf("%s: %q limit %d: hits %v, want %v", stage, query, limit, ids(got.Hits), ids(want))
			}
		}
	}
}

// TestTopK checks pruned searches against exhaustive ones over a corpus of
// Zipf-distributed words with ties, as it grows in commits of 200 documents,
// after whole sessions and single documents are deleted, and after the best
// matches of common words are deleted, which lowers the best score of their
// blocks below their bound.
func TestTopK(t *testing.T) {
	docs := topKDocs(1200)
	s := NewMemStore()
	ix, err := Open(s, &Options{FlushDocs: 200})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
		if (i+1)%400 == 0 {
			checkTopK(t, ix, fmt.Sprintf("after %d documents", i+1), topKQueries)
			checkSummaries(t, ix, s)
		}
	}
	if _, err := ix.DeleteSession("session-3"); err != nil {
		t.Fatal(err)
	}
	checkTopK(t, ix, "after deleting a session", topKQueries)
	checkSummaries(t, ix, s)
	for id := DocID(1); id < 300; id += 7 {
		if err := ix.Delete(id); err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
	}
	checkTopK(t, ix, "after deleting documents", topKQueries)
	checkSummaries(t, ix, s)
	for _, query := range []string{"the", "museum castle", "or one"} {
		q, _ := ParseQuery(query)
		res, err := ix.Search(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if err := ix.Delete(h.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkTopK(t, ix, "after deleting the best matches", topKQueries)
	checkSummaries(t, ix, s)
	// Emptying sealed blocks: every document from 400 to 800.
	for id := DocID(400); id < 800; id++ {
		if err := ix.Delete(id); err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
	}
	checkTopK(t, ix, "after deleting a third of the documents", topKQueries)
	checkSummaries(t, ix, s)
}

// indexOf is an index of docs in s, flushed.
func indexOf(t *testing.T, s Store, docs []Document) *Index {
	t.Helper()
	return indexWith(t, s, nil, docs)
}

// indexWith is an index of docs in s with options opts, flushed.
func indexWith(t *testing.T, s Store, opts *Options, docs []Document) *Index {
	t.Helper()
	ix, err := Open(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestPruning checks that a search with a limit reads a fraction of what an
// exhaustive one reads for common words.
func TestPruning(t *testing.T) {
	s := &countingStore{MemStore: NewMemStore()}
	ix := indexOf(t, s, syntheticDocs(5000))
	for _, query := range []string{"the", "or one", "the -museum"} {
		q, _ := ParseQuery(query)
		read := func(limit int) int {
			s.bytes = 0
			if _, err := ix.Search(q, limit); err != nil {
				t.Fatal(err)
			}
			return s.bytes
		}
		if all, top := read(0), read(10); top > all/4 {
			t.Errorf("%q: the best 10 read %d bytes, all %d", query, top, all)
		}
	}
}

// TestLegacyIndex opens an index written by version 1 (testdata/index-v1.json.gz:
// syntheticDocs(150) added 20 at a time), whose blocks have no frontiers and
// whose terms no summaries: it answers as an index of version 2 of the same
// documents does, and still does once documents are added (which seal blocks
// of its terms) and deleted.
func TestLegacyIndex(t *testing.T) {
	f, err := os.Open("testdata/index-v1.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var kv map[string][]byte
	if err := json.NewDecoder(z).Decode(&kv); err != nil {
		t.Fatal(err)
	}
	old := NewMemStore()
	for k, v := range kv {
		old.Put(k, v)
	}
	if v, _ := old.Get(keyMeta); len(v) == 0 || v[0] != 1 {
		t.Fatalf("meta %v, want version 1", v)
	}
	legacy, err := Open(old, &Options{FlushDocs: 20})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(NewMemStore(), &Options{FlushDocs: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range syntheticDocs(150) {
		if _, err := fresh.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	same := func(stage string) {
		t.Helper()
		checkTopK(t, legacy, stage, topKQueries)
		checkTopK(t, fresh, stage, topKQueries)
		for _, query := range topKQueries {
			q, _ := ParseQuery(query)
			for _, limit := range []int{0, 5} {
				got, err := legacy.Search(q, limit)
				if err != nil {
					t.Fatal(err)
				}
				want, err := fresh.Search(q, limit)
				if err != nil {
					t.Fatal(err)
				}
				// Their totals may differ when either is an estimate: the
				// legacy index's blocks have no strides to pass.
				if (got.Total != want.Total && !got.Estimated && !want.Estimated) || !slices.EqualFunc(got.Hits, want.Hits, func(a, b Result) bool { return a.ID == b.ID && a.Score == b.Score }) {
					t.Errorf("%s: %q limit %d: %d %v, a new index %d %v", stage, query, limit, got.Total, ids(got.Hits), want.Total, ids(want.Hits))
				}
			}
		}
	}
	same("opened")
	for _, d := range syntheticDocs(400) {
		for _, ix := range []*Index{legacy, fresh} {
			if _, err := ix.Add(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	same("after adding documents")
	checkSummaries(t, legacy, old)
	if v, _ := old.Get(keyMeta); v[0] != version {
		t.Errorf("meta version %d after a flush, want %d", v[0], version)
	}
	if _, err := old.Get(summaryKey("the")); err != nil {
		t.Errorf("no summary of a term that sealed blocks: %v", err)
	}
	for id := DocID(3); id < 500; id += 11 {
		for _, ix := range []*Index{legacy, fresh} {
			if err := ix.Delete(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	same("after deleting documents")
	checkSummaries(t, legacy, old)
	reopened, err := Open(old, nil)
	if err != nil {
		t.Fatal(err)
	}
	legacy = reopened
	same("reopened")
}

func ids(hits []Result) []DocID {
	var out []DocID
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

// checkSummaries checks the block-max metadata of an index against its
// blocks: each term's summary lists its sealed blocks as their headers say,
// no term without sealed blocks has one (but for a legacy index's), and every
// block's frontier and title bound bound each of its documents' frequency,
// length and title length.
func checkSummaries(t *testing.T, ix *Index, s *MemStore) {
	t.Helper()
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	sealed := map[string][]*blockRef{}
	var all []*blockRef
	s.Scan(keyTerm, func(key string, value []byte) bool {
		term, id, _ := strings.Cut(key[len(keyTerm):], "\x00")
		h, _, err := decodeHeader(value)
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		b := &blockRef{key: key, h: h, value: value}
		if id != tailSuffix {
			b.id, _ = parseDocKey(id)
			sealed[term] = append(sealed[term], b)
		}
		all = append(all, b)
		return true
	})
	s.Scan(keySummary, func(key string, value []byte) bool {
		if term := key[len(keySummary):]; len(sealed[term]) == 0 {
			t.Errorf("summary of %q, which has no sealed blocks", term)
		}
		return true
	})
	for term, blocks := range sealed {
		v, err := s.Get(summaryKey(term))
		if errors.Is(err, ErrNotFound) && ix.meta.legacy {
			continue
		}
		if err != nil {
			t.Fatalf("summary of %q: %v", term, err)
		}
		got, err := decodeSummary(term, v)
		if err != nil {
			t.Fatal(err)
		}
		same := func(a, b *blockRef) bool {
			return a.key == b.key && a.id == b.id && a.h.count == b.h.count && a.h.first == b.h.first &&
				a.h.last == b.h.last && slices.Equal(a.h.front, b.h.front) && a.h.title == b.h.title
		}
		if !slices.EqualFunc(got, blocks, same) {
			t.Errorf("summary of %q lists %d blocks, not as their %d headers say", term, len(got), len(blocks))
		}
	}
	for _, b := range all {
		if slices.Equal(b.h.front, unknownFrontier) {
			continue
		}
		var p postings
		if err := p.decodeBlock(b.value); err != nil {
			t.Fatal(err)
		}
		for i, d := range p.docs {
			v, err := s.Get(keyDoc + docKey(d))
			if err != nil {
				t.Fatalf("%q: document %d: %v", b.key, d, err)
			}
			rec, _ := decodeRecord(v, true)
			rec = rec.clamped()
			if rec.titleLen > b.h.title {
				t.Errorf("%q: title bound %d, document %d has a title of %d", b.key, b.h.title, d, rec.titleLen)
			}
			tf := uint32(0)
			for _, pos := range p.positions(i) {
				if int(pos) < rec.titleLen {
					tf += titleWeight
				} else {
					tf++
				}
			}
			dl := uint32(weightedLength(rec.length, rec.titleLen))
			if !slices.ContainsFunc(b.h.front, func(q point) bool { return q.tf >= tf && q.dl <= dl }) {
				t.Errorf("%q: frontier %v does not bound document %d (%d, %d)", b.key, b.h.front, d, tf, dl)
			}
			if k := strideOf(b.h, i); k >= 0 {
				st := b.h.strides[k]
				if !slices.ContainsFunc(st.front, func(q point) bool { return q.tf >= tf && q.dl <= dl }) {
					t.Errorf("%q: stride %d's frontier %v does not bound document %d (%d, %d)", b.key, k, st.front, d, tf, dl)
				}
				if (st.longest != unknownLength && dl > st.longest) || rec.titleLen < st.title {
					t.Errorf("%q: stride %d (longest %d, title %d) holds document %d (length %d, title %d)", b.key, k, st.longest, st.title, d, dl, rec.titleLen)
				}
			}
		}
		checkStrides(t, b, &p)
	}
}

// strideOf returns the stride of h that holds entry i, -1 for a block
// without strides.
func strideOf(h blockHeader, i int) int {
	for k, st := range h.strides {
		if i >= st.index && i < st.index+st.count {
			return k
		}
	}
	return -1
}

// checkStrides checks that a cursor begun at each stride of block b (p
// decoded) walks the entries of that stride and those after it.
func checkStrides(t *testing.T, b *blockRef, p *postings) {
	t.Helper()
	h, _, err := decodeHeader(b.value)
	if err != nil {
		t.Fatal(err)
	}
	for k, st := range h.strides {
		c := cursor{}
		if !c.load(&blockRef{key: b.key, value: b.value}) {
			t.Fatalf("%q: %v", b.key, c.err)
		}
		if k > 0 {
			c.pass(k - 1)
		}
		for i := st.index; i < len(p.docs); i++ {
			if !c.next() || c.doc != p.docs[i] || !slices.Equal(c.positions(), p.positions(i)) {
				t.Fatalf("%q: from stride %d, entry %d is %d %v, want %d %v (%v)", b.key, k, i, c.doc, c.pos, p.docs[i], p.positions(i), c.err)
			}
		}
		if c.next() || c.err != nil {
			t.Fatalf("%q: from stride %d: an entry after the last, or %v", b.key, k, c.err)
		}
	}
}
