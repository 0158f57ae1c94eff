//go:build js

package capture

import (
	"github.com/webkeep/webkeep/shared/httpmsg/nethttp"
	"github.com/webkeep/webkeep/shared/urldb"
)

// The tests' fake host makes no HTTP requests: net/http's client does, as natively.
func init() { defaultClient = func(follow bool) urldb.Doer { return nethttp.NewClient(follow) } }
