package autopilot

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"
)

// PageScript is the page script: run in a page, it defines the function
// globalThis[Symbol.for("webkeep.autopilot")] (once per document), which takes a
// message {"op": "report"} or {"op": "act", "action": Action} and returns a promise
// of a Report, or of {} once the action is carried out.
//
//go:embed page.js
var PageScript string

// A Page is a recorded page with the page script in it.
type Page interface {
	// Report returns what the page holds now.
	Report(ctx context.Context) (Report, error)
	// Act carries out a (never Stop).
	Act(ctx context.Context, a Action) error
}

// Options are a run's: its limits, the time between rounds, its clock, and what to
// call with its progress after each round.
type Options struct {
	Limits Limits
	// Interval is the time between two rounds (250 ms if zero).
	Interval time.Duration
	// Now is the clock (time.Now if nil).
	Now func() time.Time
	// Progress, if set, is called with the progress after each round.
	Progress func(Progress)
	// ReportErrors is how many failed reports in a row end the run (5 if zero): a
	// page between two documents does not answer for a moment.
	ReportErrors int
}

// WhyNoAnswer is why a run ends whose page stopped answering.
const WhyNoAnswer = "the page did not answer"

// Run drives page with a new Pilot until it says stop or ctx is done, and returns the
// run's last progress. A cancelled ctx ends the run as stopped by the user; an
// action the page fails to carry out is skipped; a page that does not answer
// ReportErrors times in a row ends the run with the last error.
func Run(ctx context.Context, page Page, o Options) (Progress, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	interval := o.Interval
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	maxErrors := o.ReportErrors
	if maxErrors <= 0 {
		maxErrors = 5
	}
	pilot := New(o.Limits, now())
	tell := func() {
		if o.Progress != nil {
			o.Progress(pilot.Progress())
		}
	}
	failed := 0
	for {
		if ctx.Err() != nil {
			pilot.End(WhyStopped)
			tell()
			return pilot.Progress(), nil
		}
		r, err := page.Report(ctx)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			if failed++; failed >= maxErrors {
				pilot.End(WhyNoAnswer)
				tell()
				return pilot.Progress(), fmt.Errorf("autopilot: report: %w", err)
			}
			if !sleep(ctx, interval) {
				continue
			}
			continue
		}
		failed = 0
		a := pilot.Next(r, now())
		tell()
		switch a.Kind {
		case Stop:
			return pilot.Progress(), nil
		case Wait:
		default:
			if err := page.Act(ctx, a); err != nil && ctx.Err() == nil && errors.Is(err, ErrPageGone) {
				pilot.End(WhyLeft)
				tell()
				return pilot.Progress(), nil
			}
		}
		sleep(ctx, interval)
	}
}

// ErrPageGone is the error of a Page whose document is gone.
var ErrPageGone = errors.New("the page is gone")

// sleep waits d or until ctx is done, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
