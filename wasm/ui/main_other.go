//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// The pages run in the browser only; natively only their tests run.
func main() {
	fmt.Fprintln(os.Stderr, "webkeep ui: build with GOOS=js GOARCH=wasm and load it from the extension's pages")
	os.Exit(2)
}
