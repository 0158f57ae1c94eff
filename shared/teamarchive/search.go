package teamarchive

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/search"
	"github.com/webkeep/webkeep/shared/teamsearch"
	"github.com/webkeep/webkeep/shared/warc"
)

// Limits of the text indexed of an upload.
const (
	// maxTextRecord bounds the record of one page whose text is indexed: a
	// larger one is left out.
	maxTextRecord = 8 << 20
	// maxPageText bounds the text indexed of one page.
	maxPageText = teamsearch.DefaultStoredText
	// maxTextReads bounds the range reads that fetch an upload's text records:
	// nearby records are read together, with the bytes between them.
	maxTextReads = 64
	// maxTextGap is the gap between two records below which they are read together
	// anyway.
	maxTextGap = 64 << 10
	// maxTextPages bounds the pages of one upload whose text is indexed: an
	// upload is answered after its text is indexed, within the request's CPU
	// time (natively about 1 ms a page of 8 KB of text; two to four times that
	// in the Worker).
	maxTextPages = 5000
	// maxTextBytes bounds the bytes read to index an upload's text.
	maxTextBytes = 512 << 20
)

// Defaults and bounds of GET /api/search.
const (
	defaultSearchLimit = 20
	maxSearchLimit     = 1000
)

// A textPage is a CDX line of a response whose text is indexed.
type textPage struct {
	url, method, mime string
	status            int
	time              time.Time
	offset, length    int64
}

// textLine is what a CDX line says of its record.
type textLine struct {
	URL      string `json:"url"`
	Mime     string `json:"mime"`
	Status   string `json:"status"`
	Offset   string `json:"offset"`
	Length   string `json:"length"`
	Filename string `json:"filename"`
	Method   string `json:"method"`
}

// textPages picks the lines of an upload's index whose records hold text (by
// their media type), by file and in the order of their offsets.
func textPages(index []byte) (pages map[string][]textPage, cut bool) {
	out := map[string][]textPage{}
	n := 0
	for line := range bytes.Lines(index) {
		_, ts, js, err := cdx.SplitLine(bytes.TrimRight(line, "\r\n"))
		if err != nil {
			continue
		}
		var l textLine
		if json.Unmarshal(js, &l) != nil || search.KindOf(l.Mime) == search.KindNone || l.Filename == "" {
			continue
		}
		off, err1 := strconv.ParseInt(l.Offset, 10, 64)
		length, err2 := strconv.ParseInt(l.Length, 10, 64)
		if err1 != nil || err2 != nil || off < 0 || length <= 0 {
			continue
		}
		if length > maxTextRecord {
			cut = true
			continue
		}
		t, _ := time.Parse("20060102150405", string(ts))
		status, _ := strconv.Atoi(l.Status)
		method := strings.ToUpper(l.Method)
		if method == "" {
			method = http.MethodGet
		}
		if n == maxTextPages {
			cut = true
			break
		}
		out[l.Filename] = append(out[l.Filename], textPage{url: l.URL, method: method, mime: l.Mime, status: status, time: t, offset: off, length: length})
		n++
	}
	for _, ps := range out {
		slices.SortFunc(ps, func(a, b textPage) int { return int(a.offset - b.offset) })
	}
	return out, cut
}

// A textRange is a span of a WARC read at once, and the pages in it.
type textRange struct {
	off, end int64
	pages    []textPage
}

// textRanges groups a file's pages (sorted by offset) into at most reads
// spans: records closer than maxTextGap, and then those with the smallest gaps
// between them, are read together.
func textRanges(pages []textPage, reads int) []textRange {
	var rs []textRange
	for _, p := range pages {
		if n := len(rs); n > 0 && p.offset < rs[n-1].end+maxTextGap {
			rs[n-1].end = max(rs[n-1].end, p.offset+p.length)
			rs[n-1].pages = append(rs[n-1].pages, p)
			continue
		}
		rs = append(rs, textRange{off: p.offset, end: p.offset + p.length, pages: []textPage{p}})
	}
	if len(rs) <= reads {
		return rs
	}
	gaps := make([]int64, 0, len(rs)-1)
	for i := 1; i < len(rs); i++ {
		gaps = append(gaps, rs[i].off-rs[i-1].end)
	}
	slices.Sort(gaps)
	limit := gaps[len(rs)-reads-1] // merging the gaps up to it leaves at most reads spans
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.off-last.end <= limit {
			last.end = max(last.end, r.end)
			last.pages = append(last.pages, r.pages...)
			continue
		}
		out = append(out, r)
	}
	return out
}

// textDocs extracts the text of an upload's pages (its text responses, found by
// its index), reading only the spans of its WARC files that hold them. Pages
// whose text cannot be read are left out; what was read of a damaged page is
// kept. cut says pages were left out for the limits (maxTextPages,
// maxTextBytes).
func (s *Server) textDocs(ctx context.Context, e *bundleEntry, index []byte) (docs []search.Document, cut bool, err error) {
	upload := uploadOf(e.DataKey)
	var read int64
	byFile, cut := textPages(index)
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	reads := max(1, maxTextReads/max(1, len(files)))
	for _, file := range files {
		i := slices.IndexFunc(e.Files, func(m zipMember) bool { return m.Name == file })
		if i < 0 {
			continue // a line naming a file the bundle does not hold
		}
		m := &e.Files[i]
		add := func(p textPage, rec []byte) {
			d, ok := pageDoc(rec)
			if !ok {
				return
			}
			d.Session, d.URL, d.Time, d.Method, d.Status = e.Name, p.url, p.time, p.method, p.status
			if d.Mime == "" {
				d.Mime, _, _ = mime.ParseMediaType(p.mime)
			}
			d.Ref = teamsearch.Ref{Upload: upload, File: file, Offset: p.offset}.String()
			docs = append(docs, d)
		}
		if m.Method != zip.Store {
			// A deflated member is read whole, once, from its start.
			rc, err := s.openMember(ctx, e.DataKey, m, Range{0, -1})
			if err != nil {
				return nil, false, err
			}
			err = eachRecord(rc, 0, byFile[file], add)
			rc.Close()
			if err != nil {
				return nil, false, fmt.Errorf("reading the text of %s: %w", file, err)
			}
			continue
		}
		for _, r := range textRanges(byFile[file], reads) {
			if r.end > m.CompressedSize {
				continue
			}
			if read += r.end - r.off; read > maxTextBytes {
				return docs, true, nil
			}
			rc, err := s.openMember(ctx, e.DataKey, m, Range{r.off, r.end - r.off})
			if err != nil {
				return nil, false, err
			}
			err = eachRecord(rc, r.off, r.pages, add)
			rc.Close()
			if err != nil {
				return nil, false, fmt.Errorf("reading the text of %s: %w", file, err)
			}
		}
	}
	return docs, cut, nil
}

// eachRecord reads, from r positioned at offset at of a WARC, the record of
// each page (sorted by offset), and hands it to fn.
func eachRecord(r io.Reader, at int64, pages []textPage, fn func(textPage, []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for _, p := range pages {
		if p.offset < at {
			continue // overlaps the previous record: not a record of its own
		}
		if _, err := br.Discard(int(p.offset - at)); err != nil {
			return err
		}
		rec := make([]byte, p.length)
		if _, err := io.ReadFull(br, rec); err != nil {
			return err
		}
		at = p.offset + p.length
		fn(p, rec)
	}
	return nil
}

// pageDoc extracts the title and text of a response record (a gzip member or a
// plain record). ok is false when it has none, or a content encoding that
// cannot be undone.
func pageDoc(rec []byte) (d search.Document, ok bool) {
	rd, err := warc.NewReader(bytes.NewReader(rec))
	if err != nil {
		return d, false
	}
	wr, err := rd.Next()
	if err != nil || wr.Type != warc.TypeResponse {
		return d, false
	}
	resp, err := replay.ReadResponse(wr)
	if err != nil {
		return d, false
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if search.KindOf(ct) == search.KindNone {
		return d, false
	}
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "", "identity", "gzip", "x-gzip", "deflate":
	default:
		return d, false
	}
	doc, _ := search.Extract(ct, resp.Body, maxPageText)
	d.Mime, _, _ = mime.ParseMediaType(ct)
	d.Title, d.Text = doc.Title, doc.Text
	return d, doc.Title != "" || doc.Text != ""
}

// searchAnswer is what an upload's answer says of its text: the pages indexed,
// whether some were left out for the limits, or why none were.
type searchAnswer struct {
	Pages   int    `json:"pages"`
	Partial bool   `json:"partial,omitempty"`
	Error   string `json:"error,omitempty"`
}

// indexText indexes the text of a stored upload's pages. A failure loses
// nothing but the upload's text, and is said in the answer.
func (s *Server) indexText(ctx context.Context, e *bundleEntry, index []byte) searchAnswer {
	docs, cut, err := s.textDocs(ctx, e, index)
	if err == nil {
		_, err = s.search.Add(ctx, uploadOf(e.DataKey), docs)
	}
	if err != nil {
		s.cfg.Logf("teamarchive: indexing the text of %s: %v", e.Name, err)
		return searchAnswer{Error: "the bundle is stored but its text is not searchable: " + err.Error()}
	}
	return searchAnswer{Pages: len(docs), Partial: cut}
}

// getSearch answers GET /api/search?q=&session=&limit=: the pages of every
// bundle (or of the bundle session names) whose text matches q, best first.
func (s *Server) getSearch(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	v := r.URL.Query()
	q, err := search.ParseQuery(v.Get("q"))
	if err != nil {
		return httpErr(http.StatusBadRequest, "q: %v", err)
	}
	if name := v.Get("session"); name != "" {
		if err := ValidName(name); err != nil {
			return httpErr(http.StatusBadRequest, "session: %v", err)
		}
		q.Filters = append(q.Filters, search.Filter{Key: search.FilterSession, Value: name})
	}
	limit := defaultSearchLimit
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxSearchLimit {
			return httpErr(http.StatusBadRequest, "limit: %q is not a number from 1 to %d", clip(l), maxSearchLimit)
		}
		limit = n
	}
	res, err := s.search.Search(r.Context(), q, limit)
	if err != nil {
		return err
	}
	out := api.SearchResults{Results: []api.SearchResult{}, Total: res.Total}
	for _, h := range res.Hits {
		ts := ""
		if !h.Time.IsZero() {
			ts = h.Time.UTC().Format("20060102150405")
		}
		out.Results = append(out.Results, api.SearchResult{Session: h.Bundle, URL: h.URL, TS: ts, Title: h.Title,
			Snippet: h.Snippet, Status: h.Status, Mime: h.Mime, Method: h.Method})
	}
	out.MS = float64(time.Since(start).Microseconds()) / 1000
	w.Header().Set("X-Search-Reads", fmt.Sprintf("segments=%d, stores=%d, blobs=%d, bytes=%d", res.Stats.Segments, res.Stats.StoreCalls, res.Stats.BlobReads, res.Stats.BlobBytes))
	writeJSON(w, http.StatusOK, out)
	return nil
}

// mergeSearch runs the merges of the full-text index that are due.
func (s *Server) mergeSearch(ctx context.Context) (*teamsearch.MergeStats, error) {
	st, err := s.search.Merge(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		s.cfg.Logf("teamarchive: merging the text index: %v", err)
	}
	return st, err
}
