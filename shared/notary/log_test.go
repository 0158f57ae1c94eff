package notary

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/webkeep/webkeep/shared/mergedindex"
)

// mth is RFC 6962's Merkle Tree Hash, written out from section 2.1, to check tlog's
// and the Log's trees against something that shares no code with them.
func mth(leaves [][]byte) tlog.Hash {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return sha256.Sum256(append([]byte{0}, leaves[0]...))
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := mth(leaves[:k]), mth(leaves[k:])
	return sha256.Sum256(slices.Concat([]byte{1}, l[:], r[:]))
}

func testLeaf(i int) []byte {
	sum := sha256.Sum256(fmt.Appendf(nil, "bundle %d", i))
	return Leaf{Name: fmt.Sprintf("b%04d.zip", i), Upload: fmt.Sprintf("20240901T120000.000000000Z-%016x", i),
		SHA256: fmt.Sprintf("%x", sum), Size: int64(i * 1000)}.Bytes()
}

func newLog(t testing.TB, store mergedindex.Store) *Log {
	t.Helper()
	l, err := New(store, "")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestAppendAndProve appends 1,000 leaves one by one; after each append it checks the
// tree against RFC 6962's hash, the new leaf's inclusion proof and the consistency
// proof from a few older sizes with tlog.CheckRecord and tlog.CheckTree; at the sizes
// of the table it checks every leaf, also through a Log that knows nothing yet (every
// hash read from the store).
func TestAppendAndProve(t *testing.T) {
	ctx := context.Background()
	store := &mergedindex.MemStore{}
	l := newLog(t, store)
	full := map[int64]bool{1: true, 2: true, 3: true, 4: true, 5: true, 7: true, 8: true, 9: true, 15: true, 16: true, 17: true,
		31: true, 32: true, 33: true, 63: true, 64: true, 65: true, 127: true, 128: true, 129: true, 255: true, 256: true, 257: true,
		511: true, 512: true, 513: true, 999: true, 1000: true}
	var leaves [][]byte
	var trees []tlog.Tree // trees[n-1] is the tree of n leaves
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		leaf := testLeaf(i)
		leaves = append(leaves, leaf)
		idx, tree, err := l.Append(ctx, leaf)
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		n := int64(i + 1)
		if idx != int64(i) || tree.N != n {
			t.Fatalf("append %d: index %d, tree size %d", i, idx, tree.N)
		}
		if want := mth(leaves); tree.Hash != want {
			t.Fatalf("tree of %d leaves: hash %v, RFC 6962 says %v", n, tree.Hash, want)
		}
		trees = append(trees, tree)
		p, err := l.InclusionProof(ctx, idx, n)
		if err != nil {
			t.Fatalf("proof of %d in %d: %v", idx, n, err)
		}
		if err := tlog.CheckRecord(p, n, tree.Hash, idx, tlog.RecordHash(leaf)); err != nil {
			t.Fatalf("proof of %d in %d: %v", idx, n, err)
		}
		olds := []int64{1, n, (n + 1) / 2, 1 + rng.Int64N(n)}
		for _, old := range olds {
			p, err := l.ConsistencyProof(ctx, old, n)
			if err != nil {
				t.Fatalf("consistency %d-%d: %v", old, n, err)
			}
			if err := tlog.CheckTree(p, n, tree.Hash, old, trees[old-1].Hash); err != nil {
				t.Fatalf("consistency %d-%d: %v", old, n, err)
			}
		}
		if !full[n] {
			continue
		}
		fresh := newLog(t, store)
		for _, lg := range []*Log{l, fresh} {
			got, err := lg.TreeAt(ctx, n)
			if err != nil || got != tree {
				t.Fatalf("TreeAt(%d) = %v, %v; want %v", n, got, err, tree)
			}
			for j := range n {
				p, err := lg.InclusionProof(ctx, j, n)
				if err != nil {
					t.Fatalf("proof of %d in %d: %v", j, n, err)
				}
				if err := tlog.CheckRecord(p, n, tree.Hash, j, tlog.RecordHash(leaves[j])); err != nil {
					t.Fatalf("proof of %d in %d: %v", j, n, err)
				}
				if j+1 < n {
					// The proof of j does not hold for another leaf.
					if err := tlog.CheckRecord(p, n, tree.Hash, j, tlog.RecordHash(leaves[j+1])); err == nil {
						t.Fatalf("proof of %d in %d holds for leaf %d", j, n, j+1)
					}
				}
			}
			for old := int64(1); old <= n; old++ {
				p, err := lg.ConsistencyProof(ctx, old, n)
				if err != nil {
					t.Fatalf("consistency %d-%d: %v", old, n, err)
				}
				if err := tlog.CheckTree(p, n, tree.Hash, old, trees[old-1].Hash); err != nil {
					t.Fatalf("consistency %d-%d: %v", old, n, err)
				}
			}
		}
	}
	// Older trees, and the leaves, read back.
	for _, n := range []int64{1, 2, 100, 777, 1000} {
		got, err := newLog(t, store).TreeAt(ctx, n)
		if err != nil || got != trees[n-1] {
			t.Errorf("TreeAt(%d) = %v, %v; want %v", n, got, err, trees[n-1])
		}
		leaf, err := l.Leaf(ctx, n-1)
		if err != nil || string(leaf) != string(leaves[n-1]) {
			t.Errorf("Leaf(%d) = %q, %v", n-1, leaf, err)
		}
		idx, err := l.Lookup(ctx, leaves[n-1])
		if err != nil || idx != n-1 {
			t.Errorf("Lookup(leaf %d) = %d, %v", n-1, idx, err)
		}
	}
}

// TestAppendAgain: a leaf appended again is not logged twice; Append says where it is.
func TestAppendAgain(t *testing.T) {
	ctx := context.Background()
	l := newLog(t, &mergedindex.MemStore{})
	for i := range 5 {
		if _, _, err := l.Append(ctx, testLeaf(i)); err != nil {
			t.Fatal(err)
		}
	}
	idx, tree, err := l.Append(ctx, testLeaf(2))
	if err != nil || idx != 2 || tree.N != 5 {
		t.Fatalf("Append again = %d, %v, %v; want index 2 in the tree of 5", idx, tree, err)
	}
}

// TestErrors: what is outside the log, and leaves that cannot be stored.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	l := newLog(t, &mergedindex.MemStore{})
	for i := range 3 {
		if _, _, err := l.Append(ctx, testLeaf(i)); err != nil {
			t.Fatal(err)
		}
	}
	fresh := newLog(t, &mergedindex.MemStore{}) // empty
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"proof beyond the tree", func() error { _, err := l.InclusionProof(ctx, 3, 3); return err }(), ErrRange},
		{"proof in a tree larger than the log", func() error { _, err := l.InclusionProof(ctx, 0, 4); return err }(), ErrRange},
		{"proof in a larger tree, nothing known", func() error { _, err := newLog(t, l.store).InclusionProof(ctx, 0, 5); return err }(), ErrRange},
		{"proof of one leaf in an empty log", func() error { _, err := fresh.InclusionProof(ctx, 0, 1); return err }(), ErrRange},
		{"negative index", func() error { _, err := l.InclusionProof(ctx, -1, 3); return err }(), ErrRange},
		{"consistency old > new", func() error { _, err := l.ConsistencyProof(ctx, 3, 2); return err }(), ErrRange},
		{"consistency beyond the log", func() error { _, err := l.ConsistencyProof(ctx, 3, 9); return err }(), ErrRange},
		{"consistency of equal sizes beyond the log", func() error { _, err := fresh.ConsistencyProof(ctx, 2, 2); return err }(), ErrRange},
		{"tree beyond the log", func() error { _, err := l.TreeAt(ctx, 4); return err }(), ErrRange},
		{"leaf beyond the log", func() error { _, err := l.Leaf(ctx, 3); return err }(), ErrNotFound},
		{"unknown leaf", func() error { _, err := l.Lookup(ctx, testLeaf(9)); return err }(), ErrNotFound},
		{"leaf not UTF-8", func() error { _, _, err := l.Append(ctx, []byte{0xff}); return err }(), ErrLeaf},
		{"leaf too long", func() error { _, _, err := l.Append(ctx, make([]byte, MaxLeaf+1)); return err }(), ErrLeaf},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if p, err := l.ConsistencyProof(ctx, 0, 3); err != nil || len(p) != 0 {
		t.Errorf("consistency with the empty tree: %v, %v", p, err)
	}
	if tree, err := fresh.Tree(ctx); err != nil || tree.N != 0 || tree.Hash != mth(nil) {
		t.Errorf("empty log: %v, %v", tree, err)
	}
}

// TestConcurrentAppends: 50 appends at once, through 10 Logs over one store (as
// Worker instances over one Durable Object), each lands exactly once, and the tree
// is RFC 6962's of the leaves in their order.
func TestConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	store := &mergedindex.MemStore{}
	logs := make([]*Log, 10)
	for i := range logs {
		logs[i] = newLog(t, store)
	}
	const n = 50
	idx := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { idx[i], _, errs[i] = logs[i%len(logs)].Append(ctx, testLeaf(i)) })
	}
	wg.Wait()
	seen := map[int64]int{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		seen[idx[i]]++
	}
	tree, err := logs[0].Tree(ctx)
	if err != nil || tree.N != n || len(seen) != n {
		t.Fatalf("tree %v (%v); %d distinct indexes of %d", tree, err, len(seen), n)
	}
	stored := store.Dump(prefixLeaf)
	if len(stored) != n {
		t.Fatalf("%d leaves stored, want %d", len(stored), n)
	}
	if pending := store.Dump(prefixPending); len(pending) != 0 {
		t.Fatalf("%d leaves left announced and not logged", len(pending))
	}
	leaves := make([][]byte, n)
	count := map[string]int{}
	for i, e := range stored {
		leaves[i] = []byte(e.Value)
		count[e.Value]++
	}
	for i := range n {
		if c := count[string(testLeaf(i))]; c != 1 {
			t.Errorf("leaf %d stored %d times", i, c)
		}
		if got, _ := logs[0].Leaf(ctx, idx[i]); string(got) != string(testLeaf(i)) {
			t.Errorf("leaf %d: at its index %d is %q", i, idx[i], got)
		}
	}
	if tree.Hash != mth(leaves) {
		t.Fatalf("tree hash %v, RFC 6962 of the stored leaves %v", tree.Hash, mth(leaves))
	}
	for i := range n {
		p, err := logs[(i+1)%len(logs)].InclusionProof(ctx, idx[i], n)
		if err == nil {
			err = tlog.CheckRecord(p, n, tree.Hash, idx[i], tlog.RecordHash(testLeaf(i)))
		}
		if err != nil {
			t.Errorf("leaf %d: %v", i, err)
		}
	}
}

// flakyStore runs its calls by plan, one step a call, then normally: "ok", "fail"
// (not applied), "apply-fail" (applied, then failed) or "race" (another append
// first).
type flakyStore struct {
	mergedindex.Store
	mu    sync.Mutex
	plan  []string
	other func()
}

var errFlaky = fmt.Errorf("%w: flaky", mergedindex.ErrStore)

func (s *flakyStore) Do(ctx context.Context, b *mergedindex.Batch) (*mergedindex.Result, error) {
	s.mu.Lock()
	step := "ok"
	if len(s.plan) > 0 {
		step, s.plan = s.plan[0], s.plan[1:]
	}
	s.mu.Unlock()
	switch step {
	case "fail":
		return nil, errFlaky
	case "race":
		s.other()
	}
	res, err := s.Store.Do(ctx, b)
	if step == "apply-fail" {
		return nil, errFlaky
	}
	return res, err
}

// TestStoreFailures: a write that fails before it is applied is an error and
// appends nothing; one that fails after is found applied; the answer of a lost race
// is taken up. (An Append's calls: announce and read, write, and after a failed
// write a read.)
func TestStoreFailures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		plan      []string
		wantErr   bool
		wantIndex int64
		wantSize  int64
	}{
		{"read fails", []string{"fail"}, true, 0, 2},
		{"write fails", []string{"ok", "fail"}, true, 0, 2},
		{"write applied, then fails", []string{"ok", "apply-fail"}, false, 2, 3},
		{"write applied, then fails, and so does the look", []string{"ok", "apply-fail", "fail"}, true, 0, 3},
		// The other append logs the leaf announced with its own: it is found logged,
		// after the other's, with no second race.
		{"another append wins, logging it too", []string{"ok", "race", "race"}, false, 3, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := &mergedindex.MemStore{}
			setup := newLog(t, mem)
			for i := range 2 {
				if _, _, err := setup.Append(ctx, testLeaf(i)); err != nil {
					t.Fatal(err)
				}
			}
			k := 100
			fs := &flakyStore{Store: mem, plan: tc.plan, other: func() {
				k++
				if _, _, err := setup.Append(ctx, testLeaf(k)); err != nil {
					t.Error(err)
				}
			}}
			idx, tree, err := newLog(t, fs).Append(ctx, testLeaf(2))
			if (err != nil) != tc.wantErr {
				t.Fatalf("Append: %v", err)
			}
			if !tc.wantErr && (idx != tc.wantIndex || tree.N != tc.wantSize) {
				t.Errorf("Append = %d in %d, want %d in %d", idx, tree.N, tc.wantIndex, tc.wantSize)
			}
			now, err := newLog(t, mem).Tree(ctx)
			if err != nil || now.N != tc.wantSize {
				t.Errorf("the log has %d leaves (%v), want %d", now.N, err, tc.wantSize)
			}
			if tc.wantErr {
				// Nothing half written: appending again logs it once.
				if idx, tree, err := newLog(t, mem).Append(ctx, testLeaf(2)); err != nil || idx != 2 || tree.N != 3 {
					t.Errorf("append after the failure: %d in %d, %v", idx, tree.N, err)
				}
			}
		})
	}
}

// TestHeads: signed heads open with the verifier key and no other; unsigned heads
// are the checkpoint text alone.
func TestHeads(t *testing.T) {
	ctx := context.Background()
	skey, vkey, err := GenerateKey("archive.example/notary")
	if err != nil {
		t.Fatal(err)
	}
	_, otherV, _ := GenerateKey("archive.example/notary")
	_, otherName, _ := GenerateKey("elsewhere.example/notary")
	store := &mergedindex.MemStore{}
	l, err := New(store, skey)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Signed() || l.VerifierKey() != vkey || l.Origin() != "archive.example/notary" {
		t.Fatalf("signed %v, verifier %q (want %q), origin %q", l.Signed(), l.VerifierKey(), vkey, l.Origin())
	}
	for i := range 3 {
		l.Append(ctx, testLeaf(i))
	}
	msg, tree, err := l.SignedHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenHead(msg, vkey)
	if err != nil || h.Tree != tree || h.Origin != "archive.example/notary" {
		t.Fatalf("OpenHead = %v, %v; want %v", h, err, tree)
	}
	if !strings.HasPrefix(string(msg), "archive.example/notary\n3\n"+tree.Hash.String()+"\n\n— archive.example/notary ") {
		t.Errorf("head:\n%s", msg)
	}
	forged := strings.Replace(string(msg), "\n3\n", "\n4\n", 1)
	for _, tc := range []struct {
		name, msg, vkey string
	}{
		{"another key", string(msg), otherV},
		{"another name", string(msg), otherName},
		{"not a key", string(msg), "nonsense"},
		{"signer key", string(msg), skey},
		{"changed size", forged, vkey},
		{"no signature", string(FormatHead(h)), vkey},
	} {
		if _, err := OpenHead([]byte(tc.msg), tc.vkey); err == nil {
			t.Errorf("%s: OpenHead accepted it", tc.name)
		}
	}

	unsigned := newLog(t, store)
	msg, tree, err = unsigned.SignedHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := DefaultOrigin + "\n3\n" + tree.Hash.String() + "\n"; string(msg) != want || unsigned.Signed() || unsigned.VerifierKey() != "" {
		t.Errorf("unsigned head %q, want %q", msg, want)
	}
	if _, err := New(store, "PRIVATE+KEY+x+00000000+AAAA"); !errors.Is(err, ErrKey) {
		t.Errorf("a bad key: %v", err)
	}
}

// TestVerify checks VerifyInclusion and VerifyConsistency on heads of a log, a
// log with a leaf changed, and a forked log.
func TestVerify(t *testing.T) {
	ctx := context.Background()
	skey, vkey, _ := GenerateKey("team/notary")
	mk := func(leaves [][]byte) *Log {
		l, err := New(&mergedindex.MemStore{}, skey)
		if err != nil {
			t.Fatal(err)
		}
		for _, leaf := range leaves {
			if _, _, err := l.Append(ctx, leaf); err != nil {
				t.Fatal(err)
			}
		}
		return l
	}
	var leaves [][]byte
	for i := range 10 {
		leaves = append(leaves, testLeaf(i))
	}
	l := mk(leaves)
	head := func(l *Log, n int64) Head {
		tree, err := l.TreeAt(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := l.SignHead(tree)
		h, err := OpenHead(msg, vkey)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h10, h6 := head(l, 10), head(l, 6)
	p, _ := l.InclusionProof(ctx, 4, 10)
	changed := slices.Clone(leaves)
	changed[4] = testLeaf(99)
	forked := mk(changed)
	f10 := head(forked, 10)
	c, _ := l.ConsistencyProof(ctx, 6, 10)
	fc, _ := forked.ConsistencyProof(ctx, 6, 10)
	for _, tc := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"inclusion", VerifyInclusion(h10, leaves[4], 4, p), true},
		{"inclusion, another leaf", VerifyInclusion(h10, leaves[5], 4, p), false},
		{"inclusion, another index", VerifyInclusion(h10, leaves[4], 5, p), false},
		{"inclusion, index outside", VerifyInclusion(h10, leaves[4], 10, p), false},
		{"inclusion, another tree", VerifyInclusion(h6, leaves[4], 4, p), false},
		{"inclusion in the forked log", VerifyInclusion(f10, leaves[4], 4, p), false},
		{"consistency", VerifyConsistency(h6, h10, c), true},
		{"consistency, same head", VerifyConsistency(h10, h10, nil), true},
		{"consistency with the empty tree", VerifyConsistency(Head{Origin: h10.Origin, Tree: tlog.Tree{Hash: mth(nil)}}, h10, nil), true},
		{"consistency, swapped", VerifyConsistency(h10, h6, c), false},
		{"consistency with a forked head", VerifyConsistency(h6, f10, c), false},
		{"consistency with a forked head, its own proof", VerifyConsistency(h6, f10, fc), false},
		{"fork at the same size", VerifyConsistency(h10, f10, nil), false},
		{"heads of two logs", VerifyConsistency(h6, Head{Origin: "other", Tree: h10.Tree}, c), false},
	} {
		if (tc.err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, tc.err)
		}
		if tc.err != nil && !errors.Is(tc.err, ErrProof) {
			t.Errorf("%s: %v is not ErrProof", tc.name, tc.err)
		}
	}
}

// TestState: m/tree round trips, and what no Log wrote is refused.
func TestState(t *testing.T) {
	st := state{tree: tlog.Tree{Hash: mth(nil)}}
	for i := range 40 {
		next, _, err := st.append(tlog.RecordHash(testLeaf(i)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseState(next.encode())
		if err != nil || got.tree != next.tree || !slices.Equal(got.frontier, next.frontier) {
			t.Fatalf("size %d: %v, %v", i+1, got, err)
		}
		st = next
	}
	good := st.encode()
	lines := strings.Split(good, "\n")
	for _, tc := range []struct{ name, s string }{
		{"empty", ""},
		{"size only", "40"},
		{"size 0", "0\n" + mth(nil).String()},
		{"leading zero", "040" + good[2:]},
		{"missing edge hash", strings.Join(lines[:len(lines)-1], "\n")},
		{"extra edge hash", good + "\n" + lines[1]},
		{"wrong root", strings.Join(slices.Concat(lines[:1], lines[2:3], lines[2:]), "\n")},
		{"bad base64", strings.Replace(good, lines[1], "!!!", 1)},
	} {
		if _, err := parseState(tc.s); err == nil {
			t.Errorf("%s: parseState(%q) accepted it", tc.name, tc.s)
		}
	}
}

// TestAnnouncedLeafOfAnAppendThatStopped: an append that announced its leaf and
// stopped (its Worker killed) leaves it to the next append, which logs it with its
// own; no leaf announced is lost.
func TestAnnouncedLeafOfAnAppendThatStopped(t *testing.T) {
	ctx := context.Background()
	store := &mergedindex.MemStore{}
	fs := &flakyStore{Store: store, plan: []string{"ok", "fail"}}
	if _, _, err := newLog(t, fs).Append(ctx, testLeaf(1)); err == nil {
		t.Fatal("the write failed, and Append said nothing")
	}
	if len(store.Dump(prefixPending)) != 1 {
		t.Fatal("the leaf was not announced")
	}
	l := newLog(t, store)
	idx, tree, err := l.Append(ctx, testLeaf(2))
	if err != nil || idx != 0 || tree.N != 1 {
		t.Fatalf("Append = %d in %v, %v", idx, tree, err)
	}
	if now, _ := l.Tree(ctx); now.N != 2 {
		t.Fatalf("the log has %d leaves, want both", now.N)
	}
	if i, err := l.Lookup(ctx, testLeaf(1)); err != nil || i != 1 {
		t.Errorf("the stopped append's leaf: %d, %v", i, err)
	}
	if len(store.Dump(prefixPending)) != 0 {
		t.Error("a leaf is left announced")
	}
}
