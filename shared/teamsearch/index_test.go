package teamsearch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/search"
)

// memBlobs is Blobs in memory, counting reads.
type memBlobs struct {
	mu    sync.Mutex
	m     map[string][]byte
	reads int
}

func (m *memBlobs) PutBlob(_ context.Context, key string, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string][]byte{}
	}
	m.m[key] = b
	return nil
}

func (m *memBlobs) GetBlob(_ context.Context, key string, off, n int64) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	b, ok := m.m[key]
	if !ok {
		return nil, fmt.Errorf("no blob %s", key)
	}
	if off > int64(len(b)) {
		return nil, fmt.Errorf("blob %s: offset %d past %d", key, off, len(b))
	}
	return io.NopCloser(bytes.NewReader(b[off:min(off+n, int64(len(b)))])), nil
}

func (m *memBlobs) DeleteBlobs(_ context.Context, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.m, k)
	}
	return nil
}

func (m *memBlobs) keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// words is a vocabulary of pages: common words and rare ones.
var words = strings.Fields(`the archive of a team holds pages and bundles with text that people search
for words phrases Zürich naïve café 東京都 ümlaut records capture replay index merge segment
wiki syntax monospaced watercolour Gohr Andreas Laxström dziewoński`)

// page returns a page's text: words chosen by i, and a word of its own.
func page(i int) (title, text string) {
	var b strings.Builder
	seed := uint32(i*2654435761 + 1)
	for k := 0; k < 40+i%60; k++ {
		seed = seed*1103515245 + 12345
		b.WriteString(words[int(seed>>16)%len(words)])
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "unique%d", i)
	return fmt.Sprintf("Page %d", i), b.String()
}

func docsOf(bundle, upload string, from, n int) []search.Document {
	var docs []search.Document
	for i := from; i < from+n; i++ {
		title, text := page(i)
		docs = append(docs, search.Document{Session: bundle, URL: fmt.Sprintf("https://example.org/p/%d", i),
			Time: time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC), Method: "GET", Status: 200, Mime: "text/html",
			Ref: Ref{Upload: upload, File: bundle + ".warc.gz", Offset: int64(i)}.String(), Title: title, Text: text})
	}
	return docs
}

func TestRef(t *testing.T) {
	for _, r := range []Ref{{"u1", "a.warc.gz", 0}, {"20240101T000000.000000000Z-00", "dir/with space/x.warc", 123456789}} {
		got, err := ParseRef(r.String())
		if err != nil || got != r {
			t.Errorf("ParseRef(%q) = %+v, %v", r.String(), got, err)
		}
	}
	for _, s := range []string{"", "u", "u/x", "/1/f", "u/-1/f", "u/1"} {
		if _, err := ParseRef(s); err == nil {
			t.Errorf("ParseRef(%q) did not fail", s)
		}
	}
}

func TestTableRoundTrip(t *testing.T) {
	mem := search.NewMemStore()
	want := map[string]string{}
	for i := range 3000 {
		k := fmt.Sprintf("k/%05d", i)
		v := strings.Repeat(string(rune('a'+i%26)), i%50)
		mem.Put(k, []byte(v))
		want[k] = v
	}
	data, off, n, err := buildTable(mem)
	if err != nil {
		t.Fatal(err)
	}
	blobs := &memBlobs{}
	blobs.PutBlob(context.Background(), "t", bytes.NewReader(data))
	fo, fn, err := parseFooter(data[len(data)-footerBytes:], int64(len(data)))
	if err != nil || fo != off || fn != n {
		t.Fatalf("footer: %d %d %v, want %d %d", fo, fn, err, off, n)
	}
	var reads readCount
	tb, err := openTable(context.Background(), blobs, &segment{Blob: "t", IndexOff: off, IndexLen: n}, &reads)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.refs) < 2 {
		t.Fatalf("%d blocks: the test wants several", len(tb.refs))
	}
	for k, v := range want {
		got, err := tb.Get(k)
		if err != nil || string(got) != v {
			t.Fatalf("Get(%s) = %q, %v; want %q", k, got, err, v)
		}
	}
	if _, err := tb.Get("k/99999"); err != search.ErrNotFound {
		t.Errorf("a missing key: %v", err)
	}
	if _, err := tb.Get("a"); err != search.ErrNotFound {
		t.Errorf("a key before all: %v", err)
	}
	for _, prefix := range []string{"k/0", "k/012", "k/2999", "k/3", "z", ""} {
		var got []string
		tb.Scan(prefix, func(k string, _ []byte) bool { got = append(got, k); return true })
		var exp []string
		for k := range want {
			if strings.HasPrefix(k, prefix) {
				exp = append(exp, k)
			}
		}
		sort.Strings(exp)
		if !slices.Equal(got, exp) {
			t.Errorf("Scan(%q): %d keys, want %d", prefix, len(got), len(exp))
		}
	}
	if err := tb.Put("x", nil); err == nil {
		t.Error("a table took a Put")
	}
}

// brute is what the index should answer: one search.Index of every page kept.
func brute(t *testing.T, docs []search.Document, q search.Query) map[string]bool {
	t.Helper()
	ix, err := search.Open(search.NewMemStore(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, err := ix.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ix.Search(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, h := range res.Hits {
		out[h.Ref] = true
	}
	return out
}

func TestIndexAgreesWithOneIndex(t *testing.T) {
	ctx := context.Background()
	stores := &mergedindex.MemStores{}
	blobs := &memBlobs{}
	due := 0
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ix := New(Config{Stores: stores, Blobs: blobs, Fanout: 4, Purge: 2, Due: func(string) { due++ }, Now: func() time.Time { return now }})
	var live []search.Document
	uploads := map[string][]search.Document{}
	n := 0
	for b := range 40 {
		upload := fmt.Sprintf("up%03d", b)
		docs := docsOf(fmt.Sprintf("bundle-%d", b), upload, n, 5+b%7)
		n += len(docs)
		if _, err := ix.Add(ctx, upload, docs); err != nil {
			t.Fatal(err)
		}
		uploads[upload] = docs
		if b == 19 {
			if _, err := ix.Merge(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if due == 0 {
		t.Error("no merge was said due")
	}
	// Remove some uploads: some before a merge, some after.
	for _, u := range []string{"up003", "up017", "up038", "up039"} {
		if err := ix.Remove(ctx, "b", u); err != nil {
			t.Fatal(err)
		}
		delete(uploads, u)
	}
	if err := ix.Remove(ctx, "b", "never-indexed"); err != nil {
		t.Fatal(err)
	}
	for _, docs := range uploads {
		live = append(live, docs...)
	}
	check := func(stage string) {
		t.Helper()
		for _, qs := range []string{"zurich", `"team holds"`, "unique7", "monospaced -wiki", "東京", "naive cafe", "unique120", "site:example.org unique5"} {
			q, err := search.ParseQuery(qs)
			if err != nil {
				t.Fatal(err)
			}
			want := brute(t, live, q)
			res, err := ix.Search(ctx, q, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, h := range res.Hits {
				got[h.Ref.String()] = true
			}
			if res.Total != len(want) || len(got) != len(want) {
				t.Errorf("%s: %q: %d results, want %d", stage, qs, res.Total, len(want))
				continue
			}
			for r := range want {
				if !got[r] {
					t.Errorf("%s: %q: %s not found", stage, qs, r)
				}
			}
			// With a limit: the same total, that many of the same pages.
			res, err = ix.Search(ctx, q, 3)
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != len(want) || len(res.Hits) != min(3, len(want)) {
				t.Errorf("%s: %q, limit 3: %d results (%d returned), want %d", stage, qs, res.Total, len(res.Hits), len(want))
			}
			for _, h := range res.Hits {
				if !want[h.Ref.String()] {
					t.Errorf("%s: %q, limit 3: %s found", stage, qs, h.Ref)
				}
			}
		}
		// A word on one page finds it, first, with a snippet.
		q, _ := search.ParseQuery("unique42")
		res, err := ix.Search(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 1 || res.Hits[0].URL != "https://example.org/p/42" || !strings.Contains(res.Hits[0].Snippet, "«unique42»") {
			t.Errorf("%s: unique42: %+v", stage, res)
		}
	}
	check("before merging")
	segsBefore := len(ix.segments(t))
	now = now.Add(time.Hour)
	st, err := ix.Merge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Merges == 0 {
		t.Errorf("nothing merged: %+v", st)
	}
	segsAfter := len(ix.segments(t))
	if segsAfter >= segsBefore {
		t.Errorf("%d segments before the merge, %d after", segsBefore, segsAfter)
	}
	check("after merging")
	// Merging again with the removed uploads' pages dropped leaves no tombstones
	// behind for the uploads it folded.
	for range 5 {
		now = now.Add(time.Hour)
		if _, err := ix.Merge(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check("after merging again")
	if res, _ := ix.store().Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{{Start: prefixRemoved, End: prefixEnd(prefixRemoved), Count: true}}}); res.Scans[0].Count != 0 {
		t.Errorf("%d removed uploads left after merging every segment", res.Scans[0].Count)
	}
	// Replaced segments are deleted after their grace; the live ones remain.
	var listed []string
	for _, s := range ix.segments(t) {
		listed = append(listed, s.Blob)
	}
	sort.Strings(listed)
	if got := blobs.keys(); !slices.Equal(got, listed) {
		t.Errorf("blobs %v, listed segments %v", got, listed)
	}
}

func (ix *Index) segments(t testing.TB) []*segment {
	t.Helper()
	res, err := ix.store().Do(context.Background(), &mergedindex.Batch{Scans: []mergedindex.Scan{{Start: prefixSegment, End: prefixEnd(prefixSegment)}}})
	if err != nil {
		t.Fatal(err)
	}
	segs, err := parseSegments(res.Scans[0].Entries)
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// hookStores runs hook before the first batch that swaps merged segments.
type hookStores struct {
	mergedindex.Stores
	hook func()
}

func (h *hookStores) Open(name string) mergedindex.Store {
	return hookStore{h.Stores.Open(name), h}
}

type hookStore struct {
	mergedindex.Store
	h *hookStores
}

func (s hookStore) Do(ctx context.Context, b *mergedindex.Batch) (*mergedindex.Result, error) {
	if h := s.h.hook; h != nil && len(b.If) > 1 && b.If[0].Key == keyLease {
		s.h.hook = nil
		h()
	}
	return s.Store.Do(ctx, b)
}

// An upload removed while a merge reads it: the merge's swap is refused, its
// segment deleted, and the removed pages are not found.
func TestRemoveDuringMerge(t *testing.T) {
	ctx := context.Background()
	stores := &hookStores{Stores: &mergedindex.MemStores{}}
	blobs := &memBlobs{}
	ix := New(Config{Stores: stores, Blobs: blobs, Fanout: 4})
	for b := range 4 {
		if _, err := ix.Add(ctx, fmt.Sprintf("up%d", b), docsOf("b", fmt.Sprintf("up%d", b), b*3, 3)); err != nil {
			t.Fatal(err)
		}
	}
	stores.hook = func() {
		if err := ix.Remove(ctx, "b", "up0"); err != nil {
			t.Error(err)
		}
	}
	st, err := ix.Merge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Merges != 0 || stores.hook != nil {
		t.Errorf("merged %+v; the hook ran: %v", st, stores.hook == nil)
	}
	if segs := ix.segments(t); len(segs) != 3 || len(blobs.keys()) != 3 {
		t.Errorf("%d segments, blobs %v", len(segs), blobs.keys())
	}
	for i := range 12 {
		q, _ := search.ParseQuery(fmt.Sprintf("unique%d", i))
		res, err := ix.Search(ctx, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(1, i/3); res.Total != want {
			t.Errorf("unique%d: %d results, want %d", i, res.Total, want)
		}
	}
}

// A removed upload whose segment is not the one its mark names (a merge moved
// its pages as it was removed) is still dropped, from every segment.
func TestRemovedInAnotherSegment(t *testing.T) {
	ctx := context.Background()
	ix := New(Config{Stores: &mergedindex.MemStores{}, Blobs: &memBlobs{}})
	for b := range 3 {
		if _, err := ix.Add(ctx, fmt.Sprintf("up%d", b), docsOf("b", fmt.Sprintf("up%d", b), b*3, 3)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ix.store().Do(ctx, &mergedindex.Batch{Ops: []mergedindex.Op{{Key: prefixRemoved + "up1", Value: "gone"}}}); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 1, 20} {
		q, _ := search.ParseQuery("site:example.org")
		res, err := ix.Search(ctx, q, limit)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 6 {
			t.Errorf("limit %d: %d results, want the 6 of up0 and up2", limit, res.Total)
		}
		for _, h := range res.Hits {
			if h.Upload == "up1" {
				t.Errorf("limit %d: %s of a removed upload found", limit, h.URL)
			}
		}
	}
}

// Pages in several segments score as one index of them all scores them.
func TestScoresAsOneIndex(t *testing.T) {
	ctx := context.Background()
	ix := New(Config{Stores: &mergedindex.MemStores{}, Blobs: &memBlobs{}, Fanout: 3})
	var all []search.Document
	for b := range 7 {
		docs := docsOf("b", fmt.Sprintf("up%d", b), b*7, 7)
		all = append(all, docs...)
		if _, err := ix.Add(ctx, fmt.Sprintf("up%d", b), docs); err != nil {
			t.Fatal(err)
		}
		if b == 3 {
			if _, err := ix.Merge(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := len(ix.segments(t)); n < 2 {
		t.Fatalf("%d segments: the test wants several", n)
	}
	one, _ := search.Open(search.NewMemStore(), nil)
	for _, d := range all {
		one.Add(d)
	}
	for _, qs := range []string{"zurich", "team archive", `"holds pages"`, "東京", "naive -cafe", "wiki*"} {
		q, _ := search.ParseQuery(qs)
		want, err := one.Search(q, 0)
		if err != nil {
			t.Fatal(err)
		}
		scores := map[string]float64{}
		for _, h := range want.Hits {
			scores[h.Ref] = h.Score
		}
		got, err := ix.Search(ctx, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != want.Total || len(got.Hits) != len(want.Hits) {
			t.Fatalf("%s: %d results, one index %d", qs, got.Total, want.Total)
		}
		for i, h := range got.Hits {
			if w := scores[h.Ref.String()]; math.Abs(w-h.Score) > 1e-9 {
				t.Errorf("%s: %s scores %g, one index %g", qs, h.URL, h.Score, w)
			}
			if i > 0 && h.Score > got.Hits[i-1].Score {
				t.Errorf("%s: not ranked by score at %d", qs, i)
			}
		}
	}
}
