// Package autopilot decides, round by round, what to do in a recorded page so that
// the archive holds what a reader going through the whole page would have loaded:
// scroll to the end for as long as the page grows, wait for the network to settle,
// open <details>, play <video> and <audio> through, fetch every image size a srcset
// or <picture> offers, and click "load more"-style buttons it can tell are safe. It
// never follows a link that leaves the page, never clicks inside a form, and never
// clicks a button whose words say it deletes, posts, buys or signs out (Safe).
//
// The page script (page.js, PageScript) only reports what the page holds (a Report)
// and carries out one Action at a time; every decision is a Pilot's (Next). Run drives
// a Page (the script in a recorded tab) with a Pilot until it says stop: the page's
// height stable for some rounds with nothing left to do, a time limit, an item or
// action count, or the caller's context cancelled (the user pressed Stop).
package autopilot

import (
	"fmt"
	"strings"
	"time"
)

// A Report is what the page script sees in the page at one round.
type Report struct {
	// URL is the document's address.
	URL string `json:"url"`
	// Ready says the document has loaded (readyState "complete").
	Ready bool `json:"ready"`
	// Hidden says the tab is not shown (another tab is in front, the window is
	// minimized): the browser then neither loads lazy images nor tells the page what
	// comes into view.
	Hidden bool `json:"hidden,omitempty"`
	// Height is the document's scroll height, ScrollY how far it is scrolled and
	// Viewport the window's inner height, in CSS pixels.
	Height   int `json:"height"`
	ScrollY  int `json:"scrollY"`
	Viewport int `json:"viewport"`
	// Items counts the page's items (articles, list items, rows of a feed).
	Items int `json:"items"`
	// Buttons are the elements the page shows that might be clicked (see Safe).
	Buttons []Button `json:"buttons"`
	// Media are its <video> and <audio> elements.
	Media []Media `json:"media"`
	// Srcsets are the srcset attributes of its images and <picture> sources.
	Srcsets []Srcset `json:"srcsets"`
	// ClosedDetails counts its <details> elements that are closed.
	ClosedDetails int `json:"closedDetails"`
	// QuietMs is how long, in milliseconds, since a resource of the page last
	// finished loading or its document last changed.
	QuietMs int `json:"quietMs"`
	// Pending counts the page's requests in flight, as the recorder knows them (the
	// page script does not report it: the driver fills it in).
	Pending int `json:"pending"`
}

// Media is a <video> or <audio> element.
type Media struct {
	ID       int     `json:"id"`
	Tag      string  `json:"tag"`
	Src      string  `json:"src"`
	Paused   bool    `json:"paused"`
	Ended    bool    `json:"ended"`
	Failed   bool    `json:"failed"` // its error is set, or it has no source
	Time     float64 `json:"time"`
	Duration float64 `json:"duration"`
}

// Srcset is a srcset attribute and the document's base URL, to resolve it against.
type Srcset struct {
	Srcset string `json:"srcset"`
	Base   string `json:"base"`
}

// Kind is the kind of an Action.
type Kind string

// The actions the page script carries out.
const (
	// Scroll scrolls the window down to Y, or to the end of the document if it
	// is shorter: a window's height at a time, so that every lazy image comes near
	// the view on the way, as a reader scrolling would have it.
	Scroll Kind = "scroll"
	// Click clicks the button Target.
	Click Kind = "click"
	// Open opens every closed <details> element.
	Open Kind = "open"
	// Play plays the media element Target, muted and fast, from where it is.
	Play Kind = "play"
	// Fetch loads each of URLs as an image, as the page would.
	Fetch Kind = "fetch"
	// Wait does nothing this round.
	Wait Kind = "wait"
	// Stop ends the run.
	Stop Kind = "stop"
)

// An Action is what the page script is to do next.
type Action struct {
	Kind   Kind     `json:"kind"`
	Target int      `json:"target,omitempty"`
	Y      int      `json:"y,omitempty"`
	URLs   []string `json:"urls,omitempty"`
	// Why says, in plain words, why: for Stop, why the run ended ("the page stopped
	// growing"); for Wait, what it waits for.
	Why string `json:"why,omitempty"`
}

// Limits bound a run. A zero field takes its value from DefaultLimits.
type Limits struct {
	// StableRounds is how many rounds in a row the page must keep its height, at its
	// end with nothing left to do, for the run to end.
	StableRounds int
	// Time bounds the run.
	Time time.Duration
	// Items ends the run once the page holds this many items.
	Items int
	// Actions bounds the actions taken (scrolls, clicks, plays, fetches, opens).
	Actions int
	// Clicks bounds the clicks of buttons of one label; a label whose click made the
	// page grow no more is not clicked again after FruitlessClicks such clicks.
	Clicks          int
	FruitlessClicks int
	// Quiet is how long the network must have been quiet to count as settled, and
	// Waits how many rounds in a row the run waits for it at most.
	Quiet time.Duration
	Waits int
	// FetchBatch is how many srcset URLs one Fetch asks for at most.
	FetchBatch int
}

// DefaultLimits are the limits of a run started from the popup or by the setting.
var DefaultLimits = Limits{
	StableRounds:    8,
	Time:            3 * time.Minute,
	Items:           5000,
	Actions:         500,
	Clicks:          50,
	FruitlessClicks: 2,
	Quiet:           300 * time.Millisecond,
	Waits:           10,
	FetchBatch:      24,
}

// withDefaults returns l with each zero field set from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.StableRounds, d.StableRounds)
	set(&l.Items, d.Items)
	set(&l.Actions, d.Actions)
	set(&l.Clicks, d.Clicks)
	set(&l.FruitlessClicks, d.FruitlessClicks)
	set(&l.Waits, d.Waits)
	set(&l.FetchBatch, d.FetchBatch)
	if l.Time <= 0 {
		l.Time = d.Time
	}
	if l.Quiet <= 0 {
		l.Quiet = d.Quiet
	}
	return l
}

// Progress is what a run has done so far: what the popup shows.
type Progress struct {
	// State says what it is doing, in a word or two: "scrolling", "clicking",
	// "playing media", "fetching images", "opening details", "waiting for the
	// network", "waiting for the page to grow", "done".
	State   string `json:"state"`
	Items   int    `json:"items"`
	Height  int    `json:"height"`
	Scrolls int    `json:"scrolls"`
	Clicks  int    `json:"clicks"`
	Played  int    `json:"played"`
	Images  int    `json:"images"`  // srcset URLs fetched
	Details int    `json:"details"` // Open actions taken
	Rounds  int    `json:"rounds"`
	// Done says the run has ended, and Why why.
	Done bool   `json:"done"`
	Why  string `json:"why,omitempty"`
}

// Summary is the progress in a line: "scrolling, 40 items, 3 buttons clicked".
func (p Progress) Summary() string {
	s := p.State
	if p.Done && p.Why != "" {
		s = "done: " + p.Why
	}
	s += fmt.Sprintf(", %d item%s", p.Items, plural(p.Items))
	if p.Clicks > 0 {
		s += fmt.Sprintf(", %d button%s clicked", p.Clicks, plural(p.Clicks))
	}
	if p.Played > 0 {
		s += fmt.Sprintf(", %d media played", p.Played)
	}
	if p.Images > 0 {
		s += fmt.Sprintf(", %d image size%s fetched", p.Images, plural(p.Images))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// WaitHidden is the state of a run waiting for its tab to be shown.
const WaitHidden = "waiting for the tab to be shown"

// The reasons a run stops.
const (
	WhyStable  = "the page stopped growing"
	WhyTime    = "time limit reached"
	WhyItems   = "item limit reached"
	WhyActions = "action limit reached"
	WhyLeft    = "the page was left"
	WhyStopped = "stopped by the user"
)

// maxOpens bounds the Open actions of a run: a page may add closed <details> as it
// grows, or close them again itself.
const maxOpens = 20

// A Pilot decides a run's actions from the page's reports, one round at a time. It
// remembers what it has done: the buttons clicked (by label), the media played, the
// image URLs fetched.
type Pilot struct {
	limits  Limits
	start   time.Time
	url     string
	p       Progress
	actions int
	// stable counts the rounds in a row at the page's end with its height unchanged
	// and nothing to do; lastHeight and lastItems are those of the last report.
	stable     int
	lastHeight int
	lastItems  int
	waits      int
	// clicked counts the clicks by label; fruitless the clicks of a label after which
	// the page did not grow; lastClick is the label clicked last round.
	clicked     map[string]int
	fruitless   map[string]int
	lastClick   string
	clickHeight int
	clickItems  int
	played      map[int]bool
	fetched     map[string]bool
	opened      int
}

// New returns a Pilot for a run that starts at start, within limits.
func New(limits Limits, start time.Time) *Pilot {
	return &Pilot{
		limits:    limits.withDefaults(),
		start:     start,
		clicked:   map[string]int{},
		fruitless: map[string]int{},
		played:    map[int]bool{},
		fetched:   map[string]bool{},
		p:         Progress{State: "starting"},
	}
}

// Progress returns what the run has done so far.
func (p *Pilot) Progress() Progress { return p.p }

// End ends the run for why (the caller's reason: the user pressed Stop, the page
// went away) and returns the Stop action.
func (p *Pilot) End(why string) Action {
	if !p.p.Done {
		p.p.Done, p.p.Why, p.p.State = true, why, "done"
	}
	return Action{Kind: Stop, Why: p.p.Why}
}

// Next returns the action for the round whose report is r, at now.
func (p *Pilot) Next(r Report, now time.Time) Action {
	if p.p.Done {
		return Action{Kind: Stop, Why: p.p.Why}
	}
	p.p.Rounds++
	if u := withoutFragment(r.URL); p.url == "" {
		p.url = u
	} else if u != "" && u != p.url {
		return p.End(WhyLeft)
	}
	grew := r.Height > p.lastHeight || r.Items > p.lastItems
	p.lastHeight, p.lastItems = r.Height, r.Items
	p.p.Items, p.p.Height = r.Items, r.Height
	if grew {
		p.stable = 0
	}
	switch {
	case now.Sub(p.start) >= p.limits.Time:
		return p.End(WhyTime)
	case r.Items >= p.limits.Items:
		return p.End(WhyItems)
	case p.actions >= p.limits.Actions:
		return p.End(WhyActions)
	}
	// A hidden tab would not load what scrolling shows: wait until it is shown again,
	// without counting the page as stable meanwhile.
	if r.Hidden {
		return p.wait(WaitHidden)
	}
	// The page is loading, or its network is busy: wait, up to Waits rounds in a row.
	// Once it has waited Waits rounds, it waits no more until the network settles
	// (a request that never ends does not hold the run up).
	if !r.Ready || r.Pending > 0 || time.Duration(r.QuietMs)*time.Millisecond < p.limits.Quiet {
		if p.waits < p.limits.Waits {
			p.waits++
			return p.wait("waiting for the network")
		}
	} else {
		p.waits = 0
	}
	// The network settled since the last click: did the page grow?
	if p.lastClick != "" {
		if r.Height > p.clickHeight || r.Items > p.clickItems {
			p.fruitless[p.lastClick] = 0
		} else {
			p.fruitless[p.lastClick]++
		}
		p.lastClick = ""
	}
	// Media playing: wait for it to end.
	for _, m := range r.Media {
		if p.played[m.ID] && !m.Paused && !m.Ended && !m.Failed {
			return p.wait("playing media")
		}
	}
	if r.ClosedDetails > 0 && p.opened < maxOpens {
		p.opened++
		p.p.Details++
		return p.act("opening details", Action{Kind: Open})
	}
	if urls := p.newImages(r.Srcsets); len(urls) > 0 {
		for _, u := range urls {
			p.fetched[u] = true
		}
		p.p.Images += len(urls)
		return p.act("fetching images", Action{Kind: Fetch, URLs: urls})
	}
	for _, m := range r.Media {
		if !p.played[m.ID] && !m.Ended && !m.Failed {
			p.played[m.ID] = true
			p.p.Played++
			return p.act("playing media", Action{Kind: Play, Target: m.ID})
		}
	}
	if r.ScrollY+r.Viewport < r.Height-2 {
		p.p.Scrolls++
		return p.act("scrolling", Action{Kind: Scroll, Y: r.ScrollY + max(r.Viewport, 100)})
	}
	for _, b := range r.Buttons {
		if ok, _ := Safe(b, r.URL); !ok {
			continue
		}
		l := normalize(b.label())
		if p.clicked[l] >= p.limits.Clicks || p.fruitless[l] >= p.limits.FruitlessClicks {
			continue
		}
		p.clicked[l]++
		p.lastClick, p.clickHeight, p.clickItems = l, r.Height, r.Items
		p.p.Clicks++
		return p.act("clicking", Action{Kind: Click, Target: b.ID})
	}
	// At the end with nothing to do: the page may still grow.
	if !grew {
		p.stable++
	}
	if p.stable >= p.limits.StableRounds {
		return p.End(WhyStable)
	}
	return p.wait("waiting for the page to grow")
}

// act counts an action and returns it, state being what the run is now doing.
func (p *Pilot) act(state string, a Action) Action {
	p.actions++
	p.p.State = state
	return a
}

// wait returns a Wait for why.
func (p *Pilot) wait(why string) Action {
	p.p.State = why
	return Action{Kind: Wait, Why: why}
}

// newImages returns the srcset URLs not fetched yet, at most FetchBatch.
func (p *Pilot) newImages(sets []Srcset) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range sets {
		for _, u := range ParseSrcset(s.Srcset, s.Base) {
			if p.fetched[u] || seen[u] {
				continue
			}
			seen[u] = true
			out = append(out, u)
			if len(out) >= p.limits.FetchBatch {
				return out
			}
		}
	}
	return out
}

// withoutFragment returns u without its fragment: a link to a part of the page does
// not leave it.
func withoutFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}
