package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// TeamUpload is what an upload to the team archive answered.
type TeamUpload struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
	Size    int64  `json:"size"`
}

// teamRequest makes a request to the team archive with the configured token.
func (s *Service) teamRequest(ctx context.Context, method, path string, body io.Reader, size int64) (*http.Response, error) {
	set := s.Settings()
	if set.TeamEndpoint == "" || set.TeamToken == "" {
		return nil, fmt.Errorf("no team archive is set: give its address and a token on the options page")
	}
	u, err := url.JoinPath(set.TeamEndpoint, path)
	if err != nil {
		return nil, fmt.Errorf("team endpoint: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		req.ContentLength = size
	}
	req.Header.Set("Authorization", "Bearer "+set.TeamToken)
	resp, err := s.client().Do(req)
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
		case http.StatusUnauthorized, http.StatusForbidden:
			return nil, fmt.Errorf("the team archive refused the token (%s): check it on the options page", e.Error)
		default:
			return nil, fmt.Errorf("the team archive answered %s: %s", resp.Status, e.Error)
		}
	}
	return resp, nil
}

// client is the HTTP client for the team archive; tests set their own.
func (s *Service) client() *http.Client {
	if s.httpClient != nil {
		return s.httpClient
	}
	return http.DefaultClient
}

// Upload starts a job that sends a session's bundle to the team archive.
func (s *Service) Upload(id string, overwrite bool) (*Job, error) {
	sess, err := s.Session(id)
	if err != nil {
		return nil, err
	}
	if set := s.Settings(); set.TeamEndpoint == "" || set.TeamToken == "" {
		return nil, fmt.Errorf("no team archive is set: give its address and a token on the options page")
	}
	return s.jobs.start("upload", func(ctx context.Context, progress func(done, total int)) (any, error) {
		// The bundle is built in memory: the fetch behind Go's HTTP client in the
		// browser sends a body whole.
		var buf bytes.Buffer
		if err := sess.WriteBundle(&buf); err != nil {
			return nil, err
		}
		total := buf.Len()
		progress(0, total)
		name := sess.BaseName() + ".zip"
		path := "/api/bundles/" + name
		if overwrite {
			path += "?overwrite=1"
		}
		resp, err := s.teamRequest(ctx, http.MethodPut, path, &buf, int64(total))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		progress(total, total)
		var out TeamUpload
		json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out)
		if out.Name == "" {
			out.Name = name
		}
		return out, nil
	}), nil
}

// LoadTeamDatabase replaces the URL database with the team's shared one.
func (s *Service) LoadTeamDatabase(ctx context.Context) (DatabaseInfo, error) {
	resp, err := s.teamRequest(ctx, http.MethodGet, "/api/urldb", nil, -1)
	if err != nil {
		return s.db.Info(), err
	}
	defer resp.Body.Close()
	f, err := storeFile(ctx, s.store, newSpoolPrefix(), resp.Body, maxDatabaseUpload, nil)
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
