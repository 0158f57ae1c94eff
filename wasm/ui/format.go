package main

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/api"
)

// humanBytes renders a size the way people read it: 0 B, 999 B, 1.5 KB, 24.0 MB.
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTP"[exp])
}

// humanDuration renders an elapsed time: 45s, 3m05s, 2h03m.
func humanDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// errSize reports a size the user typed that is not one.
var errSize = errors.New("not a size")

// sizeUnits are the units parseSize understands: SI like humanBytes, and binary.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
}

// parseSize reads a size typed by a user: "0", "1048576", "10 MB", "1.5GB", "512 KiB".
// An empty string is 0.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, nil
	}
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("%w: %q: write a number of bytes, or one with KB, MB or GB", errSize, s)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/mult {
			return 0, fmt.Errorf("%w: %q is too large", errSize, s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %q: write a number of bytes, or one with KB, MB or GB", errSize, s)
	}
	v := math.Round(f * float64(mult))
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("%w: %q is too large", errSize, s)
	}
	return int64(v), nil
}

// formatSize writes a size so that parseSize reads back exactly n: "0", "10 MB",
// "1500 KB", "1048577".
func formatSize(n int64) string {
	if n == 0 {
		return "0"
	}
	for _, u := range []struct {
		mult int64
		name string
	}{{1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}} {
		if n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// cdxTime renders a 14-digit CDX timestamp (UTC) as "2006-01-02 15:04:05"; anything
// else is returned unchanged.
func cdxTime(ts string) string {
	t, err := time.Parse("20060102150405", ts)
	if err != nil {
		return ts
	}
	return t.Format("2006-01-02 15:04:05")
}

// verdictSummary sums up a session's verdicts in words. The core counts only the
// responses it checked.
func verdictSummary(c api.VerdictCounts) string {
	if c.Pass == 0 && c.Fail == 0 {
		return "nothing checked: load a URL database in the options to check responses"
	}
	return fmt.Sprintf("%d pass · %d fail", c.Pass, c.Fail)
}

// Verdict labels, as shown and as filtered on.
const (
	labelPass      = "pass"
	labelFail      = "fail"
	labelUnchecked = "unchecked"
)

// verdictLabel is pass, fail, or unchecked for a record without a verdict.
func verdictLabel(v *api.Verdict) string {
	switch {
	case v == nil:
		return labelUnchecked
	case v.OK:
		return labelPass
	default:
		return labelFail
	}
}

// verdictText explains a verdict: its code and the reason given.
func verdictText(v *api.Verdict) string {
	if v == nil {
		return "not in the URL database"
	}
	parts := []string{v.Code}
	for _, s := range []string{v.Problem, v.Note} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if v.Expected != "" || v.Got != "" {
		parts = append(parts, fmt.Sprintf("expected %s, got %s", orDash(v.Expected), orDash(v.Got)))
	}
	return strings.Join(parts, ": ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// checkSummary sums up a check of every URL of the database, of which pass passed
// and fail failed: "4 URLs checked: 1 pass, 3 fail.", and the URLs skipped because
// their site disallows them.
func checkSummary(res api.CheckReport, pass, fail int) string {
	out := fmt.Sprintf("%d URLs checked: %d pass, %d fail.", max(res.Checked, len(res.Verdicts)), pass, fail)
	if n := len(res.Skipped); n > 0 {
		out += fmt.Sprintf(" %d skipped: their site's data.txt or robots.txt disallows them, and the settings say to respect that.", n)
	}
	return out
}

// jobProgress renders how far a job is: "12 of 537 (2%)", or "12" when the total is
// not known yet; an import counts bytes: "1.5 MB of 24.0 MB (6%)".
func jobProgress(j api.Job) string {
	if j.Kind == "import" {
		return transferProgress(int64(j.Done), int64(j.Total))
	}
	if j.Total <= 0 {
		return strconv.Itoa(j.Done)
	}
	return fmt.Sprintf("%d of %d (%d%%)", j.Done, j.Total, j.Done*100/j.Total)
}

// transferProgress renders an upload's progress: "1.5 MB of 24.0 MB (6%)".
func transferProgress(done, total int64) string {
	if total <= 0 {
		return humanBytes(done)
	}
	return fmt.Sprintf("%s of %s (%d%%)", humanBytes(done), humanBytes(total), done*100/total)
}

// parseCategories reads URL database categories typed as a list separated by commas or
// spaces: sorted, without duplicates, as the database keeps them.
func parseCategories(s string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, c := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// sessionPath is the API path of a session, or of something under it.
func sessionPath(id, rest string) string {
	return "/api/sessions/" + url.PathEscape(id) + rest
}

// download is a link to one of a session's download formats.
type download struct {
	ID, Label, Path string
}

// downloads lists a session's download formats (docs/api.md, "Downloads").
func downloads(id string) []download {
	return []download{
		{"download-bundle", "Bundle (.zip)", sessionPath(id, "/bundle.zip")},
		{"download-warc", "WARC 0.9", sessionPath(id, "/warc.gz")},
		{"download-warc11", "WARC/1.1", sessionPath(id, "/warc11.gz")},
		{"download-wacz", "WACZ", sessionPath(id, "/webkeep-"+url.PathEscape(id)+".wacz")},
		{"download-cdxj", "CDXJ", sessionPath(id, "/index.cdxj")},
	}
}

// verdictShort sums up verdicts for a table cell: "3 pass, 1 fail", or "" when none
// was checked.
func verdictShort(c api.VerdictCounts) string {
	if c.Pass == 0 && c.Fail == 0 {
		return ""
	}
	return fmt.Sprintf("%d pass, %d fail", c.Pass, c.Fail)
}

// siteFindings sums up what a site's data.txt and robots.txt said.
func siteFindings(s api.Site) (datatxt, robots string) {
	return siteFile(s.DataTxt), siteFile(s.Robots)
}

func siteFile(f api.SiteFile) string {
	switch {
	case f.Error != "":
		return "error: " + f.Error
	case !f.Found && f.NotFile != "":
		return fmt.Sprintf("none (HTTP %d: %s)", f.Status, f.NotFile)
	case !f.Found && f.Status != 0:
		return fmt.Sprintf("none (HTTP %d)", f.Status)
	case !f.Found:
		return "none"
	}
	out := "found"
	if f.Format != "" {
		out += " (" + f.Format + ")"
	}
	if f.Records > 0 {
		out += fmt.Sprintf(", %d record(s)", f.Records)
	}
	if len(f.Datasets) > 0 {
		names := make([]string, 0, len(f.Datasets))
		for _, ds := range f.Datasets {
			names = append(names, datasetName(ds))
		}
		out += fmt.Sprintf(", %d dataset(s): %s", len(f.Datasets), strings.Join(names, ", "))
	}
	return out
}

// datasetName names a data.txt dataset entry by its name, title or first path.
func datasetName(ds api.Dataset) string {
	switch {
	case ds.Name != "":
		return ds.Name
	case ds.Title != "":
		return ds.Title
	case len(ds.Paths) > 0:
		return ds.Paths[0]
	}
	return "(unnamed)"
}

// utcTime renders a record's date: "2006-01-02 15:04:05 UTC"; "-" for none.
func utcTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// localTime renders a time in the user's time zone, to the minute; "-" for none.
func localTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// plural writes a count of things: "1 file", "2 files".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// problems lists the technical detail of what was not kept whole: each reason the
// recorder gave, with its count, most frequent first, then the session's notes.
// The pages show it behind a disclosure, under plainProblems.
func problems(s api.SessionInfo) []string {
	reasons := make([]string, 0, len(s.Reasons))
	for r := range s.Reasons {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := s.Reasons[reasons[i]], s.Reasons[reasons[j]]
		return a > b || a == b && reasons[i] < reasons[j]
	})
	out := make([]string, 0, len(reasons)+len(s.Notes))
	for _, r := range reasons {
		out = append(out, fmt.Sprintf("%s: %s", plural(s.Reasons[r], "exchange"), r))
	}
	return append(out, s.Notes...)
}

// sessionFigures sums up a session's figures for the archive page's header: pages and
// exchanges, not WARC records (requests, notes and segments among them), so that the
// only count of records on the page is the table's, of the records it lists.
func sessionFigures(s api.SessionInfo) string {
	pages := plural(s.Pages, "page")
	if s.Restored > 0 {
		pages += fmt.Sprintf(" (%d restored from the back/forward cache, no requests made)", s.Restored)
	}
	parts := []string{
		pages,
		fmt.Sprintf("%s (%d not GET)", plural(s.Exchanges, "request"), s.NonGET),
	}
	if s.Failures > 0 {
		parts = append(parts, fmt.Sprintf("%d without a response", s.Failures))
	}
	if s.Incomplete > 0 {
		parts = append(parts, fmt.Sprintf("%d not kept whole", s.Incomplete))
	}
	parts = append(parts, humanBytes(s.Bytes))
	return strings.Join(parts, " · ")
}

// pageCount is the popup's count of pages: those the browser showed again from its
// back/forward cache (no request made) are said apart.
func pageCount(s api.SessionInfo) string {
	if s.Restored == 0 {
		return strconv.Itoa(s.Pages)
	}
	return fmt.Sprintf("%d (%d restored)", s.Pages, s.Restored)
}

// restoredLabel is what the archive page's list of pages says of a page the browser
// showed again from its back/forward cache.
const restoredLabel = "restored from the back/forward cache, no requests made: its records are those of its earlier load"

// recordStatus is the status a row of the records table shows: the CDXJ line's, or
// for a revisit, which has none there, its own followed by "revisit".
func recordStatus(r *Record) string {
	if r.Fields.Mime == "warc/revisit" {
		if r.RevisitStatus != 0 {
			return strconv.Itoa(r.RevisitStatus) + " revisit"
		}
		return "revisit"
	}
	return r.Fields.Status
}

// loginMark says that a session holds login POSTs, for the archive page's mark.
func loginMark(s api.SessionInfo) string {
	return fmt.Sprintf("holds %s that sent a password (a login); passwords are kept or redacted as the options say", plural(s.LoginPosts, "request"))
}

// A cause groups the recorder's reasons (as a session counts them) by what a person
// can do about them.
type cause struct {
	prefixes []string
	// say is the sentence for n exchanges: one, or some, forms of its words.
	say func(n int) string
}

// forms picks the singular or plural of a sentence's words by n.
func forms(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

var causes = []cause{
	{[]string{"the page was left", "the page was being left"}, func(n int) string {
		return plural(n, "file") + forms(n, " was", " were") + " not kept whole because the page was left while " + forms(n, "it was", "they were") +
			" loading: reload the page while recording, and let it finish, to keep " + forms(n, "it", "them") + "."
	}},
	{[]string{"recording stopped before"}, func(n int) string {
		return plural(n, "file") + forms(n, " was", " were") + " still loading when recording stopped: record the page again and let it finish loading before you press Stop."
	}},
	{[]string{"the browser did not give the body"}, func(n int) string {
		return plural(n, "response") + forms(n, " arrived, but the browser discarded its", " arrived, but the browser discarded their") +
			" content before webkeep could read it: reload the page while recording to keep " + forms(n, "it", "them") + "."
	}},
	{[]string{"cancelled by the browser"}, func(n int) string {
		return plural(n, "request") + forms(n, " was", " were") + " cancelled by the browser before " + forms(n, "it", "they") +
			" finished, as the page no longer needed " + forms(n, "it", "them") + ": usually nothing the page showed is missing."
	}},
	{[]string{"body hidden by the browser"}, func(n int) string {
		return plural(n, "upload") + forms(n, " sent a file", " sent files") + " whose bytes the browser hides from extensions, and webkeep could not copy " +
			forms(n, "it", "them") + " from the page: " + forms(n, "it is", "they are") + " kept without those bytes, marked as cut."
	}},
	{[]string{"request body rebuilt"}, func(n int) string {
		return forms(n, "1 request body was", fmt.Sprintf("%d request bodies were", n)) + " rebuilt from what the page or the browser reported, as the browser hides " +
			forms(n, "it", "them") + ": each record says how."
	}},
	{[]string{"under way when webkeep's service worker stopped"}, func(n int) string {
		return plural(n, "request") + forms(n, " was", " were") + " under way when the browser stopped webkeep's service worker, and " +
			forms(n, "is", "are") + " not recorded: reload the page while recording to keep " + forms(n, "it", "them") + "."
	}},
	{[]string{"served from the browser's", "the browser revalidated"}, func(n int) string {
		return plural(n, "file") + forms(n, " was", " were") + " served from the browser's own cache: kept as the browser gave " + forms(n, "it", "them") + "."
	}},
}

// plainProblems says in plain words what was not kept whole, one line a cause, most
// frequent first, each with what the user can do; problems gives the detail.
func plainProblems(s api.SessionInfo) []string {
	counts := make([]int, len(causes)+1) // the last: other reasons
	for reason, n := range s.Reasons {
		i := len(causes)
		for j, c := range causes {
			for _, p := range c.prefixes {
				if strings.HasPrefix(reason, p) {
					i = j
				}
			}
		}
		counts[i] += n
	}
	type line struct {
		n    int
		text string
	}
	var lines []line
	for i, n := range counts {
		switch {
		case n == 0:
		case i < len(causes):
			lines = append(lines, line{n, causes[i].say(n)})
		default:
			lines = append(lines, line{n, plural(n, "request") + forms(n, " was", " were") + " not kept whole for another reason: the details below say which."})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].n > lines[j].n })
	out := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		out = append(out, l.text)
	}
	if len(out) == 0 && len(s.Notes) > 0 {
		out = append(out, plural(len(s.Notes), "note")+" about this session's records: the details below.")
	}
	return out
}

// isNote reports whether an index line is a note the recorder wrote (a metadata
// record: text, no HTTP status), not a capture.
func isNote(r *Record) bool {
	return r.Fields.Status == "" && r.RevisitStatus == 0 && strings.HasPrefix(r.Fields.Mime, "text/plain")
}

// splitNotes parts a session's index lines into its captures and its notes, the
// notes by the URL they concern.
func splitNotes(recs []Record) ([]Record, map[string][]Record) {
	captures := recs[:0:0]
	notes := map[string][]Record{}
	for _, r := range recs {
		if isNote(&r) {
			notes[r.Fields.URL] = append(notes[r.Fields.URL], r)
		} else {
			captures = append(captures, r)
		}
	}
	return captures, notes
}

// snippetPart is a piece of a search result's snippet: text, marked or not.
type snippetPart struct {
	Text   string
	Marked bool
}

// snippetParts splits a snippet at the core's marks: the words between « and »
// matched the query.
func snippetParts(s string) []snippetPart {
	var out []snippetPart
	for s != "" {
		open := strings.Index(s, "«")
		if open < 0 {
			break
		}
		end := strings.Index(s[open:], "»")
		if end < 0 {
			break
		}
		if open > 0 {
			out = append(out, snippetPart{Text: s[:open]})
		}
		out = append(out, snippetPart{Text: s[open+len("«") : open+end], Marked: true})
		s = s[open+end+len("»"):]
	}
	if s != "" {
		out = append(out, snippetPart{Text: s})
	}
	return out
}

// searchSummary says what a search found: "3 answers found (12 ms)", "The best
// 20 of 143 answers found (40 ms)", "The best 20 of about 1430 answers found
// (40 ms)" when the total is an estimate, or that nothing was.
func searchSummary(res api.SearchResults) string {
	ms := fmt.Sprintf(" (%.0f ms)", res.MS)
	if res.MS < 10 {
		ms = fmt.Sprintf(" (%.1f ms)", res.MS)
	}
	switch {
	case res.Total == 0:
		return "Nothing found" + ms + ": check the spelling, or use fewer words."
	case len(res.Results) < res.Total && res.Estimated:
		return fmt.Sprintf("The best %d of about %s found%s", len(res.Results), plural(res.Total, "answer"), ms)
	case len(res.Results) < res.Total:
		return fmt.Sprintf("The best %d of %s found%s", len(res.Results), plural(res.Total, "answer"), ms)
	}
	return plural(res.Total, "answer") + " found" + ms
}

// pageRecord returns the index in recs of a page's capture: the GET record of its
// URL nearest its time; -1 when there is none.
func pageRecord(recs []Record, url string, at time.Time) int {
	best, bestGap := -1, time.Duration(0)
	for i := range recs {
		r := &recs[i]
		if r.Fields.URL != url || (r.Fields.Method != "" && r.Fields.Method != "GET") {
			continue
		}
		t, err := time.Parse("20060102150405", r.Timestamp)
		if err != nil {
			continue
		}
		gap := t.Sub(at)
		if gap < 0 {
			gap = -gap
		}
		if best < 0 || gap < bestGap {
			best, bestGap = i, gap
		}
	}
	return best
}

// captureCheckSummary sums up a capture check: "16 pages checked: 14 replay, 1 differs,
// 1 broken", those that could not be checked, and the pages left out, which have no
// capture of their own: posted, those a form's POST answered; restored, those the
// back/forward cache showed again.
func captureCheckSummary(total, posted, restored int, counts map[string]int, failed int) string {
	out := plural(total, "page") + " checked: "
	var parts []string
	for _, v := range []struct{ key, one, many string }{{"replays", "replays", "replay"}, {"differs", "differs", "differ"}, {"broken", "broken", "broken"}} {
		if n := counts[v.key]; n > 0 {
			word := v.many
			if n == 1 {
				word = v.one
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, word))
		}
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d could not be checked", failed))
	}
	left := ""
	if posted > 0 {
		left += fmt.Sprintf("; not checked: %s a form's POST answered (replayed from the form's page)", plural(posted, "page"))
	}
	if restored > 0 {
		left += fmt.Sprintf("; not checked: %s the back/forward cache showed again (no capture of its own)", plural(restored, "visit"))
	}
	if len(parts) == 0 {
		return plural(total, "page") + " to check: none has a capture of its own" + left
	}
	return out + strings.Join(parts, ", ") + left
}
