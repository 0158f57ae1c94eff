package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/replay"
)

// The team archive's CDX index as a replay asks it: the lines under a request's pywb
// 2.6.7 key (else a fuzzy match under its path), the captures of a page, and the
// bundle and offset each line names.

// captures lists the team archive's captures of pageURL (its exact key: GET),
// newest first, at most limit: the responses and revisits, each with the link that
// replays it from the team archive.
func (tm *team) captures(ctx context.Context, pageURL string, limit int) ([]api.TeamCapture, error) {
	if err := checkTeamURL(pageURL); err != nil {
		return nil, err
	}
	lines, err := tm.cdx(ctx, url.Values{"url": {pageURL}, "matchType": {"exact"}, "sort": {"reverse"}, "limit": {strconv.Itoa(limit)}})
	if err != nil {
		return nil, err
	}
	out := []api.TeamCapture{}
	for _, l := range lines {
		e, ok := l.entry()
		if !ok || !capturing(e) {
			continue
		}
		ts := string(l.Timestamp)
		out = append(out, api.TeamCapture{
			URL: e.URL, Timestamp: ts, Status: e.Status, Mime: e.Mime, Method: e.Method, Digest: e.Digest,
			Length: e.Length, Source: string(l.Source), Upload: string(l.Upload), Replay: api.TeamReplayLink(e.URL, ts),
		})
	}
	// The archive's reverse order, and the same for lines of equal keys.
	slices.SortStableFunc(out, func(a, b api.TeamCapture) int { return strings.Compare(b.Timestamp, a.Timestamp) })
	return out, nil
}

// checkTeamURL checks the URL a team route is given: one that has a CDX key.
func checkTeamURL(u string) error {
	if u == "" {
		return errors.New("url= is required: the URL whose captures to find")
	}
	if _, err := cdx.SURT(u); err != nil {
		return fmt.Errorf("url=%q: %w", u, err)
	}
	return nil
}

// capturing reports whether a line is of a capture that answers a request, as a
// replay reads them: a response with a status (not a 304) or a revisit.
func capturing(e cdx.Entry) bool {
	if e.Mime == "warc/revisit" {
		return true
	}
	n, err := strconv.Atoi(e.Status)
	return err == nil && n != 304
}

// cdxText is a value of a CDX line's JSON: pywb writes every value as a string;
// a number is read as its digits.
type cdxText string

func (t *cdxText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = cdxText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*t = cdxText(n)
	return nil
}

// teamLine is a line of the team archive's CDX answer (output=json).
type teamLine struct {
	URLKey      cdxText `json:"urlkey"`
	Timestamp   cdxText `json:"timestamp"`
	URL         cdxText `json:"url"`
	Mime        cdxText `json:"mime"`
	Status      cdxText `json:"status"`
	Digest      cdxText `json:"digest"`
	Length      cdxText `json:"length"`
	Offset      cdxText `json:"offset"`
	Filename    cdxText `json:"filename"`
	Method      cdxText `json:"method"`
	RequestBody cdxText `json:"requestBody"`
	Source      cdxText `json:"source"`
	Upload      cdxText `json:"upload"`
}

// entry returns the line as a cdx.Entry whose Filename is i (the line's place in
// the caller's list, which keeps its bundle), as replay.ParseLine reads it; ok is
// false for a line that names no record (no key, offset or file).
func (l *teamLine) entry() (cdx.Entry, bool) {
	line := cdx.Entry{
		URLKey: string(l.URLKey), Timestamp: string(l.Timestamp), URL: string(l.URL), Mime: string(l.Mime),
		Status: string(l.Status), Digest: string(l.Digest), Method: string(l.Method),
		RequestBody: string(l.RequestBody), Filename: string(l.Filename),
	}
	var err1, err2 error
	line.Offset, err1 = strconv.ParseInt(string(l.Offset), 10, 64)
	if l.Length != "" {
		line.Length, err2 = strconv.ParseInt(string(l.Length), 10, 64)
	}
	if err1 != nil || err2 != nil || line.Offset < 0 || line.Length < 0 || l.Source == "" || l.Filename == "" {
		return cdx.Entry{}, false
	}
	e, err := replay.ParseLine(bytes.TrimSuffix(line.AppendLine(nil, cdx.Pywb267), []byte("\n")))
	return e, err == nil
}

// bundleKey names the bundle, upload and file that hold l's record.
func (l *teamLine) bundleKey() string {
	return bundleKey(string(l.Source), string(l.Upload), string(l.Filename))
}

// bundleKey names a bundle's upload and one of its files.
func bundleKey(source, upload, file string) string {
	return source + " " + upload + " " + file
}

// path is where the line's record is read: its bundle's WARC file.
func (l *teamLine) path() string {
	return "/api/bundles/" + url.PathEscape(string(l.Source)) + "/" + url.PathEscape(string(l.Filename))
}

// cdx asks the team archive's CDX server (output=json) and returns its lines; a
// line it cannot read is left out.
func (tm *team) cdx(ctx context.Context, v url.Values) ([]teamLine, error) {
	if !tm.settings.teamSet() {
		return nil, errNoTeam
	}
	v.Set("output", "json")
	resp, err := tm.request(ctx, httpmsg.MethodGet, "/api/cdx?"+v.Encode(), nil, -1)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var lines []teamLine
	br := bufio.NewReader(io.LimitReader(resp.Body, maxTeamCDXAnswer))
	for {
		b, err := br.ReadBytes('\n')
		if b = bytes.TrimSpace(b); len(b) > 0 {
			var l teamLine
			if json.Unmarshal(b, &l) == nil && l.URLKey != "" {
				lines = append(lines, l)
			}
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the team archive's index: %w", err)
		}
	}
}

// lookupAmong finds the line of the capture that answers r among lines, as a replay
// finds it in a session's index (replay.LookupAmong).
func lookupAmong(lines []teamLine, r *replay.Request, at string) (m replay.Match, line teamLine, ok bool) {
	var entries []cdx.Entry
	var places []int // of each entry in lines
	for i := range lines {
		if e, ok := lines[i].entry(); ok {
			entries = append(entries, e)
			places = append(places, i)
		}
	}
	m, i, ok := replay.LookupAmong(entries, r, at)
	if !ok {
		return m, line, false
	}
	return m, lines[places[i]], true
}

// nearestParams asks a CDX query for the lines nearest to at (the latest first
// when at is "").
func nearestParams(v url.Values, at string) url.Values {
	if at == "" {
		v.Set("sort", "reverse")
	} else {
		v.Set("sort", "closest")
		v.Set("closest", at)
	}
	return v
}

// teamAskError is a failure to ask the team archive's index: the request is not
// answered (unlike a capture that cannot be read, which gets the "not archived"
// page saying why). The API answers it 409 when no team archive is set (as an
// upload), else 502, the team archive's failure or refusal (httpStatus).
type teamAskError struct{ err error }

func (e *teamAskError) Error() string { return e.err.Error() }
func (e *teamAskError) Unwrap() error { return e.err }

// lookup finds the capture of r in the team archive nearest to at, as a
// session's replay finds it in the session (replay.Index.Lookup): under r's pywb
// 2.6.7 key, else a fuzzy match among the captures of r's path. ok is false when
// the archive has none.
func (tm *team) lookup(ctx context.Context, r *replay.Request, at string) (m replay.Match, line teamLine, ok bool, err error) {
	key, err := replay.Key(r)
	if err != nil {
		return m, line, false, nil // a URL no capture can have
	}
	lines, err := tm.cdx(ctx, nearestParams(url.Values{"url": {encodedURL(r)}, "matchType": {"exact"}, "limit": {strconv.Itoa(teamExactLimit)}}, at))
	if err != nil {
		return m, line, false, err
	}
	if m, line, ok = lookupAmong(lines, r, at); ok {
		return m, line, true, nil
	}
	// No capture under its key: those of its path, with another query or body.
	path, query, _ := strings.Cut(r.URL, "?")
	more, err := tm.cdx(ctx, nearestParams(url.Values{"url": {path + "?"}, "matchType": {"prefix"}, "limit": {strconv.Itoa(teamFuzzyLimit)}}, at))
	if err != nil {
		return m, line, false, err
	}
	lines = append(lines, more...)
	if query != "" && strings.EqualFold(r.Method, httpmsg.MethodGet) && strings.Contains(key, "?") {
		bare, err := tm.cdx(ctx, nearestParams(url.Values{"url": {path}, "matchType": {"exact"}, "limit": {strconv.Itoa(teamExactLimit)}}, at))
		if err != nil {
			return m, line, false, err
		}
		lines = append(lines, bare...)
	}
	if m, line, ok = lookupAmong(lines, r, at); ok {
		return m, line, true, nil
	}
	return m, line, false, nil
}

// encodedURL is r's URL with pywb 2.6.7's method and body query appended: what
// replay.Key makes its key of, the url= of a CDX query for that key.
func encodedURL(r *replay.Request) string {
	h := r.Header
	if len(r.Body) > 0 && h.Get("Content-Length") == "" {
		// As replay.Key: a body without a Content-Length (DevTools leaves it out)
		// is counted as sent whole. Header names may be in any case.
		found := false
		for k := range h {
			if strings.EqualFold(k, "Content-Length") {
				found = true
			}
		}
		if !found {
			h = h.Clone()
			if h == nil {
				h = httpmsg.Header{}
			}
			h.Set("Content-Length", strconv.Itoa(len(r.Body)))
		}
	}
	u, _ := cdx.Pywb267.EncodeRequest(&cdx.Request{Method: r.Method, URL: r.URL, Header: h, Body: r.Body})
	return u
}
