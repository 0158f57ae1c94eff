package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/replay"
)

// importedForReplay is a service with one session, imported from a WARC/1.0 of two
// captures: http://example.org/0 ("small") and /1, big, 9 MiB stored in several
// chunks.
func importedForReplay(t *testing.T) (h http.Handler, info SessionInfo, big []byte) {
	t.Helper()
	big = bytes.Repeat([]byte("nine mebibytes.."), 9<<20/16)
	svc, _ := NewService(NewMemStore(), newFakeHost())
	h = nethttp.Handler(svc.Handler())
	if j := runJob(t, h, "POST", "/api/import?name=r.warc", "", warc10(t, []byte("small"), big), &info); j.State != "done" {
		t.Fatalf("import: %+v", j)
	}
	return h, info, big
}

// TestReplayAPI imports a WARC/1.0 (with a 9 MiB body, stored in several chunks)
// and replays it through the API: each request its own answer, the large body whole,
// a request never recorded the "not archived" page and in the log.
func TestReplayAPI(t *testing.T) {
	h, info, big := importedForReplay(t)
	do := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
		return rec
	}
	if rec := do("POST", "/api/replay/"+info.ID+"/start", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"captures":2`) {
		t.Fatalf("start: %d %s", rec.Code, rec.Body)
	}
	tests := []struct {
		url      string
		want     []byte
		archived bool
	}{
		{"http://example.org/0", []byte("small"), true},
		{"http://example.org/1", big, true},
		{"http://example.org/2", nil, false},
	}
	for _, tt := range tests {
		rec := do("POST", "/api/replay/"+info.ID+"/answer", `{"method":"GET","url":"`+tt.url+`","headers":{"Accept":"*/*"}}`)
		a, err := replay.ReadAnswer(httpmsg.Header(rec.Header()))
		if rec.Code != 200 || err != nil {
			t.Fatalf("%s: %d %v", tt.url, rec.Code, err)
		}
		if a.Archived != tt.archived {
			t.Errorf("%s: archived %v", tt.url, a.Archived)
		}
		if tt.archived && sha256.Sum256(rec.Body.Bytes()) != sha256.Sum256(tt.want) {
			t.Errorf("%s: body of %d bytes, want %d", tt.url, rec.Body.Len(), len(tt.want))
		}
		if !tt.archived && (a.Status != 404 || !strings.Contains(rec.Body.String(), "Not archived")) {
			t.Errorf("%s: %d %q", tt.url, a.Status, rec.Body)
		}
	}
	// An answer asked for ahead of the page (a media element's next range) is the
	// same answer, not logged: the bar logs it if the page gets it.
	for _, u := range []string{"http://example.org/1", "http://example.org/2"} {
		rec := do("POST", "/api/replay/"+info.ID+"/answer?ahead=1", `{"method":"GET","url":"`+u+`","headers":{"Range":"bytes=100-"}}`)
		a, err := replay.ReadAnswer(httpmsg.Header(rec.Header()))
		if u == "http://example.org/1" && (err != nil || a.Status != 206 || !bytes.Equal(rec.Body.Bytes(), big[100:100+replay.RangeChunk])) {
			t.Errorf("%s asked ahead, bytes=100-: %d (%v), %d bytes, not those recorded", u, a.Status, err, rec.Body.Len())
		}
	}
	var log replay.LogView
	rec := do("GET", "/api/replay/"+info.ID+"/log", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &log); err != nil || log.Answered != 2 || len(log.Missed) != 1 || log.Missed[0] != "http://example.org/2" {
		t.Errorf("log %s (%v)", rec.Body, err)
	}
	for _, bad := range []string{`{"url":"http://example.org/0"}`, `{"method":"POST","url":"http://x/","postDataEntries":[{"bytes":"!!"}]}`, `[1]`} {
		if rec := do("POST", "/api/replay/"+info.ID+"/answer", bad); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, rec.Code)
		}
	}
	if rec := do("POST", "/api/replay/nosuch/start", ""); rec.Code != http.StatusNotFound {
		t.Errorf("unknown session: %d", rec.Code)
	}
}

// keyCountingStore counts the listings of its keys.
type keyCountingStore struct {
	*MemStore
	keys int
}

func (s *keyCountingStore) Keys(prefix string) ([]string, error) {
	s.keys++
	return s.MemStore.Keys(prefix)
}

// TestReplaySeesTheSessionGrow: the answers to a replay's requests do not list the
// store's keys while the session is as it was, and a capture written after the
// replay started is found.
func TestReplaySeesTheSessionGrow(t *testing.T) {
	store := &keyCountingStore{MemStore: NewMemStore()}
	svc, h, info := importedSession(t, store, []byte("small"), []byte("second"))
	answer := func(url string) (replay.Answer, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/replay/"+info.ID+"/answer", strings.NewReader(`{"method":"GET","url":"`+url+`","headers":{}}`)))
		a, err := replay.ReadAnswer(httpmsg.Header(rec.Header()))
		if rec.Code != 200 || err != nil {
			t.Fatalf("%s: %d %v", url, rec.Code, err)
		}
		return a, rec.Body.String()
	}
	answer("http://example.org/0")
	listed := store.keys
	for range 5 {
		if a, body := answer("http://example.org/1"); !a.Archived || body != "second" {
			t.Fatalf("archived %v, body %q", a.Archived, body)
		}
	}
	if store.keys != listed {
		t.Errorf("the store's keys were listed %d times for 5 answers of an unchanged session", store.keys-listed)
	}
	if a, _ := answer("http://example.org/new"); a.Archived {
		t.Fatal("a capture not yet written is archived")
	}
	sess, err := svc.sessions.find(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	ex := &recorder.Exchange{
		Method: "GET", URL: "http://example.org/new", Protocol: "HTTP/1.1", Status: 200,
		RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/plain"}}, RespBody: []byte("written later"),
	}
	if err := sess.WriteExchange(ex); err != nil {
		t.Fatal(err)
	}
	if a, body := answer("http://example.org/new"); !a.Archived || body != "written later" {
		t.Errorf("after the session grew: archived %v, body %q", a.Archived, body)
	}
}

// getCountingStore counts the bytes its Get returns.
type getCountingStore struct {
	*MemStore
	read int
}

func (s *getCountingStore) Get(key string) ([]byte, error) {
	b, err := s.MemStore.Get(key)
	s.read += len(b)
	return b, err
}

// TestReplayReadsOnlyTheRecord: answering a small capture reads the chunk of its
// record, not the large record's after it, which the WARC reader's buffer would
// otherwise reach into; a batch leaves the large one out without reading it; the
// large one is read whole.
func TestReplayReadsOnlyTheRecord(t *testing.T) {
	store := &getCountingStore{MemStore: NewMemStore()}
	svc, h, info := importedSession(t, store, []byte("small"))
	sess, err := svc.sessions.find(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{1}).Read(big)
	if err := sess.WriteExchange(&recorder.Exchange{
		Method: "GET", URL: "http://example.org/big", Protocol: "HTTP/1.1", Status: 200,
		RespHeader: recorder.Fields{{Name: "Content-Type", Value: "application/octet-stream"}}, RespBody: big,
	}); err != nil {
		t.Fatal(err)
	}
	answer := func(url string) []byte {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/replay/"+info.ID+"/answer", strings.NewReader(`{"method":"GET","url":"`+url+`","headers":{}}`)))
		if a, err := replay.ReadAnswer(httpmsg.Header(rec.Header())); err != nil || !a.Archived {
			t.Fatalf("%s: archived %v, %v", url, a.Archived, err)
		}
		return rec.Body.Bytes()
	}
	answer("http://example.org/0") // the replay reads its index
	svc.replays.cache.purge()
	store.read = 0
	if got := answer("http://example.org/0"); string(got) != "small" {
		t.Fatalf("answer %q", got)
	}
	if store.read > 64<<10 {
		t.Errorf("answering a 5-byte capture read %d bytes from the store", store.read)
	}
	// Its batch leaves the large one out, unread (the small one's chunk is in the
	// cache).
	store.read = 0
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/replay/"+info.ID+"/batch?url=http://example.org/0", nil))
	if answers, _, err := replay.ReadBatch(rec.Body); err != nil || len(answers) != 1 || store.read > 0 {
		t.Errorf("the batch: %v (%v), %d bytes read from the store", answers, err, store.read)
	}
	if got := answer("http://example.org/big"); !bytes.Equal(got, big) {
		t.Fatalf("the large answer: %d bytes, want %d", len(got), len(big))
	}
}

// TestChunkedFileLengthsFromKeys: a stream's chunks are placed by the lengths their
// keys give, without reading them; a chunk written before keys gave lengths is read
// once to learn its own; a chunk that does not hold what its key says is an error
// when it is read, not bytes from the wrong place.
func TestChunkedFileLengthsFromKeys(t *testing.T) {
	store := &getCountingStore{MemStore: NewMemStore()}
	for k, v := range map[string]string{
		"f/0000000000.6": "hello ",
		"f/0000000001":   "big ", // written before keys gave lengths
		"f/0000000002.3": "end",
		"g/0000000000.4": "hello",
	} {
		if err := store.Put(k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	var cache byteCache[cachedChunk]
	cache.max = 1 << 20
	keys, _ := store.Keys("f/")
	f, err := openChunkedFile(store, keys, &cache)
	if err != nil {
		t.Fatal(err)
	}
	if store.read != len("big ") || f.Size() != 13 {
		t.Errorf("opening read %d bytes (want the unlabelled chunk's 4), size %d (want 13)", store.read, f.Size())
	}
	for _, tc := range []struct {
		at   int64
		want string
	}{{0, "hello big end"}, {6, "big end"}, {8, "g end"}, {10, "end"}, {13, ""}} {
		got, err := io.ReadAll(f.Reader(tc.at))
		if err != nil || string(got) != tc.want {
			t.Errorf("from %d: %q, %v; want %q", tc.at, got, err, tc.want)
		}
	}
	keys, _ = store.Keys("g/")
	g, err := openChunkedFile(store, keys, &cache)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(g.Reader(0)); err == nil || !strings.Contains(err.Error(), "holds 5 bytes, not the 4") {
		t.Errorf("a chunk longer than its key says: %q, %v", got, err)
	}
}

// TestChunkSize: what a chunk's key says of its length.
func TestChunkSize(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want int64
		ok   bool
	}{
		{"s/a/warc/0000000003.4194304", 4194304, true},
		{"s/a/warc/0000000003.0", 0, true},
		{"s/a/warc/0000000003", 0, false},
		{"s/a.b/warc/0000000003", 0, false},
		{"s/a/warc/0000000003.", 0, false},
		{"s/a/warc/0000000003.-1", 0, false},
		{"s/a/warc/0000000003.12x", 0, false},
		{"s/a/warc/0000000003.99999999999999999999", 0, false},
	} {
		if n, ok := chunkSize(tc.key); n != tc.want || ok != tc.ok {
			t.Errorf("chunkSize(%q) = %d, %v; want %d, %v", tc.key, n, ok, tc.want, tc.ok)
		}
	}
}

// TestSessionChunkKeysGiveLengths: every chunk of a session's streams is keyed with
// its length.
func TestSessionChunkKeysGiveLengths(t *testing.T) {
	store := NewMemStore()
	_, _, info := importedSession(t, store, []byte("small"), bytes.Repeat([]byte("x"), 5<<20))
	keys, _ := store.Keys("s/" + info.ID + "/")
	streams := 0
	for _, k := range keys {
		if strings.HasSuffix(k, "/info") {
			continue
		}
		streams++
		v, _ := store.Get(k)
		if n, ok := chunkSize(k); !ok || n != int64(len(v)) {
			t.Errorf("%s: the key gives %d (%v), the chunk holds %d bytes", k, n, ok, len(v))
		}
	}
	if streams < 2 {
		t.Errorf("the session has %d chunks: %v", streams, keys)
	}
}

// TestReplayCachesChunks: the answers of captures kept in one chunk (an import's
// are 4 MiB) read that chunk from the store once.
func TestReplayCachesChunks(t *testing.T) {
	store := &getCountingStore{MemStore: NewMemStore()}
	bodies := make([][]byte, 20)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, "body %d", i)
	}
	_, h, info := importedSession(t, store, bodies...)
	do := func(path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", path, strings.NewReader(body)))
		return rec
	}
	do("/api/replay/"+info.ID+"/start", "")
	keys, _ := store.Keys("s/" + info.ID + "/warc/")
	if len(keys) != 1 {
		t.Fatalf("the import is in %d chunks, want 1", len(keys))
	}
	chunk, _ := store.MemStore.Get(keys[0])
	store.read = 0
	for i, want := range bodies {
		rec := do("/api/replay/"+info.ID+"/answer", fmt.Sprintf(`{"method":"GET","url":"http://example.org/%d","headers":{}}`, i))
		if !bytes.Equal(rec.Body.Bytes(), want) {
			t.Fatalf("answer %d: %q, want %q", i, rec.Body, want)
		}
	}
	if store.read != len(chunk) {
		t.Errorf("%d answers read %d bytes from the store, want the chunk's %d once", len(bodies), store.read, len(chunk))
	}
}

// TestReplayBatchAPI: a page's batch answers it and the session's other captures
// as their own requests would be, and those the replay says it answered from the
// batch are in the log.
func TestReplayBatchAPI(t *testing.T) {
	svc, _ := NewService(NewMemStore(), newFakeHost())
	h := nethttp.Handler(svc.Handler())
	var info SessionInfo
	if j := runJob(t, h, "POST", "/api/import?name=r.warc", "", warc10(t, []byte("page"), []byte("style"), []byte("script")), &info); j.State != "done" {
		t.Fatalf("import: %+v", j)
	}
	do := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
		return rec
	}
	do("POST", "/api/replay/"+info.ID+"/start", "")
	rec := do("GET", "/api/replay/"+info.ID+"/batch?url="+url.QueryEscape("http://example.org/0"), "")
	answers, bodies, err := replay.ReadBatch(rec.Body)
	if rec.Code != 200 || err != nil {
		t.Fatalf("batch: %d %v", rec.Code, err)
	}
	got := map[string]string{}
	for i, a := range answers {
		got[a.URL] = string(bodies[i])
	}
	if want := map[string]string{"http://example.org/0": "page", "http://example.org/1": "style", "http://example.org/2": "script"}; !maps.Equal(got, want) {
		t.Errorf("batch %v, want %v", got, want)
	}
	// /served answers with the log, the URLs it was given counted.
	rec = do("POST", "/api/replay/"+info.ID+"/served", `{"urls":["http://example.org/1","http://example.org/2"]}`)
	var served replay.LogView
	if err := json.Unmarshal(rec.Body.Bytes(), &served); rec.Code != http.StatusOK || err != nil || served.Answered != 2 {
		t.Fatalf("served: %d %s (%v), want 200 and 2 answered", rec.Code, rec.Body, err)
	}
	var log replay.LogView
	if err := json.Unmarshal(do("GET", "/api/replay/"+info.ID+"/log", "").Body.Bytes(), &log); err != nil || log.Answered != 2 {
		t.Errorf("log %+v (%v), want 2 answered", log, err)
	}
	// Answers the replay page kept and gave again are logged as /answer logged them:
	// a miss is listed, an approximate answer counted and listed.
	rec = do("POST", "/api/replay/"+info.ID+"/served", `{"answers":[{"url":"http://example.org/gone","archived":false},`+
		`{"url":"http://example.org/0?t=2","archived":true,"approximate":true,"timestamp":"20240101000000","why":"t ignored"}]}`)
	if err := json.Unmarshal(rec.Body.Bytes(), &served); rec.Code != http.StatusOK || err != nil ||
		served.Answered != 3 || !slices.Equal(served.Missed, []string{"http://example.org/gone"}) ||
		len(served.Approximate) != 1 || served.Approximate[0].Why != "t ignored" {
		t.Fatalf("served answers: %d %s (%v), want 3 answered, one missed, one approximate", rec.Code, rec.Body, err)
	}
	if rec := do("POST", "/api/replay/"+info.ID+"/served", `{"urls":1}`); rec.Code != http.StatusBadRequest {
		t.Errorf("served no list: %d", rec.Code)
	}
}

// TestReplayKeepsBatches: a page's batch asked for again (the page loaded again) is
// the same, and reads nothing from the store; once the session has grown, it is made
// anew from what the session now holds (a resource recorded since).
func TestReplayKeepsBatches(t *testing.T) {
	store := &getCountingStore{MemStore: NewMemStore()}
	svc, h, info := importedSession(t, store, []byte("page"), []byte("style"))
	batch := func() (map[string]string, []byte) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/replay/"+info.ID+"/batch?url=http://example.org/0", nil))
		raw := bytes.Clone(rec.Body.Bytes())
		answers, bodies, err := replay.ReadBatch(rec.Body)
		if rec.Code != 200 || err != nil {
			t.Fatalf("batch: %d %v", rec.Code, err)
		}
		got := map[string]string{}
		for i, a := range answers {
			got[a.URL] = string(bodies[i])
		}
		return got, raw
	}
	captures := func() int {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/replay/"+info.ID+"/log", nil))
		var log struct {
			Captures *int `json:"captures"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &log); err != nil || log.Captures == nil {
			t.Fatalf("log: %d %q %v", rec.Code, rec.Body, err)
		}
		return *log.Captures
	}
	first, raw := batch()
	before := captures()
	if want := map[string]string{"http://example.org/0": "page", "http://example.org/1": "style"}; !maps.Equal(first, want) {
		t.Fatalf("batch %v, want %v", first, want)
	}
	svc.replays.cache.purge()
	store.read = 0
	if _, again := batch(); !bytes.Equal(again, raw) || store.read > 0 {
		t.Errorf("the batch asked again: %d bytes read from the store, same bytes %v", store.read, bytes.Equal(again, raw))
	}
	sess, err := svc.sessions.find(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.WriteExchange(&recorder.Exchange{
		Method: "GET", URL: "http://example.org/2", Protocol: "HTTP/1.1", Status: 200,
		RespHeader: recorder.Fields{{Name: "Content-Type", Value: "text/css"}}, RespBody: []byte("recorded since"),
	}); err != nil {
		t.Fatal(err)
	}
	if grown, _ := batch(); grown["http://example.org/2"] != "recorded since" {
		t.Errorf("the batch once the session has grown: %v, want the resource recorded since", grown)
	}
	// The replay page learns of the growth from the log, and drops the batches it kept.
	if after := captures(); after != before+1 {
		t.Errorf("the log's captures: %d before the session grew by one, %d after", before, after)
	}
}

// TestByteCache: a byteCache keeps up to its bound, drops the least recently used
// first, and keeps nothing over half its bound.
func TestByteCache(t *testing.T) {
	tests := []struct {
		name string
		puts []int // sizes of the entries put, keys 0, 1, ...
		gets []int // keys read after the puts, in order, before one more put of size last
		last int
		want []int // keys kept at the end
	}{
		{name: "all fit", puts: []int{3, 3}, want: []int{0, 1}},
		{name: "the oldest dropped", puts: []int{3, 3, 3, 3}, want: []int{1, 2, 3}},
		{name: "the least recently used dropped", puts: []int{3, 3, 3}, gets: []int{0}, last: 3, want: []int{0, 2, 3}},
		{name: "over half the bound not kept", puts: []int{3, 6}, want: []int{0}},
		{name: "several dropped for a large one", puts: []int{2, 2, 2, 2}, last: 5, want: []int{2, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := byteCache[int]{max: 10}
			for k, n := range tt.puts {
				c.put(k, make([]byte, n))
			}
			for _, k := range tt.gets {
				c.get(k)
			}
			if tt.last > 0 {
				c.put(len(tt.puts), make([]byte, tt.last))
			}
			var kept []int
			for k := range len(tt.puts) + 1 {
				if b, ok := c.get(k); ok {
					kept = append(kept, k)
					if want := tt.puts; k < len(want) && len(b) != want[k] || k == len(want) && len(b) != tt.last {
						t.Errorf("key %d: %d bytes", k, len(b))
					}
				}
			}
			if !slices.Equal(kept, tt.want) {
				t.Errorf("kept %v, want %v", kept, tt.want)
			}
		})
	}
}

// importedSession returns a service over store, its API handler, and the session it
// imported from a WARC/1.0 file of the given bodies.
func importedSession(t *testing.T, store Store, bodies ...[]byte) (*Service, http.Handler, SessionInfo) {
	t.Helper()
	svc, _ := NewService(store, newFakeHost())
	h := nethttp.Handler(svc.Handler())
	var info SessionInfo
	if j := runJob(t, h, "POST", "/api/import?name=r.warc", "", warc10(t, bodies...), &info); j.State != "done" {
		t.Fatalf("import: %+v", j)
	}
	return svc, h, info
}

// TestReplayFileSavesACapture: GET /api/replay/{id}/file gives a capture's payload
// whole, as a file to save under its URL's name: how a body too large for the page
// is had from the replay.
func TestReplayFileSavesACapture(t *testing.T) {
	h, info, big := importedForReplay(t)
	get := func(capture string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/replay/"+info.ID+"/file?url="+url.QueryEscape(capture)+"&ts=", nil))
		return rec
	}
	rec := get("http://example.org/1")
	if rec.Code != 200 || sha256.Sum256(rec.Body.Bytes()) != sha256.Sum256(big) {
		t.Fatalf("the capture: %d, %d bytes, want %d", rec.Code, rec.Body.Len(), len(big))
	}
	if cd := rec.Header().Get("Content-Disposition"); cd != `attachment; filename="1"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if n := rec.Header().Get("Content-Length"); n != strconv.Itoa(len(big)) {
		t.Errorf("Content-Length %q", n)
	}
	if rec := get("http://example.org/2"); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "no capture of GET http://example.org/2") {
		t.Errorf("no capture: %d %s", rec.Code, rec.Body)
	}
}

func TestSavedName(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"http://example.org/data/set.csv?v=2", "set.csv"},
		{"http://example.org/", "download"},
		{"http://example.org/..", "download"},
		{"http://example.org/a%2F..%2Fb", "b"}, // the path decoded, then its last segment
		{`http://example.org/x"y z.bin`, "x_y_z.bin"},
		{"http://example.org/Zürich.pdf", "Z_rich.pdf"},
		{"::not a url/f.txt", "f.txt"},
	} {
		if got := savedName(tt.url); got != tt.want {
			t.Errorf("savedName(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}
