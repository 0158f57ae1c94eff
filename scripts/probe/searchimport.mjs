// Imports N pages of scripts/lib/wikipages.mjs into the real extension in one WARC
// and follows the index reading them: every 10 s, how far a search finds the pages
// (a page's own word, in order), and the service worker's console and its status
// (stopped, restarted) as DevTools reports them. For a failure the search benchmark
// (scripts/bench/search.mjs) only sees as "Failed to fetch".
//
//   node scripts/probe/searchimport.mjs [--pages 100000]
import { execSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, serviceWorker, waitFor } from "../lib/browser.mjs";
import { uniqueWord, warcOf } from "../lib/wikipages.mjs";

const args = process.argv.slice(2);
const i = args.indexOf("--pages");
const N = i >= 0 ? Number(args[i + 1]) : 100000;

const dir = mkdtempSync(path.join(tmpdir(), "webkeep-searchimport-"));
const browser = await launch();
const t0 = performance.now();
const log = (...a) => console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`, ...a);
const ext = await browser.context.newPage();
await ext.goto(browser.page("archive.html"));
const sw = await serviceWorker(browser, ext);
let last = sw.status();
sw.cdp.on("ServiceWorker.workerVersionUpdated", () => {
  if (sw.status() !== last) log("worker:", (last = sw.status()));
});
sw.cdp.on("ServiceWorker.workerErrorReported", (e) => log("worker error:", JSON.stringify(e.errorMessage)));
browser.sw.on("console", (m) => log("console:", JSON.stringify(m.text().trim().slice(0, 300))));
ext.on("crash", () => log("the archive page crashed"));
ext.on("close", () => { log("the archive page closed"); process.exit(1); });
browser.context.on("close", () => { log("the browser closed"); process.exit(1); });
// The browser's processes, their resident memory summed, every 10 s.
setInterval(() => {
  const rss = execSync("ps -C chromium -o rss= || true").toString().split("\n").filter(Boolean).reduce((a, b) => a + Number(b), 0);
  log(`chromium: ${(rss / 1024).toFixed(0)} MB resident`);
}, 10000).unref();

const file = path.join(dir, "pages.warc.gz");
writeFileSync(file, warcOf(0, N));
await ext.setInputFiles("#import-file", file);
await waitFor(async () => (await ext.$$("#jobs .job")).length === 2 && !(await ext.$('#jobs .job[data-state="running"]')), "the import", 3600000);
log("imported:", await ext.textContent("#jobs"));
rmSync(dir, { recursive: true, force: true });

for (let k = 1000; ; ) {
  let res;
  try {
    res = await ext.evaluate(async (q) => (await fetch(`/api/search?q=${encodeURIComponent(q)}`)).json(), uniqueWord(k - 1));
  } catch (err) {
    log("search failed:", err.message.split("\n")[0]);
    await new Promise((r) => setTimeout(r, 2000));
    continue;
  }
  if (res.total === 1) {
    log(`page ${k} found (${res.ms} ms)`);
    if (k >= N) break;
    k = Math.min(N, k + 1000);
    continue;
  }
  await new Promise((r) => setTimeout(r, 10000));
}
await browser.close();
