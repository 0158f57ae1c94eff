#!/usr/bin/env bash
# Team archive: a bundle of 1.1 GiB uploaded in 16 MiB parts to the built Worker in
# workerd (miniflare, R2 on disk), cut in the middle and resumed after a Worker restart
# (scripts/test/worker/uploads.test.mjs): throughput, and resident memory of the uploading
# process (node, which generates the bundle as it goes) and of workerd over their idle.
# Needs dist/worker (make build). Prints a markdown section on stdout.
set -euo pipefail
cd "$(dirname "$0")/../../.."
cmd="node --test --test-concurrency=1 scripts/test/worker/uploads.test.mjs"
line=$($cmd 2>&1 | grep -o 'upload-figures.*' | head -1)
[ -n "$line" ] || { echo "upload benchmark: the test printed no figures" >&2; exit 1; }
eval "$(echo "${line#upload-figures }" | tr ' ' '\n' | sed 's/^/f_/')"
echo "## Team archive: upload in parts (workerd)"
echo
echo "\`$cmd\`"
echo
echo "| bytes | parts | seconds (restart included) | MiB/s | uploader RSS over idle (MiB) | workerd RSS over idle (MiB) |"
echo "|---|---|---|---|---|---|"
echo "| $f_bytes | $f_parts | $f_seconds | $f_mibps | $((f_node_peak_mib - f_node_idle_mib)) (idle $f_node_idle_mib) | $((f_workerd_peak_mib - f_workerd_idle_mib)) (idle $f_workerd_idle_mib) |"
