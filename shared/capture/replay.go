package capture

import (
	"cmp"
	"container/list"
	"fmt"
	"io"
	neturl "net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
)

// replays holds, per session, what a replay of it needs: its index, its WARC file
// read from any offset, and the log of what was answered; the chunks of WARC
// files that replays read last; and the batches they answered last.
type replays struct {
	store Store
	all   *sessions

	mu       sync.Mutex
	sessions map[string]*sessionReplay
	cache    byteCache[cachedChunk]
	batches  byteCache[batchKey]
}

// newReplays returns the replays of the sessions, with empty caches.
func newReplays(store Store, all *sessions) *replays {
	rs := &replays{store: store, all: all}
	rs.cache.max, rs.batches.max = chunkCacheBytes, batchCacheBytes
	return rs
}

// batchKey names a batch: its replay, page and time. A replay is made anew when its
// session grows, so a batch kept is never stale.
type batchKey struct {
	r       *sessionReplay
	url, at string
}

type sessionReplay struct {
	index *replay.Index
	file  *chunkedFile
	pages map[string]bool // the URLs of the session's pages
	log   replay.Log

	titlesMu sync.Mutex
	titles   map[string]string // the titles of pages, by "ts url" (titles.go)
}

// of returns the replay of sess, read again if the session has grown since.
func (rs *replays) of(sess *Session) (*sessionReplay, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	// The session counts the chunks of its WARC: while that count is what the replay
	// read, the store is not asked again (a replayed page makes many requests).
	r := rs.sessions[sess.info.ID]
	if r != nil && len(r.file.keys) == sess.chunkCount(streamWARC) {
		return r, nil
	}
	keys, err := rs.store.Keys(sessionKey(sess.info.ID, streamWARC+"/"))
	if err != nil {
		return nil, err
	}
	if r != nil && len(r.file.keys) == len(keys) {
		return r, nil
	}
	file, err := openChunkedFile(rs.store, keys, &rs.cache)
	if err != nil {
		return nil, fmt.Errorf("replay: session %s: reading its WARC: %w", sess.info.ID, err)
	}
	lines, err := sess.CDXLines()
	if err != nil {
		return nil, err
	}
	ix, err := replay.ReadIndex(lines)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", sess.info.ID, err)
	}
	pages, err := sess.Pages()
	if err != nil {
		return nil, fmt.Errorf("replay: session %s: its pages: %w", sess.info.ID, err)
	}
	r = &sessionReplay{index: ix, file: file, pages: map[string]bool{}}
	for _, p := range pages {
		r.pages[p.URL] = true
	}
	if rs.sessions == nil {
		rs.sessions = map[string]*sessionReplay{}
	}
	rs.sessions[sess.info.ID] = r
	return r, nil
}

// replayPage is a page of a session, with the link that replays it. A page the
// browser showed again from its back/forward cache (Restored) has no capture of its
// own: its link replays the captures nearest its time, those of its earlier load.
type replayPage struct {
	URL      string `json:"url"`
	TS       string `json:"ts"` // 14 digits, UTC
	Replay   string `json:"replay"`
	Restored bool   `json:"restored,omitempty"`
}

// maxReplayedBody is the largest request body (as JSON, base64 inside) that
// /api/replay/{id}/answer reads.
const maxReplayedBody = 64 << 20

// askedAhead reports whether an answer is asked for ahead of the page (ahead=1): the
// next range of a media element's, which the replay bar gives the page when it asks
// for it, and then logs (served), or never. Such an answer is not logged.
func askedAhead(r *httpmsg.Request) bool { return r.URL.Query().Get("ahead") == "1" }

// maxServedList is the largest list of URLs that /api/replay/{id}/served reads.
const maxServedList = 1 << 20

// with is sessions.with for the replay routes: h gets the session's replay too.
func (rs *replays) with(h func(httpmsg.ResponseWriter, *httpmsg.Request, *Session, *sessionReplay)) httpmsg.HandlerFunc {
	return rs.all.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session) {
		rp, err := rs.of(sess)
		if err != nil {
			writeError(w, err)
			return
		}
		h(w, r, sess, rp)
	})
}

// routes adds the replay API: start a replay, answer a request, the batch of a
// page's resources, log those the replay answered itself, from a batch or with an
// answer it kept (and show the log, so that the replay bar is brought up to date in
// one trip), show the log. The team archive has the same (team.routeReplay).
func (rs *replays) routes(mux *routeTable) {
	mux.HandleFunc("POST /api/replay/{id}/start", rs.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session, rp *sessionReplay) {
		rp.log.Reset()
		problems := []string{}
		for _, p := range rp.index.Problems {
			problems = append(problems, p.Error())
		}
		pages, err := sess.Pages()
		if err != nil {
			writeError(w, err)
			return
		}
		links := []replayPage{}
		for _, p := range pages {
			ts := p.TS.UTC().Format("20060102150405")
			links = append(links, replayPage{URL: p.URL, TS: ts, Replay: replay.Link(sess.info.ID, p.URL, ts), Restored: p.Restored})
		}
		writeJSON(w, httpmsg.StatusOK, map[string]any{"session": sess.Info(), "captures": rp.index.Len(), "problems": problems, "pages": links})
	}))
	mux.HandleFunc("POST /api/replay/{id}/answer", rs.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session, rp *sessionReplay) {
		req, ok := readPaused(w, r)
		if !ok {
			return
		}
		a, err := rp.index.Serve(w, req, r.URL.Query().Get("ts"), rp.file)
		if !askedAhead(r) {
			rp.log.Add(a)
		}
		if err != nil {
			panic(httpmsg.ErrAbortHandler) // the body is not whole (ErrCut): the answer fails
		}
	}))
	mux.HandleFunc("GET /api/replay/{id}/batch", rs.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session, rp *sessionReplay) {
		q := r.URL.Query()
		key := batchKey{rp, q.Get("url"), q.Get("ts")}
		b, ok := rs.batches.get(key)
		if !ok {
			b, _ = rp.index.Batch(key.url, key.at, rp.file, func(u string) bool { return rp.pages[u] })
			rs.batches.put(key, b)
		}
		replay.WriteBatch(w, b)
	}))
	mux.HandleFunc("POST /api/replay/{id}/served", rs.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session, rp *sessionReplay) {
		if readServed(w, r, &rp.log) {
			writeJSON(w, httpmsg.StatusOK, rp.view())
		}
	}))
	mux.HandleFunc("GET /api/replay/{id}/file", rs.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session, rp *sessionReplay) {
		url := r.URL.Query().Get("url")
		m, ok := rp.index.Lookup(&replay.Request{Method: "GET", URL: url}, r.URL.Query().Get("ts"))
		if !ok || m.Approximate {
			writeError(w, noCapture("session "+sess.info.ID, url))
			return
		}
		resp, err := rp.index.Open(rp.file, m.Capture)
		if err != nil {
			writeError(w, err)
			return
		}
		defer resp.Body.Close()
		sendCapture(w, url, resp)
	}))
	mux.HandleFunc("GET /api/replay/{id}/log", rs.with(func(w httpmsg.ResponseWriter, r *httpmsg.Request, sess *Session, rp *sessionReplay) {
		writeJSON(w, httpmsg.StatusOK, rp.view())
	}))
}

// sendCapture answers a download of resp's payload, the capture of url, whole and
// streamed, under the name its URL ends with: how a body the page does not get
// (replay.Answer.Withheld, too large for one DevTools message) is had from a replay.
func sendCapture(w httpmsg.ResponseWriter, url string, resp *replay.Response) {
	if resp.Size >= 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(resp.Size, 10))
	}
	sendFile(w, savedName(url), cmp.Or(resp.Header.Get("Content-Type"), "application/octet-stream"), func(w io.Writer) error {
		_, err := io.Copy(w, resp.Body)
		return err
	})
}

// noCapture is the error of a file asked of a replay that has no exact capture of
// GET url (a fuzzy match is not the file asked for).
func noCapture(where, url string) error {
	return notFound(fmt.Errorf("%s has no capture of GET %s", where, url))
}

// savedName is the name a capture of url is saved under: its path's last segment, in
// the characters a file name and a quoted header value take anywhere ("download" when
// nothing is left).
func savedName(url string) string {
	name := url
	if u, err := neturl.Parse(url); err == nil {
		name = u.Path
	}
	name = name[strings.LastIndex(name, "/")+1:]
	name = strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-+", r)) {
			return r
		}
		return '_'
	}, name)
	if strings.Trim(name, "._") == "" {
		return "download"
	}
	return name
}

// replayLog is a replay's log as the API shows it, with the number of captures the
// replay answers from: a session that grows while it is replayed has more, and the
// replay page then drops the batches it kept.
type replayLog struct {
	replay.LogView
	Captures int `json:"captures"`
}

// view returns the replay's log for the API.
func (rp *sessionReplay) view() replayLog {
	return replayLog{rp.log.View(), rp.index.Len()}
}

// chunkedFile is a stream kept in the store as chunks (a session's WARC), as a
// replay.File.
type chunkedFile struct {
	store  Store
	keys   []string
	starts []int64 // offset of each chunk
	size   int64
	cache  *byteCache[cachedChunk]
}

// openChunkedFile opens the stream of keys (see grow).
func openChunkedFile(store Store, keys []string, cache *byteCache[cachedChunk]) (*chunkedFile, error) {
	f := &chunkedFile{store: store, cache: cache}
	if err := f.grow(keys); err != nil {
		return nil, err
	}
	return f, nil
}

// grow adds the chunks of keys (the file's keys, and more) that f does not have. A
// chunk's key gives its length (chunkKey); a chunk written before keys gave it is
// read once to learn it.
func (f *chunkedFile) grow(keys []string) error {
	if len(keys) < len(f.keys) {
		return fmt.Errorf("chunks %s...: %d of them, fewer than the %d read before", f.keys[0], len(keys), len(f.keys))
	}
	for _, k := range keys[len(f.keys):] {
		n, ok := chunkSize(k)
		if !ok {
			b, err := f.store.Get(k)
			if err != nil {
				return fmt.Errorf("chunk %s: %w", k, err)
			}
			n = int64(len(b))
			yield()
		}
		f.keys = append(f.keys, k)
		f.starts = append(f.starts, f.size)
		f.size += n
	}
	return nil
}

// Size returns the stream's length in bytes.
func (f *chunkedFile) Size() int64 { return f.size }

// Reader returns a reader of the stream from offset off on, which holds one chunk
// in memory. Each of its reads ends at the latest where its chunk ends: a reader
// that buffers ahead (the WARC reader's 64 KiB) asks the store for no chunk the
// record it reads does not reach into. Readers of one file wait for no other, so
// the replay's requests read their chunks at the same time. The chunk a reader
// starts in is kept in the cache, where the next requests (a page's other
// resources, recorded next to it; an import's records, 4 MiB to a chunk; a reload)
// find it; the chunks after it (a large body's) pass through.
func (f *chunkedFile) Reader(off int64) io.Reader { return &chunkReader{f: f, pos: off, at: -1} }

// chunkReader reads a chunkedFile on from pos.
type chunkReader struct {
	f   *chunkedFile
	pos int64
	at  int // index of the chunk in cur; -1: none
	cur []byte
}

func (r *chunkReader) Read(p []byte) (int, error) {
	f := r.f
	if r.pos >= f.size {
		return 0, io.EOF
	}
	i := sort.Search(len(f.starts), func(i int) bool { return f.starts[i] > r.pos }) - 1
	if i != r.at {
		b, err := f.chunk(i, r.at < 0)
		if err != nil {
			return 0, err
		}
		r.at, r.cur = i, b
	}
	n := copy(p, r.cur[r.pos-f.starts[i]:])
	r.pos += int64(n)
	return n, nil
}

// chunk returns chunk i, from the cache or from the store; kept, it is put in the
// cache.
func (f *chunkedFile) chunk(i int, keep bool) ([]byte, error) {
	id := cachedChunk{f, i}
	if b, ok := f.cache.get(id); ok {
		return b, nil
	}
	b, err := f.store.Get(f.keys[i])
	if err != nil {
		return nil, err
	}
	end := f.size
	if i+1 < len(f.starts) {
		end = f.starts[i+1]
	}
	if want := end - f.starts[i]; int64(len(b)) != want {
		return nil, fmt.Errorf("replay: chunk %s holds %d bytes, not the %d its key says", f.keys[i], len(b), want)
	}
	if keep {
		f.cache.put(id, b)
	}
	return b, nil
}

// cachedChunk names a chunk of a file. A session's file is made anew when the
// session grows, and its chunks never change: a file's entries are never stale.
type cachedChunk struct {
	f *chunkedFile
	i int
}

// Bounds of the replays' caches: the chunks read last, two of an import's; the
// batches answered last, two of the largest (a page loaded again, the replay bar's
// Load again, a page the replay goes back to, is answered without reading its
// records again).
const (
	chunkCacheBytes = 10 << 20
	batchCacheBytes = 2*replay.BatchBytes + 1<<20
)

// A byteCache keeps byte slices under keys, up to max bytes in all, the least
// recently used dropped first. It is safe for concurrent use.
type byteCache[K comparable] struct {
	max   int
	mu    sync.Mutex
	size  int
	order list.List // of *cacheEntry[K], the most recently used first
	byKey map[K]*list.Element
}

type cacheEntry[K comparable] struct {
	key K
	b   []byte
}

func (c *byteCache[K]) get(key K) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry[K]).b, true
}

// put keeps b, unless it alone is over half the cache.
func (c *byteCache[K]) put(key K, b []byte) {
	if len(b) > c.max/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	if c.byKey == nil {
		c.byKey = map[K]*list.Element{}
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry[K]{key, b})
	c.size += len(b)
	for c.size > c.max {
		e := c.order.Back()
		old := e.Value.(*cacheEntry[K])
		c.order.Remove(e)
		delete(c.byKey, old.key)
		c.size -= len(old.b)
	}
}

// purge empties the cache.
func (c *byteCache[K]) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	c.byKey, c.size = nil, 0
}

// readPaused reads the paused request an answer route is asked about; a request
// it cannot read is answered 400.
func readPaused(w httpmsg.ResponseWriter, r *httpmsg.Request) (*replay.Request, bool) {
	var p replay.PausedRequest
	if err := readJSON(r.Body, maxReplayedBody, &p); err != nil {
		writeError(w, badRequest(err))
		return nil, false
	}
	req, err := p.Request()
	if err != nil {
		writeError(w, badRequest(err))
		return nil, false
	}
	return req, true
}

// readServed adds to log what the replay bar says it served from its batch (the
// URLs answered whole, the answers); a body it cannot read is answered 400.
func readServed(w httpmsg.ResponseWriter, r *httpmsg.Request, log *replay.Log) bool {
	var served struct {
		URLs    []string        `json:"urls"`
		Answers []replay.Answer `json:"answers"`
	}
	if err := readJSON(r.Body, maxServedList, &served); err != nil {
		writeError(w, badRequest(err))
		return false
	}
	for _, u := range served.URLs {
		log.Add(replay.Answer{URL: u, Archived: true})
	}
	for _, a := range served.Answers {
		log.Add(a)
	}
	return true
}
