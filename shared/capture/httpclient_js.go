//go:build js

package capture

import (
	"errors"

	"github.com/webkeep/webkeep/shared/httpmsg"
	"github.com/webkeep/webkeep/shared/urldb"
)

// defaultClient makes the requests of a Service whose host makes none. In a js build
// that is none: net/http's client would link its Transport and TLS into the core,
// which has the browser's fetch (its host is a urldb.Doer). The js tests, whose host
// is a fake, set it to netClient.
var defaultClient = func(follow bool) urldb.Doer { return noClient{} }

// noClient fails every request, saying why.
type noClient struct{}

func (noClient) Do(*httpmsg.Request) (*httpmsg.Response, error) {
	return nil, errors.New("capture: the host makes no HTTP requests (it is no urldb.Doer)")
}
