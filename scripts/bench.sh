#!/usr/bin/env bash
# `make bench [SECTIONS="search archive"]`: runs the benchmark scripts in
# scripts/bench/sections/ (all of them, or the ones named) and writes their output into
# BENCHMARKS.md, one block per script, each ending with the date it ran, the command
# and the machine's load. Blocks of scripts not run this time stay as they were, so the
# file is only ever written by this script.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.cache/go/bin:$PATH"
out=BENCHMARKS.md
dir=scripts/bench/sections

all=()
for script in "$dir"/*.sh; do all+=("$(basename "$script" .sh)"); done
if [ $# -eq 0 ]; then
  run=("${all[@]}")
else
  run=()
  for name in "$@"; do
    name=${name%.sh}
    if [ ! -f "$dir/$name.sh" ]; then
      echo "bench: no section $name (the sections: ${all[*]})" >&2
      exit 2
    fi
    run+=("$name")
  done
fi

# block NAME prints the block of NAME from the current BENCHMARKS.md, if it has one.
block() {
  [ -f "$out" ] && awk -v name="$1" '
    $0 == "<!-- bench:" name " -->" { on = 1 }
    on { print }
    $0 == "<!-- /bench:" name " -->" { on = 0 }' "$out"
}

tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT
status=0
for name in "${run[@]}"; do
  echo "bench: $name" >&2
  load=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s)
  {
    echo "<!-- bench:$name -->"
    if bash "$dir/$name.sh"; then
      echo
      echo "_Measured on $(date -u +%Y-%m-%d) by \`make bench SECTIONS=$name\` ($dir/$name.sh), in $(( $(date +%s) - start )) s; load average $load at its start._"
    else
      echo
      echo "**This section's script failed on $(date -u +%Y-%m-%d)** (\`make bench SECTIONS=$name\`): what it printed is above; its figures are missing."
      echo "bench: $name failed" >&2
      status=1
    fi
    echo "<!-- /bench:$name -->"
  } > "$tmpdir/$name.md"
done

{
  echo "# webkeep benchmarks"
  echo
  echo "Written by \`make bench\` alone (scripts/bench.sh): each section below is what its script"
  echo "in $dir/ printed, and ends with the day it ran, the command and the load on"
  echo "the machine then. \`make bench\` runs every section; \`make bench SECTIONS=\"a b\"\` runs"
  echo "those and keeps the others. Figures measured before this layout are in"
  echo "[docs/benchmarks-history.md](docs/benchmarks-history.md)."
  echo
  echo "The machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM,"
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(go version | cut -d' ' -f3), node $(node --version)."
  echo "Figures vary with the machine's load: a section's p99 on a busy machine is the machine's."
  for name in "${all[@]}"; do
    echo
    if [ -f "$tmpdir/$name.md" ]; then
      cat "$tmpdir/$name.md"
    elif block "$name" | grep -q '^_Measured on\|^\*\*This section'"'"'s script failed'; then
      block "$name"
    else
      title=$(grep -m1 -o '^echo "## [^"]*' "$dir/$name.sh" | sed 's/^echo "//')
      [ -n "$title" ] || title=$(grep -m1 '^# title: ' "$dir/$name.sh" | sed 's/^# title: /## /; s/ (what make bench.*//')
      echo "<!-- bench:$name -->"
      echo "${title:-## $name}"
      echo
      echo "Not measured in this layout yet: \`make bench SECTIONS=$name\` ($dir/$name.sh)."
      echo "Earlier figures: [docs/benchmarks-history.md](docs/benchmarks-history.md)."
      echo "<!-- /bench:$name -->"
    fi
  done
} > "$tmpdir/out.md"
mv "$tmpdir/out.md" "$out"
echo "bench: wrote $out (${run[*]})" >&2
exit $status
