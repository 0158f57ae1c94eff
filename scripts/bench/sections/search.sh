#!/bin/sh
# Full-text search (shared/search): extracting a page's text, indexing, the index's
# bytes per document, and query latency over 10,000 and 100,000 synthetic documents
# (in memory: the index's store is a MemStore here).
set -e
cd "$(dirname "$0")/../../.."
out=$(go test -run '^$' -bench 'Extract|Tokenize|Add|IndexSize|Search' -benchtime 20x -benchmem -count 1 ./shared/search)
echo "## Full-text search (shared/search)"
echo
echo "\`go test -run '^\$' -bench 'Extract|Tokenize|Add|IndexSize|Search' -benchtime 20x ./shared/search\` (synthetic documents of about 1.4 KB of text; an in-memory store)"
echo
echo "| benchmark | ms/op | MB/s | other |"
echo "|---|---|---|---|"
echo "$out" | awk '/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  ms = "-"; mbs = "-"; other = ""
  for (i = 2; i <= NF; i++) {
    if ($i == "ns/op") ms = sprintf("%.3f", $(i-1) / 1e6)
    else if ($i == "MB/s") mbs = $(i-1)
    else if ($i ~ /\// && $i != "B/op" && $i != "allocs/op") other = other $(i-1) " " $i " "
  }
  printf "| %s | %s | %s | %s |\n", name, ms, mbs, other
}'
