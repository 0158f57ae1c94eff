package capture

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/warc"
)

// wikiPages are real pages of Debian's DokuWiki and MediaWiki (testdata/wiki), by
// the URL they are archived at.
var wikiPages = map[string]string{
	"http://wiki.example/doku.php?id=wiki:syntax":          "dokuwiki-wiki-syntax.html",
	"http://wiki.example/doku.php?id=wiki:dokuwiki":        "dokuwiki-wiki-dokuwiki.html",
	"http://wiki.example/doku.php?id=wiki:welcome":         "dokuwiki-wiki-welcome.html",
	"http://mw.example/index.php?title=Main_Page":          "mediawiki-Main_Page.html",
	"http://mw.example/index.php?title=Special:Version":    "mediawiki-Special-Version.html",
	"http://mw.example/load.php?modules=site.styles&only=": "",
}

// wikiWARC writes the wiki pages as responses of a WARC/1.1 file, and a style
// sheet (no text to index) and a JSON answer.
func wikiWARC(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V11, Gzip: true, MaxBuffer: 1 << 30})
	add := func(u, ct string, body []byte) {
		block := append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ct, len(body))), body...)
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: u, ContentType: "application/http; msgtype=response",
			Block: bytes.NewReader(block), BlockLength: int64(len(block))}); err != nil {
			t.Fatal(err)
		}
	}
	for u, name := range wikiPages {
		if name == "" {
			add(u, "text/css", []byte("body { font-family: sans-serif } /* Laxström */"))
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "wiki", name))
		if err != nil {
			t.Fatal(err)
		}
		add(u, "text/html; charset=utf-8", b)
	}
	add("http://mw.example/api.php?action=query", "application/json", []byte(`{"query":{"pages":[{"title":"Aquarelle","extract":"a painting in watercolours"}]}}`))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// searchFor asks GET /api/search and fails the test unless it answers 200.
func searchFor(t *testing.T, h http.Handler, query string, params ...string) api.SearchResults {
	t.Helper()
	path := "/api/search?q=" + url.QueryEscape(query) + strings.Join(params, "")
	var res api.SearchResults
	if rec := send(t, h, "GET", path, "", nil, &res); rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return res
}

func urlsOf(res api.SearchResults) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.URL)
	}
	return out
}

func TestSearchFindsImportedWikiPages(t *testing.T) {
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	info, err := svc.archive.importBody(context.Background(), "wikis.warc.gz", bytes.NewReader(wikiWARC(t)))
	if err != nil {
		t.Fatal(err)
	}
	syntax, dokuwiki, version := "http://wiki.example/doku.php?id=wiki:syntax", "http://wiki.example/doku.php?id=wiki:dokuwiki", "http://mw.example/index.php?title=Special:Version"
	tests := []struct {
		query string
		first string // the best result
		total int    // -1: any number but 0
		not   string // a URL that must not be found
	}{
		{"monospaced", syntax, 1, ""},                   // a word on one page
		{"MONOSPACED", syntax, 1, ""},                   // any case
		{"Laxstrom", version, 1, ""},                    // "Laxström": diacritics folded; not in the style sheet
		{"dziewoński", version, 1, ""},                  // as written
		{`"Andreas Gohr"`, "", 2, ""},                   // a phrase on two pages
		{`"Gohr Andreas"`, "", 0, ""},                   // its words in another order
		{`"Andreas Gohr" -monospaced`, dokuwiki, 1, ""}, // the other page that names him
		{`syntax -"Andreas Gohr" site:wiki.example`, "http://wiki.example/doku.php?id=wiki:welcome", 1, ""},
		{"watercolours", "http://mw.example/api.php?action=query", 1, ""}, // a JSON answer's strings
		{`"webkeep test wiki" site:mw.example`, "", 2, syntax},
		{"sans-serif", "", 0, ""}, // a style sheet is not text
	}
	for _, tt := range tests {
		res := searchFor(t, h, tt.query)
		got := urlsOf(res)
		switch {
		case tt.total >= 0 && res.Total != tt.total:
			t.Errorf("%s: %d results %v, want %d", tt.query, res.Total, got, tt.total)
		case tt.total < 0 && res.Total == 0:
			t.Errorf("%s: nothing found", tt.query)
		case tt.first != "" && (len(got) == 0 || got[0] != tt.first):
			t.Errorf("%s: %v, want %s first", tt.query, got, tt.first)
		}
		for _, u := range got {
			if u == tt.not {
				t.Errorf("%s: found %s", tt.query, u)
			}
		}
	}

	res := searchFor(t, h, "monospaced")
	r := res.Results[0]
	if r.Session != info.ID || r.SessionName != "wikis.warc.gz" || r.Title != "wiki:syntax [webkeep test wiki]" || r.Status != 200 || r.Mime != "text/html" || r.Method != "GET" || len(r.TS) != 14 {
		t.Errorf("result: %+v", r)
	}
	if !strings.Contains(r.Snippet, "«monospaced»") {
		t.Errorf("snippet %q does not mark the word", r.Snippet)
	}
	if want := "replay.html?session=" + info.ID + "&ts=" + r.TS + "&url=" + url.QueryEscape(syntax); r.Replay != want {
		t.Errorf("replay link %q, want %q", r.Replay, want)
	}

	// A second session: both are searched, or the one named; deleted, it is gone.
	other, err := svc.archive.importBody(context.Background(), "again.warc.gz", bytes.NewReader(wikiWARC(t)))
	if err != nil {
		t.Fatal(err)
	}
	if res := searchFor(t, h, "monospaced"); res.Total != 2 {
		t.Errorf("two sessions: %d results", res.Total)
	}
	if res := searchFor(t, h, "monospaced", "&session="+other.ID); res.Total != 1 || res.Results[0].Session != other.ID {
		t.Errorf("session=%s: %+v", other.ID, res)
	}
	if rec := send(t, h, "DELETE", "/api/sessions/"+info.ID, "", nil, nil); rec.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	res = searchFor(t, h, `"Andreas Gohr"`)
	if res.Total != 2 {
		t.Errorf("after a delete: %d results, want the 2 of the other session", res.Total)
	}
	for _, r := range res.Results {
		if r.Session != other.ID {
			t.Errorf("after a delete: a result of session %s", r.Session)
		}
	}

	// A new service over the same store (a restarted service worker) has the index.
	svc2, err := NewService(svc.store, newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	if res := searchFor(t, nethttp.Handler(svc2.Handler()), "laxstrom"); res.Total != 1 || res.Results[0].Session != other.ID {
		t.Errorf("after a restart: %+v", res)
	}
}

// recordPage records http://example.org/, whose body is body, through the API
// and the browser's events, as TestServiceRecordsThroughTheAPI does; recording
// goes on.
func recordPage(t *testing.T, body string) (*Service, http.Handler, SessionInfo) {
	t.Helper()
	return recordPageWith(t, func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			return map[string]any{"body": body}, nil
		}
		return map[string]any{}, nil
	})
}

// recordPageWith is recordPage with a browser that answers commands with answer.
func recordPageWith(t *testing.T, answer func(method string, p map[string]any) (any, error)) (*Service, http.Handler, SessionInfo) {
	t.Helper()
	host := newFakeHost()
	host.Answer = answer
	svc, err := NewService(NewMemStore(), host)
	if err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	var info SessionInfo
	do(t, h, "POST", "/api/record/start?tab=5", &info)
	for _, ev := range []struct{ method, params string }{
		{"Page.frameNavigated", `{"frame":{"id":"F","url":"http://example.org/"}}`},
		{"Network.requestWillBeSent", `{"requestId":"1","request":{"url":"http://example.org/","method":"GET","headers":{}}}`},
		{"Network.responseReceived", `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`},
		{"Network.loadingFinished", `{"requestId":"1"}`},
	} {
		svc.Event(context.Background(), recorder.Target{TabID: 5}, ev.method, json.RawMessage(ev.params), nil)
	}
	return svc, h, info
}

func TestSearchFindsARecordedPage(t *testing.T) {
	_, h, info := recordPage(t, "<title>Kettle</title><p>The Zürich kettle whistles.</p>")
	// Found while the session is recorded, and after.
	// (The recorder hands the exchange on once it has waited for the headers the
	// browser may still send.)
	var res api.SearchResults
	for deadline := time.Now().Add(10 * time.Second); res.Total == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		res = searchFor(t, h, "zurich")
	}
	if res.Total != 1 || res.Results[0].Title != "Kettle" || res.Results[0].URL != "http://example.org/" {
		t.Errorf("while recording: %+v", res)
	}
	do(t, h, "POST", "/api/record/stop", &info)
	if res := searchFor(t, h, "kettle whistles"); res.Total != 1 {
		t.Errorf("after stop: %+v", res)
	}
}

// A page is listed with the title of its capture, which the browser did not know
// when it named the page, in the pages API and in the WACZ.
func TestPagesHaveTheTitlesOfTheirCaptures(t *testing.T) {
	_, h, info := recordPage(t, "<html><head><title>Der Zürichsee</title></head><body>Wasser</body></html>")
	do(t, h, "POST", "/api/record/stop", &info)
	var pages []api.Page
	do(t, h, "GET", "/api/sessions/"+info.ID+"/pages", &pages)
	if len(pages) != 1 || pages[0].Title != "Der Zürichsee" {
		t.Errorf("pages: %+v", pages)
	}
	rec := do(t, h, "GET", "/api/sessions/"+info.ID+"/wacz", nil)
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatalf("WACZ: %v (%d %s)", err, rec.Code, rec.Body.Bytes()[:min(200, rec.Body.Len())])
	}
	f, err := zr.Open("pages/pages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	if !strings.Contains(string(b), `"title":"Der Zürichsee"`) {
		t.Errorf("pages.jsonl:\n%s", b)
	}
}

func TestSearchRefusesBadQueries(t *testing.T) {
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	for _, path := range []string{
		"/api/search?q=",
		"/api/search?q=" + url.QueryEscape(`"unclosed`),
		"/api/search?q=status:abc",
		"/api/search?q=word&limit=0",
		"/api/search?q=word&limit=x",
	} {
		rec := send(t, h, "GET", path, "", nil, nil)
		var e struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != http.StatusBadRequest || e.Error == "" {
			t.Errorf("%s: %d %s, want 400 with an error", path, rec.Code, rec.Body)
		}
	}
}

// The index reads sessions in slices: past its deadline it stops after the chunk
// it is reading, says it is not done, and goes on from there the next time; a
// search then says the index is still reading.
func TestSearchIndexesInSlices(t *testing.T) {
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := svc.archive.importBody(context.Background(), fmt.Sprintf("w%d.warc.gz", i), bytes.NewReader(wikiWARC(t))); err != nil {
			t.Fatal(err)
		}
	}
	slices := 0
	for done := false; !done; slices++ {
		if done, err = svc.search.catchUp(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if slices > 100 {
			t.Fatal("the index never caught up")
		}
	}
	if slices < 2 {
		t.Errorf("caught up in %d slice, past its deadline", slices)
	}
	if res := searchFor(t, nethttp.Handler(svc.Handler()), "monospaced"); res.Total != 3 || res.Indexing {
		t.Errorf("after the slices: %+v", res)
	}
}

// indexedWiki is a service over store with the wiki's WARC imported and every
// page of it indexed.
func indexedWiki(t *testing.T, store Store) *Service {
	t.Helper()
	svc, err := NewService(store, newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.archive.importBody(context.Background(), "w.warc.gz", bytes.NewReader(wikiWARC(t))); err != nil {
		t.Fatal(err)
	}
	if done, err := svc.search.catchUp(time.Time{}); err != nil || !done {
		t.Fatalf("catching up at once: done %v, %v", done, err)
	}
	return svc
}

// An import's CDX lines come in chunks of thousands: a slice stops within one (a
// search waits no longer than a slice for the index), and the next, or the
// next start of the service, goes on from there, indexing no page twice.
func TestSearchStopsWithinAChunk(t *testing.T) {
	pages := indexedWiki(t, NewMemStore()).search.ix.Len()

	store := NewMemStore()
	svc, err := NewService(store, newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.archive.importBody(context.Background(), "w.warc.gz", bytes.NewReader(wikiWARC(t))); err != nil {
		t.Fatal(err)
	}
	slices := 0
	for done := false; !done; slices++ {
		if slices == 2 { // the service worker restarts
			if svc, err = NewService(store, newFakeHost()); err != nil {
				t.Fatal(err)
			}
		}
		if done, err = svc.search.catchUp(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if slices > 100 {
			t.Fatal("the index never caught up")
		}
	}
	if slices < pages {
		t.Errorf("%d pages indexed in %d slices past their deadline, want a page a slice", pages, slices)
	}
	if n := svc.search.ix.Len(); n != pages {
		t.Errorf("%d documents indexed, want %d: a page indexed twice or never", n, pages)
	}
	if res := searchFor(t, nethttp.Handler(svc.Handler()), "monospaced"); res.Total != 1 || res.Indexing {
		t.Errorf("after the slices: %+v", res)
	}
}

// A read mark that does not say how far the index read a session (a store
// damaged, or written by a later version) has the session indexed again from
// its start, the pages it held of it dropped first: none is indexed twice, and
// the recording says so.
func TestSearchBadReadMark(t *testing.T) {
	store := NewMemStore()
	svc := indexedWiki(t, store)
	pages := svc.search.ix.Len()
	keys, err := store.Keys(searchReadKeys)
	if err != nil || len(keys) != 1 {
		t.Fatalf("read marks %v, %v", keys, err)
	}
	for _, mark := range []string{"seven", "3:x", "-1", ""} {
		if err := store.Put(keys[0], []byte(mark)); err != nil {
			t.Fatal(err)
		}
		var notes []string
		svc.search.note = func(s string) { notes = append(notes, s) }
		if done, err := svc.search.catchUp(time.Time{}); err != nil || !done {
			t.Fatalf("mark %q: catching up: done %v, %v", mark, done, err)
		}
		if n := svc.search.ix.Len(); n != pages {
			t.Errorf("mark %q: %d pages indexed, want %d", mark, n, pages)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "indexed again") {
			t.Errorf("mark %q: notes %q", mark, notes)
		}

		if res := searchFor(t, nethttp.Handler(svc.Handler()), "monospaced"); res.Total != 1 {
			t.Errorf("mark %q: %+v", mark, res)
		}
	}
	// A session with nothing written yet, its mark damaged: said once, not at
	// every catch-up.
	empty, err := svc.sessions.create("empty", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Put(searchReadKeys+empty.info.ID, []byte("seven")); err != nil {
		t.Fatal(err)
	}
	var notes []string
	svc.search.note = func(s string) { notes = append(notes, s) }
	for range 3 {
		if _, err := svc.search.catchUp(time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(notes) != 1 {
		t.Errorf("an empty session's damaged mark: notes %q, want one", notes)
	}
}

// While a tab is recorded, the index reads in short slices, paused as long between
// them while the tab's events come, so that the recorder's events wait little for
// it; otherwise in long ones.
func TestSearchSlicesAreShortWhileRecording(t *testing.T) {
	svc, h, info := recordPageWith(t, func(string, map[string]any) (any, error) { return map[string]any{}, nil })
	svc.Event(context.Background(), recorder.Target{TabID: 5}, "Page.loadEventFired", json.RawMessage(`{"timestamp":1}`), nil)
	svc.do(func() {})
	if recording, active := svc.search.recording(); !recording || !active {
		t.Errorf("an event just now: recording %v, active %v", recording, active)
	}
	if slice, _ := svc.search.slice(); slice != searchSliceRecording {
		t.Errorf("recording: slices of %v, want %v", slice, searchSliceRecording)
	}
	svc.mu.Lock()
	svc.lastEventAt = time.Now().Add(-searchQuiet)
	svc.mu.Unlock()
	if recording, active := svc.search.recording(); !recording || active {
		t.Errorf("quiet: recording %v, active %v", recording, active)
	}
	if slice, _ := svc.search.slice(); slice != searchSliceRecording {
		t.Errorf("recording, quiet: slices of %v, want %v", slice, searchSliceRecording)
	}
	do(t, h, "POST", "/api/record/stop", &info)
	if slice, _ := svc.search.slice(); slice != searchSlice {
		t.Errorf("not recording: slices of %v, want %v", slice, searchSlice)
	}
}
