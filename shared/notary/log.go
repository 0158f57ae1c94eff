package notary

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/webkeep/webkeep/shared/mergedindex"
)

// StoreName is the name of the store, among the archive's mergedindex.Stores, that
// holds the log.
const StoreName = "notary"

// Keys of the store (see the package documentation).
const (
	keyTree      = "m/tree"
	prefixHash   = "h/"
	prefixLeaf   = "l/"
	prefixRecord = "r/"
	// prefixPending holds the leaves announced and not yet logged, under their
	// hash; prefixPendingEnd is the first key after them.
	prefixPending    = "q/"
	prefixPendingEnd = "q0"
)

// maxCombined bounds the leaves one append logs together.
const maxCombined = 64

// maxAttempts bounds the tries of one Append that loses to concurrent appends.
const maxAttempts = 200

// MaxLeaf bounds a leaf. Leaves are UTF-8 text: the store keeps strings.
const MaxLeaf = 64 << 10

// maxCache bounds the stored hashes a Log remembers.
const maxCache = 1 << 12

// Errors of a Log, usable with errors.Is.
var (
	// ErrRange is returned for an index or a tree size outside the log.
	ErrRange = errors.New("notary: outside the log")
	// ErrNotFound is returned for a leaf that is not in the log.
	ErrNotFound = errors.New("notary: not in the log")
	// ErrContention is returned by an Append that lost to concurrent appends
	// maxAttempts times.
	ErrContention = errors.New("notary: too many concurrent appends")
	// ErrCorrupt is returned when the store holds what no Log wrote.
	ErrCorrupt = errors.New("notary: the store is corrupt")
)

// A Log is the notary log over one store. Its methods may be called concurrently,
// also with other Logs over the same store (other Worker instances).
type Log struct {
	store  mergedindex.Store
	signer note.Signer // nil: unsigned
	vkey   string
	origin string

	mu    sync.Mutex
	known int64               // a tree size the log has reached (it never shrinks)
	cache map[int64]tlog.Hash // stored hashes learnt; they never change
}

// New returns the Log in store, signing its heads with the signer key skey (see
// ParseSignerKey); with skey "", heads are unsigned and their origin DefaultOrigin.
func New(store mergedindex.Store, skey string) (*Log, error) {
	l := &Log{store: store, origin: DefaultOrigin, cache: map[int64]tlog.Hash{}}
	if skey != "" {
		s, vkey, err := ParseSignerKey(skey)
		if err != nil {
			return nil, err
		}
		l.signer, l.vkey, l.origin = s, vkey, s.Name()
	}
	return l, nil
}

// Signed reports whether the Log signs its heads.
func (l *Log) Signed() bool { return l.signer != nil }

// VerifierKey returns the verifier key of the Log's heads, "" when unsigned.
func (l *Log) VerifierKey() string { return l.vkey }

// Origin returns the first line of the Log's heads.
func (l *Log) Origin() string { return l.origin }

// Append adds leaf to the log and returns its index and a tree it is in (its
// first tree, whose size is index+1, when this call wrote it; when the leaf was in
// the log already, or another append logged it with its own, the current tree).
//
// Concurrent appends combine: each first announces its leaf (q/), and whichever
// writes the tree next logs every leaf announced, its own first. An append that
// loses the race then mostly finds its leaf logged by the winner, so a burst of
// uploads costs a few rounds, not one a leaf.
func (l *Log) Append(ctx context.Context, leaf []byte) (int64, tlog.Tree, error) {
	if len(leaf) > MaxLeaf || !utf8.Valid(leaf) {
		return 0, tlog.Tree{}, fmt.Errorf("%w: a leaf is at most %d bytes of UTF-8", ErrLeaf, MaxLeaf)
	}
	rh := tlog.RecordHash(leaf)
	hexHash := hex.EncodeToString(rh[:])
	rkey, qkey := prefixRecord+hexHash, prefixPending+hexHash
	scans := []mergedindex.Scan{exact(keyTree), exact(rkey), {Start: prefixPending, End: prefixPendingEnd, Limit: maxCombined}}
	// Announce the leaf, unless it is logged; read the tree and what is pending.
	res, err := l.store.Do(ctx, &mergedindex.Batch{
		If:    []mergedindex.Cond{{Key: rkey, Absent: true}},
		Ops:   []mergedindex.Op{{Key: qkey, Value: string(leaf)}},
		Scans: scans,
	})
	if err != nil {
		return 0, tlog.Tree{}, fmt.Errorf("notary: reading the tree: %w", err)
	}
	for attempt := 1; ; attempt++ {
		st, idx, err := l.readState(res, rkey)
		if err != nil {
			return 0, tlog.Tree{}, err
		}
		if idx >= 0 {
			return idx, st.tree, nil // logged already, or by another append
		}
		leaves := pendingLeaves(res.Scans[2].Entries, qkey, leaf)
		b := &mergedindex.Batch{If: []mergedindex.Cond{st.cond(), {Key: rkey, Absent: true}}, Scans: scans}
		type step struct {
			before, after state
			stored        []tlog.Hash
		}
		var steps []step
		next := st
		for _, p := range leaves {
			after, stored, err := next.append(p.hash)
			if err != nil {
				return 0, tlog.Tree{}, err
			}
			n := next.tree.N
			base := tlog.StoredHashCount(n)
			for i, h := range stored {
				b.Ops = append(b.Ops, mergedindex.Op{Key: hashKey(base + int64(i)), Value: h.String()})
			}
			b.Ops = append(b.Ops,
				mergedindex.Op{Key: leafKey(n), Value: p.leaf},
				mergedindex.Op{Key: prefixRecord + p.hex, Value: strconv.FormatInt(n, 10)},
				mergedindex.Op{Key: prefixPending + p.hex, Delete: true},
			)
			steps = append(steps, step{next, after, stored})
			next = after
		}
		b.Ops = append(b.Ops, mergedindex.Op{Key: keyTree, Value: next.encode()})
		res, err = l.store.Do(ctx, b)
		if err != nil {
			// Applied or not: the store says which.
			if res, err2 := l.store.Do(context.WithoutCancel(ctx), &mergedindex.Batch{Scans: scans}); err2 == nil {
				if now, idx, err2 := l.readState(res, rkey); err2 == nil && idx >= 0 {
					return idx, now.tree, nil
				}
			}
			return 0, tlog.Tree{}, fmt.Errorf("notary: appending: %w", err)
		}
		if res.Applied {
			for _, s := range steps {
				l.learn(s.after.tree.N, s.before, s.after, s.stored)
			}
			// The leaf is the first of the batch: its first tree is the one after it.
			return st.tree.N, steps[0].after.tree, nil
		}
		if attempt >= maxAttempts {
			return 0, tlog.Tree{}, fmt.Errorf("%w: %d tries", ErrContention, attempt)
		}
		if attempt > 2 {
			// Another Log appended meanwhile; the answer holds its tree. Past a
			// few lost races, wait a little, at random, to let others through.
			d := time.Duration(rand.Int64N(int64(min(attempt, 20)) * int64(time.Millisecond)))
			select {
			case <-ctx.Done():
				return 0, tlog.Tree{}, ctx.Err()
			case <-time.After(d):
			}
		}
	}
}

// A pendingLeaf is a leaf announced for the log (q/), to be logged by whichever
// append writes the tree next.
type pendingLeaf struct {
	leaf string
	hash tlog.Hash
	hex  string
}

// pendingLeaves returns the leaves to log in one batch: own first, then the others
// announced, in key order, at most maxCombined in all. An entry that is no valid
// leaf (no Log writes one) is left where it is.
func pendingLeaves(entries []mergedindex.Entry, ownKey string, own []byte) []pendingLeaf {
	rh := tlog.RecordHash(own)
	out := []pendingLeaf{{leaf: string(own), hash: rh, hex: strings.TrimPrefix(ownKey, prefixPending)}}
	for _, e := range entries {
		if len(out) == maxCombined {
			break
		}
		if e.Key == ownKey || len(e.Value) > MaxLeaf || !utf8.ValidString(e.Value) {
			continue
		}
		h := tlog.RecordHash([]byte(e.Value))
		if hx := hex.EncodeToString(h[:]); prefixPending+hx == e.Key {
			out = append(out, pendingLeaf{leaf: e.Value, hash: h, hex: hx})
		}
	}
	return out
}

// readState reads a state and, when the leaf rkey is logged, its index (else -1)
// from the scans of an append's batch.
func (l *Log) readState(res *mergedindex.Result, rkey string) (state, int64, error) {
	if len(res.Scans) < 2 {
		return state{}, -1, fmt.Errorf("%w: the store answered %d scans, not the tree and the leaf's index", mergedindex.ErrStore, len(res.Scans))
	}
	st, err := stateFrom(res.Scans[0])
	if err != nil {
		return state{}, -1, err
	}
	l.saw(st.tree.N)
	if e := res.Scans[1].Entries; len(e) == 1 && e[0].Key == rkey {
		idx, err := strconv.ParseInt(e[0].Value, 10, 64)
		if err != nil || idx < 0 || idx >= st.tree.N {
			return state{}, -1, fmt.Errorf("%w: %s holds %.40q", ErrCorrupt, rkey, e[0].Value)
		}
		return st, idx, nil
	}
	return st, -1, nil
}

// Tree returns the current tree.
func (l *Log) Tree(ctx context.Context) (tlog.Tree, error) {
	res, err := l.store.Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{exact(keyTree)}})
	if err != nil {
		return tlog.Tree{}, fmt.Errorf("notary: reading the tree: %w", err)
	}
	if len(res.Scans) != 1 {
		return tlog.Tree{}, fmt.Errorf("%w: the store answered %d scans of 1", mergedindex.ErrStore, len(res.Scans))
	}
	st, err := stateFrom(res.Scans[0])
	if err != nil {
		return tlog.Tree{}, err
	}
	l.saw(st.tree.N)
	return st.tree, nil
}

// TreeAt returns the tree of the log's first n leaves (n at most the log's size).
func (l *Log) TreeAt(ctx context.Context, n int64) (tlog.Tree, error) {
	if n < 0 {
		return tlog.Tree{}, fmt.Errorf("%w: tree size %d", ErrRange, n)
	}
	if n == 0 {
		return tlog.Tree{N: 0, Hash: emptyHash()}, nil
	}
	r := l.reader(ctx, n)
	h, err := tlog.TreeHash(n, r)
	if err == nil {
		err = r.check()
	}
	if err != nil {
		return tlog.Tree{}, err
	}
	return tlog.Tree{N: n, Hash: h}, nil
}

// InclusionProof returns the proof that leaf index is in the tree of size treeSize
// (tlog.ProveRecord; check it with tlog.CheckRecord or VerifyInclusion).
func (l *Log) InclusionProof(ctx context.Context, index, treeSize int64) (tlog.RecordProof, error) {
	if index < 0 || index >= treeSize {
		return nil, fmt.Errorf("%w: index %d outside a tree of %d leaves", ErrRange, index, treeSize)
	}
	r := l.reader(ctx, treeSize)
	p, err := tlog.ProveRecord(treeSize, index, r)
	if err == nil {
		err = r.check()
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// ConsistencyProof returns the proof that the tree of size older is a prefix of
// the tree of size newer (tlog.ProveTree; check it with tlog.CheckTree or
// VerifyConsistency). Every tree is consistent with the empty tree: older 0 gives
// an empty proof.
func (l *Log) ConsistencyProof(ctx context.Context, older, newer int64) (tlog.TreeProof, error) {
	if older < 0 || older > newer {
		return nil, fmt.Errorf("%w: tree sizes %d and %d: want 0 <= old <= new", ErrRange, older, newer)
	}
	r := l.reader(ctx, newer)
	var p tlog.TreeProof
	var err error
	if older > 0 {
		p, err = tlog.ProveTree(newer, older, r)
	}
	if err == nil {
		err = r.check()
	}
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = tlog.TreeProof{}
	}
	return p, nil
}

// Leaf returns the leaf at index.
func (l *Log) Leaf(ctx context.Context, index int64) ([]byte, error) {
	if index < 0 {
		return nil, fmt.Errorf("%w: index %d", ErrRange, index)
	}
	res, err := l.store.Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{exact(leafKey(index))}})
	if err != nil {
		return nil, fmt.Errorf("notary: reading leaf %d: %w", index, err)
	}
	if len(res.Scans) != 1 || len(res.Scans[0].Entries) != 1 {
		return nil, fmt.Errorf("%w: no leaf %d", ErrNotFound, index)
	}
	return []byte(res.Scans[0].Entries[0].Value), nil
}

// Lookup returns the index of leaf, or ErrNotFound.
func (l *Log) Lookup(ctx context.Context, leaf []byte) (int64, error) {
	rh := tlog.RecordHash(leaf)
	rkey := prefixRecord + hex.EncodeToString(rh[:])
	res, err := l.store.Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{exact(keyTree), exact(rkey)}})
	if err != nil {
		return 0, fmt.Errorf("notary: looking up a leaf: %w", err)
	}
	_, idx, err := l.readState(res, rkey)
	if err != nil {
		return 0, err
	}
	if idx < 0 {
		return 0, fmt.Errorf("%w: no such leaf", ErrNotFound)
	}
	return idx, nil
}

// SignHead returns the head of tree: a signed note, or with no key its text alone.
func (l *Log) SignHead(tree tlog.Tree) ([]byte, error) {
	text := FormatHead(Head{Origin: l.origin, Tree: tree})
	if l.signer == nil {
		return text, nil
	}
	msg, err := note.Sign(&note.Note{Text: string(text)}, l.signer)
	if err != nil {
		return nil, fmt.Errorf("notary: signing the head: %w", err)
	}
	return msg, nil
}

// SignedHead returns the head of the current tree (see SignHead) and the tree.
func (l *Log) SignedHead(ctx context.Context) ([]byte, tlog.Tree, error) {
	t, err := l.Tree(ctx)
	if err != nil {
		return nil, tlog.Tree{}, err
	}
	msg, err := l.SignHead(t)
	return msg, t, err
}

// saw records that the log has reached size n.
func (l *Log) saw(n int64) {
	l.mu.Lock()
	l.known = max(l.known, n)
	l.mu.Unlock()
}

// learn keeps what an append computed: the hashes of the right edge of the tree
// before (st) and after it (next), and the leaf's stored hashes. They are what the
// proof of the leaf just appended and the next append read.
func (l *Log) learn(n int64, st, next state, stored []tlog.Hash) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.known = max(l.known, n)
	if len(l.cache) > maxCache {
		clear(l.cache)
	}
	for i, idx := range frontierIndexes(st.tree.N) {
		l.cache[idx] = st.frontier[i]
	}
	for i, idx := range frontierIndexes(next.tree.N) {
		l.cache[idx] = next.frontier[i]
	}
	base := tlog.StoredHashCount(st.tree.N)
	for i, h := range stored {
		l.cache[base+int64(i)] = h
	}
}

// A storeReader is a tlog.HashReader over the store for a tree of size need: what
// the Log knows it serves itself, the rest it reads in one batch, with the tree, to
// check that the log has need leaves.
type storeReader struct {
	ctx     context.Context
	l       *Log
	need    int64
	checked bool
}

func (l *Log) reader(ctx context.Context, need int64) *storeReader {
	return &storeReader{ctx: ctx, l: l, need: need}
}

// check makes sure the log has r.need leaves, asking the store if no read did.
func (r *storeReader) check() error {
	r.l.mu.Lock()
	known := r.l.known
	r.l.mu.Unlock()
	if r.checked || r.need <= known {
		return nil
	}
	t, err := r.l.Tree(r.ctx)
	if err != nil {
		return err
	}
	if t.N < r.need {
		return fmt.Errorf("%w: tree size %d, the log has %d leaves", ErrRange, r.need, t.N)
	}
	r.checked = true
	return nil
}

func (r *storeReader) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	var missing []int
	r.l.mu.Lock()
	for i, idx := range indexes {
		h, ok := r.l.cache[idx]
		if ok {
			out[i] = h
		} else {
			missing = append(missing, i)
		}
	}
	known := r.l.known
	r.l.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	b := &mergedindex.Batch{}
	if !r.checked && r.need > known {
		b.Scans = append(b.Scans, exact(keyTree))
	}
	first := len(b.Scans)
	for _, i := range missing {
		b.Scans = append(b.Scans, exact(hashKey(indexes[i])))
	}
	res, err := r.l.store.Do(r.ctx, b)
	if err != nil {
		return nil, fmt.Errorf("notary: reading hashes: %w", err)
	}
	if len(res.Scans) != len(b.Scans) {
		return nil, fmt.Errorf("%w: the store answered %d scans of %d", mergedindex.ErrStore, len(res.Scans), len(b.Scans))
	}
	if first == 1 {
		st, err := stateFrom(res.Scans[0])
		if err != nil {
			return nil, err
		}
		r.l.saw(st.tree.N)
		if st.tree.N < r.need {
			return nil, fmt.Errorf("%w: tree size %d, the log has %d leaves", ErrRange, r.need, st.tree.N)
		}
		r.checked = true
	}
	r.l.mu.Lock()
	defer r.l.mu.Unlock()
	for j, i := range missing {
		e := res.Scans[first+j].Entries
		if len(e) != 1 {
			return nil, fmt.Errorf("%w: stored hash %d is missing", ErrCorrupt, indexes[i])
		}
		h, ok := decodeHash(e[0].Value)
		if !ok {
			return nil, fmt.Errorf("%w: stored hash %d: %.60q", ErrCorrupt, indexes[i], e[0].Value)
		}
		out[i] = h
		if len(r.l.cache) < maxCache {
			r.l.cache[indexes[i]] = h
		}
	}
	return out, nil
}

// A state is the tree as m/tree holds it: its size and root hash, and the hashes of
// its complete subtrees along the right edge (one for each bit set in the size,
// the largest first), which are all an append needs.
type state struct {
	raw      string // as stored; "" for the empty log, which stores nothing
	tree     tlog.Tree
	frontier []tlog.Hash
}

func stateFrom(e mergedindex.Entries) (state, error) {
	if len(e.Entries) == 0 {
		return state{tree: tlog.Tree{Hash: emptyHash()}}, nil
	}
	st, err := parseState(e.Entries[0].Value)
	if err != nil {
		return state{}, fmt.Errorf("%w: %s: %v", ErrCorrupt, keyTree, err)
	}
	return st, nil
}

// encode returns what m/tree stores: the size, the root hash, and the frontier,
// one a line.
func (st state) encode() string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(st.tree.N, 10))
	b.WriteByte('\n')
	b.WriteString(st.tree.Hash.String())
	for _, h := range st.frontier {
		b.WriteByte('\n')
		b.WriteString(h.String())
	}
	return b.String()
}

// parseState reads what encode writes, and checks the root hash against the
// frontier.
func parseState(s string) (state, error) {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return state{}, errors.New("want the size, the root hash and the right edge")
	}
	n, err := strconv.ParseInt(lines[0], 10, 64)
	if err != nil || n < 1 || strconv.FormatInt(n, 10) != lines[0] {
		return state{}, fmt.Errorf("size %.40q", lines[0])
	}
	hashes := make([]tlog.Hash, len(lines)-1)
	for i, v := range lines[1:] {
		h, ok := decodeHash(v)
		if !ok {
			return state{}, fmt.Errorf("hash %.60q", v)
		}
		hashes[i] = h
	}
	st := state{raw: s, tree: tlog.Tree{N: n, Hash: hashes[0]}, frontier: hashes[1:]}
	if len(st.frontier) != bits.OnesCount64(uint64(n)) {
		return state{}, fmt.Errorf("%d hashes of the right edge for size %d, want %d", len(st.frontier), n, bits.OnesCount64(uint64(n)))
	}
	root, err := tlog.TreeHash(n, st.hashes())
	if err != nil || root != st.tree.Hash {
		return state{}, errors.New("the root hash is not the right edge's")
	}
	return st, nil
}

// cond is the condition that m/tree is still st.
func (st state) cond() mergedindex.Cond {
	if st.raw == "" {
		return mergedindex.Cond{Key: keyTree, Absent: true}
	}
	return mergedindex.Cond{Key: keyTree, Value: st.raw}
}

// hashes returns the frontier as a HashReader, by stored hash index.
func (st state) hashes() mapReader {
	m := mapReader{}
	for i, idx := range frontierIndexes(st.tree.N) {
		m[idx] = st.frontier[i]
	}
	return m
}

// append returns the state after appending the leaf of hash rh, and the leaf's
// stored hashes, computed from st alone.
func (st state) append(rh tlog.Hash) (state, []tlog.Hash, error) {
	n := st.tree.N
	m := st.hashes()
	stored, err := tlog.StoredHashesForRecordHash(n, rh, m)
	if err != nil {
		return state{}, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	base := tlog.StoredHashCount(n)
	for i, h := range stored {
		m[base+int64(i)] = h
	}
	root, err := tlog.TreeHash(n+1, m)
	if err != nil {
		return state{}, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	next := state{tree: tlog.Tree{N: n + 1, Hash: root}}
	for _, idx := range frontierIndexes(n + 1) {
		next.frontier = append(next.frontier, m[idx])
	}
	next.raw = next.encode()
	return next, stored, nil
}

// frontierIndexes returns the stored hash indexes of the complete subtrees that
// make up a tree of n leaves, the largest (leftmost) first.
func frontierIndexes(n int64) []int64 {
	var out []int64
	var start int64
	for level := 63; level >= 0; level-- {
		if n&(1<<level) != 0 {
			out = append(out, tlog.StoredHashIndex(level, start>>level))
			start += 1 << level
		}
	}
	return out
}

// A mapReader is a tlog.HashReader over a map.
type mapReader map[int64]tlog.Hash

func (m mapReader) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		h, ok := m[idx]
		if !ok {
			return nil, fmt.Errorf("stored hash %d not at hand", idx)
		}
		out[i] = h
	}
	return out, nil
}

func exact(key string) mergedindex.Scan {
	return mergedindex.Scan{Start: key, End: key + "\x00", Limit: 1}
}

func hashKey(idx int64) string { return fmt.Sprintf("%s%016x", prefixHash, idx) }
func leafKey(idx int64) string { return fmt.Sprintf("%s%016x", prefixLeaf, idx) }
