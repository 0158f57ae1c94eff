// Full-text search in the extension: WARCs of N pages imported through the archive
// page's API (POST /api/import) into the real extension in Chromium, indexed by the
// core in IndexedDB, then searched (GET /api/search). The pages' words are drawn, by
// their frequency in English text (Zipf), from the words of real DokuWiki and
// MediaWiki pages (testdata/wiki); each page also holds a word no other
// has. Prints a markdown section: for 1,000, 10,000 (and, with --sizes, more) pages,
// the time to import and index, the index's bytes per page, and the latency (median,
// p99) of each kind of query, as the core measured it (the "ms" of its answer) and as
// the page saw it (round trip through the service worker).
//
//   node scripts/bench/search.mjs [--sizes 1000,10000] [--queries 50]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, waitFor } from "../lib/browser.mjs";
import { median, quantile } from "../lib/stats.mjs";
import { rand, uniqueWord, vocab, warcOf } from "../lib/wikipages.mjs";

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const sizes = opt("sizes", "1000,10000").split(",").map(Number);
const QUERIES = Number(opt("queries", "50"));

const dir = mkdtempSync(path.join(tmpdir(), "webkeep-search-bench-"));
const browser = await launch();
const ext = await browser.context.newPage();
await ext.goto(browser.page("archive.html"));
await ext.waitForSelector("#no-sessions:not([hidden]), #sessions tr");

// importAndIndex imports a WARC through the archive page's Import button, as a user
// would, then asks a search, which answers once the index has read the new session:
// resolves to the seconds both took.
let imports = 0;
async function importAndIndex(name, bytes, probe) {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  const t0 = performance.now();
  await ext.setInputFiles("#import-file", file);
  imports++;
  // Each import shows two job boxes: the upload's, then the core's.
  await waitFor(async () => (await ext.$$("#jobs .job")).length === 2 * imports && !(await ext.$('#jobs .job[data-state="running"]')), `the import of ${name}`, 3600000);
  if ((await ext.$$('#jobs .job[data-state="done"]')).length !== 2 * imports) throw new Error(`${name}: ${await ext.textContent("#jobs")} ${await ext.textContent("#error")}`);
  const imported = performance.now();
  rmSync(file);
  // A search waits for the index 3 s at most, then says it is still indexing.
  let res;
  do res = await ext.evaluate(async (probe) => (await fetch(`/api/search?q=${encodeURIComponent(probe)}`)).json(), probe);
  while (res.indexing);
  if (res.total !== 1) throw new Error(`${probe}: ${JSON.stringify(res)}`);
  return { importS: (imported - t0) / 1000, indexS: (performance.now() - imported) / 1000 };
}

// indexBytes sums the keys and values of the index in IndexedDB.
const indexBytes = () => ext.evaluate(() => new Promise((resolve, reject) => {
  const open = indexedDB.open("webkeep");
  open.onsuccess = () => {
    const tx = open.result.transaction("kv", "readonly");
    const req = tx.objectStore("kv").openCursor(IDBKeyRange.bound("fts/", "fts/\uffff"));
    let n = 0;
    req.onsuccess = () => {
      const c = req.result;
      if (!c) return resolve(n);
      n += c.key.length + (c.value.byteLength ?? c.value.size ?? 0);
      c.continue();
    };
    req.onerror = () => reject(req.error);
  };
  open.onerror = () => reject(open.error);
}));

async function timeQuery(q) {
  const core = [], trip = [];
  for (let i = 0; i < QUERIES; i++) {
    const r = await ext.evaluate(async (q) => {
      const t0 = performance.now();
      const res = await (await fetch(`/api/search?q=${encodeURIComponent(q)}&limit=20`)).json();
      return { ms: res.ms, trip: performance.now() - t0, total: res.total };
    }, typeof q === "function" ? q(i) : q);
    core.push(r.ms);
    trip.push(r.trip);
  }
  return { core, trip };
}

const rows = [];
let have = 0;
for (const n of sizes) {
  const bytes = warcOf(have, n);
  const { importS, indexS } = await importAndIndex(`search-bench-${n}.warc.gz`, bytes, uniqueWord(n - 1));
  const added = n - have;
  have = n;
  const size = await indexBytes();
  const queries = {
    "a word on one page": (i) => uniqueWord(Math.floor(rand() * n)),
    "a rare word": vocab[Math.floor(vocab.length * 0.8)],
    "two common words": `${vocab[20]} ${vocab[30]}`,
    "a phrase": `"${vocab[5]} ${vocab[6]}"`,
    "the most common word": vocab[0],
  };
  const times = {};
  for (const [kind, q] of Object.entries(queries)) times[kind] = await timeQuery(q);
  rows.push({ n, added, mb: bytes.length / 1e6, importS, indexS, perPage: size / n, times });
  console.error(`search bench: ${n} pages done`);
}
await browser.close();
rmSync(dir, { recursive: true, force: true });

const f = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
console.log("| pages | WARC added | import | index | index bytes per page |");
console.log("|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.n.toLocaleString("en")} | ${r.added.toLocaleString("en")} pages, ${r.mb.toFixed(1)} MB gzipped | ${r.importS.toFixed(1)} s | ${r.indexS.toFixed(1)} s (${f(r.added / r.indexS)} pages/s) | ${Math.round(r.perPage).toLocaleString("en")} |`);
}
console.log();
console.log("Query latency in ms, median / p99, the core's own figure, then the round trip from the archive page:");
console.log();
const kinds = Object.keys(rows[0].times);
console.log(`| pages | ${kinds.join(" | ")} |`);
console.log(`|---|${kinds.map(() => "---").join("|")}|`);
for (const r of rows) {
  const cells = kinds.map((k) => {
    const t = r.times[k];
    return `${f(median(t.core))} / ${f(quantile(t.core, 0.99))}; ${f(median(t.trip))} / ${f(quantile(t.trip, 0.99))}`;
  });
  console.log(`| ${r.n.toLocaleString("en")} | ${cells.join(" | ")} |`);
}
