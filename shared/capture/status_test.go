package capture

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

// TestErrorStatuses holds the API's failures to their statuses and bodies: each
// route's own, an unknown session's (404 whatever the route), and the team
// archive's (409 when none is set where a request would ask it, 502 when it fails).
func TestErrorStatuses(t *testing.T) {
	store := NewMemStore()
	svc, _ := NewService(store, newFakeHost())
	h := nethttp.Handler(svc.Handler())
	sess, _ := createSession(store, "one", time.Now())
	svc.sessions.add(sess)
	for _, ex := range sampleExchanges() {
		sess.WriteExchange(ex)
	}
	other, _ := createSession(store, "recording", time.Now())
	svc.sessions.add(other)
	svc.state.Session = other.info.ID
	id := "/api/sessions/" + sess.info.ID
	for _, c := range []struct {
		method, path, body string
		code               int
		error              string
	}{
		{"DELETE", "/api/sessions/nope", "", 404, "no such session: nope"},
		{"DELETE", "/api/sessions/" + other.info.ID, "", 409, "is being recorded"},
		{"GET", "/api/sessions/nope/report", "", 404, "no such session: nope"},
		{"POST", "/api/sessions/nope/upload", "", 404, "no such session: nope"},
		{"POST", id + "/upload", "", 409, "no team archive is set"},
		{"POST", "/api/urldb/team", "", 502, "no team archive is set"},
		{"GET", "/api/team/captures?url=http://example.com/", "", 409, "no team archive is set"},
		{"GET", "/api/team/captures?url=http://example.com/&limit=0", "", 400, "limit="},
		{"POST", "/api/team/replay/start?url=http://example.com/", "", 409, "no team archive is set"},
		{"POST", "/api/team/replay/start?ts=x", "", 400, "ts="},
		{"GET", "/api/signing-key", "", 404, "signs no WACZ"},
		{"GET", id + "/record?offset=x", "", 400, "offset: want"},
		{"GET", id + "/record?offset=999999999", "", 404, "no record at offset"},
		{"GET", id + "/other.txt", "", 404, "no file"},
		{"PATCH", id, `{"name": 1}`, 400, "rename: want"},
		{"GET", "/api/jobs/nope", "", 404, `no job \"nope\"`},
		{"DELETE", "/api/jobs/nope", "", 404, `no job \"nope\"`},
		{"POST", "/api/record/start?tab=0", "", 400, "tab: want"},
		{"POST", "/api/urldb/records", `{"session": "nope"}`, 404, "no such session: nope"},
		{"POST", "/api/urldb/records", `{"session": "` + sess.info.ID + `", "offset": 999999999}`, 400, "no record at offset"},
		{"POST", "/api/urldb/check", `{"session": "nope"}`, 409, ""},
		{"PUT", "/api/settings", `{"signWith": "nobody"}`, 400, "signWith"},
		{"POST", "/api/import", "", 400, "the file is empty"},
		{"POST", "/api/replay/" + sess.info.ID + "/answer", "[]", 400, "not valid JSON"},
	} {
		rec := send(t, h, c.method, c.path, "application/json", []byte(c.body), nil)
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.error) || !strings.HasPrefix(rec.Body.String(), `{"error":`) {
			t.Errorf("%s %s: %d %s, want %d and an error saying %q", c.method, c.path, rec.Code, rec.Body, c.code, c.error)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q", c.method, c.path, ct)
		}
	}

	// With the team's key to sign with and no team archive set, a WACZ download
	// fails: the server's fault, not the request's.
	svc.settings.mu.Lock()
	svc.settings.current.SignWith = "team"
	svc.settings.mu.Unlock()
	if rec := send(t, h, "GET", id+"/wacz", "", nil, nil); rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "no team archive is set") {
		t.Errorf("wacz signed by no team: %d %s", rec.Code, rec.Body)
	}
}
