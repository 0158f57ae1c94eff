//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// checkLimit is how long the check of one page may take: its replay's load, a
// second of quiet, its picture.
const checkLimit = 60 * time.Second

// captureCheck wires Check capture: the browser must be able to replay (Chromium's
// debugger), else the button says why it is not there.
func captureCheck() {
	b := byID("check-capture")
	if js.Global().Get("chrome").Get("debugger").IsUndefined() {
		show(b, false)
		return
	}
	onClick(b, checkSession)
}

// checkSession replays each page of the session open, one after the other, each in a
// background tab of its own (replay.html with check=PAGE, which gives the core what the
// replay showed and closes), says how far it is, and shows the verdicts on the pages.
func checkSession() {
	if view.current == nil {
		return
	}
	id, gen := view.current.ID, view.gen
	var pages []api.Page
	if err := call("GET", sessionPath(id, "/pages"), nil, &pages); err != nil {
		showError(fmt.Errorf("listing the pages to check: %w", err))
		return
	}
	// A page shown again from the back/forward cache has no capture of its own; one
	// a form's POST answered (no GET capture of its URL) replays from its form.
	var todo []api.Page
	posted, restored := 0, 0
	for _, p := range pages {
		switch {
		case p.Restored:
			restored++
		case pageRecord(view.records, p.URL, p.TS) < 0:
			posted++
		default:
			todo = append(todo, p)
		}
	}
	b, status := byID("check-capture"), byID("check-status")
	setDisabled(b, true)
	defer setDisabled(b, false)
	show(status, true)
	counts := map[string]int{}
	failed := 0
	for i, p := range todo {
		if gen != view.gen {
			return // another session was opened
		}
		status.SetTextContent(fmt.Sprintf("Checking page %d of %d: %s", i+1, len(todo), p.URL))
		c, err := checkPage(id, p)
		if err != nil {
			failed++
			showError(fmt.Errorf("checking %s: %w", p.URL, err))
			continue
		}
		counts[c.Verdict]++
	}
	var fresh []api.Page
	if err := call("GET", sessionPath(id, "/pages"), nil, &fresh); err == nil && gen == view.gen {
		renderPages(fresh)
	}
	// Said once the verdicts are shown.
	status.SetTextContent(captureCheckSummary(len(todo), posted, restored, counts, failed))
}

// checkPage replays one page in a background tab and waits for its check.
func checkPage(session string, p api.Page) (api.CaptureCheck, error) {
	started := time.Now().Add(-time.Second)
	link := replay.Link(session, p.URL, p.TS.UTC().Format("20060102150405")) + "&check=" + p.ID
	tab, err := jspromise.Await(js.Global().Get("chrome").Get("tabs").Call("create", map[string]any{"url": link, "active": false}))
	if err != nil {
		return api.CaptureCheck{}, err
	}
	for deadline := time.Now().Add(checkLimit); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var list []api.CaptureCheck
		if err := call("GET", sessionPath(session, "/checks"), nil, &list); err != nil {
			return api.CaptureCheck{}, err
		}
		for _, c := range list {
			if c.Page == p.ID && c.Checked.After(started) {
				return c, nil
			}
		}
	}
	js.Global().Get("chrome").Get("tabs").Call("remove", tab.Get("id"))
	return api.CaptureCheck{}, fmt.Errorf("no verdict after %s (the replay tab is closed)", checkLimit)
}
