package mergedindex

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/webkeep/webkeep/shared/cdx"
)

// The digest index: for each payload digest, the uploads holding a capture of it,
// so that an upload can write a revisit record for a payload the team already has
// (deduplication across sessions and members). Its entries live in digestStores
// stores chosen by a hash of the digest, each
//
//	x/<digest>/<upload> -> "<url>\t<timestamp>\t<bundle>"
//
// added with the upload's lines and deleted with them, so a holder found is live.
const (
	digestStores = 16
	prefixDigest = "x/"
	// MaxDigests bounds the digests one Holders call looks up.
	MaxDigests = 1000
)

// A Holder is a capture holding a payload: what a revisit record refers to.
type Holder struct {
	URL       string `json:"url"`
	Timestamp string `json:"timestamp"`
	Bundle    string `json:"source"`
}

func digestStore(digest string) string {
	h := fnv.New32a()
	h.Write([]byte(digest))
	return fmt.Sprintf("digests-%02d", h.Sum32()%digestStores)
}

// digestOps returns, by store, the digest entries of an upload's lines: the
// captures of a payload (not revisits, not metadata or requests).
func digestOps(bundle, upload string, lines [][]byte, remove bool) map[string][]Op {
	ops := map[string][]Op{}
	for _, l := range lines {
		e, err := cdx.ParseEntry(l)
		if err != nil || e.Digest == "" || e.Mime == "warc/revisit" || e.Status == "" || e.Status == "-" {
			continue
		}
		d := e.Digest
		op := Op{Key: prefixDigest + d + "/" + upload, Delete: remove}
		if !remove {
			op.Value = e.URL + "\t" + e.Timestamp + "\t" + bundle
		}
		s := digestStore(d)
		ops[s] = append(ops[s], op)
	}
	return ops
}

func (ix *Index) writeDigests(ctx context.Context, ops map[string][]Op) error {
	for store, list := range ops {
		for len(list) > 0 {
			n := min(len(list), opsPerBatch)
			if _, err := ix.cfg.Stores.Open(store).Do(ctx, &Batch{Ops: list[:n]}); err != nil {
				return fmt.Errorf("mergedindex: writing digests to %s: %w", store, err)
			}
			list = list[n:]
		}
	}
	return nil
}

// Holders returns, for each of digests (as CDXJ lines give them, without "sha1:")
// that a live upload holds, one capture of it.
func (ix *Index) Holders(ctx context.Context, digests []string) (map[string]Holder, error) {
	if len(digests) > MaxDigests {
		return nil, fmt.Errorf("mergedindex: %d digests asked at once; at most %d", len(digests), MaxDigests)
	}
	byStore := map[string][]string{}
	for _, d := range digests {
		if d == "" || strings.ContainsAny(d, "/\x00") {
			continue
		}
		s := digestStore(d)
		if !slices.Contains(byStore[s], d) {
			byStore[s] = append(byStore[s], d)
		}
	}
	out := map[string]Holder{}
	for store, ds := range byStore {
		b := &Batch{}
		for _, d := range ds {
			b.Scans = append(b.Scans, Scan{Start: prefixDigest + d + "/", End: prefixDigest + d + "0", Limit: 1})
		}
		res, err := ix.cfg.Stores.Open(store).Do(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("mergedindex: reading digests from %s: %w", store, err)
		}
		for i, d := range ds {
			if e := res.Scans[i].Entries; len(e) > 0 {
				f := strings.SplitN(e[0].Value, "\t", 3)
				if len(f) == 3 {
					out[d] = Holder{URL: f[0], Timestamp: f[1], Bundle: f[2]}
				}
			}
		}
	}
	return out, nil
}
