package search

import (
	"fmt"
	"math"
	"testing"
)

// Indexes searched apart with the sum of their Corpus score each document as
// one index of them all does; and Documents gives back what was added.
func TestCorpusAcrossIndexes(t *testing.T) {
	texts := []string{
		"the archive of the team", "a team holds pages", "Zürich pages archive", "version of the wiki",
		"wiki syntax and version", "the version page: version, version", "pages and pages", "nothing here",
	}
	one, _ := Open(NewMemStore(), nil)
	parts := []*Index{}
	for range 2 {
		ix, _ := Open(NewMemStore(), nil)
		parts = append(parts, ix)
	}
	for i, text := range texts {
		d := Document{URL: fmt.Sprintf("u%d", i), Title: fmt.Sprintf("t%d", i), Text: text}
		one.Add(d)
		parts[min(i/3, 1)].Add(d) // 3 and 5 documents
	}
	for _, qs := range []string{"version", "pages archive", `"the team"`, "vers*", "wiki -syntax"} {
		q, err := ParseQuery(qs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := one.Search(q, 0)
		if err != nil {
			t.Fatal(err)
		}
		scores := map[string]float64{}
		for _, h := range want.Hits {
			scores[h.URL] = h.Score
		}
		var corpus Corpus
		for _, ix := range parts {
			c, err := ix.Corpus(q)
			if err != nil {
				t.Fatal(err)
			}
			corpus.Add(c)
		}
		n := 0
		for _, ix := range parts {
			ix.opts.Corpus = &corpus
			got, err := ix.Search(q, 0)
			ix.opts.Corpus = nil
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range got.Hits {
				n++
				if w, ok := scores[h.URL]; !ok || math.Abs(w-h.Score) > 1e-9 {
					t.Errorf("%s: %s scores %g, one index %g (found %v)", qs, h.URL, h.Score, w, ok)
				}
			}
		}
		if n != want.Total {
			t.Errorf("%s: %d results apart, %d in one index", qs, n, want.Total)
		}
	}
	var urls []string
	if err := parts[1].Documents(func(_ DocID, d Document) bool { urls = append(urls, d.URL+" "+d.Text); return true }); err != nil {
		t.Fatal(err)
	}
	if len(urls) != 5 || urls[0] != "u3 "+texts[3] || urls[4] != "u7 "+texts[7] {
		t.Errorf("Documents: %q", urls)
	}
}
