//go:build js

package urldb

import (
	"errors"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// HTTPClient returns the Client. A js build has no default one: net/http's would link
// its Transport and TLS, which the browser's fetch makes unneeded, so without a Client
// every request fails, saying so.
func (c *Checker) HTTPClient() Doer {
	if c.Client != nil {
		return c.Client
	}
	return noClient{}
}

// noClient is the Client of a js build's Checker that was given none.
type noClient struct{}

func (noClient) Do(*httpmsg.Request) (*httpmsg.Response, error) {
	return nil, errors.New("urldb: the Checker has no Client (a js build has no default)")
}
