package capture

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
)

// A team replay's batch: the records of a page's capture, those recorded with it and
// the originals of revisits among them, read from the bundle that holds the capture
// by as few Range requests as their places allow, so that the replay answers the
// page's requests as it answers a session's.

// batch is the batch of page (replay.Index.Batch) from the bundle that holds its
// capture nearest to at: the page's capture is looked up in the merged index, the
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
	empty := func() ([]byte, batchTiming) {
		ix, _ := replay.ReadIndex(strings.NewReader(""))
		b, _ := ix.Batch(page, at, nil, nil)
		return b, took
	}
	guess := tm.guessBatch(ctx, page, at)
	if guess != nil {
		defer guess.cancel()
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
		took.ranges = f.readRanges(bi.batchRanges(page, m.Capture.Timestamp))
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
// is kept, if it holds a capture of page; nil if not.
func (tm *team) guessBatch(ctx context.Context, page, at string) *batchGuess {
	t := &tm.replay
	t.mu.Lock()
	bi := t.bundle
	t.mu.Unlock()
	if bi == nil {
		return nil
	}
	m, ok := bi.ix.Lookup(&replay.Request{Method: httpmsg.MethodGet, URL: page}, at)
	if !ok || m.Approximate {
		return nil
	}
	if _, kept := t.batches.get(tm.batchKey(bi.key, page, m.Capture.Timestamp)); kept {
		return nil // its batch is kept: nothing to read
	}
	ctx, cancel := context.WithCancel(ctx)
	ranges := bi.batchRanges(page, m.Capture.Timestamp)
	g := &batchGuess{f: &teamBundleFile{tm: tm, ctx: ctx, path: bi.path, index: bi}, offset: m.Capture.Offset, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(g.done)
		g.ranges = g.f.readRanges(ranges)
	}()
	return g
}

// batchTiming is the time each step of a team replay's batch took: the lookup of
// its page in the merged index, the reading of its bundle's index (next to nothing
// when kept), then the wait for its records, and the making of the batch (with the
// records it read by themselves); whether the records read from the kept index as
// the lookup went were the batch's ("hit"), not ("miss"), or none were (""), or the
// batch was kept from an earlier replay ("kept": no records read); and how many
// requests the records took (one for several ranges answered in parts).
// Its String is a Server-Timing header's value, which the replay benchmark reports.
type batchTiming struct {
	lookup, index, records, build time.Duration
	guessed                       string
	ranges                        int // the requests the records took (one for several ranges answered in parts)
}

func (t batchTiming) String() string {
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	s := "lookup;dur=" + ms(t.lookup) + ", index;dur=" + ms(t.index) + ", records;dur=" + ms(t.records) + ", build;dur=" + ms(t.build)
	if t.guessed != "" {
		s += ", guess;desc=" + t.guessed
	}
	return s + ", ranges;desc=" + strconv.Itoa(t.ranges)
}

// maxTeamBundleIndex bounds the bytes of a bundle's index a team replay reads for a
// page's batch (a bundle of 100,000 captures has an index of about 30 MB).
const maxTeamBundleIndex = 32 << 20

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
	bi := &teamBundleIndex{key: key, path: line.path(), pages: map[string]bool{}}
	// The lines of the file are streamed to the replay index as they are read.
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(io.LimitReader(resp.Body, maxTeamBundleIndex))
		for {
			b, err := br.ReadBytes('\n')
			b = bytes.TrimRight(b, "\r\n")
			if e, perr := cdx.ParseEntry(b); perr == nil && e.Filename == string(line.Filename) {
				if strings.HasPrefix(e.Mime, "text/html") {
					bi.pages[e.URL] = true
				}
				if _, werr := pw.Write(append(b, '\n')); werr != nil {
					return // the index stopped reading
				}
			}
			if err != nil {
				pw.CloseWithError(err) // io.EOF: the end
				return
			}
		}
	}()
	bi.ix, err = replay.ReadIndex(pr)
	pr.CloseWithError(io.ErrClosedPipe) // the reading above ends, if it has not
	if err != nil {
		return nil, fmt.Errorf("the index of %s in the team archive: %w", line.Source, err)
	}
	t.mu.Lock()
	t.bundle = bi
	t.mu.Unlock()
	return bi, nil
}

// batchRanges returns the byte ranges of the file that hold the records of the batch
// of page captured at ts, those near each other joined (recordRanges).
func (bi *teamBundleIndex) batchRanges(page, ts string) [][2]int64 {
	return recordRanges(bi.ix.BatchRecords(page, ts, bi.isPage), recordGap, replay.BatchBytes)
}

// isPage says whether u is the URL of one of the bundle's pages.
func (bi *teamBundleIndex) isPage(u string) bool { return bi.pages[u] }

// recordGap is the most bytes between two records of a batch that one Range
// request reads through rather than making two.
const recordGap = 64 << 10

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

// teamBundleFile is a bundle's WARC file in the team archive, read a record at a
// time: from the ranges read beforehand (readRanges), else by Range, each record with
// a teamFile of its own (its length from the bundle's index), so that records are
// read at once.
type teamBundleFile struct {
	tm    *team
	ctx   context.Context
	path  string
	index *teamBundleIndex

	read []teamRange // the bytes of the file read beforehand

	mu   sync.Mutex
	open []*teamFile
}

// teamRange is bytes of a bundle's file, from at on.
type teamRange struct {
	at int64
	b  []byte
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
	read := make([]teamRange, len(ranges))
	var wg sync.WaitGroup
	for i, r := range ranges {
		wg.Go(func() {
			if b, ok := f.readRange(r[0], r[1]); ok {
				read[i] = teamRange{r[0], b}
			}
		})
	}
	wg.Wait()
	for _, r := range read {
		if r.b != nil {
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
func (f *teamBundleFile) readParts(ranges [][2]int64) ([]teamRange, bool) {
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
	var read []teamRange
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
		read = append(read, teamRange{from, b})
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
	for _, r := range f.read {
		if off >= r.at && length > 0 && off+length <= r.at+int64(len(r.b)) {
			return bytes.NewReader(r.b[off-r.at : off-r.at+length])
		}
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
