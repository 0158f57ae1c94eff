package capture

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/datatxt"
	"github.com/webkeep/webkeep/shared/recorder"
	"github.com/webkeep/webkeep/shared/urldb"
)

// CheckReport is the result of checking every URL of the database.
type CheckReport = api.CheckReport

// fetchRefused explains the browser's one error for a request it could not make or
// would not let the extension read: without host access, a site that does not allow
// other origins to read it (CORS) fails so, as a site that is down does.
const fetchRefused = "(the browser could not reach the site, or did not let webkeep read it: Check all asks for access to the database's sites; without it, only sites that let any site read them can be checked)"

// checkConcurrency bounds the requests a browser makes at once for a check.
const checkConcurrency = 6

// checkAll starts a job that fetches every URL of the database and checks it. With
// record set, each response is archived into the session with the id (a new one if
// empty).
func (d *database) checkAll(sessionID string, record bool) (*Job, error) {
	entries, err := d.Entries()
	if err != nil {
		return nil, err
	}
	var sess *Session
	if record {
		if sessionID == "" {
			sess, err = d.sessions.create("Check "+d.now().UTC().Format("2006-01-02 15:04"), d.now())
		} else {
			sess, err = d.sessions.get(sessionID)
		}
		if err != nil {
			return nil, fmt.Errorf("check: session: %w", err)
		}
	}
	targets := urldb.Targets(entries, urldb.TargetOptions{})
	settings := d.settings.get()
	job := d.jobs.start("check", func(ctx context.Context, progress func(done, total int)) (any, error) {
		report := &CheckReport{Verdicts: []urldb.Verdict{}, Skipped: []string{}}
		if sess != nil {
			report.Session = sess.info.ID
		}
		client := d.http.checkClient()
		if settings.RespectDisallow {
			targets, report.Skipped = allowedTargets(ctx, d.http.client(true), targets, settings.Agent)
		}
		checker := &urldb.Checker{
			Client:      client,
			Concurrency: checkConcurrency,
			PerHost:     checkConcurrency,
			Progress:    func(done, total int) { progress(done, total) },
		}
		if sess != nil {
			checker.Archive = func(ex *urldb.Exchange) error { return sess.WriteExchange(fromChecked(ex)) }
		}
		progress(0, len(targets))
		err := checker.Check(ctx, targets, func(v urldb.Verdict) {
			report.Checked++
			if v.OK {
				report.Passed++
			} else {
				report.Failed++
			}
			if v.Status == 0 && strings.Contains(v.Problem, "Failed to fetch") {
				v.Note = strings.TrimSpace(v.Note + " " + fetchRefused)
			}
			report.Verdicts = append(report.Verdicts, v)
		})
		sort.SliceStable(report.Verdicts, func(i, j int) bool { return report.Verdicts[i].URL < report.Verdicts[j].URL })
		return report, err
	})
	return job, nil
}

// allowedTargets leaves out the URLs that their site's data.txt or robots.txt
// disallows for agent. A site without the files, or whose files cannot be read,
// restricts nothing.
func allowedTargets(ctx context.Context, client datatxt.Doer, targets []urldb.Target, agent string) (kept []urldb.Target, skipped []string) {
	files := map[string][]*datatxt.File{} // by origin
	skipped = []string{}
	for _, t := range targets {
		u, err := url.Parse(t.URL)
		if err != nil {
			kept = append(kept, t)
			continue
		}
		origin := u.Scheme + "://" + u.Host
		rules, ok := files[origin]
		if !ok {
			for _, name := range []string{"data.txt", "robots.txt"} {
				if where, err := datatxt.URL(origin, name); err == nil {
					if f, err := datatxt.Get(ctx, client, where); err == nil {
						rules = append(rules, f)
					}
				}
			}
			files[origin] = rules
		}
		allowed := true
		for _, f := range rules {
			allowed = allowed && f.Allowed(agent, u.RequestURI())
		}
		if allowed {
			kept = append(kept, t)
		} else {
			skipped = append(skipped, t.URL)
		}
	}
	return kept, skipped
}

// fromChecked turns an exchange made by the checker into one to archive.
func fromChecked(ex *urldb.Exchange) *recorder.Exchange {
	out := &recorder.Exchange{Started: ex.Date, Method: ex.Request.Method, URL: ex.Request.URL.String(), Protocol: "HTTP/1.1"}
	for name, vs := range ex.Request.Header {
		for _, v := range vs {
			out.ReqHeader = append(out.ReqHeader, recorder.Field{Name: name, Value: v})
		}
	}
	if ex.Response != nil {
		out.Status = ex.Response.StatusCode
		out.StatusText = strings.TrimSpace(strings.TrimPrefix(ex.Response.Status, fmt.Sprint(ex.Response.StatusCode)))
		names := make([]string, 0, len(ex.Response.Header))
		for name := range ex.Response.Header {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, v := range ex.Response.Header[name] {
				out.RespHeader = append(out.RespHeader, recorder.Field{Name: name, Value: v})
			}
		}
		out.RespBody = ex.Body
	}
	return out
}
