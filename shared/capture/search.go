package capture

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/search"
)

// Keys of the search index in the service's store: the index's own under
// searchIndexKeys, and for each session how many chunks of its CDX stream the
// index has read, under searchReadKeys + the session's id.
const (
	searchIndexKeys = "fts/ix/"
	searchReadKeys  = "fts/read/"
)

// Bounds of what is indexed of one answer: the bytes of its body read, and the
// text kept of them.
const (
	maxIndexedBody = 8 << 20
	maxIndexedText = 1 << 20
)

// searchCommitDocs is how many documents the index takes between two commits to
// the store: what a restart of the service worker would index again.
const searchCommitDocs = 200

// searchQuiet is how long the index waits after a session has grown before it
// reads what was added: recording goes first.
const searchQuiet = 2 * time.Second

// textSearch is the full-text search of every session (shared/search): the text
// and title of the HTML, text, JSON and XML answers the sessions hold, indexed
// from their CDX streams, which it follows: a session written to (recorded,
// imported) is read from where the index left it, in the background once the
// session has been quiet for searchQuiet, and before a search answers, so that
// a search finds everything written before it. A session deleted leaves the index
// at the next catch-up, or at once through forget.
type textSearch struct {
	base     Store // the sessions' streams, and how far the index read them
	sessions *sessions
	cache    *byteCache[cachedChunk] // the chunks of WARC files read last, the replays' too
	note     func(string)            // says in the session being recorded what went wrong
	// team searches the team archive (team.search), for a search with team=1.
	team func(ctx context.Context, query string, limit int) (api.SearchResults, error)
	// recording reports whether a tab is being recorded, and whether its events
	// came in the last searchQuiet: the index then reads in short slices, with as
	// long a pause between them while events come, so that they wait little.
	recording func() (recording, active bool)

	mu    sync.Mutex // one catch-up, search or removal at a time
	store *searchStore
	ix    *search.Index
	files map[string]*chunkedFile // the sessions' WARC files, as far as read
	kick  chan struct{}
	// The CDX chunk the index stopped within, kept for the next slice.
	partKey  string
	partData []byte
}

// newTextSearch opens the index of the sessions in store; it is read in the background when a
// session grows (grew).
func newTextSearch(store Store, sessions *sessions, cache *byteCache[cachedChunk], note func(string)) *textSearch {
	return &textSearch{
		base: store, sessions: sessions, cache: cache, note: note,
		store: newSearchStore(store, searchIndexKeys),
		files: map[string]*chunkedFile{},
		kick:  make(chan struct{}, 1),
	}
}

// grew tells the index that a session has grown.
func (t *textSearch) grew() {
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// follow reads what the sessions have grown by, searchQuiet after each time they
// grew; it returns when done is closed.
func (t *textSearch) follow(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-t.kick:
		}
		for quiet := false; !quiet; {
			select {
			case <-done:
				return
			case <-t.kick:
			case <-time.After(searchQuiet):
				quiet = true
			}
		}
		// In slices, so that a search waits for a slice at most, and recording for
		// a short one.
		for {
			slice, pause := t.slice()
			done, err := t.catchUp(time.Now().Add(slice))
			if err != nil {
				t.note("the search index: " + err.Error())
			}
			if done || err != nil {
				break
			}
			pause()
		}
	}
}

// open returns the index, opened from the store if need be. t.mu is held.
func (t *textSearch) open() (*search.Index, error) {
	if t.ix == nil {
		ix, err := search.Open(t.store, nil)
		if err != nil {
			return nil, err
		}
		t.ix = ix
	}
	return t.ix, nil
}

// failed forgets the index after an error, so that it is opened again from what
// the store holds. t.mu is held.
func (t *textSearch) failed() {
	t.ix = nil
	t.store.drop()
}

// searchSlice is how long the index reads sessions before it lets a search in;
// searchBudget how long a search waits for the index to read what it has not.
// While a tab is recorded, the index reads in slices of searchSliceRecording, each
// followed, while the tab's events come, by as long a pause: in the extension's core,
// which runs one goroutine at a time, an event of the recorded tab waits at most that
// long for the index, and a page being loaded gets half the core at least.
const (
	searchSlice          = 2 * time.Second
	searchSliceRecording = 100 * time.Millisecond
	searchBudget         = 3 * time.Second
)

// slice returns how long the index reads before it lets others in, and how it lets
// them in: searchSlice and a yield; while a tab is recorded searchSliceRecording, and
// while its events come a pause as long.
func (t *textSearch) slice() (time.Duration, func()) {
	if t.recording == nil {
		return searchSlice, yield
	}
	switch recording, active := t.recording(); {
	case active:
		return searchSliceRecording, func() { time.Sleep(searchSliceRecording) }
	case recording:
		return searchSliceRecording, yield
	}
	return searchSlice, yield
}

// catchUp indexes what every session has been written since the index last read
// it, until deadline, and removes the sessions that are gone; done reports that
// it read everything.
func (t *textSearch) catchUp(deadline time.Time) (done bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ix, err := t.open()
	if err != nil {
		return false, err
	}
	sessions, err := t.sessions.list()
	if err != nil {
		return false, err
	}
	live := map[string]bool{}
	var errs []error
	done = true
	worked := false // some session was read: past the deadline, the others wait
	for _, info := range sessions {
		live[info.ID] = true
		if !done {
			continue
		}
		sess, err := t.sessions.find(info.ID)
		if err == nil {
			var read bool
			done, read, err = t.indexSession(ix, sess, deadline, worked)
			worked = worked || read
		}
		if err != nil {
			done = true // the next session's turn: this one is noted
			errs = append(errs, fmt.Errorf("session %s: %w", info.ID, err))
			t.failed()
			if ix, err = t.open(); err != nil {
				return false, errors.Join(append(errs, err)...)
			}
		}
	}
	read, err := t.base.Keys(searchReadKeys)
	if err != nil {
		return false, errors.Join(append(errs, err)...)
	}
	for _, k := range read {
		if id := strings.TrimPrefix(k, searchReadKeys); !live[id] {
			if err := t.remove(ix, id); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return done, errors.Join(errs...)
}

// indexSession indexes the CDX lines of sess the index has not read, committing
// every searchCommitDocs documents with how far it has read, until deadline (zero:
// none), past which it reads one document at least unless wait is set; done
// reports that it read them all, worked that it read some. A chunk of an import
// holds thousands of lines: the index stops within one, so that a search waits
// no longer than a commit's documents for it.
func (t *textSearch) indexSession(ix *search.Index, sess *Session, deadline time.Time, wait bool) (done, worked bool, err error) {
	id := sess.info.ID
	readKey := searchReadKeys + id
	var at readMark
	if b, err := t.base.Get(readKey); err == nil {
		var ok bool
		if at, ok = parseReadMark(string(b)); !ok {
			// How far it was read is not known: what the index holds of it
			// goes, and it is read again, so that no page is indexed twice.
			t.note(fmt.Sprintf("the search index: session %s: its read mark %q does not parse; it is indexed again", id, b))
			if _, err := ix.DeleteSession(id); err != nil {
				return false, false, err
			}
			// Committed at once with a mark of nothing read, so that this is said
			// once, whatever the session holds.
			if err := t.store.commit([]string{readKey}, [][]byte{[]byte(readMark{}.String())}); err != nil {
				return false, false, err
			}
		}
	} else if !errors.Is(err, ErrNotFound) {
		return false, false, err
	}
	cdxKeys, err := t.base.Keys(sessionKey(id, streamCDX+"/"))
	if err != nil || at.chunks >= len(cdxKeys) {
		return err == nil, false, err
	}
	late := func() bool { return !deadline.IsZero() && time.Now().After(deadline) }
	if wait && late() {
		return false, false, nil
	}
	file, err := t.file(sess)
	if err != nil {
		return false, false, err
	}
	pending := 0
	commit := func(to readMark) error {
		if err := ix.Flush(); err != nil {
			return err
		}
		pending = 0
		return t.store.commit([]string{readKey}, [][]byte{[]byte(to.String())})
	}
	for i := at.chunks; i < len(cdxKeys); i++ {
		chunk := t.partData
		if t.partKey != cdxKeys[i] {
			if chunk, err = t.base.Get(cdxKeys[i]); err != nil {
				return false, false, err
			}
		}
		t.partKey, t.partData = "", nil
		n := 0 // the lines of the chunk read
		for line := range strings.Lines(string(chunk)) {
			if n++; i == at.chunks && n <= at.lines {
				continue // read before
			}
			e, err := cdx.ParseEntry([]byte(strings.TrimRight(line, "\n")))
			if err != nil {
				continue // an index line the replay skips too, and lists
			}
			doc, ok := indexedDoc(file, e)
			if !ok {
				continue
			}
			doc.Session = id
			if _, err := ix.Add(doc); err != nil {
				return false, false, err
			}
			pending++
			yield()
			if stop := late(); stop || pending >= searchCommitDocs {
				if err := commit(readMark{i, n}); err != nil || stop {
					if err == nil {
						t.partKey, t.partData = cdxKeys[i], chunk
					}
					return false, true, err
				}
			}
		}
	}
	return true, true, commit(readMark{chunks: len(cdxKeys)})
}

// A readMark is how far the index has read a session's CDX stream: its first
// chunks whole, then lines of the next. It is stored as "chunks" or
// "chunks:lines".
type readMark struct{ chunks, lines int }

func (m readMark) String() string {
	if m.lines == 0 {
		return strconv.Itoa(m.chunks)
	}
	return strconv.Itoa(m.chunks) + ":" + strconv.Itoa(m.lines)
}

// parseReadMark reads a readMark, and says whether s is one.
func parseReadMark(s string) (readMark, bool) {
	c, l, _ := strings.Cut(s, ":")
	chunks, err1 := strconv.Atoi(c)
	lines, err2 := strconv.Atoi(cmp.Or(l, "0"))
	if err1 != nil || err2 != nil || chunks < 0 || lines < 0 {
		return readMark{}, false
	}
	return readMark{chunks, lines}, true
}

// file returns the session's WARC file, grown to the chunks it has now.
func (t *textSearch) file(sess *Session) (*chunkedFile, error) {
	keys, err := t.base.Keys(sessionKey(sess.info.ID, streamWARC+"/"))
	if err != nil {
		return nil, err
	}
	f := t.files[sess.info.ID]
	if f == nil {
		f = &chunkedFile{store: t.base, cache: t.cache}
		t.files[sess.info.ID] = f
	}
	if err := f.grow(keys); err != nil {
		delete(t.files, sess.info.ID)
		return nil, err
	}
	return f, nil
}

// indexedDoc reads the answer a CDX line names, if it is one the index holds:
// a response (not a revisit: its payload is indexed where it was first
// recorded) with a status and text (search.KindOf).
func indexedDoc(f replay.File, e cdx.Entry) (search.Document, bool) {
	status, err := strconv.Atoi(e.Status)
	if err != nil || search.KindOf(e.Mime) == search.KindNone {
		return search.Document{}, false
	}
	resp, err := replay.ReadResponseAt(f, e.Offset)
	if err != nil {
		return search.Document{}, false
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = e.Mime
	}
	if search.KindOf(ct) == search.KindNone || resp.Encoded() {
		return search.Document{}, false
	}
	// What was read before a damaged part is still searchable.
	d, _ := search.Extract(ct, io.LimitReader(resp.Body, maxIndexedBody), maxIndexedText)
	if d.Text == "" && d.Title == "" {
		return search.Document{}, false
	}
	ts, _ := time.Parse("20060102150405", e.Timestamp)
	method := e.Method
	if method == "" {
		method = "GET"
	}
	return search.Document{URL: e.URL, Time: ts, Method: method, Status: status, Mime: e.Mime,
		Ref: e.Timestamp, Title: d.Title, Text: d.Text}, true
}

// forget removes a deleted session from the index.
func (t *textSearch) forget(id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.files, id)
	if strings.HasPrefix(t.partKey, sessionKey(id, "")) {
		t.partKey, t.partData = "", nil
	}
	ix, err := t.open()
	if err != nil {
		return err
	}
	return t.remove(ix, id)
}

// remove removes a session's documents and its read note. t.mu is held.
func (t *textSearch) remove(ix *search.Index, id string) error {
	if _, err := ix.DeleteSession(id); err != nil {
		t.failed()
		return err
	}
	if err := t.store.commit(nil, nil); err != nil {
		t.failed()
		return err
	}
	return t.store.store.Delete(searchReadKeys + id)
}

// find answers a query over every session (or the one named), once the index
// has read everything written before it.
func (t *textSearch) find(query, session string, limit int) (api.SearchResults, error) {
	started := time.Now()
	q, err := search.ParseQuery(query)
	if err != nil {
		return api.SearchResults{}, badRequest(err)
	}
	if session != "" {
		q.Filters = append(q.Filters, search.Filter{Key: search.FilterSession, Value: session})
	}
	if len(q.Clauses) == 0 && len(q.Filters) == 0 {
		return api.SearchResults{}, badRequest(errors.New("the query is empty: give words to find"))
	}
	done, err := t.catchUp(time.Now().Add(searchBudget))
	if err != nil {
		t.note("the search index: " + err.Error())
	}
	if !done {
		t.grew() // the rest in the background
	}
	t.mu.Lock()
	ix, err := t.open()
	var res search.Results
	if err == nil {
		res, err = ix.Search(q, limit)
	}
	t.mu.Unlock()
	if err != nil {
		return api.SearchResults{}, err
	}
	names := map[string]string{}
	if list, err := t.sessions.list(); err == nil {
		for _, info := range list {
			names[info.ID] = info.Name
		}
	}
	out := api.SearchResults{Results: []api.SearchResult{}, Total: res.Total, Estimated: res.Estimated, Indexing: !done}
	for _, h := range res.Hits {
		ts := h.Time.UTC().Format("20060102150405")
		out.Results = append(out.Results, api.SearchResult{
			Session: h.Session, SessionName: names[h.Session], URL: h.URL, TS: ts, Title: h.Title,
			Snippet: h.Snippet, Status: h.Status, Mime: h.Mime, Method: h.Method,
			Replay: replay.Link(h.Session, h.URL, ts),
		})
	}
	out.MS = float64(time.Since(started).Microseconds()) / 1000
	return out, nil
}

// routes adds GET /api/search.
func (t *textSearch) routes(mux *routeTable) {
	mux.HandleFunc("GET /api/search", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		q := r.URL.Query()
		limit := 20
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				writeError(w, badRequest(fmt.Errorf("limit %q: give a number from 1 to 1000", v)))
				return
			}
			limit = n
		}
		res, err := t.find(q.Get("q"), q.Get("session"), limit)
		if err == nil && q.Get("team") == "1" && q.Get("session") == "" && t.team != nil {
			// The team archive's results follow this browser's: two indexes rank
			// apart. One the team archive cannot give is said, not an error.
			started := time.Now()
			team, terr := t.team(r.Context(), q.Get("q"), limit)
			if terr != nil {
				res.TeamError = terr.Error()
			} else {
				res.Results = append(res.Results, team.Results...)
				res.Total += team.Total
				res.Estimated = res.Estimated || team.Estimated
			}
			res.MS += float64(time.Since(started).Microseconds()) / 1000
		}
		answer(w, httpmsg.StatusOK, res, err)
	})
}
