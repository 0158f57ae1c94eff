#!/bin/sh
# title: Replay in webkeep (what make bench heads this section with before it has run)
# Replay in webkeep: each demo page's replay load time against its live load time, and
# memory while the 24 MB file replays (scripts/bench/replay.mjs, real Chromium).
set -e
cd "$(dirname "$0")/../../.."
node scripts/bench/replay.mjs
