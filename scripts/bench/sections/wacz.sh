#!/bin/sh
# WACZ writing: copying a gzip WARC into a WACZ (SHA-256 and CRC-32 on the way,
# stored), against the floor of SHA-256 + CRC-32 alone; memory per WARC at 4 and
# 64 MiB (the same: bounded); writing a 100,000-line CDXJ index as ZipNum blocks.
set -e
cd "$(dirname "$0")/../../.."
out=$(go test -run '^$' -bench 'AddWARC|Floor|AddIndex' -benchmem -count 1 ./shared/wacz)
echo "## WACZ writing (shared/wacz)"
echo
echo "\`go test -run '^\$' -bench . -benchmem ./shared/wacz\` (WARCs of 256 KiB incompressible responses; output discarded)"
echo
echo "| benchmark | MB/s | lines/s | bytes allocated per op | allocations per op |"
echo "|---|---|---|---|---|"
echo "$out" | awk '/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  mbs = "-"; lines = "-"; b = "-"; a = "-"
  for (i = 2; i <= NF; i++) {
    if ($i == "MB/s") mbs = $(i-1)
    if ($i == "lines/s") lines = $(i-1)
    if ($i == "B/op") b = $(i-1)
    if ($i == "allocs/op") a = $(i-1)
  }
  printf "| %s | %s | %s | %s | %s |\n", name, mbs, lines, b, a
}'
