//go:build !js

package capture

import "runtime"

// yield lets other goroutines run; natively they have threads of their own anyway.
func yield() { runtime.Gosched() }
