package autopilot

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// settled is a report of a loaded page whose network is quiet.
func settled(r Report) Report {
	r.Ready, r.QuietMs = true, 5000
	if r.URL == "" {
		r.URL = "https://example.org/feed"
	}
	if r.Viewport == 0 {
		r.Viewport = 800
	}
	return r
}

func TestNext(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	more := Button{ID: 7, Tag: "button", Text: "Load more"}
	del := Button{ID: 8, Tag: "button", Text: "Delete everything"}
	submit := Button{ID: 9, Tag: "button", Text: "More", InForm: true}
	away := Button{ID: 10, Tag: "a", Href: "https://other.example/", Text: "Show more"}
	// Each case feeds a new Pilot its reports, one a second, and wants the kinds of
	// its actions, and the last action's Why.
	for _, tc := range []struct {
		name    string
		limits  Limits
		reports []Report
		want    []Kind
		why     string
	}{
		{
			name:   "scrolls while the page grows, then stops when stable",
			limits: Limits{StableRounds: 4},
			reports: []Report{
				settled(Report{Height: 2000, Items: 10}),
				settled(Report{Height: 4000, Items: 20, ScrollY: 1200}),
				settled(Report{Height: 4000, Items: 20, ScrollY: 3200}),
				settled(Report{Height: 4000, Items: 20, ScrollY: 3200}),
				settled(Report{Height: 4000, Items: 20, ScrollY: 3200}),
				settled(Report{Height: 4000, Items: 20, ScrollY: 3200}),
			},
			want: []Kind{Scroll, Scroll, Wait, Wait, Wait, Stop},
			why:  WhyStable,
		},
		{
			name: "waits for the network, then goes on",
			reports: []Report{
				{URL: "https://example.org/", Ready: false, Height: 2000, Viewport: 800},
				{URL: "https://example.org/", Ready: true, QuietMs: 100, Height: 2000, Viewport: 800},
				{URL: "https://example.org/", Ready: true, QuietMs: 900, Pending: 2, Height: 2000, Viewport: 800},
				{URL: "https://example.org/", Ready: true, QuietMs: 900, Height: 2000, Viewport: 800},
			},
			want: []Kind{Wait, Wait, Wait, Scroll},
		},
		{
			name:   "a busy network is waited for at most Waits rounds",
			limits: Limits{Waits: 2},
			reports: []Report{
				{URL: "u", Ready: true, Pending: 1, Height: 2000, Viewport: 800},
				{URL: "u", Ready: true, Pending: 1, Height: 2000, Viewport: 800},
				{URL: "u", Ready: true, Pending: 1, Height: 2000, Viewport: 800},
			},
			want: []Kind{Wait, Wait, Scroll},
		},
		{
			name:   "after Waits rounds, a busy network is not waited for until it settles",
			limits: Limits{Waits: 1},
			reports: []Report{
				{URL: "u", Ready: true, Pending: 1, Height: 9000, Viewport: 800},
				{URL: "u", Ready: true, Pending: 1, Height: 9000, Viewport: 800},
				{URL: "u", Ready: true, Pending: 1, Height: 9000, Viewport: 800},
				{URL: "u", Ready: true, QuietMs: 9000, Height: 9000, Viewport: 800},
				{URL: "u", Ready: true, Pending: 1, Height: 9000, Viewport: 800},
			},
			want: []Kind{Wait, Scroll, Scroll, Scroll, Wait},
		},
		{
			name:    "a fragment of the same page is not leaving it",
			reports: []Report{settled(Report{URL: "https://example.org/a", Height: 9000}), settled(Report{URL: "https://example.org/a#more", Height: 9000})},
			want:    []Kind{Scroll, Scroll},
		},
		{
			name: "clicks load more at the end, never delete, a form's button or a link away",
			reports: []Report{
				settled(Report{Height: 800, Items: 10, Buttons: []Button{del, submit, away, more}}),
				settled(Report{Height: 1600, Items: 20, Buttons: []Button{del, submit, away, more}}),
			},
			want: []Kind{Click, Scroll},
		},
		{
			name:   "a button whose clicks load nothing is given up",
			limits: Limits{FruitlessClicks: 2, StableRounds: 1},
			reports: []Report{
				settled(Report{Height: 800, Items: 10, Buttons: []Button{more}}),
				settled(Report{Height: 800, Items: 10, Buttons: []Button{more}}),
				settled(Report{Height: 800, Items: 10, Buttons: []Button{more}}),
			},
			want: []Kind{Click, Click, Stop},
			why:  WhyStable,
		},
		{
			name: "opens details, fetches srcset sizes once, plays media and waits for it",
			reports: []Report{
				settled(Report{Height: 800, ClosedDetails: 2, Srcsets: []Srcset{{"a.jpg 1x, b.jpg 2x", "https://example.org/"}}, Media: []Media{{ID: 3, Paused: true}}}),
				settled(Report{Height: 800, Srcsets: []Srcset{{"a.jpg 1x, b.jpg 2x", "https://example.org/"}}, Media: []Media{{ID: 3, Paused: true}}}),
				settled(Report{Height: 800, Srcsets: []Srcset{{"a.jpg 1x, b.jpg 2x", "https://example.org/"}}, Media: []Media{{ID: 3, Paused: true}}}),
				settled(Report{Height: 800, Srcsets: []Srcset{{"b.jpg 1x", "https://example.org/"}}, Media: []Media{{ID: 3, Paused: false}}}),
				settled(Report{Height: 800, Media: []Media{{ID: 3, Ended: true}}}),
			},
			want: []Kind{Open, Fetch, Play, Wait, Wait},
		},
		{
			name:   "a hidden tab is waited for, not taken as a page that stopped growing",
			limits: Limits{StableRounds: 2},
			reports: []Report{
				settled(Report{Height: 800, Hidden: true}),
				settled(Report{Height: 800, Hidden: true}),
				settled(Report{Height: 800, Hidden: true}),
				settled(Report{Height: 800}),
				settled(Report{Height: 800}),
			},
			want: []Kind{Wait, Wait, Wait, Wait, Stop},
			why:  WhyStable,
		},
		{
			name:    "media that failed is not played",
			reports: []Report{settled(Report{Height: 800, Media: []Media{{ID: 3, Failed: true, Paused: true}}})},
			want:    []Kind{Wait},
		},
		{
			name:    "stops at the time limit",
			limits:  Limits{Time: 2 * time.Second},
			reports: []Report{settled(Report{Height: 9000}), settled(Report{Height: 9000, ScrollY: 1000}), settled(Report{Height: 9000, ScrollY: 2000})},
			want:    []Kind{Scroll, Scroll, Stop},
			why:     WhyTime,
		},
		{
			name:    "stops at the item limit",
			limits:  Limits{Items: 50},
			reports: []Report{settled(Report{Height: 9000, Items: 40}), settled(Report{Height: 9500, Items: 50})},
			want:    []Kind{Scroll, Stop},
			why:     WhyItems,
		},
		{
			name:    "stops at the action limit",
			limits:  Limits{Actions: 2},
			reports: []Report{settled(Report{Height: 9000}), settled(Report{Height: 9000}), settled(Report{Height: 9000})},
			want:    []Kind{Scroll, Scroll, Stop},
			why:     WhyActions,
		},
		{
			name:    "stops when the page is left",
			reports: []Report{settled(Report{URL: "https://example.org/a", Height: 9000}), settled(Report{URL: "https://example.org/b", Height: 9000})},
			want:    []Kind{Scroll, Stop},
			why:     WhyLeft,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(tc.limits, t0)
			var got []Kind
			var last Action
			for i, r := range tc.reports {
				last = p.Next(r, t0.Add(time.Duration(i)*time.Second))
				got = append(got, last.Kind)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("actions %v, want %v", got, tc.want)
			}
			if tc.why != "" && last.Why != tc.why {
				t.Errorf("last action's why %q, want %q", last.Why, tc.why)
			}
			if done := last.Kind == Stop; p.Progress().Done != done {
				t.Errorf("Progress().Done = %v after %v", p.Progress().Done, last)
			}
		})
	}
}

func TestNextFetchesEachURLOnce(t *testing.T) {
	p := New(Limits{FetchBatch: 2}, time.Time{})
	r := settled(Report{Height: 800, Srcsets: []Srcset{{"a 1x, b 2x, c 3x", "https://e.example/"}}})
	var urls []string
	for range 4 {
		a := p.Next(r, time.Time{})
		urls = append(urls, a.URLs...)
	}
	want := []string{"https://e.example/a", "https://e.example/b", "https://e.example/c"}
	if !slices.Equal(urls, want) {
		t.Errorf("fetched %q, want %q", urls, want)
	}
	if p.Progress().Images != 3 {
		t.Errorf("Images = %d, want 3", p.Progress().Images)
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		p    Progress
		want string
	}{
		{Progress{State: "scrolling", Items: 40, Clicks: 3}, "scrolling, 40 items, 3 buttons clicked"},
		{Progress{State: "clicking", Items: 1, Clicks: 1, Played: 1, Images: 2}, "clicking, 1 item, 1 button clicked, 1 media played, 2 image sizes fetched"},
		{Progress{State: "done", Done: true, Why: WhyStable, Items: 60}, "done: the page stopped growing, 60 items"},
	} {
		if got := tc.p.Summary(); got != tc.want {
			t.Errorf("Summary() = %q, want %q", got, tc.want)
		}
	}
}

// feed is a fake page: a feed that loads 10 more items each time it is scrolled to its
// end, up to total, with a "load more" button that adds 5, and a delete button.
type feed struct {
	items, total, scrollY int
	scrolls               int
	clicked               []int
	deleted               bool
	fail                  int // reports to fail first
}

func (f *feed) height() int { return 100 * f.items }

func (f *feed) Report(ctx context.Context) (Report, error) {
	if f.fail > 0 {
		f.fail--
		return Report{}, errors.New("no answer")
	}
	r := settled(Report{Height: f.height(), ScrollY: f.scrollY, Viewport: 500, Items: f.items,
		Buttons: []Button{{ID: 1, Tag: "button", Text: "Delete all"}}})
	if f.items < f.total {
		r.Buttons = append(r.Buttons, Button{ID: 2, Tag: "button", Text: "Load more"})
	}
	return r, nil
}

func (f *feed) Act(ctx context.Context, a Action) error {
	switch a.Kind {
	case Scroll:
		f.scrollY = min(a.Y, f.height()-500)
		f.scrolls++
		if f.scrollY == f.height()-500 && f.items < f.total {
			f.items = min(f.total, f.items+10)
		}
	case Click:
		f.clicked = append(f.clicked, a.Target)
		if a.Target == 1 {
			f.deleted = true
		}
		if a.Target == 2 {
			f.items = min(f.total, f.items+5)
		}
	}
	return nil
}

func TestRun(t *testing.T) {
	f := &feed{items: 10, total: 60, fail: 2}
	var seen []Progress
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	got, err := Run(context.Background(), f, Options{
		Interval: time.Millisecond,
		Now:      func() time.Time { clock = clock.Add(time.Second); return clock },
		Progress: func(p Progress) { seen = append(seen, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.items != 60 || got.Items != 60 || !got.Done || got.Why != WhyStable {
		t.Errorf("ended with %d items, progress %+v", f.items, got)
	}
	// A window at a time: the feed is 6000 px high in the end, the window 500.
	if f.scrolls < 11 {
		t.Errorf("scrolled %d times: not a window at a time", f.scrolls)
	}
	if f.deleted {
		t.Error("clicked the delete button")
	}
	if len(seen) == 0 || seen[len(seen)-1] != got {
		t.Errorf("progress told %d times, last %+v", len(seen), seen)
	}
}

func TestRunStoppedByTheUser(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{items: 10, total: 1 << 30}
	got, err := Run(ctx, f, Options{Interval: time.Millisecond, Limits: Limits{Items: 1 << 30, Actions: 1 << 30},
		Progress: func(p Progress) {
			if p.Scrolls == 3 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Why != WhyStopped || !got.Done {
		t.Errorf("progress %+v, want stopped by the user", got)
	}
}

func TestRunPageNoAnswer(t *testing.T) {
	f := &feed{items: 10, total: 60, fail: 100}
	got, err := Run(context.Background(), f, Options{Interval: time.Millisecond, ReportErrors: 3})
	if err == nil || got.Why != WhyNoAnswer {
		t.Errorf("Run = %+v, %v; want %q and an error", got, err, WhyNoAnswer)
	}
}

func TestNextScrollsAWindowAtATime(t *testing.T) {
	p := New(Limits{}, time.Time{})
	a := p.Next(settled(Report{Height: 5000, ScrollY: 1000, Viewport: 800}), time.Time{})
	if a.Kind != Scroll || a.Y != 1800 {
		t.Errorf("got %+v, want a scroll to 1800", a)
	}
}

func TestNextOpensDetailsABoundedNumberOfTimes(t *testing.T) {
	p := New(Limits{}, time.Time{})
	opens := 0
	for range 3 * maxOpens {
		// A page that closes its details again at once.
		if p.Next(settled(Report{Height: 800, ClosedDetails: 1}), time.Time{}).Kind == Open {
			opens++
		}
	}
	if opens != maxOpens {
		t.Errorf("opened %d times, want %d", opens, maxOpens)
	}
}
