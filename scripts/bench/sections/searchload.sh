#!/usr/bin/env bash
# title: Full-text search under load (Chromium) (what make bench heads this section with before it has run)
# The time to index an imported WARC of about 1 GB of real wiki pages, and the page-load
# ratio of a recorded tab while the index reads it and once it is idle.
set -euo pipefail
cd "$(dirname "$0")/../../.."
node scripts/bench/searchload.mjs --bytes "${SEARCHLOAD_BYTES:-1000000000}" --loads "${SEARCHLOAD_LOADS:-31}"
