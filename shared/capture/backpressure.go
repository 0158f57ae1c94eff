package capture

import (
	"context"
	"sync"
)

// Body data can arrive from the browser faster than it is stored. Rather than let it
// pile up in memory, the recorder slows the tab's network down while a backlog stands
// (DevTools' network emulation), and lifts the limit once the backlog is gone.
const (
	backlogHigh = 32 << 20 // queued body bytes above which a tab is slowed down
	backlogLow  = 8 << 20  // ... and below which it is let go again
	// slowThroughput is the download rate (bytes/s) of a slowed tab, about what the
	// core stores per second in the browser.
	slowThroughput = 8 << 20
)

// backlog counts body bytes handed to the service but not yet handled, and which
// tabs are slowed down because of them.
type backlog struct {
	mu     sync.Mutex
	bytes  int64
	slowed map[int]bool
}

// add counts n more (or, negative, fewer) queued bytes for tab and says whether the
// tab must now be slowed down (+1), let go (-1), or left as it is (0).
func (b *backlog) add(tab int, n int64) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bytes += n
	if b.slowed == nil {
		b.slowed = map[int]bool{}
	}
	switch {
	case b.bytes > backlogHigh && !b.slowed[tab]:
		b.slowed[tab] = true
		return +1
	case b.bytes < backlogLow && b.slowed[tab]:
		delete(b.slowed, tab)
		return -1
	}
	return 0
}

// throttle slows a tab's downloads down (on) or lifts the limit (off).
func (s *Service) throttle(ctx context.Context, tab int, on bool) {
	rate := -1 // no limit
	if on {
		rate = slowThroughput
	}
	_, err := s.host.Send(ctx, Target{TabID: tab}, "Network.emulateNetworkConditions", map[string]any{
		"offline": false, "latency": 0, "downloadThroughput": rate, "uploadThroughput": -1,
	})
	if err != nil {
		s.noteCurrent("slowing the tab down while its bodies are stored: " + err.Error())
	}
}
