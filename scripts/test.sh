#!/usr/bin/env bash
# `make test`: every check, in order, each step's result kept; ends with one summary line
# and exits non-zero when any step failed. Expects `make build` to have run (the Makefile
# does that first).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.cache/go/bin:$PATH"
start=$(date +%s)
passed=() failed=()

step() {
  local name=$1; shift
  echo "=== $name"
  local t0=$(date +%s)
  if "$@"; then passed+=("$name"); echo "--- ok: $name ($(( $(date +%s) - t0 ))s)"
  else failed+=("$name"); echo "--- FAILED: $name ($(( $(date +%s) - t0 ))s)"; fi
}

gofmt_check() {
  local out; out=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
  [ -z "$out" ] || { echo "gofmt would change:"; echo "$out"; return 1; }
}
wasm_tests() {
  GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./wasm/... ./shared/capture/ ./shared/recorder/ ./shared/warc/
}
node_tests() {
  local dir=$1
  [ -n "$(ls "$dir"/*.test.mjs 2>/dev/null)" ] || { echo "(no tests in $dir)"; return 0; }
  node --test --test-concurrency=1 --test-timeout=600000 "$dir"/*.test.mjs
}

# The end-to-end tests run Chromium with its back/forward cache on, as users have it
# (scripts/lib/browser.mjs launch); WEBKEEP_BFCACHE=0 runs them with it off.
export WEBKEEP_BFCACHE="${WEBKEEP_BFCACHE:-1}"

step "gofmt" gofmt_check
step "go vet" go vet ./...
step "go vet (wasm)" env GOOS=js GOARCH=wasm go vet ./wasm/... ./shared/...
step "go test" go test ./...
step "wasm tests (node)" wasm_tests
step "shim (node)" node_tests scripts/test/shim
step "interop (warcio)" node_tests scripts/test/interop
step "worker (workerd)" node_tests scripts/test/worker
step "end-to-end (chromium)" node_tests scripts/test/e2e
step "end-to-end (firefox)" node_tests scripts/test/e2e-firefox

total=$(( $(date +%s) - start ))
if [ ${#failed[@]} -eq 0 ]; then
  echo "make test: ok: ${#passed[@]} steps passed (${passed[*]}) in ${total}s"
else
  echo "make test: FAILED: ${failed[*]}; passed: ${passed[*]} (${total}s)"
  exit 1
fi
