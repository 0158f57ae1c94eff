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

// errNoTeam is the error of a call to the team archive when none is set.
var errNoTeam = errors.New("no team archive is set: give its address and a token on the options page")

// teamRequest makes a request to the team archive with the configured token.
func (s *Service) teamRequest(ctx context.Context, method, path string, body io.Reader, size int64) (*httpmsg.Response, error) {
	return s.teamRequestWith(ctx, method, path, body, size, nil)
}

// teamRequestWith is teamRequest with more request header fields (a Range).
func (s *Service) teamRequestWith(ctx context.Context, method, path string, body io.Reader, size int64, header map[string]string) (*httpmsg.Response, error) {
	set := s.Settings()
	if set.TeamEndpoint == "" || set.TeamToken == "" {
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
	resp, err := s.client(true).Do(req)
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

// Upload starts a job that sends a session's bundle to the team archive, in parts
// (see uploadParts); an upload of the session already running is returned as it is.
func (s *Service) Upload(id string, overwrite bool) (*Job, error) {
	sess, err := s.Session(id)
	if err != nil {
		return nil, err
	}
	if set := s.Settings(); set.TeamEndpoint == "" || set.TeamToken == "" {
		return nil, errNoTeam
	}
	return s.startUpload(sess, overwrite), nil
}

// LoadTeamDatabase replaces the URL database with the team's shared one.
func (s *Service) LoadTeamDatabase(ctx context.Context) (DatabaseInfo, error) {
	resp, err := s.teamRequest(ctx, httpmsg.MethodGet, "/api/urldb", nil, -1)
	if err != nil {
		return s.db.Info(), err
	}
	defer resp.Body.Close()
	f, err := storeFile(ctx, s.store, recorder.NewSpoolPrefix(), resp.Body, maxDatabaseUpload, nil)
	if err != nil {
		return s.db.Info(), fmt.Errorf("the team's URL database: %w", err)
	}
	defer f.remove()
	files, err := databaseFiles(ctx, "the team's URL database", "application/zip", f, f.Size())
	if err != nil {
		return s.db.Info(), err
	}
	return s.db.replace(ctx, files, nil)
}
