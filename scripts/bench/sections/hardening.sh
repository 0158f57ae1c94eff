#!/usr/bin/env bash
# The core under large inputs in real Chromium (needs `make build`): memory and
# the API's answers while a 1 GB WARC is imported and the largest URL database loads.
set -euo pipefail
cd "$(dirname "$0")/../../.."
node scripts/bench/hardening.mjs --warc "${HARDENING_WARC:-1000000000}" --record "${HARDENING_RECORD:-300000000}" --db "${HARDENING_DB:-33554432}"
