package capture

// A service's recording state brought in line with the tabs the browser has open, when
// it starts again (Reconcile): the DevTools target of each recorded tab is kept for it.

import (
	"context"
	"fmt"
)

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
	sess, err := s.sessions.get(id)
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
