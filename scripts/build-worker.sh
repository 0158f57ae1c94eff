#!/usr/bin/env bash
# Builds the team archive Worker into dist/worker/: app.wasm (wasm/worker), the
# Go toolchain's wasm_exec.js, the entry module wasm/worker/glue/worker.mjs, the size
# of app.wasm's memory (memory.mjs) and the merged index's Durable Object class,
# glue/store.mjs.
# wrangler.toml deploys that directory; scripts/test/worker/*.test.mjs run it in workerd.
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist/worker
rm -rf "$out" && mkdir -p "$out"
GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$out/app.go.wasm" ./wasm/worker
# The module imports its memory, which the glue hands each instance (worker.mjs).
go run ./scripts/tools/importmemory "$out/app.go.wasm" "$out/app.wasm" "$out/memory.mjs"
rm "$out/app.go.wasm"
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$out/"
cp wasm/worker/glue/worker.mjs wasm/worker/glue/store.mjs "$out/"
echo "built: $out/ ($(wc -c < "$out/app.wasm") bytes of wasm, $(gzip -9 < "$out/app.wasm" | wc -c) gzipped)"
