//go:build js && wasm

package main

import (
	"strconv"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/replay"
)

// sessionViews wires the switch between a session's pages, which it opens on, and
// its records.
func sessionViews() {
	onClick(byID("show-pages"), func() { showView("pages") })
	onClick(byID("show-records"), func() { showView("records") })
	on(byID("pages"), "click", func(ev dom.Event) {
		b := ev.Target().Closest("button[data-action]")
		if b == nil {
			return
		}
		li := b.Closest("li")
		switch b.GetAttribute("data-action") {
		case "records":
			// The records of the page: those of its URL, the page's own first.
			setValue("filter", li.GetAttribute("data-url"))
			renderRecords()
			showView("records")
		case "record":
			i, _ := strconv.Atoi(li.GetAttribute("data-record"))
			setValue("filter", "")
			renderRecords()
			showView("records")
			showRecord(i)
		}
	})
}

// showView shows a session's pages ("pages") or its records ("records").
func showView(name string) {
	for _, v := range []string{"pages", "records"} {
		on := v == name
		byID("show-"+v).SetAttribute("aria-selected", strconv.FormatBool(on))
		show(byID(v+"-view"), on)
	}
}

// renderPages lists the pages of the session open, in the order they were
// visited: each with its picture, title, URL and time, a link that replays it,
// and the way to its records.
func renderPages(pages []api.Page) {
	list := byID("pages")
	clear(list)
	setText("page-count", strconv.Itoa(len(pages)))
	show(byID("no-pages"), len(pages) == 0)
	for _, p := range pages {
		ts := p.TS.UTC().Format("20060102150405")
		title := p.Title
		if title == "" {
			title = p.URL
		}
		link := replay.Link(view.current.ID, p.URL, ts)
		item := el("li", "", "data-url", p.URL, "data-ts", ts)
		heading := add(el("h3", ""), el("a", title, "href", link, "target", "_blank", "class", "title"))
		meta := add(el("p", "", "class", "meta"), el("span", localTime(p.TS), "class", "time"))
		if p.Restored {
			item.SetAttribute("data-restored", "true")
			add(meta, text(" · "), el("span", restoredLabel, "class", "restored"))
		}
		actions := add(el("p", "", "class", "actions"),
			el("a", "Replay", "href", link, "class", "replay", "target", "_blank"), text(" "),
			el("button", "Records", "type", "button", "data-action", "records", "aria-label", "Records of "+title))
		if i := pageRecord(view.records, p.URL, p.TS); i >= 0 && !p.Restored {
			item.SetAttribute("data-record", strconv.Itoa(i))
			add(actions, text(" "), el("button", "Open record", "type", "button", "data-action", "record", "aria-label", "Open record of "+title))
		}
		if p.Thumbnail {
			// Decorative: the title beside it says what the page is.
			item.AppendChild(el("img", "", "src", sessionPath(view.current.ID, "/pages/"+p.ID+"/thumbnail"), "alt", "", "loading", "lazy", "class", "thumbnail"))
		}
		add(item, heading, el("p", p.URL, "class", "url"), meta, actions)
		if p.Check != nil {
			item.AppendChild(checkBox(p))
		}
		list.AppendChild(item)
	}
}

// checkLabels name the verdicts of a capture check for a person.
var checkLabels = map[string]string{"replays": "Replays as recorded", "differs": "Replays, with differences", "broken": "Does not replay"}

// checkBox shows a page's capture check: the verdict, why, the requests the archive
// lacked, the live and replayed pictures side by side, and the live page to record
// again.
func checkBox(p api.Page) dom.Element {
	c := p.Check
	label := checkLabels[c.Verdict]
	if label == "" {
		label = c.Verdict
	}
	box := el("div", "", "class", "check", "data-verdict", c.Verdict)
	add(box, el("p", label, "class", "verdict"))
	if len(c.Why) > 0 {
		why := el("ul", "", "class", "why")
		for _, w := range c.Why {
			why.AppendChild(el("li", w))
		}
		box.AppendChild(why)
	}
	details := add(el("details", ""), el("summary", "Live and replayed"))
	pair := el("p", "", "class", "pair")
	if p.Thumbnail {
		add(pair, el("img", "", "src", sessionPath(view.current.ID, "/pages/"+p.ID+"/loaded"), "alt", "The page live, once loaded", "loading", "lazy"))
	}
	add(pair, el("img", "", "src", sessionPath(view.current.ID, "/pages/"+p.ID+"/replayed")+"?t="+strconv.FormatInt(c.Checked.UnixMilli(), 10), "alt", "The page replayed from the archive", "loading", "lazy"))
	details.AppendChild(pair)
	if len(c.Missed) > 0 {
		missed := el("ul", "", "class", "url-list")
		for _, m := range c.Missed {
			missed.AppendChild(el("li", m))
		}
		add(details, el("p", "Not in the archive:"), missed)
	}
	box.AppendChild(details)
	if c.Verdict != "replays" {
		box.AppendChild(add(el("p", "", "class", "again"), el("a", "Open the live page to record it again", "href", p.URL, "target", "_blank", "rel", "noopener")))
	}
	return box
}
