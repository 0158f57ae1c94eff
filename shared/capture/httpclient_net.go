//go:build !js

package capture

import (
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/urldb"
)

// defaultClient makes the requests of a Service whose host makes none: net/http's.
var defaultClient = func(follow bool) urldb.Doer { return nethttp.NewClient(follow) }
