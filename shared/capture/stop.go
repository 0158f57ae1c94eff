package capture

// Stopping a recording: the bodies still arriving waited for, the tabs detached, the
// exchanges under way written, all within StopLimit.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/recorder"
)

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
	s.pilots.stop(tabID)
	s.noteArriving(arriving)
	s.thumbs.stopping(ctx, s.host, tabID)
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
	s.catchUp(ctx, tabs, until)
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

// catchUp returns once the events each tab's page sent before it was called have been
// handled (or until has come, or catchUpWait has passed). The browser's events lag
// behind the page, more so on a busy machine: a gallery's 240 images the page showed
// when the user stopped were once reported only after the recording had stopped, and
// 131 of them were missing from the session, unnoticed. It relies on the browser
// handing a tab's events and its answers to commands over in the order the page sent
// them, so that the answer to a command (Runtime.evaluate) sent now comes after the
// events the page had sent; the event queue then runs every event pushed before its
// next task. In Firefox, whose commands the core answers itself at once, only the wait
// for quiet that follows holds, as before.
func (s *Service) catchUp(ctx context.Context, tabs []int, until time.Time) {
	deadline := time.Now().Add(catchUpWait)
	if until.Before(deadline) {
		deadline = until
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var wg sync.WaitGroup
	for _, t := range tabs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.host.Send(ctx, recorder.Target{TabID: t}, "Runtime.evaluate", map[string]any{"expression": "0"}) // its answer is all that counts
		}()
	}
	wg.Wait()
	done := make(chan struct{})
	s.tasks.push(func() { close(done) })
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// catchUpWait bounds catchUp: a page whose script runs on does not answer.
const catchUpWait = 2 * time.Second

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
	s.pilots.stop(tabs...)
	s.noteArriving(arriving)
	for _, t := range tabs {
		s.thumbs.stopping(ctx, s.host, t)
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
	if !s.sites.wait(max(time.Until(deadline), 50*time.Millisecond)) {
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
	sess, err := s.sessions.get(id)
	if err != nil {
		return SessionInfo{}, err
	}
	return sess.Info(), nil
}
