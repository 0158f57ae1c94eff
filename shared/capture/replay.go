package capture

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"

	"github.com/webkeep/webkeep/shared/replay"
)

// replays holds, per session, what a replay of it needs: its index, its WARC file
// read at any offset, and the log of what was answered.
type replays struct {
	mu       sync.Mutex
	sessions map[string]*sessionReplay
}

type sessionReplay struct {
	index *replay.Index
	file  *chunkedFile
	log   replay.Log
}

// replayOf returns the replay of sess, read again if the session has grown since.
func (s *Service) replayOf(sess *Session) (*sessionReplay, error) {
	s.replays.mu.Lock()
	defer s.replays.mu.Unlock()
	// The session counts the chunks of its WARC: while that count is what the replay
	// read, the store is not asked again (a replayed page makes many requests).
	r := s.replays.sessions[sess.info.ID]
	if r != nil && len(r.file.keys) == sess.chunkCount(streamWARC) {
		return r, nil
	}
	keys, err := s.store.Keys(sessionKey(sess.info.ID, streamWARC+"/"))
	if err != nil {
		return nil, err
	}
	if r != nil && len(r.file.keys) == len(keys) {
		return r, nil
	}
	file, err := openChunkedFile(s.store, keys)
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
	r = &sessionReplay{index: ix, file: file}
	if s.replays.sessions == nil {
		s.replays.sessions = map[string]*sessionReplay{}
	}
	s.replays.sessions[sess.info.ID] = r
	return r, nil
}

// replayPage is a page of a session, with the link that replays it.
type replayPage struct {
	URL    string `json:"url"`
	TS     string `json:"ts"` // 14 digits, UTC
	Replay string `json:"replay"`
}

// maxReplayedBody is the largest request body (as JSON, base64 inside) that
// /api/replay/{id}/answer reads.
const maxReplayedBody = 64 << 20

// routeReplay adds the replay API: start a replay, answer a request, show the log.
func (s *Service) routeReplay(mux *routeTable) {
	mux.HandleFunc("POST /api/replay/{id}/start", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		rp, err := s.replayOf(sess)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		rp.log.Reset()
		problems := []string{}
		for _, p := range rp.index.Problems {
			problems = append(problems, p.Error())
		}
		pages, err := sess.Pages()
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		links := []replayPage{}
		for _, p := range pages {
			ts := p.TS.UTC().Format("20060102150405")
			links = append(links, replayPage{URL: p.URL, TS: ts, Replay: replay.Link(sess.info.ID, p.URL, ts)})
		}
		writeJSON(w, http.StatusOK, map[string]any{"session": sess.Info(), "captures": rp.index.Len(), "problems": problems, "pages": links})
	}))
	mux.HandleFunc("POST /api/replay/{id}/answer", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		var p replay.PausedRequest
		if err := readJSON(r.Body, maxReplayedBody, &p); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		req, err := p.Request()
		if err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		rp, err := s.replayOf(sess)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		a := rp.index.Serve(w, req, r.URL.Query().Get("ts"), rp.file, rp.file.size)
		rp.log.Add(a)
	}))
	mux.HandleFunc("GET /api/replay/{id}/log", s.withSession(func(w http.ResponseWriter, r *http.Request, sess *Session) {
		rp, err := s.replayOf(sess)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		writeJSON(w, http.StatusOK, rp.log.View())
	}))
}

// chunkedFile reads a stream kept in the store as chunks (a session's WARC) at any
// offset, holding one chunk in memory.
type chunkedFile struct {
	store  Store
	keys   []string
	starts []int64 // offset of each chunk
	size   int64

	mu  sync.Mutex
	at  int // index of the chunk in cur; -1: none
	cur []byte
}

// openChunkedFile reads each chunk once, to learn where it starts.
func openChunkedFile(store Store, keys []string) (*chunkedFile, error) {
	f := &chunkedFile{store: store, keys: keys, at: -1}
	for _, k := range keys {
		b, err := store.Get(k)
		if err != nil {
			return nil, fmt.Errorf("chunk %s: %w", k, err)
		}
		f.starts = append(f.starts, f.size)
		f.size += int64(len(b))
		yield()
	}
	return f, nil
}

// ReadAt reads from the chunks that hold [off, off+len(p)).
func (f *chunkedFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		if pos >= f.size {
			return n, io.EOF
		}
		i := sort.Search(len(f.starts), func(i int) bool { return f.starts[i] > pos }) - 1
		if i != f.at {
			b, err := f.store.Get(f.keys[i])
			if err != nil {
				return n, err
			}
			f.at, f.cur = i, b
		}
		c := pos - f.starts[i]
		if c >= int64(len(f.cur)) {
			return n, fmt.Errorf("replay: chunk %s changed size", f.keys[i])
		}
		n += copy(p[n:], f.cur[c:])
	}
	return n, nil
}
