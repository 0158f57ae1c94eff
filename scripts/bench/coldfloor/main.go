//go:build js && wasm

// Command coldfloor is the floor of the core's cold start (scripts/bench/sections/coldstart.sh):
// a Go program that does only what the service worker's shim (extension/sw.js) waits for
// from wasm/core. It marks the core's steps of the start, publishes an API whose handle
// answers every request with a fixed /api/status, and calls webkeepCoreReady. Built in
// place of core.wasm.gz in a copy of the extension, it measures what Go's runtime alone
// costs to fetch, compile, instantiate and start in the worker, the same way the core is
// measured (scripts/bench/coldstart.mjs --against).
package main

import "syscall/js"

func main() {
	for _, step := range []string{"webkeep: main", "webkeep: service", "webkeep: reconciled"} {
		js.Global().Get("performance").Call("mark", step)
	}
	api := js.Global().Get("Object").New()
	api.Set("handle", js.FuncOf(func(js.Value, []js.Value) any {
		res := js.Global().Get("Response").New(`{"recording":false,"tabs":[]}`,
			map[string]any{"headers": map[string]any{"content-type": "application/json"}})
		return js.Global().Get("Promise").Call("resolve", res)
	}))
	// No debugger event is asked for; the shim's pacing needs values all the same.
	api.Set("fields", map[string]any{})
	api.Set("urgent", []any{})
	api.Set("pacing", map[string]any{"quietMs": 50, "lateMs": 500, "heldMax": 1 << 20, "holdMs": 500})
	js.Global().Set("webkeepCore", api)
	js.Global().Get("webkeepCoreReady").Invoke()
	select {}
}
