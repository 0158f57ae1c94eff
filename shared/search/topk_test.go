package search

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestTopK checks that a search's first limit results are the first limit of
// the exhaustive ranking (limit 0), in the same order with the same scores,
// over a corpus of Zipf-distributed words, as it grows in commits of 200
// documents and after whole sessions and single documents are deleted.
func TestTopK(t *testing.T) {
	docs := syntheticDocs(1200)
	ix, err := Open(NewMemStore(), &Options{FlushDocs: 200})
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{
		"the", "museum", "museum castle", `"the archive"`, "the -museum",
		"rare3", "the site:site7.example", "castle status:200",
	}
	check := func(stage string) {
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
			for _, limit := range []int{1, 5, 20, 1000} {
				got, err := ix.Search(q, limit)
				if err != nil {
					t.Fatalf("%s: %q limit %d: %v", stage, query, limit, err)
				}
				want := all.Hits[:min(limit, len(all.Hits))]
				if got.Total != all.Total {
					t.Errorf("%s: %q limit %d: total %d, want %d", stage, query, limit, got.Total, all.Total)
				}
				if !slices.EqualFunc(got.Hits, want, func(a, b Result) bool { return a.ID == b.ID && a.Score == b.Score }) {
					t.Errorf("%s: %q limit %d: hits %v, want %v", stage, query, limit, ids(got.Hits), ids(want))
				}
			}
		}
	}
	for i, d := range docs {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
		if (i+1)%400 == 0 {
			check(fmt.Sprintf("after %d documents", i+1))
		}
	}
	if _, err := ix.DeleteSession("session-3"); err != nil {
		t.Fatal(err)
	}
	check("after deleting a session")
	for id := DocID(1); id < 300; id += 7 {
		if err := ix.Delete(id); err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
	}
	check("after deleting documents")
}

func ids(hits []Result) []DocID {
	var out []DocID
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}
