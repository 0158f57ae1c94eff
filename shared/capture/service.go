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
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urldb"
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
type Service struct {
	store    Store
	host     Host
	recorder *recorder.Recorder
	now      func() time.Time
	tasks    *taskQueue
	writes   *taskQueue // exchanges waiting to be written, in order

	mu       sync.Mutex
	state    state
	sessions map[string]*Session
	settings Settings
	db       *urlDatabase
	jobs     jobs
	sites    map[string]bool // session id + origin: data.txt already fetched
	rules    domainRules
	bg       sync.WaitGroup // background work of the recording (site files)

	httpClient  urldb.Doer // for the team archive and site files, set by tests; see client
	lastEventAt time.Time  // when the last browser event was handled

	replays replays // sessions being replayed
	pilots  pilots  // autopilot runs, by tab
}

// NewService returns a service over store and host, restoring the recording state a
// previous instance left in the store.
func NewService(store Store, host Host) (*Service, error) {
	s := &Service{store: store, host: host, now: time.Now, sessions: map[string]*Session{}, tasks: newTaskQueue(), writes: newTaskQueue(), sites: map[string]bool{}}
	s.recorder = recorder.NewRecorder(host)
	s.replays.cache.max, s.replays.batches.max = chunkCacheBytes, batchCacheBytes
	s.recorder.Store = store
	if router, ok := host.(recorder.BodyRouter); ok {
		s.recorder.Router = router
	}
	recorder.CleanSpools(store) // bodies a stopped instance was receiving are lost with it
	s.recorder.OnExchange = s.exchange
	s.recorder.OnPage = s.page
	s.recorder.OnError = func(err error) { s.noteCurrent(err.Error()) }
	s.recorder.OnPageNote = s.pageNote
	s.settings = loadSettings(store)
	s.recorder.BodyLimit = s.settings.BodyLimit
	s.db = loadURLDatabase(store)
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
	s.ResumeUploads() // a restarted service worker goes on with its uploads
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

// session returns the open session with the id, loading it if needed. s.mu is held.
func (s *Service) session(id string) (*Session, error) {
	if sess := s.sessions[id]; sess != nil {
		return sess, nil
	}
	sess, err := openSession(s.store, id)
	if err != nil {
		return nil, err
	}
	s.sessions[id] = sess
	return sess, nil
}

// current returns the session being recorded into, or nil.
func (s *Service) current() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Session == "" {
		return nil
	}
	sess, err := s.session(s.state.Session)
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
		sess, err := createSession(s.store, "Session "+s.now().UTC().Format("2006-01-02 15:04"), s.now())
		if err != nil {
			s.mu.Unlock()
			return SessionInfo{}, err
		}
		s.sessions[sess.info.ID] = sess
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
	sess, _ := s.session(s.state.Session)
	s.mu.Unlock()
	if err != nil {
		return SessionInfo{}, err
	}
	if !already {
		if err := s.attach(ctx, tabID); err != nil {
			s.host.Detach(ctx, tabID)
			s.forget(tabID)
			if created != "" {
				// Nothing was recorded: leave no empty session behind.
				s.mu.Lock()
				delete(s.sessions, created)
				s.store.Delete("s/" + created + "/")
				s.mu.Unlock()
			}
			return SessionInfo{}, err
		}
		s.rememberTarget(ctx, tabID)
	}
	s.host.Badge(tabID, badgeText(sess.Info().Records))
	return sess.Info(), nil
}

func (s *Service) attach(ctx context.Context, tabID int) error {
	if err := s.host.Attach(ctx, tabID); err != nil {
		return fmt.Errorf("capture: attaching to tab %d: %w", tabID, err)
	}
	return s.recorder.Enable(ctx, recorder.Target{TabID: tabID})
}

// forget stops tracking tabID without touching the browser. When no tab is left, the
// session is closed: it ends when nothing is recorded into it any more.
func (s *Service) forget(tabID int) {
	s.stopPilots(tabID)
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

// rememberTarget keeps the DevTools target id of a tab just attached, if the host can
// name it, so that Reconcile can tell the tab from another the browser gives its id
// after a restart. Without it Reconcile goes by whether a debugger is attached.
func (s *Service) rememberTarget(ctx context.Context, tabID int) {
	lister, ok := s.host.(TabLister)
	if !ok {
		return
	}
	open, err := lister.OpenTabs(ctx)
	if err != nil {
		return
	}
	for _, t := range open {
		if t.ID != tabID || t.Target == "" {
			continue
		}
		s.mu.Lock()
		if s.recordingLocked(tabID) {
			if s.state.Targets == nil {
				s.state.Targets = map[int]string{}
			}
			s.state.Targets[tabID] = t.Target
			s.saveState()
		}
		s.mu.Unlock()
	}
}

// Reconcile brings the recording state a previous instance left (Service.NewService)
// in line with the tabs the browser has open; the extension calls it when the core
// starts, before it answers anything. A recorded tab goes on being recorded if it is
// still open: the same DevTools target, or, if its target is not known, a tab with its
// id that a debugger is attached to; one whose debugger left meanwhile is attached
// again. The others are gone: the browser closed them, or was closed or killed while
// recording. When every tab of a recording is gone, the recording is closed, with a
// note in its session saying so; what was recorded stays. Without a TabLister host,
// nothing is changed.
func (s *Service) Reconcile(ctx context.Context) (err error) {
	lister, ok := s.host.(TabLister)
	if !ok || len(s.tabs()) == 0 {
		return nil // nothing is recorded: nothing to ask the browser
	}
	open, err := lister.OpenTabs(ctx)
	if err != nil {
		return fmt.Errorf("capture: listing the open tabs: %w", err)
	}
	s.do(func() { err = s.reconcile(ctx, open) })
	return err
}

func (s *Service) reconcile(ctx context.Context, open []OpenTab) error {
	s.mu.Lock()
	id, recorded, targets := s.state.Session, append([]int(nil), s.state.Tabs...), s.state.Targets
	s.mu.Unlock()
	if id == "" {
		return nil
	}
	byID := map[int]OpenTab{}
	for _, t := range open {
		byID[t.ID] = t
	}
	var gone, kept []int
	for _, tab := range recorded {
		t, ok := byID[tab]
		target, known := targets[tab]
		switch {
		case !ok, known && t.Target != target, !known && !t.Attached:
			gone = append(gone, tab)
		case !t.Attached:
			// The same tab, which the debugger left while no instance listened.
			if err := s.attach(ctx, tab); err != nil {
				gone = append(gone, tab)
				continue
			}
			kept = append(kept, tab)
		default:
			kept = append(kept, tab)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	s.mu.Lock()
	sess, err := s.session(id)
	s.mu.Unlock()
	for _, tab := range gone {
		s.forget(tab)
	}
	if err != nil {
		return fmt.Errorf("capture: closing the recording of tabs that are gone: %w", err)
	}
	if len(kept) == 0 {
		sess.Note(fmt.Sprintf("the browser closed while recording; %s when webkeep restarted. Recording stopped there; what was recorded until then is kept", goneTabs(len(gone))))
	} else {
		sess.Note(fmt.Sprintf("%s when webkeep restarted; recording goes on in the %s", goneTabs(len(gone)), plural(len(kept), "other tab")))
	}
	return nil
}

// goneTabs says that n recorded tabs were gone.
func goneTabs(n int) string {
	if n == 1 {
		return "1 tab was gone"
	}
	return fmt.Sprintf("%d tabs were gone", n)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// StopTab stops recording one tab; when it was the last, the session is closed. It
// returns within StopLimit, as Stop does.
func (s *Service) StopTab(ctx context.Context, tabID int) (info SessionInfo, err error) {
	deadline := time.Now().Add(StopLimit)
	arriving := s.drain(ctx, []int{tabID}, deadline.Add(-StopLimit*drainShare/10))
	s.do(func() { info, err = s.stopTab(ctx, tabID, deadline, arriving) })
	return info, err
}

func (s *Service) stopTab(ctx context.Context, tabID int, deadline time.Time, arriving []string) (SessionInfo, error) {
	if len(s.tabs()) <= 1 {
		return s.stop(ctx, deadline, arriving)
	}
	s.stopPilots(tabID)
	s.noteArriving(arriving)
	s.recorder.ReadLeftBodies(ctx, tabID)
	s.waitStopping(deadline.Add(-StopLimit/5), "recording stopped before the browser answered %s: bodies being read then may be missing")
	s.host.Detach(ctx, tabID)
	s.recorder.Detached(ctx, recorder.Target{TabID: tabID}, "recording stopped")
	s.waitStopping(deadline.Add(-StopLimit/10), "recording stopped with commands unanswered after the debugger left: %s")
	s.flushWrites()
	s.host.Badge(tabID, "")
	s.forget(tabID)
	if sess := s.current(); sess != nil {
		return sess.Info(), nil
	}
	return SessionInfo{}, nil
}

// Stop ends recording: every recorded tab is detached and the session is closed, once
// every exchange that was under way has been written. Bodies still arriving (the
// browser's events lag behind what the page already has) are waited for while they
// make progress, for part of StopLimit: Stop returns within StopLimit whatever the
// tabs and the browser do, and the session's notes say what it gave up on (bodies
// still arriving, kept as far as they came and marked; commands not answered).
func (s *Service) Stop(ctx context.Context) (info SessionInfo, err error) {
	deadline := time.Now().Add(StopLimit)
	arriving := s.drain(ctx, s.tabs(), deadline.Add(-StopLimit*drainShare/10))
	s.do(func() { info, err = s.stop(ctx, deadline, arriving) })
	return info, err
}

// StopLimit bounds how long stopping a recording takes (Stop, StopTab).
var StopLimit = 10 * time.Second

// drainShare is the tenths of StopLimit left for what follows the wait for bodies
// still arriving: the answers to commands under way, writing the records.
const drainShare = 4

// noteArriving says in the session which bodies were still arriving when stopping
// gave up waiting for them.
func (s *Service) noteArriving(urls []string) {
	if len(urls) == 0 {
		return
	}
	const shown = 5
	list := strings.Join(urls[:min(len(urls), shown)], ", ")
	if len(urls) > shown {
		list += fmt.Sprintf(" and %d more", len(urls)-shown)
	}
	what := "1 body was"
	if len(urls) > 1 {
		what = fmt.Sprintf("%d bodies were", len(urls))
	}
	s.noteCurrent(fmt.Sprintf("recording stopped while %s still arriving, kept as far as they had come and marked Truncated: %s", what, list))
}

// waitStopping waits, until at the latest, for the commands and finishes under way;
// if it gives up, the session says so with format, whose %s is what it gave up on.
func (s *Service) waitStopping(until time.Time, format string) {
	if waiting := s.recorder.WaitAnswered(stopWait, until); waiting != nil {
		s.noteCurrent(fmt.Sprintf(format, strings.Join(waiting, ", ")))
	}
}

// siteFetchLimit bounds the reading of a site's data.txt and robots.txt.
const siteFetchLimit = 30 * time.Second

// stopWait bounds how long stopping waits for the browser to answer one of the
// commands under way, before and after the debugger leaves the tabs.
var stopWait = 10 * time.Second

// stopGrace is how long stopping waits at least for the browser's events about what
// the page did just before Stop to come in.
const stopGrace = 300 * time.Millisecond

// drainIdle bounds the wait for bodies to finish arriving when recording stops: no
// event handled for this long, and the wait ends.
const drainIdle = 3 * time.Second

// drain waits, outside the event queue so events go on being handled, until no
// response of the tabs is mid-body, events stop coming, or until has come. It
// returns the URLs of the bodies still arriving when it gave up.
func (s *Service) drain(ctx context.Context, tabs []int, until time.Time) []string {
	start := time.Now()
	for {
		var busy []string
		for _, t := range tabs {
			busy = append(busy, s.recorder.Receiving(t)...)
		}
		// The browser's events lag behind the page: a request whose answer the page
		// already has may not have been reported yet. Nothing busy counts once the
		// events have been quiet for a moment, stopGrace after Stop at the soonest.
		quiet := time.Since(s.lastEvent())
		if time.Since(start) >= stopGrace && (len(busy) == 0 && quiet >= stopGrace/3 || quiet > drainIdle) {
			return nil
		}
		if !time.Now().Before(until) || ctx.Err() != nil {
			return busy
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *Service) lastEvent() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastEventAt
}

func (s *Service) stop(ctx context.Context, deadline time.Time, arriving []string) (SessionInfo, error) {
	s.mu.Lock()
	tabs := append([]int(nil), s.state.Tabs...)
	id := s.state.Session
	s.mu.Unlock()
	s.stopPilots(tabs...)
	s.noteArriving(arriving)
	for _, t := range tabs {
		s.recorder.ReadLeftBodies(ctx, t)
	}
	// Bodies being read are read before the debugger leaves: the browser drops what
	// it kept for a tab when it does. A browser that does not answer, or a body that
	// never ends, does not keep recording from stopping.
	s.waitStopping(deadline.Add(-StopLimit/5), "recording stopped before the browser answered %s: bodies being read then may be missing")
	for _, t := range tabs {
		s.host.Detach(ctx, t) // a closed tab is already detached
		s.recorder.Detached(ctx, recorder.Target{TabID: t}, "recording stopped")
		s.host.Badge(t, "")
	}
	s.waitStopping(deadline.Add(-StopLimit/10), "recording stopped with commands unanswered after the debugger left: %s")
	s.flushWrites()
	if !s.waitBackground(max(time.Until(deadline), 50*time.Millisecond)) {
		s.noteCurrent("recording stopped before the site files (data.txt, robots.txt) were read")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state = state{}
	if err := s.saveState(); err != nil {
		return SessionInfo{}, err
	}
	if id == "" {
		return SessionInfo{}, nil
	}
	sess, err := s.session(id)
	if err != nil {
		return SessionInfo{}, err
	}
	return sess.Info(), nil
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
	s.writes.push(func() {
		s.recorder.WaitQuiet(ended)
		s.write(sess, ex)
	})
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
	applyPolicy(ex, s.Settings())
	if err := sess.WriteExchange(ex); err != nil {
		sess.Note(err.Error())
	}
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
	if err := sess.AddPage(p); err != nil {
		sess.Note(err.Error())
	}
	s.pilotOnPage(p)
	origin := p.URL
	if u, err := url.Parse(p.URL); err == nil {
		origin = u.Scheme + "://" + u.Host
	}
	key := sess.info.ID + " " + origin
	s.mu.Lock()
	seen := s.sites[key]
	s.sites[key] = true
	agent := s.settings.Agent
	s.mu.Unlock()
	if seen || p.FrameID == "" {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), siteFetchLimit)
		defer cancel()
		site, err := fetchSite(ctx, s.host, recorder.Target{TabID: p.TabID}, p.FrameID, p.URL, agent)
		if err != nil {
			sess.Note(fmt.Sprintf("%s: data.txt: %v", origin, err))
			return
		}
		if err := sess.AddSite(site); err != nil {
			sess.Note(err.Error())
		}
	}()
}

// canonical applies the domain rules of a URL's site, if it has any: its canonical URL
// groups pages and finds their URL-database record. Broken rules are noted once per
// page, not fatal.
func (s *Service) canonical(rawURL string) (canonical, website string) {
	rules := s.Settings().DomainRules
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

// Sessions lists every session, newest first.
func (s *Service) Sessions() ([]SessionInfo, error) {
	keys, err := s.store.Keys("s/")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SessionInfo
	for _, k := range keys {
		if !strings.HasSuffix(k, "/info") {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(k, "s/"), "/info")
		sess, err := s.session(id)
		if err != nil {
			continue
		}
		out = append(out, sess.Info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}

// Session returns the session with the id.
func (s *Service) Session(id string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.session(id)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errNoSession, id)
	}
	return sess, nil
}

// DeleteSession removes a session and everything recorded in it. The session being
// recorded cannot be deleted.
func (s *Service) DeleteSession(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == s.state.Session {
		return fmt.Errorf("session %s is being recorded: stop recording first", id)
	}
	if _, err := s.session(id); err != nil {
		return fmt.Errorf("%w: %s", errNoSession, id)
	}
	delete(s.sessions, id)
	return s.store.Delete("s/" + id + "/")
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
	st.Autopilot = s.pilotStates()
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

// waitBackground waits for the service's background work (reading site files) for at
// most d, and reports whether it is done.
func (s *Service) waitBackground(d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		s.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}
