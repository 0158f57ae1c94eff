//go:build !js

package capture

// defaultClient makes the requests of a Service whose host makes none: net/http's.
var defaultClient = netClient
