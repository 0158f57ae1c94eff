// `make bench` (scripts/bench/sections/teamsearch.sh): the team archive's full-text
// search through the built Worker in workerd (miniflare: R2, the IndexStore Durable
// Objects, the queue that merges segments): PAGES pages in bundles of PER_BUNDLE,
// uploaded one after the other, merged by the queue; then each query asked ROUNDS
// times. Prints one JSON line per query: its median and p99 latency (ms, as the
// client sees it) and what it read (X-Search-Reads).
import { gzipSync } from "node:zlib";
import { call, startWorker } from "../test/worker/harness.mjs";

const PAGES = Number(process.argv[2] ?? 1000);
const PER_BUNDLE = Number(process.argv[3] ?? 10);
const ROUNDS = Number(process.env.TEAMSEARCH_ROUNDS ?? 20);

// Made-up words drawn with Zipf's law (s = 1.1), as a language's are.
let seed = 1;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const letters = "abcdefghijklmnopqrstuvwxyzäöüéè";
const vocab = Array.from({ length: 20000 }, () => Array.from({ length: 3 + Math.floor(rnd() * 7) }, () => letters[Math.floor(rnd() * letters.length)]).join(""));
const weights = vocab.map((_, i) => 1 / Math.pow(i + 2, 1.1));
const cumulative = [];
weights.reduce((a, w, i) => (cumulative[i] = a + w), 0);
const total = cumulative[cumulative.length - 1];
const word = () => {
  const x = rnd() * total;
  let lo = 0, hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return vocab[lo];
};

let serial = 0;
function record(headers, block) {
  const head = Buffer.from(`WARC/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\nContent-Length: ${block.length}\r\n\r\n`);
  return gzipSync(Buffer.concat([head, block, Buffer.from("\r\n\r\n")]));
}
function bundle(first, n) {
  const out = [];
  for (let i = first; i < first + n; i++) {
    const words = Array.from({ length: 200 }, (_, k) => (k === 100 ? `u${i}` : word()));
    const html = Buffer.from(`<html><head><title>${word()} ${word()}</title></head><body><p>${words.join(" ")}</p></body></html>`);
    const url = `https://site${i % 50}.example/page/${i}`;
    const date = new Date(Date.UTC(2024, 0, 1, 0, 0, i % 60)).toISOString().replace(/\.\d+Z$/, "Z");
    const id = (k) => `<urn:uuid:00000000-0000-4000-8000-${String(k).padStart(12, "0")}>`;
    serial += 2;
    const u = new URL(url);
    out.push(record({ "WARC-Type": "request", "WARC-Target-URI": url, "WARC-Date": date, "WARC-Record-ID": id(serial), "Content-Type": "application/http; msgtype=request" }, Buffer.from(`GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`)));
    const resp = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${html.length}\r\n\r\n`), html]);
    out.push(record({ "WARC-Type": "response", "WARC-Target-URI": url, "WARC-Date": date, "WARC-Record-ID": id(serial + 1), "WARC-Concurrent-To": id(serial), "Content-Type": "application/http; msgtype=response" }, resp));
  }
  return Buffer.concat(out);
}

const mf = startWorker();
await mf.ready;
try {
  const t0 = Date.now();
  for (let b = 0; b * PER_BUNDLE < PAGES; b++) {
    const r = await call(mf, "PUT", `/api/bundles/bench-${b}.warc.gz`, { body: bundle(b * PER_BUNDLE, Math.min(PER_BUNDLE, PAGES - b * PER_BUNDLE)) });
    if (r.status !== 201) throw new Error(`upload ${b}: ${r.status} ${r.text}`);
  }
  const uploadSeconds = (Date.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 3000)); // the queue's merges
  const m = await call(mf, "POST", "/api/index/compact?shard=search");
  if (m.status !== 200) throw new Error(`merge: ${m.status} ${m.text}`);
  // The floor: a CDX lookup of one URL, in the same Worker at the same moment.
  {
    const times = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      const r = await call(mf, "GET", `/api/cdx?url=${encodeURIComponent("https://site7.example/page/7")}`);
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`cdx: ${r.status} ${r.text}`);
    }
    times.sort((a, b) => a - b);
    console.log(JSON.stringify({ pages: PAGES, bundles: Math.ceil(PAGES / PER_BUNDLE), query: "(a CDX lookup)", matches: 1, median: +times[times.length >> 1].toFixed(1), p99: +times[times.length - 1].toFixed(1), reads: "", uploadSeconds }));
  }
  const queries = [
    ["rare", `u${Math.floor(PAGES / 2)}`],
    ["common", vocab[2]],
    ["two-words", `${vocab[20]} ${vocab[40]}`],
    ["phrase", `"${vocab[2]} ${vocab[3]}"`],
    ["exclusion", `${vocab[30]} -${vocab[2]} site:site7.example`],
  ];
  for (const [name, q] of queries) {
    const times = [];
    let reads = "", total = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      const r = await call(mf, "GET", `/api/search?q=${encodeURIComponent(q)}&limit=20`);
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`${q}: ${r.status} ${r.text}`);
      total = r.json().total;
      reads = r.headers.get("x-search-reads");
    }
    times.sort((a, b) => a - b);
    const at = (p) => times[Math.min(times.length - 1, Math.floor(times.length * p))];
    console.log(JSON.stringify({ pages: PAGES, bundles: Math.ceil(PAGES / PER_BUNDLE), query: name, matches: total, median: +at(0.5).toFixed(1), p99: +at(0.99).toFixed(1), reads, uploadSeconds }));
  }
} finally {
  await mf.dispose();
}
