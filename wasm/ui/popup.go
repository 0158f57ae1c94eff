//go:build js && wasm

package main

import (
	"fmt"
	"strconv"
	"syscall/js"
	"time"

	"github.com/webkeep/webkeep/shared/capture"
	"github.com/webkeep/webkeep/wasm/jsglue"
)

// popup shows the recording state of the current tab and the controls: start, stop,
// download, and the way to the archive page. Opened with ?tab=N it acts on tab N.
func popup() {
	tab, err := targetTab()
	if err != nil {
		showError(err)
	}
	onClick(byID("start"), func() {
		hideError()
		if err := call("POST", "/api/record/start?tab="+strconv.Itoa(tab), nil); err != nil {
			showError(err)
		}
		refreshPopup()
	})
	onClick(byID("stop"), func() {
		hideError()
		if err := call("POST", "/api/record/stop", nil); err != nil {
			showError(err)
		}
		refreshPopup()
	})
	for {
		refreshPopup()
		time.Sleep(time.Second)
	}
}

// targetTab is the tab the popup acts on: ?tab=N, else the active tab of the window.
func targetTab() (int, error) {
	if t := query("tab"); t != "" {
		return strconv.Atoi(t)
	}
	q := js.Global().Get("Object").New()
	q.Set("active", true)
	q.Set("currentWindow", true)
	tabs, err := jsglue.Await(js.Global().Get("chrome").Get("tabs").Call("query", q))
	if err != nil {
		return 0, fmt.Errorf("finding the current tab: %w", err)
	}
	if tabs.Length() == 0 {
		return 0, fmt.Errorf("no active tab to record")
	}
	return tabs.Index(0).Get("id").Int(), nil
}

func refreshPopup() {
	var st capture.Status
	if err := call("GET", "/api/status", &st); err != nil {
		showError(err)
		return
	}
	state := byID("state")
	if st.Recording {
		state.SetTextContent(fmt.Sprintf("Recording %d tab(s)", len(st.Tabs)))
		state.SetAttribute("data-recording", "true")
		byID("start").SetAttribute("hidden", "")
		byID("stop").RemoveAttribute("hidden")
	} else {
		state.SetTextContent("Not recording")
		state.SetAttribute("data-recording", "false")
		byID("start").RemoveAttribute("hidden")
		byID("stop").SetAttribute("hidden", "")
	}
	box := byID("session")
	clear(box)
	var sess *capture.SessionInfo = st.Session
	if sess == nil {
		var list []capture.SessionInfo
		if err := call("GET", "/api/sessions", &list); err == nil && len(list) > 0 {
			sess = &list[0]
		}
	}
	if sess == nil {
		box.AppendChild(el("p", "No session yet. Start recording to make one."))
		return
	}
	box.AppendChild(el("h2", sess.Name))
	stats := el("dl", "")
	for _, kv := range [][2]string{
		{"Records", strconv.Itoa(sess.Records)},
		{"Size", humanBytes(sess.Bytes)},
		{"Pages", strconv.Itoa(sess.Pages)},
		{"Requests", strconv.Itoa(sess.Exchanges)},
		{"Non-GET", strconv.Itoa(sess.NonGET)},
		{"Elapsed", humanDuration(sess.Updated.Sub(sess.Created))},
	} {
		stats.AppendChild(el("dt", kv[0]))
		stats.AppendChild(el("dd", kv[1], "data-stat", kv[0]))
	}
	box.AppendChild(stats)
	links := el("p", "Download: ")
	base := "/api/sessions/" + sess.ID
	links.AppendChild(el("a", "Bundle (.zip)", "href", base+"/bundle.zip", "id", "download-bundle"))
	links.AppendChild(doc.CreateTextNode(" · "))
	links.AppendChild(el("a", "WARC 0.9", "href", base+"/warc.gz", "id", "download-warc"))
	links.AppendChild(doc.CreateTextNode(" · "))
	links.AppendChild(el("a", "CDXJ", "href", base+"/index.cdxj", "id", "download-cdxj"))
	box.AppendChild(links)
	if len(sess.Notes) > 0 {
		box.AppendChild(el("h3", "Problems"))
		ul := el("ul", "", "id", "notes")
		for _, n := range sess.Notes {
			ul.AppendChild(el("li", n))
		}
		box.AppendChild(ul)
	}
}
