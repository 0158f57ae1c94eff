package capture

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urldb"
	"github.com/webkeep/webkeep/shared/warc"
)

// SessionInfo describes a recording session: what the archive page lists.
type SessionInfo = api.SessionInfo

// Verdicts counts the URL-database checks of a session's responses.
type Verdicts = api.VerdictCounts

// storedInfo is a session's info as the store keeps it: what the pages see, and the
// next sequence number of each of its append-only streams.
type storedInfo struct {
	SessionInfo
	Chunks map[string]int `json:"chunks,omitempty"`
}

// maxNotes bounds the problems kept in a session's info; the count goes on. Past it,
// the first notes stay, and so do the latest latestNotes (a tab's summaries, written
// as its recording ends, come last): a note between them says how many were left
// out.
const (
	maxNotes    = 50
	latestNotes = 15
)

// notesLeftOut is the note that counts the notes left out.
const notesLeftOut = "%d more notes were left out here (the reasons above count them)"

// maxReasons bounds the reasons counted apart in a session's info; others are counted
// together.
const maxReasons = 30

// reasonOf returns the reason of a note or failure label without its particulars: up
// to the first parenthesis, colon or semicolon ("cancelled by the browser" of
// "cancelled by the browser (net::ERR_ABORTED)").
func reasonOf(why string) string {
	if i := strings.IndexAny(why, "(:;"); i > 0 {
		why = why[:i]
	}
	return strings.TrimSpace(why)
}

// Streams of a session in the store, each a sequence of chunks.
const (
	streamWARC     = "warc"
	streamCDX      = "cdx"
	streamPages    = "pages"
	streamVerdicts = "verdicts"
	streamSites    = "sites"
	// streamDedup remembers, a JSON line each, the payloads archived in full, so that
	// deduplication goes on after the service worker restarts.
	streamDedup = "dedup"
	// streamRevisits gives, a JSON line each, the HTTP status of the revisit records,
	// which their CDX lines do not carry (pywb writes "-"): the archive page shows it.
	streamRevisits = "revisits"
)

// revisitLine is a line of streamRevisits.
type revisitLine struct {
	Offset int64 `json:"offset"`
	Status int   `json:"status"`
}

// dedupLine is a line of streamDedup.
type dedupLine struct {
	Digest string    `json:"digest"`
	ID     string    `json:"id"`
	URI    string    `json:"uri"`
	Date   time.Time `json:"date"`
}

// Session is an open recording session: it appends records to its store as they come.
type Session struct {
	store Store
	mu    sync.Mutex
	info  storedInfo
	sink  *chunkSink // where the writer's gzip members go: the store, a chunk at a time
	// dedup turns a payload already archived in this session into a revisit record.
	// It is read back from streamDedup when the session is written to after a
	// restart; archived, the exchange being written adds its line to dedupLines.
	dedup      *warc.Deduper
	dedupLines []byte
	// revisitLines are the lines of streamRevisits of the exchange being written.
	revisitLines []byte
	w            *warc.Writer
	// index indexes the records w writes, as they are written, into cdxLines: the
	// lines of the exchange being written.
	index    *cdx.Follower
	cdxLines []byte
}

func sessionKey(id, rest string) string { return "s/" + id + "/" + rest }

// createSession makes a new, empty session in the store.
func createSession(store Store, name string, now time.Time) (*Session, error) {
	s := newSession(store, name, now)
	// Two sessions made in the same millisecond (an import as recording starts) must
	// not share an id: the second would write over the first's records.
	for n, base := 2, s.info.ID; ; n++ {
		if _, err := store.Get(sessionKey(s.info.ID, "info")); errors.Is(err, ErrNotFound) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("capture: new session: %w", err)
		}
		s.info.ID = fmt.Sprintf("%s-%d", base, n)
	}
	if err := s.saveInfo(); err != nil {
		return nil, err
	}
	return s, nil
}

// newSession returns a new, empty session, not yet in the store: it is listed once its
// info is saved.
func newSession(store Store, name string, now time.Time) *Session {
	id := now.UTC().Format("20060102T150405.000Z")
	id = strings.ReplaceAll(id, ".", "")
	return &Session{store: store, info: storedInfo{
		SessionInfo: SessionInfo{ID: id, Name: name, Created: now.UTC(), Updated: now.UTC()},
		Chunks:      map[string]int{},
	}}
}

// openSession loads a session's state from the store.
func openSession(store Store, id string) (*Session, error) {
	b, err := store.Get(sessionKey(id, "info"))
	if err != nil {
		return nil, fmt.Errorf("capture: session %s: %w", id, err)
	}
	s := &Session{store: store}
	if err := json.Unmarshal(b, &s.info); err != nil {
		return nil, fmt.Errorf("capture: session %s: info: %w", id, err)
	}
	if s.info.Chunks == nil {
		s.info.Chunks = map[string]int{}
	}
	return s, nil
}

// Info returns a copy of the session's description.
func (s *Session) Info() SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := s.info.SessionInfo
	info.Notes = append([]string{}, s.info.Notes...)
	info.Reasons = maps.Clone(s.info.Reasons)
	return info
}

// saveInfo stores the session's info.
func (s *Session) saveInfo() error { return s.commit() }

// streamChunk is a chunk to append to one of the session's streams.
type streamChunk struct {
	stream string
	data   []byte
}

// commit appends chunks to the session's streams and saves its info, in one store
// transaction when the store can: the info never counts a chunk that is not there.
// On failure the info's chunk counters are as they were.
func (s *Session) commit(chunks ...streamChunk) error {
	prev := s.info.Chunks
	s.info.Chunks = maps.Clone(prev)
	var keys []string
	var values [][]byte
	for _, c := range chunks {
		if len(c.data) == 0 {
			continue
		}
		seq := s.info.Chunks[c.stream]
		keys = append(keys, s.chunkKey(c.stream, seq, len(c.data)))
		values = append(values, c.data)
		s.info.Chunks[c.stream] = seq + 1
	}
	info, err := json.Marshal(&s.info)
	if err == nil {
		err = putBatch(s.store, append(keys, sessionKey(s.info.ID, "info")), append(values, info))
	}
	if err != nil {
		s.info.Chunks = prev
		return fmt.Errorf("capture: session %s: %w", s.info.ID, err)
	}
	return nil
}

// chunkCount returns how many chunks the session's stream has.
func (s *Session) chunkCount(stream string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info.Chunks[stream]
}

// chunkKey is the key of a chunk of one of the session's streams: its sequence number,
// which orders the keys, then its length in bytes (chunkSize), by which a reader knows
// where each chunk starts without reading the chunks before it. Chunks written before
// the length was part of the key have none.
func (s *Session) chunkKey(stream string, seq, size int) string {
	return sessionKey(s.info.ID, fmt.Sprintf("%s/%010d.%d", stream, seq, size))
}

// chunkSize is the length a chunk's key gives (chunkKey), if it gives one.
func chunkSize(key string) (int64, bool) {
	_, size, ok := strings.Cut(path.Base(key), ".")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// appendChunk adds one chunk to a stream of the session.
func (s *Session) appendChunk(stream string, p []byte) error {
	seq := s.info.Chunks[stream]
	key := s.chunkKey(stream, seq, len(p))
	if err := s.store.Put(key, p); err != nil {
		return fmt.Errorf("capture: session %s: %s: %w", s.info.ID, stream, err)
	}
	s.info.Chunks[stream] = seq + 1
	return nil
}

// note keeps a problem for the user to see.
func (s *Session) note(msg string) {
	notes := s.info.Notes
	if len(notes) < maxNotes {
		s.info.Notes = append(notes, msg)
		return
	}
	at := maxNotes - latestNotes - 1 // the count of the notes left out
	left := 0
	if _, err := fmt.Sscanf(notes[at], notesLeftOut, &left); err != nil {
		left = 1 // the note there is left out first
	}
	// The oldest of the latest is left out, the new one kept.
	left++
	latest := append(slices.Clone(notes[at+2:]), msg)
	s.info.Notes = append(append(notes[:at:at], fmt.Sprintf(notesLeftOut, left)), latest...)
}

// Note records a problem that did not stop recording.
func (s *Session) Note(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.note(msg)
	s.saveInfo()
}

// AddVerdict keeps the URL-database verdict on a recorded response.
func (s *Session) AddVerdict(v urldb.Verdict) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	prev := s.info.Verdicts
	if v.OK {
		s.info.Verdicts.Pass++
	} else {
		s.info.Verdicts.Fail++
	}
	if err := s.commit(streamChunk{streamVerdicts, append(line, '\n')}); err != nil {
		s.info.Verdicts = prev
		return err
	}
	return nil
}

// AddSite keeps the data.txt findings of a site.
func (s *Session) AddSite(site Site) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	line, err := json.Marshal(site)
	if err != nil {
		return err
	}
	return s.commit(streamChunk{streamSites, append(line, '\n')})
}

// Rename gives the session a new name.
func (s *Session) Rename(name string) error {
	name, err := checkSessionName(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.info.Name = name
	return s.saveInfo()
}

// maxSessionName bounds a session's name, in characters.
const maxSessionName = 200

// checkSessionName returns a name given to a session, spaces trimmed, or why it cannot
// be one: empty, longer than maxSessionName characters, not UTF-8, or holding control
// characters (a line break, a NUL), which would show as nothing or break a line.
func checkSessionName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case n == 0 || n > maxSessionName:
		return "", fmt.Errorf("name: a session name must have 1 to %d characters, not %d", maxSessionName, n)
	case !utf8.ValidString(name):
		return "", fmt.Errorf("name: %q is not UTF-8 text", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", fmt.Errorf("name: %q holds a control character", name)
	}
	return name, nil
}

// Verdicts returns the session's URL-database verdicts.
func (s *Session) Verdicts() ([]urldb.Verdict, error) {
	var out []urldb.Verdict
	err := s.readLines(streamVerdicts, func(b []byte) error {
		var v urldb.Verdict
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// Sites returns the data.txt findings of the session's sites.
func (s *Session) Sites() ([]Site, error) {
	var out []Site
	err := s.readLines(streamSites, func(b []byte) error {
		var v Site
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// Pages returns the session's pages.
func (s *Session) Pages() ([]recorder.Page, error) {
	var out []recorder.Page
	err := s.readLines(streamPages, func(b []byte) error {
		var v recorder.Page
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// loadDedup returns a Deduper that knows the payloads the session has archived in
// full. On error it knows those read before it.
func (s *Session) loadDedup() (*warc.Deduper, error) {
	d := warc.NewDeduper()
	err := s.readLines(streamDedup, func(b []byte) error {
		var l dedupLine
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		d.Add(l.Digest, warc.DedupEntry{ID: l.ID, TargetURI: l.URI, Date: l.Date})
		return nil
	})
	return d, err
}

// readLines calls f with each line of a JSON-lines stream.
func (s *Session) readLines(stream string, f func([]byte) error) error {
	r, err := recorder.OpenChunks(s.store, sessionKey(s.info.ID, stream+"/"))
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := f(sc.Bytes()); err != nil {
			return fmt.Errorf("capture: session %s: %s line %d: %w", s.info.ID, stream, n, err)
		}
	}
	return sc.Err()
}

// WARC returns the session's .warc.gz as a stream.
func (s *Session) WARC() (io.Reader, error) {
	return recorder.OpenChunks(s.store, sessionKey(s.info.ID, streamWARC+"/"))
}

// CDXLines returns the session's CDXJ lines, in the order they were written.
func (s *Session) CDXLines() (io.Reader, error) {
	return recorder.OpenChunks(s.store, sessionKey(s.info.ID, streamCDX+"/"))
}

// PageLines returns the session's pages as JSON lines.
func (s *Session) PageLines() (io.Reader, error) {
	return recorder.OpenChunks(s.store, sessionKey(s.info.ID, streamPages+"/"))
}

// errNoSession is returned for an unknown session id.
var errNoSession = errors.New("no such session")

// RevisitStatus returns the HTTP status of each revisit record the session wrote, by
// its offset in the session's WARC.
func (s *Session) RevisitStatus() (map[int64]int, error) {
	out := map[int64]int{}
	err := s.readLines(streamRevisits, func(b []byte) error {
		var l revisitLine
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		out[l.Offset] = l.Status
		return nil
	})
	return out, err
}
