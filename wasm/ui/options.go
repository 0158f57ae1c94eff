//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"honnef.co/go/js/dom/v2"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/wasm/jspromise"
)

// options shows the URL database (load, export, check all) and the settings form.
func options() {
	on(byID("urldb-folder"), "change", func(dom.Event) { loadFolder() })
	on(byID("urldb-zip"), "change", func(dom.Event) { loadZip() })
	onClick(byID("urldb-team"), func() {
		hideError()
		var db api.DatabaseInfo
		if err := call("POST", "/api/urldb/team", nil, &db); err != nil {
			showError(fmt.Errorf("loading the team's URL database: %w (check the team endpoint and token below)", err))
			return
		}
		renderDatabase(db)
		notice("Loaded the team's URL database.")
	})
	onClick(byID("urldb-clear"), func() {
		hideError()
		if err := call("DELETE", "/api/urldb", nil, nil); err != nil {
			showError(fmt.Errorf("unloading the URL database: %w", err))
			return
		}
		renderDatabase(api.DatabaseInfo{})
	})
	onClick(byID("check-all"), checkAll)
	onClick(byID("add-domain"), func() { focus(addRuleRow(domainRule{}).QuerySelector(".domain")) })
	byID("settings").AddEventListener("submit", false, func(ev dom.Event) {
		ev.PreventDefault()
		go safely(saveSettings)
	})
	// A file chosen before the page's code started (a slow start) had no one to hear
	// its change event: it is loaded now.
	if byID("urldb-folder").Underlying().Get("files").Length() > 0 {
		go safely(loadFolder)
	} else if byID("urldb-zip").Underlying().Get("files").Length() > 0 {
		go safely(loadZip)
	}
	onClick(byID("key-copy"), copyPublicKey)
	// Only Chromium stops the extension's worker, and has offscreen documents to
	// hold its compiled core between starts (api.Settings.ReleaseCompiledCore).
	show(byID("keep-compiled-core-field"), !js.Global().Get("chrome").Get("offscreen").IsUndefined())
	markReady()
	go safely(showSigningKey)
	var db api.DatabaseInfo
	if err := call("GET", "/api/urldb", nil, &db); err != nil {
		showError(fmt.Errorf("reading the URL database: %w", err))
	} else {
		renderDatabase(db)
	}
	var s api.Settings
	if err := call("GET", "/api/settings", nil, &s); err != nil {
		showError(fmt.Errorf("reading the settings: %w", err))
		return
	}
	fillSettings(s)
	// The form now shows the settings saved: a change made from now on is not
	// overwritten by their arrival.
	byID("settings").SetAttribute("data-loaded", "true")
}

// renderDatabase shows the loaded URL database: its domains and problems.
func renderDatabase(db api.DatabaseInfo) {
	records := db.Records
	if records == 0 {
		for _, d := range db.Domains {
			records += d.Records
		}
	}
	status := byID("urldb-status")
	status.SetAttribute("data-loaded", strconv.FormatBool(db.Loaded))
	if db.Loaded {
		status.SetTextContent(fmt.Sprintf("Loaded: %s, %s, %s.", plural(len(db.Domains), "domain"), plural(records, "record"), plural(len(db.Problems), "problem")))
	} else {
		status.SetTextContent("No URL database loaded: load a folder of YAML files or a zip of them to check recorded pages.")
	}
	setDisabled(byID("check-all"), !db.Loaded)
	setText("urldb-domain-count", strconv.Itoa(len(db.Domains)))
	tbody := byID("urldb-domains")
	clear(tbody)
	for _, d := range db.Domains {
		add(tbody, add(el("tr", ""), el("td", d.Name), el("td", strconv.Itoa(d.Records), "class", "num")))
	}
	problems := byID("urldb-problems")
	clear(problems)
	for _, p := range db.Problems {
		problems.AppendChild(el("li", p))
	}
	show(byID("urldb-problems-box"), len(db.Problems) > 0)
}

// loadFolder sends the YAML files of the chosen folder as multipart/form-data, each
// under its path in the folder.
func loadFolder() {
	input := byID("urldb-folder").Underlying()
	files := input.Get("files")
	form := js.Global().Get("FormData").New()
	n := 0
	for i := 0; i < files.Length(); i++ {
		f := files.Index(i)
		rel := f.Get("webkitRelativePath").String()
		if rel == "" {
			rel = f.Get("name").String()
		}
		if isDatabaseFile(rel) {
			form.Call("append", "file", f, rel)
			n++
		}
	}
	input.Set("value", "")
	if n == 0 {
		showError(errors.New("the folder has no .yaml files: choose the folder that holds the database's <domain>.yaml files"))
		return
	}
	sendDatabase(fmt.Sprintf("Loading %s", plural(n, "file")), "the folder's files", form)
}

// loadZip sends the chosen zip of YAML files.
func loadZip() {
	input := byID("urldb-zip").Underlying()
	files := input.Get("files")
	if files.Length() == 0 {
		return
	}
	f := files.Index(0)
	input.Set("value", "")
	sendDatabase("Loading "+f.Get("name").String(), f.Get("name").String(), f)
}

// sendDatabase uploads a database, named name, then follows the job that loads it.
func sendDatabase(label, name string, body js.Value) {
	hideError()
	var ref api.JobRef
	err := uploadWithProgress(label, "POST", "/api/urldb?name="+url.QueryEscape(name), body, &ref)
	var j api.Job
	if err == nil {
		j, err = trackJob("Reading "+name, ref.Job)
	}
	var db api.DatabaseInfo
	if err == nil {
		if err = json.Unmarshal(j.Result, &db); err != nil {
			err = fmt.Errorf("reading the loaded database: %w", err)
		}
	}
	switch {
	case errors.Is(err, errCancelled):
	case err != nil:
		showError(fmt.Errorf("loading the URL database: %w", err))
	default:
		renderDatabase(db)
		notice("URL database loaded.")
	}
}

// checkAll fetches every URL of the database, showing progress and then the report.
func checkAll() {
	hideError()
	b := byID("check-all")
	setDisabled(b, true)
	defer setDisabled(b, false)
	var db api.DatabaseInfo
	if err := call("GET", "/api/urldb", nil, &db); err != nil {
		showError(fmt.Errorf("reading the URL database: %w", err))
		return
	}
	granted, err := requestHostAccess(db.Origins, func() {
		notice(waitingForAccess("the database's " + plural(len(db.Origins), "site")))
	})
	switch {
	case granted:
		show(byID("notice"), false) // the question is answered
	case err != nil:
		showError(fmt.Errorf("asking for access to the database's %d sites: %w", len(db.Origins), err))
		return
	case !granted:
		notice(fmt.Sprintf("Without access to the database's %d sites, only those that let any site read them (CORS) can be checked; the others fail.", len(db.Origins)))
	}
	var ref api.JobRef
	if err := call("POST", "/api/urldb/check", api.CheckRequest{Record: checked("check-record")}, &ref); err != nil {
		showError(fmt.Errorf("starting the check: %w", err))
		return
	}
	j, err := trackJob("Checking every URL of the database", ref.Job)
	if err != nil && !errors.Is(err, errCancelled) {
		showError(err)
	}
	if j.State != api.JobDone {
		return
	}
	var res api.CheckReport
	if err := json.Unmarshal(j.Result, &res); err != nil {
		showError(fmt.Errorf("reading the check's report: %w", err))
		return
	}
	renderCheck(res)
}

// requestHostAccess asks the user, once, for the extension's access to the sites
// with the match patterns origins (chrome.permissions, an optional host permission
// of the manifest): with it the service worker reads any site, without it only
// those that allow every origin, each after a CORS check. It reports whether access
// is granted. It runs within a click (a check's start, Save), as the browser
// requires. asking runs just before the browser asks the user (not when access is
// granted already), so the page can say that it waits for the answer: the browser's
// prompt shows nothing of the page's work.
func requestHostAccess(origins []string, asking func()) (bool, error) {
	if len(origins) == 0 {
		return true, nil
	}
	list := js.Global().Get("Array").New()
	for _, o := range origins {
		list.Call("push", o)
	}
	want := js.Global().Get("Object").New()
	want.Set("origins", list)
	perms := js.Global().Get("chrome").Get("permissions")
	if has, err := jspromise.Await(perms.Call("contains", want)); err == nil && has.Truthy() {
		return true, nil
	}
	asking()
	granted, err := jspromise.Await(perms.Call("request", want))
	if err != nil {
		return false, err
	}
	return granted.Truthy(), nil
}

// waitingForAccess says that the page waits for the user's answer to the browser's
// question about access to sites.
func waitingForAccess(sites string) string {
	return "Waiting for your answer to the browser's question: may webkeep read " + sites + "?"
}

func renderCheck(res api.CheckReport) {
	pass, fail := 0, 0
	tbody := byID("check-failures")
	clear(tbody)
	for i := range res.Verdicts {
		v := &res.Verdicts[i]
		if v.OK {
			pass++
			continue
		}
		fail++
		url := v.URL
		if url == "" {
			url = v.Domain + v.Path
		}
		add(tbody, add(el("tr", ""), el("td", url, "class", "url"), el("td", v.Code), el("td", verdictText(v))))
	}
	summary := byID("check-summary")
	summary.SetTextContent(checkSummary(res, pass, fail))
	summary.SetAttribute("data-fail", strconv.Itoa(fail))
	if res.Session != "" {
		summary.AppendChild(text(" "))
		summary.AppendChild(el("a", "The responses are in a session.", "href", "archive.html#"+res.Session, "target", "_blank"))
	}
	show(byID("check-failures-box"), fail > 0)
	skipped := byID("check-skipped")
	clear(skipped)
	for _, u := range res.Skipped {
		add(skipped, el("li", u, "class", "url"))
	}
	show(byID("check-skipped-box"), len(res.Skipped) > 0)
	show(byID("check-report"), true)
}

// fillSettings puts settings into the form.
func fillSettings(s api.Settings) {
	setValue("header-policy", s.HeaderPolicy)
	setValue("password-policy", s.PasswordPolicy)
	setValue("body-limit", formatSize(s.BodyLimit))
	setValue("warc-version", s.WARCVersion)
	setValue("cdx-dialect", s.CDXDialect)
	setValue("agent", s.Agent)
	setChecked("respect-disallow", s.RespectDisallow)
	setChecked("autopilot-every-page", s.AutopilotEveryPage)
	setChecked("keep-compiled-core", !s.ReleaseCompiledCore)
	rows := byID("domain-rules")
	clear(rows)
	for _, r := range rulesRows(s.DomainRules) {
		addRuleRow(r)
	}
	setValue("team-endpoint", s.TeamEndpoint)
	signWith := s.SignWith
	if signWith == "" {
		signWith = "browser"
	}
	setValue("sign-with", signWith)
	setValue("tsa-url", s.TimestampAuthority)
	setValue("team-token", "")
	setChecked("clear-token", false)
	tokenState := byID("token-state")
	tokenState.SetAttribute("data-set", strconv.FormatBool(s.TeamTokenSet))
	if s.TeamTokenSet {
		tokenState.SetTextContent("A token is stored (it is never shown). Type a new one to replace it.")
		byID("team-token").SetAttribute("placeholder", "stored; leave empty to keep it")
	} else {
		tokenState.SetTextContent("No token stored.")
		byID("team-token").SetAttribute("placeholder", "the token your team gave you")
	}
	show(byID("clear-token-label"), s.TeamTokenSet)
}

// addRuleRow adds a domain and its rules to the form.
func addRuleRow(r domainRule) dom.Element {
	row := el("div", "", "class", "domain-rule")
	domain := el("input", "", "class", "domain", "placeholder", "example.org", "aria-label", "Domain", "spellcheck", "false")
	rules := el("textarea", "", "class", "rules", "rows", "4", "aria-label", "Rules for the domain", "spellcheck", "false",
		"placeholder", "Snap!-style rules, e.g.\neverything_else {\n  protocol = any;\n}")
	domain.Underlying().Set("value", r.Domain)
	rules.Underlying().Set("value", r.Rules)
	remove := button("Remove", "", func() { row.Remove() })
	add(row, domain, rules, remove)
	byID("domain-rules").AppendChild(row)
	return row
}

// readSettings reads the form, checking what the page can check itself.
func readSettings() (api.Settings, error) {
	limit, err := parseSize(value("body-limit"))
	if err != nil {
		return api.Settings{}, fmt.Errorf("body size limit: %w", err)
	}
	var rows []domainRule
	for _, row := range byID("domain-rules").QuerySelectorAll(".domain-rule") {
		rows = append(rows, domainRule{
			Domain: row.QuerySelector(".domain").Underlying().Get("value").String(),
			Rules:  row.QuerySelector(".rules").Underlying().Get("value").String(),
		})
	}
	rules, err := rulesMap(rows)
	if err != nil {
		return api.Settings{}, err
	}
	return api.Settings{
		HeaderPolicy:        value("header-policy"),
		PasswordPolicy:      value("password-policy"),
		BodyLimit:           limit,
		WARCVersion:         value("warc-version"),
		CDXDialect:          value("cdx-dialect"),
		Agent:               value("agent"),
		RespectDisallow:     checked("respect-disallow"),
		DomainRules:         rules,
		TeamEndpoint:        value("team-endpoint"),
		TeamToken:           value("team-token"),
		ClearTeamToken:      checked("clear-token") && value("team-token") == "",
		SignWith:            value("sign-with"),
		TimestampAuthority:  strings.TrimSpace(value("tsa-url")),
		AutopilotEveryPage:  checked("autopilot-every-page"),
		ReleaseCompiledCore: !checked("keep-compiled-core"), // hidden in Firefox: saved as loaded
	}, nil
}

// siteOrigin is the match pattern of the site of an http(s) URL, for
// chrome.permissions.
func siteOrigin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	return u.Scheme + "://" + u.Hostname() + "/*", nil
}

func saveSettings() {
	saved := byID("saved")
	fail := func(err error) {
		saved.SetTextContent("Not saved.")
		saved.SetAttribute("data-state", "failed")
		showError(fmt.Errorf("the settings were not saved: %w", err))
	}
	s, err := readSettings()
	if err != nil {
		fail(err)
		return
	}
	// The sites the service worker asks, asked for at once (the click's one
	// permission request). A timestamp authority answers no other origin (CORS):
	// without access, no timestamps. The team archive's Worker answers any origin,
	// but each request to a site without access is a CORS request the browser
	// checks first with one more (a preflight, for each URL): a second trip, and a
	// second request the Worker is billed for. An endpoint that is not a URL is the
	// core's to refuse, below.
	var origins []string
	if s.TimestampAuthority != "" {
		origin, err := siteOrigin(s.TimestampAuthority)
		if err != nil {
			fail(fmt.Errorf("timestamp authority: %w", err))
			return
		}
		origins = append(origins, origin)
	}
	teamOrigin, err := siteOrigin(s.TeamEndpoint)
	if err == nil {
		origins = append(origins, teamOrigin)
	}
	granted, err := requestHostAccess(origins, func() {
		sites := make([]string, len(origins))
		for i, o := range origins {
			sites[i] = strings.TrimSuffix(o, "/*")
		}
		saved.SetTextContent(waitingForAccess(strings.Join(sites, " and ")))
		saved.SetAttribute("data-state", "asking")
	})
	if s.TimestampAuthority != "" && (err != nil || !granted) {
		if err == nil {
			err = errors.New("without access to its site, webkeep cannot ask it for timestamps")
		}
		fail(fmt.Errorf("timestamp authority %s: %w", s.TimestampAuthority, err))
		return
	}
	teamSlow := ""
	if teamOrigin != "" && (err != nil || !granted) {
		teamSlow = " Without access to the team archive's site (" + teamOrigin + "), the browser checks each request to it with one more before it (CORS): save again to be asked, or allow it on the extensions page."
	}
	saved.SetTextContent("Saving…")
	saved.SetAttribute("data-state", "saving")
	var out api.Settings
	if err := call("PUT", "/api/settings", s, &out); err != nil {
		fail(err)
		return
	}
	hideError()
	fillSettings(out)
	saved.SetTextContent("Saved at " + time.Now().Format("15:04:05") + "." + teamSlow)
	saved.SetAttribute("data-state", "saved")
}

// showSigningKey shows the key the WACZ downloads are signed with; asking for it
// makes it, the first time.
func showSigningKey() {
	var k api.SigningKey
	if err := call("GET", "/api/signing-key", nil, &k); err != nil {
		setText("key-fingerprint", "not available")
		showError(fmt.Errorf("reading the WACZ signing key: %w", err))
		return
	}
	setText("key-fingerprint", k.Fingerprint)
	byID("key-fingerprint").SetAttribute("data-fingerprint", k.Fingerprint)
	setValue("key-public", k.PublicKey)
	setText("key-algorithm", strings.TrimPrefix(k.Algorithm, "ECDSA "))
	if t, err := time.Parse(time.RFC3339, k.Created); err == nil {
		setText("key-created", localTime(t))
	}
}

// copyPublicKey puts the public key (base64 SPKI, as a signed WACZ holds it) on the
// clipboard; where the page may not write it, the key is selected for the user to copy.
func copyPublicKey() {
	key := value("key-public")
	if key == "" {
		return
	}
	err := errors.New("no clipboard")
	if clip := js.Global().Get("navigator").Get("clipboard"); clip.Truthy() {
		_, err = jspromise.Await(clip.Call("writeText", key))
	}
	if err != nil {
		byID("key-public").Underlying().Call("select")
		if !doc.Underlying().Call("execCommand", "copy").Truthy() {
			setText("key-copied", "Selected: press Ctrl+C to copy it.")
			return
		}
	}
	setText("key-copied", "Copied.")
}
