#!/usr/bin/env bash
# Team archive at scale: the built Worker in workerd (miniflare: R2, the merged index's
# Durable Objects, the compaction queue) filled with 20 to 100,000 bundles through the
# upload path, then queried (scripts/bench/archive.mjs). Long: about an hour on 2 cores.
# WEBKEEP_ARCHIVE_SIZES=20,1000 makes it short. Prints a markdown section on stdout.
set -euo pipefail
cd "$(dirname "$0")/../../.."
sizes=${WEBKEEP_ARCHIVE_SIZES:-20,1000,10000,100000}
cmd="node scripts/bench/archive.mjs --sizes $sizes --queries 1000"
echo "## Team archive at scale (workerd)"
echo
echo "\`$cmd\` on $(date -u +%Y-%m-%d). Bundles are bare WARC/1.1 files of 25 captures over"
echo "50 sites, uploaded 4 at a time through \`PUT /api/bundles/{name}\`; from 10,000 bundles on,"
echo "the same captures go in bundles of 250 (10,000) or 2,500 (100,000) captures: fewer"
echo "uploads, the same index. Queries are timed from the client (miniflare's dispatchFetch:"
echo "a Go instance started for each request); store calls and R2 reads are the Worker's own"
echo "count (X-Index-Reads). Exact: a URL known to be there; domain: a site's domain, limit"
echo "10; prefix: a path prefix, limit 100. Each size's 1,000 queries of each kind, the kinds in"
echo "turn, start once the Worker's queue (compactions, text index merges) has been quiet for 3 s."
echo
# Each size's row goes to standard error as it is measured (make bench shows it), so
# that a run stopped before the largest size still says what it measured.
$cmd 2> >(grep -v "^webkeep worker:" >&2) | grep -v "^webkeep worker:"
echo
echo "### Deduplication over a week of daily visits"
echo
echo "\`node scripts/bench/dedup.mjs --days 7 --sessions 20\`: 20 sessions a day of 25 pages on"
echo "the same 50 sites, each page with 4 images of which one in ten changes from one day to"
echo "the next, the HTML new every day. Before each upload the session's digests are asked"
echo "of the Worker (\`POST /api/digests\`, as an upload does); a payload it holds, or one the"
echo "session already sent, goes as a revisit record instead."
echo
node scripts/bench/dedup.mjs --days 7 --sessions 20 2>/dev/null | grep -v "^webkeep worker:"
