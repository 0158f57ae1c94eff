package capture

// Autopilot in a recorded tab: the runs of shared/autopilot, one per tab, driven
// from here over the host with the page script (autopilot.PageScript) run in the
// tab's page by Runtime.evaluate; Firefox's background page answers that command with
// its content script, which runs the same page script.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/autopilot"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/recorder"
)

// autopilotCall begins the call of the page script's function in the expression the
// core evaluates: the script, then this, the message's JSON and ")". Firefox's
// background page finds the message after it (extension-firefox/background.js).
const autopilotCall = `globalThis[Symbol.for("webkeep.autopilot")](`

// pilots is autopilot, a feature of the service: the runs, the last of each tab, and
// the routes that start and stop them.
type pilots struct {
	s    *Service
	mu   sync.Mutex
	runs map[int]*pilotRun
	// reloads are the tabs reloaded for a run, each closed at the tab's next load
	// event: the run waits for it, so that it acts on the page as reloaded rather
	// than on the one going away (whose image loads the reload would cancel).
	reloads map[int]chan struct{}
}

// pilotRun is one run of autopilot in a tab.
type pilotRun struct {
	cancel   context.CancelFunc
	done     chan struct{}
	progress autopilot.Progress
	running  bool
}

// pilotPage is the page a tab shows, through the page script.
type pilotPage struct {
	s   *Service
	tab int
}

// pilotCallLimit bounds one call of the page script: a page that does not answer (a
// dialog open, a frozen renderer) fails the call rather than holding the run.
const pilotCallLimit = 30 * time.Second

// call runs the page script in the tab's page with msg and decodes what it resolves
// to into out.
func (p pilotPage) call(ctx context.Context, msg any, out any) error {
	ctx, cancel := context.WithTimeout(ctx, pilotCallLimit)
	defer cancel()
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	res, err := p.s.host.Send(ctx, recorder.Target{TabID: p.tab}, "Runtime.evaluate", map[string]any{
		"expression":    autopilot.PageScript + "\n" + autopilotCall + string(b) + ")",
		"returnByValue": true,
		"awaitPromise":  true,
		"silent":        true,
		"userGesture":   true,
	})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return fmt.Errorf("Runtime.evaluate: %w", err)
	}
	if r.Exception != nil {
		return fmt.Errorf("the page script failed: %s %s", r.Exception.Text, r.Exception.Exception.Description)
	}
	if len(r.Result.Value) == 0 {
		return errors.New("the page script answered nothing")
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Report asks the page script what the page holds, and adds the requests of the tab
// in flight.
func (p pilotPage) Report(ctx context.Context) (autopilot.Report, error) {
	var r autopilot.Report
	if err := p.call(ctx, map[string]any{"op": "report"}, &r); err != nil {
		return r, fmt.Errorf("tab %d: %w", p.tab, err)
	}
	r.Pending = p.s.recorder.Pending(p.tab)
	return r, nil
}

// Act has the page script carry out a.
func (p pilotPage) Act(ctx context.Context, a autopilot.Action) error {
	var out struct{}
	if err := p.call(ctx, map[string]any{"op": "act", "action": a}, &out); err != nil {
		return fmt.Errorf("tab %d: %s: %w", p.tab, a.Kind, err)
	}
	return nil
}

// autopilotLimits are the limits of the runs the service starts, and
// autopilotInterval the time between their rounds; tests shorten them.
var (
	autopilotLimits   = autopilot.DefaultLimits
	autopilotInterval = 150 * time.Millisecond
)

// reloadLimit bounds the wait of a run for the page its tab was reloaded to: a page
// that never fires its load event is driven as it is after that.
const reloadLimit = 30 * time.Second

// StartAutopilot runs autopilot in a tab, recording it first if it is not recorded;
// a run already going on in the tab goes on. It returns the run's state.
//
// A tab it starts recording is reloaded first, bypassing the browser's cache, so that
// its page is recorded from its first request: what the page loaded before would be
// missing from the archive, and the browser would not fetch it again as autopilot goes.
func (s *Service) StartAutopilot(ctx context.Context, tab int) (api.Autopilot, error) {
	var reload <-chan struct{}
	if !s.recording(tab) {
		if _, err := s.Start(ctx, tab); err != nil {
			return api.Autopilot{}, err
		}
		wait := s.pilots.awaitLoad(tab)
		var err error
		s.do(func() {
			var reloaded string
			if reloaded, err = s.recorder.CatchUp(ctx, recorder.Target{TabID: tab}); err == nil && reloaded != "" {
				s.noteCurrent(fmt.Sprintf("tab %d was reloaded for autopilot, to record %s from its start", tab, reloaded))
				reload = wait
			}
		})
		if reload == nil {
			s.pilots.loaded(tab)
		}
		if err != nil {
			return api.Autopilot{}, fmt.Errorf("reloading tab %d for autopilot: %w", tab, err)
		}
	}
	return s.pilots.start(tab, false, reload), nil
}

// awaitLoad returns a channel closed at the tab's next load event.
func (ps *pilots) awaitLoad(tab int) <-chan struct{} {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.reloads == nil {
		ps.reloads = map[int]chan struct{}{}
	}
	if c, ok := ps.reloads[tab]; ok {
		return c
	}
	c := make(chan struct{})
	ps.reloads[tab] = c
	return c
}

// loaded tells the run waiting for the tab's load event, if one is, that it came.
func (ps *pilots) loaded(tab int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if c, ok := ps.reloads[tab]; ok {
		close(c)
		delete(ps.reloads, tab)
	}
}

// start starts a run in tab, unless one is running and again is false; with again, a
// run going on is ended first (the tab shows a new page). A run given reload begins
// once it is closed (the tab's reload has loaded), or after reloadLimit.
func (ps *pilots) start(tab int, again bool, reload <-chan struct{}) api.Autopilot {
	s := ps.s
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.runs == nil {
		ps.runs = map[int]*pilotRun{}
	}
	if old := ps.runs[tab]; old != nil && old.running {
		if !again {
			return pilotState(tab, old)
		}
		old.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &pilotRun{cancel: cancel, done: make(chan struct{}), running: true, progress: autopilot.Progress{State: "starting"}}
	ps.runs[tab] = run
	go func() {
		defer close(run.done)
		defer cancel()
		if reload != nil {
			t := time.NewTimer(reloadLimit)
			select {
			case <-reload:
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
		// The page as it loaded, before autopilot changes it: what the capture check
		// compares its replay with.
		s.thumbs.asLoaded(ctx, s.host, tab)
		last, err := autopilot.Run(ctx, pilotPage{s, tab}, autopilot.Options{
			Limits:   autopilotLimits,
			Interval: autopilotInterval,
			Progress: func(p autopilot.Progress) {
				ps.mu.Lock()
				run.progress = p
				ps.mu.Unlock()
			},
		})
		ps.mu.Lock()
		run.progress, run.running = last, false
		ps.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			s.noteCurrent(fmt.Sprintf("autopilot in tab %d: %v", tab, err))
		}
	}()
	return pilotState(tab, run)
}

// StopAutopilot ends the run in a tab, if one is going on, and returns its state.
func (s *Service) StopAutopilot(tab int) (api.Autopilot, error) {
	ps := s.pilots
	ps.mu.Lock()
	run := ps.runs[tab]
	ps.mu.Unlock()
	if run == nil {
		return api.Autopilot{}, fmt.Errorf("%w: no autopilot in tab %d", ErrNotFound, tab)
	}
	run.cancel()
	<-run.done
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return pilotState(tab, run), nil
}

// stop ends the runs in tabs, without waiting for them.
func (ps *pilots) stop(tabs ...int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, t := range tabs {
		if run := ps.runs[t]; run != nil {
			run.cancel()
		}
	}
}

// states returns the state of the last run of each tab, by tab.
func (ps *pilots) states() []api.Autopilot {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []api.Autopilot
	for tab, run := range ps.runs {
		out = append(out, pilotState(tab, run))
	}
	slices.SortFunc(out, func(a, b api.Autopilot) int { return a.Tab - b.Tab })
	return out
}

// pilotState is a run's state as the API tells it. Its pilots' mu is held.
func pilotState(tab int, run *pilotRun) api.Autopilot {
	p := run.progress
	return api.Autopilot{
		Tab: tab, Running: run.running, State: p.State, Why: p.Why, Summary: p.Summary(),
		Items: p.Items, Scrolls: p.Scrolls, Clicks: p.Clicks, Played: p.Played, Images: p.Images, Details: p.Details,
	}
}

// onPage starts a run in the tab of a page just shown when the settings say to run
// autopilot on every page.
func (ps *pilots) onPage(p recorder.Page) {
	if ps.s.settings.get().AutopilotEveryPage && p.TabID > 0 && !p.Restored {
		ps.start(p.TabID, true, nil)
	}
}

// routes adds the routes that start and stop autopilot in a tab.
func (ps *pilots) routes(mux *routeTable) {
	s := ps.s
	mux.HandleFunc("POST /api/autopilot/start", s.withTabID(func(ctx context.Context, tab int) (api.Autopilot, error) {
		st, err := s.StartAutopilot(ctx, tab)
		return st, conflict(err)
	}))
	mux.HandleFunc("POST /api/autopilot/stop", s.withTabID(func(ctx context.Context, tab int) (api.Autopilot, error) {
		st, err := s.StopAutopilot(tab)
		if errors.Is(err, ErrNotFound) {
			err = notFound(err)
		}
		return st, err
	}))
}

// withTabID answers a request about the tab in its "tab" parameter with the run f
// returns.
func (s *Service) withTabID(f func(ctx context.Context, tab int) (api.Autopilot, error)) httpmsg.HandlerFunc {
	return func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		tab, err := strconv.Atoi(r.URL.Query().Get("tab"))
		if err != nil || tab <= 0 {
			writeError(w, badRequest(fmt.Errorf("tab: want a tab id, got %q", r.URL.Query().Get("tab"))))
			return
		}
		v, err := f(r.Context(), tab)
		answer(w, httpmsg.StatusOK, v, err)
	}
}
