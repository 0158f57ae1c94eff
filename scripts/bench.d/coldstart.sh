#!/usr/bin/env bash
# The core's cold start in Chromium's service worker (needs `make build`).
set -euo pipefail
cd "$(dirname "$0")/../.."
node scripts/bench-coldstart.mjs --runs "${COLDSTART_RUNS:-31}"
