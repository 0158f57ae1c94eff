#!/bin/sh
# Benchmarks of shared/urldb (issue 5): checking the 537 URLs of the real
# wwturldb database against a local server answering in 50 ms, webkeep's
# default concurrent check against a sequential one (as wwturldb does), and
# loading and writing a generated 100,000-record database.
set -e
cd "$(dirname "$0")/../../.."
cmd="go test -run '^\$' -bench 'Check537|Load100k|Encode100k' -benchtime=1x ./shared/urldb/"
out=$(go test -run '^$' -bench 'Check537|Load100k|Encode100k' -benchtime=1x ./shared/urldb/)
echo "## URL database: check and load (shared/urldb)"
echo
echo "\`$cmd\`"
echo
echo "$out" | awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name); ns[name] = $3; order[n++] = name
}
END {
	print "| benchmark | time | note |"
	print "|---|---|---|"
	for (i = 0; i < n; i++) {
		b = order[i]; note = ""
		if (b == "BenchmarkCheck537/webkeep") note = "default settings (32 in flight, 16 per host)"
		if (b == "BenchmarkCheck537/sequential") note = "one request at a time"
		if (b == "BenchmarkLoad100k") note = "target: under 1 s"
		printf "| %s | %.3f s | %s |\n", b, ns[b] / 1e9, note
	}
	s = ns["BenchmarkCheck537/sequential"]; w = ns["BenchmarkCheck537/webkeep"]
	if (s > 0 && w > 0) printf "\nSpeed-up of webkeep over the sequential check: %.1fx (target: 10x).\n", s / w
}'
