#!/bin/sh
# Team search (shared/teamsearch): a query's latency and its R2 reads over 1,000
# and 10,000 pages in bundles of 10, indexed and merged as the Worker does (one
# segment an upload, merged in tiers of 8); the segments are in memory here, so
# the times are the CPU's, without R2's round trips.
set -e
cd "$(dirname "$0")/../../.."
out=$(go test -run '^$' -bench 'TeamSearch' -benchtime 20x -count 1 ./shared/teamsearch)
echo "## Team search (shared/teamsearch)"
echo
echo "\`go test -run '^\$' -bench TeamSearch -benchtime 20x ./shared/teamsearch\`: synthetic pages of 200 words (about 1.4 KB of text, Zipf-distributed words), 10 a bundle, each bundle's pages a segment, merged as the Worker's queue merges them; 20 results a query with their snippets. The segments are in memory: the times are CPU only; in the Worker each R2 read adds a round trip, six at a time. \`R2 reads\` are range reads of segments, \`store calls\` calls of the Durable Object that lists them."
echo
echo "| pages | query | matches | median ms | p99 ms | R2 reads | R2 KB read | store calls | segments | index bytes/page |"
echo "|---|---|---|---|---|---|---|---|---|---|"
echo "$out" | awk '/^BenchmarkTeamSearch\// {
  name = $1; sub(/-[0-9]+$/, "", name); split(name, p, "/"); sub(/pages=/, "", p[2])
  for (i = 2; i <= NF; i++) v[$i] = $(i-1)
  printf "| %s | %s | %d | %.2f | %.2f | %.0f | %.0f | %d | %d | %.0f |\n", p[2], p[3], v["matches"], v["ms-median"], v["ms-p99"], v["R2-reads/op"], v["R2-KB/op"], v["store-calls/op"], v["segments"], v["index-B/page"]
}'

# The same through the built Worker in workerd (needs `make build`).
if [ -f dist/worker/app.wasm ]; then
  echo
  echo "\`node scripts/bench/teamsearch.mjs PAGES 10\`: the built Worker in workerd (miniflare, on this machine): the pages uploaded in bundles of 10 as bare WARCs (HTML pages of 200 such words), merged by the queue, then each query 20 times through the Worker, as a client sees it (a fresh Go instance a request); a CDX lookup of one URL in the same Worker at the same moment for comparison."
  echo
  echo "| pages | bundles | query | matches | median ms | p99 ms | read (X-Search-Reads) |"
  echo "|---|---|---|---|---|---|---|"
  for pages in ${TEAMSEARCH_PAGES:-1000 10000}; do
    node scripts/bench/teamsearch.mjs "$pages" 10 2>/dev/null | grep '^{' | node -e '
      let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
        for (const l of s.trim().split("\n")) {
          const r = JSON.parse(l);
          console.log(`| ${r.pages} | ${r.bundles} | ${r.query} | ${r.matches} | ${r.median} | ${r.p99} | ${r.reads} |`);
        }
      });'
  done
fi
