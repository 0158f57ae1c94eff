#!/bin/sh
# Provable captures: the cost of signing a WACZ download (an ECDSA P-384 signature of
# datapackage.json's hash; with a timestamp from OpenSSL's authority on 127.0.0.1),
# verification throughput of `webkeep wacz verify` (every file's SHA-256, every WARC
# record's digests, every index line, the signature), and the notary log's append
# per upload (in memory; in the Worker it is two store calls).
set -e
cd "$(dirname "$0")/../../.."
sign=$(go test -run '^$' -bench 'Sign|Verify' -benchmem -count 1 ./shared/wacz)
append=$(go test -run '^$' -bench 'Append' -benchmem -count 1 ./shared/notary)
echo "## Signing and verification (shared/wacz, shared/notary)"
echo
echo "\`go test -run '^\$' -bench 'Sign|Verify' -benchmem ./shared/wacz\`, \`go test -run '^\$' -bench Append ./shared/notary\`"
echo
echo "| benchmark | ms/op | MB/s | bytes allocated per op |"
echo "|---|---|---|---|"
printf '%s\n%s\n' "$sign" "$append" | awk '/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  ms = "-"; mbs = "-"; b = "-"
  for (i = 2; i <= NF; i++) {
    if ($i == "ns/op") ms = sprintf("%.3f", $(i-1) / 1e6)
    if ($i == "MB/s") mbs = $(i-1)
    if ($i == "B/op") b = $(i-1)
  }
  printf "| %s | %s | %s | %s |\n", name, ms, mbs, b
}'
echo
echo "BenchmarkSign is the signature of a download made natively; the extension's is"
echo "WebCrypto's (same curve and hash). BenchmarkSignTimestamped adds a stamp from a"
echo "local authority (an \`openssl ts\` process per stamp): a network authority adds its"
echo "round trip. BenchmarkVerify is MB/s of WACZ checked whole."
