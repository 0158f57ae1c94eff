package capture

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
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
