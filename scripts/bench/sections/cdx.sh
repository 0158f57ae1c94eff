#!/usr/bin/env bash
# Indexing throughput of `webkeep cdx index` against warcio's `cdx-index` (npm)
# on the same records: a WARC/1.1 gzip file written by warcio.js, and the same
# records converted to WARC 0.9 (gzip, sl) by `webkeep warc convert`.
# Prints a markdown section on stdout (collected by `make bench`).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
PAIRS=${CDX_BENCH_PAIRS:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bin=$ROOT/bin/webkeep
if [ ! -x "$bin" ]; then
  go build -o "$tmp/webkeep" ./cmd/webkeep
  bin=$tmp/webkeep
fi

cat > "$tmp/gen.mjs" <<'JS'
const { WARCRecord, WARCSerializer } = await import(process.env.WARCIO_MODULE);
import { createWriteStream } from "fs";
import { gzipSync } from "zlib";
const [out, pairs, nodigest] = [process.argv[2], Number(process.argv[3]), process.argv[4] === "nodigest"];
// nodigest: the same records without WARC-Payload-Digest (as some crawlers write
// them), so that an indexer must hash every payload.
const ser = async (r) => {
  if (!nodigest) return WARCSerializer.serialize(r, { gzip: true });
  const plain = Buffer.from(await WARCSerializer.serialize(r, { gzip: false })).toString("latin1");
  return gzipSync(Buffer.from(plain.replace(/WARC-Payload-Digest: [^\r]*\r\n/, ""), "latin1"));
};
const ws = createWriteStream(out);
const enc = new TextEncoder();
let seed = 1;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const words = "lorem ipsum dolor sit amet archive capture replay index record payload digest".split(" ");
for (let i = 0; i < pairs; i++) {
  const url = `http://www.example${i % 50}.com/page/${i}?q=${i % 7}`;
  const post = i % 10 === 0;
  const date = new Date(Date.UTC(2024, 0, 1, 0, 0, i % 60)).toISOString();
  const body = post ? `a=${i}&b=x+y%26z` : "";
  const req = await WARCRecord.create({ url, date, type: "request", warcVersion: "WARC/1.1",
    statusline: `${post ? "POST" : "GET"} /page/${i} HTTP/1.1`,
    httpHeaders: post ? { Host: "x", "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(body.length) } : { Host: "x" } },
    [enc.encode(body)]);
  let html = "<html><body>";
  const n = 2000 + Math.floor(rnd() * 18000);
  while (html.length < n) html += words[Math.floor(rnd() * words.length)] + (rnd() < 0.1 ? "\n" : " ");
  html += "</body></html>";
  const resp = await WARCRecord.create({ url, date, type: "response", warcVersion: "WARC/1.1",
    statusline: "HTTP/1.1 200 OK", httpHeaders: { "Content-Type": "text/html; charset=utf-8" },
    warcHeaders: { "WARC-Concurrent-To": req.warcHeader("WARC-Record-ID") } }, [enc.encode(html)]);
  ws.write(await ser(req));
  ws.write(await ser(resp));
}
ws.end();
await new Promise((r) => ws.on("finish", r));
JS
WARCIO_MODULE=$ROOT/node_modules/warcio/dist/index.js node "$tmp/gen.mjs" "$tmp/in11.warc.gz" "$PAIRS"
WARCIO_MODULE=$ROOT/node_modules/warcio/dist/index.js node "$tmp/gen.mjs" "$tmp/nodigest.warc.gz" "$PAIRS" nodigest
"$bin" warc convert --to 0.9 "$tmp/in11.warc.gz" "$tmp/in09.warc.gz" >/dev/null

now() { date +%s.%N; }
measure() { # name file command...: best of 3 wall times, records, MB
  local name=$1 file=$2; shift 2
  local best=
  for _ in 1 2 3; do
    local t0 t1 d
    t0=$(now); "$@" > "$tmp/out.cdxj"; t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
  done
  local lines bytes
  lines=$(wc -l < "$tmp/out.cdxj")
  bytes=$(stat -c %s "$file")
  printf '%s|%s|%d|%d|%.3f\n' "$name" "$(basename "$file")" "$lines" "$((PAIRS * 2))" "$best" >> "$tmp/results"
}

: > "$tmp/results"
measure "warcio cdx-index (node $(node --version))" "$tmp/in11.warc.gz" "$ROOT/node_modules/.bin/warcio" cdx-index "$tmp/in11.warc.gz"
measure "webkeep cdx index, WARC/1.1 (foreign, digests from header)" "$tmp/in11.warc.gz" "$bin" cdx index "$tmp/in11.warc.gz"
measure "webkeep cdx index --workers 1, WARC/1.1 (same, one core)" "$tmp/in11.warc.gz" "$bin" cdx index --workers 1 "$tmp/in11.warc.gz"
measure "webkeep cdx index, WARC/1.1 without payload digests (SHA-1 of every payload computed)" "$tmp/nodigest.warc.gz" "$bin" cdx index "$tmp/nodigest.warc.gz"
measure "warcio cdx-index, WARC/1.1 without payload digests (writes no digest)" "$tmp/nodigest.warc.gz" "$ROOT/node_modules/.bin/warcio" cdx-index "$tmp/nodigest.warc.gz"
measure "webkeep cdx index, WARC 0.9 (webkeep: sl, Payload-Digest)" "$tmp/in09.warc.gz" "$bin" cdx index "$tmp/in09.warc.gz"
measure "webkeep cdx index --workers 1, WARC 0.9 (same, one core)" "$tmp/in09.warc.gz" "$bin" cdx index --workers 1 "$tmp/in09.warc.gz"

mbof() { echo "$(stat -c %s "$tmp/$1") / 1048576" | bc -l; }
base=$(head -1 "$tmp/results" | cut -d'|' -f5)
echo "## CDX indexing (webkeep cdx index vs warcio cdx-index)"
echo
echo "Command: \`CDX_BENCH_PAIRS=$PAIRS scripts/bench/sections/cdx.sh\` ($PAIRS request/response pairs written by warcio.js, 2-20 KB HTML payloads, 10% form POSTs; the WARC 0.9 file is the same records converted by \`webkeep warc convert\`; best of 3 runs, wall time including process start; $(nproc) CPUs). \"vs warcio\" divides warcio's time on the WARC/1.1 file (first row) by the row's time."
echo
echo "| indexer | file | lines | records | seconds | records/s | MB/s (compressed) | vs warcio |"
echo "|---|---|---|---|---|---|---|---|"
while IFS='|' read -r name file lines recs secs; do
  mb=$(mbof "$file")
  printf '| %s | %s | %d | %d | %.3f | %.0f | %.1f | %.1fx |\n' "$name" "$file" "$lines" "$recs" "$secs" \
    "$(echo "$recs / $secs" | bc -l)" "$(echo "$mb / $secs" | bc -l)" "$(echo "$base / $secs" | bc -l)"
done < "$tmp/results"
