package capture

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/autopilot"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
)

// fakeFeed answers the page script's calls (Runtime.evaluate) as a feed would: 10 more
// items each time it is scrolled to its end, up to total, and a form's submit button
// and a delete button, which must never be clicked.
type fakeFeed struct {
	mu      sync.Mutex
	items   int
	total   int
	scrollY int
	clicked []int
	calls   int
	// reloading is set while the tab reloads (from Page.reload to its load event),
	// and early counts the page script's calls made in that time.
	reloading bool
	early     int
}

func (f *fakeFeed) answer(method string, p map[string]any) (any, error) {
	if method == "Page.getNavigationHistory" {
		return map[string]any{"currentIndex": 0, "entries": []any{map[string]any{"url": "https://example.org/feed"}}}, nil
	}
	if method != "Runtime.evaluate" {
		return map[string]any{}, nil
	}
	expr, _ := p["expression"].(string)
	i := strings.LastIndex(expr, autopilotCall)
	if i < 0 || !strings.HasPrefix(expr, autopilot.PageScript) {
		return map[string]any{}, nil
	}
	var msg struct {
		Op     string           `json:"op"`
		Action autopilot.Action `json:"action"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSuffix(expr[i+len(autopilotCall):], ")")), &msg); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.reloading {
		f.early++
	}
	if msg.Op == "act" {
		switch msg.Action.Kind {
		case autopilot.Scroll:
			f.scrollY = min(msg.Action.Y, 100*f.items-500)
			if f.scrollY == 100*f.items-500 {
				f.items = min(f.total, f.items+10)
			}
		case autopilot.Click:
			f.clicked = append(f.clicked, msg.Action.Target)
		}
		return map[string]any{"result": map[string]any{"value": map[string]any{}}}, nil
	}
	return map[string]any{"result": map[string]any{"value": autopilot.Report{
		URL: "https://example.org/feed", Ready: true, QuietMs: 9999, Height: 100 * f.items, ScrollY: f.scrollY, Viewport: 500, Items: f.items,
		Buttons: []autopilot.Button{
			{ID: 1, Tag: "button", Type: "submit", Text: "Load more", InForm: true},
			{ID: 2, Tag: "button", Text: "Delete all"},
		},
	}}}, nil
}

func TestAutopilotThroughTheAPI(t *testing.T) {
	autopilotInterval = time.Millisecond
	defer func() { autopilotInterval = 250 * time.Millisecond }()
	host := newFakeHost()
	feed := &fakeFeed{items: 10, total: 60}
	var svc *Service
	host.Answer = func(method string, p map[string]any) (any, error) {
		if method == "Page.reload" {
			// The reloaded page fires its load event a moment later; the run must
			// not act on the page going away before it.
			feed.mu.Lock()
			feed.reloading = true
			feed.mu.Unlock()
			time.AfterFunc(50*time.Millisecond, func() {
				feed.mu.Lock()
				feed.reloading = false
				feed.mu.Unlock()
				svc.Event(context.Background(), recorder.Target{TabID: 4}, "Page.loadEventFired", json.RawMessage(`{"timestamp":1}`), nil)
			})
		}
		return feed.answer(method, p)
	}
	svc, err := NewService(NewMemStore(), host)
	if err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	if rec := do(t, h, "POST", "/api/autopilot/start?tab=x", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("start with a bad tab: %d", rec.Code)
	}
	if rec := do(t, h, "POST", "/api/autopilot/stop?tab=4", nil); rec.Code != http.StatusNotFound {
		t.Errorf("stop with no run: %d", rec.Code)
	}
	var run api.Autopilot
	do(t, h, "POST", "/api/autopilot/start?tab=4", &run)
	if !run.Running || run.Tab != 4 {
		t.Fatalf("start: %+v", run)
	}
	if !host.attached[4] {
		t.Error("autopilot did not start recording the tab")
	}
	if got := host.Sent("Page.reload"); len(got) != 1 {
		t.Errorf("the tab autopilot began recording was reloaded %d times, want once", len(got))
	}
	var st api.Status
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		st = api.Status{}
		do(t, h, "GET", "/api/status", &st)
		if len(st.Autopilot) == 1 && !st.Autopilot[0].Running {
			break
		}
	}
	if len(st.Autopilot) != 1 {
		t.Fatalf("status: %+v", st)
	}
	got := st.Autopilot[0]
	if got.Running || got.Items != 60 || got.Why != autopilot.WhyStable || got.Scrolls < 5 {
		t.Errorf("run ended as %+v", got)
	}
	if !strings.Contains(got.Summary, "60 items") {
		t.Errorf("summary %q", got.Summary)
	}
	feed.mu.Lock()
	if len(feed.clicked) > 0 {
		t.Errorf("clicked %v: a form's submit button or a delete button", feed.clicked)
	}
	if feed.early > 0 {
		t.Errorf("the run called the page script %d times while its tab reloaded, before the reloaded page's load event", feed.early)
	}
	feed.mu.Unlock()
}

func TestAutopilotStoppedByTheUserAndWithTheRecording(t *testing.T) {
	autopilotInterval = 20 * time.Millisecond
	defer func() { autopilotInterval = 250 * time.Millisecond }()
	host := newFakeHost()
	feed := &fakeFeed{items: 10, total: 1 << 30}
	host.Answer = feed.answer
	svc, _ := NewService(NewMemStore(), host)
	h := nethttp.Handler(svc.Handler())
	do(t, h, "POST", "/api/autopilot/start?tab=3", nil)
	time.Sleep(100 * time.Millisecond)
	var run api.Autopilot
	do(t, h, "POST", "/api/autopilot/stop?tab=3", &run)
	if run.Running || run.Why != autopilot.WhyStopped {
		t.Errorf("stopped: %+v", run)
	}
	// A run ends with the recording of its tab.
	do(t, h, "POST", "/api/autopilot/start?tab=3", nil)
	time.Sleep(50 * time.Millisecond)
	do(t, h, "POST", "/api/record/stop", nil)
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st := svc.Status()
		if len(st.Autopilot) == 1 && !st.Autopilot[0].Running {
			if st.Autopilot[0].Why != autopilot.WhyStopped {
				t.Errorf("ended as %+v", st.Autopilot[0])
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("autopilot still running after the recording stopped: %+v", st.Autopilot)
		}
	}
}

func TestAutopilotOnEveryPage(t *testing.T) {
	autopilotInterval = time.Millisecond
	defer func() { autopilotInterval = 250 * time.Millisecond }()
	host := newFakeHost()
	feed := &fakeFeed{items: 10, total: 20}
	host.Answer = feed.answer
	svc, _ := NewService(NewMemStore(), host)
	ctx := t.Context()
	for _, every := range []bool{false, true} {
		set := svc.settings.get()
		set.AutopilotEveryPage = every
		if _, err := svc.settings.update(set); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Start(ctx, 9); err != nil {
			t.Fatal(err)
		}
		svc.Event(ctx, recorder.Target{TabID: 9}, "Page.frameNavigated", json.RawMessage(`{"frame":{"id":"F","url":"https://example.org/feed"}}`), nil)
		st := svc.Status()
		if started := len(st.Autopilot) > 0; started != every {
			t.Errorf("autopilot on every page %v: runs %+v", every, st.Autopilot)
		}
		svc.Stop(ctx)
	}
}
