package capture

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/warc"
)

// Replay from the team archive: the replay page (replay.html?team=1&url=...&ts=...)
// asks the core, for each request of the replayed tab, as it does for a session; the
// core looks the request up in the team archive's CDX index (the Worker's /api/cdx,
// under the pywb 2.6.7 key a session's replay computes) and reads the capture's
// record from the bundle that holds it by Range (/api/bundles/{source}/{file} with
// the line's offset and length), nothing downloaded but that record. A revisit takes
// its HTTP header from its own record and its payload from its original, found by
// a second query for the payload digest, in whatever bundle holds it, as pywb does.
// Bodies stream from the Worker to the answer.

// Bounds of the team archive's CDX queries a replay makes.
const (
	teamExactLimit    = 25             // lines of a request's exact key, nearest in time first
	teamFuzzyLimit    = 100            // lines under the request's path, for a fuzzy match
	teamOriginalLimit = 5              // responses with a revisit's payload digest
	maxTeamCDXAnswer  = 32 << 20       // bytes of one CDX answer read
	maxTeamRevisit    = 1 << 20        // a revisit record is read whole (its WARC and HTTP headers)
	teamCapturesLimit = 200            // captures GET /api/team/captures lists without limit=
	maxTeamCaptures   = 1000           // and at most
	teamFileSize      = int64(1) << 62 // a bundle's WARC read by Range: its size is not needed
)

// Statuses of a Range answer (httpmsg names those the core answers with).
const (
	statusPartialContent      = 206
	statusRangeNotSatisfiable = 416
)

// teamReplay is what replays from the team archive share: their log, and how many
// captures of its page the last one found as it started.
type teamReplay struct {
	log      replay.Log
	mu       sync.Mutex
	captures int
	bundle   *teamBundleIndex // the index of the bundle of the last page batched
}

// routeReplay adds the team archive's captures of a URL and the replay from the
// team archive: the replay API of a session (replays.routes) under /api/team/replay.
func (tm *team) routeReplay(mux *routeTable) {
	mux.HandleFunc("GET /api/team/captures", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		q := r.URL.Query()
		limit := teamCapturesLimit
		if l := q.Get("limit"); l != "" {
			n, err := strconv.Atoi(l)
			if err != nil || n < 1 {
				writeError(w, badRequest(fmt.Errorf("limit=%q: want a number from 1 to %d", l, maxTeamCaptures)))
				return
			}
			limit = min(n, maxTeamCaptures)
		}
		if err := checkTeamURL(q.Get("url")); err != nil {
			writeError(w, badRequest(err))
			return
		}
		list, err := tm.captures(r.Context(), q.Get("url"), limit)
		if err != nil {
			writeError(w, &teamAskError{err})
			return
		}
		writeJSON(w, httpmsg.StatusOK, list)
	})
	mux.HandleFunc("POST /api/team/replay/start", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		q := r.URL.Query()
		page, ts := q.Get("url"), q.Get("ts")
		if !validTimestamp(ts) {
			writeError(w, badRequest(fmt.Errorf("ts=%q: want a time of up to 14 digits (YYYYMMDDhhmmss, UTC)", ts)))
			return
		}
		if page == "" {
			writeError(w, badRequest(errors.New("a replay from the team archive needs the page to replay: replay.html?team=1&url=URL")))
			return
		}
		if err := checkTeamURL(page); err != nil {
			writeError(w, badRequest(err))
			return
		}
		list, err := tm.captures(r.Context(), page, maxTeamCaptures)
		if err != nil {
			writeError(w, &teamAskError{err})
			return
		}
		t := &tm.replay
		t.log.Reset()
		t.mu.Lock()
		t.captures = len(list)
		t.mu.Unlock()
		writeJSON(w, httpmsg.StatusOK, map[string]any{
			"session":  map[string]string{"id": "team", "name": "Team archive at " + tm.settings.get().TeamEndpoint},
			"captures": len(list), "problems": []string{}, "pages": []replayPage{},
		})
	})
	mux.HandleFunc("POST /api/team/replay/answer", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		req, ok := readPaused(w, r)
		if !ok {
			return
		}
		at := r.URL.Query().Get("ts")
		if !validTimestamp(at) {
			at = "" // as a session's replay reads it: the latest
		}
		a, err := tm.serve(r.Context(), w, req, at)
		var asked *teamAskError
		switch {
		case errors.As(err, &asked):
			// Nothing was written: the replay page says why, and fails the request.
			tm.replay.log.Add(replay.Answer{URL: req.URL})
			writeError(w, asked)
			return
		case err != nil:
			tm.replay.log.Add(a)
			panic(httpmsg.ErrAbortHandler) // the body is not whole (ErrCut): the answer fails
		}
		tm.replay.log.Add(a)
	})
	mux.HandleFunc("GET /api/team/replay/batch", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		at := r.URL.Query().Get("ts")
		if !validTimestamp(at) {
			at = ""
		}
		b, took := tm.batch(r.Context(), r.URL.Query().Get("url"), at)
		w.Header().Set("Server-Timing", took.String())
		replay.WriteBatch(w, b)
	})
	mux.HandleFunc("POST /api/team/replay/served", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		if readServed(w, r, &tm.replay.log) {
			writeJSON(w, httpmsg.StatusOK, tm.replay.view())
		}
	})
	mux.HandleFunc("GET /api/team/replay/file", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		url, at := r.URL.Query().Get("url"), r.URL.Query().Get("ts")
		if !validTimestamp(at) {
			at = ""
		}
		m, line, ok, err := tm.lookup(r.Context(), &replay.Request{Method: "GET", URL: url}, at)
		if err != nil {
			writeError(w, err)
			return
		}
		if !ok || m.Approximate {
			writeError(w, noCapture("the team archive", url))
			return
		}
		resp, done, err := tm.open(r.Context(), m.Capture, line)
		if err != nil {
			writeError(w, err)
			return
		}
		defer done()
		sendCapture(w, url, resp)
	})
	mux.HandleFunc("GET /api/team/replay/log", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		writeJSON(w, httpmsg.StatusOK, tm.replay.view())
	})
}

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
// request is asked for by itself. It returns the time each step took too.
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
	var f *teamBundleFile
	if guess != nil && guess.f.index.key == line.bundleKey() && guess.offset == m.Capture.Offset {
		took.guessed = "hit"
		<-guess.done
		f = guess.f
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
		f.readRanges(recordRanges(bi.ix.BatchRecords(page, m.Capture.Timestamp, bi.isPage), recordGap, replay.BatchBytes))
	}
	defer f.Close()
	lap(&took.records)
	b, _ := f.index.ix.Batch(page, m.Capture.Timestamp, f, f.index.isPage)
	lap(&took.build)
	return b, took
}

// batchGuess is the records of a page's batch read, while the merged index is asked,
// from the bundle whose index is kept: a replay goes from page to page of one bundle,
// and when the merged index finds the capture guessed, the batch has waited for one
// trip to the team archive, not two.
type batchGuess struct {
	f      *teamBundleFile
	offset int64         // of the page's capture guessed
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
	ctx, cancel := context.WithCancel(ctx)
	g := &batchGuess{f: &teamBundleFile{tm: tm, ctx: ctx, path: bi.path, index: bi}, offset: m.Capture.Offset, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(g.done)
		g.f.readRanges(recordRanges(bi.ix.BatchRecords(page, m.Capture.Timestamp, bi.isPage), recordGap, replay.BatchBytes))
	}()
	return g
}

// batchTiming is the time each step of a team replay's batch took: the lookup of
// its page in the merged index, the reading of its bundle's index (next to nothing
// when kept), then the wait for its records, and the making of the batch (with the
// records it read by themselves); and whether the records read from the kept index
// as the lookup went were the batch's ("hit"), not ("miss"), or none were ("").
// Its String is a Server-Timing header's value, which the replay benchmark reports.
type batchTiming struct {
	lookup, index, records, build time.Duration
	guessed                       string
}

func (t batchTiming) String() string {
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	s := "lookup;dur=" + ms(t.lookup) + ", index;dur=" + ms(t.index) + ", records;dur=" + ms(t.records) + ", build;dur=" + ms(t.build)
	if t.guessed != "" {
		s += ", guess;desc=" + t.guessed
	}
	return s
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

// readRanges reads the ranges [from, to) of the file, each by a Range request, all at
// once; a range that fails leaves its records to be read by themselves.
func (f *teamBundleFile) readRanges(ranges [][2]int64) {
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

// view returns the team replay's log for the API, as a session's.
func (t *teamReplay) view() replayLog {
	t.mu.Lock()
	n := t.captures
	t.mu.Unlock()
	return replayLog{t.log.View(), n}
}

// validTimestamp reports whether ts is "" or 1 to 14 digits.
func validTimestamp(ts string) bool {
	return len(ts) <= 14 && strings.Trim(ts, "0123456789") == ""
}

// captures lists the team archive's captures of pageURL (its exact key: GET),
// newest first, at most limit: the responses and revisits, each with the link that
// replays it from the team archive.
func (tm *team) captures(ctx context.Context, pageURL string, limit int) ([]api.TeamCapture, error) {
	if err := checkTeamURL(pageURL); err != nil {
		return nil, err
	}
	lines, err := tm.cdx(ctx, url.Values{"url": {pageURL}, "matchType": {"exact"}, "sort": {"reverse"}, "limit": {strconv.Itoa(limit)}})
	if err != nil {
		return nil, err
	}
	out := []api.TeamCapture{}
	for _, l := range lines {
		e, ok := l.entry(0)
		if !ok || !capturing(e) {
			continue
		}
		ts := string(l.Timestamp)
		out = append(out, api.TeamCapture{
			URL: e.URL, Timestamp: ts, Status: e.Status, Mime: e.Mime, Method: e.Method, Digest: e.Digest,
			Length: e.Length, Source: string(l.Source), Upload: string(l.Upload), Replay: api.TeamReplayLink(e.URL, ts),
		})
	}
	// The archive's reverse order, and the same for lines of equal keys.
	slices.SortStableFunc(out, func(a, b api.TeamCapture) int { return strings.Compare(b.Timestamp, a.Timestamp) })
	return out, nil
}

// checkTeamURL checks the URL a team route is given: one that has a CDX key.
func checkTeamURL(u string) error {
	if u == "" {
		return errors.New("url= is required: the URL whose captures to find")
	}
	if _, err := cdx.SURT(u); err != nil {
		return fmt.Errorf("url=%q: %w", u, err)
	}
	return nil
}

// capturing reports whether a line is of a capture that answers a request, as a
// replay reads them: a response with a status (not a 304) or a revisit.
func capturing(e cdx.Entry) bool {
	if e.Mime == "warc/revisit" {
		return true
	}
	n, err := strconv.Atoi(e.Status)
	return err == nil && n != 304
}

// cdxText is a value of a CDX line's JSON: pywb writes every value as a string;
// a number is read as its digits.
type cdxText string

func (t *cdxText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = cdxText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*t = cdxText(n)
	return nil
}

// teamLine is a line of the team archive's CDX answer (output=json).
type teamLine struct {
	URLKey      cdxText `json:"urlkey"`
	Timestamp   cdxText `json:"timestamp"`
	URL         cdxText `json:"url"`
	Mime        cdxText `json:"mime"`
	Status      cdxText `json:"status"`
	Digest      cdxText `json:"digest"`
	Length      cdxText `json:"length"`
	Offset      cdxText `json:"offset"`
	Filename    cdxText `json:"filename"`
	Method      cdxText `json:"method"`
	RequestBody cdxText `json:"requestBody"`
	Source      cdxText `json:"source"`
	Upload      cdxText `json:"upload"`
}

// entry returns the line as a cdx.Entry whose Filename is i (the line's place in
// the caller's list, which keeps its bundle), as replay.ParseLine reads it; ok is
// false for a line that names no record (no key, offset or file).
func (l *teamLine) entry(i int) (cdx.Entry, bool) {
	line := cdx.Entry{
		URLKey: string(l.URLKey), Timestamp: string(l.Timestamp), URL: string(l.URL), Mime: string(l.Mime),
		Status: string(l.Status), Digest: string(l.Digest), Method: string(l.Method),
		RequestBody: string(l.RequestBody), Filename: strconv.Itoa(i),
	}
	var err1, err2 error
	line.Offset, err1 = strconv.ParseInt(string(l.Offset), 10, 64)
	if l.Length != "" {
		line.Length, err2 = strconv.ParseInt(string(l.Length), 10, 64)
	}
	if err1 != nil || err2 != nil || line.Offset < 0 || line.Length < 0 || l.Source == "" || l.Filename == "" {
		return cdx.Entry{}, false
	}
	e, err := replay.ParseLine(bytes.TrimSuffix(line.AppendLine(nil, cdx.Pywb267), []byte("\n")))
	return e, err == nil
}

// bundleKey names the bundle, upload and file that hold l's record.
func (l *teamLine) bundleKey() string {
	return string(l.Source) + " " + string(l.Upload) + " " + string(l.Filename)
}

// path is where the line's record is read: its bundle's WARC file.
func (l *teamLine) path() string {
	return "/api/bundles/" + url.PathEscape(string(l.Source)) + "/" + url.PathEscape(string(l.Filename))
}

// cdx asks the team archive's CDX server (output=json) and returns its lines; a
// line it cannot read is left out.
func (tm *team) cdx(ctx context.Context, v url.Values) ([]teamLine, error) {
	if !tm.settings.teamSet() {
		return nil, errNoTeam
	}
	v.Set("output", "json")
	resp, err := tm.request(ctx, httpmsg.MethodGet, "/api/cdx?"+v.Encode(), nil, -1)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var lines []teamLine
	br := bufio.NewReader(io.LimitReader(resp.Body, maxTeamCDXAnswer))
	for {
		b, err := br.ReadBytes('\n')
		if b = bytes.TrimSpace(b); len(b) > 0 {
			var l teamLine
			if json.Unmarshal(b, &l) == nil && l.URLKey != "" {
				lines = append(lines, l)
			}
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the team archive's index: %w", err)
		}
	}
}

// teamIndex makes a replay index of lines, each capture's Filename its place in
// lines.
func teamIndex(lines []teamLine) *replay.Index {
	var b bytes.Buffer
	for i := range lines {
		if e, ok := lines[i].entry(i); ok {
			b.Write(e.AppendLine(nil, cdx.Pywb267))
		}
	}
	ix, _ := replay.ReadIndex(&b) // reading a buffer fails not
	return ix
}

// nearestParams asks a CDX query for the lines nearest to at (the latest first
// when at is "").
func nearestParams(v url.Values, at string) url.Values {
	if at == "" {
		v.Set("sort", "reverse")
	} else {
		v.Set("sort", "closest")
		v.Set("closest", at)
	}
	return v
}

// teamAskError is a failure to ask the team archive's index: the request is not
// answered (unlike a capture that cannot be read, which gets the "not archived"
// page saying why). The API answers it 409 when no team archive is set (as an
// upload), else 502, the team archive's failure or refusal (httpStatus).
type teamAskError struct{ err error }

func (e *teamAskError) Error() string { return e.err.Error() }
func (e *teamAskError) Unwrap() error { return e.err }

// lookup finds the capture of r in the team archive nearest to at, as a
// session's replay finds it in the session (replay.Index.Lookup): under r's pywb
// 2.6.7 key, else a fuzzy match among the captures of r's path. ok is false when
// the archive has none.
func (tm *team) lookup(ctx context.Context, r *replay.Request, at string) (m replay.Match, line teamLine, ok bool, err error) {
	key, err := replay.Key(r)
	if err != nil {
		return m, line, false, nil // a URL no capture can have
	}
	lines, err := tm.cdx(ctx, nearestParams(url.Values{"url": {encodedURL(r)}, "matchType": {"exact"}, "limit": {strconv.Itoa(teamExactLimit)}}, at))
	if err != nil {
		return m, line, false, err
	}
	if m, ok = teamIndex(lines).Lookup(r, at); ok {
		return m, lines[atoi(m.Capture.Filename)], true, nil
	}
	// No capture under its key: those of its path, with another query or body.
	path, query, _ := strings.Cut(r.URL, "?")
	more, err := tm.cdx(ctx, nearestParams(url.Values{"url": {path + "?"}, "matchType": {"prefix"}, "limit": {strconv.Itoa(teamFuzzyLimit)}}, at))
	if err != nil {
		return m, line, false, err
	}
	lines = append(lines, more...)
	if query != "" && strings.EqualFold(r.Method, httpmsg.MethodGet) && strings.Contains(key, "?") {
		bare, err := tm.cdx(ctx, nearestParams(url.Values{"url": {path}, "matchType": {"exact"}, "limit": {strconv.Itoa(teamExactLimit)}}, at))
		if err != nil {
			return m, line, false, err
		}
		lines = append(lines, bare...)
	}
	if m, ok = teamIndex(lines).Lookup(r, at); ok {
		return m, lines[atoi(m.Capture.Filename)], true, nil
	}
	return m, line, false, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// encodedURL is r's URL with pywb 2.6.7's method and body query appended: what
// replay.Key makes its key of, the url= of a CDX query for that key.
func encodedURL(r *replay.Request) string {
	h := r.Header
	if len(r.Body) > 0 && h.Get("Content-Length") == "" {
		// As replay.Key: a body without a Content-Length (DevTools leaves it out)
		// is counted as sent whole. Header names may be in any case.
		found := false
		for k := range h {
			if strings.EqualFold(k, "Content-Length") {
				found = true
			}
		}
		if !found {
			h = h.Clone()
			if h == nil {
				h = httpmsg.Header{}
			}
			h.Set("Content-Length", strconv.Itoa(len(r.Body)))
		}
	}
	u, _ := cdx.Pywb267.EncodeRequest(&cdx.Request{Method: r.Method, URL: r.URL, Header: h, Body: r.Body})
	return u
}

// serve answers r from the team archive, the capture nearest to at, as a
// session's replay answers it (replay.Index.Serve): status 200, the Answer in
// replay.AnswerHeader, the body streamed; the "not archived" page for a request the
// archive has no capture of, or whose capture cannot be read (saying why); the "not
// replayed" page for a body over replay.DefaultMaxBody. An error wrapping
// replay.ErrCut means the body was cut after the answer began; a *teamAskError,
// that the archive's index could not be asked and nothing was written.
func (tm *team) serve(ctx context.Context, w httpmsg.ResponseWriter, r *replay.Request, at string) (replay.Answer, error) {
	m, line, ok, err := tm.lookup(ctx, r, at)
	if err != nil {
		return replay.Answer{URL: r.URL}, &teamAskError{err}
	}
	if !ok {
		return replay.RespondNotArchived(w, r, "", "the team archive"), nil
	}
	resp, done, err := tm.open(ctx, m.Capture, line)
	if err != nil {
		return replay.RespondNotArchived(w, r, err.Error(), "the team archive"), nil
	}
	defer done()
	return replay.Respond(w, r, m, resp, replay.DefaultMaxBody, "the team archive")
}

// open reads the answer of capture c (of line) from the team archive: its
// record by Range from its bundle; a revisit's header from its own record and its
// payload from its original's. done closes what the answer reads.
func (tm *team) open(ctx context.Context, c cdx.Entry, line teamLine) (resp *replay.Response, done func(), err error) {
	opener, _ := replay.ReadIndex(strings.NewReader("")) // Open of a capture that is no revisit reads its record only
	if c.Mime != "warc/revisit" {
		f := &teamFile{tm: tm, ctx: ctx, path: line.path(), length: c.Length}
		resp, err := opener.Open(f, c)
		if err != nil {
			f.Close()
			return nil, nil, teamRecordError(line, err)
		}
		return resp, f.Close, nil
	}
	// The revisit, whole: its WARC header names the original's URL and date.
	if c.Length <= 0 || c.Length > maxTeamRevisit {
		return nil, nil, fmt.Errorf("the revisit record in %s is %d bytes: not a revisit webkeep can read", line.Source, c.Length)
	}
	f := &teamFile{tm: tm, ctx: ctx, path: line.path(), length: c.Length}
	b, err := io.ReadAll(io.LimitReader(f.Reader(c.Offset), c.Length))
	f.Close()
	if err != nil {
		return nil, nil, teamRecordError(line, err)
	}
	var refersTo, refersDate string
	if rd, err := warc.NewReader(bytes.NewReader(b)); err == nil {
		if rec, err := rd.Next(); err == nil {
			refersTo = rec.Header.Get(warc.FieldRefersToTargetURI)
			refersDate = rec.Header.Get(warc.FieldRefersToDate)
		}
	}
	own := c
	own.Offset, own.Mime = 0, "-" // read as a record of its own (a revisit's header)
	rev, err := opener.Open(replay.NewFile(bytes.NewReader(b), int64(len(b))), own)
	if err != nil {
		return nil, nil, teamRecordError(line, err)
	}
	rev.Body.Close()
	oc, oline, ok, err := tm.original(ctx, c, line, refersTo, refersDate)
	if err != nil {
		return nil, nil, fmt.Errorf("revisit of %s: looking up its original: %w", c.URL, err)
	}
	if !ok {
		return nil, nil, fmt.Errorf("revisit of %s in %s: the team archive has no response with its payload (digest %s)", c.URL, line.Source, c.Digest)
	}
	of := &teamFile{tm: tm, ctx: ctx, path: oline.path(), length: oc.Length}
	orig, err := opener.Open(of, oc)
	if err != nil {
		of.Close()
		return nil, nil, fmt.Errorf("revisit of %s: its original: %w", c.URL, teamRecordError(oline, err))
	}
	if rev.Status == 0 {
		rev.Status, rev.Reason, rev.Header = orig.Status, orig.Reason, orig.Header
	}
	rev.Body, rev.Size, rev.Capture, rev.Original = orig.Body, orig.Size, c, oc
	return rev, of.Close, nil
}

// teamRecordError says which bundle's record could not be read.
func teamRecordError(line teamLine, err error) error {
	return fmt.Errorf("%s (in the team archive's %s, %s at offset %s): %w", line.URL, line.Source, line.Filename, line.Offset, err)
}

// original finds the response whose payload a revisit (c, of line) refers to:
// the capture of the same request with its payload digest nearest in time (in any
// bundle), else one of the URL its record names (WARC-Refers-To-Target-URI), as
// pywb resolves revisits.
func (tm *team) original(ctx context.Context, c cdx.Entry, line teamLine, refersTo, refersDate string) (cdx.Entry, teamLine, bool, error) {
	at := c.Timestamp
	if t, err := time.Parse(time.RFC3339, refersDate); err == nil {
		at = t.UTC().Format("20060102150405")
	}
	same := url.Values{"url": {string(line.URL)}}
	if m := strings.ToUpper(string(line.Method)); m != "" && m != httpmsg.MethodGet {
		same.Set("method", m)
		same.Set("requestBody", string(line.RequestBody))
	}
	tries := []url.Values{same}
	if refersTo != "" && refersTo != string(line.URL) {
		tries = append(tries, url.Values{"url": {refersTo}})
	}
	for _, v := range tries {
		v.Set("matchType", "exact")
		v.Set("limit", strconv.Itoa(teamOriginalLimit))
		// The digest contained rather than equal: the dialects write it with or
		// without "sha1:".
		v["filter"] = []string{"digest:" + c.Digest, "!mime:warc/revisit"}
		lines, err := tm.cdx(ctx, nearestParams(v, at))
		if err != nil {
			return cdx.Entry{}, teamLine{}, false, err
		}
		for i := range lines {
			if e, ok := lines[i].entry(i); ok && e.Digest == c.Digest && capturing(e) && e.Mime != "warc/revisit" {
				return e, lines[i], true, nil
			}
		}
	}
	return cdx.Entry{}, teamLine{}, false, nil
}
