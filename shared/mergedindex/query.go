package mergedindex

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/webkeep/webkeep/shared/zipnum"
)

// Page sizes of a query's reads.
const (
	summaryPage  = 64      // summary entries a store call reads
	deltaPage    = 1000    // delta lines a store call reads
	tombPage     = 5000    // removals a store call reads
	firstRun     = 2       // blocks of a stream's first range read: the one holding the start and the next
	blobRunBytes = 2 << 20 // compressed bytes of blocks read in one range read, at most
	maxRestarts  = 16
)

// errRestart says that a shard was compacted while a query read it: the query goes
// on from its last line against the new state.
var errRestart = errors.New("mergedindex: shard changed while it was read")

// Lines returns the lines of the index in [start, end) ("" end: to the end of the
// key space), in key order or, with reverse, from the last. Each comes from one
// consistent state of its shard: the main index before or after a compaction, never
// both. The lines are read as they are consumed: a caller that stops early reads
// only what it needed.
func (ix *Index) Lines(ctx context.Context, start, end string, reverse bool) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		stopped := false
		emit := func(line string) bool {
			if !yield([]byte(line), nil) {
				stopped = true
			}
			return !stopped
		}
		var err error
		if reverse {
			err = ix.linesDown(ctx, start, end, emit)
		} else {
			err = ix.linesUp(ctx, start, end, emit)
		}
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}

func (ix *Index) linesUp(ctx context.Context, start, end string, emit func(string) bool) error {
	shard, err := ix.route(ctx, start)
	if err != nil {
		return err
	}
	lo := start
	for hops := 0; ; hops++ {
		if hops > maxFollow {
			return fmt.Errorf("mergedindex: more than %d shards followed from %.100q", maxFollow, start)
		}
		rng, more, err := ix.segment(ctx, shard, lo, end, false, emit)
		if err != nil || !more {
			return err
		}
		if rng.Hi != "" && lo >= rng.Hi || rng.Hi != "" && (end == "" || rng.Hi < end) {
			if rng.Next == "" {
				return fmt.Errorf("mergedindex: shard %s ends at %.100q with no shard after it", shard, rng.Hi)
			}
			shard, lo = rng.Next, max(lo, rng.Hi)
			continue
		}
		return nil
	}
}

func (ix *Index) linesDown(ctx context.Context, start, end string, emit func(string) bool) error {
	hi := end
	for hops := 0; ; hops++ {
		if hops > maxFollow*maxFollow {
			return fmt.Errorf("mergedindex: too many shards below %.100q", end)
		}
		shard, rng, err := ix.locateBelow(ctx, hi)
		if err != nil {
			return err
		}
		_, more, err := ix.segment(ctx, shard, max(start, rng.Lo), hi, true, emit)
		if err != nil || !more || rng.Lo <= start || rng.Lo == "" {
			return err
		}
		hi = rng.Lo
	}
}

// locateBelow returns the shard holding the greatest keys below hi ("" hi: the
// last shard), following shards' ranges past a directory that is behind a split.
func (ix *Index) locateBelow(ctx context.Context, hi string) (string, *shardRange, error) {
	end := prefixEnd(prefixRoute)
	if hi != "" {
		end = prefixRoute + hi
	}
	res, err := ix.cfg.Stores.Open(DirectoryName).Do(ctx, &Batch{Scans: []Scan{{Start: prefixRoute, End: end, Limit: 1, Reverse: true}}})
	if err != nil {
		return "", nil, fmt.Errorf("mergedindex: reading the directory: %w", err)
	}
	shard := RootShard
	if e := res.Scans[0].Entries; len(e) > 0 {
		shard = e[0].Value
	}
	for hops := 0; ; hops++ {
		res, err := ix.read(ctx, shard, Scan{Start: keyRange, End: keyRange + "\x00"})
		if err != nil {
			return "", nil, err
		}
		rng, err := parseRange(shard, res.Scans[0].Entries)
		if err != nil {
			return "", nil, err
		}
		if rng.Hi == "" || hi != "" && rng.Hi >= hi || hops > maxFollow || rng.Next == "" {
			return shard, rng, nil
		}
		shard = rng.Next
	}
}

// segment emits the lines of one shard within [lo, hi) ∩ its range, restarting
// after its last line when the shard is compacted meanwhile. It returns the shard's
// range, and whether the caller should go on (emit did not stop it).
func (ix *Index) segment(ctx context.Context, shard, lo, hi string, reverse bool, emit func(string) bool) (*shardRange, bool, error) {
	last, emitted := "", false
	for restarts := 0; ; restarts++ {
		a, b := lo, hi
		if emitted && !reverse {
			a = last + "\x00"
		} else if emitted {
			b = last
		}
		m, err := ix.openMerge(ctx, shard, a, b, reverse)
		if err != nil {
			return nil, false, err
		}
		for {
			line, err := m.next(ctx)
			if err == io.EOF {
				return m.rng, true, nil
			}
			if errors.Is(err, errRestart) && restarts < maxRestarts {
				break
			}
			if err != nil {
				return nil, false, err
			}
			last, emitted = line, true
			if !emit(line) {
				return m.rng, false, nil
			}
		}
	}
}

// A merge reads one shard's lines in [lo, hi) (clipped to its range): its main
// index's blocks and its delta, and its parent's while a split is pending, in order,
// without duplicates, without the lines of removed uploads.
type merge struct {
	rng     *shardRange
	reverse bool
	streams []*stream
	tombs   map[string]bool
	last    string
	started bool
}

func (ix *Index) openMerge(ctx context.Context, shard, lo, hi string, reverse bool) (*merge, error) {
	main, err := ix.openShard(ctx, shard, lo, hi, reverse, nil)
	if err != nil {
		return nil, err
	}
	m := &merge{rng: main.rng, reverse: reverse, tombs: main.tombs}
	m.streams = append(m.streams, main.streams...)
	if p := main.rng.Pending; p != "" {
		// The parent still holds this shard's lines until the split completes.
		parent, err := ix.openShard(ctx, p, main.lo, main.hi, reverse, main.rng)
		if err != nil {
			return nil, err
		}
		m.streams = append(m.streams, parent.streams...)
		for t := range parent.tombs {
			m.tombs[t] = true
		}
	}
	return m, nil
}

func (m *merge) next(ctx context.Context) (string, error) {
	for {
		best := -1
		var bestLine string
		for i, s := range m.streams {
			line, ok, err := s.peek(ctx)
			if err != nil {
				return "", err
			}
			if ok && (best < 0 || (line < bestLine) != m.reverse && line != bestLine) {
				best, bestLine = i, line
			}
		}
		if best < 0 {
			return "", io.EOF
		}
		m.streams[best].pop()
		if m.started && bestLine == m.last {
			continue // the same line from two sources (a split under way)
		}
		m.started, m.last = true, bestLine
		if len(m.tombs) > 0 && m.tombs[lineUpload(bestLine)] {
			continue
		}
		return bestLine, nil
	}
}

// An opened shard: its range, the key range read, its streams and its removals.
type openShard struct {
	rng     *shardRange
	lo, hi  string
	streams []*stream
	tombs   map[string]bool
}

// openShard reads a shard's state, its removals and the first page of its summary
// and delta within [lo, hi). With child set, the shard is read as the parent of a
// pending split, for the child's range, whatever its own range says now.
func (ix *Index) openShard(ctx context.Context, shard, lo, hi string, reverse bool, child *shardRange) (*openShard, error) {
	scans := []Scan{{Start: prefixTomb, End: prefixEnd(prefixTomb), Limit: tombPage}}
	sumLo, sumHi := under(prefixSummary, lo, hi)
	if reverse {
		scans = append(scans, Scan{Start: prefixSummary, End: sumHi, Limit: summaryPage, Reverse: true})
	} else {
		scans = append(scans,
			Scan{Start: prefixSummary, End: sumLo, Limit: 1, Reverse: true},
			Scan{Start: sumLo, End: sumHi, Limit: summaryPage})
	}
	dLo, dHi := under(prefixDelta, lo, hi)
	scans = append(scans, Scan{Start: dLo, End: dHi, Limit: deltaPage, Reverse: reverse})
	// The copies of the first run's blocks, where the store keeps them.
	inLo, inHi := under(prefixInline, lo, hi)
	copies := []Scan{{Start: prefixInline, End: inHi, Limit: firstRun, Reverse: true}}
	if !reverse {
		copies = []Scan{{Start: prefixInline, End: inLo, Limit: 1, Reverse: true}, {Start: inLo, End: inHi, Limit: firstRun - 1}}
	}
	rng, st, got, err := ix.readHead(ctx, shard, append(scans, copies...)...)
	if err != nil {
		return nil, err
	}
	inline := map[string][]byte{}
	got, copied := got[:len(scans)], got[len(scans):]
	for _, in := range copied {
		for _, e := range in.Entries {
			raw, err := base64.StdEncoding.DecodeString(e.Value)
			if err != nil {
				return nil, fmt.Errorf("mergedindex: shard %s: the copy of block %.100q: %w", shard, e.Key, err)
			}
			inline[prefixSummary+strings.TrimPrefix(e.Key, prefixInline)] = raw
		}
	}
	o := &openShard{rng: rng, lo: lo, hi: hi, tombs: map[string]bool{}}
	// Clip to the range the shard owns (a parent read for its child: the child's).
	own := rng
	if child != nil {
		own = child
	}
	o.lo = max(lo, own.Lo)
	if own.Hi != "" && (o.hi == "" || own.Hi < o.hi) {
		o.hi = own.Hi
	}
	guard := []Cond{rng.cond(), st.cond()}
	tombs := got[0].Entries
	for len(tombs) > 0 {
		for _, e := range tombs {
			o.tombs[strings.TrimPrefix(e.Key, prefixTomb)] = true
		}
		if len(tombs) < tombPage {
			break
		}
		r, err := ix.read(ctx, shard, Scan{Start: tombs[len(tombs)-1].Key + "\x00", End: prefixEnd(prefixTomb), Limit: tombPage})
		if err != nil {
			return nil, err
		}
		tombs = r.Scans[0].Entries
	}
	var sum []Entry
	if reverse {
		sum = got[1].Entries
	} else {
		sum = append(got[1].Entries, got[2].Entries...)
	}
	delta := got[len(got)-1].Entries
	blocks := &stream{ix: ix, shard: shard, guard: guard, lo: o.lo, hi: o.hi, reverse: reverse, state: st, runBlocks: firstRun, inline: inline,
		summary: sum, summaryMore: len(sum) > 0 && len(got[len(got)-2].Entries) == summaryPage}
	deltas := &stream{ix: ix, shard: shard, guard: guard, lo: o.lo, hi: o.hi, reverse: reverse, isDelta: true,
		delta: delta, deltaMore: len(delta) == deltaPage}
	o.streams = []*stream{blocks, deltas}
	return o, nil
}

// A stream is one ordered source of lines of a shard: its main index's blocks, or
// its delta. It reads further pages under the guard of the state it was opened at.
type stream struct {
	ix      *Index
	shard   string
	guard   []Cond
	lo, hi  string
	reverse bool
	isDelta bool
	state   *shardState

	summary     []Entry           // summary entries not yet read, in reading order
	inline      map[string][]byte // blocks the store keeps too, by summary key
	summaryMore bool
	lastSummary string
	blockDone   bool                // reverse: the block holding lo was read
	runBlocks   int                 // blocks the next range read takes, at most
	run         *zipnum.BlockReader // ascending: the blocks fetched, read as one stream
	raw         []byte              // descending: the blocks fetched, not yet decoded
	rawLengths  []int64             // their lengths, in reading order
	lines       []string            // descending: the lines of the decoded block, from its end

	delta     []Entry
	deltaMore bool
	lastDelta string // the key of the last delta entry read

	head    string
	hasHead bool
	done    bool
}

func (s *stream) pop() { s.hasHead = false }

// peek returns the stream's next line within [lo, hi), without taking it.
func (s *stream) peek(ctx context.Context) (string, bool, error) {
	for !s.hasHead && !s.done {
		line, ok, err := s.read(ctx)
		if err != nil {
			return "", false, err
		}
		if !ok {
			s.done = true
			break
		}
		below, above := line < s.lo, s.hi != "" && line >= s.hi
		switch {
		case !below && !above:
			s.head, s.hasHead = line, true
		case s.reverse && below || !s.reverse && above:
			s.done = true // past the range: nothing further can be in it
		}
	}
	return s.head, s.hasHead, nil
}

func (s *stream) read(ctx context.Context) (string, bool, error) {
	if s.isDelta {
		if len(s.delta) == 0 && s.deltaMore {
			if err := s.moreDelta(ctx); err != nil {
				return "", false, err
			}
		}
		if len(s.delta) == 0 {
			return "", false, nil
		}
		e := s.delta[0]
		s.delta, s.lastDelta = s.delta[1:], e.Key
		return strings.TrimPrefix(e.Key, prefixDelta), true, nil
	}
	if !s.reverse {
		// Ascending, the blocks of a run are read as one stream, line by line: a
		// lookup stops decoding at the end of its range.
		for {
			if s.run != nil {
				line, err := s.run.ReadLine()
				if err == nil {
					return string(line), true, nil
				}
				if err != io.EOF {
					return "", false, fmt.Errorf("mergedindex: shard %s: a block of %s: %w", s.shard, s.state.Blob, err)
				}
				s.run = nil
			}
			data, err := s.fetch(ctx)
			if err != nil || data == nil {
				return "", false, err
			}
			s.run = zipnum.NewBlockReader(bytes.NewReader(data))
		}
	}
	for len(s.lines) == 0 {
		if len(s.raw) == 0 {
			data, err := s.fetch(ctx)
			if err != nil || data == nil {
				return "", false, err
			}
			s.raw = data
		}
		// Descending, a block is decoded whole and read from its end.
		n := s.rawLengths[0]
		lines, err := decodeBlock(s.raw[:n])
		if err != nil {
			return "", false, fmt.Errorf("mergedindex: shard %s: a block of %s: %w", s.shard, s.state.Blob, err)
		}
		s.raw, s.rawLengths = s.raw[n:], s.rawLengths[1:]
		slices.Reverse(lines)
		s.lines = lines
	}
	line := s.lines[0]
	s.lines = s.lines[1:]
	return line, true, nil
}

func (s *stream) moreDelta(ctx context.Context) error {
	last := s.lastDelta
	dLo, dHi := under(prefixDelta, s.lo, s.hi)
	sc := Scan{Start: last + "\x00", End: dHi, Limit: deltaPage}
	if s.reverse {
		sc = Scan{Start: dLo, End: last, Limit: deltaPage, Reverse: true}
	}
	res, err := s.ix.cfg.Stores.Open(s.shard).Do(ctx, &Batch{If: s.guard, Scans: []Scan{sc}})
	if err != nil {
		return fmt.Errorf("mergedindex: reading shard %s: %w", s.shard, err)
	}
	if !res.Applied {
		return errRestart
	}
	s.delta = res.Scans[0].Entries
	s.deltaMore = len(s.delta) == deltaPage
	return nil
}

// fetch reads the next run of blocks: consecutive ones, in one range read. It
// returns their bytes in file order (nil: no block left), and, descending, keeps
// their lengths in reading order.
func (s *stream) fetch(ctx context.Context) ([]byte, error) {
	var run []block
	for len(run) == 0 || s.runGoesOn(run) {
		if len(s.summary) == 0 {
			if !s.summaryMore || len(run) > 0 {
				break
			}
			if err := s.moreSummary(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if s.blockDone {
			break
		}
		b, err := parseBlock(s.shard, s.summary[0])
		if err != nil {
			return nil, err
		}
		if len(run) > 0 && !contiguous(run[len(run)-1], b, s.reverse) {
			break
		}
		s.lastSummary = s.summary[0].Key
		s.summary = s.summary[1:]
		run = append(run, b)
		if s.reverse && b.first < s.lo {
			s.blockDone = true // this block holds the range's first lines
		}
	}
	if len(run) == 0 {
		return nil, nil
	}
	s.runBlocks *= 2
	first, last := run[0], run[len(run)-1]
	if s.reverse {
		first, last = last, first
		s.rawLengths = s.rawLengths[:0]
		for _, b := range run {
			s.rawLengths = append(s.rawLengths, b.length)
		}
	}
	if data, ok := s.inlined(run); ok {
		return data, nil
	}
	n := last.offset + last.length - first.offset
	rc, err := s.ix.cfg.Blobs.GetBlob(ctx, s.state.Blob, first.offset, n)
	if err != nil {
		return nil, fmt.Errorf("mergedindex: shard %s: reading %s: %w", s.shard, s.state.Blob, err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, fmt.Errorf("mergedindex: shard %s: reading %s: %w", s.shard, s.state.Blob, err)
	}
	if int64(len(data)) != n {
		return nil, fmt.Errorf("mergedindex: shard %s: %s is shorter than its summary says", s.shard, s.state.Blob)
	}
	if s.reverse {
		// Reading order is from the last block: lay the bytes out so.
		out := make([]byte, 0, len(data))
		for _, b := range run {
			at := b.offset - first.offset
			out = append(out, data[at:at+b.length]...)
		}
		data = out
	}
	return data, nil
}

// inlined returns a run's blocks from the copies the store keeps, in reading order,
// if it keeps them all (a copy of another length than the summary's is not used: the
// blob's bytes are the main index).
func (s *stream) inlined(run []block) ([]byte, bool) {
	var data []byte
	for _, b := range run {
		raw, ok := s.inline[b.key]
		if !ok || int64(len(raw)) != b.length {
			return nil, false
		}
		data = append(data, raw...)
	}
	return data, true
}

// runGoesOn says whether a run of blocks takes one more: the first read takes
// firstRun blocks (a lookup needs no more), each later one twice as many as the one
// before, up to blobRunBytes.
func (s *stream) runGoesOn(run []block) bool {
	if len(run) >= s.runBlocks {
		return false
	}
	var n int64
	for _, b := range run {
		n += b.length
	}
	return n < blobRunBytes
}

func contiguous(a, b block, reverse bool) bool {
	if reverse {
		return b.offset+b.length == a.offset
	}
	return a.offset+a.length == b.offset
}

func (s *stream) moreSummary(ctx context.Context) error {
	_, sumHi := under(prefixSummary, s.lo, s.hi)
	sc := Scan{Start: s.lastSummary + "\x00", End: sumHi, Limit: summaryPage}
	if s.reverse {
		sc = Scan{Start: prefixSummary, End: s.lastSummary, Limit: summaryPage, Reverse: true}
	}
	res, err := s.ix.cfg.Stores.Open(s.shard).Do(ctx, &Batch{If: s.guard, Scans: []Scan{sc}})
	if err != nil {
		return fmt.Errorf("mergedindex: reading shard %s: %w", s.shard, err)
	}
	if !res.Applied {
		return errRestart
	}
	s.summary = res.Scans[0].Entries
	s.summaryMore = len(s.summary) == summaryPage
	return nil
}

// decodeBlock returns the lines of one gzip block.
func decodeBlock(raw []byte) ([]string, error) {
	br := zipnum.NewBlockReader(bytes.NewReader(raw))
	var lines []string
	for {
		line, err := br.ReadLine()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, err
		}
		lines = append(lines, string(line))
	}
}
