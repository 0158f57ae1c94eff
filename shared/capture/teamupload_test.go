package capture

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/teamarchive"
)

const teamPart = 4096

// teamArchive is a team archive on 127.0.0.1 taking parts of teamPart bytes, which
// counts the parts it is sent.
type teamArchive struct {
	*httptest.Server
	bucket *teamarchive.MemBucket
	mu     sync.Mutex
	puts   map[string]int // part number: times received
	// digests, when set, answers POST /api/digests in the archive's place.
	digests http.Handler
}

func newTeamArchive(t *testing.T) *teamArchive {
	t.Helper()
	a := &teamArchive{bucket: teamarchive.NewMemBucket(), puts: map[string]int{}}
	a.bucket.MinPartSize = teamPart
	srv := teamarchive.NewServer(teamarchive.Config{Bucket: a.bucket, Tokens: teamarchive.ParseTokens("alice:s3cret"), PartSize: teamPart})
	part := regexp.MustCompile(`^/api/uploads/[^/]+/[^/]+/(\d+)$`)
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := part.FindStringSubmatch(r.URL.Path); m != nil && r.Method == http.MethodPut {
			a.mu.Lock()
			a.puts[m[1]]++
			a.mu.Unlock()
		}
		a.mu.Lock()
		digests := a.digests
		a.mu.Unlock()
		if digests != nil && r.URL.Path == "/api/digests" {
			digests.ServeHTTP(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *teamArchive) partsSent() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]int{}
	for k, v := range a.puts {
		out[k] = v
	}
	return out
}

// flakyTransport passes requests to the archive, but for the PUT of part fail: the
// first failures of them fail as a dropped connection; with block set, it waits
// instead until the request is cancelled or block is closed.
type flakyTransport struct {
	fail     string
	failures int
	block    chan struct{}
	mu       sync.Mutex
	blocked  chan struct{} // closed when a request blocks
	once     sync.Once
}

func (f *flakyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/"+f.fail) {
		if f.block != nil {
			f.once.Do(func() { close(f.blocked) })
			select {
			case <-f.block:
			case <-r.Context().Done():
			}
			return nil, errors.New("the service worker was stopped")
		}
		f.mu.Lock()
		failing := f.failures > 0
		f.failures--
		f.mu.Unlock()
		if failing {
			io.Copy(io.Discard, io.LimitReader(r.Body, 100))
			return nil, errors.New("connection reset by peer")
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// bigSession is a session whose bundle takes many parts: a response of 200 KB of
// random bytes among the sample exchanges.
func bigSession(t *testing.T, store Store, svc *Service) *Session {
	t.Helper()
	sess, err := createSession(store, "big", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	svc.sessions.add(sess)
	body := make([]byte, 200<<10)
	rand.Read(body)
	exs := sampleExchanges()
	exs = append(exs, &recorder.Exchange{Started: exs[0].Started.Add(time.Minute), Method: "GET", URL: "http://example.org/big.bin", Status: 200, StatusText: "OK",
		RespHeader: recorder.Fields{{Name: "Content-Type", Value: "application/octet-stream"}}, RespBody: body})
	for _, ex := range exs {
		if err := sess.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	return sess
}

func teamService(t *testing.T, store Store, a *teamArchive, rt http.RoundTripper) *Service {
	t.Helper()
	svc, err := NewService(store, newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	svc.http.test = nethttp.Client{Client: &http.Client{Transport: rt}}
	svc.settings.update(Settings{HeaderPolicy: "redact", WARCVersion: "0.9", CDXDialect: "pywb-2.6.7", Agent: "webkeep", TeamEndpoint: a.URL, TeamToken: "s3cret"})
	return svc
}

// wantUploaded checks that the archive lists the session's bundle, byte-identical,
// and that nothing of the upload is left on either side.
func wantUploaded(t *testing.T, a *teamArchive, store Store, sess *Session) {
	t.Helper()
	var want bytes.Buffer
	if err := sess.WriteBundle(&want); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", a.URL+"/api/bundles/"+sess.BaseName()+".zip", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the archive has %d bytes (status %d), the bundle is %d", len(got), resp.StatusCode, want.Len())
	}
	if n := a.bucket.Uploads(); n != 0 {
		t.Errorf("%d multipart uploads left in the archive", n)
	}
	for _, k := range a.bucket.Keys() {
		if strings.HasPrefix(k, "uploads/") || strings.HasPrefix(k, "parts/") {
			t.Errorf("left in the archive: %s", k)
		}
	}
	if keys, _ := store.Keys(teamUploadPrefix); len(keys) != 0 {
		t.Errorf("left in the store: %v", keys)
	}
}

func init() { partRetryDelay = time.Millisecond }

func TestUploadInPartsRetriesAFailedPart(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, &flakyTransport{fail: "3", failures: 2})
	sess := bigSession(t, store, svc)
	job, err := svc.team.upload(sess.info.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID)
	if done.State != "done" {
		t.Fatalf("upload: %+v", done)
	}
	var bundle bytes.Buffer
	sess.WriteBundle(&bundle)
	if done.Done != bundle.Len() || done.Total != bundle.Len() {
		t.Errorf("progress %d of %d, want %d", done.Done, done.Total, bundle.Len())
	}
	if parts := bundle.Len()/teamPart + 1; len(a.partsSent()) != parts || a.partsSent()["1"] != 1 {
		t.Errorf("parts sent %v, want %d once each", a.partsSent(), parts)
	}
	var res TeamUpload
	b, _ := json.Marshal(done.Result)
	json.Unmarshal(b, &res)
	if res.Name != sess.BaseName()+".zip" || res.Size != int64(bundle.Len()) {
		t.Errorf("result %+v", res)
	}
	wantUploaded(t, a, store, sess)
}

func TestUploadInPartsFailsClearlyAndResumes(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, &flakyTransport{fail: "4", failures: partAttempts})
	sess := bigSession(t, store, svc)
	job, _ := svc.team.upload(sess.info.ID, false)
	done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID)
	if done.State != "failed" || !strings.Contains(done.Error, "sending part 4 (4096 bytes)") || !strings.Contains(done.Error, "connection reset by peer") || !strings.Contains(done.Error, "resumes where it stopped") {
		t.Fatalf("upload with the network down: %+v", done)
	}
	// Uploaded again, it sends part 4 on, not the first three.
	svc.http.test = nethttp.Client{Client: &http.Client{}}
	job, _ = svc.team.upload(sess.info.ID, false)
	if done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID); done.State != "done" {
		t.Fatalf("resumed upload: %+v", done)
	}
	sent := a.partsSent()
	if sent["1"] != 1 || sent["3"] != 1 || sent["4"] != 1 || sent["5"] != 1 {
		t.Errorf("parts sent %v: want each once (part 4's failures never arrived)", sent)
	}
	wantUploaded(t, a, store, sess)
}

// TestUploadInPartsResumesAfterARestart: the service worker stops in the middle of a
// part; the next service on the same store goes on with the upload by itself, under
// the same job id, from the part that did not arrive.
func TestUploadInPartsResumesAfterARestart(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	stuck := &flakyTransport{fail: "5", block: make(chan struct{}), blocked: make(chan struct{})}
	defer close(stuck.block)
	first := teamService(t, store, a, stuck)
	sess := bigSession(t, store, first)
	job, _ := first.team.upload(sess.info.ID, false)
	<-stuck.blocked

	second, err := NewService(store, newFakeHost()) // resumes the upload on start
	if err != nil {
		t.Fatal(err)
	}
	done := waitJob(t, nethttp.Handler(second.Handler()), job.ID)
	if done.State != "done" {
		t.Fatalf("resumed upload: %+v", done)
	}
	sent := a.partsSent()
	for n := 1; n <= 6; n++ {
		if sent[fmt.Sprint(n)] != 1 {
			t.Errorf("part %d sent %d times (parts sent %v)", n, sent[fmt.Sprint(n)], sent)
		}
	}
	wantUploaded(t, a, store, sess)
}

// TestUploadInPartsOfAChangedSession: a session changed since its upload stopped is
// uploaded again from the start; the stale upload is aborted on the archive.
func TestUploadInPartsOfAChangedSession(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, &flakyTransport{fail: "3", failures: partAttempts})
	sess := bigSession(t, store, svc)
	job, _ := svc.team.upload(sess.info.ID, false)
	if done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID); done.State != "failed" {
		t.Fatalf("upload with the network down: %+v", done)
	}
	ex := sampleExchanges()[0]
	ex.Started = ex.Started.Add(time.Hour)
	sess.WriteExchange(ex)
	if sess.Info().Updated.Equal(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) {
		t.Fatal("writing an exchange did not change the session's Updated")
	}
	svc.http.test = nethttp.Client{Client: &http.Client{}}
	job, _ = svc.team.upload(sess.info.ID, false)
	if done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID); done.State != "done" {
		t.Fatalf("upload of the changed session: %+v", done)
	}
	if sent := a.partsSent(); sent["1"] != 2 {
		t.Errorf("part 1 sent %d times, want twice (the first upload, then the new one)", sent["1"])
	}
	wantUploaded(t, a, store, sess)
}

// TestUploadInPartsDetectsChangedBytes: parts the archive has that are not those the
// session gives now end the upload with an error saying so, and abort it.
func TestUploadInPartsDetectsChangedBytes(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, &flakyTransport{fail: "3", failures: partAttempts})
	sess := bigSession(t, store, svc)
	job, _ := svc.team.upload(sess.info.ID, false)
	waitJob(t, nethttp.Handler(svc.Handler()), job.ID)
	st, err := loadUploadState(store, sess.info.ID)
	if err != nil || len(st.Parts) != 2 {
		t.Fatalf("state after the failure: %+v %v", st, err)
	}
	sum := sha256.Sum256([]byte("another part"))
	st.Parts[1] = hex.EncodeToString(sum[:])
	st.save(store)
	job, _ = svc.team.upload(sess.info.ID, false)
	done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID)
	if done.State != "failed" || !strings.Contains(done.Error, "the session changed since its upload began (part 2 differs from the one sent): upload it again") {
		t.Fatalf("upload over changed parts: %+v", done)
	}
	if n := a.bucket.Uploads(); n != 0 {
		t.Errorf("%d multipart uploads left", n)
	}
	if keys, _ := store.Keys(teamUploadPrefix); len(keys) != 0 {
		t.Errorf("left in the store: %v", keys)
	}
}

func TestUploadInPartsCancelled(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	stuck := &flakyTransport{fail: "2", block: make(chan struct{}), blocked: make(chan struct{})}
	defer close(stuck.block)
	svc := teamService(t, store, a, stuck)
	sess := bigSession(t, store, svc)
	job, _ := svc.team.upload(sess.info.ID, false)
	<-stuck.blocked
	if again, _ := svc.team.upload(sess.info.ID, false); again.ID != job.ID {
		t.Errorf("a second upload of a running one started job %s", again.ID)
	}
	if rec := send(t, nethttp.Handler(svc.Handler()), "DELETE", "/api/jobs/"+job.ID, "", nil, nil); rec.Code != http.StatusNoContent {
		t.Fatalf("cancel: %d %s", rec.Code, rec.Body)
	}
	if done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID); done.State != "cancelled" {
		t.Fatalf("cancelled upload: %+v", done)
	}
	if n := a.bucket.Uploads(); n != 0 || len(a.bucket.Keys()) != 0 {
		t.Errorf("after cancelling: %d uploads, keys %v", n, a.bucket.Keys())
	}
	if keys, _ := store.Keys(teamUploadPrefix); len(keys) != 0 {
		t.Errorf("left in the store: %v", keys)
	}
}

// A bundle the team already has is refused unless the upload asks to replace it; asked,
// the replacement goes through (the query reaches the archive as a query).
func TestUploadInPartsOverwrite(t *testing.T) {
	a := newTeamArchive(t)
	store := NewMemStore()
	svc := teamService(t, store, a, http.DefaultTransport)
	sess := bigSession(t, store, svc)
	for _, tc := range []struct {
		overwrite bool
		state     string
	}{{false, "done"}, {false, "failed"}, {true, "done"}} {
		job, err := svc.team.upload(sess.info.ID, tc.overwrite)
		if err != nil {
			t.Fatal(err)
		}
		if done := waitJob(t, nethttp.Handler(svc.Handler()), job.ID); done.State != tc.state {
			t.Fatalf("overwrite=%v: %+v, want %s", tc.overwrite, done, tc.state)
		}
	}
	wantUploaded(t, a, store, sess)
}
