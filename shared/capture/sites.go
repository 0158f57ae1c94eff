package capture

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/webkeep/webkeep/shared/api"
	"github.com/webkeep/webkeep/shared/datatxt"
)

// Site is what a recorded site says of itself in /data.txt and /robots.txt.
type Site = api.Site

// SiteFile is one of a site's rule files.
type SiteFile = api.SiteFile

// fetchSite reads a site's /data.txt and /robots.txt through the recorded tab's
// network stack (Network.loadNetworkResource): the page does not see the requests and
// no host permission is needed.
func fetchSite(ctx context.Context, b Browser, t Target, frameID, pageURL, agent string) (Site, error) {
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
func loadSiteFile(ctx context.Context, b Browser, t Target, frameID, rawURL string) (SiteFile, *datatxt.File) {
	var out SiteFile
	res := loadResource(ctx, b, t, frameID, rawURL, false, datatxt.MaxSize)
	out.Status = res.status
	switch {
	case res.status == 0 && res.err != nil:
		out.Error = res.err.Error()
		return out, nil
	case res.status >= 400:
		return out, nil
	case res.err != nil:
		out.Error = res.err.Error()
		return out, nil
	}
	h := http.Header{}
	for k, v := range res.header {
		h.Set(k, v)
	}
	f, err := datatxt.ParseAnswer(h.Get("Content-Type"), bytes.NewReader(res.body))
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

// loadedResource is what Network.loadNetworkResource gave: the status (0 if no
// response came), the response header, the body and the first problem.
type loadedResource struct {
	status int
	header map[string]string
	body   []byte
	err    error
}

// loadResource fetches a URL through a tab's network stack, as one of its frames
// (Network.loadNetworkResource): the page does not see the request and no host
// permission is needed. At most limit bytes of the body are read.
func loadResource(ctx context.Context, b Browser, t Target, frameID, rawURL string, credentials bool, limit int) loadedResource {
	out, handle := openResource(ctx, b, t, frameID, rawURL, credentials)
	if out.err != nil {
		return out
	}
	var buf bytes.Buffer
	_, out.err = copyStream(ctx, b, t, handle, &buf, int64(limit))
	out.body = buf.Bytes()
	return out
}

// openResource asks for a URL as loadResource does, and returns the status and header
// of the answer and the handle of the DevTools IO stream of its body, to be read to
// its end and closed (copyStream). A failed request has no stream.
func openResource(ctx context.Context, b Browser, t Target, frameID, rawURL string, credentials bool) (loadedResource, string) {
	var out loadedResource
	res, err := b.Send(ctx, t, "Network.loadNetworkResource", map[string]any{
		"frameId": frameID, "url": rawURL,
		"options": map[string]any{"disableCache": true, "includeCredentials": credentials},
	})
	if err != nil {
		out.err = err
		return out, ""
	}
	var r struct {
		Resource struct {
			Success        bool              `json:"success"`
			NetErrorName   string            `json:"netErrorName"`
			HTTPStatusCode int               `json:"httpStatusCode"`
			Stream         string            `json:"stream"`
			Headers        map[string]string `json:"headers"`
		} `json:"resource"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		out.err = fmt.Errorf("Network.loadNetworkResource: %w", err)
		return out, ""
	}
	out.status, out.header = r.Resource.HTTPStatusCode, r.Resource.Headers
	if !r.Resource.Success {
		if r.Resource.Stream != "" {
			b.Send(ctx, t, "IO.close", map[string]any{"handle": r.Resource.Stream})
		}
		out.err = fmt.Errorf("Network.loadNetworkResource: %s", r.Resource.NetErrorName)
		return out, ""
	}
	return out, r.Resource.Stream
}

// ioReadSize is the most of a DevTools IO stream asked for at a time.
const ioReadSize = 1 << 20

// copyStream reads a DevTools IO stream to its end, or to limit bytes if limit is not
// negative, writes what it read to w, and closes the stream. The browser gives the
// data as it is asked for it, so memory stays flat whatever the stream's length.
func copyStream(ctx context.Context, b Browser, t Target, handle string, w io.Writer, limit int64) (int64, error) {
	if handle == "" {
		return 0, nil
	}
	defer b.Send(ctx, t, "IO.close", map[string]any{"handle": handle})
	var n int64
	for limit < 0 || n < limit {
		res, err := b.Send(ctx, t, "IO.read", map[string]any{"handle": handle, "size": ioReadSize})
		if err != nil {
			return n, err
		}
		var chunk struct {
			Base64Encoded bool   `json:"base64Encoded"`
			Data          string `json:"data"`
			EOF           bool   `json:"eof"`
		}
		if err := json.Unmarshal(res, &chunk); err != nil {
			return n, fmt.Errorf("IO.read: %w", err)
		}
		p := []byte(chunk.Data)
		if chunk.Base64Encoded {
			if p, err = base64.StdEncoding.DecodeString(chunk.Data); err != nil {
				return n, fmt.Errorf("IO.read: %w", err)
			}
		}
		if limit >= 0 && n+int64(len(p)) > limit {
			p = p[:limit-n]
		}
		k, err := w.Write(p)
		n += int64(k)
		if err != nil {
			return n, err
		}
		if chunk.EOF {
			break
		}
	}
	return n, nil
}
