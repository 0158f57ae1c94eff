#!/usr/bin/env bash
# The capture check's time per page over the demo's pages (scripts/bench/checkcapture.mjs,
# real Chromium). CHECK_BENCH_ROUNDS sets how many checks of the session are timed (3).
# Prints a markdown section on stdout.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rounds=${CHECK_BENCH_ROUNDS:-3}
echo "## Capture check: time per page (Chromium)"
echo
echo "\`CHECK_BENCH_ROUNDS=$rounds node scripts/bench/checkcapture.mjs\` on $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1 /proc/loadavg) at the start."
echo "The demo site recorded as \`make demo\` records it (the feed gone through by autopilot), the site"
echo "stopped, then the archive page's **Check capture** run $rounds times on the session. A page's time"
echo "runs from the verdict before it (or the click) to its own: the replay tab opened, the page"
echo "loaded from the archive, a second of quiet, its picture and text taken and compared. For scale:"
echo "another tool's check of a crawl took 48 minutes for 183 pages, about 16 s a page."
echo
CHECK_BENCH_ROUNDS=$rounds node scripts/bench/checkcapture.mjs 2>/dev/null
