package capture

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/teamarchive"
)

func waitJob(t *testing.T, h http.Handler, id string) Job {
	t.Helper()
	var job Job
	deadline := time.Now().Add(20 * time.Second)
	for {
		send(t, h, "GET", "/api/jobs/"+id, "", nil, &job)
		if job.State != "running" || time.Now().After(deadline) {
			return job
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestUploadToTheTeamArchiveAndLoadItsDatabase(t *testing.T) {
	bucket := teamarchive.NewMemBucket()
	team := httptest.NewServer(teamarchive.NewServer(teamarchive.Config{Bucket: bucket, Tokens: teamarchive.ParseTokens("alice:s3cret")}))
	defer team.Close()
	store := NewMemStore()
	svc, _ := NewService(store, newFakeHost())
	h := nethttp.Handler(svc.Handler())
	sess, _ := createSession(store, "t", time.Now())
	svc.sessions.add(sess)
	for _, ex := range sampleExchanges() {
		sess.WriteExchange(ex)
	}

	if rec := send(t, h, "POST", "/api/sessions/"+sess.info.ID+"/upload", "", nil, nil); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "options page") {
		t.Errorf("upload without a team: %d %s", rec.Code, rec.Body)
	}
	svc.settings.update(Settings{HeaderPolicy: "redact", WARCVersion: "0.9", CDXDialect: "pywb-2.6.7", Agent: "webkeep", TeamEndpoint: team.URL, TeamToken: "wrong"})
	var started struct{ Job string }
	send(t, h, "POST", "/api/sessions/"+sess.info.ID+"/upload", "", nil, &started)
	if job := waitJob(t, h, started.Job); job.State != "failed" || !strings.Contains(job.Error, "refused the token") {
		t.Errorf("upload with a wrong token: %+v", job)
	}
	svc.settings.update(Settings{HeaderPolicy: "redact", WARCVersion: "0.9", CDXDialect: "pywb-2.6.7", Agent: "webkeep", TeamEndpoint: team.URL, TeamToken: "s3cret"})
	send(t, h, "POST", "/api/sessions/"+sess.info.ID+"/upload", "", nil, &started)
	if job := waitJob(t, h, started.Job); job.State != "done" {
		t.Fatalf("upload: %+v", job)
	}
	// The team archive lists it and finds its POST by key.
	req, _ := http.NewRequest("GET", team.URL+"/api/cdx?url=http://example.org/api&matchType=prefix", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if !strings.Contains(body.String(), "__wb_method=post") {
		t.Errorf("team CDX after upload: %s", body.String())
	}

	// The team's database, put there by someone else, loads into the extension.
	put, _ := http.NewRequest("PUT", team.URL+"/api/urldb/example.org.yaml", strings.NewReader(demoDomain))
	put.Header.Set("Authorization", "Bearer s3cret")
	if resp, err := http.DefaultClient.Do(put); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("seeding the team database: %v %v", err, resp.Status)
	}
	var info DatabaseInfo
	if rec := send(t, h, "POST", "/api/urldb/team", "", nil, &info); rec.Code != http.StatusOK {
		t.Fatalf("load team database: %d %s", rec.Code, rec.Body)
	}
	if info.Records != 3 {
		t.Errorf("team database: %+v", info)
	}
}
