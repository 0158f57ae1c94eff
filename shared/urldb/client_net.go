//go:build !js

package urldb

import (
	"crypto/tls"
	"net/http"

	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
)

// HTTPClient returns the Client, making the default one on first use: net/http's,
// with no redirects followed, no cookies, and at most PerHost connections per host.
func (c *Checker) HTTPClient() Doer {
	if c.Client != nil {
		return c.Client
	}
	perHost := c.PerHost
	if perHost <= 0 {
		perHost = DefaultPerHost
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = perHost
	tr.MaxConnsPerHost = perHost
	if c.Insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	c.Client = nethttp.Client{Client: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	return c.Client
}
