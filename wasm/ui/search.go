//go:build js && wasm

package main

import (
	"net/url"
	"strconv"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/shared/api"
)

// searchGen counts searches, so that a late answer to an earlier one is dropped.
var searchGen int

// archiveSearch wires the archive page's search form: the text of every session,
// or of the one open; ?q= in the page's address searches at once (the popup's
// search field opens the page so).
func archiveSearch() {
	byID("search-form").AddEventListener("submit", false, func(ev dom.Event) {
		ev.PreventDefault()
		go safely(runSearch)
	})
	if q := query("q"); q != "" {
		setValue("search", q)
		go safely(runSearch)
	}
}

// runSearch asks the core for the form's query and lists what it found.
func runSearch() {
	q := value("search")
	list, count := byID("search-results"), byID("search-count")
	if q == "" {
		clear(list)
		show(count, false)
		return
	}
	searchGen++
	gen := searchGen
	params := url.Values{"q": {q}, "limit": {"50"}}
	if value("search-scope") == "session" && view.current != nil {
		params.Set("session", view.current.ID)
	} else if checked("search-team") {
		params.Set("team", "1")
	}
	count.SetTextContent("Searching…")
	show(count, true)
	var res api.SearchResults
	err := call("GET", "/api/search?"+params.Encode(), nil, &res)
	if gen != searchGen {
		return
	}
	clear(list)
	if err != nil {
		show(count, false)
		showError(err)
		return
	}
	hideError()
	summary := searchSummary(res)
	if res.Indexing {
		summary += "; still indexing what was recorded or imported last: search again in a moment for all of it"
	}
	if res.TeamError != "" {
		summary += "; not from the team archive: " + res.TeamError
	}
	count.SetTextContent(summary)
	for i, r := range res.Results {
		list.AppendChild(searchResult(r, i))
	}
}

// searchResult is one result: its title, which replays it; its URL; the snippet
// with the matched words marked; the session and time of the capture.
func searchResult(r api.SearchResult, i int) dom.Element {
	title := r.Title
	if title == "" {
		title = r.URL
	}
	li := el("li", "", "data-session", r.Session, "data-url", r.URL, "data-ts", r.TS)
	heading := add(el("h3", ""), el("a", title, "href", r.Replay, "target", "_blank", "class", "replay", "rel", "noopener"))
	snippet := el("p", "", "class", "snippet")
	for _, part := range snippetParts(r.Snippet) {
		if part.Marked {
			snippet.AppendChild(el("mark", part.Text))
		} else {
			snippet.AppendChild(text(part.Text))
		}
	}
	name := r.SessionName
	if name == "" {
		name = r.Session
	}
	where := el("a", name, "href", "#"+r.Session, "class", "session")
	if r.Source == "team" {
		li.SetAttribute("data-source", "team")
		where = el("span", "the team archive (bundle "+r.Session+")", "class", "session")
	}
	meta := add(el("p", "", "class", "meta"),
		text("In "), where,
		text(", captured "+cdxTime(r.TS)+" UTC · "+r.Method+" · "+strconv.Itoa(r.Status)+" · "+r.Mime))
	return add(li, heading, el("p", r.URL, "class", "url"), snippet, meta)
}

// searchScope offers to search the session open, named, or none.
func searchScope(s *api.SessionInfo) {
	opt := byID("search-scope-session")
	show(opt, s != nil)
	if s == nil {
		setValue("search-scope", "")
		return
	}
	opt.SetTextContent("in " + s.Name)
}
