#!/usr/bin/env bash
# title: Extension in Firefox (what make bench heads this section with before it has run)
# The Firefox build's benchmarks in real Firefox ESR (needs `make build`).
set -euo pipefail
cd "$(dirname "$0")/../../.."
node scripts/bench/firefox.mjs --loads "${FIREFOX_BENCH_LOADS:-61}" --big "${FIREFOX_BENCH_BIG:-524288000}"
