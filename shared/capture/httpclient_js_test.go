//go:build js

package capture

// The tests' fake host makes no HTTP requests: net/http's client does, as natively.
func init() { defaultClient = netClient }
