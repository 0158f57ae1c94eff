package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/cdxserver"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/warc"
)

// teamExchange is one recorded request and its response, for a team archive's bundle.
type teamExchange struct {
	at     string // 14-digit time
	method string
	url    string
	ctype  string // of the request body
	body   string // request body
	resp   string // the response's HTTP message
	stream bool   // a block that cannot be read twice: a large one is written in segments
}

// teamBundle is one bundle of the fake team archive: its WARC and its CDXJ lines.
type teamBundle struct {
	name, file, upload string
	warc               []byte
	lines              []string
}

// writeTeamBundle writes exchanges as the recorder does (the response, then its
// request) to a gzip WARC of version v, with dedup against what dedup has seen (a
// payload seen in another bundle makes a revisit that refers to it), and indexes it
// as the team archive does (shared/cdx, pywb 2.6.7).
func writeTeamBundle(t testing.TB, name string, v warc.Version, dedup *warc.Deduper, exs []teamExchange) *teamBundle {
	t.Helper()
	b := &teamBundle{name: name + ".zip", file: name + ".warc.gz", upload: "up-" + name}
	var file bytes.Buffer
	w := warc.NewWriter(&file, warc.WriterOptions{Version: v, Gzip: true, Dedup: dedup, MaxBuffer: 64 << 10})
	for i, ex := range exs {
		date, err := time.Parse("20060102150405", ex.at)
		if err != nil {
			t.Fatal(err)
		}
		var block io.Reader = strings.NewReader(ex.resp)
		if ex.stream {
			block = io.MultiReader(block)
		}
		id := fmt.Sprintf("urn:uuid:%08x-0000-4000-8000-%012d", len(name), i)
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeResponse, TargetURI: ex.url, Date: date, ID: id,
			ContentType: "application/http; msgtype=response", Block: block, BlockLength: int64(len(ex.resp))}); err != nil {
			t.Fatal(err)
		}
		req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: example.org\r\n", ex.method, strings.TrimPrefix(ex.url, "http://example.org"))
		if ex.body != "" {
			req += fmt.Sprintf("Content-Type: %s\r\nContent-Length: %d\r\n", ex.ctype, len(ex.body))
		}
		req += "\r\n" + ex.body
		if _, err := w.WriteRecord(&warc.Record{Type: warc.TypeRequest, TargetURI: ex.url, Date: date,
			ContentType: "application/http; msgtype=request", Header: warc.Header{{Name: warc.FieldRelatedRecordID, Value: id}},
			Block: strings.NewReader(req), BlockLength: int64(len(req))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b.warc = file.Bytes()
	ix := &cdx.Indexer{Dialect: cdx.Pywb267}
	if err := ix.Index(bytes.NewReader(b.warc), b.file, func(e *cdx.Entry) error {
		line := strings.TrimSuffix(string(e.AppendLine(nil, cdx.Pywb267)), "\n")
		// The merged index tags each line with its upload (mergedindex.Tag).
		b.lines = append(b.lines, strings.TrimSuffix(line, "}")+`, "upload": "`+b.upload+`"}`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeTeam is a team archive on 127.0.0.1 that answers as the Worker does: CDX
// queries (shared/cdxserver's, over the bundles' lines, each with its source) and
// the bundles' files by Range. It logs the requests it gets.
type fakeTeam struct {
	*httptest.Server
	token    string
	noRange  bool // answer the whole file, as the Worker does a member stored deflated
	oneRange bool // answer a Range of several ranges with the whole file, as the Worker did before it answered in parts
	mu       sync.Mutex
	bundles  map[string]*teamBundle
	log      []string // "cdx <query>" or "file <bundle>/<file> <range>"
}

func newFakeTeam(t testing.TB, token string, bundles ...*teamBundle) *fakeTeam {
	ft := &fakeTeam{token: token, bundles: map[string]*teamBundle{}}
	for _, b := range bundles {
		ft.bundles[b.name] = b
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/cdx", func(w http.ResponseWriter, r *http.Request) {
		ft.note("cdx " + r.URL.RawQuery)
		q, err := cdxserver.ParseQuery(r.URL.Query(), 10000)
		if err != nil {
			teamFail(w, http.StatusBadRequest, err.Error())
			return
		}
		var lines []cdxserver.Line
		ft.mu.Lock()
		for _, b := range ft.bundles {
			for _, l := range b.lines {
				lines = append(lines, cdxserver.Line{Text: []byte(l), Source: b.name})
			}
		}
		ft.mu.Unlock()
		slices.SortFunc(lines, cdxserver.Compare)
		if q.Descending() {
			slices.Reverse(lines)
		}
		var seq iter.Seq2[cdxserver.Line, error] = func(yield func(cdxserver.Line, error) bool) {
			for _, l := range lines {
				if !yield(l, nil) {
					return
				}
			}
		}
		w.Header().Set("Content-Type", "text/x-ndjson")
		if err := q.Answer(w, seq); err != nil {
			teamFail(w, http.StatusInternalServerError, err.Error())
		}
	})
	mux.HandleFunc("GET /api/bundles/{name}", func(w http.ResponseWriter, r *http.Request) {
		ft.note("index " + r.PathValue("name") + " " + r.URL.RawQuery)
		ft.mu.Lock()
		b := ft.bundles[r.PathValue("name")]
		ft.mu.Unlock()
		if b == nil || !r.URL.Query().Has("cdxj") {
			teamFail(w, http.StatusNotFound, "no bundle "+r.PathValue("name"))
			return
		}
		lines := slices.Sorted(slices.Values(b.lines))
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	})
	mux.HandleFunc("GET /api/bundles/{name}/{file}", func(w http.ResponseWriter, r *http.Request) {
		ft.note(fmt.Sprintf("file %s/%s %s", r.PathValue("name"), r.PathValue("file"), r.Header.Get("Range")))
		ft.mu.Lock()
		b := ft.bundles[r.PathValue("name")]
		ft.mu.Unlock()
		if b == nil || b.file != r.PathValue("file") {
			teamFail(w, http.StatusNotFound, "no bundle "+r.PathValue("name"))
			return
		}
		if ft.noRange || (ft.oneRange && strings.Contains(r.Header.Get("Range"), ",")) {
			w.Write(b.warc)
			return
		}
		http.ServeContent(w, r, b.file, time.Time{}, bytes.NewReader(b.warc))
	})
	ft.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+ft.token {
			teamFail(w, http.StatusUnauthorized, "unknown token")
			return
		}
		mux.ServeHTTP(w, r)
	}))
	// A body a range answer kept open (replay's MaxKeptBodies) holds its request
	// past the test: its connection is cut rather than waited for.
	t.Cleanup(func() {
		ft.CloseClientConnections()
		ft.Close()
	})
	return ft
}

func teamFail(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func (ft *fakeTeam) note(s string) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.log = append(ft.log, s)
}

// take returns the requests logged since the last take.
func (ft *fakeTeam) take() []string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	out := ft.log
	ft.log = nil
	return out
}

// replace puts b in place of the bundle of its name, as uploaded anew (upload).
func (ft *fakeTeam) replace(b *teamBundle, upload string) {
	for i, l := range b.lines {
		b.lines[i] = strings.Replace(l, `"upload": "`+b.upload+`"`, `"upload": "`+upload+`"`, 1)
	}
	b.upload = upload
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.bundles[b.name] = b
}

func (ft *fakeTeam) remove(name string) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	b := ft.bundles[name]
	delete(ft.bundles, name)
	// The bundle's data is gone but its lines stay: an index that lags.
	ft.bundles["gone-"+name] = &teamBundle{name: b.name, file: "", lines: b.lines}
}

func teamOK(ctype, body string, extra ...string) string {
	h := ""
	for _, e := range extra {
		h += e + "\r\n"
	}
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: %s\r\n%sContent-Length: %d\r\n\r\n%s", ctype, h, len(body), body)
}

var teamLarge = strings.Repeat("0123456789abcdef", 20000) // 320 KB: segments of 64 KB

// teamFixture is two bundles: a's (WARC 0.9, as the extension writes) with pages,
// POSTs, a redirect, a style sheet and a record in segments; b's (WARC/1.1), later,
// with the same style sheet under its URL and another, both revisits whose payload
// is in a's.
func teamFixture(t testing.TB) (a, b *teamBundle) {
	dedup := warc.NewDeduper()
	a = writeTeamBundle(t, "webkeep-a", warc.V09, dedup, []teamExchange{
		{at: "20250101000000", method: "GET", url: "http://example.org/page", resp: teamOK("text/html", "<p>team page, January</p>")},
		{at: "20250201000000", method: "GET", url: "http://example.org/page", resp: teamOK("text/html", "<p>team page, February</p>")},
		{at: "20250101000001", method: "POST", url: "http://example.org/api/search", ctype: "application/x-www-form-urlencoded", body: "q=one", resp: teamOK("application/json", `{"hits":["one"]}`)},
		{at: "20250101000002", method: "POST", url: "http://example.org/api/search", ctype: "application/x-www-form-urlencoded", body: "q=two", resp: teamOK("application/json", `{"hits":["two"]}`)},
		{at: "20250101000003", method: "GET", url: "http://example.org/old", resp: "HTTP/1.1 301 Moved Permanently\r\nLocation: /page\r\nContent-Length: 0\r\n\r\n"},
		{at: "20250101000004", method: "GET", url: "http://example.org/style.css", resp: teamOK("text/css", "body{color:red}", "X-From: a")},
		{at: "20250101000005", method: "GET", url: "http://example.org/big.bin", resp: teamOK("application/octet-stream", teamLarge), stream: true},
		{at: "20250101000006", method: "GET", url: "http://example.org/data.js?v=2&_=1700000000", resp: teamOK("text/javascript", "var v=2")},
	})
	b = writeTeamBundle(t, "webkeep-b", warc.V11, dedup, []teamExchange{
		{at: "20250301000000", method: "GET", url: "http://example.org/style.css", resp: teamOK("text/css", "body{color:red}", "X-From: b")},
		{at: "20250301000001", method: "GET", url: "http://example.org/copy.css", resp: teamOK("text/css", "body{color:red}", "X-Copy: yes")},
	})
	for _, l := range b.lines {
		if strings.HasPrefix(l, "org,example)/style.css ") && !strings.Contains(l, `"warc/revisit"`) {
			t.Fatalf("b's style sheet is no revisit: %s", l)
		}
	}
	return a, b
}

// replayTeamService is a Service whose team archive is ft.
func replayTeamService(t testing.TB, ft *fakeTeam, token string) (*Service, http.Handler) {
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	if ft != nil {
		if _, err := svc.settings.update(Settings{HeaderPolicy: "redact", WARCVersion: "0.9", CDXDialect: "pywb-2.6.7", Agent: "webkeep", TeamEndpoint: ft.URL, TeamToken: token}); err != nil {
			t.Fatal(err)
		}
	}
	return svc, nethttp.Handler(svc.Handler())
}

// teamAnswer asks the team replay to answer a request, as replay.js does.
func teamAnswer(t testing.TB, h http.Handler, ts, method, u string, headers map[string]string, body string) (replay.Answer, string, *httptest.ResponseRecorder) {
	t.Helper()
	p := map[string]any{"method": method, "url": u, "headers": headers}
	if body != "" {
		p["postDataEntries"] = []map[string][]byte{{"bytes": []byte(body)}}
	}
	js, _ := json.Marshal(p)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/team/replay/answer?ts="+ts, bytes.NewReader(js)))
	if rec.Code != http.StatusOK {
		return replay.Answer{}, rec.Body.String(), rec
	}
	a, err := replay.ReadAnswer(httpmsg.Header(rec.Result().Header))
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	return a, rec.Body.String(), rec
}

func trHeader(a replay.Answer, name string) string {
	for _, f := range a.Headers {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

func TestTeamReplayAnswersFromTheTeamArchive(t *testing.T) {
	a, b := teamFixture(t)
	ft := newFakeTeam(t, "s3cret", a, b)
	_, h := replayTeamService(t, ft, "s3cret")
	var started map[string]any
	if rec := send(t, h, "POST", "/api/team/replay/start?url="+trEscape("http://example.org/page"), "", nil, &started); rec.Code != http.StatusOK {
		t.Fatalf("start: %d %s", rec.Code, rec.Body)
	}
	// The start asks nothing of the archive (the bar counts the captures later),
	// and has no count of its own.
	if name, _ := started["session"].(map[string]any)["name"].(string); !strings.Contains(name, ft.URL) {
		t.Errorf("start: %v", started)
	}
	if _, ok := started["captures"]; ok {
		t.Errorf("start: a count of captures: %v", started)
	}
	if asked := ft.take(); len(asked) != 0 {
		t.Errorf("the start asked the team archive: %q", asked)
	}
	var list []api.TeamCapture
	send(t, h, "GET", "/api/team/captures?limit=1000&url="+trEscape("http://example.org/page"), "", nil, &list)
	if len(list) != 2 {
		t.Errorf("the bar's count: %d captures of the page, want 2", len(list))
	}
	ft.take()

	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for _, tc := range []struct {
		name, ts, method, url string
		headers               map[string]string
		body                  string
		status                int
		want                  string
		wantHeader            [2]string
		approximate           bool
	}{
		{name: "the page nearest in time", ts: "20250105", method: "GET", url: "http://example.org/page", status: 200, want: "<p>team page, January</p>", wantHeader: [2]string{"Content-Type", "text/html"}},
		{name: "the page's other capture", ts: "20250131120000", method: "GET", url: "http://example.org/page", status: 200, want: "<p>team page, February</p>"},
		{name: "the latest without a time", method: "GET", url: "http://example.org/page", status: 200, want: "<p>team page, February</p>"},
		{name: "a POST by its body", method: "POST", url: "http://example.org/api/search", headers: form, body: "q=one", status: 200, want: `{"hits":["one"]}`},
		{name: "the other body, its own answer", method: "POST", url: "http://example.org/api/search", headers: form, body: "q=two", status: 200, want: `{"hits":["two"]}`},
		{name: "a redirect", method: "GET", url: "http://example.org/old", status: 301, wantHeader: [2]string{"Location", "/page"}},
		{name: "a revisit: its header, the payload of its original in another bundle", ts: "20250301", method: "GET", url: "http://example.org/style.css", status: 200, want: "body{color:red}", wantHeader: [2]string{"X-From", "b"}},
		{name: "the revisit's original itself", ts: "20250101", method: "GET", url: "http://example.org/style.css", status: 200, want: "body{color:red}", wantHeader: [2]string{"X-From", "a"}},
		{name: "a revisit of another URL's payload", method: "GET", url: "http://example.org/copy.css", status: 200, want: "body{color:red}", wantHeader: [2]string{"X-Copy", "yes"}},
		{name: "a record in segments", method: "GET", url: "http://example.org/big.bin", status: 200, want: teamLarge},
		{name: "a fuzzy match", method: "GET", url: "http://example.org/data.js?v=2&_=1800000000", status: 200, want: "var v=2", approximate: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ans, body, rec := teamAnswer(t, h, tc.ts, tc.method, tc.url, tc.headers, tc.body)
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, body)
			}
			if !ans.Archived || ans.Status != tc.status || ans.Approximate != tc.approximate {
				t.Errorf("answer %+v", ans)
			}
			if tc.want != "" && body != tc.want {
				t.Errorf("body %.200q, want %.200q", body, tc.want)
			}
			if n := tc.wantHeader[0]; n != "" && trHeader(ans, n) != tc.wantHeader[1] {
				t.Errorf("%s: %q in %+v", n, trHeader(ans, n), ans.Headers)
			}
			if trHeader(ans, "Content-Length") != "" {
				t.Errorf("the wire's Content-Length is answered: %+v", ans.Headers)
			}
			// Records are read by Range, exactly: a record in segments reads on.
			segmented := strings.HasSuffix(tc.url, "big.bin")
			readOn := false
			for _, l := range ft.take() {
				if f, ok := strings.CutPrefix(l, "file "); ok {
					if !strings.Contains(f, " bytes=") {
						t.Errorf("a record read without Range: %s", l)
					}
					if strings.HasSuffix(f, "-") {
						readOn = true
					}
				}
			}
			if readOn != segmented {
				t.Errorf("read on past the record's line: %v, want %v", readOn, segmented)
			}
		})
	}

	// A POST whose body DevTools gives without a Content-Length.
	ans, body, _ := teamAnswer(t, h, "", "POST", "http://example.org/api/search", map[string]string{"content-type": "application/x-www-form-urlencoded"}, "q=two")
	if !ans.Archived || body != `{"hits":["two"]}` {
		t.Errorf("POST without Content-Length: %+v %s", ans, body)
	}

	// A request the archive has no capture of gets the "not archived" page.
	ans, body, _ = teamAnswer(t, h, "", "GET", "http://example.org/never", nil, "")
	if ans.Archived || ans.Status != 404 || !strings.Contains(body, "webkeep-not-archived") || !strings.Contains(body, "in the team archive") {
		t.Errorf("not archived: %+v %s", ans, body)
	}
	var log map[string]json.RawMessage
	var view replay.LogView
	rec := send(t, h, "GET", "/api/team/replay/log", "", nil, &log)
	if err := json.Unmarshal(rec.Body.Bytes(), &view); err != nil {
		t.Fatalf("log: %v %s", err, rec.Body)
	}
	if _, counted := log["captures"]; counted || !slices.Equal(view.Missed, []string{"http://example.org/never"}) || len(view.Approximate) != 1 || view.Answered != 12 {
		t.Errorf("log: %+v", log)
	}
}

// A page's batch comes from the bundle that holds its capture: the page and the GET
// captures recorded after it up to the next page, read by Range from the bundle's
// WARC in one request, found in the bundle's own index, read once and kept, with no
// query of the merged index for each. A body larger than a batch takes (the record in segments) is left
// to be asked for by itself. A page the archive lacks has an empty batch.
func TestTeamReplayBatch(t *testing.T) {
	a, b := teamFixture(t)
	ft := newFakeTeam(t, "s3cret", a, b)
	_, h := replayTeamService(t, ft, "s3cret")
	var timing string // the last batch's Server-Timing
	batch := func(page, ts string) map[string]string {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/team/replay/batch?url="+trEscape(page)+"&ts="+ts, nil))
		timing = rec.Header().Get("Server-Timing")
		answers, bodies, err := replay.ReadBatch(rec.Body)
		if rec.Code != 200 || err != nil {
			t.Fatalf("batch of %s: %d %v", page, rec.Code, err)
		}
		got := map[string]string{}
		for i, a := range answers {
			got[a.URL] = fmt.Sprintf("%d %s %.100s", a.Status, a.Timestamp, bodies[i])
		}
		return got
	}
	ft.take()
	got := batch("http://example.org/page", "20250301")
	want := map[string]string{
		"http://example.org/page":                     "200 20250201000000 <p>team page, February</p>",
		"http://example.org/old":                      "301 20250101000003 ",
		"http://example.org/style.css":                "200 20250101000004 body{color:red}",
		"http://example.org/data.js?v=2&_=1700000000": "200 20250101000006 var v=2",
	}
	if !maps.Equal(got, want) {
		t.Errorf("the batch of February's page:\n%v\nwant\n%v", got, want)
	}
	count := func() (cdxQueries, indexes, files int) {
		for _, l := range ft.take() {
			switch kind, rest, _ := strings.Cut(l, " "); kind {
			case "cdx":
				cdxQueries++
			case "index":
				indexes++
				if rest != "webkeep-a.zip cdxj" {
					t.Errorf("index read: %s", l)
				}
			case "file":
				files++
				if !strings.HasPrefix(rest, "webkeep-a.zip/") || !strings.Contains(rest, " bytes=") {
					t.Errorf("a record read without Range, or from another bundle: %s", l)
				}
			}
		}
		return
	}
	// The records come in one Range request: the page's and those around it.
	if cdxQueries, indexes, files := count(); cdxQueries != 1 || indexes != 1 || files != 1 {
		t.Errorf("%d CDX queries (want 1: the page's), %d indexes read (want 1), %d Range requests (want 1)", cdxQueries, indexes, files)
	}
	// January's page, as of January: its own capture; the next page (February's)
	// ends its batch.
	if got := batch("http://example.org/page", "20250105"); len(got) != 1 || got["http://example.org/page"] != "200 20250101000000 <p>team page, January</p>" {
		t.Errorf("the batch of January's page: %v", got)
	}
	// The bundle's index is kept: not read again for another page of it, whose
	// records were read (guessed from it) as the merged index was asked.
	if cdxQueries, indexes, files := count(); cdxQueries != 1 || indexes != 0 || files != 1 {
		t.Errorf("another page of the bundle: %d CDX queries (want 1), its index read again %d times (want 0), %d Range requests (want 1)", cdxQueries, indexes, files)
	}
	if !strings.Contains(timing, "guess;desc=hit") || !strings.HasSuffix(timing, ", ranges;desc=1") {
		t.Errorf("another page of the bundle: its records not read as the merged index was asked, by one Range request (Server-Timing %q)", timing)
	}
	// A guess from the kept index that the merged index belies: the capture nearest to
	// March is b's, not the one a holds; b's is a revisit of a's, which b's batch
	// cannot take (its request is asked for by itself).
	if got := batch("http://example.org/style.css", "20250302"); len(got) != 0 {
		t.Errorf("the batch of b's style sheet: %v, want none (not a's)", got)
	}
	if !strings.Contains(timing, "guess;desc=miss") {
		t.Errorf("b's style sheet: the guess from a's index not said missed (Server-Timing %q)", timing)
	}
	if lines := ft.take(); !slices.Contains(lines, "index webkeep-b.zip cdxj") {
		t.Errorf("b's index not read for its style sheet: %q", lines)
	}
	if got := batch("http://example.org/never", ""); len(got) != 0 {
		t.Errorf("the batch of a page not archived: %v", got)
	}
	ft.take()
	// February's page again: its batch was kept; only the merged index is asked.
	if got := batch("http://example.org/page", "20250301"); !maps.Equal(got, want) {
		t.Errorf("the batch of February's page, kept:\n%v\nwant\n%v", got, want)
	}
	if cdxQueries, indexes, files := count(); cdxQueries != 1 || indexes != 0 || files != 0 {
		t.Errorf("a batch kept: %d CDX queries (want 1), %d indexes read (want 0), %d Range requests (want 0)", cdxQueries, indexes, files)
	}
	if !strings.Contains(timing, "guess;desc=kept") {
		t.Errorf("a batch kept: not said so (Server-Timing %q)", timing)
	}
	// The bundle uploaded again, with another February page: a new upload, whose
	// batch is read anew.
	a2 := writeTeamBundle(t, "webkeep-a", warc.V09, warc.NewDeduper(), []teamExchange{
		{at: "20250201000000", method: "GET", url: "http://example.org/page", resp: teamOK("text/html", "<p>team page, February, again</p>")},
	})
	ft.replace(a2, "up-webkeep-a-2")
	if got := batch("http://example.org/page", "20250301"); got["http://example.org/page"] != "200 20250201000000 <p>team page, February, again</p>" {
		t.Errorf("the batch of February's page uploaded again: %v", got)
	}
	if _, indexes, files := count(); indexes != 1 || files != 1 {
		t.Errorf("a bundle uploaded again: %d indexes read (want 1), %d Range requests (want 1)", indexes, files)
	}
}

// A page's batch whose records lie in two places of the bundle (a revisit's original
// recorded long before it) reads both by one request of two ranges, answered in parts;
// a team archive that answers such a request with the whole file (as its Worker did
// before) has the request closed at once and each range asked for by itself.
func TestTeamReplayBatchReadsRangesInParts(t *testing.T) {
	filler := make([]byte, 3*replay.BatchRangeGap) // incompressible: the gzip member stays as long
	rand.NewChaCha8([32]byte{1}).Read(filler)
	b := writeTeamBundle(t, "webkeep-parts", warc.V11, warc.NewDeduper(), []teamExchange{
		{at: "20250101000000", method: "GET", url: "http://example.org/style.css", resp: teamOK("text/css", "body{color:blue}")},
		{at: "20250101000001", method: "GET", url: "http://example.org/filler", resp: teamOK("text/html", string(filler))},
		{at: "20250102000000", method: "GET", url: "http://example.org/page", resp: teamOK("text/html", "<p>the page</p>")},
		{at: "20250102000001", method: "GET", url: "http://example.org/style.css", resp: teamOK("text/css", "body{color:blue}")},
	})
	want := map[string]string{
		"http://example.org/page":      "200 20250102000000 <p>the page</p>",
		"http://example.org/style.css": "200 20250102000001 body{color:blue}",
	}
	for _, oneRange := range []bool{false, true} {
		ft := newFakeTeam(t, "s3cret", b)
		ft.oneRange = oneRange
		_, h := replayTeamService(t, ft, "s3cret")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/team/replay/batch?url="+trEscape("http://example.org/page")+"&ts=20250102", nil))
		answers, bodies, err := replay.ReadBatch(rec.Body)
		if rec.Code != 200 || err != nil {
			t.Fatalf("batch: %d %v", rec.Code, err)
		}
		got := map[string]string{}
		for i, a := range answers {
			got[a.URL] = fmt.Sprintf("%d %s %s", a.Status, a.Timestamp, bodies[i])
		}
		if !maps.Equal(got, want) {
			t.Errorf("oneRange=%v: the batch\n%v\nwant\n%v", oneRange, got, want)
		}
		var ranges []string
		for _, l := range ft.take() {
			if rest, ok := strings.CutPrefix(l, "file "); ok {
				ranges = append(ranges, rest[strings.Index(rest, " ")+1:])
			}
		}
		switch {
		case !oneRange && (len(ranges) != 1 || strings.Count(ranges[0], ",") != 1):
			t.Errorf("the records read by %q, want one request of two ranges", ranges)
		case oneRange && (len(ranges) != 3 || strings.Count(ranges[0], ",") != 1 || strings.Contains(ranges[1]+ranges[2], ",")):
			t.Errorf("a team archive without parts: the records read by %q, want the request of two ranges, then one for each", ranges)
		}
		if wantRanges := map[bool]string{false: "ranges;desc=1", true: "ranges;desc=3"}[oneRange]; !strings.HasSuffix(rec.Header().Get("Server-Timing"), wantRanges) {
			t.Errorf("oneRange=%v: Server-Timing %q, want it to end %q", oneRange, rec.Header().Get("Server-Timing"), wantRanges)
		}
	}
}

// A bundle's file that takes no Range (a member stored deflated) is read whole,
// what comes before the record skipped.
func TestTeamReplayWithoutRange(t *testing.T) {
	a, b := teamFixture(t)
	ft := newFakeTeam(t, "s3cret", a, b)
	ft.noRange = true
	_, h := replayTeamService(t, ft, "s3cret")
	for u, want := range map[string]string{"http://example.org/style.css": "body{color:red}", "http://example.org/big.bin": teamLarge} {
		ans, body, rec := teamAnswer(t, h, "20250101", "GET", u, nil, "")
		if rec.Code != 200 || !ans.Archived || ans.Status != 200 || body != want {
			t.Errorf("%s: %d %+v %.100q", u, rec.Code, ans, body)
		}
	}
}

func trEscape(s string) string {
	return strings.NewReplacer("&", "%26", "?", "%3F", "=", "%3D").Replace(s)
}

func TestTeamReplayErrorsArePlain(t *testing.T) {
	a, b := teamFixture(t)
	ft := newFakeTeam(t, "s3cret", a, b)

	// No team archive set.
	_, h := replayTeamService(t, nil, "")
	for _, p := range []string{"/api/team/captures?url=http://example.org/page"} {
		if rec := send(t, h, "GET", p, "", nil, nil); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "options page") {
			t.Errorf("GET %s without a team: %d %s", p, rec.Code, rec.Body)
		}
	}
	if rec := send(t, h, "POST", "/api/team/replay/start?url=http://example.org/page", "", nil, nil); rec.Code != http.StatusConflict {
		t.Errorf("start without a team: %d %s", rec.Code, rec.Body)
	}

	// A wrong token: the request is not answered, and the error says why.
	_, h = replayTeamService(t, ft, "wrong")
	if _, body, rec := teamAnswer(t, h, "", "GET", "http://example.org/page", nil, ""); rec.Code != http.StatusBadGateway || !strings.Contains(body, "refused the token") {
		t.Errorf("wrong token: %d %s", rec.Code, body)
	}

	_, h = replayTeamService(t, ft, "s3cret")
	for _, q := range []string{"?ts=2025x", "?url=&ts=2025"} {
		if rec := send(t, h, "POST", "/api/team/replay/start"+q, "", nil, nil); rec.Code != http.StatusBadRequest {
			t.Errorf("start%s: %d %s", q, rec.Code, rec.Body)
		}
	}
	if rec := send(t, h, "GET", "/api/team/captures", "", nil, nil); rec.Code != http.StatusBadRequest {
		t.Errorf("captures without url: %d %s", rec.Code, rec.Body)
	}

	// The bundle holding a revisit's original is gone: the revisit says so.
	ft.remove(a.name)
	ans, body, _ := teamAnswer(t, h, "20250301", "GET", "http://example.org/style.css", nil, "")
	if ans.Archived || ans.Status != 404 || !strings.Contains(ans.Why, "webkeep-a.zip") || !strings.Contains(body, "webkeep-a.zip") {
		t.Errorf("original gone: %+v\n%s", ans, body)
	}
	// A capture whose bundle is gone.
	ans, _, _ = teamAnswer(t, h, "", "GET", "http://example.org/page", nil, "")
	if ans.Archived || !strings.Contains(ans.Why, "404") {
		t.Errorf("bundle gone: %+v", ans)
	}
}

func TestTeamCapturesNewestFirst(t *testing.T) {
	a, b := teamFixture(t)
	ft := newFakeTeam(t, "s3cret", a, b)
	_, h := replayTeamService(t, ft, "s3cret")
	var list []api.TeamCapture
	if rec := send(t, h, "GET", "/api/team/captures?url="+trEscape("http://example.org/style.css"), "", nil, &list); rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if len(list) != 2 {
		t.Fatalf("%+v", list)
	}
	got := fmt.Sprint(list[0].Timestamp, list[0].Source, list[0].Upload, list[0].Mime, list[0].Status, "|", list[1].Timestamp, list[1].Source, list[1].Mime, list[1].Status)
	if want := "20250301000000webkeep-b.zipup-webkeep-bwarc/revisit|20250101000004webkeep-a.ziptext/css200"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if list[0].Replay != "replay.html?team=1&ts=20250301000000&url=http%3A%2F%2Fexample.org%2Fstyle.css" {
		t.Errorf("replay link %s", list[0].Replay)
	}
	if q := ft.take()[0]; !strings.Contains(q, "matchType=exact") || !strings.Contains(q, "sort=reverse") {
		t.Errorf("query %s", q)
	}
	send(t, h, "GET", "/api/team/captures?limit=1&url="+trEscape("http://example.org/page"), "", nil, &list)
	if len(list) != 1 || list[0].Timestamp != "20250201000000" {
		t.Errorf("limit=1: %+v", list)
	}
	send(t, h, "GET", "/api/team/captures?url="+trEscape("http://example.org/nothing"), "", nil, &list)
	if list == nil || len(list) != 0 {
		t.Errorf("no captures: %#v", list)
	}
}

// A large body streams from the team archive to the answer: it is never held whole.
func TestTeamReplayStreams(t *testing.T) {
	const size = 24 << 20
	big := strings.Repeat("webkeep streams ", size/16)
	bundle := writeTeamBundle(t, "webkeep-big", warc.V09, warc.NewDeduper(), []teamExchange{
		{at: "20250101000000", method: "GET", url: "http://example.org/big", resp: teamOK("application/octet-stream", big), stream: true},
	})
	big = ""
	ft := newFakeTeam(t, "s3cret", bundle)
	_, h := replayTeamService(t, ft, "s3cret")
	js := []byte(`{"method":"GET","url":"http://example.org/big","headers":{}}`)
	w := &trCountingWriter{header: http.Header{}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/team/replay/answer", bytes.NewReader(js)))
	runtime.ReadMemStats(&after)
	if w.n != size {
		t.Fatalf("answered %d bytes, want %d", w.n, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/3 {
		t.Errorf("answering %d bytes allocated %d", size, alloc)
	}
}

// TestTeamReplayOffersAStream: a script's request for a body whose length is not known
// before it is read (in segments, no Content-Length) is offered as a stream, whose
// body the replay bar then reads whole from /api/team/replay/file at the capture's
// time (extension/replay-stream.js).
func TestTeamReplayOffersAStream(t *testing.T) {
	bundle := writeTeamBundle(t, "webkeep-nolength", warc.V11, warc.NewDeduper(), []teamExchange{
		{at: "20250101000000", method: "GET", url: "http://example.org/feed.bin", resp: "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n" + teamLarge, stream: true},
	})
	ft := newFakeTeam(t, "s3cret", bundle)
	_, h := replayTeamService(t, ft, "s3cret")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/team/replay/answer", strings.NewReader(`{"method":"GET","url":"http://example.org/feed.bin","headers":{},"resourceType":"XHR"}`)))
	a, err := replay.ReadAnswer(httpmsg.Header(rec.Result().Header))
	if err != nil || a.Status != http.StatusNotFound || a.Stream == nil || a.Stream.Status != http.StatusOK || a.Stream.Size != -1 {
		t.Fatalf("answer %+v (%v): %s", a, err, rec.Body)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/team/replay/file?url="+url.QueryEscape(a.URL)+"&ts="+a.Timestamp, nil))
	if rec.Code != http.StatusOK || rec.Body.String() != teamLarge {
		t.Errorf("the stream's body: %d, %d bytes", rec.Code, rec.Body.Len())
	}
}

type trCountingWriter struct {
	header http.Header
	n      int
}

func (w *trCountingWriter) Header() http.Header { return w.header }
func (w *trCountingWriter) WriteHeader(int)     {}
func (w *trCountingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

// TestTeamReplayFileSavesACapture: GET /api/team/replay/file streams a capture's
// payload from its bundle as a download, whole, without holding it.
func TestTeamReplayFileSavesACapture(t *testing.T) {
	const size = 24 << 20
	bundle := writeTeamBundle(t, "webkeep-big", warc.V09, warc.NewDeduper(), []teamExchange{
		{at: "20250101000000", method: "GET", url: "http://example.org/data/big.bin", resp: teamOK("application/octet-stream", strings.Repeat("webkeep streams ", size/16)), stream: true},
	})
	ft := newFakeTeam(t, "s3cret", bundle)
	_, h := replayTeamService(t, ft, "s3cret")
	w := &trCountingWriter{header: http.Header{}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/team/replay/file?url="+url.QueryEscape("http://example.org/data/big.bin"), nil))
	runtime.ReadMemStats(&after)
	if w.n != size || w.header.Get("Content-Disposition") != `attachment; filename="big.bin"` {
		t.Fatalf("saved %d bytes, want %d; header %v", w.n, size, w.header)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/3 {
		t.Errorf("saving %d bytes allocated %d", size, alloc)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/team/replay/file?url="+url.QueryEscape("http://example.org/other"), nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "the team archive has no capture of GET http://example.org/other") {
		t.Errorf("no capture: %d %s", rec.Code, rec.Body)
	}
}

// A team capture played through in open ranges, as a player asks, is read from the
// team archive about once: each range reads on from the body the last one kept open,
// instead of reading the record from its start again.
func TestTeamReplayRangesReadOn(t *testing.T) {
	video := make([]byte, 6<<20)
	rand.NewChaCha8([32]byte{2}).Read(video) // incompressible: the record is as long
	b := writeTeamBundle(t, "webkeep-video", warc.V11, warc.NewDeduper(), []teamExchange{
		{at: "20250101000000", method: "GET", url: "http://example.org/film.webm", resp: teamOK("video/webm", string(video))},
	})
	ft := newFakeTeam(t, "s3cret", b)
	svc, h := replayTeamService(t, ft, "s3cret")
	var read countedBodies
	svc.http.test = nethttp.Client{Client: &http.Client{Transport: &read}}
	requests := 0
	for at := 0; at < len(video); requests++ {
		a, body, rec := teamAnswer(t, h, "", "GET", "http://example.org/film.webm", map[string]string{"Range": fmt.Sprintf("bytes=%d-", at)}, "")
		if rec.Code != http.StatusOK || a.Status != http.StatusPartialContent || body == "" || body != string(video[at:at+len(body)]) {
			t.Fatalf("bytes=%d-: %d %d, %d bytes, not those of the capture", at, rec.Code, a.Status, len(body))
		}
		at += len(body)
	}
	// The capture is looked up once and its record opened once, by one request
	// each: each later answer has its head kept with the body kept open
	// (replay.Resume), and the capture found for the URL's first range.
	if n, most := read.n.Load(), int64(len(b.warc)+256<<10); n > most {
		t.Errorf("played through in %d requests, %d bytes read from the team archive (at most %d): a %d-byte record read from its start for each", requests, n, most, len(b.warc))
	}
	if asked := ft.take(); len(asked) != 2 || !strings.HasPrefix(asked[0], "cdx ") || !strings.HasPrefix(asked[1], "file ") {
		t.Errorf("played through in %d requests, the team archive was asked %d times, want one CDX query and one request of the file: %q", requests, len(asked), asked)
	}
}

// A seek in a team capture stored whole (a video's) reads only what it answers, by a
// request for the record from there: of a response, and of a revisit, whose
// original's record is read so.
func TestTeamReplayRangesSeek(t *testing.T) {
	const mib = 1 << 20
	video := make([]byte, 6*mib)
	rand.NewChaCha8([32]byte{3}).Read(video) // incompressible: stored whole
	b := writeTeamBundle(t, "webkeep-seek", warc.V11, warc.NewDeduper(), []teamExchange{
		{at: "20250101000000", method: "GET", url: "http://example.org/film.webm", resp: teamOK("video/webm", string(video))},
		{at: "20250102000000", method: "GET", url: "http://example.org/film.webm", resp: teamOK("video/webm", string(video))},
	})
	ft := newFakeTeam(t, "s3cret", b)
	svc, h := replayTeamService(t, ft, "s3cret")
	var read countedBodies
	svc.http.test = nethttp.Client{Client: &http.Client{Transport: &read}}
	for _, ts := range []string{"20250101000000", "20250102000000"} { // the response, the revisit
		for _, at := range []int{5 * mib, 1*mib + 17, 3 * mib} {
			read.n.Store(0)
			a, body, rec := teamAnswer(t, h, ts, "GET", "http://example.org/film.webm", map[string]string{"Range": fmt.Sprintf("bytes=%d-", at)}, "")
			if rec.Code != http.StatusOK || a.Status != http.StatusPartialContent || body == "" || body != string(video[at:at+len(body)]) {
				t.Fatalf("%s, bytes=%d-: %d %d, %d bytes, not those of the capture", ts, at, rec.Code, a.Status, len(body))
			}
			// The answer, and the record's header opened (the warc reader's 64 KiB
			// read ahead, and the inflater's); twice for a revisit.
			if n, most := read.n.Load(), int64(len(body)+2*256<<10); n > most {
				t.Errorf("%s, bytes=%d-: %d bytes read from the team archive for %d answered (at most %d)", ts, at, n, len(body), most)
			}
		}
	}
	// A file the archive answers whole (stored deflated in its bundle): the bytes
	// as recorded, in a few requests.
	ft.noRange = true
	requests := len(ft.log)
	a, body, rec := teamAnswer(t, h, "20250101000000", "GET", "http://example.org/film.webm", map[string]string{"Range": "bytes=4194304-"}, "")
	if rec.Code != http.StatusOK || a.Status != http.StatusPartialContent || body == "" || body != string(video[4<<20:4<<20+len(body)]) {
		t.Fatalf("answered whole, bytes=4194304-: %d %d, %d bytes, not those of the capture", rec.Code, a.Status, len(body))
	}
	if asked := len(ft.log) - requests; asked > 6 {
		t.Errorf("answered whole: %d requests of the team archive for one range (%q)", asked, ft.log[requests:])
	}
}

// countedBodies is an http.RoundTripper that counts the bytes read of the bodies
// of its answers.
type countedBodies struct{ n atomic.Int64 }

func (c *countedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = countedBody{resp.Body, &c.n}
	}
	return resp, err
}

type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
