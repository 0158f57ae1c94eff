package capture

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// sessions are the sessions the store keeps, each opened once and kept open: those
// recorded, imported and checked into.
type sessions struct {
	store Store

	mu   sync.Mutex
	open map[string]*Session
}

func newSessions(store Store) *sessions {
	return &sessions{store: store, open: map[string]*Session{}}
}

// get returns the session with the id, opening it if needed.
func (ss *sessions) get(id string) (*Session, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if sess := ss.open[id]; sess != nil {
		return sess, nil
	}
	sess, err := openSession(ss.store, id)
	if err != nil {
		return nil, err
	}
	ss.open[id] = sess
	return sess, nil
}

// find is get for a session a request names: one that cannot be opened is
// errNoSession (404).
func (ss *sessions) find(id string) (*Session, error) {
	sess, err := ss.get(id)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errNoSession, id)
	}
	return sess, nil
}

// reserve makes a new session named name, its id one no other session has (two
// sessions made in the same millisecond would otherwise share it), not saved: it is
// listed once it has saved its info (an import, at its end).
func (ss *sessions) reserve(name string, now time.Time) (*Session, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for {
		sess := newSession(ss.store, name, now)
		_, err := ss.store.Get(sessionKey(sess.info.ID, "info"))
		if errors.Is(err, ErrNotFound) && ss.open[sess.info.ID] == nil {
			ss.open[sess.info.ID] = sess
			return sess, nil
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("session %s: %w", sess.info.ID, err)
		}
		now = now.Add(time.Millisecond)
	}
}

// create makes a new session named name, saved at once (createSession).
func (ss *sessions) create(name string, now time.Time) (*Session, error) {
	sess, err := createSession(ss.store, name, now)
	if err != nil {
		return nil, err
	}
	ss.add(sess)
	return sess, nil
}

// add keeps sess open.
func (ss *sessions) add(sess *Session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.open[sess.info.ID] = sess
}

// remove deletes the session with the id and everything recorded in it.
func (ss *sessions) remove(id string) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.open, id)
	return ss.store.Delete(sessionKey(id, ""))
}

// list returns every session's info, newest first.
func (ss *sessions) list() ([]SessionInfo, error) {
	keys, err := ss.store.Keys("s/")
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, k := range keys {
		if !strings.HasSuffix(k, "/info") {
			continue
		}
		sess, err := ss.get(strings.TrimSuffix(strings.TrimPrefix(k, "s/"), "/info"))
		if err != nil {
			continue
		}
		out = append(out, sess.Info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}

// with answers a request about the session in its {id} with h; an unknown session is
// answered 404.
func (ss *sessions) with(h func(httpmsg.ResponseWriter, *httpmsg.Request, *Session)) httpmsg.HandlerFunc {
	return func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		sess, err := ss.find(r.PathValue("id"))
		if err != nil {
			writeError(w, err)
			return
		}
		h(w, r, sess)
	}
}
