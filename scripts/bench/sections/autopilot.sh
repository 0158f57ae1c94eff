#!/bin/sh
# title: Autopilot on the demo's feed (Chromium) (what make bench heads this section with before it has run)
# Autopilot on the demo's feed against a scripted reader (scripts/bench/autopilot.mjs,
# real Chromium).
set -e
cd "$(dirname "$0")/../../.."
node scripts/bench/autopilot.mjs
