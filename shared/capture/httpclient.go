package capture

import "github.com/webkeep/webkeep/shared/urldb"

// The core's own HTTP requests (the team archive, Check all, a site's data.txt and
// robots.txt) are made by the Host when it is a urldb.Doer: in the extension, the
// browser's fetch, so that the wasm core links none of net/http's Transport and its
// TLS. Without one they are made by net/http's client (httpclient_net.go),
// which a js build does not link (see httpclient_js.go).

// clients makes the service's own HTTP requests.
type clients struct {
	host Host
	// test, when set (by tests), makes the team archive's and the site files'
	// requests.
	test urldb.Doer
}

// client makes the team archive's and the site files' requests: the one a test set,
// else the host's, else net/http's, following redirects when follow is set.
func (c *clients) client(follow bool) urldb.Doer {
	if c.test != nil {
		return c.test
	}
	if d, ok := c.host.(urldb.Doer); ok {
		return d
	}
	return defaultClient(follow)
}

// checkClient makes Check all's requests: the host's, else net/http's without
// following redirects, as a check, like wwturldb's, looks at a redirect itself (the
// browser's fetch follows them).
func (c *clients) checkClient() urldb.Doer {
	if d, ok := c.host.(urldb.Doer); ok {
		return d
	}
	return defaultClient(false)
}
