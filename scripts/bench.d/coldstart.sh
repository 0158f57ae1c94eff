#!/usr/bin/env bash
# The core's cold start in Chromium's service worker (needs `make build`): its times, then
# what V8 compiles in each step (a few traced starts: the counts do not vary).
set -euo pipefail
cd "$(dirname "$0")/../.."
node scripts/bench-coldstart.mjs --runs "${COLDSTART_RUNS:-31}"
echo
node scripts/bench-coldstart.mjs --runs 3 --compiled
