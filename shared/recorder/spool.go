package recorder

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// spoolChunk is how much of a large body is held in memory before it goes to the store.
const spoolChunk = 1 << 20

var spoolSeq atomic.Int64

// spool keeps a large response body in the store as it arrives, so memory stays flat
// whatever the body's size. Without a store it keeps the body's chunks in memory.
type spool struct {
	store  Store // nil: the chunks are kept in memory
	chunks [][]byte
	prefix string
	limit  int64 // bytes kept at most (0: all); more marks the body cut

	// router, when set, stores the data of the events itself, under routed keys.
	router BodyRouter
	routed bool // the router's part is ended and counted in size

	mu      sync.Mutex
	buf     bytes.Buffer
	seq     int
	size    int64
	cut     bool
	err     error
	removed bool
}

func newSpool(store Store, limit int64) *spool {
	return &spool{
		store:  store,
		prefix: NewSpoolPrefix(),
		limit:  limit,
	}
}

// routedKeys follows the prefix of the chunks a BodyRouter stores: they sort after the
// spool's own (digits), which hold what the browser had buffered before streaming began.
const routedKeys = "r"

// route has router store the data of tab's request id under the spool's prefix.
func (s *spool) route(router BodyRouter, tab int, id string) {
	s.router = router
	router.RouteBody(tab, id, s.prefix+routedKeys, s.limit)
}

// drop has the router keep none of the data still to come for tab's request id: the
// body will not be kept (it missed its start). The spool is to be removed.
func (s *spool) drop(tab int, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.router != nil && !s.routed {
		s.router.RouteBody(tab, id, s.prefix+routedKeys, -1)
	}
}

// readRouted has router read the DevTools IO stream handle of t to its end into the
// spool's routed keys, calling progress after each piece; finish counts it.
func (s *spool) readRouted(router BodyRouter, t Target, handle string, progress func()) error {
	s.mu.Lock()
	s.router = router
	s.mu.Unlock()
	for {
		done, err := router.ReadStream(t, handle, s.prefix+routedKeys, s.limit)
		if err != nil {
			return fmt.Errorf("recorder: reading a stream: %w", err)
		}
		progress()
		if done {
			return nil
		}
	}
}

// endRoute stops the router and counts what it stored. s.mu is held.
func (s *spool) endRoute() error {
	if s.router == nil || s.routed {
		return nil
	}
	s.routed = true
	n, cut, err := s.router.EndBody(s.prefix + routedKeys)
	s.size += n
	if s.limit > 0 && s.size > s.limit {
		// The buffered part and the routed part were each kept up to the limit.
		s.size = s.limit
		cut = true
	}
	s.cut = s.cut || cut
	if err != nil {
		return fmt.Errorf("recorder: spooling a body: %w", err)
	}
	return nil
}

// Write adds body bytes; the first error is kept and reported by finish.
func (s *spool) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	if s.limit > 0 && s.size+int64(len(p)) > s.limit {
		p = p[:max(0, s.limit-s.size)]
		s.cut = true
	}
	s.size += int64(len(p))
	s.buf.Write(p)
	if s.buf.Len() >= spoolChunk && s.err == nil {
		s.err = s.flush()
	}
	return n, nil
}

func (s *spool) flush() error {
	if s.buf.Len() == 0 {
		return nil
	}
	if s.store == nil {
		s.chunks = append(s.chunks, bytes.Clone(s.buf.Bytes()))
		s.seq++
		s.buf.Reset()
		return nil
	}
	key := fmt.Sprintf("%s%010d", s.prefix, s.seq)
	if err := s.store.Put(key, s.buf.Bytes()); err != nil {
		return fmt.Errorf("recorder: spooling a body: %w", err)
	}
	s.seq++
	s.buf.Reset()
	return nil
}

// finish stores what is buffered, unless the whole body is (see held); the body is
// then complete.
func (s *spool) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && (s.seq > 0 || s.router != nil) {
		s.err = s.flush()
	}
	if err := s.endRoute(); s.err == nil {
		s.err = err
	}
	return s.err
}

// held returns the whole body when it is still all in memory (it was small): nothing
// went to the store.
func (s *spool) held() ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seq > 0 || s.router != nil || s.err != nil {
		return nil, false
	}
	return bytes.Clone(s.buf.Bytes()), true
}

// reader streams the spooled body from the store.
func (s *spool) reader() (io.Reader, error) {
	if s.store == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		rs := make([]io.Reader, len(s.chunks))
		for i, c := range s.chunks {
			rs[i] = bytes.NewReader(c)
		}
		return io.MultiReader(rs...), nil
	}
	r, err := OpenChunks(s.store, s.prefix)
	if err != nil || s.router == nil {
		return r, err
	}
	// Stored beyond the limit: the two parts were each cut at it.
	return io.LimitReader(r, s.size), nil
}

// remove deletes the spooled chunks.
func (s *spool) remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.removed {
		s.removed = true
		s.endRoute()
		s.chunks = nil
		if s.store != nil && (s.seq > 0 || s.router != nil) {
			s.store.Delete(s.prefix)
		}
	}
}

// NewSpoolPrefix returns a key prefix of its own under "spool/", which CleanSpools
// clears: for data kept in the store only while the instance that put it runs (a
// spooled body, a file being imported).
func NewSpoolPrefix() string { return fmt.Sprintf("%s%010d/", spoolPrefix, spoolSeq.Add(1)) }

// CleanSpools deletes from store the bodies a stopped recorder was spooling: they are
// lost with it. A recorder's owner calls it when it starts, before recording. Most
// starts find none: the keys are listed first, and a deletion (in IndexedDB, a write
// transaction committed to disk, which a service worker's cold start waits for) is made
// only when there are some.
func CleanSpools(store Store) {
	if keys, err := store.Keys(spoolPrefix); err == nil && len(keys) == 0 {
		return
	}
	store.Delete(spoolPrefix)
}

// spoolPrefix is the prefix of every spool's keys (NewSpoolPrefix).
const spoolPrefix = "spool/"
