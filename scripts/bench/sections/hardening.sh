#!/usr/bin/env bash
# title: Large inputs in Chromium: a 1 GB import and a 32 MiB URL database (what make bench heads this section with before it has run)
# The core under large inputs in real Chromium (needs `make build`): memory and
# the API's answers while a 1 GB WARC is imported and the largest URL database loads.
set -euo pipefail
cd "$(dirname "$0")/../../.."
node scripts/bench/hardening.mjs --warc "${HARDENING_WARC:-1000000000}" --record "${HARDENING_RECORD:-300000000}" --db "${HARDENING_DB:-33554432}"
