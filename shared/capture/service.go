// Package capture turns what a browser sees into an archive: the HTTP exchanges a
// recorder (shared/recorder) assembles from the Chrome DevTools Protocol become WARC
// records, CDX lines and page entries, appended to a session's storage as they
// arrive, and a session can be downloaded as a bundle.
package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/recorder"
)

// Host is what the service needs of the browser beyond DevTools commands: attaching
// the debugger to a tab, detaching it, and showing a badge. In the extension these are
// chrome.debugger and chrome.action calls made by the service worker's shim. A Host
// that is also a urldb.Doer makes the service's own HTTP requests (see client).
type Host interface {
	recorder.Browser
	Attach(ctx context.Context, tabID int) error
	Detach(ctx context.Context, tabID int) error
	Badge(tabID int, text string)
}

// TabLister is a Host that can list the tabs the browser has open. A service over one
// reconciles its recording state with them when it starts (Service.Reconcile), and
// remembers the DevTools target of each tab it records: unlike a tab id, which the
// browser hands out again after a restart, a target id names one tab of one run of the
// browser. In the extension the shim answers with chrome.tabs.query and
// chrome.debugger.getTargets.
type TabLister interface {
	OpenTabs(ctx context.Context) ([]OpenTab, error)
}

// OpenTab is a tab the browser has open.
type OpenTab struct {
	ID       int    // the tab id
	Target   string // its DevTools target id; empty if the browser listed none
	Attached bool   // whether a debugger is attached to it
}

// state is what must survive a restart of the service worker: which tabs are recorded
// into which session.
type state struct {
	Session string `json:"session,omitempty"` // the session being recorded into
	Tabs    []int  `json:"tabs"`
	// Targets are the DevTools target ids of the recorded tabs, by tab id, where the
	// host could name them (TabLister).
	Targets map[int]string `json:"targets,omitempty"`
}

const stateKey = "state"

// Service is the core of the extension: it records tabs into sessions, keeps them in a
// Store, and answers the extension pages through its HTTP handler. Browser events and
// recording commands (start, stop) run one at a time, in arrival order, on the service's
// own goroutine; the methods that take them never block the caller's event loop.
//
// Recording is its own: which tabs are recorded into which session (this file), how
// recording stops (stop.go) and starts again after a restart (reconcile.go). The rest
// are its features, each a type of its own that answers its own routes (api.go lists
// them): the archive page's sessions and downloads (archive), the WACZ signing key
// (signing), the URL database (db), replay (replays), the team archive (team), the
// jobs the pages follow (jobs) and the settings.
type Service struct {
	store    Store
	host     Host
	recorder *recorder.Recorder
	now      func() time.Time
	tasks    *taskQueue
	writes   *taskQueue     // exchanges waiting to be written, in order
	queued   map[string]int // their URLs, each with its count (s.mu; see Underway)

	mu          sync.Mutex
	state       state
	lastEventAt time.Time // when the last browser event was handled

	sessions *sessions
	settings *userSettings
	http     *clients // the service's own HTTP requests
	sites    *siteFiles
	rules    domainRules

	archive *archive
	signing *signing
	db      *database
	replays *replays
	team    *team
	jobs    *jobs
	search  *textSearch
	thumbs  *thumbnails // pictures of the pages recorded
	pilots  *pilots     // autopilot runs, by tab
	checks  *captureChecks
}

// NewService returns a service over store and host, restoring the recording state a
// previous instance left in the store.
func NewService(store Store, host Host) (*Service, error) {
	s := &Service{store: store, host: host, now: time.Now, tasks: newTaskQueue(), writes: newTaskQueue()}
	s.recorder = recorder.NewRecorder(host)
	s.recorder.Store = store
	if router, ok := host.(recorder.BodyRouter); ok {
		s.recorder.Router = router
	}
	recorder.CleanSpools(store) // bodies a stopped instance was receiving are lost with it
	s.recorder.OnExchange = s.exchange
	s.recorder.OnPage = s.page
	s.recorder.OnError = s.recorderNote
	s.recorder.OnPageNote = s.pageNote
	s.recorder.OnPageLoaded = func(tab int) {
		s.pilots.loaded(tab)
		if s.recording(tab) {
			s.thumbs.loaded(s.host, tab)
		}
	}
	s.settings = newUserSettings(store, func(set Settings) { s.recorder.BodyLimit = set.BodyLimit })
	s.sessions = newSessions(store)
	s.http = &clients{host: host}
	s.sites = &siteFiles{host: host}
	s.jobs = &jobs{}
	s.signing = &signing{host: host, settings: s.settings, http: s.http}
	s.replays = newReplays(store, s.sessions)
	s.search = newTextSearch(store, s.sessions, &s.replays.cache, s.noteCurrent)
	s.search.recording = func() (recording, active bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.state.Session != "", s.state.Session != "" && time.Since(s.lastEventAt) < searchQuiet
	}
	s.thumbs = &thumbnails{store: store, sessions: s.sessions}
	s.pilots = &pilots{s: s}
	s.checks = &captureChecks{store: store, sessions: s.sessions, replays: s.replays, now: s.now}
	s.archive = &archive{store: store, sessions: s.sessions, jobs: s.jobs, signing: s.signing, replays: s.replays, search: s.search, now: s.now, recording: s.recordingInto, note: s.noteCurrent}
	s.db = &database{urlDatabase: loadURLDatabase(store), store: store, settings: s.settings, http: s.http, jobs: s.jobs, sessions: s.sessions, now: s.now}
	s.team = &team{settings: s.settings, http: s.http, store: store, jobs: s.jobs, sessions: s.sessions, db: s.db.urlDatabase}
	s.team.replay.batches.max = batchCacheBytes
	s.search.team = s.team.search
	b, err := store.Get(stateKey)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("capture: loading state: %w", err)
	default:
		if err := json.Unmarshal(b, &s.state); err != nil {
			// A damaged state must not stop the extension: start idle, keep the sessions.
			s.state = state{}
		}
	}
	s.tasks.onPanic = func(p any) { s.noteCurrent(fmt.Sprintf("internal error (recording goes on): %v", p)) }
	s.writes.onPanic = s.tasks.onPanic
	go s.tasks.run()
	go s.writes.run()
	go s.search.follow(nil)
	s.search.grew()        // what was written before a restart and not yet read
	s.team.resumeUploads() // a restarted service worker goes on with its uploads
	return s, nil
}

// do runs f on the service's goroutine, after every event queued before it, and waits.
func (s *Service) do(f func()) {
	done := make(chan struct{})
	s.tasks.push(func() { defer close(done); f() })
	<-done
}

func (s *Service) saveState() error {
	b, err := json.Marshal(&s.state)
	if err != nil {
		return err
	}
	return s.store.Put(stateKey, b)
}

// recordingInto is the id of the session being recorded, "" when none is.
func (s *Service) recordingInto() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.Session
}

// current returns the session being recorded into, or nil.
func (s *Service) current() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Session == "" {
		return nil
	}
	sess, err := s.sessions.get(s.state.Session)
	if err != nil {
		return nil
	}
	return sess
}

func (s *Service) recording(tabID int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recordingLocked(tabID)
}

// recordingLocked is recording, s.mu held.
func (s *Service) recordingLocked(tabID int) bool {
	for _, t := range s.state.Tabs {
		if t == tabID {
			return true
		}
	}
	return false
}

// Start records tabID into the current session, creating one if none is open.
func (s *Service) Start(ctx context.Context, tabID int) (info SessionInfo, err error) {
	s.do(func() { info, err = s.start(ctx, tabID) })
	return info, err
}

func (s *Service) start(ctx context.Context, tabID int) (SessionInfo, error) {
	s.mu.Lock()
	created := ""
	if s.state.Session == "" {
		sess, err := s.sessions.create("Session "+s.now().UTC().Format("2006-01-02 15:04"), s.now())
		if err != nil {
			s.mu.Unlock()
			return SessionInfo{}, err
		}
		s.state.Session = sess.info.ID
		created = sess.info.ID
	}
	already := false
	for _, t := range s.state.Tabs {
		already = already || t == tabID
	}
	if !already {
		s.state.Tabs = append(s.state.Tabs, tabID)
	}
	err := s.saveState()
	sess, _ := s.sessions.get(s.state.Session)
	s.mu.Unlock()
	if err != nil {
		return SessionInfo{}, err
	}
	if !already {
		if err := s.attach(ctx, tabID); err != nil {
			s.forget(tabID)
			if created != "" {
				// Nothing was recorded: leave no empty session behind.
				s.sessions.remove(created)
			}
			return SessionInfo{}, err
		}
		s.rememberTarget(ctx, tabID)
	}
	s.host.Badge(tabID, badgeText(sess.Info().Records))
	return sess.Info(), nil
}

// attach attaches the debugger to tabID and enables what recording needs; if it then
// fails, it detaches again. A tab it could not attach to is left as it was: the
// debugger there may be another's (a replay's, refused by the host).
func (s *Service) attach(ctx context.Context, tabID int) error {
	if err := s.host.Attach(ctx, tabID); err != nil {
		return fmt.Errorf("capture: attaching to tab %d: %w", tabID, err)
	}
	if err := s.recorder.Enable(ctx, recorder.Target{TabID: tabID}); err != nil {
		s.host.Detach(ctx, tabID)
		return err
	}
	return nil
}

// forget stops tracking tabID without touching the browser. When no tab is left, the
// session is closed: it ends when nothing is recorded into it any more.
func (s *Service) forget(tabID int) {
	s.thumbs.forget(tabID)
	s.pilots.stop(tabID)
	s.mu.Lock()
	defer s.mu.Unlock()
	tabs := s.state.Tabs[:0]
	for _, t := range s.state.Tabs {
		if t != tabID {
			tabs = append(tabs, t)
		}
	}
	s.state.Tabs = tabs
	delete(s.state.Targets, tabID)
	if len(tabs) == 0 {
		s.state = state{}
	}
	s.saveState()
}

// Event queues one DevTools event of a tab for the recorder. data, if not nil, is the
// body data of a Network.dataReceived event, taken out of params as bytes.
func (s *Service) Event(ctx context.Context, t recorder.Target, method string, params json.RawMessage, data []byte) {
	s.tasks.push(func() {
		if !s.recording(t.TabID) {
			return
		}
		s.mu.Lock()
		s.lastEventAt = time.Now()
		s.mu.Unlock()
		if err := s.recorder.HandleEvent(ctx, t, method, params, data); err != nil {
			s.noteCurrent(err.Error())
		}
	})
}

// TabDetached tells the service that the debugger left a tab (closed, crashed, or the
// user dismissed the debugging bar). What was recorded stays; the user sees why.
func (s *Service) TabDetached(ctx context.Context, tabID int, reason string) {
	s.tasks.push(func() {
		if !s.recording(tabID) {
			return
		}
		s.recorder.Detached(ctx, recorder.Target{TabID: tabID}, reason)
		s.recorder.Wait()
		s.flushWrites()
		s.noteCurrent(fmt.Sprintf("tab %d stopped being recorded: %s", tabID, reason))
		s.forget(tabID)
	})
}

// TabTakenOff tells the service that the browser took the debugger off a tab that
// stays open: Chromium does so for a tab that shows a PDF in its PDF viewer (a frame
// of one of its own extensions). The tab is attached again and recorded on; a
// document whose body the browser no longer gave (the PDF's) is fetched again through
// the tab, and its record says so (recorder.ReasonTakenOff). The session's notes say
// what happened; if attaching again fails, the tab stops being recorded, as a tab
// closed does.
func (s *Service) TabTakenOff(ctx context.Context, tabID int) {
	s.tasks.push(func() {
		if !s.recording(tabID) {
			return
		}
		t := recorder.Target{TabID: tabID}
		s.recorder.Detached(ctx, t, recorder.ReasonTakenOff)
		err := s.attach(ctx, tabID)
		s.recorder.Resumed(tabID, err == nil)
		if err != nil {
			s.recorder.Wait()
			s.flushWrites()
			s.noteCurrent(fmt.Sprintf("tab %d stopped being recorded: the browser took the debugger off it as it showed a page no extension may debug (such as Chromium's PDF viewer), and attaching again failed: %v", tabID, err))
			s.forget(tabID)
			return
		}
		s.rememberTarget(ctx, tabID)
		s.noteCurrent(fmt.Sprintf("tab %d: the browser took the debugger off it as it showed a page no extension may debug (such as Chromium's PDF viewer); it was attached again and is recorded on, and a document whose body was lost so is fetched again (its record says so); what the tab asked for in between is not recorded", tabID))
	})
}

// TabCreated records a tab opened from a recorded tab.
func (s *Service) TabCreated(ctx context.Context, tabID, openerTabID int) {
	s.tasks.push(func() {
		if openerTabID == 0 || !s.recording(openerTabID) {
			return
		}
		if _, err := s.start(ctx, tabID); err != nil {
			s.noteCurrent(err.Error())
			return
		}
		// The new tab began loading before the debugger could attach: load it again,
		// so what it shows is recorded from its first request.
		if reloaded, err := s.recorder.CatchUp(ctx, recorder.Target{TabID: tabID}); err != nil {
			s.noteCurrent(fmt.Sprintf("tab %d opened from a recorded tab: %v", tabID, err))
		} else if reloaded != "" {
			s.noteCurrent(fmt.Sprintf("tab %d, opened from a recorded tab, was reloaded to record %s from its start", tabID, reloaded))
		}
	})
}

// exchange queues a finished exchange for writing into the session being recorded.
// Writing (compressing, hashing, storing) waits for a quiet moment (Recorder.WaitQuiet):
// in the browser it shares the processors with the page, and a thread with taking the
// page's events. The wait counts from when the exchange ended, so the queue never
// falls further behind.
func (s *Service) exchange(ex *recorder.Exchange) {
	sess := s.current()
	if sess == nil {
		ex.Release()
		return
	}
	ended := time.Now()
	written := s.queue(ex.URL)
	s.writes.push(func() {
		defer written()
		s.recorder.WaitQuiet(ended)
		s.write(sess, ex)
	})
}

// recorderNote keeps a problem the recorder reports in the current session's notes,
// after the exchanges queued before it: a tab's summary (the requests the browser
// never reported) comes after the exchanges cut short as the tab was detached, so it
// stays among the latest notes however many those are (see maxNotes).
func (s *Service) recorderNote(err error) {
	sess := s.current()
	if sess == nil {
		return
	}
	s.writes.push(func() { sess.Note(err.Error()) })
}

// pageNote archives a note about a page in the current session, after the exchanges
// queued before it.
func (s *Service) pageNote(page, note string) {
	sess := s.current()
	if sess == nil {
		return
	}
	s.writes.push(func() {
		if err := sess.WriteNote(page, note); err != nil {
			sess.Note(err.Error())
		}
	})
}

// flushWrites waits until every exchange queued for writing is written.
func (s *Service) flushWrites() {
	done := make(chan struct{})
	s.writes.push(func() { close(done) })
	<-done
}

// write archives an exchange into sess, with its URL-database verdict.
func (s *Service) write(sess *Session, ex *recorder.Exchange) {
	defer ex.Release()
	applyPolicy(ex, s.settings.get())
	if err := sess.WriteExchange(ex); err != nil {
		sess.Note(err.Error())
	}
	s.search.grew()
	canonical, _ := s.canonical(ex.URL)
	if v, ok := s.db.check(ex, canonical); ok {
		if err := sess.AddVerdict(v); err != nil {
			sess.Note(err.Error())
		}
	}
	info := sess.Info()
	for _, t := range s.tabs() {
		s.host.Badge(t, badgeText(info.Records))
	}
}

func (s *Service) page(p recorder.Page) {
	sess := s.current()
	if sess == nil {
		return
	}
	p.Canonical, p.Website = s.canonical(p.URL)
	p.ID = sess.nextPageID()
	if err := sess.AddPage(p); err != nil {
		sess.Note(err.Error())
	} else if !p.Restored {
		s.thumbs.shows(p.TabID, sess, p.ID, p.URL)
	}
	s.sites.read(sess, p, s.settings.get().Agent)
	s.pilots.onPage(p)
}

// canonical applies the domain rules of a URL's site, if it has any: its canonical URL
// groups pages and finds their URL-database record. Broken rules are noted once per
// page, not fatal.
func (s *Service) canonical(rawURL string) (canonical, website string) {
	rules := s.settings.get().DomainRules
	c, w, ok, err := s.rules.canonical(rawURL, rules, s.db.rulesFor)
	if err != nil {
		s.noteCurrent(err.Error())
	}
	if !ok {
		return "", ""
	}
	return c, w
}

func (s *Service) noteCurrent(msg string) {
	if sess := s.current(); sess != nil {
		sess.Note(msg)
	}
}

// tabs returns the recorded tabs: an empty list, never nil, when none is.
func (s *Service) tabs() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int{}, s.state.Tabs...)
}

// Status is the recording state shown by the popup.
type Status = api.Status

// Status returns the recording state, once the events already queued are handled.
func (s *Service) Status() (st Status) {
	s.do(func() { st = s.status() })
	return st
}

func (s *Service) status() Status {
	st := Status{Tabs: s.tabs()}
	st.Recording = len(st.Tabs) > 0
	if sess := s.current(); sess != nil {
		info := sess.Info()
		st.Session = &info
	}
	st.Autopilot = s.pilots.states()
	return st
}

func badgeText(n int) string {
	switch {
	case n == 0:
		return "REC"
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100000:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return "99k+"
	}
}
