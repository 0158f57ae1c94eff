#!/bin/sh
# WARC write throughput: webkeep natively and as wasm under node, warcio (npm) in node,
# and the floor (gzip + SHA-1 alone), on the same workload (scripts/bench/warcbench).
# WARC_BENCH_RECORDS overrides the 20,000 records of the issue.
set -e
cd "$(dirname "$0")/../../.."
N=${WARC_BENCH_RECORDS:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/warcbench" ./scripts/bench/warcbench
GOOS=js GOARCH=wasm go build -o "$tmp/warcbench.wasm" ./scripts/bench/warcbench
wasm="$(go env GOROOT)/lib/wasm/go_js_wasm_exec"

row() { # label, then a warcbench output line: mode records MB secs MB/s peakMB [outMB]
	echo "$2" | awk -v l="$1" '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", l, $2, $3, $4, $5, $6, ($7 == "" ? "-" : $7) }'
}
echo "## WARC write throughput"
echo
echo "\`WARC_BENCH_RECORDS=$N scripts/bench/sections/warc.sh\` (records of 1 KB-1 MB, log-uniform, half text, half random; per-record gzip, SHA-1 digests; output counted, not stored)"
echo
echo "| writer | records | input MB | seconds | MB/s | peak memory MB | output MB |"
echo "|---|---|---|---|---|---|---|"
floor=$("$tmp/warcbench" -mode floor -records "$N")
native=$("$tmp/warcbench" -mode write -records "$N")
native09=$("$tmp/warcbench" -mode write09 -records "$N")
wfloor=$("$wasm" "$tmp/warcbench.wasm" -mode floor -sha1 go -records "$N")
wgo=$("$wasm" "$tmp/warcbench.wasm" -mode write -sha1 go -records "$N")
wcrypto=$("$wasm" "$tmp/warcbench.wasm" -mode write -sha1 platform -records "$N")
wlevel=$("$wasm" "$tmp/warcbench.wasm" -mode write -sha1 go -level 4 -records "$N")
warcio=$(node scripts/bench/warcbench/warcio.mjs "$N")
row "floor: gzip + SHA-1 only (native)" "$floor"
row "webkeep WARC/1.1 (native)" "$native"
row "webkeep WARC 0.9 (native)" "$native09"
row "floor: gzip + SHA-1 only (wasm, node; Go SHA-1)" "$wfloor"
row "webkeep WARC/1.1 (wasm, node; Go SHA-1)" "$wgo"
row "webkeep WARC/1.1 (wasm, node; WebCrypto SHA-1 for blocks >= 64 KiB)" "$wcrypto"
row "webkeep WARC/1.1 (wasm, node; Go SHA-1, gzip level 4)" "$wlevel"
row "warcio 2.4.11 WARC/1.1 (node; peak = RSS)" "$warcio"
echo
mbs() { echo "$1" | awk '{print $5}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", a/b}'; }
f=$(mbs "$floor"); n=$(mbs "$native"); j=$(mbs "$warcio")
echo "Native WARC/1.1 is $(awk -v a="$n" -v b="$f" 'BEGIN{printf "%.0f", 100*a/b}')% of the floor (it hashes twice: block and payload digests)." \
	"As wasm, against warcio: $(ratio "$(mbs "$wgo")" "$j")x with Go's SHA-1, $(ratio "$(mbs "$wcrypto")" "$j")x with WebCrypto's for blocks of 64 KiB or more (warc.WriterOptions.SumSHA1 = webcrypto.SHA1)," \
	"$(ratio "$(mbs "$wlevel")" "$j")x with Go's SHA-1 and gzip level 4 (output $(echo "$wlevel" | awk '{print $7}') MB instead of $(echo "$wcrypto" | awk '{print $7}') MB at the default level 6)."
echo
echo "Peak heap of the native writer with streamed (unseekable) blocks of growing size; blocks over 32 MB (MaxBuffer) are segmented:"
echo
echo "| block size | records | input MB | seconds | MB/s | peak heap MB | output MB |"
echo "|---|---|---|---|---|---|---|"
for size in 1048576 16777216 67108864 268435456; do
	row "$((size / 1048576)) MiB" "$("$tmp/warcbench" -mode mem -records 4 -max "$size")"
done
