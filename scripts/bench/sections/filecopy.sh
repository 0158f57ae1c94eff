#!/usr/bin/env bash
# title: Uploads: copying the files a page sends (what make bench heads this section with before it has run)
# The cost of copying, in the page, the files a page uploads (the browser hides their
# bytes from extensions) in real Chromium and in Firefox ESR: upload times recording on
# and off. Needs `make build`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
node scripts/bench/filecopy.mjs --uploads "${FILECOPY_BENCH_UPLOADS:-15}"
node scripts/bench/filecopy.mjs --browser firefox --uploads "${FILECOPY_BENCH_UPLOADS:-15}"
