package teamarchive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/teamsearch"
)

// bucketBlobs is the bucket as the merged index's blob store: where compaction
// writes ZipNum blocks (under zipnum/, see the package documentation).
type bucketBlobs struct{ b Bucket }

func (bb bucketBlobs) PutBlob(ctx context.Context, key string, r io.Reader) error {
	_, err := bb.b.Put(ctx, key, r, -1, PutOptions{ContentType: "application/gzip"})
	return err
}

func (bb bucketBlobs) GetBlob(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	_, rc, err := bb.b.Get(ctx, key, &Range{off, n})
	return rc, err
}

func (bb bucketBlobs) DeleteBlobs(ctx context.Context, keys ...string) error {
	return bb.b.Delete(ctx, keys...)
}

// uploadOf returns the upload id of a data or index key ({prefix}{name}/{upload}).
func uploadOf(key string) string { return path.Base(key) }

// indexConfig is the merged index's configuration: over cfg's stores (in memory
// when none) and bucket. Shards due for compaction go to cfg.Due; without it, they
// are compacted by the request that made them due, after it answers (tests and
// local use).
func (s *Server) indexConfig() mergedindex.Config {
	due := s.cfg.Due
	if due == nil {
		due = s.due.add
	}
	return mergedindex.Config{
		Stores: s.cfg.Stores, Blobs: bucketBlobs{s.cfg.Bucket}, Due: due, Now: s.cfg.Now,
		LinesPerBlock: s.cfg.IndexLinesPerBlock, DeltaLimit: s.cfg.IndexDeltaLimit, SplitLines: s.cfg.IndexSplitLines,
		LeaseTime: s.cfg.IndexLease,
	}
}

// searchConfig is the full-text index's configuration: over the merged index's
// stores and the bucket; its merges are due as a shard is (QueueName).
func (s *Server) searchConfig() teamsearch.Config {
	due := s.cfg.Due
	if due == nil {
		due = s.due.add
	}
	return teamsearch.Config{Stores: s.cfg.Stores, Blobs: bucketBlobs{s.cfg.Bucket}, Due: due, Now: s.cfg.Now}
}

// dueShards collects the shards due for compaction when nothing queues them.
type dueShards struct {
	mu     sync.Mutex
	shards map[string]bool
}

func (d *dueShards) add(shard string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shards == nil {
		d.shards = map[string]bool{}
	}
	d.shards[shard] = true
}

func (d *dueShards) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for s := range d.shards {
		out = append(out, s)
	}
	clear(d.shards)
	return out
}

// compactDue compacts the shards made due by this request, when no queue does.
func (s *Server) compactDue() {
	for _, shard := range s.due.take() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		if _, err := s.Compact(ctx, shard); err != nil {
			s.cfg.Logf("teamarchive: compacting %s: %v", shard, err)
		}
		cancel()
	}
}

// Compact compacts one shard of the merged index: what the Worker's queue consumer
// calls for each shard due. The name teamsearch.QueueName merges the full-text
// index's segments instead (the stats then say how many segments were merged
// as Blocks, the pages written as Lines, those dropped as Removed).
func (s *Server) Compact(ctx context.Context, shard string) (*mergedindex.CompactStats, error) {
	if shard == teamsearch.QueueName {
		st, err := s.mergeSearch(ctx)
		if err != nil {
			return nil, err
		}
		return &mergedindex.CompactStats{Shard: shard, Skipped: st.Skipped, Lines: st.Docs, Blocks: st.Segments,
			Removed: st.Dropped, Garbage: st.Garbage, Seconds: st.Seconds}, nil
	}
	return s.ix.Compact(ctx, shard)
}

// indexLines adds an upload's sorted CDXJ index to the merged index.
func (s *Server) indexLines(ctx context.Context, name, dataKey string, index []byte) error {
	if _, err := s.ix.Add(ctx, name, uploadOf(dataKey), bytes.Split(bytes.TrimRight(index, "\n"), []byte("\n"))); err != nil {
		return fmt.Errorf("indexing %s: %w", name, err)
	}
	return nil
}

// unindexChunk is the number of lines unindex hands the merged index at a time.
const unindexChunk = 5000

// unindex removes an upload's lines from the merged index, reading them from its
// stored CDXJ index; an upload whose index was never stored was never indexed.
func (s *Server) unindex(ctx context.Context, name, cdxKey string) error {
	// The text first: a page found has its record.
	if err := s.search.Remove(ctx, name, uploadOf(cdxKey)); err != nil {
		return fmt.Errorf("unindexing the text of %s: %w", name, err)
	}
	_, rc, err := s.cfg.Bucket.Get(ctx, cdxKey, nil)
	if errors.Is(err, ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the index of %s: %w", name, err)
	}
	defer rc.Close()
	// Streamed, unindexChunk lines at a time: an index may be large.
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 0, 64<<10), cdx.MaxLineLength)
	var chunk [][]byte
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		if err := s.ix.Remove(ctx, name, uploadOf(cdxKey), chunk); err != nil {
			return fmt.Errorf("unindexing %s: %w", name, err)
		}
		chunk = chunk[:0]
		return nil
	}
	for sc.Scan() {
		chunk = append(chunk, bytes.Clone(sc.Bytes()))
		if len(chunk) == unindexChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the index of %s: %w", name, err)
	}
	return flush()
}

func (s *Server) unindexQuietly(name, cdxKey string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.unindex(ctx, name, cdxKey); err != nil {
		s.cfg.Logf("teamarchive: %v", err)
	}
}

// A digestsQuery asks which payload digests the team holds.
type digestsQuery struct {
	Digests []string `json:"digests"`
}

// postDigests answers which of the digests asked (as CDXJ lines give them) a
// bundle holds, with one capture of each: what an upload needs to write revisit
// records for the payloads the team already has.
func (s *Server) postDigests(w http.ResponseWriter, r *http.Request) error {
	var q digestsQuery
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	if err := dec.Decode(&q); err != nil {
		return httpErr(http.StatusBadRequest, "reading the digests asked: want {\"digests\": [...]}: %v", err)
	}
	if len(q.Digests) > mergedindex.MaxDigests {
		return httpErr(http.StatusRequestEntityTooLarge, "%d digests asked at once; at most %d", len(q.Digests), mergedindex.MaxDigests)
	}
	known, err := s.ix.Holders(r.Context(), q.Digests)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"known": known})
	return nil
}

// getIndex answers the merged index's shards (GET /api/index).
func (s *Server) getIndex(w http.ResponseWriter, r *http.Request) error {
	shards, err := s.ix.Shards(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"shards": shards})
	return nil
}

// postCompact compacts one shard (?shard=) or every shard, now (POST
// /api/index/compact): what the queue does by itself, for operators and tests.
func (s *Server) postCompact(w http.ResponseWriter, r *http.Request) error {
	names := []string{r.URL.Query().Get("shard")}
	if names[0] == "" {
		shards, err := s.ix.Shards(r.Context())
		if err != nil {
			return err
		}
		names = names[:0]
		for _, sh := range shards {
			names = append(names, sh.Name)
		}
		names = append(names, teamsearch.QueueName)
	} else if !mergedindex.ValidShard(names[0]) && names[0] != teamsearch.QueueName {
		return httpErr(http.StatusBadRequest, "%q is not a shard of the index (GET /api/index lists them)", clip(names[0]))
	}
	var done []*mergedindex.CompactStats
	for _, n := range names {
		st, err := s.Compact(r.Context(), n)
		if err != nil {
			return err
		}
		done = append(done, st)
	}
	writeJSON(w, http.StatusOK, map[string]any{"compacted": done})
	return nil
}
