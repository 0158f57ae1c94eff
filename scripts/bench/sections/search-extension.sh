#!/usr/bin/env bash
# Full-text search in the extension (scripts/bench/search.mjs): WARCs of synthetic
# pages (words of real wiki pages) imported through the archive page into the real
# extension in Chromium, indexed by the core in IndexedDB, then searched through
# GET /api/search. WEBKEEP_SEARCH_SIZES=1000,10000 makes it short (100,000 pages take
# about 9 minutes to index on 2 cores: 527 s on 2026-11-28). Prints a markdown section on stdout.
set -euo pipefail
cd "$(dirname "$0")/../../.."
sizes=${WEBKEEP_SEARCH_SIZES:-1000,10000,100000}
cmd="node scripts/bench/search.mjs --sizes $sizes --queries 20"
echo "## Full-text search in the extension"
echo
echo "\`$cmd\` on $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1 /proc/loadavg) at the start."
echo "Pages of 300 words drawn by their frequency (Zipf) from the words of real DokuWiki and MediaWiki"
echo "pages, each with one word no other page has; each size adds pages to the same extension, one"
echo "import each. \"index\" is the time from the import's end to the first search that finds its last"
echo "page (the index reads a session in the background once it is quiet; a search first reads what"
echo "it has not). Target: under 50 ms median at 100,000 pages."
echo
$cmd 2>/dev/null
