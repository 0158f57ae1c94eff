package teamsearch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/search"
)

// Names and defaults.
const (
	// StoreName is the store (of Config.Stores) that lists the segments.
	StoreName = "search"
	// QueueName is what Config.Due is told when segments are due for merging.
	QueueName = "search"
	// DefaultFanout is how many segments of one tier are merged into one.
	DefaultFanout = 8
	// DefaultMaxSegmentBytes bounds what a merge writes: segments past half of
	// it are merged no more (but to drop removed uploads).
	DefaultMaxSegmentBytes = 16 << 20
	// DefaultStoredText is how much of a page's text a segment keeps: the whole
	// text up to it, so that a merge indexes it again.
	DefaultStoredText = 1 << 20
	// DefaultPurge is the number of removed uploads past which a merge rewrites
	// the segments that hold them even when no tier is full.
	DefaultPurge = 64
	// DefaultGrace is how long replaced segments stay for queries under way.
	DefaultGrace = 10 * time.Minute
	// leaseTime bounds a merge: past it, another may take over.
	leaseTime = 15 * time.Minute
	// tierBase is the size of the smallest tier's segments: tier t holds the
	// segments of about tierBase*Fanout^t bytes.
	tierBase = 64 << 10
	// parallel is how many segments a query reads at once (a Worker keeps six
	// connections open at a time).
	parallel = 6
	// snippetBytes is about how long a result's snippet is.
	snippetBytes = 240
)

// Keys of the segment store.
const (
	prefixSegment = "g/" // g/<segment id> → segment (JSON)
	prefixUploads = "u/" // u/<segment id> → the uploads it holds, one a line
	prefixPresent = "p/" // p/<upload> → the segment that holds its pages
	prefixRemoved = "x/" // x/<upload> → the segment that holds its pages: removed, not yet dropped
	prefixOld     = "o/" // o/<unix nanoseconds>/<blob> → "": a replaced segment, deleted after then
	keyLease      = "l/lease"
)

// Config configures an Index.
type Config struct {
	Stores mergedindex.Stores // holds the store StoreName; required
	Blobs  mergedindex.Blobs  // holds the segments' tables; required
	// Due is told QueueName when a merge is due (the Worker queues it for
	// Merge); nil: nobody is told.
	Due func(name string)
	// Fanout, MaxSegmentBytes, StoredText, Purge, Grace: zero means the default.
	Fanout          int
	MaxSegmentBytes int64
	StoredText      int
	Purge           int
	Grace           time.Duration
	// Now gives times; time.Now when nil.
	Now func() time.Time
}

// An Index is the team archive's full-text index: segments of pages, each a
// search index laid out as a table in the blob store, listed in one store, and
// merged in tiers so that a query reads a number of segments logarithmic in the
// pages held. See the package documentation.
type Index struct {
	cfg Config
}

// New returns an Index for cfg, with defaults filled in.
func New(cfg Config) *Index {
	if cfg.Fanout < 2 {
		cfg.Fanout = DefaultFanout
	}
	if cfg.MaxSegmentBytes <= 0 {
		cfg.MaxSegmentBytes = DefaultMaxSegmentBytes
	}
	if cfg.StoredText <= 0 {
		cfg.StoredText = DefaultStoredText
	}
	if cfg.Purge <= 0 {
		cfg.Purge = DefaultPurge
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Due == nil {
		cfg.Due = func(string) {}
	}
	return &Index{cfg: cfg}
}

// A segment is a directory entry: where a segment's table is and what it holds.
type segment struct {
	ID       string `json:"-"`
	Blob     string `json:"blob"`
	Docs     int    `json:"docs"`
	Bytes    int64  `json:"bytes"`
	IndexOff int64  `json:"indexOff"`
	IndexLen int64  `json:"indexLen"`
	Meta     []byte `json:"meta"` // the search index's "m"
	value    string // the entry as stored, for conditions
}

func (ix *Index) store() mergedindex.Store { return ix.cfg.Stores.Open(StoreName) }

// tier is the merge tier of a segment of n bytes.
func (ix *Index) tier(n int64) int {
	if n <= tierBase {
		return 0
	}
	return int(math.Log(float64(n)/tierBase) / math.Log(float64(ix.cfg.Fanout)))
}

// full says a segment is merged no more (but to drop removed uploads).
func (ix *Index) full(s *segment) bool { return s.Bytes >= ix.cfg.MaxSegmentBytes/2 }

// newID is sortable by time and unique: the time and 64 random bits.
func (ix *Index) newID() string {
	var b [8]byte
	rand.Read(b[:])
	return ix.cfg.Now().UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:])
}

// Ref is where a page's response record is: what Hit gives of it.
type Ref struct {
	Upload string // the upload of the bundle that holds it
	File   string // the WARC in the bundle (as a CDX line's "filename")
	Offset int64  // where its record starts in that WARC
}

// String encodes r as a Document's Ref: upload, offset, then the file, which
// may hold any character, separated by slashes.
func (r Ref) String() string {
	return r.Upload + "/" + strconv.FormatInt(r.Offset, 10) + "/" + r.File
}

// ParseRef decodes what Ref.String encodes.
func ParseRef(s string) (Ref, error) {
	up, rest, ok1 := strings.Cut(s, "/")
	off, file, ok2 := strings.Cut(rest, "/")
	n, err := strconv.ParseInt(off, 10, 64)
	if !ok1 || !ok2 || up == "" || err != nil || n < 0 {
		return Ref{}, fmt.Errorf("teamsearch: %.100q is not a page's reference", s)
	}
	return Ref{Upload: up, File: file, Offset: n}, nil
}

// segmentOptions are the options of the index a segment is written with: no
// pairs of common words, which made a segment's tables a seventh larger and
// its searches, which read the tables' blobs, slower (two words at 10,000
// pages 142 ms against 166 and 181 in two runs, the Worker bench), phrases
// of common words no faster.
func (ix *Index) segmentOptions() *search.Options {
	return &search.Options{StoredText: ix.cfg.StoredText, CommonTerms: -1}
}

// Add indexes the pages of one upload of a bundle as a new segment: a query
// finds them as soon as Add returns. Each document's Session should be the
// bundle's name and its Ref a Ref of upload. It returns the segment's size.
func (ix *Index) Add(ctx context.Context, upload string, docs []search.Document) (int64, error) {
	if len(docs) == 0 {
		return 0, nil
	}
	mem := search.NewMemStore()
	six, err := search.Open(mem, ix.segmentOptions())
	if err != nil {
		return 0, err
	}
	for _, d := range docs {
		if _, err := six.Add(d); err != nil {
			return 0, fmt.Errorf("teamsearch: indexing %s: %w", d.URL, err)
		}
	}
	seg, err := ix.writeSegment(ctx, mem, six)
	if err != nil {
		return 0, err
	}
	ops := []mergedindex.Op{
		{Key: prefixSegment + seg.ID, Value: seg.value},
		{Key: prefixUploads + seg.ID, Value: upload},
		{Key: prefixPresent + upload, Value: seg.ID},
	}
	res, err := ix.store().Do(ctx, &mergedindex.Batch{Ops: ops, Scans: []mergedindex.Scan{{Start: prefixSegment, End: prefixEnd(prefixSegment)}}})
	if err != nil {
		ix.cfg.Blobs.DeleteBlobs(context.WithoutCancel(ctx), seg.Blob)
		return 0, fmt.Errorf("teamsearch: listing a segment: %w", err)
	}
	segs, _ := parseSegments(res.Scans[0].Entries)
	if ix.pick(segs) != nil {
		ix.cfg.Due(QueueName)
	}
	return seg.Bytes, nil
}

// writeSegment stores the index in mem as a segment's table.
func (ix *Index) writeSegment(ctx context.Context, mem *search.MemStore, six *search.Index) (*segment, error) {
	if err := six.Flush(); err != nil {
		return nil, err
	}
	meta, err := mem.Get("m")
	if err != nil {
		return nil, fmt.Errorf("teamsearch: an index without its meta: %w", err)
	}
	data, off, n, err := buildTable(mem)
	if err != nil {
		return nil, err
	}
	seg := &segment{ID: ix.newID(), Docs: six.Len(), Bytes: int64(len(data)), IndexOff: off, IndexLen: n, Meta: bytes.Clone(meta)}
	seg.Blob = "search/" + seg.ID + ".tbl"
	js, _ := json.Marshal(seg)
	seg.value = string(js)
	if err := ix.cfg.Blobs.PutBlob(ctx, seg.Blob, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("teamsearch: storing a segment: %w", err)
	}
	return seg, nil
}

// Remove takes an upload's pages out of the index: they are no longer found
// when Remove returns. A segment that holds the upload's pages only (one not
// merged yet) is deleted; otherwise the upload is marked removed in the
// segment that holds it, and the merge that next rewrites that segment drops
// its pages. An upload that has no pages in the index is left alone.
func (ix *Index) Remove(ctx context.Context, bundle, upload string) error {
	for attempt := 0; ; attempt++ {
		done, err := ix.remove(ctx, upload)
		if err != nil {
			return fmt.Errorf("teamsearch: removing %s of %s: %w", upload, bundle, err)
		}
		if done {
			return nil
		}
		if attempt == 8 {
			return fmt.Errorf("teamsearch: removing %s of %s: its segment kept changing", upload, bundle)
		}
	}
}

// remove is one attempt of Remove: false when a merge moved the upload's
// pages meanwhile.
func (ix *Index) remove(ctx context.Context, upload string) (bool, error) {
	res, err := ix.store().Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{{Start: prefixPresent + upload, End: prefixPresent + upload + "\x00"}}})
	if err != nil {
		return false, err
	}
	e := res.Scans[0].Entries
	if len(e) == 0 {
		return true, nil
	}
	id := e[0].Value
	res, err = ix.store().Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{
		{Start: prefixSegment + id, End: prefixSegment + id + "\x00"},
		{Start: prefixUploads + id, End: prefixUploads + id + "\x00"},
	}})
	if err != nil {
		return false, err
	}
	g, u := res.Scans[0].Entries, res.Scans[1].Entries
	if len(g) == 1 && len(u) == 1 && u[0].Value == upload {
		// Its own segment still: unlisted and deleted, if it is as read.
		segs, err := parseSegments(g)
		if err != nil {
			return false, err
		}
		res, err := ix.store().Do(ctx, &mergedindex.Batch{
			If: []mergedindex.Cond{{Key: g[0].Key, Value: g[0].Value}, {Key: u[0].Key, Value: upload}},
			Ops: []mergedindex.Op{{Key: g[0].Key, Delete: true}, {Key: u[0].Key, Delete: true},
				{Key: prefixPresent + upload, Delete: true}},
		})
		if err != nil || !res.Applied {
			return false, err
		}
		// Unlisted: nothing reads it any more; a blob left is only space.
		if err := ix.cfg.Blobs.DeleteBlobs(ctx, segs[0].Blob); err != nil {
			return false, fmt.Errorf("deleting its segment: %w", err)
		}
		return true, nil
	}
	// Marked removed in the segment that holds it, if that is still the one.
	res, err = ix.store().Do(ctx, &mergedindex.Batch{
		If:    []mergedindex.Cond{{Key: prefixPresent + upload, Value: id}},
		Ops:   []mergedindex.Op{{Key: prefixRemoved + upload, Value: id}},
		Scans: []mergedindex.Scan{{Start: prefixRemoved, End: prefixEnd(prefixRemoved), Count: true}},
	})
	if err != nil || !res.Applied {
		return false, err
	}
	if res.Scans[0].Count%ix.cfg.Purge == 0 {
		ix.cfg.Due(QueueName)
	}
	return true, nil
}

func prefixEnd(p string) string { return p[:len(p)-1] + string(p[len(p)-1]+1) }

func parseSegments(es []mergedindex.Entry) ([]*segment, error) {
	var out []*segment
	for _, e := range es {
		s := &segment{ID: strings.TrimPrefix(e.Key, prefixSegment), value: e.Value}
		if err := json.Unmarshal([]byte(e.Value), s); err != nil {
			return nil, fmt.Errorf("teamsearch: segment entry %s: %w", e.Key, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// A Hit is a page that matches a query.
type Hit struct {
	search.Result
	Bundle string // the bundle's name (the Result's Session)
	Ref           // where its record is
}

// Results are the matches of a query, best first, and what finding them read.
type Results struct {
	Total int // pages that match
	// Estimated says Total is an estimate: a segment's was (search.Results).
	Estimated bool
	Hits      []Hit // the best of them, at most the limit asked for
	Stats     Stats
}

// Stats count what a query read.
type Stats struct {
	Segments   int   `json:"segments"`   // segments searched
	StoreCalls int   `json:"storeCalls"` // calls of the segment store
	BlobReads  int64 `json:"blobReads"`  // range reads of segments
	BlobBytes  int64 `json:"blobBytes"`  // the bytes they read
}

// Search answers a query across every segment: the pages that match q (as
// search.Index.Search matches them) and were not removed, ranked by BM25 over
// the counts of all the segments (as one index of them all would rank them),
// then newest first; limit <= 0 means all. Snippets are made for the hits
// returned only.
func (ix *Index) Search(ctx context.Context, q search.Query, limit int) (Results, error) {
	res, err := ix.store().Do(ctx, &mergedindex.Batch{Scans: []mergedindex.Scan{
		{Start: prefixSegment, End: prefixEnd(prefixSegment)},
		{Start: prefixRemoved, End: prefixEnd(prefixRemoved)},
	}})
	if err != nil {
		return Results{}, fmt.Errorf("teamsearch: reading the segments: %w", err)
	}
	segs, err := parseSegments(res.Scans[0].Entries)
	if err != nil {
		return Results{}, err
	}
	// The removed uploads, and the segments that hold them. A segment that holds
	// none answers its best limit matches, and how many match; one that does, all
	// its matches, the removed ones then dropped. A removed upload whose segment
	// is not listed (a merge moved it while it was removed) makes every segment
	// answer all its matches.
	removed := map[string]bool{}
	holding := map[string]bool{}
	listed := map[string]bool{}
	for _, s := range segs {
		listed[s.ID] = true
	}
	all := limit <= 0
	for _, e := range res.Scans[1].Entries {
		removed[strings.TrimPrefix(e.Key, prefixRemoved)] = true
		holding[e.Value] = true
		all = all || !listed[e.Value]
	}
	out := Results{Stats: Stats{Segments: len(segs), StoreCalls: 1}}
	var reads readCount

	type found struct {
		six *search.Index
		t   *table
		hit Hit
	}
	var (
		mu        sync.Mutex
		hits      []found
		total     int
		estimated bool
	)
	noText := func(*search.Result) (string, error) { return "", nil }

	// First the counts BM25 ranks by, summed over the segments, so that the
	// pages of every segment rank as one index of them all would rank them.
	tables := make([]*table, len(segs))
	var corpus search.Corpus
	err = inParallel(len(segs), func(i int) error {
		t, err := openTable(ctx, ix.cfg.Blobs, segs[i], &reads)
		var six *search.Index
		if err == nil {
			six, err = search.Open(t, &search.Options{Text: noText})
		}
		var c search.Corpus
		if err == nil {
			c, err = six.Corpus(q)
		}
		if err != nil {
			return fmt.Errorf("teamsearch: segment %s: %w", segs[i].ID, err)
		}
		mu.Lock()
		defer mu.Unlock()
		tables[i] = t
		corpus.Add(c)
		return nil
	})
	if err != nil {
		out.Stats.BlobReads, out.Stats.BlobBytes = reads.reads.Load(), reads.bytes.Load()
		return out, err
	}

	// Then each segment's matches, ranked by those counts; the blocks the
	// first pass read are held.
	err = inParallel(len(segs), func(i int) error {
		t := tables[i]
		six, err := search.Open(t, &search.Options{Text: noText, Corpus: &corpus})
		whole := all || holding[segs[i].ID]
		segLimit := limit
		if whole {
			segLimit = 0
		}
		var r search.Results
		if err == nil {
			r, err = six.Search(q, segLimit)
		}
		if err != nil {
			return fmt.Errorf("teamsearch: segment %s: %w", segs[i].ID, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if !whole {
			total += r.Total
			estimated = estimated || r.Estimated
		}
		for _, h := range r.Hits {
			ref, err := ParseRef(h.Ref)
			if err != nil || removed[ref.Upload] {
				continue
			}
			if whole {
				total++
			}
			hits = append(hits, found{six, t, Hit{Result: h, Bundle: h.Session, Ref: ref}})
		}
		return nil
	})
	out.Stats.BlobReads, out.Stats.BlobBytes = reads.reads.Load(), reads.bytes.Load()
	if err != nil {
		return out, err
	}
	slices.SortFunc(hits, func(a, b found) int {
		if a.hit.Score != b.hit.Score {
			if a.hit.Score > b.hit.Score {
				return -1
			}
			return 1
		}
		if c := b.hit.Time.Compare(a.hit.Time); c != 0 {
			return c
		}
		return strings.Compare(a.hit.URL+a.hit.Ref.String(), b.hit.URL+b.hit.Ref.String())
	})
	out.Total, out.Estimated = total, estimated
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	var must []search.Clause
	for _, c := range q.Clauses {
		if !c.Exclude {
			must = append(must, c)
		}
	}
	// The snippets' texts, read at once, each with its block only.
	for _, f := range hits {
		f.t.scattered()
	}
	texts := make([]string, len(hits))
	err = inParallel(len(hits), func(i int) (err error) {
		texts[i], err = hits[i].six.StoredText(hits[i].hit.ID)
		return err
	})
	if err != nil {
		return out, err
	}
	for i, f := range hits {
		f.hit.Snippet = search.Snippet(texts[i], must, snippetBytes)
		out.Hits = append(out.Hits, f.hit)
	}
	out.Stats.BlobReads, out.Stats.BlobBytes = reads.reads.Load(), reads.bytes.Load()
	return out, nil
}

// inParallel calls f(0) to f(n-1), parallel at a time, and returns their errors
// joined.
func inParallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
