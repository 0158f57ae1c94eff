package mergedindex

import (
	"context"
	"fmt"
)

// ShardInfo describes one shard: its key range and what it holds.
type ShardInfo struct {
	Name      string `json:"name"`
	Lo        string `json:"lo"`
	Hi        string `json:"hi,omitempty"`
	Pending   string `json:"pending,omitempty"` // being split off this shard
	Gen       int    `json:"gen"`               // compactions so far
	Lines     int    `json:"lines"`             // in the main index
	Blocks    int    `json:"blocks"`
	Bytes     int64  `json:"bytes"` // of the main index's blocks
	Delta     int    `json:"delta"` // lines added since the last compaction
	Removals  int    `json:"removals"`
	Compactor bool   `json:"compacting"` // a compaction holds its lease
}

// Shards lists the shards in key order, following each to the next from the first.
func (ix *Index) Shards(ctx context.Context) ([]ShardInfo, error) {
	var out []ShardInfo
	shard := RootShard
	for hops := 0; shard != ""; hops++ {
		if hops > 1<<16 {
			return nil, fmt.Errorf("mergedindex: the shards do not end")
		}
		rng, st, counts, err := ix.readHead(ctx, shard,
			Scan{Start: prefixDelta, End: prefixEnd(prefixDelta), Count: true},
			Scan{Start: prefixTomb, End: prefixEnd(prefixTomb), Count: true},
			Scan{Start: keyLease, End: keyLease + "\x00", Count: true})
		if err != nil {
			return nil, err
		}
		out = append(out, ShardInfo{Name: shard, Lo: rng.Lo, Hi: rng.Hi, Pending: rng.Pending, Gen: st.Gen, Lines: st.Lines,
			Blocks: st.Blocks, Bytes: st.Size, Delta: counts[0].Count, Removals: counts[1].Count, Compactor: counts[2].Count > 0})
		shard = rng.Next
	}
	return out, nil
}
