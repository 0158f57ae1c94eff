package teamarchive

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/cdxserver"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
)

// A page's batch for a replay from the team archive (GET /api/replay/batch), made
// in the Worker in one request: the page's capture nearest to ts found in the merged
// index, the index of the bundle that holds it read from the bucket, the records the
// batch takes read from the bundle's data a few ranges at once (replay.BatchRanges),
// and the batch made of them as the extension makes a session's (replay.Index.Batch).
// The extension made it itself from three requests (the lookup, the bundle's index,
// the records' ranges), each a start of the Worker and a trip to it.

// batchLookupLimit bounds the lines of a page's key read for its batch, nearest in
// time first (as the extension's lookup).
const batchLookupLimit = 25

// batchCaching is how a browser keeps a page's batch: in its own cache only (the
// archive's token asked for it), asking again each time (a later upload may hold a
// nearer capture), with If-None-Match, which is answered 304 after the lookup alone.
// So a replay whose extension's worker was stopped since, and which kept nothing,
// still gets its page's batch after the lookup, from the browser's cache. The 304's
// Server-Timing, "batch;desc=unchanged", then replaces the batch's "batch;desc=made".
const batchCaching = "private, no-cache"

// errNoBatch is a batch the Worker does not make: the extension makes it itself,
// from the bundle's index and its records by Range, as before this route.
var errNoBatch = errors.New("no batch")

// replayBatch answers GET /api/replay/batch?url=PAGE&ts=TS: the batch of the capture
// of PAGE (a GET) nearest to TS (the latest without it), in the format of
// replay.WriteBatch; its capture in api.TeamBatchCaptureHeader (and as its ETag: 304
// to a request whose If-None-Match names it, see batchCaching) and the time of each
// step in Server-Timing. A page with no capture (or only an approximate one) gets an empty
// batch; a capture whose batch cannot be made here (its bundle replaced meanwhile, a
// WARC stored deflated in its bundle) a 409 whose error says why.
func (s *Server) replayBatch(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, at := q.Get("url"), q.Get("ts")
	if page == "" {
		return httpErr(http.StatusBadRequest, "url= is required: the page whose batch to make")
	}
	if !replay.ValidTimestamp(at) {
		return httpErr(http.StatusBadRequest, "ts=%q: want a time of up to 14 digits (YYYYMMDDhhmmss, UTC)", clip(at))
	}
	ctx := r.Context()
	var timing []string
	step := time.Now()
	lap := func(name string) {
		now := time.Now()
		timing = append(timing, fmt.Sprintf("%s;dur=%.1f", name, float64(now.Sub(step).Microseconds())/1000))
		step = now
	}
	c, ok, err := s.nearestCapture(ctx, page, at)
	lap("lookup")
	if err != nil {
		return err
	}
	var b []byte
	ranges := 0
	if ok {
		// The capture names the batch, and is its ETag: a client that kept the
		// batch of this capture gets 304 after the lookup alone.
		capture := url.Values{"source": {c.source}, "upload": {c.upload}, "file": {c.Filename}, "timestamp": {c.Timestamp}}.Encode()
		w.Header().Set(api.TeamBatchCaptureHeader, capture)
		w.Header().Set("ETag", `"`+capture+`"`)
		if slices.ContainsFunc(r.Header.Values("If-None-Match"), func(v string) bool { return strings.TrimSpace(v) == `"`+capture+`"` }) {
			w.Header().Set("Cache-Control", batchCaching)
			w.Header().Set("Server-Timing", strings.Join(append(timing, "batch;desc=unchanged"), ", "))
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		b, ranges, err = s.bundleBatch(ctx, c, page, lap)
		if errors.Is(err, errNoBatch) {
			return &apiError{status: http.StatusConflict, err: err}
		}
		if err != nil {
			return err
		}
	} else {
		b = replay.EmptyBatch()
	}
	w.Header().Set("Server-Timing", strings.Join(append(timing, "ranges;desc="+strconv.Itoa(ranges), "batch;desc=made"), ", "))
	w.Header().Set("Cache-Control", batchCaching)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write(b)
	return err
}

// indexedCapture is a capture the merged index holds: its line and the bundle and
// upload it came from.
type indexedCapture struct {
	cdx.Entry
	source, upload string
}

// nearestCapture finds the capture of a GET of page nearest to at in the merged
// index, as a replay finds it (replay.Index.Lookup over the lines of page's key); ok
// is false when there is none, or only an approximate one.
func (s *Server) nearestCapture(ctx context.Context, page, at string) (indexedCapture, bool, error) {
	v := url.Values{"url": {page}, "matchType": {"exact"}, "limit": {strconv.Itoa(batchLookupLimit)}}
	if at == "" {
		v.Set("sort", "reverse")
	} else {
		v.Set("sort", "closest")
		v.Set("closest", at)
	}
	q, err := cdxserver.ParseQuery(v, s.cfg.MaxQueryLimit)
	if err != nil {
		return indexedCapture{}, false, &apiError{status: http.StatusBadRequest, err: fmt.Errorf("url=%q: %w", clip(page), err)}
	}
	ix, _ := s.countingIndex()
	var out bytes.Buffer
	if err := q.Answer(&out, indexLines(ix.Lines(ctx, q.Start, q.End, q.Descending()))); err != nil {
		return indexedCapture{}, false, err
	}
	var found []indexedCapture
	var entries []cdx.Entry
	for line := range bytes.SplitSeq(out.Bytes(), []byte("\n")) {
		e, err := replay.ParseLine(line)
		if err != nil {
			continue
		}
		_, _, fields, _ := cdx.SplitLine(line)
		var tags struct{ Source, Upload string }
		if json.Unmarshal(fields, &tags) != nil || tags.Source == "" {
			continue
		}
		found = append(found, indexedCapture{e, tags.Source, tags.Upload})
		entries = append(entries, e)
	}
	m, i, ok := replay.LookupAmong(entries, &replay.Request{Method: httpmsg.MethodGet, URL: page}, at)
	if !ok || m.Approximate {
		return indexedCapture{}, false, nil
	}
	return found[i], true, nil
}

// bundleBatch makes the batch of page captured as c from c's bundle: its index, then
// the records the batch takes, read ahead in few ranges. It returns the batch and how
// many ranges it read; errNoBatch (wrapped) when the batch is not the Worker's to make.
func (s *Server) bundleBatch(ctx context.Context, c indexedCapture, page string, lap func(string)) ([]byte, int, error) {
	_, rc, err := s.cfg.Bucket.Get(ctx, prefixIndex+c.source, nil)
	if errors.Is(err, ErrNotExist) {
		return nil, 0, fmt.Errorf("%w: bundle %s is gone (the index lags its deletion)", errNoBatch, c.source)
	}
	if err != nil {
		return nil, 0, err
	}
	var e bundleEntry
	err = json.NewDecoder(io.LimitReader(rc, 16<<20)).Decode(&e)
	rc.Close()
	if err != nil {
		return nil, 0, fmt.Errorf("reading the entry of %s: %w", c.source, err)
	}
	if e.DataKey != prefixData+c.source+"/"+c.upload {
		return nil, 0, fmt.Errorf("%w: bundle %s was uploaded again since it was indexed", errNoBatch, c.source)
	}
	// The capture's WARC: a member of the bundle (a WARC uploaded bare is its own).
	i := slices.IndexFunc(e.Files, func(m zipMember) bool { return m.Name == c.Filename })
	if i < 0 {
		return nil, 0, fmt.Errorf("%w: bundle %s has no file %s", errNoBatch, c.source, c.Filename)
	}
	if e.Files[i].Method != zip.Store {
		return nil, 0, fmt.Errorf("%w: %s is stored deflated in bundle %s: its records cannot be read by range", errNoBatch, c.Filename, c.source)
	}
	file := &bundleRecords{ctx: ctx, bucket: s.cfg.Bucket, key: e.DataKey, base: e.Files[i].Offset, size: e.Files[i].Size}
	// The bundle's index: the lines of the capture's file, and its pages (HTML
	// answers), at which a page's batch ends.
	_, rc, err = s.cfg.Bucket.Get(ctx, e.CDXKey, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("the index of %s: %w", c.source, err)
	}
	ix, pages, err := replay.ReadFileIndex(rc, c.Filename)
	rc.Close()
	if err != nil {
		return nil, 0, fmt.Errorf("%w: the index of %s: %v", errNoBatch, c.source, err)
	}
	file.index = ix
	lap("index")
	isPage := func(u string) bool { return pages[u] }
	ranges := ix.BatchRanges(page, c.Timestamp, isPage)
	file.readAhead(ranges)
	defer file.Close()
	lap("records")
	b, _ := ix.Batch(page, c.Timestamp, file, isPage)
	lap("build")
	return b, len(ranges), nil
}

// bundleRecords is the WARC of a bundle in the bucket (size bytes of key from base
// on), as a replay.File whose records are read from the ranges read ahead, else
// each by a range of its own.
type bundleRecords struct {
	ctx        context.Context
	bucket     Bucket
	key        string
	base, size int64
	index      *replay.Index // each record's length
	read       []replay.ReadRange

	mu   sync.Mutex
	open []io.Closer
}

// readAhead reads ranges [from, to) of the file, all at once; a range that fails
// leaves its records to be read each by itself.
func (f *bundleRecords) readAhead(ranges [][2]int64) {
	read := make([]replay.ReadRange, len(ranges))
	var wg sync.WaitGroup
	for i, rg := range ranges {
		wg.Go(func() {
			_, rc, err := f.bucket.Get(f.ctx, f.key, &Range{f.base + rg[0], rg[1] - rg[0]})
			if err != nil {
				return
			}
			defer rc.Close()
			b, err := io.ReadAll(io.LimitReader(rc, rg[1]-rg[0]))
			if err == nil && int64(len(b)) == rg[1]-rg[0] {
				read[i] = replay.ReadRange{At: rg[0], Bytes: b}
			}
		})
	}
	wg.Wait()
	for _, r := range read {
		if r.Bytes != nil {
			f.read = append(f.read, r)
		}
	}
}

func (f *bundleRecords) Size() int64 { return f.size }

func (f *bundleRecords) Reader(off int64) io.Reader {
	n := f.size - off
	if c, ok := f.index.At(off); ok && c.Length > 0 {
		n = c.Length
	}
	if r, ok := replay.ReadFrom(f.read, off, n); ok {
		return r
	}
	if off < 0 || n <= 0 {
		return strings.NewReader("")
	}
	_, rc, err := f.bucket.Get(f.ctx, f.key, &Range{f.base + off, n})
	if err != nil {
		return &failedReader{err}
	}
	f.mu.Lock()
	f.open = append(f.open, rc)
	f.mu.Unlock()
	return rc
}

// Close closes the records' reads still open.
func (f *bundleRecords) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.open {
		c.Close()
	}
	f.open = nil
}

// failedReader is a read that could not begin.
type failedReader struct{ err error }

func (r *failedReader) Read([]byte) (int, error) { return 0, r.err }
