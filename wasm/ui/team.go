//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/shared/api"
)

// teamArchive wires the archive page's team section: replay a URL from the team
// archive, and list the team archive's captures of a URL, each with its replay link.
func teamArchive() {
	byID("team-replay-form").AddEventListener("submit", false, func(ev dom.Event) {
		ev.PreventDefault()
		go safely(replayFromTeam)
	})
	byID("team-captures-form").AddEventListener("submit", false, func(ev dom.Event) {
		ev.PreventDefault()
		go safely(listTeamCaptures)
	})
}

// replayFromTeam opens the replay page for the URL and time typed, answered from
// the team archive.
func replayFromTeam() {
	page, ts := strings.TrimSpace(value("team-replay-url")), strings.TrimSpace(value("team-replay-ts"))
	if page == "" {
		showError(errors.New("type the URL of the page to replay from the team archive"))
		return
	}
	if len(ts) > 14 || strings.Trim(ts, "0123456789") != "" {
		showError(fmt.Errorf("%q is not a time: give up to 14 digits, YYYYMMDDhhmmss (UTC), or nothing for the latest capture", ts))
		return
	}
	hideError()
	// As the Replay links open it: a page of its own, without an opener.
	js.Global().Call("open", api.TeamReplayLink(page, ts), "_blank", "noopener")
}

// listTeamCaptures lists the team archive's captures of the URL typed, newest first.
func listTeamCaptures() {
	page := strings.TrimSpace(value("team-captures-url"))
	if page == "" {
		showError(errors.New("type the URL whose captures to list"))
		return
	}
	hideError()
	setDisabled(byID("team-captures-list"), true)
	defer setDisabled(byID("team-captures-list"), false)
	var list []api.TeamCapture
	err := call("GET", "/api/team/captures?url="+url.QueryEscape(page), nil, &list)
	tbody := byID("team-captures")
	clear(tbody)
	if err != nil {
		show(byID("team-captures-box"), false)
		show(byID("team-captures-count"), false)
		showError(fmt.Errorf("the team archive's captures of %s: %w", page, err))
		return
	}
	for _, c := range list {
		status := c.Status
		if c.Mime == "warc/revisit" {
			status = "revisit"
		}
		source := el("td", c.Source, "class", "url")
		if c.Upload != "" {
			source.SetAttribute("title", "upload "+c.Upload)
		}
		add(tbody, add(el("tr", "", "data-timestamp", c.Timestamp, "data-source", c.Source),
			el("td", cdxTime(c.Timestamp), "class", "time"),
			el("td", orDash(status), "class", "num"),
			el("td", orDash(c.Mime), "class", "mime"),
			source,
			add(el("td", ""), el("a", "Replay", "href", c.Replay, "class", "replay", "target", "_blank")),
		))
	}
	count := fmt.Sprintf("%s of %s in the team archive, newest first.", plural(len(list), "capture"), page)
	if len(list) == 0 {
		count = "The team archive has no capture of " + page + "."
	}
	setText("team-captures-count", count)
	show(byID("team-captures-count"), true)
	show(byID("team-captures-box"), len(list) > 0)
}
