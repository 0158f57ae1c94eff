package capture

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/cdx"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/recorder/recordertest"
	"github.com/webkeep/webkeep/shared/warc"
)

func sampleExchanges() []*recorder.Exchange {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return []*recorder.Exchange{
		{
			Started: t0, Method: "GET", URL: "http://example.org/", Protocol: "http/1.1",
			ReqHeader: recorder.Fields{{Name: "User-Agent", Value: "test"}}, Status: 200, StatusText: "OK",
			RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/html; charset=utf-8"}, {Name: "Content-Encoding", Value: "gzip"}, {Name: "Content-Length", Value: "20"}},
			RespBody:   []byte("<h1>hello</h1>"), RemoteIP: "127.0.0.1",
		},
		{
			Started: t0.Add(time.Second), Method: "POST", URL: "http://example.org/api?x=1",
			ReqHeader: recorder.Fields{{Name: "Content-Type", Value: "application/octet-stream"}, {Name: "Content-Length", Value: "4"}},
			ReqBody:   []byte{0, 0xff, 0xfe, 1}, Status: 201,
			RespHeader: recorder.Fields{{Name: "Content-Type", Value: "application/json"}}, RespBody: []byte(`{}`),
		},
		{Started: t0.Add(2 * time.Second), Method: "GET", URL: "http://down.example/", Failure: "net::ERR_NAME_NOT_RESOLVED"},
		{
			Started: t0.Add(3 * time.Second), Method: "POST", URL: "http://example.org/up",
			ReqHeader: recorder.Fields{{Name: "Content-Type", Value: "multipart/form-data; boundary=X"}, {Name: "Content-Length", Value: "99"}},
			ReqBody:   []byte("--X--"), ReqTruncated: true, ReqNote: "the browser does not reveal the file",
			Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/plain"}}, RespBody: []byte("ok"),
		},
	}
}

func readAll(t *testing.T, r io.Reader, err error) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sessionRecords reads sess's WARC back with the warc package: its records, the block
// of each, and the file's length, which it checks against the session's count.
func sessionRecords(t *testing.T, sess *Session) ([]*warc.Record, [][]byte) {
	t.Helper()
	w, err := sess.WARC()
	data := readAll(t, w, err)
	if n := sess.Info().Bytes; int64(len(data)) != n {
		t.Errorf("WARC is %d bytes, the session says %d", len(data), n)
	}
	rd, err := warc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*warc.Record
	var blocks [][]byte
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return recs, blocks
		}
		if err != nil {
			t.Fatal(err)
		}
		block, err := io.ReadAll(rec.Block)
		if err != nil {
			t.Fatal(err)
		}
		recs, blocks = append(recs, rec), append(blocks, block)
	}
}

func TestSessionWritesRecordsAndIndex(t *testing.T) {
	store := NewMemStore()
	sess, err := createSession(store, "test", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range sampleExchanges() {
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	info := sess.Info()
	// 2 per answered exchange, request + metadata for the failure, + 1 note record.
	if info.Records != 2+2+2+3 || info.Exchanges != 4 || info.NonGET != 2 || info.Failures != 1 {
		t.Errorf("info: %+v", info)
	}
	// Read it back with the warc package and keep every record by offset.
	recs, recBlocks := sessionRecords(t, sess)
	byOffset := map[int64]*warc.Record{}
	blocks := map[int64][]byte{}
	var types []string
	for i, rec := range recs {
		if rec.Version != warc.V09 {
			t.Errorf("record version %v, want 0.9", rec.Version)
		}
		byOffset[rec.Offset] = rec
		blocks[rec.Offset] = recBlocks[i]
		types = append(types, rec.Type)
	}
	// A request's note follows its response, which replay indexers pair with the request.
	want := "request response request response request metadata request response metadata"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("record types:\n got %s\nwant %s", got, want)
	}
	for off, rec := range byOffset {
		if rec.Type == "response" && strings.HasSuffix(rec.TargetURI, "example.org/") {
			head := string(blocks[off])
			for _, s := range []string{"HTTP/1.1 200 OK\r\n", "Content-Length: 14\r\n", "X-Archive-Orig-Content-Encoding: gzip\r\n", "X-Archive-Orig-Content-Length: 20\r\n"} {
				if !strings.Contains(head, s) {
					t.Errorf("response block lacks %q:\n%s", s, head)
				}
			}
			if strings.Contains(head, "\r\nContent-Encoding:") {
				t.Error("a decoded body is archived with its Content-Encoding")
			}
		}
		if rec.Type == "request" && strings.HasSuffix(rec.TargetURI, "/up") && rec.Header.Get("Truncated") != "unspecified" {
			t.Errorf("truncated request not marked: %v", rec.Header)
		}
	}

	// Every CDXJ line points at a record of its URL, and POSTs carry their keys:
	// the three responses, and the two metadata records (the failure, the note).
	cr, err := sess.CDXLines()
	lines := readAll(t, cr, err)
	sc := bufio.NewScanner(bytes.NewReader(lines))
	var indexedTypes []string
	for sc.Scan() {
		key, rest, _ := strings.Cut(sc.Text(), " ")
		_, fields, _ := strings.Cut(rest, " ")
		var f struct {
			URL, Method, RequestBody string
			Offset, Length           string
		}
		if err := json.Unmarshal([]byte(fields), &f); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		var off int64
		json.Unmarshal([]byte(f.Offset), &off)
		rec := byOffset[off]
		if rec == nil || rec.TargetURI != f.URL {
			t.Errorf("line %q: offset %s is not a record of %s", key, f.Offset, f.URL)
			continue
		}
		indexedTypes = append(indexedTypes, rec.Type)
		if f.Method == "POST" && !strings.Contains(key, "__wb_method=post") {
			t.Errorf("POST key %q lacks the method", key)
		}
		if strings.HasSuffix(f.URL, "/api?x=1") && f.RequestBody != "__wb_post_data=AP/+AQ==" {
			t.Errorf("binary POST requestBody %q", f.RequestBody)
		}
	}
	slices.Sort(indexedTypes)
	if got := strings.Join(indexedTypes, " "); got != "metadata metadata response response response" {
		t.Errorf("CDXJ lines for records %s, want 3 responses and 2 metadata records", got)
	}
}

func TestSessionSurvivesReopening(t *testing.T) {
	store := NewMemStore()
	sess, _ := createSession(store, "a", time.Now())
	exs := sampleExchanges()
	sess.WriteExchange(exs[0])
	// A restarted service worker opens the session again from the store.
	again, err := openSession(store, sess.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.WriteExchange(exs[1]); err != nil {
		t.Fatal(err)
	}
	w, err := again.WARC()
	data := readAll(t, w, err)
	rd, _ := warc.NewReader(bytes.NewReader(data))
	count := 0
	for {
		_, err := rd.Next()
		if err != nil {
			break
		}
		count++
	}
	if count != 4 || int64(len(data)) != again.Info().Bytes {
		t.Errorf("after reopening: %d records, %d bytes (info %d)", count, len(data), again.Info().Bytes)
	}
	// The second writer's offsets continue the first's.
	cr, err := again.CDXLines()
	idx := readAll(t, cr, err)
	if !bytes.Contains(idx, []byte(`"offset": "`)) {
		t.Fatalf("no offsets in %s", idx)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(idx)), "\n") {
		var f struct{ Offset string }
		_, rest, _ := strings.Cut(line, " ")
		_, js, _ := strings.Cut(rest, " ")
		json.Unmarshal([]byte(js), &f)
		var off int64
		json.Unmarshal([]byte(f.Offset), &off)
		if err := rd.SeekRecord(off); err != nil {
			t.Errorf("offset %d: %v", off, err)
		}
	}
}

// fakeHost is a browser for the service: commands succeed; attach can be made to fail.
type fakeHost struct {
	recordertest.Browser
	mu        sync.Mutex
	attached  map[int]bool
	attachErr error
	badges    map[int]string
}

func (h *fakeHost) Attach(ctx context.Context, tab int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.attachErr != nil {
		return h.attachErr
	}
	h.attached[tab] = true
	return nil
}

func (h *fakeHost) Detach(ctx context.Context, tab int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.attached, tab)
	return nil
}

func (h *fakeHost) Badge(tab int, text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.badges[tab] = text
}

func newFakeHost() *fakeHost {
	h := &fakeHost{attached: map[int]bool{}, badges: map[int]string{}}
	h.Answer = func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			return map[string]any{"body": "page body"}, nil
		}
		return map[string]any{}, nil
	}
	return h
}

func do(t *testing.T, h http.Handler, method, path string, out any) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, rec.Body)
		}
	}
	return rec
}

func TestServiceRecordsThroughTheAPI(t *testing.T) {
	store := NewMemStore()
	host := newFakeHost()
	svc, err := NewService(store, host)
	if err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	if rec := do(t, h, "POST", "/api/record/start?tab=abc", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("start with a bad tab: %d", rec.Code)
	}
	var info SessionInfo
	do(t, h, "POST", "/api/record/start?tab=5", &info)
	if !host.attached[5] || info.ID == "" {
		t.Fatalf("start: attached=%v info=%+v", host.attached, info)
	}
	if got := host.Sent("Network.configureDurableMessages"); len(got) != 1 {
		t.Errorf("Network.configureDurableMessages sent %d times", len(got))
	}
	ctx := context.Background()
	events := []recordertest.Event{
		{Method: "Page.frameNavigated", Params: `{"frame":{"id":"F","url":"http://example.org/"}}`},
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","request":{"url":"http://example.org/","method":"GET","headers":{}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
		// Another tab's events are not recorded.
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"2","request":{"url":"http://other.example/","method":"GET","headers":{}}}`},
	}
	for i, ev := range events {
		tab := 5
		if i == len(events)-1 {
			tab = 6
		}
		svc.Event(ctx, recorder.Target{TabID: tab}, ev.Method, json.RawMessage(ev.Params), nil)
	}
	var st Status
	do(t, h, "GET", "/api/status", &st)
	if !st.Recording || len(st.Tabs) != 1 {
		t.Errorf("status while recording: %+v", st)
	}
	do(t, h, "POST", "/api/record/stop", &info)
	if host.attached[5] {
		t.Error("tab still attached after stop")
	}
	if info.Records != 2 || info.Pages != 1 {
		t.Errorf("after stop: %+v", info)
	}
	var list []SessionInfo
	do(t, h, "GET", "/api/sessions", &list)
	if len(list) != 1 || list[0].ID != info.ID {
		t.Fatalf("sessions: %+v", list)
	}
	var recs []map[string]any
	do(t, h, "GET", "/api/sessions/"+info.ID+"/records", &recs)
	if len(recs) != 1 || recs[0]["urlkey"] != "org,example)/" {
		t.Errorf("records: %+v", recs)
	}

	// The bundle is a zip of the WARC, the index, pages and the report.
	rec := do(t, h, "GET", "/api/sessions/"+info.ID+"/bundle.zip", nil)
	if cd := rec.Header().Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, ".zip") {
		t.Errorf("bundle Content-Disposition %q", cd)
	}
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	base := "webkeep-" + info.ID
	if got, want := strings.Join(names, ","), base+".warc.gz,"+base+".cdxj,pages.jsonl,report.json"; got != want {
		t.Errorf("bundle holds %s, want %s", got, want)
	}

	// A session being recorded cannot be deleted; a finished one can, and is gone.
	if rec := do(t, h, "DELETE", "/api/sessions/"+info.ID, nil); rec.Code != http.StatusNoContent {
		t.Errorf("delete: %d %s", rec.Code, rec.Body)
	}
	if rec := do(t, h, "GET", "/api/sessions/"+info.ID, nil); rec.Code != http.StatusNotFound {
		t.Errorf("deleted session still there: %d", rec.Code)
	}
	if keys, _ := store.Keys("s/"); len(keys) != 0 {
		t.Errorf("deleted session left %d keys", len(keys))
	}
}

func TestServiceRestoresRecordingAfterRestart(t *testing.T) {
	store := NewMemStore()
	host := newFakeHost()
	svc, _ := NewService(store, host)
	info, err := svc.Start(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	// A new instance (the service worker was stopped) over the same store goes on
	// recording into the same session.
	svc2, err := NewService(store, host)
	if err != nil {
		t.Fatal(err)
	}
	st := svc2.Status()
	if !st.Recording || st.Session == nil || st.Session.ID != info.ID {
		t.Fatalf("after restart: %+v", st)
	}
	svc2.Event(context.Background(), recorder.Target{TabID: 3}, "Network.requestWillBeSent", json.RawMessage(`{"requestId":"1","request":{"url":"http://example.org/x","method":"GET","headers":{}}}`), nil)
	svc2.Event(context.Background(), recorder.Target{TabID: 3}, "Network.loadingFailed", json.RawMessage(`{"requestId":"1","errorText":"net::ERR_ABORTED"}`), nil)
	got, _ := svc2.Stop(context.Background())
	if got.ID != info.ID || got.Exchanges != 1 {
		t.Errorf("after restart and stop: %+v", got)
	}
}

func TestServiceStartFailureLeavesNoTab(t *testing.T) {
	host := newFakeHost()
	host.attachErr = errors.New("Cannot access a chrome:// URL")
	svc, _ := NewService(NewMemStore(), host)
	rec := do(t, nethttp.Handler(svc.Handler()), "POST", "/api/record/start?tab=4", nil)
	if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "chrome://") {
		t.Errorf("start on an unrecordable tab: %d %s", rec.Code, rec.Body)
	}
	if st := svc.Status(); st.Recording {
		t.Errorf("recording after a failed start: %+v", st)
	}
	if list, _ := svc.sessions.list(); len(list) != 0 {
		t.Errorf("a failed start left a session: %+v", list)
	}
}

// A start that fails detaches only a debugger it attached: a tab it could not attach to
// may have another (a replay's bar), which it leaves alone.
func TestServiceStartFailureDetachesOnlyWhatItAttached(t *testing.T) {
	for _, c := range []struct {
		name       string
		attachErr  error
		enableErr  error
		attachedAt bool // the tab has a debugger after the failed start
	}{
		{"the tab refused (a replay's)", errors.New("tab 4 is a webkeep replay, answered from the archive, and is not recorded"), nil, true},
		{"recording not enabled", nil, errors.New("Network.enable: target closed"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			host := newFakeHost()
			host.attachErr = c.attachErr
			host.attached[4] = c.attachErr != nil // the other debugger
			host.Answer = func(method string, p map[string]any) (any, error) {
				if method == "Network.enable" && c.enableErr != nil {
					return nil, c.enableErr
				}
				return map[string]any{}, nil
			}
			svc, _ := NewService(NewMemStore(), host)
			if _, err := svc.Start(context.Background(), 4); err == nil {
				t.Fatal("the start did not fail")
			}
			host.mu.Lock()
			defer host.mu.Unlock()
			if host.attached[4] != c.attachedAt {
				t.Errorf("tab 4 has a debugger after the failed start: %v, want %v", host.attached[4], c.attachedAt)
			}
		})
	}
}

func TestServiceTabClosedKeepsSession(t *testing.T) {
	host := newFakeHost()
	svc, _ := NewService(NewMemStore(), host)
	ctx := context.Background()
	svc.Start(ctx, 8)
	svc.Event(ctx, recorder.Target{TabID: 8}, "Network.requestWillBeSent", json.RawMessage(`{"requestId":"1","request":{"url":"http://example.org/slow","method":"GET","headers":{}}}`), nil)
	svc.TabDetached(ctx, 8, "target_closed")
	st := svc.Status()
	if st.Recording {
		t.Errorf("still recording a closed tab: %+v", st)
	}
	list, _ := svc.sessions.list()
	if len(list) != 1 || list[0].Exchanges != 1 || len(list[0].Notes) == 0 || !strings.Contains(strings.Join(list[0].Notes, " "), "target_closed") {
		t.Errorf("after the tab closed: %+v", list)
	}
}

// A tab the browser took the debugger off (its PDF viewer) is attached again and
// recorded on; one it cannot attach to again stops being recorded. The notes say which.
func TestServiceTabTakenOff(t *testing.T) {
	for _, c := range []struct {
		name      string
		attachErr error
		recording bool
		note      string
	}{
		{"attached again", nil, true, "it was attached again and is recorded on"},
		{"not attached again", errors.New("Cannot access a chrome-extension:// URL of different extension"), false, "attaching again failed: capture: attaching to tab 8: Cannot access"},
	} {
		t.Run(c.name, func(t *testing.T) {
			host := newFakeHost()
			svc, _ := NewService(NewMemStore(), host)
			ctx := context.Background()
			if _, err := svc.Start(ctx, 8); err != nil {
				t.Fatal(err)
			}
			host.mu.Lock()
			host.attached[8] = false // the browser's doing
			host.attachErr = c.attachErr
			host.mu.Unlock()
			svc.TabTakenOff(ctx, 8)
			if st := svc.Status(); st.Recording != c.recording {
				t.Errorf("recording after the debugger was taken off: %v, want %v", st.Recording, c.recording)
			}
			host.mu.Lock()
			again := host.attached[8]
			host.mu.Unlock()
			if again != c.recording {
				t.Errorf("attached again: %v, want %v", again, c.recording)
			}
			list, _ := svc.sessions.list()
			if len(list) != 1 || !strings.Contains(strings.Join(list[0].Notes, " "), c.note) {
				t.Errorf("notes: %+v, want %q", list, c.note)
			}
		})
	}
}

// A payload archived again becomes a revisit of its first record, also when the
// session was reopened in between (the service worker restarted).
func TestSessionDeduplicatesRepeatedPayloads(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		store := NewMemStore()
		sess, _ := createSession(store, "d", time.Now())
		for i := 0; i < 2; i++ {
			if i == 1 && reopen {
				var err error
				if sess, err = openSession(store, sess.Info().ID); err != nil {
					t.Fatal(err)
				}
			}
			if err := sess.WriteExchange(&recorder.Exchange{Method: "GET", URL: "http://example.org/app.js", Status: 200,
				RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/javascript"}}, RespBody: []byte("console.log(1)")}); err != nil {
				t.Fatal(err)
			}
		}
		w, err := sess.WARC()
		rd, _ := warc.NewReader(bytes.NewReader(readAll(t, w, err)))
		var types []string
		var first string
		for {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			types = append(types, rec.Type)
			switch rec.Type {
			case warc.TypeResponse:
				first = rec.ID
			case warc.TypeRevisit:
				if got := rec.Header.Get(warc.FieldRelatedRecordID); got != first {
					t.Errorf("reopen %v: revisit refers to %q, want the first response %q", reopen, got, first)
				}
			}
		}
		if got := strings.Join(types, " "); got != "request response request revisit" {
			t.Errorf("reopen %v: records: %s", reopen, got)
		}
		cr, err := sess.CDXLines()
		idx := string(readAll(t, cr, err))
		if !strings.Contains(idx, `"mime": "warc/revisit"`) || strings.Count(idx, "\n") != 2 {
			t.Errorf("reopen %v: index: %s", reopen, idx)
		}
	}
}

// failingBatchStore is a BatchStore whose batches fail while fail is set.
type failingBatchStore struct {
	*MemStore
	fail    bool
	batches int
}

func (s *failingBatchStore) PutBatch(keys []string, values [][]byte) error {
	if s.fail {
		return errors.New("disk full")
	}
	s.batches++
	for i, k := range keys {
		s.MemStore.Put(k, values[i])
	}
	return nil
}

// TestWriteExchangeIsOneBatch: an exchange's records, CDX line and the session's counts
// reach a BatchStore in one batch, and a failed batch changes nothing the next
// exchange would trip over.
func TestWriteExchangeIsOneBatch(t *testing.T) {
	store := &failingBatchStore{MemStore: NewMemStore()}
	sess, err := createSession(store, "b", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	exs := sampleExchanges()
	store.batches = 0
	if err := sess.WriteExchange(exs[0]); err != nil || store.batches != 1 {
		t.Fatalf("first exchange: %v, %d batches", err, store.batches)
	}
	before := sess.Info()
	store.fail = true
	if err := sess.WriteExchange(exs[1]); err == nil {
		t.Fatal("a failed batch: no error")
	}
	if got := sess.Info(); got.Records != before.Records || got.Bytes != before.Bytes || got.Exchanges != before.Exchanges {
		t.Errorf("after a failed batch: %+v, want the counts of %+v", got, before)
	}
	store.fail = false
	if err := sess.WriteExchange(exs[1]); err != nil {
		t.Fatal(err)
	}
	w, err := sess.WARC()
	data := readAll(t, w, err)
	rd, _ := warc.NewReader(bytes.NewReader(data))
	count := 0
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
		count++
	}
	if info := sess.Info(); count != info.Records || int64(len(data)) != info.Bytes || info.Exchanges != 2 {
		t.Errorf("%d records, %d bytes read; info says %d records, %d bytes, %d exchanges", count, len(data), info.Records, info.Bytes, info.Exchanges)
	}
}

// TestSessionIndexAgreesWithTheIndexer: the session's CDXJ lines are, line for line,
// those cdx.Indexer (pywb's indexing) makes of the session's WARC: POST keys, notes
// and failures (metadata records), a revisit, a body written as segments (a line for
// each continuation record), and exchanges written after the session is reopened.
func TestSessionIndexAgreesWithTheIndexer(t *testing.T) {
	store := NewMemStore()
	sess, _ := createSession(store, "i", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	exs := sampleExchanges()
	big := make([]byte, maxRecordBuffer*2+1000)
	for i := range big {
		big[i] = byte(i * 7)
	}
	exs = append(exs, &recorder.Exchange{
		Started: exs[0].Started.Add(time.Minute), Method: "GET", URL: "http://example.org/big",
		Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "application/octet-stream"}}, RespBody: big,
	})
	for _, ex := range exs {
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	again, err := openSession(store, sess.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range sampleExchanges()[:2] { // the same payloads again: revisits
		if err := again.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	w, err := again.WARC()
	data := readAll(t, w, err)
	var want []string
	ix := &cdx.Indexer{Dialect: cdx.Pywb267}
	if err := ix.Index(bytes.NewReader(data), again.BaseName()+".warc.gz", func(e *cdx.Entry) error {
		want = append(want, string(e.AppendLine(nil, cdx.Pywb267)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cr, err := again.CDXLines()
	got := strings.SplitAfter(string(readAll(t, cr, err)), "\n")
	got = got[:len(got)-1] // after the last newline
	if !slices.Equal(got, want) {
		t.Errorf("session lines:\n%s\nindexer lines:\n%s", strings.Join(got, ""), strings.Join(want, ""))
	}
	var mimes []string
	for _, line := range want {
		var f struct{ Mime string }
		json.Unmarshal([]byte(line[strings.Index(line, "{"):]), &f)
		mimes = append(mimes, f.Mime)
	}
	joined := strings.Join(mimes, " ")
	// A continuation record's mime is that of its WARC/1.1 form, application/http
	// (the 0.9 file says message/http).
	for _, kind := range []string{"warc/revisit", "text/plain", "application/octet-stream", "application/http"} {
		if !strings.Contains(joined, kind) {
			t.Errorf("no %s line among %s: the test does not cover it", kind, joined)
		}
	}
}

// TestSessionSitesSurviveReopening: a site's findings are counted in the stored info
// with the chunk that holds them, so one added after a restart does not overwrite them.
func TestSessionSitesSurviveReopening(t *testing.T) {
	store := NewMemStore()
	sess, _ := createSession(store, "s", time.Now())
	if err := sess.AddSite(Site{Origin: "http://a.example"}); err != nil {
		t.Fatal(err)
	}
	again, err := openSession(store, sess.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.AddSite(Site{Origin: "http://b.example"}); err != nil {
		t.Fatal(err)
	}
	sites, err := again.Sites()
	if err != nil || len(sites) != 2 || sites[0].Origin != "http://a.example" || sites[1].Origin != "http://b.example" {
		t.Errorf("sites after reopening: %+v %v", sites, err)
	}
}

// recordScript starts recording tab 5 of host and has it load a script: the events of
// one response, whose body is read once it has finished.
func recordScript(t *testing.T, host Host) (*Service, http.Handler) {
	t.Helper()
	svc, err := NewService(NewMemStore(), host)
	if err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	do(t, h, "POST", "/api/record/start?tab=5", nil)
	for _, ev := range []recordertest.Event{
		{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","type":"Script","request":{"url":"http://example.org/a.js","method":"GET","headers":{}}}`},
		{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/javascript"}}}`},
		{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
	} {
		svc.Event(context.Background(), recorder.Target{TabID: 5}, ev.Method, json.RawMessage(ev.Params), nil)
	}
	return svc, h
}

// Stopping waits for the bodies being read before the debugger leaves the tab (the
// browser drops what it kept for the tab then), and the session has them.
func TestServiceStopReadsBodiesBeforeDetaching(t *testing.T) {
	host := newFakeHost()
	release := make(chan struct{})
	host.Answer = func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			<-release
			host.mu.Lock()
			defer host.mu.Unlock()
			if !host.attached[5] {
				return nil, errors.New("Debugger is not attached to the tab with id: 5")
			}
			return map[string]any{"body": "late body"}, nil
		}
		return map[string]any{}, nil
	}
	svc, h := recordScript(t, host)
	time.AfterFunc(50*time.Millisecond, func() { close(release) })
	var info SessionInfo
	do(t, h, "POST", "/api/record/stop", &info)
	if info.Exchanges != 1 || len(info.Notes) != 0 {
		t.Fatalf("after stop: %+v", info)
	}
	sess, err := svc.sessions.get(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sess.WARC()
	if !bytes.Contains(readAll(t, w, err), []byte("late body")) {
		t.Error("the body read while stopping is not in the WARC")
	}
}

// The browser's events lag behind the page: a response the page had before the user
// stopped may be reported after Stop began, later than the drain's quiet moment. The
// page answers a command only after the events it sent before, and Stop waits for that
// answer: the late response is in the session.
func TestServiceStopWaitsForTheEventsThePageSentBefore(t *testing.T) {
	host := newFakeHost()
	var svc *Service
	var stopping, late atomic.Bool
	host.Answer = func(method string, p map[string]any) (any, error) {
		switch {
		case method == "Network.getResponseBody":
			return map[string]any{"body": "body"}, nil
		case method == "Runtime.evaluate" && stopping.Load() && late.CompareAndSwap(false, true):
			time.Sleep(4 * stopGrace) // a busy machine: the events come late, then the answer
			for _, ev := range []recordertest.Event{
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"2","type":"Image","request":{"url":"http://example.org/late.png","method":"GET","headers":{}}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"2","response":{"status":200,"headers":{"Content-Type":"image/png"}}}`},
				{Method: "Network.loadingFinished", Params: `{"requestId":"2"}`},
			} {
				svc.Event(context.Background(), recorder.Target{TabID: 5}, ev.Method, json.RawMessage(ev.Params), nil)
			}
		}
		return map[string]any{}, nil
	}
	svc, h := recordScript(t, host)
	stopping.Store(true)
	var info SessionInfo
	do(t, h, "POST", "/api/record/stop", &info)
	if !late.Load() || info.Exchanges != 2 || len(info.Notes) != 0 {
		t.Errorf("after stop (the page asked: %v): %d exchanges, notes %q; want 2, none", late.Load(), info.Exchanges, info.Notes)
	}
}

// A tab's summary of the requests the browser never reported is among the session's
// latest notes after a stop that cut short more exchanges than the latest notes
// hold: it comes after their notes, as the requests it counts came after them.
func TestServiceStopKeepsTheTabsSummaryAfterTheExchangesCut(t *testing.T) {
	host := newFakeHost()
	host.Answer = func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			return map[string]any{"body": "body"}, nil
		}
		return map[string]any{}, nil
	}
	svc, h := recordScript(t, host)
	const page = "http://example.org/left"
	events := []recordertest.Event{{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"never","headers":{"Host":"example.org","Referer":"` + page + `"}}`}}
	for i := range 3 * latestNotes {
		events = append(events,
			recordertest.Event{Method: "Network.requestWillBeSent", Params: fmt.Sprintf(`{"requestId":"cut%d","type":"Image","request":{"url":"http://example.org/%d.png","method":"GET","headers":{}}}`, i, i)},
			recordertest.Event{Method: "Network.responseReceived", Params: fmt.Sprintf(`{"requestId":"cut%d","response":{"status":200,"headers":{"Content-Type":"image/png"}}}`, i)})
	}
	for _, ev := range events {
		svc.Event(context.Background(), recorder.Target{TabID: 5}, ev.Method, json.RawMessage(ev.Params), nil)
	}
	var info SessionInfo
	do(t, h, "POST", "/api/record/stop", &info)
	cut := 0
	for _, n := range info.Notes {
		if strings.Contains(n, ".png: ") {
			cut++
		}
	}
	if cut == 0 {
		t.Fatalf("no note on the exchanges cut short: the test does not cover them: %q", info.Notes)
	}
	if last := info.Notes[len(info.Notes)-1]; !strings.HasPrefix(last, "1 request begun by pages left as they loaded is not in the archive") {
		t.Errorf("the last note is %q, want the tab's summary; notes %q", last, info.Notes)
	}
}

// The paths a host hands every event for at once are the API's routes that stop.
func TestStopPathsAreRoutes(t *testing.T) {
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	for _, path := range StopPaths {
		if rec := do(t, h, "POST", path, nil); rec.Code == http.StatusNotFound || rec.Code == http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// Stopping waits for a body while the shim's reports that it still arrives keep
// coming: they come often enough that two fit in the wait's idle bound.
func TestArrivalReportsComeWithinTheDrainsIdleBound(t *testing.T) {
	if a := recorder.DefaultPacing.Arrival; a <= 0 || 2*a > drainIdle {
		t.Errorf("a body's arrival is reported every %v, and stopping waits %v after the last event", a, drainIdle)
	}
}

// A browser that never answers a command does not keep recording from stopping: the
// stop gives up after stopWait and says in the session which command it waited for.
func TestServiceStopDoesNotWaitForeverForTheBrowser(t *testing.T) {
	defer func(d time.Duration) { stopWait = d }(stopWait)
	stopWait = 100 * time.Millisecond
	host := newFakeHost()
	never := make(chan struct{})
	defer close(never)
	host.Answer = func(method string, p map[string]any) (any, error) {
		if method == "Network.getResponseBody" {
			<-never
		}
		return map[string]any{}, nil
	}
	svc, h := recordScript(t, host)
	stopped := make(chan SessionInfo)
	go func() {
		var info SessionInfo
		do(t, h, "POST", "/api/record/stop", &info)
		stopped <- info
	}()
	select {
	case info := <-stopped:
		if len(info.Notes) == 0 || !strings.Contains(strings.Join(info.Notes, "\n"), "Network.getResponseBody") {
			t.Errorf("notes %q do not name the command left unanswered", info.Notes)
		}
		if svc.recording(5) {
			t.Error("still recording after stop")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stop waited for the browser")
	}
}

// Two sessions made in the same millisecond (an import as recording starts) get two
// ids: the second does not write over the first.
func TestSessionsMadeInOneMillisecondKeepApart(t *testing.T) {
	store := NewMemStore()
	now := time.Now()
	first, err := createSession(store, "first", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.WriteExchange(&recorder.Exchange{Method: "GET", URL: "http://example.org/", Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/plain"}}, RespBody: []byte("kept")}); err != nil {
		t.Fatal(err)
	}
	before := first.Info()
	second, err := createSession(store, "second", now)
	if err != nil {
		t.Fatal(err)
	}
	if second.Info().ID == before.ID {
		t.Fatalf("two sessions share the id %s", before.ID)
	}
	if err := second.WriteExchange(&recorder.Exchange{Method: "GET", URL: "http://example.org/other", Status: 200, RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/plain"}}, RespBody: []byte("new")}); err != nil {
		t.Fatal(err)
	}
	reopened, err := openSession(store, before.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := reopened.Info(); got.Name != "first" || got.Records != before.Records {
		t.Errorf("the first session after the second was made: %+v, was %+v", got, before)
	}
	index, _ := reopened.SortedCDX()
	if !strings.Contains(string(index), "org,example)/ ") || strings.Contains(string(index), "/other") {
		t.Errorf("the first session's index: %s", index)
	}
}

func TestSessionMarksIncompleteBodiesInTheArchive(t *testing.T) {
	sess, err := createSession(NewMemStore(), "test", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	exchanges := []*recorder.Exchange{
		{Method: "GET", URL: "http://example.org/a.png", Status: 200, RespHeader: recorder.Fields{{Name: "Content-Length", Value: "10"}},
			RespNote: recorder.WhyPageLeft + " (net::ERR_ABORTED)", RespTruncated: "disconnect"},
		{Method: "GET", URL: "http://example.org/b.png", Status: 200, RespNote: recorder.WhyPageLeft + " (net::ERR_ABORTED)", RespTruncated: "disconnect"},
		{Method: "GET", URL: "http://example.org/c.js", Failure: recorder.WhyCancelled + " (net::ERR_ABORTED)"},
		{Method: "POST", URL: "http://example.org/up", ReqBody: []byte("--X--"), ReqTruncated: true, ReqNote: "request " + recorder.WhyHiddenFile + ": the archived request body lacks the file's bytes",
			Status: 200, RespBody: []byte("ok")},
		// A note on a whole body (fetched again) is kept but counts as no problem.
		{Method: "GET", URL: "http://example.org/d.png", Status: 200, RespBody: []byte("x"), RespNote: "fetched again"},
	}
	for _, ex := range exchanges {
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	info := sess.Info()
	wantReasons := map[string]int{recorder.WhyPageLeft: 2, recorder.WhyCancelled: 1, "request body hidden by the browser": 1}
	if info.Incomplete != 3 || info.Failures != 1 || fmt.Sprint(info.Reasons) != fmt.Sprint(wantReasons) {
		t.Errorf("incomplete %d, failures %d, reasons %v; want 3, 1, %v", info.Incomplete, info.Failures, info.Reasons, wantReasons)
	}
	recs, blocks := sessionRecords(t, sess)
	var got []string
	for i, rec := range recs {
		switch rec.Type {
		case warc.TypeResponse:
			got = append(got, "response "+rec.Header.Get(warc.FieldTruncated))
		case warc.TypeMetadata:
			got = append(got, "metadata "+reasonOf(string(blocks[i])))
		default:
			got = append(got, rec.Type)
		}
	}
	want := []string{
		"request", "response disconnect", "metadata " + recorder.WhyPageLeft,
		"request", "response disconnect", "metadata " + recorder.WhyPageLeft,
		"request", "metadata no response",
		"request", "response ", "metadata request body hidden by the browser",
		"request", "response ", "metadata fetched again",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A body that never stops arriving (a tab opened from the recorded one, streaming)
// does not keep recording from stopping: Stop ends within StopLimit, keeps what came,
// marks it, and says what it gave up on.
func TestServiceStopEndsWhileABodyKeepsComing(t *testing.T) {
	defer func(d time.Duration) { StopLimit = d }(StopLimit)
	StopLimit = time.Second
	host := newFakeHost()
	svc, h := recordScript(t, host)
	ctx := context.Background()
	svc.Event(ctx, recorder.Target{TabID: 5}, "Network.requestWillBeSent", json.RawMessage(`{"requestId":"h","type":"Image","request":{"url":"http://example.org/hang","method":"GET","headers":{}}}`), nil)
	svc.Event(ctx, recorder.Target{TabID: 5}, "Network.responseReceived", json.RawMessage(`{"requestId":"h","response":{"status":200,"headers":{"Content-Type":"text/plain"}}}`), nil)
	stopFeeding := make(chan struct{})
	defer close(stopFeeding)
	go func() {
		for {
			select {
			case <-stopFeeding:
				return
			case <-time.After(20 * time.Millisecond):
				svc.Event(ctx, recorder.Target{TabID: 5}, "Network.dataReceived", json.RawMessage(`{"requestId":"h","dataLength":10}`), nil)
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	began := time.Now()
	var info SessionInfo
	do(t, h, "POST", "/api/record/stop", &info)
	if took := time.Since(began); took > StopLimit+500*time.Millisecond {
		t.Errorf("stop took %v, over its limit of %v", took, StopLimit)
	}
	notes := strings.Join(info.Notes, "\n")
	if !strings.Contains(notes, "recording stopped while 1 body was still arriving") || !strings.Contains(notes, "http://example.org/hang") {
		t.Errorf("notes do not say what was given up on:\n%s", notes)
	}
	if info.Exchanges != 2 || info.Incomplete != 1 || info.Reasons[recorder.WhyStopped] != 1 {
		t.Errorf("exchanges %d, incomplete %d, reasons %v", info.Exchanges, info.Incomplete, info.Reasons)
	}
	if svc.recording(5) {
		t.Error("still recording after stop")
	}
}

// A login form's password is redacted by default, in the WARC and in the CDX key;
// with the keep policy it stays. Either way the session counts a login POST.
func TestServiceRedactsPasswordsInFormPosts(t *testing.T) {
	for _, policy := range []string{"", "redact", "keep"} {
		t.Run("policy "+policy, func(t *testing.T) {
			host := newFakeHost()
			host.Answer = func(method string, p map[string]any) (any, error) {
				switch method {
				case "Runtime.evaluate":
					return map[string]any{"result": map[string]any{"type": "object", "value": []string{"secret"}}}, nil
				case "Network.getResponseBody":
					return map[string]any{"body": "welcome"}, nil
				}
				return map[string]any{}, nil
			}
			svc, err := NewService(NewMemStore(), host)
			if err != nil {
				t.Fatal(err)
			}
			settings := svc.settings.get()
			settings.PasswordPolicy = policy
			if _, err := svc.settings.update(settings); err != nil {
				t.Fatal(err)
			}
			h := nethttp.Handler(svc.Handler())
			do(t, h, "POST", "/api/record/start?tab=5", nil)
			body := "user=zo%C3%AB&secret=hunter2"
			for _, ev := range []recordertest.Event{
				{Method: "Network.requestWillBeSent", Params: `{"requestId":"1","type":"Document","frameId":"F","request":{"url":"http://example.org/login","method":"POST","headers":{"Content-Type":"application/x-www-form-urlencoded"},"hasPostData":true,"postDataEntries":[{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(body)) + `"}]}}`},
				{Method: "Network.requestWillBeSentExtraInfo", Params: `{"requestId":"1","headers":{"Content-Type":"application/x-www-form-urlencoded","Content-Length":"28"}}`},
				{Method: "Network.responseReceived", Params: `{"requestId":"1","response":{"status":200,"headers":{"Content-Type":"text/html"}}}`},
				{Method: "Network.loadingFinished", Params: `{"requestId":"1"}`},
			} {
				svc.Event(context.Background(), recorder.Target{TabID: 5}, ev.Method, json.RawMessage(ev.Params), nil)
			}
			var info SessionInfo
			do(t, h, "POST", "/api/record/stop", &info)
			sess, err := svc.sessions.get(info.ID)
			if err != nil {
				t.Fatal(err)
			}
			w, err := sess.WARC()
			archive := readAll(t, w, err)
			gz, _ := gzip.NewReader(bytes.NewReader(archive))
			gz.Multistream(true)
			plain, _ := io.ReadAll(gz)
			c, err := sess.CDXLines()
			cdxText := string(readAll(t, c, err))
			if info.LoginPosts != 1 {
				t.Errorf("login POSTs %d, want 1", info.LoginPosts)
			}
			if policy == "keep" {
				if !bytes.Contains(plain, []byte("secret=hunter2")) || !strings.Contains(cdxText, "hunter2") {
					t.Errorf("kept password not archived:\n%s", plain)
				}
				return
			}
			redacted := "user=zo%C3%AB&secret=" + url.QueryEscape(redactedValue)
			if bytes.Contains(plain, []byte("hunter2")) || strings.Contains(cdxText, "hunter2") {
				t.Errorf("the password is in the archive:\n%s\n%s", plain, cdxText)
			}
			if !bytes.Contains(plain, []byte("Content-Length: "+strconv.Itoa(len(redacted))+"\r\n")) || !bytes.Contains(plain, []byte("\r\n\r\n"+redacted+"\r\n")) {
				t.Errorf("the request record does not hold the redacted body with its length:\n%s", plain)
			}
			if !bytes.Contains(plain, []byte("the value of the password field secret of the request body replaced")) {
				t.Errorf("no note says what was redacted:\n%s", plain)
			}
			if !strings.Contains(cdxText, "__wb_method=post&secret=[redacted%20by%20webkeep]&user=") {
				t.Errorf("the CDX key does not hold the redacted body:\n%s", cdxText)
			}
		})
	}
}

// TestSessionWritesPageNotes: a note about a page is a metadata record of its own
// after the exchanges written before it, targeting the page, counted among the
// session's records and in its bytes.
func TestSessionWritesPageNotes(t *testing.T) {
	sess, err := createSession(NewMemStore(), "test", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	ex := sampleExchanges()[0]
	if err := sess.WriteExchange(ex); err != nil {
		t.Fatal(err)
	}
	before := sess.Info()
	const page, note = "http://example.org/left", "2 requests this page began as it was left are not in the archive"
	if err := sess.WriteNote(page, note); err != nil {
		t.Fatal(err)
	}
	info := sess.Info()
	if info.Records != before.Records+1 || info.Exchanges != before.Exchanges || info.Bytes <= before.Bytes {
		t.Errorf("info after the note %+v, before %+v", info, before)
	}
	recs, blocks := sessionRecords(t, sess)
	if len(recs) == 0 {
		t.Fatal("no record in the WARC")
	}
	last := len(recs) - 1
	if recs[last].Type != warc.TypeMetadata || recs[last].TargetURI != page || string(blocks[last]) != note {
		t.Fatalf("the last record %+v %q, want the metadata record of the note on %s", recs[last], blocks[last], page)
	}
}

// TestNotesKeepTheLatest: past maxNotes a session keeps its first notes and its
// latest (a tab's summary comes last), and says how many it left out between.
func TestNotesKeepTheLatest(t *testing.T) {
	s := &Session{}
	total := maxNotes + 30
	for i := range total {
		s.note(fmt.Sprintf("note %d", i))
	}
	notes := s.info.Notes
	if len(notes) != maxNotes {
		t.Fatalf("%d notes kept, want %d", len(notes), maxNotes)
	}
	at := maxNotes - latestNotes - 1
	for i := range at {
		if notes[i] != fmt.Sprintf("note %d", i) {
			t.Fatalf("note %d is %q", i, notes[i])
		}
	}
	if want := fmt.Sprintf(notesLeftOut, total-at-latestNotes); notes[at] != want {
		t.Errorf("the count is %q, want %q", notes[at], want)
	}
	for i, n := range notes[at+1:] {
		if want := fmt.Sprintf("note %d", total-latestNotes+i); n != want {
			t.Errorf("latest note %d is %q, want %q", i, n, want)
		}
	}
}
