package capture

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
)

// tabsHost is a fake host that lists open tabs (TabLister).
type tabsHost struct {
	*fakeHost
	tabsMu sync.Mutex
	open   []OpenTab
	err    error
}

func (h *tabsHost) OpenTabs(ctx context.Context) ([]OpenTab, error) {
	h.tabsMu.Lock()
	defer h.tabsMu.Unlock()
	return slices.Clone(h.open), h.err
}

func (h *tabsHost) setOpen(open ...OpenTab) {
	h.tabsMu.Lock()
	defer h.tabsMu.Unlock()
	h.open = open
}

func TestReconcileWithTheTabsThatExist(t *testing.T) {
	for _, tc := range []struct {
		name string
		// recorded are the tabs recorded before the restart, each with its target.
		recorded []OpenTab
		// oldState drops the target ids from the saved state (a state saved before
		// they were kept).
		oldState bool
		// open are the browser's tabs when the core starts again.
		open    []OpenTab
		listErr error
		// want: the tabs recorded after reconciling, and a note naming this.
		wantTabs     []int
		wantNote     string
		wantErr      bool
		wantAttached []int
	}{{
		name:     "the browser was killed: no tab is left",
		recorded: []OpenTab{{ID: 3, Target: "A"}},
		open:     []OpenTab{{ID: 1, Target: "X", Attached: true}},
		wantNote: "the browser closed while recording; 1 tab was gone when webkeep restarted",
	}, {
		name:     "the browser was killed, and gave a new tab the recorded tab's id",
		recorded: []OpenTab{{ID: 3, Target: "A"}, {ID: 4, Target: "B"}},
		open:     []OpenTab{{ID: 3, Target: "C", Attached: true}, {ID: 4, Target: "D"}},
		wantNote: "the browser closed while recording; 2 tabs were gone when webkeep restarted",
	}, {
		name:     "the service worker restarted: the tab is still recorded",
		recorded: []OpenTab{{ID: 3, Target: "A"}},
		open:     []OpenTab{{ID: 3, Target: "A", Attached: true}, {ID: 5, Target: "E"}},
		wantTabs: []int{3},
	}, {
		name:     "one tab of two was closed while the service worker was stopped",
		recorded: []OpenTab{{ID: 3, Target: "A"}, {ID: 4, Target: "B"}},
		open:     []OpenTab{{ID: 4, Target: "B", Attached: true}},
		wantTabs: []int{4},
		wantNote: "1 tab was gone when webkeep restarted; recording goes on in the 1 other tab",
	}, {
		name:         "the debugger left the tab meanwhile: it is attached again",
		recorded:     []OpenTab{{ID: 3, Target: "A"}},
		open:         []OpenTab{{ID: 3, Target: "A"}},
		wantTabs:     []int{3},
		wantAttached: []int{3},
	}, {
		name:     "a state without targets: an attached tab goes on",
		recorded: []OpenTab{{ID: 3}, {ID: 4}},
		oldState: true,
		open:     []OpenTab{{ID: 3, Target: "A", Attached: true}, {ID: 4, Target: "B"}},
		wantTabs: []int{3},
		wantNote: "1 tab was gone",
	}, {
		name:     "the tabs cannot be listed: nothing changes",
		recorded: []OpenTab{{ID: 3, Target: "A"}},
		listErr:  errors.New("no tabs"),
		wantTabs: []int{3},
		wantErr:  true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store := NewMemStore()
			host := &tabsHost{fakeHost: newFakeHost()}
			host.setOpen(tc.recorded...)
			svc, _ := NewService(store, host)
			var info SessionInfo
			for _, tab := range tc.recorded {
				var err error
				if info, err = svc.Start(ctx, tab.ID); err != nil {
					t.Fatal(err)
				}
			}
			// Something recorded before the restart.
			tab := tc.recorded[0].ID
			for _, ev := range []recordertest.Event{
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/","method":"GET","headers":{}}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`},
				{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
			} {
				svc.Event(ctx, recorder.Target{TabID: tab}, ev.Method, json.RawMessage(ev.Params), nil)
			}
			svc.Status() // the events are handled
			svc.recorder.Wait()
			svc.flushWrites()
			before := svc.Status().Session
			if before == nil || before.Records == 0 {
				t.Fatalf("nothing recorded before the restart: %+v", before)
			}
			if tc.oldState {
				svc.mu.Lock()
				svc.state.Targets = nil
				svc.saveState()
				svc.mu.Unlock()
			} else if got := svc.state.Targets[tab]; got != tc.recorded[0].Target {
				t.Fatalf("the target of tab %d is %q, want %q", tab, got, tc.recorded[0].Target)
			}

			// The core starts again, over the same store.
			host.setOpen(tc.open...)
			host.err = tc.listErr
			host.mu.Lock()
			host.attached = map[int]bool{}
			host.mu.Unlock()
			svc2, err := NewService(store, host)
			if err != nil {
				t.Fatal(err)
			}
			if err := svc2.Reconcile(ctx); (err != nil) != tc.wantErr {
				t.Fatalf("Reconcile: %v", err)
			}
			st := svc2.Status()
			if !slices.Equal(st.Tabs, tc.wantTabs) && !(len(st.Tabs) == 0 && len(tc.wantTabs) == 0) {
				t.Errorf("recorded tabs after reconciling: %v, want %v", st.Tabs, tc.wantTabs)
			}
			if st.Recording != (len(tc.wantTabs) > 0) || (st.Recording && (st.Session == nil || st.Session.ID != info.ID)) {
				t.Errorf("status after reconciling: %+v", st)
			}
			for _, tab := range tc.wantAttached {
				if !host.attached[tab] {
					t.Errorf("tab %d not attached again", tab)
				}
			}
			sess, err := svc2.sessions.find(info.ID)
			if err != nil {
				t.Fatal(err)
			}
			after := sess.Info()
			notes := strings.Join(after.Notes, "\n")
			if tc.wantNote == "" && notes != "" {
				t.Errorf("notes: %q, want none", notes)
			}
			if !strings.Contains(notes, tc.wantNote) {
				t.Errorf("notes: %q, want %q", notes, tc.wantNote)
			}
			// What was recorded stays, and can be downloaded.
			if after.Records != before.Records {
				t.Errorf("records: %d after reconciling, %d before", after.Records, before.Records)
			}
			rec := do(t, nethttp.Handler(svc2.Handler()), "GET", "/api/sessions/"+info.ID+"/index.cdxj", nil)
			if rec.Code != 200 || !strings.Contains(rec.Body.String(), "org,example)/") {
				t.Errorf("index after reconciling: %d %s", rec.Code, rec.Body)
			}
			// A tab started now goes into a new session when the old one was closed.
			if len(tc.wantTabs) == 0 && !tc.wantErr {
				host.setOpen(OpenTab{ID: 9, Target: "N", Attached: true})
				next, err := svc2.Start(ctx, 9)
				if err != nil || next.ID == info.ID {
					t.Errorf("start after reconciling: %+v %v", next, err)
				}
			}
		})
	}
}
