#!/bin/sh
# title: Replay of a video and of large bodies in webkeep (what make bench heads this section with before it has run)
# A recorded video's first frame and seeks in replay against live
# (scripts/bench/replaymedia.mjs), then one body each of 24 MiB, 300 MiB and 1 GiB
# imported and replayed (scripts/probe/replay-big.mjs): what the page got, and a
# body over 64 MiB saved whole from the replay bar, with its speed and memory. Real
# Chromium; needs ffmpeg (scripts/setup.sh installs it for make test).
set -e
cd "$(dirname "$0")/../../.."
node scripts/bench/replaymedia.mjs --runs "${REPLAYMEDIA_RUNS:-9}" --bitrates 1M,8M
echo
echo "### Large bodies"
echo
echo "\`node scripts/probe/replay-big.mjs BYTES\`: a WARC/1.1 of a page and one body of BYTES (no"
echo "Content-Length, so the import writes it in segments) imported, the page replayed, the body"
echo "fetched by the page's script; the resident memory of the extension's process and of the"
echo "whole browser sampled every 50 ms. A body over 64 MiB is not given to a page's script"
echo "(docs/replay.md): it is saved from the replay bar's \"Save the file\" instead, timed and"
echo "its SHA-256 checked."
echo
for bytes in 25165824 314572800 1073741824; do
  echo "- $bytes bytes:"
  node scripts/probe/replay-big.mjs "$bytes" 2>/dev/null | grep -E "^(body of|saved from)" | sed 's/^/  - /'
done
