package replay

import (
	"bytes"
	"cmp"
	"io"
	"slices"

	"github.com/webkeep/webkeep/shared/cdx"
)

// A batch's records read ahead: a File that fetches records from afar (the team
// archive's bundles, by Range) reads those of a batch (BatchRecords) in a few
// requests first, those near each other in one (BatchRanges), then gives Batch each
// record from memory (ReadFrom).

// BatchRangeGap is the most bytes between two records of a batch that one read takes
// through rather than making two.
const BatchRangeGap = 64 << 10

// BatchRanges returns the byte ranges [from, to) of the file that hold the records of
// the batch of page (BatchRecords, with the same arguments), in order: records at most
// BatchRangeGap bytes apart share a range, up to BatchBytes.
func (ix *Index) BatchRanges(page, at string, isPage func(string) bool) [][2]int64 {
	return recordRanges(ix.BatchRecords(page, at, isPage), BatchRangeGap, BatchBytes)
}

// recordRanges returns the ranges [from, to) of the file that hold recs, in order,
// each record in one of them: records at most gap bytes apart share a range, up to
// limit bytes; a record longer than limit is in none.
func recordRanges(recs []cdx.Entry, gap, limit int64) [][2]int64 {
	recs = slices.Clone(recs)
	slices.SortFunc(recs, func(a, b cdx.Entry) int { return cmp.Compare(a.Offset, b.Offset) })
	var out [][2]int64
	for _, e := range recs {
		from, to := e.Offset, e.Offset+e.Length
		if e.Length <= 0 || to-from > limit {
			continue
		}
		if n := len(out); n > 0 && from <= out[n-1][1]+gap && max(to, out[n-1][1])-out[n-1][0] <= limit {
			out[n-1][1] = max(to, out[n-1][1])
			continue
		}
		out = append(out, [2]int64{from, to})
	}
	return out
}

// A ReadRange is bytes of a file read ahead, from At on.
type ReadRange struct {
	At    int64
	Bytes []byte
}

// ReadFrom returns a reader of the n bytes of the file at off, if one of ranges holds
// them all.
func ReadFrom(ranges []ReadRange, off, n int64) (io.Reader, bool) {
	for _, r := range ranges {
		if off >= r.At && n > 0 && off+n <= r.At+int64(len(r.Bytes)) {
			return bytes.NewReader(r.Bytes[off-r.At : off-r.At+n]), true
		}
	}
	return nil, false
}
