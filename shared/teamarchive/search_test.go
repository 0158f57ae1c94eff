package teamarchive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/warc"
)

// A wikiPage is a capture of the search tests: a real page of testdata/wiki, or
// a body of its own.
type wikiPage struct {
	method, url, ctype string
	file, body         string
}

var (
	dokuPages = []wikiPage{
		{"GET", "http://wiki.example/doku.php?id=wiki:syntax", "text/html; charset=utf-8", "dokuwiki-wiki-syntax.html", ""},
		{"GET", "http://wiki.example/doku.php?id=wiki:dokuwiki", "text/html; charset=utf-8", "dokuwiki-wiki-dokuwiki.html", ""},
		{"GET", "http://wiki.example/doku.php?id=wiki:welcome", "text/html; charset=utf-8", "dokuwiki-wiki-welcome.html", ""},
		{"POST", "http://wiki.example/lib/exe/ajax.php", "application/json", "", `{"query":{"pages":[{"title":"Aquarelle","extract":"a painting in watercolours"}]}}`},
	}
	mediaPages = []wikiPage{
		{"GET", "http://mw.example/index.php?title=Main_Page", "text/html; charset=utf-8", "mediawiki-Main_Page.html", ""},
		{"GET", "http://mw.example/index.php?title=Special:Version", "text/html; charset=utf-8", "mediawiki-Special-Version.html", ""},
		{"GET", "http://mw.example/load.php?modules=site.styles&only=", "text/css", "", "body { font-family: sans-serif } /* Laxström */"},
	}
)

// wikiWARC writes pages as request and response records (WARC 0.9, per-record
// gzip, as the extension writes), captured in year.
func wikiWARC(t testing.TB, year int, pages []wikiPage) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V09, Gzip: true, MaxBuffer: 1 << 30})
	for i, p := range pages {
		body := []byte(p.body)
		if p.file != "" {
			var err error
			if body, err = os.ReadFile(filepath.Join("..", "..", "testdata", "wiki", p.file)); err != nil {
				t.Fatal(err)
			}
		}
		u, _ := url.Parse(p.url)
		date := time.Date(year, 3, 1+i, 12, 0, 0, 0, time.UTC)
		reqBody := ""
		if p.method == "POST" {
			reqBody = "q=aquarelle"
		}
		req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s", p.method, u.RequestURI(), u.Host, len(reqBody), reqBody)
		id := fmt.Sprintf("urn:uuid:00000000-0000-4000-8000-%012d", year*100+2*i)
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeRequest, ID: id, TargetURI: p.url, Date: date,
			ContentType: "application/http; msgtype=request", Block: strings.NewReader(req), BlockLength: int64(len(req))}); err != nil {
			t.Fatal(err)
		}
		resp := append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", p.ctype, len(body))), body...)
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, ID: fmt.Sprintf("urn:uuid:00000000-0000-4000-8000-%012d", year*100+2*i+1),
			TargetURI: p.url, Date: date, ContentType: "application/http; msgtype=response",
			Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: id}}, Block: bytes.NewReader(resp), BlockLength: int64(len(resp))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// searchFor asks GET /api/search.
func searchFor(t testing.TB, h http.Handler, query string, extra ...string) (api.SearchResults, *http.Response) {
	t.Helper()
	w := do(t, h, req{method: "GET", path: "/api/search?q=" + url.QueryEscape(query) + strings.Join(extra, ""), token: "-"})
	wantStatus(t, w, http.StatusOK)
	var res api.SearchResults
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
		t.Fatalf("%s: %v", w.Body, err)
	}
	return res, w.Result()
}

func urlsOf(res api.SearchResults) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.URL)
	}
	return out
}

// upload PUTs a bundle or WARC and returns how many pages its answer says were
// indexed.
func upload(t testing.TB, h http.Handler, name string, body []byte, status int) int {
	t.Helper()
	w := do(t, h, req{method: "PUT", path: "/api/bundles/" + name, token: "-", body: body})
	wantStatus(t, w, status)
	var a struct {
		Search searchAnswer `json:"search"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || a.Search.Error != "" {
		t.Fatalf("upload of %s: %s (%v)", name, w.Body, err)
	}
	return a.Search.Pages
}

func TestTeamSearch(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	doku := sampleBundle(t, wikiWARC(t, 2024, dokuPages), true)
	if n := upload(t, s, "dokuwiki.zip", doku, http.StatusCreated); n != 4 {
		t.Errorf("the DokuWiki bundle: %d pages indexed, want 4", n)
	}
	// A bare WARC; its style sheet is no page.
	if n := upload(t, s, "mediawiki.warc.gz", wikiWARC(t, 2025, mediaPages), http.StatusCreated); n != 2 {
		t.Errorf("the MediaWiki WARC: %d pages indexed, want 2", n)
	}
	// A bundle without an index: the archive indexes its WARC, and its text.
	if n := upload(t, s, "noindex.zip", sampleBundle(t, wikiWARC(t, 2023, dokuPages[:1]), false), http.StatusCreated); n != 1 {
		t.Errorf("a bundle without index: %d pages indexed, want 1", n)
	}

	syntax, dokuwiki, version := dokuPages[0].url, dokuPages[1].url, mediaPages[1].url
	tests := []struct {
		query string
		first string // the best result
		total int    // -1: several
		not   string // a URL that must not be found
	}{
		{"monospaced", syntax, 2, ""},  // a word on one page (in two bundles)
		{"MONOSPACED", syntax, 2, ""},  // any case
		{"Laxstrom", version, 1, ""},   // "Laxström": diacritics folded; not in the style sheet
		{"dziewoński", version, 1, ""}, // as written
		{`"Andreas Gohr"`, "", 3, ""},  // a phrase on two pages, one of them twice
		{`"Gohr Andreas"`, "", 0, ""},  // its words in another order
		{`"Andreas Gohr" -monospaced`, dokuwiki, 1, ""},
		{`syntax -"Andreas Gohr" site:wiki.example`, dokuPages[2].url, 1, ""},
		{"watercolours", dokuPages[3].url, 1, ""},             // a JSON answer's strings
		{"watercolours method:post", dokuPages[3].url, 1, ""}, // its method, from the index
		{"watercolours method:get", "", 0, ""},
		{`"webkeep test wiki" site:mw.example`, "", 2, syntax},
		{"monospaced from:2024", syntax, 1, ""},
		{"sans-serif", "", 0, ""},  // a style sheet is not text
		{"syntax", syntax, -1, ""}, // on many pages, in the title of one
		{"version", version, -1, ""},
		{"monospaced session:mediawiki.warc.gz", "", 0, ""},
	}
	check := func(stage string) {
		t.Helper()
		for _, tt := range tests {
			res, _ := searchFor(t, s, tt.query)
			got := urlsOf(res)
			switch {
			case tt.total < 0 && len(got) < 2:
				t.Errorf("%s: %s: %d results %v, want several", stage, tt.query, res.Total, got)
			case tt.total >= 0 && (res.Total != tt.total || len(got) != tt.total):
				t.Errorf("%s: %s: %d results %v, want %d", stage, tt.query, res.Total, got, tt.total)
			case tt.first != "" && got[0] != tt.first:
				t.Errorf("%s: %s: %v, want %s first", stage, tt.query, got, tt.first)
			}
			if slices.Contains(got, tt.not) {
				t.Errorf("%s: %s: found %s", stage, tt.query, tt.not)
			}
		}
	}
	check("as uploaded")

	res, resp := searchFor(t, s, "monospaced", "&session=dokuwiki.zip")
	if res.Total != 1 {
		t.Fatalf("session=dokuwiki.zip: %+v", res)
	}
	r := res.Results[0]
	if r.Session != "dokuwiki.zip" || r.URL != syntax || r.Title != "wiki:syntax [webkeep test wiki]" || r.TS != "20240301120000" ||
		r.Status != 200 || r.Mime != "text/html" || r.Method != "GET" || !strings.Contains(r.Snippet, "«monospaced»") {
		t.Errorf("result: %+v", r)
	}
	if reads := resp.Header.Get("X-Search-Reads"); !strings.HasPrefix(reads, "segments=3, stores=1, blobs=") {
		t.Errorf("X-Search-Reads: %q", reads)
	}
	if res, _ := searchFor(t, s, "Andreas", "&limit=1"); len(res.Results) != 1 || res.Total < 2 {
		t.Errorf("limit=1: %d results of %d", len(res.Results), res.Total)
	}

	// Merged (as the queue does), the answers are the same.
	w := do(t, s, req{method: "POST", path: "/api/index/compact?shard=search", token: "-"})
	wantStatus(t, w, http.StatusOK)
	check("merged")

	// Replaced: the old upload's pages are gone, the new ones found.
	upload(t, s, "dokuwiki.zip?overwrite=1", sampleBundle(t, wikiWARC(t, 2026, dokuPages), true), http.StatusOK)
	if res, _ := searchFor(t, s, "monospaced", "&session=dokuwiki.zip"); res.Total != 1 || res.Results[0].TS != "20260301120000" {
		t.Errorf("after a replacement: %+v", res)
	}
	// Deleted: gone.
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/bundles/dokuwiki.zip", token: "-"}), http.StatusNoContent)
	wantStatus(t, do(t, s, req{method: "DELETE", path: "/api/bundles/noindex.zip", token: "-"}), http.StatusNoContent)
	if res, _ := searchFor(t, s, "monospaced"); res.Total != 0 {
		t.Errorf("after deletes: %v", urlsOf(res))
	}
	if res, _ := searchFor(t, s, "Laxstrom"); res.Total != 1 {
		t.Errorf("after deletes, the other bundle: %v", urlsOf(res))
	}
	// And after the merge that drops their pages.
	wantStatus(t, do(t, s, req{method: "POST", path: "/api/index/compact?shard=search", token: "-"}), http.StatusOK)
	if res, _ := searchFor(t, s, `"Andreas Gohr" OR Laxstrom`); res.Total != 0 {
		t.Errorf("after deletes and a merge: %v", urlsOf(res))
	}
	if res, _ := searchFor(t, s, "Laxstrom"); res.Total != 1 {
		t.Errorf("after deletes and a merge, the other bundle: %v", urlsOf(res))
	}
}

func TestTeamSearchRejects(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	for _, tt := range []struct {
		path, token string
		status      int
	}{
		{"/api/search?q=", "-", http.StatusBadRequest},
		{"/api/search?q=%22open", "-", http.StatusBadRequest},
		{"/api/search?q=a&limit=0", "-", http.StatusBadRequest},
		{"/api/search?q=a&limit=1001", "-", http.StatusBadRequest},
		{"/api/search?q=a&session=..", "-", http.StatusBadRequest},
		{"/api/search?q=a", "", http.StatusUnauthorized},
		{"/api/search?q=a", "wrong", http.StatusUnauthorized},
		{"/api/search?q=a", "-", http.StatusOK},
	} {
		w := do(t, s, req{method: "GET", path: tt.path, token: tt.token})
		if w.Code != tt.status {
			t.Errorf("%s (token %q): %d %s, want %d", tt.path, tt.token, w.Code, w.Body, tt.status)
		}
	}
	w := do(t, s, req{method: "POST", path: "/api/search?q=a", token: "-"})
	wantStatus(t, w, http.StatusMethodNotAllowed)
	// With public reads, no token is needed.
	p, _ := newTestServer(t, Config{PublicReads: true})
	wantStatus(t, do(t, p, req{method: "GET", path: "/api/search?q=a"}), http.StatusOK)
}

// bundleKeys are the bucket's keys but the full-text index's segments (search/):
// what the tests of uploads count.
func bundleKeys(b *MemBucket) []string {
	var out []string
	for _, k := range b.Keys() {
		if !strings.HasPrefix(k, "search/") {
			out = append(out, k)
		}
	}
	return out
}

func TestTextRanges(t *testing.T) {
	pages := func(spans ...int64) []textPage { // offset, length pairs
		var out []textPage
		for i := 0; i < len(spans); i += 2 {
			out = append(out, textPage{offset: spans[i], length: spans[i+1]})
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		pages []textPage
		reads int
		want  [][2]int64 // spans
	}{
		{"one", pages(10, 5), 4, [][2]int64{{10, 15}}},
		{"neighbours together", pages(0, 100, 200, 100, 1<<20, 10), 4, [][2]int64{{0, 300}, {1 << 20, 1<<20 + 10}}},
		{"far apart", pages(0, 10, 1<<20, 10, 2<<20, 10), 4, [][2]int64{{0, 10}, {1 << 20, 1<<20 + 10}, {2 << 20, 2<<20 + 10}}},
		{"too many: the smallest gaps merged", pages(0, 10, 1<<20, 10, 3<<20, 10, 4<<20, 10), 2, [][2]int64{{0, 1<<20 + 10}, {3 << 20, 4<<20 + 10}}},
		{"one read", pages(0, 10, 1<<20, 10, 3<<20, 10), 1, [][2]int64{{0, 3<<20 + 10}}},
	} {
		got := textRanges(tt.pages, tt.reads)
		var spans [][2]int64
		n := 0
		for _, r := range got {
			spans = append(spans, [2]int64{r.off, r.end})
			n += len(r.pages)
		}
		if !slices.Equal(spans, tt.want) || n != len(tt.pages) {
			t.Errorf("%s: %v (%d pages), want %v", tt.name, spans, n, tt.want)
		}
	}
}

// FuzzTextPages reads arbitrary index lines: the pages picked lie in the spans
// read, each once, in at most the reads allowed.
func FuzzTextPages(f *testing.F) {
	f.Add([]byte(`com,example)/ 20240102030405 {"url": "http://example.com/", "mime": "text/html", "status": "200", "length": "317", "offset": "468", "filename": "a.warc.gz"}`+"\n"), 3)
	f.Add([]byte("x 1 {\"mime\": \"text/plain\", \"offset\": \"-1\", \"length\": \"9\", \"filename\": \"f\"}\n"), 1)
	f.Fuzz(func(t *testing.T, index []byte, reads int) {
		reads = 1 + (reads&0xff)%64
		pages, _ := textPages(index)
		for file, ps := range pages {
			rs := textRanges(ps, reads)
			if len(rs) > reads {
				t.Fatalf("%s: %d spans for %d reads", file, len(rs), reads)
			}
			n := 0
			for _, r := range rs {
				for _, p := range r.pages {
					if p.offset < r.off || p.offset+p.length > r.end || p.length <= 0 {
						t.Fatalf("%s: page %+v outside its span %d-%d", file, p, r.off, r.end)
					}
				}
				n += len(r.pages)
			}
			if n != len(ps) {
				t.Fatalf("%s: %d pages in spans, %d picked", file, n, len(ps))
			}
		}
	})
}

// BenchmarkUploadText extracts and indexes the text of a bundle of 100 real
// wiki pages (the five of testdata/wiki, 20 times each), as an upload does
// before it is listed: ms/page is the CPU it adds to an upload, natively.
func BenchmarkUploadText(b *testing.B) {
	var pages []wikiPage
	for i := range 100 {
		p := dokuPages[i%3]
		if i%5 >= 3 {
			p = mediaPages[i%5-3]
		}
		p.url += fmt.Sprintf("&copy=%d", i)
		pages = append(pages, p)
	}
	data := wikiWARC(b, 2024, pages)
	s, bucket := newTestServer(b, Config{})
	e := &bundleEntry{BundleInfo: BundleInfo{Name: "wiki.warc.gz", Size: int64(len(data))}, DataKey: "data/wiki.warc.gz/u1"}
	if _, err := bucket.Put(b.Context(), e.DataKey, bytes.NewReader(data), int64(len(data)), PutOptions{}); err != nil {
		b.Fatal(err)
	}
	index, err := s.indexUpload(b.Context(), e)
	if err != nil {
		b.Fatal(err)
	}
	var text int
	for i := 0; b.Loop(); i++ {
		docs, _, err := s.textDocs(b.Context(), e, index)
		if err != nil || len(docs) != 100 {
			b.Fatalf("%d pages, %v", len(docs), err)
		}
		if _, err := s.search.Add(b.Context(), fmt.Sprintf("u%d", i), docs); err != nil {
			b.Fatal(err)
		}
		text = 0
		for _, d := range docs {
			text += len(d.Text)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/100, "ms/page")
	b.ReportMetric(float64(text)/100, "text-B/page")
}

// The pages an index names are cut at maxTextPages, records over maxTextRecord
// left out, and both said; other media types are no pages.
func TestTextPagesLimits(t *testing.T) {
	var index bytes.Buffer
	line := func(i int, mime string, length int64) {
		fmt.Fprintf(&index, "com,example)/%d 20240101000000 {\"url\": \"http://example.com/%d\", \"mime\": %q, \"status\": \"200\", \"length\": \"%d\", \"offset\": \"%d\", \"filename\": \"a.warc.gz\"}\n", i, i, mime, length, i*1000)
	}
	for i := range 10 {
		line(i, "image/png", 100)
	}
	line(10, "text/html", maxTextRecord+1)
	pages, cut := textPages(index.Bytes())
	if len(pages) != 0 || !cut {
		t.Errorf("images and a record too large: %d files, cut %v", len(pages), cut)
	}
	index.Reset()
	for i := range maxTextPages {
		line(i, "text/html", 100)
	}
	if pages, cut := textPages(index.Bytes()); len(pages["a.warc.gz"]) != maxTextPages || cut {
		t.Errorf("%d pages: %d, cut %v", maxTextPages, len(pages["a.warc.gz"]), cut)
	}
	line(maxTextPages, "application/json", 100)
	if pages, cut := textPages(index.Bytes()); len(pages["a.warc.gz"]) != maxTextPages || !cut {
		t.Errorf("%d pages: %d, cut %v", maxTextPages+1, len(pages["a.warc.gz"]), cut)
	}
}
