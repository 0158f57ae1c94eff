#!/usr/bin/env bash
# title: Real web applications: DokuWiki and MediaWiki (Debian's packages) behind a logging proxy (what make bench heads this section with before it has run)
# A real web application in real Chromium (needs `make build` and Debian's dokuwiki,
# which scripts/setup.sh installs): page-load ratio on its heaviest page, and the share
# of the wire archived under quick navigation.
set -euo pipefail
cd "$(dirname "$0")/../../.."
node scripts/bench/realsite.mjs --loads "${REALSITE_BENCH_LOADS:-61}" --runs "${REALSITE_BENCH_RUNS:-3}"
