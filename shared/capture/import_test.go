package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/warc"
)

// warc10 returns a plain WARC/1.0 file with a response for each body, its URL
// http://example.org/<i>.
func warc10(t testing.TB, bodies ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, warc.WriterOptions{Version: warc.V10, MaxBuffer: 1 << 30})
	for i, body := range bodies {
		block := append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", len(body))), body...)
		if _, err := w.WriteRecord(&warc.Record{
			Type: warc.TypeResponse, TargetURI: fmt.Sprintf("http://example.org/%d", i), ContentType: "application/http; msgtype=response",
			Block: bytes.NewReader(block), BlockLength: int64(len(block)),
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sessionSnapshot is every key and value of the sessions in store, to show that
// nothing recorded was touched.
func sessionSnapshot(t testing.TB, store Store) map[string]string {
	t.Helper()
	keys, err := store.Keys("s/")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, k := range keys {
		b, _ := store.Get(k)
		m[k] = string(b)
	}
	return m
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// recordedService returns a service with one session recorded into.
func recordedService(t testing.TB, store Store) *Service {
	t.Helper()
	svc, err := NewService(store, newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := createSession(store, "recorded", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	svc.sessions.add(sess)
	for _, ex := range sampleExchanges() {
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	return svc
}

func TestImportOfARecordOver32MiB(t *testing.T) {
	// A WARC/1.0 with one 40 MiB response: its block is spooled through the store
	// (there are no temporary files under GOOS=js), and it comes back whole.
	body := bytes.Repeat([]byte("forty mebibytes "), 40<<20/16)
	store := &countingStore{Store: NewMemStore(), prefix: "spool/"}
	svc, _ := NewService(store, newFakeHost())
	var info SessionInfo
	file := warc10(t, []byte("small"), body)
	if j := runJob(t, nethttp.Handler(svc.Handler()), "POST", "/api/import?name=big.warc", "", file, &info); j.State != "done" {
		t.Fatalf("import: %+v", j)
	}
	// The upload went to the store, and so did the large block: not to a temporary
	// file, which the browser does not have.
	if store.put < int64(len(file)+len(body)) {
		t.Errorf("%d bytes spooled in the store, want the upload (%d) and the block (%d)", store.put, len(file), len(body))
	}
	if info.Name != "big.warc" || info.Exchanges < 2 {
		t.Fatalf("imported: %+v", info)
	}
	sess, _ := svc.sessions.find(info.ID)
	src, _ := sess.WARC()
	rd, err := warc.NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	rd.Reassemble(true)
	var got []byte
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.TargetURI == "http://example.org/1" {
			b, err := io.ReadAll(rec.Block)
			if err != nil {
				t.Fatal(err)
			}
			got = b
		}
	}
	if _, b, ok := bytes.Cut(got, []byte("\r\n\r\n")); !ok || !bytes.Equal(b, body) {
		t.Errorf("the 40 MiB body came back as %d bytes", len(got))
	}
	if keys, _ := store.Keys("spool/"); len(keys) > 0 {
		t.Errorf("spooled chunks left behind: %d", len(keys))
	}
}

func TestAFailedImportLeavesNoSessionAndTouchesNoOther(t *testing.T) {
	store := NewMemStore()
	svc := recordedService(t, store)
	before := sessionSnapshot(t, store)
	good := warc10(t, []byte("one"), []byte("two"))
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"hello.warc", []byte("hello")},
		{"cut.warc", good[:len(good)-40]},
		{"broken.zip", []byte("PK\x03\x04garbage")},
		{"empty.zip", dbZip(t, map[string]string{"README": "no WARC here"})},
	} {
		j := runJob(t, nethttp.Handler(svc.Handler()), "POST", "/api/import?name="+tc.name, "", tc.body, nil)
		if j.State != "failed" || !strings.Contains(j.Error, "import "+tc.name+": ") {
			t.Errorf("%s: %+v", tc.name, j)
		}
	}
	if after := sessionSnapshot(t, store); !sameSnapshot(before, after) {
		t.Errorf("failed imports changed the sessions: %d keys before, %d after", len(before), len(after))
	}
	if list, _ := svc.sessions.list(); len(list) != 1 || list[0].Name != "recorded" {
		t.Errorf("sessions after failed imports: %+v", list)
	}
	if keys, _ := store.Keys("spool/"); len(keys) > 0 {
		t.Errorf("spooled chunks left behind: %d", len(keys))
	}
}

// countingStore counts the bytes put under prefix.
type countingStore struct {
	Store
	prefix string
	mu     sync.Mutex
	put    int64
}

func (c *countingStore) Put(key string, value []byte) error {
	if strings.HasPrefix(key, c.prefix) {
		c.mu.Lock()
		c.put += int64(len(value))
		c.mu.Unlock()
	}
	return c.Store.Put(key, value)
}

// gateStore holds the first Get of a key under prefix until open is closed.
type gateStore struct {
	Store
	prefix  string
	reached chan struct{}
	open    chan struct{}
	once    sync.Once
}

func newGateStore(s Store, prefix string) *gateStore {
	return &gateStore{Store: s, prefix: prefix, reached: make(chan struct{}), open: make(chan struct{})}
}

func (g *gateStore) Get(key string) ([]byte, error) {
	if strings.HasPrefix(key, g.prefix) {
		g.once.Do(func() { close(g.reached) })
		<-g.open
	}
	return g.Store.Get(key)
}

// cancelled starts a job with the request, cancels it once it reads the upload from
// the store, and returns the job when it has ended.
func cancelled(t *testing.T, svc *Service, gate *gateStore, path, contentType string, body []byte) Job {
	t.Helper()
	h := nethttp.Handler(svc.Handler())
	var ref struct {
		Job string `json:"job"`
	}
	if rec := send(t, h, "POST", path, contentType, body, &ref); rec.Code != http.StatusAccepted {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	<-gate.reached
	if rec := send(t, h, "DELETE", "/api/jobs/"+ref.Job, "", nil, nil); rec.Code != http.StatusNoContent {
		t.Fatalf("cancel: %d %s", rec.Code, rec.Body)
	}
	close(gate.open)
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var j Job
		send(t, h, "GET", "/api/jobs/"+ref.Job, "", nil, &j)
		if j.State != "running" {
			return j
		}
	}
	t.Fatal("the cancelled job did not end")
	return Job{}
}

func TestCancelledJobsChangeNothing(t *testing.T) {
	t.Run("import", func(t *testing.T) {
		gate := newGateStore(NewMemStore(), "spool/")
		svc := recordedService(t, gate)
		before := sessionSnapshot(t, gate)
		j := cancelled(t, svc, gate, "/api/import?name=x.warc", "", warc10(t, []byte("one"), []byte("two")))
		if j.State != "cancelled" {
			t.Errorf("job: %+v", j)
		}
		if after := sessionSnapshot(t, gate); !sameSnapshot(before, after) {
			t.Errorf("a cancelled import changed the sessions: %d keys before, %d after", len(before), len(after))
		}
		if keys, _ := gate.Keys("spool/"); len(keys) > 0 {
			t.Errorf("spooled chunks left behind: %d", len(keys))
		}
	})
	t.Run("urldb", func(t *testing.T) {
		gate := newGateStore(NewMemStore(), "spool/")
		svc, _ := NewService(gate, newFakeHost())
		if _, err := svc.db.Replace(realDatabaseFiles(t)); err != nil {
			t.Fatal(err)
		}
		was := svc.db.Info()
		j := cancelled(t, svc, gate, "/api/urldb", "application/zip", dbZip(t, map[string]string{"example.org.yaml": demoDomain}))
		if j.State != "cancelled" {
			t.Errorf("job: %+v", j)
		}
		if now := svc.db.Info(); now.Records != was.Records || len(now.Domains) != len(was.Domains) {
			t.Errorf("a cancelled load changed the database: %d records before, %d after", was.Records, now.Records)
		}
	})
}

func TestImportAboveTheLimitIsRefused(t *testing.T) {
	store := NewMemStore()
	_, err := storeFile(context.Background(), store, "spool/x/", io.LimitReader(zeros{}, 3*storedChunk+1), 3*storedChunk, nil)
	if !errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), "limit of 3 MiB") {
		t.Errorf("err = %v", err)
	}
	if keys, _ := store.Keys("spool/"); len(keys) > 0 {
		t.Errorf("chunks left behind: %v", keys)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
