package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/recorder"
)

// TeamUpload is what an upload to the team archive answered.
type TeamUpload = api.TeamUpload

// team is the team archive, as the extension uses it: sessions uploaded to it
// (teamupload.go, without the payloads it holds: teamdedup.go), its URL database
// loaded, and replay from it (teamreplay.go).
type team struct {
	settings *userSettings
	http     *clients
	store    Store
	jobs     *jobs
	sessions *sessions
	db       *urlDatabase
	replay   teamReplay // the replays from the team archive
}

// routes adds the team archive's routes: upload a session, load its URL database,
// its captures of a URL and replay from it.
func (tm *team) routes(mux *routeTable) {
	mux.HandleFunc("POST /api/sessions/{id}/upload", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		job, err := tm.upload(r.PathValue("id"), r.URL.Query().Get("overwrite") == "1")
		answerJob(w, job, conflict(err))
	})
	mux.HandleFunc("POST /api/urldb/team", func(w httpmsg.ResponseWriter, r *httpmsg.Request) {
		info, err := tm.loadDatabase(r.Context())
		answer(w, httpmsg.StatusOK, info, badGateway(err))
	})
	tm.routeReplay(mux)
}

// errNoTeam is the error of a call to the team archive when none is set.
var errNoTeam = errors.New("no team archive is set: give its address and a token on the options page")

// request makes a request to the team archive with the configured token.
func (tm *team) request(ctx context.Context, method, path string, body io.Reader, size int64) (*httpmsg.Response, error) {
	return tm.requestWith(ctx, method, path, body, size, nil)
}

// requestWith is request with more request header fields (a Range).
func (tm *team) requestWith(ctx context.Context, method, path string, body io.Reader, size int64, header map[string]string) (*httpmsg.Response, error) {
	set := tm.settings.get()
	if !set.HasTeam() {
		return nil, errNoTeam
	}
	// The query is kept apart: JoinPath would escape its "?" into the path.
	path, query, _ := strings.Cut(path, "?")
	u, err := url.JoinPath(set.TeamEndpoint, path)
	if err != nil {
		return nil, fmt.Errorf("team endpoint: %w", err)
	}
	if query != "" {
		u += "?" + query
	}
	req, err := httpmsg.NewRequest(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		req.ContentLength = size
	}
	req.Header.Set("Authorization", "Bearer "+set.TeamToken)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := tm.http.client(true).Do(req)
	if err != nil {
		return nil, fmt.Errorf("team archive at %s: %w", set.TeamEndpoint, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		var e struct{ Error string }
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		switch resp.StatusCode {
		case httpmsg.StatusUnauthorized:
			err = fmt.Errorf("the team archive refused the token (%s): check it on the options page", e.Error)
		default:
			err = fmt.Errorf("the team archive answered %s: %s", resp.Status, e.Error)
		}
		return nil, &teamError{status: resp.StatusCode, err: err}
	}
	return resp, nil
}

// upload starts a job that sends a session's bundle to the team archive, in parts
// (see uploadParts); an upload of the session already running is returned as it is.
func (tm *team) upload(id string, overwrite bool) (*Job, error) {
	sess, err := tm.sessions.find(id)
	if err != nil {
		return nil, err
	}
	if !tm.settings.teamSet() {
		return nil, errNoTeam
	}
	return tm.startUpload(sess, overwrite), nil
}

// loadDatabase replaces the URL database with the team's shared one.
func (tm *team) loadDatabase(ctx context.Context) (DatabaseInfo, error) {
	resp, err := tm.request(ctx, httpmsg.MethodGet, "/api/urldb", nil, -1)
	if err != nil {
		return tm.db.Info(), err
	}
	defer resp.Body.Close()
	f, err := storeFile(ctx, tm.store, recorder.NewSpoolPrefix(), resp.Body, maxDatabaseUpload, nil)
	if err != nil {
		return tm.db.Info(), fmt.Errorf("the team's URL database: %w", err)
	}
	defer f.remove()
	files, err := databaseFiles(ctx, "the team's URL database", "application/zip", f, f.Size())
	if err != nil {
		return tm.db.Info(), err
	}
	return tm.db.replace(ctx, files, nil)
}
