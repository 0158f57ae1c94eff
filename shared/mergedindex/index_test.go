package mergedindex

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// memBlobs is Blobs in memory; failPut, when set, fails a PutBlob after reading
// that many bytes (a Worker killed mid-compaction).
type memBlobs struct {
	mu      sync.Mutex
	objects map[string][]byte
	reads   int
	failPut int
}

func (m *memBlobs) PutBlob(_ context.Context, key string, r io.Reader) error {
	m.mu.Lock()
	fail := m.failPut
	m.mu.Unlock()
	var b []byte
	var err error
	if fail > 0 {
		b, err = io.ReadAll(io.LimitReader(r, int64(fail)))
		if err == nil {
			err = errors.New("killed")
		}
		io.Copy(io.Discard, r)
	} else {
		b, err = io.ReadAll(r)
	}
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.objects == nil {
		m.objects = map[string][]byte{}
	}
	m.objects[key] = b
	return nil
}

func (m *memBlobs) GetBlob(_ context.Context, key string, off, n int64) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	b, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("no blob %s", key)
	}
	if off < 0 || off+n > int64(len(b)) {
		return nil, fmt.Errorf("range %d+%d outside %s (%d)", off, n, key, len(b))
	}
	return io.NopCloser(bytes.NewReader(b[off : off+n])), nil
}

func (m *memBlobs) DeleteBlobs(_ context.Context, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.objects, k)
	}
	return nil
}

// failingStores fails every store call after the first `after` calls (a Worker
// killed between two steps).
type failingStores struct {
	Stores
	mu    sync.Mutex
	after int
}

func (f *failingStores) Open(name string) Store { return failingStore{f, f.Stores.Open(name)} }

type failingStore struct {
	f *failingStores
	s Store
}

func (s failingStore) Do(ctx context.Context, b *Batch) (*Result, error) {
	s.f.mu.Lock()
	if s.f.after == 0 {
		s.f.mu.Unlock()
		return nil, errors.New("killed")
	}
	if s.f.after > 0 {
		s.f.after--
	}
	s.f.mu.Unlock()
	return s.s.Do(ctx, b)
}

var hosts = []string{"com,example)/", "org,wikipedia,en)/wiki/", "com,example,www)/a/", "net,site)/", "uk,co,news)/", "de,beispiel)/x/"}

// bundleLines makes n CDXJ lines of a browsing session.
func bundleLines(r *rand.Rand, n int) [][]byte {
	var out [][]byte
	for i := range n {
		h := hosts[r.IntN(len(hosts))]
		key := fmt.Sprintf("%s%d", h, r.IntN(40))
		if r.IntN(5) == 0 {
			key = fmt.Sprintf("__wb_method=post&x=%d", r.IntN(3))
			key = h + "api?" + key
		}
		ts := fmt.Sprintf("2026%02d%02d%06d", 1+r.IntN(12), 1+r.IntN(28), r.IntN(240000))
		out = append(out, fmt.Appendf(nil, `%s %s {"url": "https://x/%d", "status": "200", "offset": "%d", "length": "10", "filename": "s.warc.gz"}`, key, ts, i, i*10))
	}
	return out
}

// model is the brute-force truth: every live upload's tagged lines.
type model struct {
	uploads map[string]string   // bundle -> live upload
	lines   map[string][][]byte // upload -> its lines
}

func (m *model) expect(start, end string, reverse bool) []string {
	var out []string
	for b, u := range m.uploads {
		for _, l := range m.lines[u] {
			t, _ := Tag(l, b, u)
			s := string(t)
			if s >= start && (end == "" || s < end) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if reverse {
		slices.Reverse(out)
	}
	return out
}

func collectLines(t *testing.T, ix *Index, start, end string, reverse bool) []string {
	t.Helper()
	var got []string
	for l, err := range ix.Lines(context.Background(), start, end, reverse) {
		if err != nil {
			t.Fatalf("Lines(%q, %q, %v): %v", start, end, reverse, err)
		}
		got = append(got, string(l))
	}
	return got
}

func checkQueries(t *testing.T, ix *Index, m *model, r *rand.Rand, step string) {
	t.Helper()
	defer checkPages(t, ix, m, r, step)
	ranges := [][2]string{{"", ""}, {"com,example)/", "com,example)/~"}, {"com,example)/1 ", "com,example)/1!"}, {"m", "p"}, {"org", ""}, {"", "d"}}
	for range 4 {
		h := hosts[r.IntN(len(hosts))]
		a := fmt.Sprintf("%s%d", h, r.IntN(40))
		ranges = append(ranges, [2]string{a, a + "!"}, [2]string{a, h + "~"})
	}
	for _, rg := range ranges {
		for _, rev := range []bool{false, true} {
			want := m.expect(rg[0], rg[1], rev)
			got := collectLines(t, ix, rg[0], rg[1], rev)
			if !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				g, w := "(end)", "(end)"
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				t.Fatalf("%s: Lines(%q, %q, reverse %v): %d lines, want %d; line %d is\n%s\nwant\n%s", step, rg[0], rg[1], rev, len(got), len(want), i, g, w)
			}
		}
	}
}

func newTestIndex(stores Stores, blobs Blobs, due func(string)) *Index {
	return New(Config{Stores: stores, Blobs: blobs, LinesPerBlock: 7, DeltaLimit: 40, SplitLines: 150, Grace: time.Nanosecond, Due: due})
}

// inlineBudgets are the Config.InlineBytes the tests run with: no copies in the
// store, copies of the first blocks only (the rest from the blob), the default.
var inlineBudgets = []int{-1, 700, 0}

// TestAgainstBruteForce runs random uploads, replacements, removals and compactions
// (with splits) and checks every query against a brute-force merge.
func TestAgainstBruteForce(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			stores, blobs := &MemStores{}, &memBlobs{}
			due := map[string]bool{}
			ix := newTestIndex(stores, blobs, func(s string) { due[s] = true })
			ix.cfg.InlineBytes = cmp.Or(inlineBudgets[seed%3], DefaultInlineBytes)
			m := &model{uploads: map[string]string{}, lines: map[string][][]byte{}}
			ctx := context.Background()
			for step := range 120 {
				bundle := fmt.Sprintf("b%d", r.IntN(25))
				switch op := r.IntN(10); {
				case op < 6: // upload (a replacement when the bundle exists)
					upload := fmt.Sprintf("u%03d", step)
					lines := bundleLines(r, 1+r.IntN(30))
					if _, err := ix.Add(ctx, bundle, upload, lines); err != nil {
						t.Fatal(err)
					}
					if old, ok := m.uploads[bundle]; ok {
						if err := ix.Remove(ctx, bundle, old, m.lines[old]); err != nil {
							t.Fatal(err)
						}
					}
					m.uploads[bundle], m.lines[upload] = upload, lines
				case op < 8: // delete
					if old, ok := m.uploads[bundle]; ok {
						if err := ix.Remove(ctx, bundle, old, m.lines[old]); err != nil {
							t.Fatal(err)
						}
						delete(m.uploads, bundle)
					}
				default: // compact what is due, or a random shard
					names := stores.Names()
					for s := range due {
						names = append(names, s)
					}
					clear(due)
					for _, s := range names {
						if s == DirectoryName || strings.HasPrefix(s, "digests-") {
							continue
						}
						if _, err := ix.Compact(ctx, s); err != nil {
							t.Fatal(err)
						}
					}
				}
				checkQueries(t, ix, m, r, fmt.Sprintf("step %d", step))
			}
			if n := len(stores.Names()); n < 3 {
				t.Errorf("only %d stores: the shards were never split", n)
			}
		})
	}
}

// TestCompactionKilled kills compactions at every store call and at the blob write,
// and checks that queries stay exact and a later compaction loses nothing.
func TestCompactionKilled(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	ctx := context.Background()
	// A compaction here makes about 21 store calls (lease, snapshot, split, commits,
	// the delta's deletes, the directory, collection): each is killed in turn.
	const calls = 26
	for kill := 0; kill <= calls; kill++ {
		mem, blobs := &MemStores{}, &memBlobs{}
		fs := &failingStores{Stores: mem, after: -1}
		ix := newTestIndex(fs, blobs, nil)
		m := &model{uploads: map[string]string{}, lines: map[string][][]byte{}}
		for i := range 12 {
			b, u := fmt.Sprintf("b%d", i), fmt.Sprintf("u%d", i)
			m.uploads[b], m.lines[u] = u, bundleLines(r, 25)
			if _, err := ix.Add(ctx, b, u, m.lines[u]); err != nil {
				t.Fatal(err)
			}
			if i == 6 {
				if _, err := ix.Compact(ctx, RootShard); err != nil {
					t.Fatal(err)
				}
			}
		}
		ix.Remove(ctx, "b3", "u3", m.lines["u3"])
		delete(m.uploads, "b3")
		// Kill the compaction (which splits: 300 lines > 150) at store call `kill`,
		// or, for the last, in the middle of writing its blob.
		if kill == calls {
			blobs.failPut = 100
		} else {
			fs.after = kill
		}
		_, err := ix.Compact(ctx, RootShard)
		fs.after, blobs.failPut = -1, 0
		ix.releaseAll(t, mem)
		checkQueries(t, ix, m, r, fmt.Sprintf("killed at %d (%v)", kill, err))
		for _, s := range mem.Names() {
			if s != DirectoryName && !strings.HasPrefix(s, "digests-") {
				if _, err := ix.Compact(ctx, s); err != nil {
					t.Fatalf("kill %d: compacting %s again: %v", kill, s, err)
				}
			}
		}
		checkQueries(t, ix, m, r, fmt.Sprintf("killed at %d, then compacted", kill))
	}
}

// releaseAll drops every lease, as their expiry would.
func (ix *Index) releaseAll(t *testing.T, mem *MemStores) {
	for _, s := range mem.Names() {
		mem.Open(s).Do(context.Background(), &Batch{Ops: []Op{{Key: keyLease, Delete: true}}})
	}
}

// TestConcurrentUploads adds 50 uploads at once while compactions split shards.
func TestConcurrentUploads(t *testing.T) {
	ctx := context.Background()
	stores, blobs := &MemStores{}, &memBlobs{}
	ix := newTestIndex(stores, blobs, nil)
	m := &model{uploads: map[string]string{}, lines: map[string][][]byte{}}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		b := fmt.Sprintf("c%02d", i)
		m.uploads[b], m.lines[b+"u"] = b+"u", bundleLines(r, 20)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for b, u := range m.uploads {
		wg.Go(func() {
			if _, err := ix.Add(ctx, b, u, m.lines[u]); err != nil {
				errs <- err
			}
		})
	}
	wg.Go(func() {
		for range 30 {
			for _, s := range stores.Names() {
				if s != DirectoryName && !strings.HasPrefix(s, "digests-") {
					if _, err := ix.Compact(ctx, s); err != nil {
						errs <- err
					}
				}
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkQueries(t, ix, m, r, "after 50 concurrent uploads")
}

func TestTag(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`com,a)/ 20240101000000 {"url": "http://a/"}`, `com,a)/ 20240101000000 {"url": "http://a/", "source": "b", "upload": "u"}`},
		{`com,a)/ 20240101000000 {"url":"http://a/"}`, `com,a)/ 20240101000000 {"url":"http://a/","source":"b","upload":"u"}`},
		{`com,a)/ 20240101000000 {}`, `com,a)/ 20240101000000 {"source":"b","upload":"u"}`},
	} {
		got, err := Tag([]byte(tc.in), "b", "u")
		if err != nil || string(got) != tc.want {
			t.Errorf("Tag(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if u := lineUpload(string(got)); u != "u" {
			t.Errorf("lineUpload(%q) = %q", got, u)
		}
	}
	if _, err := Tag([]byte("not a line"), "b", "u"); !errors.Is(err, ErrLine) {
		t.Errorf("Tag of a bad line: %v", err)
	}
}

func TestHolders(t *testing.T) {
	ctx := context.Background()
	ix := newTestIndex(&MemStores{}, &memBlobs{}, nil)
	line := func(url, digest, mime, offset string) []byte {
		return fmt.Appendf(nil, `com,a)/%s 20240101000000 {"url": "http://a/%s", "mime": "%s", "status": "200", "digest": "%s", "length": "9", "offset": "%s", "filename": "f.warc.gz"}`, url, url, mime, digest, offset)
	}
	a := [][]byte{line("1", "AAAA", "image/png", "0"), line("2", "BBBB", "warc/revisit", "10")}
	b := [][]byte{line("3", "AAAA", "image/png", "0"), line("4", "CCCC", "text/html", "10")}
	if _, err := ix.Add(ctx, "a", "ua", a); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Add(ctx, "b", "ub", b); err != nil {
		t.Fatal(err)
	}
	got, err := ix.Holders(ctx, []string{"AAAA", "BBBB", "CCCC", "DDDD"})
	if err != nil {
		t.Fatal(err)
	}
	if got["AAAA"].Bundle != "a" || got["AAAA"].URL != "http://a/1" || got["CCCC"].Bundle != "b" || len(got) != 2 {
		t.Fatalf("Holders = %+v; want AAAA in a, CCCC in b, no revisit's BBBB", got)
	}
	if err := ix.Remove(ctx, "a", "ua", a); err != nil {
		t.Fatal(err)
	}
	got, _ = ix.Holders(ctx, []string{"AAAA"})
	if got["AAAA"].Bundle != "b" || got["AAAA"].URL != "http://a/3" {
		t.Fatalf("after removing a, Holders = %+v; want AAAA held by b", got)
	}
	ix.Remove(ctx, "b", "ub", b)
	if got, _ = ix.Holders(ctx, []string{"AAAA", "CCCC"}); len(got) != 0 {
		t.Fatalf("after removing both, Holders = %+v", got)
	}
}

// checkPages checks that the pages of a range give its lines exactly once.
func checkPages(t *testing.T, ix *Index, m *model, r *rand.Rand, step string) {
	t.Helper()
	for _, rg := range [][2]string{{"", ""}, {"com,example)/", "com,example)/~"}, {"n", ""}} {
		size := 1 + r.IntN(3)
		bounds, blocks, err := ix.PageBounds(context.Background(), rg[0], rg[1], size)
		if err != nil {
			t.Fatalf("%s: PageBounds: %v", step, err)
		}
		if want := max(1, (blocks+size-1)/size); len(bounds)-1 != want {
			t.Fatalf("%s: %d blocks in pages of %d: %d pages, want %d", step, blocks, size, len(bounds)-1, want)
		}
		var got []string
		for i := range len(bounds) - 1 {
			got = append(got, collectLines(t, ix, bounds[i], bounds[i+1], false)...)
		}
		if want := m.expect(rg[0], rg[1], false); !slices.Equal(got, want) {
			t.Fatalf("%s: the pages of [%q, %q) give %d lines, want %d", step, rg[0], rg[1], len(got), len(want))
		}
	}
}

func TestValidShard(t *testing.T) {
	for name, want := range map[string]bool{
		RootShard: true, "shard-0123456789abcdef": true, "shard-0123456789ABCDEF": false, "shard-1": false,
		"directory": false, "digests-03": false, "shard-0123456789abcdeg": false, "": false,
	} {
		if ValidShard(name) != want {
			t.Errorf("ValidShard(%q) = %v", name, !want)
		}
	}
	if _, err := New(Config{Stores: &MemStores{}, Blobs: &memBlobs{}}).Compact(context.Background(), "directory"); err == nil {
		t.Error("compacting the directory: no error")
	}
}

// sizedStores fails a store call whose operations pass limit bytes, as a Durable
// Object refuses an RPC over 32 MiB.
type sizedStores struct {
	Stores
	limit int
}

func (s *sizedStores) Open(name string) Store { return sizedStore{s.Stores.Open(name), s.limit} }

type sizedStore struct {
	s     Store
	limit int
}

func (s sizedStore) Do(ctx context.Context, b *Batch) (*Result, error) {
	n := 0
	for _, op := range b.Ops {
		n += len(op.Key) + len(op.Value)
	}
	if n > s.limit {
		return nil, fmt.Errorf("a store call of %d bytes, over the limit of %d", n, s.limit)
	}
	return s.s.Do(ctx, b)
}

// TestCompactionOfLargeDelta compacts a shard whose delta is larger than one store
// call may carry (a compaction fallen behind), with and without a split.
func TestCompactionOfLargeDelta(t *testing.T) {
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			ctx := context.Background()
			mem := &MemStores{}
			// The copies of the blocks a commit carries are bounded to fit the
			// call's limit, as the default's 8 MiB (11 base64) fit a Durable Object's 32.
			cfg := Config{Stores: &sizedStores{Stores: mem, limit: 120 << 10}, Blobs: &memBlobs{}, LinesPerBlock: 50, DeltaLimit: 1 << 20, SplitLines: 1 << 20, Grace: time.Nanosecond, InlineBytes: 32 << 10}
			if split {
				cfg.SplitLines = 1000
			}
			ix := New(cfg)
			m := &model{uploads: map[string]string{}, lines: map[string][][]byte{}}
			add := func(b string, n int) {
				u := "u-" + b
				m.uploads[b], m.lines[u] = u, bundleLines(r, n)
				if _, err := ix.Add(ctx, b, u, m.lines[u]); err != nil {
					t.Fatal(err)
				}
			}
			add("first", 300)
			if _, err := ix.Compact(ctx, RootShard); err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				add(fmt.Sprintf("b%d", i), 500) // 2,500 delta lines, about 400 KB
			}
			stats, err := ix.Compact(ctx, RootShard)
			if err != nil {
				t.Fatal(err)
			}
			if stats.Delta != 2500 || split != (stats.Split != "") {
				t.Errorf("compaction folded %d delta lines, split %q; want 2500, split %v", stats.Delta, stats.Split, split)
			}
			checkQueries(t, ix, m, r, "after the compaction")
			for _, s := range mem.Names() {
				if s == DirectoryName || strings.HasPrefix(s, "digests-") {
					continue
				}
				res, err := mem.Open(s).Do(ctx, &Batch{Scans: []Scan{{Start: prefixDelta, End: prefixEnd(prefixDelta), Count: true}}})
				if err != nil {
					t.Fatal(err)
				}
				if n := res.Scans[0].Count; n != 0 {
					t.Errorf("shard %s keeps %d delta lines after its compaction", s, n)
				}
			}
		})
	}
}

// TestLookupsReadNoBlob checks that a lookup in a compacted shard reads its first
// blocks from the copies the store keeps, in the store call it makes anyway, and
// the blob only for blocks past Config.InlineBytes or for the runs after the first.
func TestLookupsReadNoBlob(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 5))
	lines := bundleLines(r, 2000)
	// Blocks of 50 lines here are 1-2 KB: 8,000 bytes copy the first few.
	for _, budget := range []int{-1, 8000, 0} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			stores, blobs := &MemStores{}, &memBlobs{}
			ix := New(Config{Stores: stores, Blobs: blobs, LinesPerBlock: 50, Grace: time.Nanosecond, InlineBytes: budget})
			m := &model{uploads: map[string]string{"b": "u"}, lines: map[string][][]byte{"u": lines}}
			if _, err := ix.Add(ctx, "b", "u", lines); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Compact(ctx, RootShard); err != nil {
				t.Fatal(err)
			}
			all := m.expect("", "", false)
			// Each key's captures, looked up: the first line at or after the key.
			var withBlob, without int
			for i := 0; i < len(all); i += 37 {
				key, _, _ := strings.Cut(all[i], " ")
				before, calls := blobs.reads, stores.Calls
				var got string
				for l, err := range ix.Lines(ctx, key+" ", key+"!", false) {
					if err != nil {
						t.Fatal(err)
					}
					got = string(l)
					break
				}
				if want := m.expect(key+" ", key+"!", false)[0]; got != want {
					t.Fatalf("lookup of %q: %q, want %q", key, got, want)
				}
				if blobs.reads > before {
					withBlob++
				} else {
					without++
				}
				if n := stores.Calls - calls; n != 2 {
					t.Errorf("lookup of %q: %d store calls, want 2 (the directory, the shard)", key, n)
				}
			}
			switch {
			case budget < 0 && without > 0:
				t.Errorf("no copies kept, yet %d lookups read no blob", without)
			case budget == 0 && withBlob > 0:
				t.Errorf("every block copied (the default), yet %d of %d lookups read the blob", withBlob, withBlob+without)
			case budget > 0 && (withBlob == 0 || without == 0):
				t.Errorf("the first %d bytes copied: %d lookups read the blob, %d did not; want both", budget, withBlob, without)
			}
			// Reading further than the first run reads the blob, and every line.
			if got := collectLines(t, ix, "", "", false); !slices.Equal(got, all) {
				t.Errorf("a full scan read %d lines, want %d", len(got), len(all))
			}
			if got := collectLines(t, ix, "", "", true); len(got) != len(all) {
				t.Errorf("a full scan down read %d lines, want %d", len(got), len(all))
			}
		})
	}
}
