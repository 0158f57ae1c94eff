#!/bin/sh
# title: Replay of a video and of large bodies in webkeep (what make bench heads this section with before it has run)
# A recorded video's first frame and seeks in replay against live
# (scripts/bench/replaymedia.mjs), then one body each of 24 MiB, 300 MiB and 1 GiB
# imported and replayed (scripts/probe/replay-big.mjs): what the page's fetch() got
# (over 64 MiB, as a stream from the archive), and a body over 64 MiB saved whole
# from the replay bar, with their speed (MB/s) and memory; a page's script of 100 MiB
# run by webkeep's loader (scripts/probe/replay-script.mjs) against live. Real
# Chromium; needs ffmpeg (scripts/setup.sh installs it for make test). Last, in Go,
# a 64 MiB capture played through in open ranges, and seeks in it: the bytes read.
set -e
cd "$(dirname "$0")/../../.."
node scripts/bench/replaymedia.mjs --runs "${REPLAYMEDIA_RUNS:-9}" --bitrates 1M,8M
echo
echo "### Large bodies"
echo
echo "\`node scripts/probe/replay-big.mjs BYTES\`: a WARC/1.1 of a page and one body of BYTES (no"
echo "Content-Length, so the import writes it in segments) imported, the page replayed, the body"
echo "fetched by the page's script and read as a stream, each byte checked; the resident memory"
echo "of the extension's process and of the whole browser sampled every 50 ms. A body over 64 MiB"
echo "reaches a page's fetch() as a stream from the archive, a chunk at a time (docs/replay.md);"
echo "a synchronous XMLHttpRequest of it is not given it, and it is saved from the replay bar's"
echo "\"Save the file\" instead, timed and its SHA-256 checked."
echo
for bytes in 25165824 314572800 1073741824; do
  echo "- $bytes bytes:"
  node scripts/probe/replay-big.mjs "$bytes" 2>/dev/null | grep -E "^(body of|saved from)" | sed 's/^/  - /'
done
echo
echo "### A page's script over 64 MiB"
echo
echo "\`node scripts/probe/replay-script.mjs BYTES\`: a page whose \`<script src>\` is BYTES long (a"
echo "string of letters), imported and followed to in a replay: the script gets webkeep's loader"
echo "in its place, which reads it by Range, 512 KiB at a time, with synchronous requests and runs"
echo "it where it stood (shared/replay/loader.go); the page's script after it checks what it"
echo "declared. Timed from the page's clock (its reads from its resource timing) against the same"
echo "page loaded live from a server on 127.0.0.1; the memory sampled every 50 ms. Then the same"
echo "session replayed from the team archive (uploaded to the Worker in workerd through miniflare on"
echo "127.0.0.1, workerd at the lowest priority): the loader's reads answered from its bundle in R2."
echo
node scripts/probe/replay-script.mjs 104857600 2>/dev/null | grep -E "^script of" | sed 's/^/- /'
echo
echo "### Playing a large capture through, and seeking in it (shared/replay)"
echo
echo "\`go test -run '^\$' -bench 'PlayThrough|Seek' -benchtime 5x ./shared/replay\`, natively: a 64 MiB capture (random"
echo "bytes, in a gzip WARC/1.1, stored whole as webkeep stores a body that does not compress)"
echo "answered in open ranges of 256 KiB from its start to its end, as a player asks; then eight"
echo "seeks back and forth (open ranges at 60, 5, 40, 20, 55, 10, 30 and 2 MiB)."
echo "A range reads on from where the last one ended (its body kept open, with its response's"
echo "head, so the record is opened once), and each byte of the record is read about once (before"
echo "2026-12-02 each range read the record from its start: 5.58 bytes read for each played, 428"
echo "MB/s; before 2026-12-04 the answers grew to 8 MiB as the ranges went on: 13 requests, 1.01"
echo "bytes read for each played, 1652 MB/s; until later that day each answer opened its record"
echo "again for its head: 1.249 bytes read for each played); a range further on than 1 MiB is read from"
echo "where it lies in the record (before 2026-12-02, 10.0 MiB read and 4.3 ms a seek, in the same"
echo "benchmark)."
echo
go test -run '^$' -bench 'PlayThrough|Seek' -benchtime 5x ./shared/replay | awk '/^BenchmarkServeRangesPlayThrough/ {
  for (i = 2; i <= NF; i++) {
    if ($i == "MB/s") mbs = $(i-1)
    if ($i == "read/played") rp = $(i-1)
    if ($i == "requests") rq = $(i-1)
  }
  printf "- played through: %s MB/s, %s bytes read for each byte played, %s requests\n", mbs, rp, rq
}
/^BenchmarkServeRangesSeek/ {
  for (i = 2; i <= NF; i++) {
    if ($i == "ms/seek") ms = $(i-1)
    if ($i == "MiB-read/seek") mib = $(i-1)
  }
  printf "- a seek: %s ms, %s MiB read from the file\n", ms, mib
}'
