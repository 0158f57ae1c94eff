package mergedindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webkeep/webkeep/internal/pyfmt"
	"github.com/webkeep/webkeep/shared/cdx"
)

// Defaults of Config.
const (
	DefaultLinesPerBlock = 250
	DefaultDeltaLimit    = 5000
	DefaultSplitLines    = 250000
	DefaultGrace         = 10 * time.Minute
	DefaultLeaseTime     = 15 * time.Minute
	DefaultInlineBytes   = 8 << 20
	// opsPerBatch bounds the operations of one store call.
	opsPerBatch = 500
	// maxFollow bounds how many shards a write follows before giving up.
	maxFollow = 64
)

// ErrLine is returned (wrapped with the line) for a line that cannot be indexed.
var ErrLine = errors.New("mergedindex: not an index line")

// Config configures an Index.
type Config struct {
	Stores Stores // the shards' and the directory's stores; required
	Blobs  Blobs  // where compaction writes the main index's blocks; required
	// LinesPerBlock is the number of lines of a ZipNum block of the main index.
	LinesPerBlock int
	// DeltaLimit is the number of delta lines and removals past which a shard is
	// due for compaction.
	DeltaLimit int
	// SplitLines is the number of lines past which compaction splits a shard in two.
	SplitLines int
	// Grace is how long the blocks a compaction replaced are kept for queries that
	// started before it.
	Grace time.Duration
	// InlineBytes bounds the bytes of a shard's main index that its store keeps
	// too, block by block from the first (8 MiB when 0, none when negative): a
	// lookup in them reads its first blocks with the summary, in the store call it
	// makes anyway, and no blob, so that it costs what a lookup in a shard not yet
	// compacted costs. One compaction's commit carries them, base64 (4/3 of the
	// size): keep it well under what one store call may carry (a Durable Object
	// takes 32 MiB).
	InlineBytes int
	// LeaseTime bounds a compaction: past it, another may take the shard over (a
	// compaction whose Worker was killed holds its shard until then).
	LeaseTime time.Duration
	// Due, when set, is told of a shard that is due for compaction (the Worker
	// queues it, waiting for the queue to take the message); a failure there is
	// its own to report: the shard is due again when its delta passes the next
	// multiple of DeltaLimit.
	Due func(shard string)
	// Now gives times; time.Now when nil.
	Now func() time.Time
}

// An Index is the team archive's merged CDX index: every bundle's lines in one key
// order, split by key range into shards. Each shard's lines are a main index (ZipNum
// gzip blocks in one blob, their summary in the shard's store) plus a delta of the
// lines added since its last compaction (in the store), minus the uploads removed
// since then (tombstones). See the package documentation.
type Index struct {
	cfg Config
}

// New returns an Index for cfg, with defaults filled in.
func New(cfg Config) *Index {
	if cfg.LinesPerBlock <= 0 {
		cfg.LinesPerBlock = DefaultLinesPerBlock
	}
	if cfg.DeltaLimit <= 0 {
		cfg.DeltaLimit = DefaultDeltaLimit
	}
	if cfg.SplitLines <= 0 {
		cfg.SplitLines = DefaultSplitLines
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.InlineBytes == 0 {
		cfg.InlineBytes = DefaultInlineBytes
	}
	if cfg.LeaseTime <= 0 {
		cfg.LeaseTime = DefaultLeaseTime
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Due == nil {
		cfg.Due = func(string) {}
	}
	return &Index{cfg: cfg}
}

// Tag returns a bundle's CDXJ line as the merged index holds it: with "source" (the
// bundle's name, as pywb's aggregating CDX server adds it) and "upload" (the upload
// that stored it) added as its last fields, in the line's own separator style.
func Tag(line []byte, bundle, upload string) ([]byte, error) {
	line = bytes.TrimRight(line, "\r\n")
	if _, _, js, err := cdx.SplitLine(line); err != nil {
		return nil, fmt.Errorf("%w: %.200q: %w", ErrLine, line, err)
	} else if bytes.Contains(js, []byte(`"upload"`)) {
		return nil, fmt.Errorf("%w: %.200q already has an \"upload\" field", ErrLine, line)
	}
	sep, colon := ", ", ": "
	if !bytes.Contains(line, []byte(`": `)) {
		sep, colon = ",", ":"
	}
	body := bytes.TrimRight(line[:len(line)-1], " ")
	out := slices.Clip(body)
	if !bytes.HasSuffix(bytes.TrimSpace(body), []byte("{")) {
		out = append(out, sep...)
	}
	out = append(out, `"source"`+colon...)
	out = pyfmt.AppendJSONString(out, bundle)
	out = append(out, sep+`"upload"`+colon...)
	out = pyfmt.AppendJSONString(out, upload)
	return append(out, '}'), nil
}

// lineUpload returns the upload a tagged line came from (its last field).
func lineUpload(line string) string {
	i := strings.LastIndex(line, `"upload"`)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(line[i+len(`"upload"`):], ": ")
	rest = strings.TrimPrefix(rest, `"`)
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// route returns the shard the directory names for key: the entry with the greatest
// low key not above it, or the root.
func (ix *Index) route(ctx context.Context, key string) (string, error) {
	res, err := ix.cfg.Stores.Open(DirectoryName).Do(ctx, &Batch{Scans: []Scan{
		{Start: prefixRoute, End: prefixRoute + key + "\x00", Limit: 1, Reverse: true},
	}})
	if err != nil {
		return "", fmt.Errorf("mergedindex: reading the directory: %w", err)
	}
	if e := res.Scans[0].Entries; len(e) > 0 {
		return e[0].Value, nil
	}
	return RootShard, nil
}

// routes returns the directory's low keys and shards, in key order.
func (ix *Index) routes(ctx context.Context) ([]Entry, error) {
	var all []Entry
	start := prefixRoute
	for {
		res, err := ix.cfg.Stores.Open(DirectoryName).Do(ctx, &Batch{Scans: []Scan{{Start: start, End: prefixEnd(prefixRoute), Limit: 1000}}})
		if err != nil {
			return nil, fmt.Errorf("mergedindex: reading the directory: %w", err)
		}
		e := res.Scans[0].Entries
		all = append(all, e...)
		if len(e) < 1000 {
			break
		}
		start = e[len(e)-1].Key + "\x00"
	}
	if len(all) == 0 || all[0].Key != prefixRoute {
		all = append([]Entry{{Key: prefixRoute, Value: RootShard}}, all...)
	}
	return all, nil
}

// Add indexes the lines of one upload of a bundle (Tag adds its name and the
// upload's): a query answers them as soon as Add returns. It returns the number of
// lines added.
func (ix *Index) Add(ctx context.Context, bundle, upload string, lines [][]byte) (int, error) {
	tagged := make([]string, 0, len(lines))
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		t, err := Tag(l, bundle, upload)
		if err != nil {
			return 0, err
		}
		tagged = append(tagged, string(t))
	}
	slices.Sort(tagged)
	tagged = slices.Compact(tagged)
	if err := ix.write(ctx, tagged, func(line string) Op { return Op{Key: prefixDelta + line} }, nil); err != nil {
		return 0, err
	}
	return len(tagged), ix.writeDigests(ctx, digestOps(bundle, upload, lines, false))
}

// Remove unindexes an upload of a bundle, given the lines it added: its delta lines
// are deleted and, for the lines compaction may already have moved into the main
// index, each shard they fall in records the upload as removed.
func (ix *Index) Remove(ctx context.Context, bundle, upload string, lines [][]byte) error {
	var tagged []string
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		t, err := Tag(l, bundle, upload)
		if err != nil {
			return err
		}
		tagged = append(tagged, string(t))
	}
	slices.Sort(tagged)
	tagged = slices.Compact(tagged)
	// The digests first: an upload may write a revisit only of a payload still held.
	if err := ix.writeDigests(ctx, digestOps(bundle, upload, lines, true)); err != nil {
		return err
	}
	tomb := Op{Key: prefixTomb + upload, Value: bundle}
	return ix.write(ctx, tagged, func(line string) Op { return Op{Key: prefixDelta + line, Delete: true} }, &tomb)
}

// write applies op(line) for sorted lines in the shards owning them, plus extra once
// in each shard written to. A shard whose range changed meanwhile (split) refuses
// the batch; the lines it no longer owns go to the shard after it.
func (ix *Index) write(ctx context.Context, lines []string, op func(string) Op, extra *Op) error {
	routes, err := ix.routes(ctx)
	if err != nil {
		return err
	}
	// Partition by the directory; each part then follows the shards' own ranges.
	for i := 0; i < len(lines); {
		r := len(routes) - 1
		for r > 0 && strings.TrimPrefix(routes[r].Key, prefixRoute) > lines[i] {
			r--
		}
		j := len(lines)
		if r+1 < len(routes) {
			hi := strings.TrimPrefix(routes[r+1].Key, prefixRoute)
			j = i + sortSearch(lines[i:], hi)
		}
		if err := ix.writeShard(ctx, routes[r].Value, lines[i:j], op, extra); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// sortSearch returns the number of lines below key.
func sortSearch(lines []string, key string) int {
	n, _ := slices.BinarySearch(lines, key)
	return n
}

func (ix *Index) writeShard(ctx context.Context, shard string, lines []string, op func(string) Op, extra *Op) error {
	var rng *shardRange
	for hops := 0; len(lines) > 0; {
		if rng == nil {
			res, err := ix.read(ctx, shard, Scan{Start: keyRange, End: keyRange + "\x00"})
			if err != nil {
				return err
			}
			if rng, err = parseRange(shard, res.Scans[0].Entries); err != nil {
				return err
			}
		}
		// Lines at or past the shard's end belong to the shards after it.
		n := len(lines)
		if rng.Hi != "" {
			n = sortSearch(lines, rng.Hi)
		}
		if n == 0 {
			if hops++; rng.Next == "" || hops > maxFollow {
				return fmt.Errorf("mergedindex: shard %s ends at %.100q with no shard after it", shard, rng.Hi)
			}
			shard, rng = rng.Next, nil
			continue
		}
		take := min(n, opsPerBatch)
		b := &Batch{If: []Cond{rng.cond()}}
		if !rng.exists {
			b.Ops = append(b.Ops, Op{Key: keyRange, Value: shardRange{}.encode()})
		}
		if extra != nil {
			b.Ops = append(b.Ops, *extra)
		}
		for _, l := range lines[:take] {
			b.Ops = append(b.Ops, op(l))
		}
		b.Scans = []Scan{
			{Start: keyRange, End: keyRange + "\x00"},
			{Start: prefixDelta, End: prefixEnd(prefixDelta), Count: true},
			{Start: prefixTomb, End: prefixEnd(prefixTomb), Count: true},
		}
		res, err := ix.cfg.Stores.Open(shard).Do(ctx, b)
		if err != nil {
			return fmt.Errorf("mergedindex: writing to shard %s: %w", shard, err)
		}
		fresh, err := parseRange(shard, res.Scans[0].Entries)
		if err != nil {
			return err
		}
		rng = fresh
		if !res.Applied {
			continue // split meanwhile: partition again
		}
		lines = lines[take:]
		// Due when this write took the delta past a multiple of the limit: once, not
		// at every write until the compaction has run (and again later if it failed).
		if after := res.Scans[1].Count + res.Scans[2].Count; after/ix.cfg.DeltaLimit > max(0, after-len(b.Ops))/ix.cfg.DeltaLimit {
			ix.cfg.Due(shard)
		}
		if rng.Pending != "" {
			// Its parent holds its main index until the split completes.
			ix.cfg.Due(rng.Pending)
		}
	}
	return nil
}

func (ix *Index) read(ctx context.Context, shard string, scans ...Scan) (*Result, error) {
	res, err := ix.cfg.Stores.Open(shard).Do(ctx, &Batch{Scans: scans})
	if err != nil {
		return nil, fmt.Errorf("mergedindex: reading shard %s: %w", shard, err)
	}
	return res, nil
}
