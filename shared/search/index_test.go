package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// corpus is the documents the search tests index, by name.
var corpus = []struct {
	name string
	doc  Document
}{
	{"zurich", Document{Session: "s1", URL: "https://www.zuerich.example/see", Method: "GET", Status: 200, Mime: "text/html",
		Time: date(2024, 3, 1), Title: "Der See", Text: "Zürich liegt am Zürichsee. Die Altstadt ist klein."}},
	{"tokyo", Document{Session: "s1", URL: "https://metro.tokyo.example/", Method: "GET", Status: 200, Mime: "text/html",
		Time: date(2024, 5, 1), Title: "東京都庁", Text: "東京都庁の展望室は無料です。"}},
	{"kyoto", Document{Session: "s2", URL: "https://kyoto.example/", Method: "GET", Status: 200, Mime: "text/html",
		Time: date(2023, 6, 1), Title: "京都", Text: "京都は古い都です。"}},
	{"ordered", Document{Session: "s2", URL: "https://a.example/ordered", Method: "GET", Status: 200, Mime: "text/plain",
		Time: date(2024, 1, 10), Text: "the quick brown fox jumps over the lazy dog"}},
	{"reversed", Document{Session: "s2", URL: "https://b.example/reversed", Method: "POST", Status: 404, Mime: "application/json",
		Time: date(2024, 1, 20), Text: "the brown quick fox sleeps; dog is lazy"}},
	{"titled", Document{Session: "s3", URL: "https://sub.c.example/titled", Method: "GET", Status: 200, Mime: "text/html",
		Time: date(2022, 1, 1), Title: "Gardening guide", Text: "A guide to gardening in small spaces, with tools and seeds."}},
	{"once", Document{Session: "s3", URL: "https://c.example/once", Method: "GET", Status: 500, Mime: "text/html",
		Time: date(2022, 2, 1), Title: "Tools", Text: "Hammers, saws and drills. Some people also enjoy gardening on weekends."}},
}

func date(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 12, 0, 0, 0, time.UTC) }

// newCorpus indexes the corpus and returns the index, its store and the names of
// the documents by id.
func newCorpus(t testing.TB, opts *Options) (*Index, *MemStore, map[DocID]string) {
	t.Helper()
	s := NewMemStore()
	ix, err := Open(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	names := map[DocID]string{}
	for _, c := range corpus {
		id, err := ix.Add(c.doc)
		if err != nil {
			t.Fatal(err)
		}
		names[id] = c.name
	}
	return ix, s, names
}

func hitNames(t *testing.T, ix *Index, names map[DocID]string, query string) ([]string, Results) {
	t.Helper()
	q, err := ParseQuery(query)
	if err != nil {
		t.Fatalf("ParseQuery(%q): %v", query, err)
	}
	res, err := ix.Search(q, 0)
	if err != nil {
		t.Fatalf("Search(%q): %v", query, err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, names[h.ID])
	}
	return got, res
}

func TestSearch(t *testing.T) {
	ix, _, names := newCorpus(t, nil)
	tests := []struct {
		query string
		want  []string // in rank order; sorted when unordered is set
		any   bool     // the order does not matter
	}{
		{"Zurich", []string{"zurich"}, false},
		{"ZÜRICH", []string{"zurich"}, false},
		{"zurichsee", []string{"zurich"}, false},
		{"東京都", []string{"tokyo"}, false},
		{`"東京都庁"`, []string{"tokyo"}, false},
		{"京都", []string{"kyoto", "tokyo"}, true}, // 東京都 holds 京都 too
		{"都", []string{"kyoto", "tokyo"}, true},  // a lone character by prefix
		{"都庁 -東京", nil, false},
		{`"quick brown"`, []string{"ordered"}, false},
		{`"brown quick"`, []string{"reversed"}, false},
		{"quick brown", []string{"ordered", "reversed"}, true},
		{"quick -jumps", []string{"reversed"}, false},
		{`fox -"lazy dog"`, []string{"reversed"}, false},
		{"fox site:a.example", []string{"ordered"}, false},
		{"site:c.example", []string{"once", "titled"}, true},
		{"fox status:404", []string{"reversed"}, false},
		{"status:2xx from:2024-01-15", []string{"tokyo", "zurich"}, true},
		{"status:2xx from:2024-01-15 to:2024-04", []string{"zurich"}, false},
		{"fox from:2024-01-15", []string{"reversed"}, false},
		{"fox to:2024-01-10", []string{"ordered"}, false},
		{"method:post", []string{"reversed"}, false},
		{"session:s3 -status:500", []string{"titled"}, false},
		{"type:text/", []string{"kyoto", "once", "ordered", "titled", "tokyo", "zurich"}, true},
		{"fox site:a.example site:b.example", []string{"ordered", "reversed"}, true},
		{"gardening", []string{"titled", "once"}, false},
		{"nothing-like-this", nil, false},
	}
	for _, tt := range tests {
		got, res := hitNames(t, ix, names, tt.query)
		if tt.any {
			slices.Sort(got)
		}
		if !slices.Equal(got, tt.want) || res.Total != len(tt.want) {
			t.Errorf("%s: %q (total %d), want %q", tt.query, got, res.Total, tt.want)
		}
	}
}

func TestSnippets(t *testing.T) {
	for _, mode := range []string{"stored", "callback"} {
		t.Run(mode, func(t *testing.T) {
			var opts *Options
			if mode == "callback" {
				opts = &Options{Text: func(r *Result) (string, error) {
					for _, c := range corpus {
						if c.doc.URL == r.URL {
							return c.doc.Text, nil
						}
					}
					return "", errors.New("no such document")
				}}
			}
			ix, s, names := newCorpus(t, opts)
			if mode == "callback" {
				s.Scan(keyText, func(key string, _ []byte) bool {
					t.Errorf("text stored under %q although Options.Text is set", key)
					return true
				})
			}
			for _, tt := range []struct{ query, snippet string }{
				{"zurich", "«Zürich» liegt am Zürichsee. Die Altstadt ist klein."},
				{"東京都", "«東京都»庁の展望室は無料です。"},
				{`"lazy dog"`, "the quick brown fox jumps over the «lazy» «dog»"},
				{"gardening seeds", "A guide to «gardening» in small spaces, with tools and «seeds»."},
			} {
				_, res := hitNames(t, ix, names, tt.query)
				if len(res.Hits) == 0 || res.Hits[0].Snippet != tt.snippet {
					t.Errorf("%s: %+v, want snippet %q", tt.query, res.Hits, tt.snippet)
				}
			}
		})
	}
	long := strings.Repeat("filler words here. ", 40) + "the needle is here" + strings.Repeat(" and more words after", 40)
	q, _ := ParseQuery("needle")
	got := Snippet(long, q.Clauses, 100)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "the «needle» is here") || len(got) > 130 {
		t.Errorf("long snippet %q", got)
	}
}

// TestRankTitle: a page with the word in its title and text ranks above one
// with it once in its text, and the result says its title and time.
func TestRankTitle(t *testing.T) {
	ix, _, names := newCorpus(t, nil)
	got, res := hitNames(t, ix, names, "gardening")
	if !slices.Equal(got, []string{"titled", "once"}) || !(res.Hits[0].Score > res.Hits[1].Score) {
		t.Fatalf("%q %+v", got, res.Hits)
	}
	h := res.Hits[0]
	if h.Title != "Gardening guide" || !h.Time.Equal(date(2022, 1, 1)) || h.Session != "s3" || h.Status != 200 {
		t.Errorf("hit %+v", h)
	}
}

// storeDump lists what the store holds, its postings decoded.
func storeDump(t *testing.T, s *MemStore) []string {
	t.Helper()
	var out []string
	s.Scan("", func(key string, value []byte) bool {
		if strings.HasPrefix(key, keyTerm) {
			var p postings
			if err := p.decodeBlock(value); err != nil {
				t.Fatalf("%q: %v", key, err)
			}
			out = append(out, fmt.Sprintf("%q %v", key, p.docs))
		} else {
			out = append(out, fmt.Sprintf("%q", key))
		}
		return true
	})
	return out
}

// TestDelete: deleting a document leaves nothing of it in the store, and the
// store as it was had the document never been added.
func TestDelete(t *testing.T) {
	ix, s, names := newCorpus(t, nil)
	var tokyo DocID
	for id, n := range names {
		if n == "tokyo" {
			tokyo = id
		}
	}
	if err := ix.Delete(tokyo); err != nil {
		t.Fatal(err)
	}
	k := docKey(tokyo)
	for _, line := range storeDump(t, s) {
		if strings.Contains(line, k) || strings.Contains(line, fmt.Sprintf(" %d]", tokyo)) || strings.Contains(line, fmt.Sprintf("[%d ", tokyo)) || strings.Contains(line, fmt.Sprintf(" %d ", tokyo)) || strings.Contains(line, fmt.Sprintf("[%d]", tokyo)) || strings.Contains(line, "都庁") {
			t.Errorf("after delete the store holds %s", line)
		}
	}
	if got, _ := hitNames(t, ix, names, "東京都"); len(got) != 0 {
		t.Errorf("deleted document found: %q", got)
	}
	if got, _ := hitNames(t, ix, names, "京都"); !slices.Equal(got, []string{"kyoto"}) {
		t.Errorf("京都: %q", got)
	}
	if err := ix.Delete(tokyo); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}

	// Compare with an index that never had it: the same keys, the same lists.
	s2 := NewMemStore()
	ix2, _ := Open(s2, nil)
	for _, c := range corpus {
		if c.name == "tokyo" {
			ix2.meta.next++ // keep the ids the same
			continue
		}
		if _, err := ix2.Add(c.doc); err != nil {
			t.Fatal(err)
		}
	}
	ix2.Flush()
	if a, b := storeDump(t, s), storeDump(t, s2); !slices.Equal(a, b) {
		t.Errorf("store after delete:\n%s\nnever added:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if ix.Len() != len(corpus)-1 || ix.meta.length != ix2.meta.length {
		t.Errorf("meta %+v, want %+v", ix.meta, ix2.meta)
	}
}

func TestDeleteSession(t *testing.T) {
	ix, s, names := newCorpus(t, nil)
	n, err := ix.DeleteSession("s2")
	if err != nil || n != 3 {
		t.Fatalf("DeleteSession: %d, %v", n, err)
	}
	for _, line := range storeDump(t, s) {
		for _, w := range []string{"quick", "fox", "s/s2"} {
			if strings.Contains(line, w) {
				t.Errorf("after deleting session s2 the store holds %s", line)
			}
		}
	}
	if got, _ := hitNames(t, ix, names, "都"); !slices.Equal(got, []string{"tokyo"}) {
		t.Errorf("都: %q", got)
	}
	if got, _ := hitNames(t, ix, names, "session:s2"); len(got) != 0 {
		t.Errorf("session:s2: %q", got)
	}
	if ix.Len() != len(corpus)-3 {
		t.Errorf("Len %d", ix.Len())
	}
}

// TestBlocks: posting lists longer than a block are split into sealed blocks
// and a tail, searched whole, and deletes rewrite the block that holds a
// document; a reopened index goes on from where it was.
func TestBlocks(t *testing.T) {
	s := NewMemStore()
	ix, _ := Open(s, &Options{FlushDocs: 7, StoredText: -1})
	var ids []DocID
	for i := range 1000 {
		id, err := ix.Add(Document{Session: fmt.Sprint("s", i%3), URL: fmt.Sprintf("https://e.example/%d", i), Time: date(2024, 1, 1).Add(time.Duration(i) * time.Hour),
			Text: fmt.Sprintf("common word%d even%d", i, i%2)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	ix.Flush()
	blocks := 0
	s.Scan(termKey("common"), func(string, []byte) bool { blocks++; return true })
	if blocks < 2 {
		t.Errorf("common has %d blocks", blocks)
	}
	for _, id := range ids[100:200] {
		if err := ix.Delete(id); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := Open(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ParseQuery("common")
	res, err := ix.Search(q, 5)
	if err != nil || res.Total != 900 || len(res.Hits) != 5 {
		t.Fatalf("%d hits, %v", res.Total, err)
	}
	q, _ = ParseQuery("even0 session:s1")
	if res, _ := ix.Search(q, 0); res.Total != 149 { // i = 4 mod 6, but for the 17 deleted
		t.Errorf("even0 session:s1: %d", res.Total)
	}
	id, _ := ix.Add(Document{Text: "common"})
	if id != ids[len(ids)-1]+1 {
		t.Errorf("reopened index gave id %d", id)
	}
}

// TestRankTable: the rank table gives a search the numbers the records hold: an
// index without it (written before it had one) finds and ranks the same.
func TestRankTable(t *testing.T) {
	ix, s, names := newCorpus(t, nil)
	old, oldStore, _ := newCorpus(t, nil)
	if err := old.Flush(); err != nil {
		t.Fatal(err)
	}
	var ranks []string
	oldStore.Scan(keyRank, func(key string, _ []byte) bool { ranks = append(ranks, key); return true })
	if len(ranks) != 1 {
		t.Fatalf("rank blocks %q, want one", ranks)
	}
	for _, k := range ranks {
		oldStore.Delete(k)
	}
	for _, query := range []string{"fox", "the", "gardening", "京都", "status:2xx from:2024-01-15", "fox -jumps", "type:text/ status:200"} {
		got, res := hitNames(t, ix, names, query)
		want, oldRes := hitNames(t, old, names, query)
		if !slices.Equal(got, want) || res.Total != oldRes.Total {
			t.Errorf("%s: %q with the rank table, %q without", query, got, want)
		}
		for i := range res.Hits {
			if res.Hits[i].Score != oldRes.Hits[i].Score {
				t.Errorf("%s: %s scores %v with the rank table, %v without", query, got[i], res.Hits[i].Score, oldRes.Hits[i].Score)
			}
		}
	}
	// A deleted document is absent from the table: the search skips it.
	for id, n := range names {
		if n == "ordered" {
			if err := ix.Delete(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, _ := hitNames(t, ix, names, "fox"); !slices.Equal(got, []string{"reversed"}) {
		t.Errorf("fox after deleting ordered: %q", got)
	}
	if v, _ := s.Get(ranks[0]); len(v) != len(corpus)*rankEntrySize {
		t.Errorf("rank block of %d bytes, want %d", len(v), len(corpus)*rankEntrySize)
	}
}

// TestFlushReadsInFewCalls checks that a flush reads the tail blocks and
// summaries of its terms in a few calls of the store, not one a term.
func TestFlushReadsInFewCalls(t *testing.T) {
	s := &countingStore{MemStore: NewMemStore()}
	ix, err := Open(s, &Options{FlushDocs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	docs := syntheticDocs(600)
	for _, d := range docs[:300] {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	// The second flush appends to tails, and seals some.
	for _, d := range docs[300:] {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	terms := len(ix.pending)
	s.calls, s.keys = 0, 0
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	if s.calls > 4 || s.keys < terms {
		t.Errorf("a flush of %d terms: %d calls of the store for %d keys", terms, s.calls, s.keys)
	}
}
