//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/replay"
)

// maxRows bounds the records shown at once; the filter narrows them down.
const maxRows = 500

// view is what the archive page shows: the sessions, and the one open.
var view struct {
	sessions []api.SessionInfo
	current  *api.SessionInfo
	records  []Record // the captures: the index's lines but the notes
	// notes are the recorder's notes (metadata records) by the URL of the exchange
	// they concern: shown beside it, never as rows of their own.
	notes  map[string][]Record
	shown  []int // indexes into records of the rows in the table
	detail *Record
	gen    int // counts sessions opened, so a late answer for an earlier one is dropped
}

// archive lists the sessions, and the pages, records and findings of the one chosen.
func archive() {
	onFilter := func(dom.Event) { renderRecords() }
	on(byID("filter"), "input", onFilter)
	for _, id := range []string{"filter-method", "filter-status", "filter-type", "filter-verdict"} {
		on(byID(id), "change", onFilter)
	}
	openRow := func(ev dom.Event) {
		if row := ev.Target().Closest("tr[data-index]"); row != nil {
			i, _ := strconv.Atoi(row.GetAttribute("data-index"))
			showRecord(i)
		}
	}
	on(byID("records"), "click", openRow)
	byID("records").AddEventListener("keydown", false, func(ev dom.Event) {
		if key := ev.Underlying().Get("key").String(); key == "Enter" || key == " " {
			ev.PreventDefault()
			go safely(func() { openRow(ev) })
		}
	})
	onClick(byID("detail-close"), func() { show(byID("record-detail"), false); markSelected(-1) })
	onClick(byID("rename"), startRename)
	byID("rename-form").AddEventListener("submit", false, func(ev dom.Event) {
		ev.PreventDefault()
		go safely(saveRename)
	})
	onClick(byID("rename-cancel"), func() { show(byID("rename-form"), false) })
	onClick(byID("delete"), askDelete)
	onClick(byID("confirm-delete"), deleteSession)
	onClick(byID("cancel-delete"), func() { show(byID("delete-confirm"), false) })
	onClick(byID("upload"), uploadSession)
	onClick(byID("upload-replace"), func() { upload(true) })
	onClick(byID("upload-keep"), func() { show(byID("upload-exists"), false) })
	onClick(byID("add-to-db"), addToDatabase)
	on(byID("import-file"), "change", func(dom.Event) { importFile() })
	teamArchive()
	archiveSearch()
	sessionViews()
	dom.GetWindow().AddEventListener("hashchange", false, func(dom.Event) { go safely(openFromHash) })
	if byID("import-file").Underlying().Get("files").Length() > 0 {
		go safely(importFile) // chosen before the page's code started
	}
	markReady()
	loadSessions()
	openFromHash()
}

func hashID() string {
	return strings.TrimPrefix(dom.GetWindow().Location().Hash(), "#")
}

// loadSessions fills the sessions table.
func loadSessions() {
	var list []api.SessionInfo
	if err := call("GET", "/api/sessions", nil, &list); err != nil {
		showError(err)
		return
	}
	view.sessions = list
	tbody := byID("sessions")
	clear(tbody)
	show(byID("no-sessions"), len(list) == 0)
	for _, s := range list {
		link := el("a", s.Name, "href", "#"+s.ID)
		if s.LoginPosts > 0 {
			link.SetAttribute("title", loginMark(s))
		}
		row := el("tr", "", "data-session", s.ID)
		if view.current != nil && view.current.ID == s.ID {
			row.SetAttribute("aria-current", "true")
		}
		add(row,
			nameCell(s, link),
			el("td", localTime(s.Created)),
			el("td", localTime(s.Updated)),
			el("td", strconv.Itoa(s.Records), "class", "num"),
			el("td", humanBytes(s.Bytes), "class", "num"),
			el("td", verdictShort(s.Verdicts), "data-fail", strconv.Itoa(s.Verdicts.Fail)),
		)
		tbody.AppendChild(row)
	}
}

// openFromHash opens the session named by the page's #fragment.
func openFromHash() {
	id := hashID()
	if id == "" {
		closeSession()
		return
	}
	if view.current != nil && view.current.ID == id {
		return
	}
	var s api.SessionInfo
	if err := call("GET", sessionPath(id, ""), nil, &s); err != nil {
		showError(fmt.Errorf("opening session %s: %w", id, err))
		return
	}
	openSession(s)
}

func closeSession() {
	view.current, view.records, view.detail = nil, nil, nil
	view.gen++
	show(byID("session-view"), false)
	searchScope(nil)
	for _, row := range byID("sessions").QuerySelectorAll("tr") {
		row.RemoveAttribute("aria-current")
	}
}

// openSession shows a session: its figures, downloads, pages, records and findings.
func openSession(s api.SessionInfo) {
	hideError()
	view.gen++
	gen := view.gen
	view.current, view.records, view.shown, view.detail = &s, nil, nil, nil
	for _, row := range byID("sessions").QuerySelectorAll("tr") {
		if row.GetAttribute("data-session") == s.ID {
			row.SetAttribute("aria-current", "true")
		} else {
			row.RemoveAttribute("aria-current")
		}
	}
	showSessionInfo(s)
	searchScope(&s)
	for _, id := range []string{"rename-form", "delete-confirm", "upload-exists", "record-detail"} {
		show(byID(id), false)
	}
	links := byID("session-downloads")
	clear(links)
	links.AppendChild(text("Download: "))
	for i, d := range downloads(s.ID) {
		if i > 0 {
			links.AppendChild(text(" · "))
		}
		links.AppendChild(el("a", d.Label, "href", d.Path, "id", d.ID))
	}
	clear(byID("records"))
	clear(byID("pages"))
	setText("page-count", "…")
	setText("records-total", "…")
	showView("pages")
	setText("record-count", "loading…")
	show(byID("session-view"), true)

	var recs []Record
	err := call("GET", sessionPath(s.ID, "/records"), nil, &recs)
	if gen != view.gen {
		return
	}
	if err != nil {
		showError(fmt.Errorf("listing the records: %w", err))
	}
	view.records, view.notes = splitNotes(recs)
	recs = view.records
	fillChoices("filter-method", "any method", distinct(recs, recordMethod))
	fillChoices("filter-status", "any status", distinct(recs, statusClass))
	fillChoices("filter-type", "any type", distinct(recs, func(r *Record) string { return r.Fields.Mime }))
	setText("records-total", strconv.Itoa(len(recs)))
	renderRecords()

	var pages []api.Page
	err = call("GET", sessionPath(s.ID, "/pages"), nil, &pages)
	if gen != view.gen {
		return
	}
	if err != nil {
		showError(fmt.Errorf("listing the pages: %w", err))
	}
	renderPages(pages)

	var report api.Report
	err = call("GET", sessionPath(s.ID, "/report"), nil, &report)
	if gen != view.gen {
		return
	}
	if err != nil {
		showError(fmt.Errorf("reading the check report: %w", err))
	}
	renderSites(report.Sites)
}

// showSessionInfo shows a session's name and figures.
func showSessionInfo(s api.SessionInfo) {
	setText("session-title", s.Name)
	setText("session-meta", fmt.Sprintf("Created %s · updated %s · %s", localTime(s.Created), localTime(s.Updated), sessionFigures(s)))
	v := byID("session-verdicts")
	v.SetTextContent("URL database: " + verdictSummary(s.Verdicts))
	v.SetAttribute("data-fail", strconv.Itoa(s.Verdicts.Fail))
	showVerification(s.Verification)
	detail := problems(s)
	showProblems(byID("session-notes"), byID("session-notes-detail"), plainProblems(s), detail)
	show(byID("session-problems"), len(detail) > 0)
}

// showVerification shows what importing a WACZ found of it: its signer, and what
// did not hold; nothing for a session not imported from a WACZ.
func showVerification(v *api.Verification) {
	box := byID("session-verification")
	show(box, v != nil)
	if v == nil {
		return
	}
	summary, state := verificationText(v)
	box.SetAttribute("data-state", state)
	setText("verification-summary", summary)
	list := byID("verification-problems")
	clear(list)
	for _, p := range v.Problems {
		list.AppendChild(el("li", p))
	}
	if more := v.Failed - len(v.Problems); more > 0 {
		list.AppendChild(el("li", fmt.Sprintf("and %s more", plural(more, "problem"))))
	}
	show(list, len(v.Problems) > 0)
}

// fillChoices sets the options of a filter's drop-down list, keeping the choice made.
func fillChoices(id, anyLabel string, values []string) {
	sel := byID(id)
	keep := value(id)
	clear(sel)
	sel.AppendChild(el("option", anyLabel, "value", ""))
	for _, v := range values {
		sel.AppendChild(el("option", v, "value", v))
	}
	setValue(id, keep)
	if value(id) != keep {
		setValue(id, "")
	}
}

// currentFilter is the search box's filter with the drop-down lists' choices.
func currentFilter() Filter {
	f := ParseFilter(value("filter"))
	if v := value("filter-method"); v != "" {
		f.Method = v
	}
	if v := value("filter-status"); v != "" {
		f.Status = v
	}
	if v := value("filter-type"); v != "" {
		f.Type = v
	}
	if v := value("filter-verdict"); v != "" {
		f.Verdict = v
	}
	return f
}

// renderRecords shows the records that pass the filter.
func renderRecords() {
	f := currentFilter()
	tbody := byID("records")
	clear(tbody)
	view.shown = view.shown[:0]
	matched := 0
	for i := range view.records {
		r := &view.records[i]
		if !f.Match(r) {
			continue
		}
		matched++
		if len(view.shown) >= maxRows {
			continue
		}
		view.shown = append(view.shown, i)
		label := verdictLabel(r.Verdict)
		row := el("tr", "", "data-index", strconv.Itoa(i), "data-offset", r.Fields.Offset, "tabindex", "0")
		if view.detail == r {
			row.SetAttribute("aria-selected", "true")
		}
		urlCell := el("td", r.Fields.URL, "class", "url", "title", r.Fields.URL)
		if n := len(view.notes[r.Fields.URL]); n > 0 {
			row.SetAttribute("data-notes", strconv.Itoa(n))
			add(urlCell, text(" "), el("span", "✎", "class", "note-mark", "role", "img",
				"aria-label", plural(n, "note"), "title", plural(n, "note")+" on this URL: open the record to read them"))
		}
		add(row,
			el("td", recordMethod(r), "class", "method"),
			urlCell,
			el("td", recordStatus(r), "class", "num"),
			el("td", r.Fields.Mime, "class", "mime"),
			el("td", label, "class", "verdict", "data-verdict", label, "title", verdictText(r.Verdict)),
			el("td", cdxTime(r.Timestamp), "class", "time"),
		)
		tbody.AppendChild(row)
	}
	count := fmt.Sprintf("%d of %d captures", matched, len(view.records))
	if n := noteCount(); n > 0 {
		count += fmt.Sprintf(" (%s beside them)", plural(n, "note"))
	}
	if matched > maxRows {
		count += fmt.Sprintf("; the first %d shown: narrow the filter", maxRows)
	}
	setText("record-count", count)
}

func markSelected(index int) {
	for _, row := range byID("records").QuerySelectorAll("tr") {
		if row.GetAttribute("data-index") == strconv.Itoa(index) {
			row.SetAttribute("aria-selected", "true")
		} else {
			row.RemoveAttribute("aria-selected")
		}
	}
}

// showRecord shows a record's CDX key, fields and HTTP headers, with its request's.
func showRecord(index int) {
	if view.current == nil || index < 0 || index >= len(view.records) {
		return
	}
	r := &view.records[index]
	view.detail = r
	markSelected(index)
	gen := view.gen
	var d api.RecordDetail
	err := call("GET", sessionPath(view.current.ID, "/record?offset="+url.QueryEscape(r.Fields.Offset)), nil, &d)
	if gen != view.gen || view.detail != r {
		return
	}
	if err != nil {
		showError(fmt.Errorf("reading the record at offset %s: %w", r.Fields.Offset, err))
		return
	}
	setText("detail-key", r.URLKey)
	setText("detail-type", d.Type)
	setText("detail-uri", d.URI)
	setText("detail-date", utcTime(d.Date))
	setText("detail-offset", r.Fields.Offset+" (length "+r.Fields.Length+")")
	setText("detail-digest", orDash(r.Fields.Digest))
	setText("detail-verdict", verdictLabel(r.Verdict)+": "+verdictText(r.Verdict))
	byID("detail-verdict").SetAttribute("data-verdict", verdictLabel(r.Verdict))
	setText("detail-http", d.HTTP)
	fillFields(byID("detail-fields"), d.Fields)
	show(byID("detail-request-box"), d.Request != nil)
	if d.Request != nil {
		setText("detail-request", d.Request.HTTP)
	}
	show(byID("add-form"), d.Type == "response")
	setText("add-result", "")
	show(byID("record-detail"), true)
	showNotes(r, gen)
}

// showNotes shows, in a record's detail, the text of the notes on its URL.
func showNotes(r *Record, gen int) {
	list := byID("detail-notes")
	clear(list)
	notes := view.notes[r.Fields.URL]
	show(byID("detail-notes-box"), len(notes) > 0)
	for i := range notes {
		var d api.RecordDetail
		err := call("GET", sessionPath(view.current.ID, "/record?offset="+url.QueryEscape(notes[i].Fields.Offset)), nil, &d)
		if gen != view.gen || view.detail != r {
			return
		}
		text := d.Text
		if err != nil {
			text = "the note could not be read: " + err.Error()
		}
		list.AppendChild(el("li", cdxTime(notes[i].Timestamp)+": "+text))
	}
}

// fillFields lists a record's WARC fields in their order.
func fillFields(dl dom.Element, fields []api.Field) {
	clear(dl)
	for _, f := range fields {
		dl.AppendChild(el("dt", f.Name))
		dl.AppendChild(el("dd", f.Value))
	}
}

func renderSites(sites []api.Site) {
	tbody := byID("sites")
	clear(tbody)
	show(byID("no-sites"), len(sites) == 0)
	for _, s := range sites {
		datatxt, robots := siteFindings(s)
		allowed := "yes"
		if !s.Allowed {
			allowed = "no"
		}
		add(tbody, add(el("tr", "", "data-origin", s.Origin),
			el("td", s.Origin, "class", "url"), el("td", datatxt), el("td", robots), el("td", allowed, "data-allowed", strconv.FormatBool(s.Allowed))))
	}
}

func startRename() {
	if view.current == nil {
		return
	}
	show(byID("delete-confirm"), false)
	setValue("rename-input", view.current.Name)
	show(byID("rename-form"), true)
	focus(byID("rename-input"))
}

func saveRename() {
	s := view.current
	if s == nil {
		return
	}
	name := strings.TrimSpace(value("rename-input"))
	if name == "" {
		showError(errors.New("a session needs a name: type one, or Cancel"))
		return
	}
	hideError()
	var out api.SessionInfo
	if err := call("PATCH", sessionPath(s.ID, ""), map[string]string{"name": name}, &out); err != nil {
		showError(fmt.Errorf("renaming the session: %w", err))
		return
	}
	show(byID("rename-form"), false)
	if view.current != nil && view.current.ID == out.ID {
		*view.current = out
		showSessionInfo(out)
	}
	notice("Renamed to “" + out.Name + "”.")
	loadSessions()
}

// askDelete asks, in the page, whether to delete the open session.
func askDelete() {
	s := view.current
	if s == nil {
		return
	}
	show(byID("rename-form"), false)
	setText("delete-question", fmt.Sprintf("Delete “%s”: %d records, %s? This cannot be undone; download the bundle first to keep a copy.",
		s.Name, s.Records, humanBytes(s.Bytes)))
	show(byID("delete-confirm"), true)
	focus(byID("cancel-delete"))
}

func deleteSession() {
	s := view.current
	if s == nil {
		return
	}
	show(byID("delete-confirm"), false)
	if err := call("DELETE", sessionPath(s.ID, ""), nil, nil); err != nil {
		showError(fmt.Errorf("deleting “%s”: %w", s.Name, err))
		return
	}
	hideError()
	notice("Deleted “" + s.Name + "”.")
	closeSession()
	if hashID() == s.ID {
		dom.GetWindow().Location().SetHash("")
	}
	loadSessions()
}

func uploadSession() { upload(false) }

// upload sends the open session's bundle to the team archive; replace overwrites a
// bundle of the same name there.
func upload(replace bool) {
	s := view.current
	if s == nil {
		return
	}
	hideError()
	show(byID("upload-exists"), false)
	path := sessionPath(s.ID, "/upload")
	if replace {
		path += "?overwrite=1"
	}
	var ref api.JobRef
	if err := call("POST", path, nil, &ref); err != nil {
		showError(fmt.Errorf("uploading to the team archive: %w", err))
		return
	}
	j, err := trackJob("Uploading “"+s.Name+"” to the team archive", ref.Job)
	switch {
	case errors.Is(err, errCancelled):
		return
	case err != nil && strings.Contains(err.Error(), " 409 "):
		// The team archive has a bundle of this name: offer to replace it.
		show(byID("upload-exists"), true)
		return
	case err != nil:
		showError(err)
		return
	}
	var up api.TeamUpload
	json.Unmarshal(j.Result, &up)
	notice("Uploaded “" + s.Name + "” to the team archive as " + orDash(up.Name) + ".")
}

func addToDatabase() {
	s, r := view.current, view.detail
	if s == nil || r == nil {
		return
	}
	offset, err := strconv.ParseInt(r.Fields.Offset, 10, 64)
	if err != nil {
		showError(fmt.Errorf("the record has no usable offset (%q): reload the page", r.Fields.Offset))
		return
	}
	req := api.AddRecord{Session: s.ID, Offset: offset, Categories: parseCategories(value("add-categories")), Static: checked("add-static")}
	var added api.AddedRecord
	if err := call("POST", "/api/urldb/records", req, &added); err != nil {
		showError(fmt.Errorf("adding to the URL database: %w", err))
		setText("add-result", "")
		return
	}
	hideError()
	setText("add-result", "Added "+added.Path+" to "+added.Domain+". Export the database from the options.")
}

// importFile sends the chosen WARC, WACZ or bundle to the core, which makes a new
// session (and verifies a WACZ: the session then says what held).
func importFile() {
	input := byID("import-file")
	files := input.Underlying().Get("files")
	if files.Length() == 0 {
		return
	}
	file := files.Index(0)
	name := file.Get("name").String()
	hideError()
	var ref api.JobRef
	err := uploadWithProgress("Importing "+name, "POST", "/api/import?name="+url.QueryEscape(name), file, &ref)
	input.Underlying().Set("value", "")
	var j api.Job
	if err == nil {
		j, err = trackJob("Reading "+name, ref.Job)
	}
	var imported api.SessionInfo
	if err == nil {
		if err = json.Unmarshal(j.Result, &imported); err != nil {
			err = fmt.Errorf("reading the imported session: %w", err)
		}
	}
	switch {
	case errors.Is(err, errCancelled):
		return
	case err != nil:
		showError(fmt.Errorf("importing %s: %w (a WARC 0.9, 1.0 or 1.1, gzip or plain, a WACZ or a webkeep bundle .zip can be imported)", name, err))
		return
	}
	notice("Imported " + name + ".")
	loadSessions()
	if imported.ID != "" {
		dom.GetWindow().Location().SetHash(imported.ID)
	}
}

// nameCell is a session's name in the list, marked when the session holds a login
// POST.
func nameCell(s api.SessionInfo, link dom.Element) dom.Element {
	cell := add(el("td", "", "class", "name"), link, text(" "),
		el("a", "Replay", "href", replay.Link(s.ID, "", ""), "class", "replay", "target", "_blank"))
	if s.LoginPosts > 0 {
		cell.AppendChild(el("span", " login", "class", "login-mark", "data-login-posts", strconv.Itoa(s.LoginPosts), "title", loginMark(s)))
	}
	return cell
}

// showProblems fills a problems box: the plain lines in list, the technical detail
// in the list of the disclosure holding detailList.
func showProblems(list, detailList dom.Element, plain, detail []string) {
	clear(list)
	for _, n := range plain {
		list.AppendChild(el("li", n))
	}
	clear(detailList)
	for _, n := range detail {
		detailList.AppendChild(el("li", n))
	}
}

// noteCount counts the notes of the session shown.
func noteCount() int {
	n := 0
	for _, ns := range view.notes {
		n += len(ns)
	}
	return n
}
