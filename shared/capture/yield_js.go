//go:build js

package capture

import "time"

// yield lets the JavaScript event loop run: a sleep is the one way a goroutine on
// js/wasm hands the thread back to it.
func yield() { time.Sleep(time.Millisecond) }
