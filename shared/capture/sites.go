package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/datatxt"
	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/recorder"
)

// Site is what a recorded site says of itself in /data.txt and /robots.txt.
type Site = api.Site

// SiteFile is one of a site's rule files.
type SiteFile = api.SiteFile

// siteFiles reads the /data.txt and /robots.txt of each site a recording visits,
// once per session, in the background, into the session (Session.AddSite).
type siteFiles struct {
	host recorder.Browser

	mu sync.Mutex
	// session is the session whose sites seen holds: a page of another session
	// starts the list again, so it never holds more than one recording's origins.
	session string
	seen    map[string]bool // origins whose files are read or being read
	bg      sync.WaitGroup  // the readings under way
}

// read reads, in the background, the site files of a page's origin into sess,
// unless the session has them already. agent is the user agent the rules are read
// for.
func (f *siteFiles) read(sess *Session, p recorder.Page, agent string) {
	origin := p.URL
	if u, err := url.Parse(p.URL); err == nil {
		origin = u.Scheme + "://" + u.Host
	}
	f.mu.Lock()
	if f.session != sess.info.ID {
		f.session, f.seen = sess.info.ID, map[string]bool{}
	}
	seen := f.seen[origin]
	f.seen[origin] = true
	f.mu.Unlock()
	if seen || p.FrameID == "" {
		return
	}
	f.bg.Add(1)
	go func() {
		defer f.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), siteFetchLimit)
		defer cancel()
		site, err := fetchSite(ctx, f.host, recorder.Target{TabID: p.TabID}, p.FrameID, p.URL, agent)
		if err != nil {
			sess.Note(fmt.Sprintf("%s: data.txt: %v", origin, err))
			return
		}
		if err := sess.AddSite(site); err != nil {
			sess.Note(err.Error())
		}
	}()
}

// wait waits for the readings under way for at most d, and reports whether they are
// done.
func (f *siteFiles) wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		f.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// siteFetchLimit bounds the reading of a site's data.txt and robots.txt.
const siteFetchLimit = 30 * time.Second

// fetchSite reads a site's /data.txt and /robots.txt through the recorded tab's
// network stack (Network.loadNetworkResource): the page does not see the requests and
// no host permission is needed.
func fetchSite(ctx context.Context, b recorder.Browser, t recorder.Target, frameID, pageURL, agent string) (Site, error) {
	u, err := url.Parse(pageURL)
	if err != nil {
		return Site{}, err
	}
	site := Site{Origin: u.Scheme + "://" + u.Host, Checked: time.Now().UTC(), Agent: agent, Page: pageURL, Allowed: true}
	for _, f := range []struct {
		name string
		dst  *SiteFile
	}{{"/data.txt", &site.DataTxt}, {"/robots.txt", &site.Robots}} {
		var file *datatxt.File
		*f.dst, file = loadSiteFile(ctx, b, t, frameID, site.Origin+f.name)
		if file != nil && !file.Allowed(agent, u.RequestURI()) {
			site.Allowed = false
		}
	}
	return site, nil
}

// loadSiteFile fetches one of a site's rule files: what the report says of it, and
// the file if it is one.
func loadSiteFile(ctx context.Context, b recorder.Browser, t recorder.Target, frameID, rawURL string) (SiteFile, *datatxt.File) {
	var out SiteFile
	res := recorder.LoadResource(ctx, b, t, frameID, rawURL, false, datatxt.MaxSize)
	out.Status = res.Status
	switch {
	case res.Status == 0 && res.Err != nil:
		out.Error = res.Err.Error()
		return out, nil
	case res.Status >= 400:
		return out, nil
	case res.Err != nil:
		out.Error = res.Err.Error()
		return out, nil
	}
	h := httpmsg.Header{}
	for k, v := range res.Header {
		h.Set(k, v)
	}
	f, err := datatxt.ParseAnswer(h.Get("Content-Type"), bytes.NewReader(res.Body))
	if errors.Is(err, datatxt.ErrNotText) {
		// The site's own page, say: the site has no such file.
		out.NotFile = strings.TrimPrefix(strings.TrimPrefix(err.Error(), datatxt.ErrNotText.Error()), ": ")
		return out, nil
	}
	if err != nil {
		out.Error = err.Error()
		return out, nil
	}
	out.Found = true
	out.Records = len(f.Records)
	for _, d := range f.Datasets() {
		out.Datasets = append(out.Datasets, api.Dataset(d))
	}
	out.Expires = datatxt.Expiry(h, time.Now())
	if f.Format == datatxt.YAML {
		out.Format = "yaml"
	} else {
		out.Format = "robots"
	}
	return out, f
}
