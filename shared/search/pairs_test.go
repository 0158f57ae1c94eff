package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// pairDocs are topKDocs(n) with some CJK text in every third document, so
// that bigrams become common too.
func pairDocs(n int) []Document {
	docs := topKDocs(n)
	for i := range docs {
		if i%3 == 0 {
			docs[i].Text += " 東京都の京都タワー。京都の東京タワー " + strings.Repeat("京都と東京 ", i%4)
		}
	}
	return docs
}

// pairQueries are topKQueries and phrases of CJK bigrams, and a lone CJK
// character, which matches the terms that begin with it (not pairs of them).
var pairQueries = append(slices.Clone(topKQueries), `"京都タワー"`, "東京都", "京", `"the museum of"`, `"to be or not to be"`, `"is was" -castle`)

// TestPairsSearchAsWithout checks that an index with pairs of common terms
// answers every query as one without does, the same hits with the same
// scores and totals, as documents are added in flushes, after it is opened
// again, and after documents and sessions are deleted (whose pairs go with
// them); with the text kept and without.
func TestPairsSearchAsWithout(t *testing.T) {
	docs := pairDocs(1500)
	noText := func(*Result) (string, error) { return "", nil }
	for _, mode := range []struct {
		name string
		opts Options
	}{{"stored text", Options{FlushDocs: 200}}, {"postings only", Options{FlushDocs: 200, Text: noText}}} {
		t.Run(mode.name, func(t *testing.T) {
			s := NewMemStore()
			with, err := Open(s, &mode.opts)
			if err != nil {
				t.Fatal(err)
			}
			opts := mode.opts
			opts.CommonTerms = -1
			without, err := Open(NewMemStore(), &opts)
			if err != nil {
				t.Fatal(err)
			}
			add := func(docs []Document) {
				for _, d := range docs {
					a, err := with.Add(d)
					if err != nil {
						t.Fatal(err)
					}
					b, err := without.Add(d)
					if err != nil || a != b {
						t.Fatalf("ids %d and %d: %v", a, b, err)
					}
				}
			}
			add(docs[:1000])
			compareSearches(t, "after 1,000 documents", with, without, pairQueries)
			if len(with.common) == 0 || len(with.common) > DefaultCommonTerms || len(without.common) != 0 {
				t.Fatalf("common terms: %d with pairs, %d without", len(with.common), len(without.common))
			}
			for term, since := range with.common {
				if since == 0 || since%200 != 0 {
					t.Errorf("common term %q since %d, not the first document of a flush", term, since)
				}
			}
			if _, since, ok := with.pairClauses(mustParse(t, `"is was"`).Clauses); !ok || since == 0 {
				t.Fatalf(`"is was" is not searched by its pair (since %d)`, since)
			}

			// Opened again, it reads its common terms, and goes on.
			if with, err = Open(s, &mode.opts); err != nil {
				t.Fatal(err)
			}
			add(docs[1000:])
			compareSearches(t, "opened again, after 1,500 documents", with, without, pairQueries)

			for _, ix := range []*Index{with, without} {
				if _, err := ix.DeleteSession("session-3"); err != nil {
					t.Fatal(err)
				}
				for id := DocID(1); id < 600; id += 7 {
					if err := ix.Delete(id); err != nil && !errors.Is(err, ErrNotFound) {
						t.Fatal(err)
					}
				}
			}
			compareSearches(t, "after deletes", with, without, pairQueries)
			checkSummaries(t, with, s)

			for i := range 20 {
				if _, err := with.DeleteSession(fmt.Sprintf("session-%d", i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Scan(keyTerm, func(key string, _ []byte) bool {
				t.Errorf("every document deleted, the index still has %q", key)
				return false
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func mustParse(t *testing.T, query string) Query {
	t.Helper()
	q, err := ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// compareSearches checks that a and b answer queries alike, exhaustively and
// with limits: the same hits with the same scores, and the same totals where
// neither is an estimate.
func compareSearches(t *testing.T, stage string, a, b *Index, queries []string) {
	t.Helper()
	for _, query := range queries {
		q := mustParse(t, query)
		for _, limit := range []int{0, 1, 20} {
			ra, err := a.Search(q, limit)
			if err != nil {
				t.Fatalf("%s: %q: %v", stage, query, err)
			}
			rb, err := b.Search(q, limit)
			if err != nil {
				t.Fatalf("%s: %q: %v", stage, query, err)
			}
			if !ra.Estimated && !rb.Estimated && ra.Total != rb.Total {
				t.Errorf("%s: %q limit %d: total %d with pairs, %d without", stage, query, limit, ra.Total, rb.Total)
			}
			if !slices.EqualFunc(ra.Hits, rb.Hits, func(x, y Result) bool { return x.ID == y.ID && x.Score == y.Score }) {
				t.Errorf("%s: %q limit %d: hits %v with pairs, %v without", stage, query, limit, ids(ra.Hits), ids(rb.Hits))
			}
		}
	}
}

// TestPairsReadLess checks that a phrase of common words reads less than
// half of what it reads without pairs (both read the rank table's blocks of
// its best matches).
func TestPairsReadLess(t *testing.T) {
	docs := syntheticDocs(5000)
	read := func(opts *Options) int {
		s := &countingStore{MemStore: NewMemStore()}
		ix := indexWith(t, s, opts, docs)
		s.bytes = 0
		if _, err := ix.Search(mustParse(t, `"is was"`), 20); err != nil {
			t.Fatal(err)
		}
		return s.bytes
	}
	if with, without := read(&Options{}), read(&Options{CommonTerms: -1}); 2*with > without {
		t.Errorf(`"is was": %d bytes read with pairs, %d without`, with, without)
	}
}

// TestDecodeCommon checks that the common terms decode as encoded, and that
// a corrupt value is an error.
func TestDecodeCommon(t *testing.T) {
	common := map[string]DocID{"the": 512, "of": 1024, "京都": 7}
	got, err := decodeCommon(encodeCommon(common))
	if err != nil || len(got) != len(common) {
		t.Fatalf("decoded %v, %v", got, err)
	}
	for term, since := range common {
		if got[term] != since {
			t.Errorf("%q: since %d, want %d", term, got[term], since)
		}
	}
	v := encodeCommon(common)
	for _, bad := range [][]byte{
		v[:len(v)-1], append(slices.Clone(v), 0), {0xff}, {1, 0, 0}, {1, 3, 'a', 1, 'b', 0},
		encodeCommon(map[string]DocID{"\xff": 1}), {1, 1, 'a', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	} {
		if _, err := decodeCommon(bad); !errors.Is(err, errCorrupt) {
			t.Errorf("%x: %v, want a corrupt value", bad, err)
		}
	}
}
