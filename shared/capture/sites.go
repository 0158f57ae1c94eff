package capture

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/webkeep/webkeep/shared/datatxt"
)

// Site is what a recorded site says of itself in /data.txt and /robots.txt.
type Site struct {
	Origin  string    `json:"origin"`
	Checked time.Time `json:"checked"`
	DataTxt SiteFile  `json:"datatxt"`
	Robots  SiteFile  `json:"robots"`
	Agent   string    `json:"agent"`
	Allowed bool      `json:"allowed"` // the page that led here may be crawled by Agent
	Page    string    `json:"page"`
}

// SiteFile is one of a site's rule files.
type SiteFile struct {
	Found    bool              `json:"found"`
	Status   int               `json:"status,omitempty"`
	Format   string            `json:"format,omitempty"` // robots or yaml
	Records  int               `json:"records,omitempty"`
	Datasets []datatxt.Dataset `json:"datasets,omitempty"`
	Expires  time.Time         `json:"expires,omitempty"`
	Error    string            `json:"error,omitempty"`

	file *datatxt.File
}

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
		*f.dst = loadSiteFile(ctx, b, t, frameID, site.Origin+f.name)
		if f.dst.file != nil && !f.dst.file.Allowed(agent, u.RequestURI()) {
			site.Allowed = false
		}
	}
	return site, nil
}

func loadSiteFile(ctx context.Context, b Browser, t Target, frameID, rawURL string) SiteFile {
	var out SiteFile
	res, err := b.Send(ctx, t, "Network.loadNetworkResource", map[string]any{
		"frameId": frameID, "url": rawURL,
		"options": map[string]any{"disableCache": true, "includeCredentials": false},
	})
	if err != nil {
		out.Error = err.Error()
		return out
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
		out.Error = err.Error()
		return out
	}
	out.Status = r.Resource.HTTPStatusCode
	body, err := readStream(ctx, b, t, r.Resource.Stream, datatxt.MaxSize)
	if !r.Resource.Success || out.Status >= 400 {
		if out.Status == 0 {
			out.Error = r.Resource.NetErrorName
		}
		return out
	}
	if err != nil {
		out.Error = err.Error()
		return out
	}
	h := http.Header{}
	for k, v := range r.Resource.Headers {
		h.Set(k, v)
	}
	f, err := datatxt.Parse(bytes.NewReader(body))
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Found, out.file = true, f
	out.Records = len(f.Records)
	out.Datasets = f.Datasets()
	out.Expires = datatxt.Expiry(h, time.Now())
	if f.Format == datatxt.YAML {
		out.Format = "yaml"
	} else {
		out.Format = "robots"
	}
	return out
}

// readStream reads a DevTools IO stream to its end, at most limit bytes, and closes it.
func readStream(ctx context.Context, b Browser, t Target, handle string, limit int) ([]byte, error) {
	if handle == "" {
		return nil, nil
	}
	defer b.Send(ctx, t, "IO.close", map[string]any{"handle": handle})
	var buf bytes.Buffer
	for buf.Len() < limit {
		res, err := b.Send(ctx, t, "IO.read", map[string]any{"handle": handle, "size": 64 << 10})
		if err != nil {
			return nil, err
		}
		var chunk struct {
			Base64Encoded bool   `json:"base64Encoded"`
			Data          string `json:"data"`
			EOF           bool   `json:"eof"`
		}
		if err := json.Unmarshal(res, &chunk); err != nil {
			return nil, fmt.Errorf("IO.read: %w", err)
		}
		if chunk.Base64Encoded {
			p, err := base64.StdEncoding.DecodeString(chunk.Data)
			if err != nil {
				return nil, fmt.Errorf("IO.read: %w", err)
			}
			buf.Write(p)
		} else {
			buf.WriteString(chunk.Data)
		}
		if chunk.EOF {
			break
		}
	}
	if buf.Len() > limit {
		buf.Truncate(limit)
	}
	return buf.Bytes(), nil
}
