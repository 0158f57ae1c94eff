#!/bin/sh
# title: Replay in ReplayWeb.page (what make bench heads this section with before it has run)
# Replay in ReplayWeb.page: the demo's WACZ opened from its page list, every page
# replayed (scripts/bench/replaywebpage.mjs, real Chromium, the site stopped).
set -e
cd "$(dirname "$0")/../../.."
node scripts/bench/replaywebpage.mjs
