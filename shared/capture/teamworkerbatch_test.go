package capture

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/webkeep/webkeep/shared/replay"
	"github.com/webkeep/webkeep/shared/teamarchive"
)

// A page's batch made by the team archive's Worker (shared/teamarchive's server, as
// the Worker runs it): one request to the archive instead of three, the batch the
// extension makes itself from the same bundle, kept, and taken again after the
// archive's lookup alone (304).
func TestTeamReplayBatchFromTheWorker(t *testing.T) {
	a, _ := teamFixture(t)
	const token = "alice-secret-0123456789"
	srv := teamarchive.NewServer(teamarchive.Config{Bucket: teamarchive.NewMemBucket(), Tokens: teamarchive.ParseTokens("alice:" + token)})
	var mu sync.Mutex
	var asked []string
	archive := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+r.Header.Get("If-None-Match")))
		mu.Unlock()
		srv.ServeHTTP(w, r)
	}))
	defer archive.Close()
	put, _ := http.NewRequest("PUT", archive.URL+"/api/bundles/"+a.file, bytes.NewReader(a.warc))
	put.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(put); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("uploading %s: %v %v", a.file, resp, err)
	}
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := asked
		asked = nil
		return out
	}
	take()

	batch := func(h http.Handler) (map[string]string, string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/team/replay/batch?url="+trEscape("http://example.org/page")+"&ts=20250301", nil))
		answers, bodies, err := replay.ReadBatch(rec.Body)
		if rec.Code != 200 || err != nil {
			t.Fatalf("batch: %d %v", rec.Code, err)
		}
		got := map[string]string{}
		for i, a := range answers {
			got[a.URL] = fmt.Sprintf("%d %s %.100s", a.Status, a.Timestamp, bodies[i])
		}
		return got, rec.Header().Get("Server-Timing")
	}
	// The batch the extension makes itself, from an archive without the route.
	_, own := replayTeamService(t, newFakeTeam(t, "s3cret", a), "s3cret")
	want, _ := batch(own)
	if len(want) != 4 {
		t.Fatalf("the extension's own batch: %v", want)
	}

	_, h := replayTeamService(t, &fakeTeam{Server: archive}, token)
	got, timing := batch(h)
	if !maps.Equal(got, want) {
		t.Errorf("the Worker's batch:\n%v\nwant the extension's own\n%v", got, want)
	}
	if requests := take(); !slices.Equal(requests, []string{"GET /api/replay/batch"}) {
		t.Errorf("the Worker's batch took %q, want one request", requests)
	}
	if !strings.Contains(timing, "guess;desc=worker") || !strings.Contains(timing, "trip;dur=") || !strings.Contains(timing, "lookup;dur=") || !strings.Contains(timing, "ranges;desc=1") {
		t.Errorf("the Worker's batch: Server-Timing %q", timing)
	}
	// Again: the batch kept is named, and the Worker's lookup finds its capture.
	got, timing = batch(h)
	if !maps.Equal(got, want) {
		t.Errorf("the batch kept:\n%v\nwant\n%v", got, want)
	}
	if requests := take(); len(requests) != 1 || !strings.HasPrefix(requests[0], `GET /api/replay/batch "file=`) {
		t.Errorf("the batch kept took %q, want one request naming it", requests)
	}
	if !strings.Contains(timing, "guess;desc=kept") {
		t.Errorf("the batch kept: Server-Timing %q", timing)
	}
}
