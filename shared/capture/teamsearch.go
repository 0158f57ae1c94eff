package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"

	"github.com/webkeep/webkeep/shared/api"
)

// maxTeamSearchAnswer bounds the answer of a team search read (1000 results
// with their snippets are about 1 MB).
const maxTeamSearchAnswer = 16 << 20

// TeamSearch searches the text of the team archive's bundles
// (GET /api/search on the team archive) with a query as ParseQuery reads it
// (words, "phrases", -exclusions, filters; session: names a bundle), and
// returns at most limit results (0: the archive's default, 20), best first,
// in the form of the extension's own search: each result's Session is the
// bundle that holds the page, and its Replay the link that replays the page
// from the team archive.
func (s *Service) TeamSearch(ctx context.Context, query string, limit int) (api.SearchResults, error) {
	return s.team.search(ctx, query, limit)
}

// search is TeamSearch.
func (tm *team) search(ctx context.Context, query string, limit int) (api.SearchResults, error) {
	v := url.Values{"q": {query}}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	resp, err := tm.request(ctx, "GET", "/api/search?"+v.Encode(), nil, -1)
	if err != nil {
		return api.SearchResults{}, fmt.Errorf("team search: %w", err)
	}
	defer resp.Body.Close()
	var res api.SearchResults
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxTeamSearchAnswer))
	if err := dec.Decode(&res); err != nil {
		return api.SearchResults{}, fmt.Errorf("team search: reading the team archive's answer: %w", err)
	}
	if res.Results == nil {
		res.Results = []api.SearchResult{}
	}
	for i := range res.Results {
		r := &res.Results[i]
		r.Replay = api.TeamReplayLink(r.URL, r.TS)
		r.Source = "team"
	}
	return res, nil
}
