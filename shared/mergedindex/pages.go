package mergedindex

import (
	"context"
	"fmt"
)

// PageBounds splits [start, end) into pages of pageSize blocks of the main index,
// as pywb's ZipNum index pages a query: it returns the blocks the range touches and
// the bounds of each page (pages+1 keys: page i is [bounds[i], bounds[i+1]), the
// last bound "" when end is ""). The delta's lines fall in the page whose bounds
// hold them, so the pages together give every line of the range exactly once. A
// range with no block is one page.
func (ix *Index) PageBounds(ctx context.Context, start, end string, pageSize int) ([]string, int, error) {
	if pageSize < 1 {
		return nil, 0, fmt.Errorf("mergedindex: page size %d", pageSize)
	}
	var firsts []string
	shard, err := ix.route(ctx, start)
	if err != nil {
		return nil, 0, err
	}
	lo := start
	for hops := 0; ; hops++ {
		if hops > maxFollow {
			return nil, 0, fmt.Errorf("mergedindex: more than %d shards followed from %.100q", maxFollow, start)
		}
		rng, keys, err := ix.blockKeys(ctx, shard, lo, end, nil)
		if err != nil {
			return nil, 0, err
		}
		if rng.Pending != "" {
			// The parent's blocks hold this shard's lines until the split completes.
			_, more, err := ix.blockKeys(ctx, rng.Pending, max(lo, rng.Lo), end, rng)
			if err != nil {
				return nil, 0, err
			}
			keys = append(keys, more...)
		}
		for _, k := range keys {
			firsts = append(firsts, max(k, lo))
		}
		if rng.Hi == "" || end != "" && rng.Hi >= end {
			break
		}
		shard, lo = rng.Next, max(lo, rng.Hi)
	}
	bounds := []string{start}
	for i := pageSize; i < len(firsts); i += pageSize {
		bounds = append(bounds, firsts[i])
	}
	return append(bounds, end), len(firsts), nil
}

// blockKeys returns a shard's range and the first keys of its blocks that may hold
// lines of [lo, hi) (clipped to its range, or to child's for a parent of a pending
// split), in order.
func (ix *Index) blockKeys(ctx context.Context, shard, lo, hi string, child *shardRange) (*shardRange, []string, error) {
	sumLo, sumHi := under(prefixSummary, lo, hi)
	rng, st, prev, err := ix.readHead(ctx, shard, Scan{Start: prefixSummary, End: sumLo, Limit: 1, Reverse: true})
	if err != nil {
		return nil, nil, err
	}
	own := rng
	if child != nil {
		own = child
	}
	if own.Hi != "" && (hi == "" || own.Hi < hi) {
		_, sumHi = under(prefixSummary, lo, own.Hi)
	}
	var keys []string
	for _, e := range prev[0].Entries {
		b, err := parseBlock(shard, e)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, b.first)
	}
	for from := sumLo; ; {
		r, err := ix.cfg.Stores.Open(shard).Do(ctx, &Batch{If: []Cond{rng.cond(), st.cond()}, Scans: []Scan{{Start: from, End: sumHi, Limit: 1000}}})
		if err != nil {
			return nil, nil, fmt.Errorf("mergedindex: reading shard %s: %w", shard, err)
		}
		if !r.Applied {
			return ix.blockKeys(ctx, shard, lo, hi, child) // compacted meanwhile
		}
		entries := r.Scans[0].Entries
		for _, e := range entries {
			b, err := parseBlock(shard, e)
			if err != nil {
				return nil, nil, err
			}
			keys = append(keys, b.first)
		}
		if len(entries) < 1000 {
			break
		}
		from = entries[len(entries)-1].Key + "\x00"
	}
	return rng, keys, nil
}
