#!/bin/sh
# Benchmarks of the extension's pages (wasm/ui, issue 7): the size of ui.wasm, the
# archive page's record filter over a 10,000-record session (natively and compiled to
# WebAssembly under node), and how long each page takes in Chromium from navigation to
# its first answer from the core shown (median of 7 loads). Needs `make build` (the
# page loads use dist/extension).
set -e
cd "$(dirname "$0")/../../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$tmp/ui.wasm" ./wasm/ui
raw=$(wc -c < "$tmp/ui.wasm")
gz=$(gzip -9 -c "$tmp/ui.wasm" | wc -c)

bench="go test -run '^\$' -bench Filter -benchtime=100x ./wasm/ui"
native=$(go test -run '^$' -bench Filter -benchtime=100x ./wasm/ui)
wasm=$(GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench Filter -benchtime=100x ./wasm/ui)

pages=$(node --input-type=module -e '
import { launch } from "./scripts/lib/browser.mjs";
const ready = { popup: "#state[data-recording=false]", archive: "#sessions tr, #no-sessions:not([hidden])", options: "#token-state[data-set]" };
const b = await launch({});
try {
  const page = await b.context.newPage();
  for (const [name, sel] of Object.entries(ready)) {
    const times = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      await page.goto(b.page(name + ".html?tab=1"));
      await page.waitForSelector(sel, { state: "attached" });
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    console.log(`| ${name}.html | ${times[3].toFixed(0)} ms | ${times[0].toFixed(0)} ms | ${times[6].toFixed(0)} ms |`);
  }
} finally { await b.close(); }
')

echo "## Extension pages (wasm/ui)"
echo
echo "\`GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' ./wasm/ui\`: ui.wasm is $raw bytes, $gz gzipped (the pages import neither shared/capture nor net/http)."
echo
echo "\`$bench\`, natively and with \`GOOS=js GOARCH=wasm -exec go_js_wasm_exec\` (node): filtering 10,000 records, as on each key typed in the archive page's search box."
echo
printf '%s\n' "$native" | sed 's/^/native /' > "$tmp/filter"
printf '%s\n' "$wasm" | sed 's/^/wasm /' >> "$tmp/filter"
awk '
$2 ~ /^BenchmarkFilter/ {
	name = $2; sub(/^BenchmarkFilter\//, "", name); sub(/-[0-9]+$/, "", name)
	t[$1, name] = $4
	if (!(name in seen)) { seen[name] = 1; order[n++] = name }
}
END {
	print "| filter | native | wasm (node) |"
	print "|---|---|---|"
	for (i = 0; i < n; i++) printf "| %s | %.2f ms | %.2f ms |\n", order[i], t["native", order[i]] / 1e6, t["wasm", order[i]] / 1e6
}' "$tmp/filter"
echo
echo "Page loads in headless Chromium through the extension (navigation to the page showing its first answer from the core; 7 loads, with an empty store):"
echo
echo "| page | median | fastest | slowest |"
echo "|---|---|---|---|"
echo "$pages"
