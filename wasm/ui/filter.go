package main

import (
	"sort"
	"strings"

	"github.com/webkeep/webkeep/shared/api"
)

// Filter selects records of a session. Its text form is words that must all appear
// somewhere in a record (URL, method, status, type, verdict, CDX key), and name:value
// terms for one field: method:POST, status:404 or status:4xx, type:html (part of the
// media type), verdict:fail (pass, fail, unchecked, or a verdict code such as sha256),
// url:/api/ (part of the URL).
type Filter struct {
	Words   []string
	Method  string
	Status  string
	Type    string
	Verdict string
	URL     string
}

// ParseFilter reads a filter as typed in the search box. Terms with an unknown name
// are ordinary words, so a URL with a colon can be searched for.
func ParseFilter(s string) Filter {
	var f Filter
	for _, w := range strings.Fields(strings.ToLower(s)) {
		name, value, ok := strings.Cut(w, ":")
		if !ok || value == "" {
			f.Words = append(f.Words, w)
			continue
		}
		switch name {
		case "method":
			f.Method = value
		case "status":
			f.Status = value
		case "type", "mime":
			f.Type = value
		case "verdict":
			f.Verdict = value
		case "url":
			f.URL = value
		default:
			f.Words = append(f.Words, w)
		}
	}
	return f
}

// recordMethod is a record's HTTP method; the CDX line names only other methods than GET.
func recordMethod(r *Record) string {
	if r.Fields.Method == "" {
		return "GET"
	}
	return r.Fields.Method
}

// Match reports whether r passes every term of the filter. The first search for words
// keeps the record's searchable text in r, so typing in the search box does not build
// it again for every key.
func (f Filter) Match(r *Record) bool {
	if f.Method != "" && !strings.EqualFold(recordMethod(r), f.Method) {
		return false
	}
	if f.Status != "" && !matchStatus(r.Fields.Status, f.Status) {
		return false
	}
	if f.Type != "" && !strings.Contains(strings.ToLower(r.Fields.Mime), strings.ToLower(f.Type)) {
		return false
	}
	if f.Verdict != "" {
		label := verdictLabel(r.Verdict)
		code := ""
		if r.Verdict != nil {
			code = r.Verdict.Code
		}
		if !strings.EqualFold(f.Verdict, label) && !strings.EqualFold(f.Verdict, code) {
			return false
		}
	}
	if f.URL != "" && !strings.Contains(strings.ToLower(r.Fields.URL), strings.ToLower(f.URL)) {
		return false
	}
	if len(f.Words) == 0 {
		return true
	}
	if r.search == "" {
		r.search = strings.ToLower(strings.Join([]string{
			recordMethod(r), r.Fields.URL, r.Fields.Status, r.Fields.Mime, r.URLKey, verdictLabel(r.Verdict), verdictText(r.Verdict),
		}, " "))
	}
	for _, w := range f.Words {
		if !strings.Contains(r.search, w) {
			return false
		}
	}
	return true
}

// matchStatus compares a status with "404" or with a class such as "4xx".
func matchStatus(status, want string) bool {
	if len(want) == 3 && strings.HasSuffix(want, "xx") {
		return len(status) == 3 && status[0] == want[0]
	}
	return status == want
}

// distinct returns the distinct non-empty values of f over records, sorted: the
// choices of a filter's drop-down lists.
func distinct(recs []Record, f func(*Record) string) []string {
	seen := map[string]bool{}
	var out []string
	for i := range recs {
		if v := f(&recs[i]); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// statusClass is a status's class, "2xx" for "204"; "" for a record without status.
func statusClass(r *Record) string {
	if s := r.Fields.Status; len(s) == 3 && s[0] >= '1' && s[0] <= '5' {
		return s[:1] + "xx"
	}
	return ""
}

// Record is a CDXJ line of the session shown, and what a search for words looks in
// (made by Filter.Match, lowercased).
type Record struct {
	api.Record
	search string
}
