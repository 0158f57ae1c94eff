package mergedindex

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Keys of a shard's store. Every shard holds:
//
//	m/range        its key range, and the shard after it (shardRange, JSON)
//	m/state        its main index: the blob of ZipNum blocks and their count (shardState)
//	m/lease        the compaction under way, if any: "<until unix ns> <owner>"
//	s/<first>\x00<n> one block of the main index: "offset length lines"
//	i/<first>\x00<n> the same block's bytes (base64), for the first Config.InlineBytes
//	               of the main index: a lookup reads them with the summary
//	d/<line>       one line of the delta: added since the last compaction
//	t/<upload>     a removed upload whose lines the main index may still hold
//	g/<blob>       a blob that may be deleted after the time it gives (unix ns)
//
// The directory store holds r/<low key> -> shard name, one for each shard.
const (
	keyRange      = "m/range"
	keyState      = "m/state"
	keyLease      = "m/lease"
	prefixSummary = "s/"
	prefixInline  = "i/"
	prefixDelta   = "d/"
	prefixTomb    = "t/"
	prefixGarbage = "g/"
	prefixRoute   = "r/"

	// DirectoryName is the name of the directory's store.
	DirectoryName = "directory"
	// RootShard is the shard of the whole key space before any split.
	RootShard = "shard-0"
	// maxSummaryKey bounds the first key a summary entry is stored under.
	maxSummaryKey = 512
)

// prefixEnd is the end of the keys starting with prefix (its last byte plus one).
func prefixEnd(prefix string) string {
	return prefix[:len(prefix)-1] + string(prefix[len(prefix)-1]+1)
}

// under returns the key range of prefix+[start, end) ("" end: to the prefix's end).
func under(prefix, start, end string) (string, string) {
	if end == "" {
		return prefix + start, prefixEnd(prefix)
	}
	return prefix + start, prefix + end
}

// A shardRange is the keys a shard owns, [Lo, Hi) ("" Hi: no end), and the shard
// owning Hi on (Next). A shard being split off (Pending) does not yet hold its lines:
// its parent, the shard named by Pending, still does, and a reader reads both.
type shardRange struct {
	Lo      string `json:"lo"`
	Hi      string `json:"hi,omitempty"`
	Next    string `json:"next,omitempty"`
	Pending string `json:"pending,omitempty"`

	raw    string // as stored; "" when absent
	exists bool
}

func (r *shardRange) contains(key string) bool {
	return key >= r.Lo && (r.Hi == "" || key < r.Hi)
}

// cond is the condition that the range is still r.
func (r *shardRange) cond() Cond {
	if !r.exists {
		return Cond{Key: keyRange, Absent: true}
	}
	return Cond{Key: keyRange, Value: r.raw}
}

func (r shardRange) encode() string {
	b, _ := json.Marshal(r)
	return string(b)
}

func parseRange(shard string, e []Entry) (*shardRange, error) {
	r := &shardRange{}
	if len(e) == 0 {
		return r, nil // the root before its first write
	}
	if err := json.Unmarshal([]byte(e[0].Value), r); err != nil {
		return nil, fmt.Errorf("mergedindex: shard %s: its range %.100q: %w", shard, e[0].Value, err)
	}
	r.raw, r.exists = e[0].Value, true
	return r, nil
}

// A shardState is a shard's main index: Blocks gzip blocks of Lines lines in all,
// stored one after the other in Blob (Size bytes). Gen counts the compactions.
type shardState struct {
	Gen    int    `json:"gen"`
	Blob   string `json:"blob,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Blocks int    `json:"blocks,omitempty"`
	Lines  int    `json:"lines,omitempty"`

	raw    string
	exists bool
}

func (s *shardState) cond() Cond {
	if !s.exists {
		return Cond{Key: keyState, Absent: true}
	}
	return Cond{Key: keyState, Value: s.raw}
}

func parseState(shard string, e []Entry) (*shardState, error) {
	s := &shardState{}
	if len(e) == 0 {
		return s, nil
	}
	if err := json.Unmarshal([]byte(e[0].Value), s); err != nil {
		return nil, fmt.Errorf("mergedindex: shard %s: its state %.100q: %w", shard, e[0].Value, err)
	}
	s.raw, s.exists = e[0].Value, true
	return s, nil
}

// A block is one summary entry: where a block of the main index lies.
type block struct {
	key            string // the summary key
	first          string // the first line's "urlkey timestamp" (cut at maxSummaryKey)
	offset, length int64
	lines          int
}

// inlineKey is the key of the copy of the block whose summary key is key.
func inlineKey(key string) string {
	return prefixInline + strings.TrimPrefix(key, prefixSummary)
}

func summaryKey(first string, n int) string {
	if len(first) > maxSummaryKey {
		first = first[:maxSummaryKey]
	}
	return fmt.Sprintf("%s%s\x00%08d", prefixSummary, first, n)
}

func parseBlock(shard string, e Entry) (block, error) {
	b := block{key: e.Key}
	first, _, ok := strings.Cut(strings.TrimPrefix(e.Key, prefixSummary), "\x00")
	f := strings.Fields(e.Value)
	if !ok || len(f) != 3 {
		return b, fmt.Errorf("mergedindex: shard %s: summary entry %.100q: want \"offset length lines\", have %.100q", shard, e.Key, e.Value)
	}
	b.first = first
	var err1, err2, err3 error
	b.offset, err1 = strconv.ParseInt(f[0], 10, 64)
	b.length, err2 = strconv.ParseInt(f[1], 10, 64)
	b.lines, err3 = strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || err3 != nil || b.offset < 0 || b.length <= 0 {
		return b, fmt.Errorf("mergedindex: shard %s: summary entry %.100q: bad numbers %q", shard, e.Key, e.Value)
	}
	return b, nil
}

func (b block) value() string {
	return fmt.Sprintf("%d %d %d", b.offset, b.length, b.lines)
}

func (s shardState) encode() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// readHead reads a shard's range and state, and more scans in the same call: their
// results, in order.
func (ix *Index) readHead(ctx context.Context, shard string, more ...Scan) (*shardRange, *shardState, []Entries, error) {
	res, err := ix.read(ctx, shard, append([]Scan{
		{Start: keyRange, End: keyRange + "\x00"},
		{Start: keyState, End: keyState + "\x00"},
	}, more...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	rng, err := parseRange(shard, res.Scans[0].Entries)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := parseState(shard, res.Scans[1].Entries)
	if err != nil {
		return nil, nil, nil, err
	}
	return rng, st, res.Scans[2:], nil
}
