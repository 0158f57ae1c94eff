#!/usr/bin/env bash
# Team archive: the Go API over the in-memory bucket (no R2, no workerd): uploads, CDX
# queries, and an append to the notary log. Prints a markdown section on stdout
# (collected by `make bench`).
set -euo pipefail
cd "$(dirname "$0")/../../.."
cmd="go test -run '^$' -bench . -benchmem -benchtime=2s ./shared/teamarchive/ ./shared/notary/"
echo "## Team archive and its notary log (shared/teamarchive, shared/notary)"
echo
echo "\`$cmd\`"
echo
echo "| benchmark | ns/op | MB/s | B/op | allocs/op |"
echo "|---|---|---|---|---|"
eval "$cmd" | awk '/^Benchmark/ {
  name=$1; ns=""; mbs=""; b=""; a="";
  for (i=2;i<=NF;i++) { if ($(i+1)=="ns/op") ns=$i; if ($(i+1)=="MB/s") mbs=$i; if ($(i+1)=="B/op") b=$i; if ($(i+1)=="allocs/op") a=$i }
  printf "| %s | %s | %s | %s | %s |\n", name, ns, mbs, b, a }'
