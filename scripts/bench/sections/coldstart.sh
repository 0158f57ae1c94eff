#!/usr/bin/env bash
# title: Core cold start in Chromium (what make bench heads this section with before it has run)
# The core's cold start in Chromium's service worker (needs `make build`): its times, each
# wake paired with one of the floor (scripts/bench/coldfloor: the same extension, its core a Go
# program that only answers); its times with a user's store (the published URL
# database loaded, the settings saved, a session recorded); its times with no compiled
# core held between starts (the keeper closed before each stop); then what V8 compiles in
# each step, without and with the keeper (a few traced starts: the counts do not vary).
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
node scripts/bench/coldstart.mjs --runs "${COLDSTART_RUNS:-31}" --without-keeper
echo
node scripts/bench/coldstart.mjs --runs 3 --compiled --without-keeper
echo
node scripts/bench/coldstart.mjs --runs 3 --compiled
