package search

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
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
	ix, err := Open(NewMemStore(), &Options{FlushDocs: 200})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
		if (i+1)%400 == 0 {
			checkTopK(t, ix, fmt.Sprintf("after %d documents", i+1), topKQueries)
		}
	}
	if _, err := ix.DeleteSession("session-3"); err != nil {
		t.Fatal(err)
	}
	checkTopK(t, ix, "after deleting a session", topKQueries)
	for id := DocID(1); id < 300; id += 7 {
		if err := ix.Delete(id); err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
	}
	checkTopK(t, ix, "after deleting documents", topKQueries)
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
}

// TestPruning checks that a search with a limit reads a fraction of what an
// exhaustive one reads for common words.
func TestPruning(t *testing.T) {
	s := &countingStore{MemStore: NewMemStore()}
	ix, err := Open(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range syntheticDocs(5000) {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
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
				if got.Total != want.Total || !slices.EqualFunc(got.Hits, want.Hits, func(a, b Result) bool { return a.ID == b.ID && a.Score == b.Score }) {
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
