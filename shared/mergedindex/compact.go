package mergedindex

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/zipnum"
)

// pendingBlobTime is how long a blob written by a compaction that never committed
// is kept before it is collected.
const pendingBlobTime = time.Hour

// CompactStats says what one compaction did.
type CompactStats struct {
	Shard   string  `json:"shard"`
	Skipped string  `json:"skipped,omitempty"` // why nothing was done
	Lines   int     `json:"lines"`             // lines of the new main index (both halves of a split)
	Blocks  int     `json:"blocks"`
	Bytes   int64   `json:"bytes"`           // compressed bytes of the new main index
	Delta   int     `json:"delta"`           // delta lines folded in
	Removed int     `json:"removed"`         // lines of removed uploads dropped
	Split   string  `json:"split,omitempty"` // the shard split off, with the key it starts at
	Garbage int     `json:"garbage"`         // blobs collected
	Seconds float64 `json:"seconds"`         // how long it took
}

// A snapshot is a shard's state, read under a guard that it did not change.
type snapshot struct {
	rng     *shardRange
	st      *shardState
	summary []Entry
	delta   []string // delta lines
	tombs   []Entry
}

// Compact merges a shard's delta into its main index and drops the lines of removed
// uploads: it writes new ZipNum blocks to a new blob, then replaces the summary and
// the removals it folded in with one atomic store call, and deletes the delta lines it
// folded in (dropDelta). A compaction
// stopped at any point leaves the shard answering as before (its new blob is
// collected later); queries under way go on reading the old blocks, which are kept
// for Config.Grace. A shard grown past Config.SplitLines is split in two.
func (ix *Index) Compact(ctx context.Context, shard string) (*CompactStats, error) {
	stats := &CompactStats{Shard: shard}
	if !ValidShard(shard) {
		return stats, fmt.Errorf("mergedindex: %.100q is not a shard's name", shard)
	}
	began := ix.cfg.Now()
	defer func() { stats.Seconds = ix.cfg.Now().Sub(began).Seconds() }()
	lease, err := ix.takeLease(ctx, shard)
	if err != nil || lease == "" {
		if err == nil {
			stats.Skipped = "another compaction of this shard is under way"
		}
		return stats, err
	}
	defer ix.releaseLease(shard, lease)

	snap, err := ix.snapshot(ctx, shard)
	if err != nil {
		return stats, err
	}
	if snap.rng.Pending != "" {
		ix.cfg.Due(snap.rng.Pending)
		stats.Skipped = "being split off " + snap.rng.Pending + ": compacting that shard completes the split"
		return stats, nil
	}
	// A split under way (this shard's upper part frozen into a pending child), or
	// one to start.
	child, childRng, err := ix.pendingChild(ctx, shard, snap.rng)
	if err != nil {
		return stats, err
	}
	if child == "" && snap.st.Lines+len(snap.delta) > ix.cfg.SplitLines {
		if child, childRng, err = ix.startSplit(ctx, shard, snap); err != nil {
			return stats, err
		}
		if child != "" {
			if snap, err = ix.snapshot(ctx, shard); err != nil {
				return stats, err
			}
		}
	}
	if child == "" && len(snap.delta) == 0 && len(snap.tombs) == 0 {
		stats.Skipped = "nothing to fold in"
		stats.Garbage, err = ix.collect(ctx, shard)
		return stats, err
	}

	// The lines this shard keeps: [Lo, Hi), and, for a split, the child's [K, its Hi).
	hi := snap.rng.Hi
	if child != "" {
		hi = childRng.Hi
	}
	removed := map[string]bool{}
	for _, t := range snap.tombs {
		removed[strings.TrimPrefix(t.Key, prefixTomb)] = true
	}
	lines, closeLines, err := ix.mergedLines(ctx, snap, removed, &stats.Removed)
	if err != nil {
		return stats, err
	}
	defer closeLines()
	now := ix.cfg.Now()
	gen := snap.st.Gen + 1
	own, err := ix.writeMain(ctx, shard, gen, lines, snap.rng.Lo, snap.rng.Hi)
	if err != nil {
		return stats, err
	}
	var kid *builtMain
	if child != "" {
		if kid, err = ix.writeMain(ctx, child, 1, lines, childRng.Lo, hi); err != nil {
			return stats, err
		}
		// The child's main index first: until its range drops Pending, readers
		// still read this shard for it, and after, this shard's copy is ignored.
		b := &Batch{If: []Cond{childRng.cond(), {Key: keyState, Absent: true}}}
		b.Ops = kid.ops(nil)
		done := *childRng
		done.Pending = ""
		b.Ops = append(b.Ops, Op{Key: keyRange, Value: done.encode()})
		res, err := ix.cfg.Stores.Open(child).Do(ctx, b)
		if err != nil {
			return stats, fmt.Errorf("mergedindex: completing the split of %s into %s: %w", shard, child, err)
		}
		if !res.Applied {
			return stats, fmt.Errorf("mergedindex: completing the split of %s into %s: %s changed meanwhile", shard, child, child)
		}
	}
	b := &Batch{If: []Cond{snap.rng.cond(), snap.st.cond(), {Key: keyLease, Value: lease}}}
	b.Ops = own.ops(snap.summary)
	if snap.st.Blob != "" {
		b.Ops = append(b.Ops, Op{Key: prefixGarbage + snap.st.Blob, Value: stamp(now.Add(ix.cfg.Grace))})
	}
	for _, t := range snap.tombs {
		b.Ops = append(b.Ops, Op{Key: t.Key, Delete: true})
	}
	res, err := ix.cfg.Stores.Open(shard).Do(ctx, b)
	if err != nil {
		return stats, fmt.Errorf("mergedindex: committing the compaction of %s: %w", shard, err)
	}
	if !res.Applied {
		return stats, fmt.Errorf("mergedindex: committing the compaction of %s: the shard changed meanwhile (its lease lost?)", shard)
	}
	if err := ix.dropDelta(ctx, shard, snap.delta); err != nil {
		return stats, err
	}
	stats.Lines, stats.Blocks, stats.Bytes, stats.Delta = own.lines, len(own.blocks), own.size, len(snap.delta)
	if kid != nil {
		stats.Lines += kid.lines
		stats.Blocks += len(kid.blocks)
		stats.Bytes += kid.size
		stats.Split = child + " from " + childRng.Lo
		if _, err := ix.cfg.Stores.Open(DirectoryName).Do(ctx, &Batch{Ops: []Op{{Key: prefixRoute + childRng.Lo, Value: child}}}); err != nil {
			return stats, fmt.Errorf("mergedindex: adding %s to the directory: %w", child, err)
		}
	}
	stats.Garbage, err = ix.collect(ctx, shard)
	return stats, err
}

// dropDelta deletes the delta lines a committed compaction folded into the main
// index, opsPerBatch at a time. Not in the commit's own store call: a Durable Object
// takes at most 32 MiB in one, and a shard's delta can outgrow that (93,000 lines,
// 36 MB, once compaction had fallen behind, which then failed at every try). A line
// left by a compaction stopped here is in the main index too: queries and the next
// compaction read it once (merge, lineSource), and the next compaction deletes it.
func (ix *Index) dropDelta(ctx context.Context, shard string, delta []string) error {
	for len(delta) > 0 {
		n := min(len(delta), opsPerBatch)
		b := &Batch{Ops: make([]Op, n)}
		for i, l := range delta[:n] {
			b.Ops[i] = Op{Key: prefixDelta + l, Delete: true}
		}
		if _, err := ix.cfg.Stores.Open(shard).Do(ctx, b); err != nil {
			return fmt.Errorf("mergedindex: deleting the delta lines compacted into the new blocks of %s (they are read once meanwhile; the next compaction deletes them): %w", shard, err)
		}
		delta = delta[n:]
	}
	return nil
}

// ValidShard reports whether name is a shard's: the root, or one split off it
// ("shard-" and 16 hexadecimal digits).
func ValidShard(name string) bool {
	hexPart, ok := strings.CutPrefix(name, "shard-")
	if name == RootShard {
		return true
	}
	if !ok || len(hexPart) != 16 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

func stamp(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

func (ix *Index) takeLease(ctx context.Context, shard string) (string, error) {
	res, err := ix.read(ctx, shard, Scan{Start: keyLease, End: keyLease + "\x00"})
	if err != nil {
		return "", err
	}
	now := ix.cfg.Now()
	cond := Cond{Key: keyLease, Absent: true}
	if e := res.Scans[0].Entries; len(e) > 0 {
		until, _, _ := strings.Cut(e[0].Value, " ")
		if n, err := strconv.ParseInt(until, 10, 64); err == nil && n > now.UnixNano() {
			return "", nil
		}
		cond = Cond{Key: keyLease, Value: e[0].Value}
	}
	mine := stamp(now.Add(ix.cfg.LeaseTime)) + " " + randomHex()
	res, err = ix.cfg.Stores.Open(shard).Do(ctx, &Batch{If: []Cond{cond}, Ops: []Op{{Key: keyLease, Value: mine}}})
	if err != nil {
		return "", fmt.Errorf("mergedindex: taking the compaction lease of %s: %w", shard, err)
	}
	if !res.Applied {
		return "", nil
	}
	return mine, nil
}

func (ix *Index) releaseLease(shard, lease string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ix.cfg.Stores.Open(shard).Do(ctx, &Batch{If: []Cond{{Key: keyLease, Value: lease}}, Ops: []Op{{Key: keyLease, Delete: true}}})
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// snapshot reads a shard's range, state, summary, delta and removals, page by page,
// each page guarded by the range and state of the first.
func (ix *Index) snapshot(ctx context.Context, shard string) (*snapshot, error) {
	rng, st, _, err := ix.readHead(ctx, shard)
	if err != nil {
		return nil, err
	}
	s := &snapshot{rng: rng, st: st}
	guard := []Cond{s.rng.cond(), s.st.cond()}
	all := func(prefix string) ([]Entry, error) {
		var out []Entry
		start := prefix
		for {
			res, err := ix.cfg.Stores.Open(shard).Do(ctx, &Batch{If: guard, Scans: []Scan{{Start: start, End: prefixEnd(prefix), Limit: 1000}}})
			if err != nil {
				return nil, fmt.Errorf("mergedindex: reading shard %s: %w", shard, err)
			}
			if !res.Applied {
				return nil, fmt.Errorf("mergedindex: shard %s changed while it was read for compaction", shard)
			}
			e := res.Scans[0].Entries
			out = append(out, e...)
			if len(e) < 1000 {
				return out, nil
			}
			start = e[len(e)-1].Key + "\x00"
		}
	}
	if s.summary, err = all(prefixSummary); err != nil {
		return nil, err
	}
	delta, err := all(prefixDelta)
	if err != nil {
		return nil, err
	}
	for _, e := range delta {
		s.delta = append(s.delta, strings.TrimPrefix(e.Key, prefixDelta))
	}
	if s.tombs, err = all(prefixTomb); err != nil {
		return nil, err
	}
	return s, nil
}

// pendingChild returns the shard after this one when it is a split of this one
// still pending (a compaction stopped between the two steps of a split).
func (ix *Index) pendingChild(ctx context.Context, shard string, rng *shardRange) (string, *shardRange, error) {
	if rng.Next == "" {
		return "", nil, nil
	}
	res, err := ix.read(ctx, rng.Next, Scan{Start: keyRange, End: keyRange + "\x00"})
	if err != nil {
		return "", nil, err
	}
	next, err := parseRange(rng.Next, res.Scans[0].Entries)
	if err != nil || next.Pending != shard {
		return "", nil, err
	}
	return rng.Next, next, nil
}

// startSplit splits a shard's key range at the first key of its middle block: a new
// shard takes the upper part, pending (readers read both) until the compaction
// writes its main index.
func (ix *Index) startSplit(ctx context.Context, shard string, snap *snapshot) (string, *shardRange, error) {
	if len(snap.summary) < 2 {
		return "", nil, nil
	}
	mid, err := parseBlock(shard, snap.summary[len(snap.summary)/2])
	if err != nil {
		return "", nil, err
	}
	at, _, _ := strings.Cut(mid.first, " ") // a URL's captures stay in one shard
	if at <= snap.rng.Lo || snap.rng.Hi != "" && at >= snap.rng.Hi {
		return "", nil, nil
	}
	child := "shard-" + randomHex()
	kid := &shardRange{Lo: at, Hi: snap.rng.Hi, Next: snap.rng.Next, Pending: shard}
	res, err := ix.cfg.Stores.Open(child).Do(ctx, &Batch{If: []Cond{{Key: keyRange, Absent: true}}, Ops: []Op{{Key: keyRange, Value: kid.encode()}}})
	if err != nil {
		return "", nil, fmt.Errorf("mergedindex: creating shard %s: %w", child, err)
	}
	if !res.Applied {
		return "", nil, fmt.Errorf("mergedindex: creating shard %s: it exists", child)
	}
	kid.raw, kid.exists = kid.encode(), true
	// From here on, writes of keys from at on go to the child.
	own := shardRange{Lo: snap.rng.Lo, Hi: at, Next: child}
	res, err = ix.cfg.Stores.Open(shard).Do(ctx, &Batch{If: []Cond{snap.rng.cond()}, Ops: []Op{{Key: keyRange, Value: own.encode()}}})
	if err != nil {
		return "", nil, fmt.Errorf("mergedindex: splitting shard %s: %w", shard, err)
	}
	if !res.Applied {
		return "", nil, fmt.Errorf("mergedindex: splitting shard %s: its range changed meanwhile", shard)
	}
	return child, kid, nil
}

// mergedLines returns a reader of a snapshot's lines in order, without removed
// uploads: its main index merged with its delta.
func (ix *Index) mergedLines(ctx context.Context, snap *snapshot, removed map[string]bool, dropped *int) (*lineSource, func(), error) {
	src := &lineSource{delta: snap.delta, removed: removed, dropped: dropped}
	closer := func() {}
	if snap.st.Blob != "" && snap.st.Size > 0 {
		rc, err := ix.cfg.Blobs.GetBlob(ctx, snap.st.Blob, 0, snap.st.Size)
		if err != nil {
			return nil, nil, fmt.Errorf("mergedindex: reading %s: %w", snap.st.Blob, err)
		}
		src.main, src.blob = zipnum.NewBlockReader(bufio.NewReaderSize(rc, 256<<10)), snap.st.Blob
		closer = func() { rc.Close() }
	}
	return src, closer, nil
}

// A lineSource merges a main index (read through) with a sorted delta.
type lineSource struct {
	main    *zipnum.BlockReader
	blob    string
	mainBuf string
	hasMain bool
	delta   []string
	removed map[string]bool
	dropped *int
	last    string
	started bool
	pending string // a line read past the range of the writer before
	hasPend bool
}

// next returns the next line, or io.EOF.
func (s *lineSource) next() (string, error) {
	for {
		if !s.hasMain && s.main != nil {
			line, err := s.main.ReadLine()
			switch {
			case err == io.EOF:
				s.main = nil
			case err != nil:
				return "", fmt.Errorf("mergedindex: reading %s: %w", s.blob, err)
			default:
				s.mainBuf, s.hasMain = string(line), true
			}
		}
		var line string
		switch {
		case s.hasMain && (len(s.delta) == 0 || s.mainBuf <= s.delta[0]):
			line, s.hasMain = s.mainBuf, false
		case len(s.delta) > 0:
			line, s.delta = s.delta[0], s.delta[1:]
		default:
			return "", io.EOF
		}
		if s.started && line == s.last {
			continue
		}
		s.started, s.last = true, line
		if len(s.removed) > 0 && s.removed[lineUpload(line)] {
			*s.dropped++
			continue
		}
		return line, nil
	}
}

// A builtMain is a main index written: its blob and blocks, and the blob's first
// bytes (up to Config.InlineBytes), kept for the store.
type builtMain struct {
	blob   string
	size   int64
	lines  int
	blocks []zipnum.BlockInfo
	gen    int
	inline prefixBuffer
}

// A prefixBuffer keeps the first max bytes written to it and drops the rest.
type prefixBuffer struct {
	max int
	b   []byte
}

func (p *prefixBuffer) Write(b []byte) (int, error) {
	if room := p.max - len(p.b); room > 0 {
		p.b = append(p.b, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// ops returns the store operations that make it a shard's main index in place of
// the summary entries old.
func (m *builtMain) ops(old []Entry) []Op {
	var ops []Op
	for _, e := range old {
		ops = append(ops, Op{Key: e.Key, Delete: true}, Op{Key: inlineKey(e.Key), Delete: true})
	}
	if m.lines == 0 {
		return append(ops, Op{Key: keyState, Value: fmt.Sprintf(`{"gen":%d}`, m.gen)})
	}
	for i, b := range m.blocks {
		key := summaryKey(b.FirstKey, i)
		ops = append(ops, Op{Key: key, Value: block{offset: b.Offset, length: b.Length, lines: b.Lines}.value()})
		if end := b.Offset + b.Length; end <= int64(len(m.inline.b)) {
			ops = append(ops, Op{Key: inlineKey(key), Value: base64.StdEncoding.EncodeToString(m.inline.b[b.Offset:end])})
		}
	}
	st := shardState{Gen: m.gen, Blob: m.blob, Size: m.size, Blocks: len(m.blocks), Lines: m.lines}
	b := st.encode()
	ops = append(ops, Op{Key: prefixGarbage + m.blob, Delete: true})
	return append(ops, Op{Key: keyState, Value: b})
}

// writeMain writes the lines of src in [lo, hi) as ZipNum blocks to a new blob of
// shard, marked in the shard's store as garbage until a commit makes it live.
func (ix *Index) writeMain(ctx context.Context, shard string, gen int, src *lineSource, lo, hi string) (*builtMain, error) {
	m := &builtMain{gen: gen, blob: fmt.Sprintf("zipnum/%s/%08d-%s.cdxj.gz", shard, gen, randomHex()), inline: prefixBuffer{max: ix.cfg.InlineBytes}}
	// Lines below lo are strays of an earlier split: dropped.
	first, ok, err := src.peekFrom(lo, hi)
	if err != nil {
		return nil, err
	}
	if !ok {
		return m, nil
	}
	res, err := ix.cfg.Stores.Open(shard).Do(ctx, &Batch{Ops: []Op{{Key: prefixGarbage + m.blob, Value: stamp(ix.cfg.Now().Add(pendingBlobTime))}}})
	if err != nil || !res.Applied {
		return nil, fmt.Errorf("mergedindex: shard %s: marking %s: %v", shard, m.blob, err)
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := ix.cfg.Blobs.PutBlob(ctx, m.blob, pr)
		pr.CloseWithError(err)
		done <- err
	}()
	zw := zipnum.NewWriter(io.MultiWriter(pw, &m.inline), ix.cfg.LinesPerBlock)
	werr := zw.WriteLine([]byte(first))
	m.lines++
	for werr == nil {
		line, ok, err := src.peekFrom(lo, hi)
		if err != nil {
			werr = err
			break
		}
		if !ok {
			break
		}
		werr = zw.WriteLine([]byte(line))
		m.lines++
	}
	if werr == nil {
		werr = zw.Close()
	}
	pw.CloseWithError(werr)
	if err := <-done; err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return nil, fmt.Errorf("mergedindex: shard %s: writing %s: %w", shard, m.blob, werr)
	}
	m.blocks = zw.Blocks()
	if n := len(m.blocks); n > 0 {
		m.size = m.blocks[n-1].Offset + m.blocks[n-1].Length
	}
	return m, nil
}

// peekFrom returns the next line below hi, skipping lines below lo; a line at or
// past hi is kept for the next writer.
func (s *lineSource) peekFrom(lo, hi string) (string, bool, error) {
	for {
		if !s.hasPend {
			line, err := s.next()
			if err == io.EOF {
				return "", false, nil
			}
			if err != nil {
				return "", false, err
			}
			s.pending, s.hasPend = line, true
		}
		if hi != "" && s.pending >= hi {
			return "", false, nil
		}
		s.hasPend = false
		if s.pending >= lo {
			return s.pending, true, nil
		}
	}
}

// collect deletes the blobs whose time as garbage has come.
func (ix *Index) collect(ctx context.Context, shard string) (int, error) {
	res, err := ix.read(ctx, shard, Scan{Start: prefixGarbage, End: prefixEnd(prefixGarbage), Limit: 100})
	if err != nil {
		return 0, err
	}
	now := ix.cfg.Now().UnixNano()
	var blobs []string
	var ops []Op
	for _, e := range res.Scans[0].Entries {
		if n, err := strconv.ParseInt(e.Value, 10, 64); err == nil && n <= now {
			blobs = append(blobs, strings.TrimPrefix(e.Key, prefixGarbage))
			ops = append(ops, Op{Key: e.Key, Delete: true})
		}
	}
	if len(blobs) == 0 {
		return 0, nil
	}
	if err := ix.cfg.Blobs.DeleteBlobs(ctx, blobs...); err != nil {
		return 0, fmt.Errorf("mergedindex: shard %s: collecting old blocks: %w", shard, err)
	}
	if _, err := ix.cfg.Stores.Open(shard).Do(ctx, &Batch{Ops: ops}); err != nil {
		return 0, fmt.Errorf("mergedindex: shard %s: collecting old blocks: %w", shard, err)
	}
	return len(blobs), nil
}
