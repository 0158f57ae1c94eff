package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
)

// A team replay's batch: the records of a page's capture, those recorded with it and
// the originals of revisits among them, read from the bundle that holds the capture
// by as few Range requests as their places allow, so that the replay answers the
// page's requests as it answers a session's.

// batch is the batch of page (replay.Index.Batch) from the bundle that holds its
// capture nearest to at. The team archive's Worker makes it in one request
// (workerBatch), unless the bundle's index kept here holds the page. Else, and from
// an archive whose Worker does not make it: the page's capture is looked up in the merged index, the
// bundle's own index read whole (GET /api/bundles/{name}?cdxj; the last one read is
// kept), and the records the batch takes (replay.Index.BatchRecords: the page's,
// those recorded with it, the originals of revisits among them) read from its WARC
// by Range, those near each other by one request, the requests at once (batchGuess:
// as the merged index is asked, when the kept index holds the page). The replay then
// answers them from the batch, as a session's, instead of asking the merged index
// and the bundle for each. A resource whose
// capture the batch leaves out (another bundle's, a revisit of one, a large body) is
// asked for by itself. A page the batch cannot be made for has an empty batch: each
// request is asked for by itself. The batches made last are kept, as a session's
// replays keep theirs: the merged index is asked again (a later upload may hold a
// nearer capture), but the records of a batch kept are not read again. A bundle's
// upload never changes, so neither does a batch of its file. It returns the time
// each step took too.
func (tm *team) batch(ctx context.Context, page, at string) ([]byte, batchTiming) {
	var took batchTiming
	step := time.Now()
	lap := func(d *time.Duration) {
		now := time.Now()
		*d, step = now.Sub(step), now
	}
	empty := func() ([]byte, batchTiming) { return replay.EmptyBatch(), took }
	guess, kept := tm.guessBatch(ctx, page, at)
	if guess != nil {
		defer guess.cancel()
	}
	if guess == nil && !kept {
		if b, took, ok := tm.workerBatch(ctx, page, at); ok {
			return b, took
		}
	}
	m, line, ok, err := tm.lookup(ctx, &replay.Request{Method: httpmsg.MethodGet, URL: page}, at)
	lap(&took.lookup)
	if err != nil || !ok || m.Approximate {
		return empty()
	}
	key := tm.batchKey(line.bundleKey(), page, m.Capture.Timestamp)
	if b, ok := tm.replay.batches.get(key); ok {
		took.guessed = "kept"
		return b, took
	}
	var f *teamBundleFile
	if guess != nil && guess.f.index.key == line.bundleKey() && guess.offset == m.Capture.Offset {
		took.guessed = "hit"
		<-guess.done
		f = guess.f
		took.ranges = guess.ranges
	} else {
		if guess != nil {
			took.guessed = "miss"
			guess.cancel()
		}
		bi, err := tm.bundleIndex(ctx, line)
		lap(&took.index)
		if err != nil {
			return empty()
		}
		f = &teamBundleFile{tm: tm, ctx: ctx, path: line.path(), index: bi}
		took.ranges = f.readRanges(bi.ix.BatchRanges(page, m.Capture.Timestamp, bi.isPage))
	}
	defer f.Close()
	lap(&took.records)
	b, _ := f.index.ix.Batch(page, m.Capture.Timestamp, f, f.index.isPage)
	tm.replay.batches.put(key, b)
	lap(&took.build)
	return b, took
}

// teamBatchKey names a team replay's batch: the team archive, the bundle's file (its
// upload: teamLine.bundleKey), the page and its capture's time.
type teamBatchKey struct {
	endpoint, bundle, page, ts string
}

func (tm *team) batchKey(bundle, page, ts string) teamBatchKey {
	return teamBatchKey{tm.settings.get().TeamEndpoint, bundle, page, ts}
}

// batchGuess is the records of a page's batch read, while the merged index is asked,
// from the bundle whose index is kept: a replay goes from page to page of one bundle,
// and when the merged index finds the capture guessed, the batch has waited for one
// trip to the team archive, not two.
type batchGuess struct {
	f      *teamBundleFile
	offset int64         // of the page's capture guessed
	ranges int           // the Range requests its records took, once done
	done   chan struct{} // closed once the records are read
	cancel context.CancelFunc
}

// guessBatch starts reading the records of page's batch from the bundle whose index
// is kept, if it holds a capture of page; nil if not, with kept true if the batch of
// that capture is kept (nothing to read).
func (tm *team) guessBatch(ctx context.Context, page, at string) (g *batchGuess, kept bool) {
	t := &tm.replay
	t.mu.Lock()
	bi := t.bundle
	t.mu.Unlock()
	if bi == nil {
		return nil, false
	}
	m, ok := bi.ix.Lookup(&replay.Request{Method: httpmsg.MethodGet, URL: page}, at)
	if !ok || m.Approximate {
		return nil, false
	}
	if _, kept := t.batches.get(tm.batchKey(bi.key, page, m.Capture.Timestamp)); kept {
		return nil, true
	}
	ctx, cancel := context.WithCancel(ctx)
	ranges := bi.ix.BatchRanges(page, m.Capture.Timestamp, bi.isPage)
	g = &batchGuess{f: &teamBundleFile{tm: tm, ctx: ctx, path: bi.path, index: bi}, offset: m.Capture.Offset, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(g.done)
		g.ranges = g.f.readRanges(ranges)
	}()
	return g, false
}

// maxTeamBatch bounds the bytes of a batch the team archive answers: its answers'
// JSON and at most replay.BatchBytes of bodies.
const maxTeamBatch = replay.BatchBytes + 4<<20

// workerBatch asks the team archive for the batch of page, made by its Worker in one
// request (GET /api/replay/batch: the lookup, the bundle's index and the records in
// the Worker, instead of a request for each), and keeps it under the capture it
// names; a batch kept is named (If-None-Match), and taken when the Worker finds
// the same capture (304, its lookup alone). ok is false when the archive did not
// make it: one that predates the route
// (404: not asked again of that archive), a capture whose batch the Worker cannot make
// (409: a WARC stored deflated in its bundle) or a failure; the batch is then made
// here, from the bundle's index and records, as before.
func (tm *team) workerBatch(ctx context.Context, page, at string) (b []byte, took batchTiming, ok bool) {
	endpoint := tm.settings.get().TeamEndpoint
	asked := teamBatchAsked{endpoint, page, at}
	t := &tm.replay
	t.mu.Lock()
	unknown := t.noWorkerBatch == endpoint
	// The batch this page last got, if kept, is named: the Worker answers 304 if its
	// lookup finds the same capture.
	last, had := t.asked[asked]
	t.mu.Unlock()
	if unknown {
		return nil, took, false
	}
	var header map[string]string
	var keptBatch []byte
	if had {
		if keptBatch, had = t.batches.get(last.key); had {
			header = map[string]string{"If-None-Match": `"` + last.capture + `"`}
		}
	}
	start := time.Now()
	resp, err := tm.requestWith(ctx, httpmsg.MethodGet, "/api/replay/batch?"+url.Values{"url": {page}, "ts": {at}}.Encode(), nil, -1, header)
	var te *teamError
	switch {
	case errors.As(err, &te) && te.status == httpmsg.StatusNotModified && had:
		took.lookup, took.guessed = time.Since(start), "kept"
		return keptBatch, took, true
	case errors.As(err, &te) && te.status == httpmsg.StatusNotFound:
		t.mu.Lock()
		t.noWorkerBatch = endpoint
		t.mu.Unlock()
		return nil, took, false
	case err != nil:
		return nil, took, false
	}
	defer resp.Body.Close()
	b, err = io.ReadAll(io.LimitReader(resp.Body, maxTeamBatch+1))
	if err != nil || len(b) > maxTeamBatch {
		return nil, took, false
	}
	if _, _, err := replay.ReadBatch(bytes.NewReader(b)); err != nil {
		return nil, took, false
	}
	// The Worker's steps. A batch the browser kept in its cache, and the Worker said
	// was unchanged (304, after its lookup), has the 304's.
	took.worker, took.guessed, took.trip = resp.Header.Get("Server-Timing"), "worker", time.Since(start)
	if strings.Contains(took.worker, "batch;desc=unchanged") {
		took.guessed = "cached"
	}
	capture := resp.Header.Get(api.TeamBatchCaptureHeader)
	if c, err := url.ParseQuery(capture); err == nil && c.Get("source") != "" {
		key := tm.batchKey(bundleKey(c.Get("source"), c.Get("upload"), c.Get("file")), page, c.Get("timestamp"))
		t.batches.put(key, b)
		t.mu.Lock()
		if t.asked == nil || len(t.asked) >= maxBatchesAsked {
			t.asked = map[teamBatchAsked]teamBatchGot{}
		}
		t.asked[asked] = teamBatchGot{key, capture}
		t.mu.Unlock()
	}
	return b, took, true
}

// maxBatchesAsked bounds the batches asked of the Worker whose capture is remembered
// (teamReplay.asked); past it, all are forgotten.
const maxBatchesAsked = 1024

// teamBatchAsked is a batch asked of the Worker: of page as of at, in the team
// archive at endpoint (or a URL asked for by range: teamReplay.ranged).
type teamBatchAsked struct{ endpoint, page, at string }

// teamBatchGot is the batch the Worker answered: its key among the kept batches and
// its capture (api.TeamBatchCaptureHeader, its ETag).
type teamBatchGot struct {
	key     teamBatchKey
	capture string
}

// batchTiming is the time each step of a team replay's batch took: the lookup of
// its page in the merged index, the reading of its bundle's index (next to nothing
// when kept), then the wait for its records, and the making of the batch (with the
// records it read by themselves); whether the records read from the kept index as
// the lookup went were the batch's ("hit"), not ("miss"), or none were (""), or the
// batch was kept from an earlier replay ("kept": no records read); and how many
// requests the records took (one for several ranges answered in parts). A batch the
// Worker made has the Worker's steps (its lookup, the bundle's index read, the
// records read ahead and the batch made) and "worker"; one the browser's cache kept,
// the Worker's lookup alone and "cached"; either, the whole trip to the Worker as the
// core waited for it ("trip": the Worker's steps, its start and answer, the way
// there and back). Its String is a Server-Timing header's value, which the replay
// benchmark reports.
type batchTiming struct {
	lookup, index, records, build time.Duration
	guessed                       string
	ranges                        int           // the requests the records took (one for several ranges answered in parts)
	worker                        string        // the Server-Timing of a batch the Worker made: its steps
	trip                          time.Duration // the request to the Worker, from the core's asking to the batch read
}

func (t batchTiming) String() string {
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	if t.worker != "" {
		return t.worker + ", trip;dur=" + ms(t.trip) + ", guess;desc=" + t.guessed
	}
	s := "lookup;dur=" + ms(t.lookup) + ", index;dur=" + ms(t.index) + ", records;dur=" + ms(t.records) + ", build;dur=" + ms(t.build)
	if t.guessed != "" {
		s += ", guess;desc=" + t.guessed
	}
	return s + ", ranges;desc=" + strconv.Itoa(t.ranges)
}

// teamBundleIndex is the index of a bundle's WARC file, as a team replay's batches
// read it.
type teamBundleIndex struct {
	key   string // the bundle, its upload and the file (teamLine.bundleKey)
	path  string // the file's (teamLine.path)
	ix    *replay.Index
	pages map[string]bool // the URLs of its HTML answers: the pages, at which a page's batch ends
}

// bundleIndex returns the index of the bundle and file that hold line's record,
// read from the team archive unless it is the one read last.
func (tm *team) bundleIndex(ctx context.Context, line teamLine) (*teamBundleIndex, error) {
	key := line.bundleKey()
	t := &tm.replay
	t.mu.Lock()
	kept := t.bundle
	t.mu.Unlock()
	if kept != nil && kept.key == key {
		return kept, nil
	}
	resp, err := tm.request(ctx, httpmsg.MethodGet, "/api/bundles/"+url.PathEscape(string(line.Source))+"?cdxj", nil, -1)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	bi := &teamBundleIndex{key: key, path: line.path()}
	if bi.ix, bi.pages, err = replay.ReadFileIndex(resp.Body, string(line.Filename)); err != nil {
		return nil, fmt.Errorf("the index of %s in the team archive: %w", line.Source, err)
	}
	t.mu.Lock()
	t.bundle = bi
	t.mu.Unlock()
	return bi, nil
}

// isPage says whether u is the URL of one of the bundle's pages.
func (bi *teamBundleIndex) isPage(u string) bool { return bi.pages[u] }

// teamBundleFile is a bundle's WARC file in the team archive, read a record at a
// time: from the ranges read beforehand (readRanges), else by Range, each record with
// a teamFile of its own (its length from the bundle's index), so that records are
// read at once.
type teamBundleFile struct {
	tm    *team
	ctx   context.Context
	path  string
	index *teamBundleIndex

	read []replay.ReadRange // the bytes of the file read beforehand

	mu   sync.Mutex
	open []*teamFile
}

// readRanges reads the ranges [from, to) of the file: several by one request, in parts
// (readParts), else each by a Range request, all at once; a range that fails leaves
// its records to be read by themselves. It returns how many requests it made.
func (f *teamBundleFile) readRanges(ranges [][2]int64) int {
	asked := 0
	if len(ranges) > 1 {
		read, ok := f.readParts(ranges)
		asked++
		if ok {
			f.read = append(f.read, read...)
			return asked
		}
	}
	read := make([]replay.ReadRange, len(ranges))
	var wg sync.WaitGroup
	for i, r := range ranges {
		wg.Go(func() {
			if b, ok := f.readRange(r[0], r[1]); ok {
				read[i] = replay.ReadRange{At: r[0], Bytes: b}
			}
		})
	}
	wg.Wait()
	for _, r := range read {
		if r.Bytes != nil {
			f.read = append(f.read, r)
		}
	}
	return asked + len(ranges)
}

// readParts reads the ranges [from, to) of the file by one request of several ranges,
// answered in parts (multipart/byteranges): one trip to the team archive, and one
// start of its Worker, instead of one each. It reports false, having read nothing
// more than the answer's head, unless the archive answered so (an archive before
// these answers sends the whole file): the ranges are then read one by one. A part
// that is not one of the ranges asked for, or not whole, is left out, and its
// records are read by themselves.
func (f *teamBundleFile) readParts(ranges [][2]int64) ([]replay.ReadRange, bool) {
	specs := make([]string, len(ranges))
	want := map[int64]int64{} // from -> to
	for i, r := range ranges {
		specs[i] = fmt.Sprintf("%d-%d", r[0], r[1]-1)
		want[r[0]] = r[1]
	}
	resp, err := f.tm.get(f.ctx, f.path, "bytes="+strings.Join(specs, ","))
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != statusPartialContent || err != nil || mt != "multipart/byteranges" || params["boundary"] == "" {
		return nil, false
	}
	var read []replay.ReadRange
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			return read, true // io.EOF: the last part; else the parts read so far
		}
		from, ok := rangeStart(part.Header.Get("Content-Range"))
		to, asked := want[from]
		if !ok || !asked {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(part, to-from+1))
		if err != nil || int64(len(b)) != to-from {
			continue
		}
		read = append(read, replay.ReadRange{At: from, Bytes: b})
	}
}

// readRange reads the bytes [from, to) of the file by one Range request (teamFile's,
// as a record's).
func (f *teamBundleFile) readRange(from, to int64) ([]byte, bool) {
	tf := &teamFile{tm: f.tm, ctx: f.ctx, path: f.path, length: to - from}
	defer tf.Close()
	b, err := io.ReadAll(io.LimitReader(tf.Reader(from), to-from))
	return b, err == nil && int64(len(b)) == to-from
}

func (f *teamBundleFile) Size() int64 { return teamFileSize }

func (f *teamBundleFile) Reader(off int64) io.Reader {
	length := int64(0) // not known: read to the file's end as it is read
	if c, ok := f.index.ix.At(off); ok {
		length = c.Length
	}
	if r, ok := replay.ReadFrom(f.read, off, length); ok {
		return r
	}
	tf := &teamFile{tm: f.tm, ctx: f.ctx, path: f.path, length: length}
	f.mu.Lock()
	f.open = append(f.open, tf)
	f.mu.Unlock()
	return tf.Reader(off)
}

// Close ends the requests its records' readers have under way (teamFile.Close).
func (f *teamBundleFile) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, tf := range f.open {
		tf.Close()
	}
	f.open = nil
}
