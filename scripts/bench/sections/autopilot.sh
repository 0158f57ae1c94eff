#!/bin/sh
# Autopilot on the demo's feed against a scripted reader (scripts/bench/autopilot.mjs,
# real Chromium).
set -e
cd "$(dirname "$0")/../../.."
node scripts/bench/autopilot.mjs
