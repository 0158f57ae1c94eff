#!/usr/bin/env bash
# title: Extension in Chromium (what make bench heads this section with before it has run)
# The extension's benchmarks in real Chromium (needs `make build`).
set -euo pipefail
cd "$(dirname "$0")/../../.."
node scripts/bench/extension.mjs --loads "${EXT_BENCH_LOADS:-61}" --big "${EXT_BENCH_BIG:-524288000}"
