//go:build js && wasm

package main

import (
	"encoding/json"
	"strconv"
	"strings"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/shared/capture"
)

// record is one CDXJ line of a session as the API lists it.
type record struct {
	URLKey    string `json:"urlkey"`
	Timestamp string `json:"timestamp"`
	Fields    struct {
		URL         string          `json:"url"`
		Mime        string          `json:"mime"`
		Status      json.RawMessage `json:"status"`
		Method      string          `json:"method"`
		RequestBody string          `json:"requestBody"`
		Length      json.RawMessage `json:"length"`
	} `json:"fields"`
}

// archive lists the sessions, and the records of the one chosen.
func archive() {
	var list []capture.SessionInfo
	if err := call("GET", "/api/sessions", &list); err != nil {
		showError(err)
		return
	}
	table := byID("sessions")
	clear(table)
	if len(list) == 0 {
		table.AppendChild(el("p", "No sessions yet."))
		return
	}
	for _, s := range list {
		s := s
		row := el("tr", "", "data-session", s.ID)
		name := el("a", s.Name, "href", "#"+s.ID)
		onClick(name, func() { showSession(s) })
		td := el("td", "")
		td.AppendChild(name)
		row.AppendChild(td)
		row.AppendChild(el("td", s.Created.Local().Format("2006-01-02 15:04")))
		row.AppendChild(el("td", strconv.Itoa(s.Records)))
		row.AppendChild(el("td", humanBytes(s.Bytes)))
		dl := el("td", "")
		dl.AppendChild(el("a", "bundle", "href", "/api/sessions/"+s.ID+"/bundle.zip"))
		row.AppendChild(dl)
		table.AppendChild(row)
	}
	if id := strings.TrimPrefix(dom.GetWindow().Location().Hash(), "#"); id != "" {
		for _, s := range list {
			if s.ID == id {
				showSession(s)
			}
		}
	}
}

func showSession(s capture.SessionInfo) {
	var recs []record
	if err := call("GET", "/api/sessions/"+s.ID+"/records", &recs); err != nil {
		showError(err)
		return
	}
	byID("session-title").SetTextContent(s.Name)
	filter := byID("filter").(*dom.HTMLInputElement)
	render := func() {
		tbody := byID("records")
		clear(tbody)
		q := strings.ToLower(filter.Value())
		for _, r := range recs {
			method := r.Fields.Method
			if method == "" {
				method = "GET"
			}
			text := strings.ToLower(strings.Join([]string{method, r.Fields.URL, string(r.Fields.Status), r.Fields.Mime, r.URLKey}, " "))
			if q != "" && !strings.Contains(text, q) {
				continue
			}
			row := el("tr", "")
			row.AppendChild(el("td", method))
			row.AppendChild(el("td", r.Fields.URL))
			row.AppendChild(el("td", strings.Trim(string(r.Fields.Status), `"`)))
			row.AppendChild(el("td", r.Fields.Mime))
			row.AppendChild(el("td", r.URLKey, "class", "key"))
			tbody.AppendChild(row)
		}
	}
	filter.AddEventListener("input", false, func(dom.Event) { render() })
	render()
}
