//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// popup shows the recording state of the current tab and the controls: start, stop,
// the session's figures and verdicts, downloads, problems, and the way to the archive
// page. Opened with ?tab=N it acts on tab N.
func popup() {
	tab, tabErr := targetTab()
	onClick(byID("start"), func() {
		hideError()
		if tabErr != nil {
			showError(tabErr)
			return
		}
		start := byID("start")
		setDisabled(start, true)
		defer setDisabled(start, false)
		if err := call("POST", "/api/record/start?tab="+strconv.Itoa(tab), nil, nil); err != nil {
			showError(fmt.Errorf("could not start recording: %w", err))
		}
		refreshPopup(true)
	})
	onClick(byID("stop"), func() {
		hideError()
		if err := call("POST", "/api/record/stop", nil, nil); err != nil {
			showError(fmt.Errorf("could not stop recording: %w", err))
		}
		refreshPopup(true)
	})
	onClick(byID("autopilot"), func() {
		hideError()
		if tabErr != nil {
			showError(tabErr)
			return
		}
		b := byID("autopilot")
		setDisabled(b, true)
		defer setDisabled(b, false)
		if err := call("POST", "/api/autopilot/start?tab="+strconv.Itoa(tab), nil, nil); err != nil {
			showError(fmt.Errorf("could not start autopilot: %w", err))
		}
		refreshPopup(true)
	})
	onClick(byID("autopilot-stop"), func() {
		hideError()
		if err := call("POST", "/api/autopilot/stop?tab="+strconv.Itoa(tab), nil, nil); err != nil {
			showError(fmt.Errorf("could not stop autopilot: %w", err))
		}
		refreshPopup(true)
	})
	popupShown.tab = tab
	// The buttons are disabled in the page until now, so that no click goes unheard.
	setDisabled(byID("start"), false)
	setDisabled(byID("autopilot"), false)
	markReady()
	for i := 0; ; i++ {
		// The list of sessions is asked for less often than the live figures.
		safely(func() { refreshPopup(i%5 == 0) })
		time.Sleep(time.Second)
	}
}

// targetTab is the tab the popup acts on: ?tab=N, else the active tab of the window.
func targetTab() (int, error) {
	if t := query("tab"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil {
			return 0, fmt.Errorf("tab=%q in the popup's address is not a tab id", t)
		}
		return n, nil
	}
	q := js.Global().Get("Object").New()
	q.Set("active", true)
	q.Set("currentWindow", true)
	tabs, err := jspromise.Await(js.Global().Get("chrome").Get("tabs").Call("query", q))
	if err != nil {
		return 0, fmt.Errorf("finding the current tab: %w", err)
	}
	if tabs.Length() == 0 {
		return 0, errors.New("no active tab to record: click a tab, then open webkeep again")
	}
	return tabs.Index(0).Get("id").Int(), nil
}

// popupShown is the session the popup shows when nothing is being recorded: the
// newest one.
var popupShown struct {
	session *api.SessionInfo
	id      string // whose download links are in the page
	tab     int    // the tab the popup acts on
	notes   string // session id and the problems in the page
}

func refreshPopup(listSessions bool) {
	var st api.Status
	if err := call("GET", "/api/status", nil, &st); err != nil {
		showError(err)
		return
	}
	state := byID("state")
	state.SetAttribute("data-recording", strconv.FormatBool(st.Recording))
	show(byID("start"), !st.Recording)
	show(byID("stop"), st.Recording)
	if st.Recording {
		state.SetTextContent("Recording " + plural(len(st.Tabs), "tab"))
	} else {
		state.SetTextContent("Not recording")
	}
	showAutopilot(st.Autopilot)
	sess := st.Session
	if sess == nil {
		if listSessions || popupShown.session == nil {
			var list []api.SessionInfo
			if err := call("GET", "/api/sessions", nil, &list); err != nil {
				showError(err)
				return
			}
			popupShown.session = nil
			if len(list) > 0 {
				popupShown.session = &list[0]
			}
		}
		sess = popupShown.session
	} else {
		popupShown.session = sess
	}
	show(byID("no-session"), sess == nil)
	show(byID("session"), sess != nil)
	if sess == nil {
		return
	}
	setText("session-name", sess.Name)
	elapsed := sess.Updated.Sub(sess.Created)
	if st.Recording {
		elapsed = time.Since(sess.Created)
	}
	for _, kv := range [][2]string{
		{"Records", strconv.Itoa(sess.Records)},
		{"Size", humanBytes(sess.Bytes)},
		{"Elapsed", humanDuration(elapsed)},
		{"Pages", pageCount(*sess)},
		{"Requests", strconv.Itoa(sess.Exchanges)},
		{"Non-GET", strconv.Itoa(sess.NonGET)},
		{"Failures", strconv.Itoa(sess.Failures)},
		{"Incomplete", strconv.Itoa(sess.Incomplete)},
	} {
		doc.QuerySelector(`[data-stat="` + kv[0] + `"]`).SetTextContent(kv[1])
	}
	v := byID("verdicts")
	v.SetTextContent(verdictSummary(sess.Verdicts))
	v.SetAttribute("data-fail", strconv.Itoa(sess.Verdicts.Fail))
	if popupShown.id != sess.ID {
		popupShown.id = sess.ID
		links := byID("downloads")
		clear(links)
		for i, d := range downloads(sess.ID) {
			if i > 0 {
				links.AppendChild(text(" · "))
			}
			links.AppendChild(el("a", d.Label, "href", d.Path, "id", d.ID))
		}
		byID("to-archive").SetAttribute("href", "archive.html#"+sess.ID)
	}
	plain, detail := plainProblems(*sess), problems(*sess)
	show(byID("problems"), len(detail) > 0)
	if key := sess.ID + "/" + strings.Join(detail, "\n"); key != popupShown.notes {
		popupShown.notes = key
		showProblems(byID("notes"), byID("notes-detail"), plain, detail)
	}
}

// showAutopilot shows the autopilot run of the popup's tab, if it has had one: what it
// is doing, or why it ended.
func showAutopilot(runs []api.Autopilot) {
	line := byID("autopilot-state")
	var run *api.Autopilot
	for i := range runs {
		if runs[i].Tab == popupShown.tab {
			run = &runs[i]
		}
	}
	show(line, run != nil)
	show(byID("autopilot"), run == nil || !run.Running)
	show(byID("autopilot-stop"), run != nil && run.Running)
	if run == nil {
		line.SetAttribute("data-running", "")
		return
	}
	line.SetAttribute("data-running", strconv.FormatBool(run.Running))
	line.SetTextContent("Autopilot: " + run.Summary)
}
