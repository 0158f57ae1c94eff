#!/usr/bin/env bash
# title: Core cold start in Chromium (what make bench heads this section with before it has run)
# The core's cold start in Chromium's service worker (needs `make build`): its times, each
# wake paired with one of the floor (scripts/bench/coldfloor: the same extension, its core a Go
# program that only answers); its times with a user's store (the published URL
# database loaded, the settings saved, a session recorded); wakes each after 35 s idle, as
# a user's (Chromium stops the worker after 30 s idle), timed and traced, which find the
# compiled core still held only if the keeper outlives its worker's garbage collections
# (wakes 200 ms apart found it held when it did not); each wake paired with one of
# a build without the keeper of the compiled core; then what V8 compiles in each step,
# with the keeper and without (a few traced starts: the counts do not vary).
set -euo pipefail
cd "$(dirname "$0")/../../.."
floor=dist/coldstart-floor
rm -rf "$floor" && mkdir -p "$floor"
cp -r dist/extension/. "$floor/"
GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$floor/core.wasm" ./scripts/bench/coldfloor
gzip -9 -n -f "$floor/core.wasm"
node scripts/bench/coldstart.mjs --runs "${COLDSTART_RUNS:-31}" --against "$floor"
echo
node scripts/bench/coldstart.mjs --runs "${COLDSTART_RUNS:-31}" --user-store shared/urldb/testdata/wwt-url-database
echo
node scripts/bench/coldstart.mjs --runs "${COLDSTART_IDLE_RUNS:-5}" --idle 35
echo
node scripts/bench/coldstart.mjs --runs 3 --idle 35 --compiled
echo
# The build without the keeper: its worker never opens the offscreen document that holds
# the compiled core between starts (extension/keeper.js), as at the first start after the
# browser's launch, or one 30 minutes after the last start.
nokeeper=dist/coldstart-nokeeper
rm -rf "$nokeeper" && mkdir -p "$nokeeper"
cp -r dist/extension/. "$nokeeper/"
sed -i 's|^const keepCompiled = async () => {$|&\n  return; // coldstart: this build holds no compiled core|' "$nokeeper/sw.js"
if ! grep -q '^  return; // coldstart: this build holds no compiled core' "$nokeeper/sw.js"; then
  echo "coldstart: sw.js no longer opens the keeper as this script expects" >&2
  exit 1
fi
echo "### Without the compiled core held between starts"
echo
echo "The same wakes, each paired with one of $nokeeper: this build with its worker's \`keepCompiled\` (sw.js), which opens the keeper, returning at once, as every start was before the keeper, and as the first start after the browser's launch, or one 30 minutes after the last, still is (and every start, for a user who unticks \`Keep the compiled core between starts\` in the options)."
echo
node scripts/bench/coldstart.mjs --runs "${COLDSTART_RUNS:-31}" --against "$nokeeper" | sed '1,2d'
echo
node scripts/bench/coldstart.mjs --runs 3 --compiled
echo
WEBKEEP_EXTENSION="$nokeeper" node scripts/bench/coldstart.mjs --runs 3 --compiled
