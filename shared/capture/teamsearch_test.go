package capture

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/teamarchive"
)

// A session uploaded to a real team archive (shared/teamarchive on 127.0.0.1) is
// found by TeamSearch, in the form of the extension's own search.
func TestTeamSearch(t *testing.T) {
	team := httptest.NewServer(teamarchive.NewServer(teamarchive.Config{Bucket: teamarchive.NewMemBucket(), Tokens: teamarchive.ParseTokens("alice:s3cret")}))
	defer team.Close()
	svc, err := NewService(NewMemStore(), newFakeHost())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := svc.TeamSearch(ctx, "monospaced", 5); !errors.Is(err, errNoTeam) {
		t.Errorf("without a team archive: %v", err)
	}
	set := Settings{HeaderPolicy: "redact", WARCVersion: "0.9", CDXDialect: "pywb-2.6.7", Agent: "webkeep", TeamEndpoint: team.URL, TeamToken: "s3cret"}
	if _, err := svc.settings.update(set); err != nil {
		t.Fatal(err)
	}
	h := nethttp.Handler(svc.Handler())
	info, err := svc.archive.importBody(ctx, "wikis.warc.gz", bytes.NewReader(wikiWARC(t)))
	if err != nil {
		t.Fatal(err)
	}
	// Nothing uploaded yet: nothing found, and an empty list (not null).
	res, err := svc.TeamSearch(ctx, "monospaced", 5)
	if err != nil || res.Total != 0 || res.Results == nil {
		t.Fatalf("before the upload: %+v, %v", res, err)
	}
	var started struct{ Job string }
	send(t, h, "POST", "/api/sessions/"+info.ID+"/upload", "", nil, &started)
	if job := waitJob(t, h, started.Job); job.State != "done" {
		t.Fatalf("upload: %+v", job)
	}

	syntax := "http://wiki.example/doku.php?id=wiki:syntax"
	res, err = svc.TeamSearch(ctx, "monospaced", 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || len(res.Results) != 1 {
		t.Fatalf("monospaced: %+v", res)
	}
	r := res.Results[0]
	if r.URL != syntax || r.Session == "" || r.Title != "wiki:syntax [webkeep test wiki]" || len(r.TS) != 14 ||
		r.Status != 200 || r.Mime != "text/html" || !strings.Contains(r.Snippet, "«monospaced»") {
		t.Errorf("result: %+v", r)
	}
	if r.Replay != api.TeamReplayLink(syntax, r.TS) {
		t.Errorf("replay link %q", r.Replay)
	}
	for _, tt := range []struct {
		query string
		limit int
		total int
		first string
	}{
		{`"Andreas Gohr" -monospaced`, 0, 1, "http://wiki.example/doku.php?id=wiki:dokuwiki"},
		{"Laxstrom", 0, 1, "http://mw.example/index.php?title=Special:Version"},
		{`"Gohr Andreas"`, 0, 0, ""},
		{"wiki session:" + r.Session, 1, -1, ""},
	} {
		res, err := svc.TeamSearch(ctx, tt.query, tt.limit)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tt.query, err)
		case tt.total >= 0 && res.Total != tt.total, tt.total < 0 && res.Total < 2:
			t.Errorf("%s: %d results", tt.query, res.Total)
		case tt.limit > 0 && len(res.Results) != tt.limit:
			t.Errorf("%s: %d results returned, limit %d", tt.query, len(res.Results), tt.limit)
		case tt.first != "" && res.Results[0].URL != tt.first:
			t.Errorf("%s: %s first, want %s", tt.query, res.Results[0].URL, tt.first)
		}
	}
	// The extension's own search with team=1: this browser's results, then the
	// team's, each saying where it lives.
	both := searchFor(t, h, "monospaced", "&team=1")
	if both.Total != 2 || len(both.Results) != 2 || both.Results[0].Source != "" || both.Results[0].Session != info.ID ||
		both.Results[1].Source != "team" || both.Results[1].Replay != r.Replay || both.TeamError != "" {
		t.Errorf("local and team: %+v", both)
	}
	// A query the archive cannot read, and a token it refuses, say so.
	if _, err := svc.TeamSearch(ctx, `"open`, 0); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a query that does not parse: %v", err)
	}
	set.TeamToken = "wrong"
	svc.settings.update(set)
	if _, err := svc.TeamSearch(ctx, "monospaced", 0); err == nil || !strings.Contains(err.Error(), "refused the token") {
		t.Errorf("a wrong token: %v", err)
	}
	if local := searchFor(t, h, "monospaced", "&team=1"); local.Total != 1 || !strings.Contains(local.TeamError, "refused the token") {
		t.Errorf("local and a team that refuses: %+v", local)
	}
}
