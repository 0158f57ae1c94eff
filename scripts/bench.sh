#!/usr/bin/env bash
# `make bench`: runs every benchmark script in scripts/bench/sections/ and writes their sections
# into BENCHMARKS.md, headed by the machine and the command.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.cache/go/bin:$PATH"
out=BENCHMARKS.md
tmp=$(mktemp)
{
  echo "# webkeep benchmarks"
  echo
  echo "Written by \`make bench\` on $(date -u +%Y-%m-%d): $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM,"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(go version | cut -d' ' -f3), node $(node --version)."
  echo "Each section names the command that measured it; figures vary with the machine's load."
  echo
} > "$tmp"
status=0
for script in scripts/bench/sections/*.sh; do
  echo "bench: $script" >&2
  if ! bash "$script" >> "$tmp"; then
    echo "bench: $script failed" >&2
    echo -e "\n(${script} failed in this run)\n" >> "$tmp"
    status=1
  fi
  echo >> "$tmp"
done
mv "$tmp" "$out"
echo "bench: wrote $out" >&2
exit $status
