#!/bin/sh
# The core's work for one recorded page load (shared/capture BenchmarkGalleryEvents:
# the events Chromium sent for one load of the demo /gallery, replayed as the shim hands
# them over, records written included), natively and compiled to WebAssembly under node,
# which is what a recorded page's events wait behind in the service worker.
set -e
cd "$(dirname "$0")/../../.."
line() { awk '/^BenchmarkGalleryEvents/ { printf "%.1f ms | %s | %s", $3 / 1e6, $7, $9 }'; }
native=$(go test -run '^$' -bench GalleryEvents -benchmem -benchtime=200x ./shared/capture | line)
wasm=$(GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench GalleryEvents -benchmem -benchtime=50x ./shared/capture | line)
echo "## The core's work per recorded page load (shared/capture)"
echo
echo "\`go test -run '^\$' -bench GalleryEvents -benchmem ./shared/capture\`, natively and with \`GOOS=js GOARCH=wasm\` (node): the 55 events the core acts on for one load of the demo /gallery (of the 71 Chromium sent; fields the core does not read dropped, as the shim does), records and CDX lines written."
echo
echo "| build | per page load | bytes allocated | allocations |"
echo "|---|---|---|---|"
echo "| native | $native |"
echo "| wasm (node) | $wasm |"
