package datatxt

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// URL returns the address of the file named name ("data.txt" or
// "robots.txt") of the site that serves siteURL: its root, whatever path
// siteURL has ("https://example.org/a/b" gives "https://example.org/data.txt").
func URL(siteURL, name string) (string, error) {
	u, err := url.Parse(siteURL)
	if err != nil {
		return "", fmt.Errorf("datatxt: site %q: %w", siteURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("datatxt: site %q: want an http or https URL with a host", siteURL)
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/" + name}).String(), nil
}

// Doer does HTTP requests: the browser's fetch in the extension's core
// (wasm/jsfetch), nethttp.Client (net/http's) natively.
type Doer = httpmsg.Doer

// Get fetches rawURL with client (nethttp.Client{}, for one) and parses the
// body (ParseAnswer: a 2xx answer that is an HTML page or no file of either
// form returns ErrNotText), setting File.Expires from the response headers. A
// 404 or 410 returns ErrNotFound, which means no restrictions and no datasets;
// any other status outside 2xx returns ErrStatus. Redirects are followed as the client
// does.
func Get(ctx context.Context, client Doer, rawURL string) (*File, error) {
	req, err := httpmsg.NewRequest(ctx, httpmsg.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("datatxt: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("datatxt: %w", err)
	}
	defer resp.Body.Close()
	now := time.Now()
	switch {
	case resp.StatusCode == httpmsg.StatusNotFound || resp.StatusCode == httpmsg.StatusGone:
		return nil, fmt.Errorf("%w: GET %s: %s", ErrNotFound, rawURL, resp.Status)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, fmt.Errorf("%w: GET %s: %s", ErrStatus, rawURL, resp.Status)
	}
	f, err := ParseAnswer(resp.Header.Get("Content-Type"), resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	f.Expires = Expiry(resp.Header, now)
	return f, nil
}
