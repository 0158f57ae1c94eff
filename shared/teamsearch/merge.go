package teamsearch

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/search"
)

// MergeStats say what Merge did.
type MergeStats struct {
	Skipped  string  `json:"skipped,omitempty"` // why nothing was done
	Merges   int     `json:"merges"`            // segments written
	Segments int     `json:"segments"`          // segments merged into them
	Docs     int     `json:"docs"`              // pages written
	Dropped  int     `json:"dropped"`           // pages of removed uploads dropped
	Garbage  int     `json:"garbage"`           // replaced segments deleted
	Seconds  float64 `json:"seconds"`
}

// maxMerges bounds the merges of one Merge call.
const maxMerges = 16

// Merge merges segments while a tier holds Fanout of them (or removed uploads
// have piled up past Purge): what the Worker's queue consumer runs when
// QueueName is due. A lease in the segment store keeps two merges apart; each
// merge swaps its inputs for its output with one atomic call conditioned on
// the inputs being listed still, so a merge stopped anywhere leaves the old
// segments answering. Replaced segments are deleted after Grace.
func (ix *Index) Merge(ctx context.Context) (*MergeStats, error) {
	start := time.Now()
	st := &MergeStats{}
	lease, err := ix.takeLease(ctx)
	if err != nil {
		return nil, err
	}
	if lease == "" {
		st.Skipped = "another merge holds the lease"
		return st, nil
	}
	defer ix.store().Do(context.WithoutCancel(ctx), &mergedindex.Batch{
		If: []mergedindex.Cond{{Key: keyLease, Value: lease}}, Ops: []mergedindex.Op{{Key: keyLease, Delete: true}}})
	attempts := 0
	for st.Merges < maxMerges {
		res, err := ix.store().Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{
			{Start: prefixSegment, End: prefixEnd(prefixSegment)},
			{Start: prefixRemoved, End: prefixEnd(prefixRemoved)},
			{Start: prefixUploads, End: prefixEnd(prefixUploads)},
		}})
		if err != nil {
			return st, fmt.Errorf("teamsearch: reading the segments: %w", err)
		}
		segs, err := parseSegments(res.Scans[0].Entries)
		if err != nil {
			return st, err
		}
		removed := map[string]bool{}
		for _, e := range res.Scans[1].Entries {
			removed[strings.TrimPrefix(e.Key, prefixRemoved)] = true
		}
		uploads := map[string][]string{}
		for _, e := range res.Scans[2].Entries {
			uploads[strings.TrimPrefix(e.Key, prefixUploads)] = strings.Split(e.Value, "\n")
		}
		group := ix.pick(segs)
		if group == nil && len(removed) >= ix.cfg.Purge {
			group = ix.purgeGroup(segs, uploads, removed)
		}
		if group == nil {
			break
		}
		applied, err := ix.merge(ctx, group, uploads, removed, lease, st)
		if err != nil {
			return st, err
		}
		if !applied {
			// An input was removed meanwhile, or the lease lost: look again, a
			// bounded number of times.
			if attempts++; attempts > maxMerges {
				return st, fmt.Errorf("teamsearch: the segments kept changing during %d merges", attempts)
			}
		}
	}
	if st.Merges == 0 && st.Skipped == "" {
		st.Skipped = "no tier is full"
	}
	n, err := ix.collect(ctx)
	st.Garbage = n
	st.Seconds = time.Since(start).Seconds()
	return st, err
}

// pick returns the segments to merge next: the Fanout smallest of the lowest
// tier that holds Fanout segments not full, as many of them as stay within
// MaxSegmentBytes; nil when no tier does.
func (ix *Index) pick(segs []*segment) []*segment {
	tiers := map[int][]*segment{}
	for _, s := range segs {
		if !ix.full(s) {
			t := ix.tier(s.Bytes)
			tiers[t] = append(tiers[t], s)
		}
	}
	keys := make([]int, 0, len(tiers))
	for t := range tiers {
		keys = append(keys, t)
	}
	slices.Sort(keys)
	for _, t := range keys {
		ss := tiers[t]
		if len(ss) < ix.cfg.Fanout {
			continue
		}
		slices.SortFunc(ss, func(a, b *segment) int { return int(a.Bytes - b.Bytes) })
		var group []*segment
		var total int64
		for _, s := range ss[:ix.cfg.Fanout] {
			if len(group) >= 2 && total+s.Bytes > ix.cfg.MaxSegmentBytes {
				break
			}
			group = append(group, s)
			total += s.Bytes
		}
		return group
	}
	return nil
}

// purgeGroup returns the segment that holds the most removed uploads.
func (ix *Index) purgeGroup(segs []*segment, uploads map[string][]string, removed map[string]bool) []*segment {
	var best *segment
	most := 0
	for _, s := range segs {
		n := 0
		for _, u := range uploads[s.ID] {
			if removed[u] {
				n++
			}
		}
		if n > most {
			best, most = s, n
		}
	}
	if best == nil {
		return nil
	}
	return []*segment{best}
}

// merge writes the pages of group, but those of removed uploads, as one
// segment, and swaps it for them. It says whether the swap was made: not when
// the group or the lease changed meanwhile (the new segment is then deleted).
func (ix *Index) merge(ctx context.Context, group []*segment, uploads map[string][]string, removed map[string]bool, lease string, st *MergeStats) (bool, error) {
	mem := search.NewMemStore()
	out, err := search.Open(mem, ix.segmentOptions())
	if err != nil {
		return false, err
	}
	var reads readCount
	kept := map[string]bool{}
	dropped := map[string]bool{}
	for _, seg := range group {
		t, err := openTable(ctx, ix.cfg.Blobs, seg, &reads)
		if err != nil {
			return false, err
		}
		in, err := search.Open(t, nil)
		if err != nil {
			return false, err
		}
		var addErr error
		err = in.Documents(func(_ search.DocID, d search.Document) bool {
			ref, err := ParseRef(d.Ref)
			if err != nil {
				addErr = err
				return false
			}
			if removed[ref.Upload] {
				dropped[ref.Upload] = true
				st.Dropped++
				return true
			}
			kept[ref.Upload] = true
			_, addErr = out.Add(d)
			return addErr == nil
		})
		if err == nil {
			err = addErr
		}
		if err != nil {
			return false, fmt.Errorf("teamsearch: merging segment %s: %w", seg.ID, err)
		}
		for _, u := range uploads[seg.ID] {
			if removed[u] {
				dropped[u] = true
			}
		}
	}
	b := &mergedindex.Batch{If: []mergedindex.Cond{{Key: keyLease, Value: lease}}}
	var outSeg *segment
	if out.Len() > 0 {
		if outSeg, err = ix.writeSegment(ctx, mem, out); err != nil {
			return false, err
		}
		list := make([]string, 0, len(kept))
		for u := range kept {
			list = append(list, u)
		}
		slices.Sort(list)
		b.Ops = append(b.Ops,
			mergedindex.Op{Key: prefixSegment + outSeg.ID, Value: outSeg.value},
			mergedindex.Op{Key: prefixUploads + outSeg.ID, Value: strings.Join(list, "\n")})
		for _, u := range list {
			b.Ops = append(b.Ops, mergedindex.Op{Key: prefixPresent + u, Value: outSeg.ID})
		}
	}
	expiry := fmt.Sprintf("%020d", ix.cfg.Now().Add(ix.cfg.Grace).UnixNano())
	for _, seg := range group {
		b.If = append(b.If, mergedindex.Cond{Key: prefixSegment + seg.ID, Value: seg.value})
		b.Ops = append(b.Ops,
			mergedindex.Op{Key: prefixSegment + seg.ID, Delete: true},
			mergedindex.Op{Key: prefixUploads + seg.ID, Delete: true},
			mergedindex.Op{Key: prefixOld + expiry + "/" + seg.Blob})
	}
	for u := range dropped {
		b.Ops = append(b.Ops,
			mergedindex.Op{Key: prefixRemoved + u, Delete: true},
			mergedindex.Op{Key: prefixPresent + u, Delete: true})
	}
	res, err := ix.store().Do(ctx, b)
	if err != nil || !res.Applied {
		if outSeg != nil {
			ix.cfg.Blobs.DeleteBlobs(context.WithoutCancel(ctx), outSeg.Blob)
		}
		if err != nil {
			return false, fmt.Errorf("teamsearch: swapping merged segments: %w", err)
		}
		return false, nil
	}
	st.Merges++
	st.Segments += len(group)
	st.Docs += out.Len()
	return true, nil
}

// collect deletes the replaced segments whose grace has passed.
func (ix *Index) collect(ctx context.Context) (int, error) {
	now := fmt.Sprintf("%020d", ix.cfg.Now().UnixNano())
	res, err := ix.store().Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{{Start: prefixOld, End: prefixOld + now, Limit: 500}}})
	if err != nil {
		return 0, fmt.Errorf("teamsearch: reading replaced segments: %w", err)
	}
	es := res.Scans[0].Entries
	if len(es) == 0 {
		return 0, nil
	}
	var blobs []string
	var ops []mergedindex.Op
	for _, e := range es {
		_, blob, _ := strings.Cut(strings.TrimPrefix(e.Key, prefixOld), "/")
		blobs = append(blobs, blob)
		ops = append(ops, mergedindex.Op{Key: e.Key, Delete: true})
	}
	if err := ix.cfg.Blobs.DeleteBlobs(ctx, blobs...); err != nil {
		return 0, fmt.Errorf("teamsearch: deleting replaced segments: %w", err)
	}
	if _, err := ix.store().Do(ctx, &mergedindex.Batch{Ops: ops}); err != nil {
		return 0, fmt.Errorf("teamsearch: forgetting replaced segments: %w", err)
	}
	return len(blobs), nil
}

// takeLease takes the merge lease: "" when another merge holds it.
func (ix *Index) takeLease(ctx context.Context) (string, error) {
	res, err := ix.store().Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{{Start: keyLease, End: keyLease + "\x00"}}})
	if err != nil {
		return "", fmt.Errorf("teamsearch: reading the merge lease: %w", err)
	}
	now := ix.cfg.Now()
	cond := mergedindex.Cond{Key: keyLease, Absent: true}
	if e := res.Scans[0].Entries; len(e) > 0 {
		until, _, _ := strings.Cut(e[0].Value, " ")
		if n, err := strconv.ParseInt(until, 10, 64); err == nil && now.UnixNano() < n {
			return "", nil
		}
		cond = mergedindex.Cond{Key: keyLease, Value: e[0].Value}
	}
	mine := strconv.FormatInt(now.Add(leaseTime).UnixNano(), 10) + " " + ix.newID()
	res, err = ix.store().Do(ctx, &mergedindex.Batch{If: []mergedindex.Cond{cond}, Ops: []mergedindex.Op{{Key: keyLease, Value: mine}}})
	if err != nil {
		return "", fmt.Errorf("teamsearch: taking the merge lease: %w", err)
	}
	if !res.Applied {
		return "", nil
	}
	return mine, nil
}
