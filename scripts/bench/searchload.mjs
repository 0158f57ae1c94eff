// Full-text search under load, in the real extension in Chromium: the time to index an
// imported WARC of about 1 GB of real wiki pages (the DokuWiki and MediaWiki pages of
// testdata/wiki, each copy with a word of its own), and the demo's gallery page loaded
// while recording, alternating with a tab not recorded, first while the index reads that
// import and then once it is idle: the ratio of the two loads' medians, with its
// interval, in both states.
//
//   node scripts/bench/searchload.mjs [--bytes 1000000000] [--loads 31]
import { mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, root, startDemoSite, waitFor } from "../lib/browser.mjs";
import { floorDir, measureTabs } from "../lib/pageload.mjs";
import { median, ratio } from "../lib/stats.mjs";
import { responseRecord } from "../lib/warcrecord.mjs";

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const BYTES = Number(opt("bytes", "1000000000"));
const LOADS = Number(opt("loads", "31"));

// The WARC: the real pages over and over, each copy with a word no other page has,
// uncompressed records (gzip would make the same bytes five times as many pages).
const wiki = path.join(root, "testdata/wiki");
const pages = readdirSync(wiki).filter((f) => f.endsWith(".html")).map((f) => readFileSync(path.join(wiki, f), "utf8"));
const uniqueWord = (i) => `wombat${i.toString(36)}qq`;
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-searchload-"));
const file = path.join(dir, "wiki-1gb.warc");
const fd = openSync(file, "w");
let bytes = 0, count = 0;
while (bytes < BYTES) {
  const html = pages[count % pages.length].replace("</body>", `<p>${uniqueWord(count)}</p></body>`);
  const date = new Date(Date.UTC(2026, 0, 1) + count * 1000).toISOString().replace(/\.\d+Z$/, "Z");
  const rec = responseRecord(`https://wiki.example/copy/${count}`, date, "text/html; charset=utf-8", Buffer.from(html), { gzip: false });
  writeSync(fd, rec);
  bytes += rec.length;
  count++;
}
closeSync(fd);
console.error(`searchload: ${count} pages, ${(bytes / 1e9).toFixed(2)} GB`);

const site = await startDemoSite();
const browser = await launch({ extra: [floorDir] });
const floorId = new URL(browser.extraWorkers[0].url()).host;
const ext = await browser.context.newPage();
await ext.goto(browser.page("archive.html"));
await ext.waitForSelector("#no-sessions:not([hidden]), #sessions tr");

// The import, through the archive page's Import button as a user would.
const t0 = performance.now();
await ext.setInputFiles("#import-file", file);
await waitFor(async () => (await ext.$$("#jobs .job")).length === 2 && !(await ext.$('#jobs .job[data-state="running"]')), "the import", 3600000);
if ((await ext.$$('#jobs .job[data-state="done"]')).length !== 2) throw new Error(`the import: ${await ext.textContent("#jobs")}`);
const imported = performance.now();
rmSync(dir, { recursive: true, force: true });

// indexed asks the index whether it has read the whole import, without waiting on it:
// a search that finds the last page's word, or says it is still indexing.
const lastWord = uniqueWord(count - 1);
// A request the service worker drops (it is stopped or restarts) is counted, said
// in the section, and asked again from the archive page opened anew.
let dropped = 0;
const ask = async () => {
  for (;;) {
    try {
      return await ext.evaluate(async (w) => (await fetch(`/api/search?q=${encodeURIComponent(w)}`)).json(), lastWord);
    } catch (e) {
      if (!/Failed to fetch/.test(e.message) || ++dropped > 5) throw e;
      console.error(`searchload: a search failed (${e.message.split("\n")[0]}); asking again`);
      await new Promise((r) => setTimeout(r, 2000));
      await ext.goto(browser.page("archive.html"));
    }
  }
};

// Page loads while the index reads the import: the loads start as the index does
// (it waits for the import to be quiet for two seconds).
await new Promise((r) => setTimeout(r, 2500));
const gallery = new URL("/gallery", site.url).href;
const busyStart = performance.now();
const [[busyOff, , busyOn], busyTab] = await measureTabs(browser, ext, gallery, floorId, LOADS);
const busyEnd = performance.now();
await busyTab.close();
let res;
do res = await ask();
while (res.indexing);
const indexedAt = performance.now();
if (res.total !== 1) throw new Error(`the last page's word: ${JSON.stringify(res)}`);
const busyShare = Math.min(1, (indexedAt - busyStart) / (busyEnd - busyStart));

// The same once the index is idle.
const [[idleOff, , idleOn], idleTab] = await measureTabs(browser, ext, gallery, floorId, LOADS);
await idleTab.close();
await browser.close();
site.stop();

const s = (ms) => (ms / 1000).toFixed(1);
console.log("## Full-text search under load (Chromium)");
console.log();
console.log(`\`node scripts/bench/searchload.mjs --bytes ${BYTES} --loads ${LOADS}\`: a WARC of ${count.toLocaleString("en")} real wiki pages`);
console.log(`(testdata/wiki over and over, a word of its own in each; ${(bytes / 1e9).toFixed(2)} GB, records not gzipped) imported through the`);
console.log("archive page and indexed in the extension's IndexedDB; then the demo's /gallery loaded in a recorded tab and a");
console.log("tab not recorded, alternating, while the index read that import and again once it was idle.");
console.log();
console.log("| measure | figure |");
console.log("|---|---|");
console.log(`| import (upload and WARC read, no text) | ${s(imported - t0)} s |`);
console.log(`| index the import (from its end to a search finding its last page) | ${s(indexedAt - imported)} s (${Math.round(count / ((indexedAt - imported) / 1000))} pages/s, while the page loads below ran) |`);
console.log(`| page load while indexing: not recorded / recorded | ${median(busyOff).toFixed(1)} / ${median(busyOn).toFixed(1)} ms; ratio ${ratio(busyOn, busyOff)} |`);
console.log(`| page load with the index idle: not recorded / recorded | ${median(idleOff).toFixed(1)} / ${median(idleOn).toFixed(1)} ms; ratio ${ratio(idleOn, idleOff)} |`);
console.log();
if (dropped) console.log(`**The service worker dropped ${dropped} of the searches asked while it indexed** ("Failed to fetch"); each was asked again.\n`);
console.log(`The index was reading for ${Math.round(busyShare * 100)}% of the ${s(busyEnd - busyStart)} s the first ${LOADS} loads of each tab took` +
  " (target: the recorded load's ratio the same within its interval, indexing or not).");
