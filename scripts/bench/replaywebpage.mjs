// `make bench` (scripts/bench/sections/replaywebpage.sh): the demo site recorded through the
// extension, then its WACZ opened in the real ReplayWeb.page (2.5.3) with the site
// stopped, timed as a user meets it: until the page list shows every page, then each
// page from the list until its replay has loaded. Prints a Markdown section.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDemoSite } from "../lib/browser.mjs";
import { launchViewer, openInReplayWebPage, recordDemo, rwpVersion, serveReplayWebPage } from "../lib/replaywebpage.mjs";
import { readZip } from "../lib/zip.mjs";

const runs = Number(process.env.RWP_BENCH_RUNS || 3);
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-rwp-bench-"));
const site = await startDemoSite(["-big", String(24 << 20)]);
let files;
try {
  files = await recordDemo(site, dir, {});
} finally {
  site.stop();
}
const waczMB = (statSync(files.wacz).size / 1e6).toFixed(1);
const pages = readZip(files.wacz).get("pages/pages.jsonl").toString("utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l));
const rwp = await serveReplayWebPage({ "session.wacz": files.wacz });
const viewer = await launchViewer();
const source = rwp.archive("session.wacz");
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const open = [], all = [], perPage = {};
try {
  for (let run = 0; run < runs; run++) {
    // A fresh profile each run: nothing of the archive is cached.
    const ctx = await viewer.newContext();
    let page = await ctx.newPage();
    const t0 = performance.now();
    await openInReplayWebPage(page, rwp.url, source, { view: "pages" });
    // The list's footer ("N pages"), in ReplayWeb.page's shadow DOM, which text= pierces.
    await page.waitForSelector(`text=${pages.length} pages`, { timeout: 120000 });
    open.push(performance.now() - t0);
    for (const p of pages) {
      await page.close();
      page = await ctx.newPage();
      const t = performance.now();
      await openInReplayWebPage(page, rwp.url, source, { url: p.url, ts: p.ts.replace(/[-:TZ]/g, "").slice(0, 14) });
      (perPage[p.url] ??= []).push(performance.now() - t);
    }
    all.push(performance.now() - t0);
    await ctx.close();
  }
} finally {
  await viewer.close();
  await rwp.close();
  rmSync(dir, { recursive: true, force: true });
}
const ms = (x) => `${Math.round(x)} ms`;
console.log(`## Replay in ReplayWeb.page ${rwpVersion}`);
console.log();
console.log(`\`node scripts/bench/replaywebpage.mjs\`: the demo's WACZ (${waczMB} MB, ${pages.length} pages, a 24 MB file) served from 127.0.0.1, opened in a fresh headless Chromium profile, median of ${runs} runs. Each page is opened from its page-list URL in a new tab, until its replay frame has loaded and stopped navigating (polled every 250 ms: each figure holds up to 0.75 s of that wait).`);
console.log();
console.log("| measure | median |");
console.log("|---|---|");
console.log(`| open the WACZ until the page list shows all ${pages.length} pages | ${ms(median(open))} |`);
console.log(`| open the WACZ and replay every page | ${ms(median(all))} |`);
for (const [u, t] of Object.entries(perPage)) console.log(`| replay ${new URL(u).pathname}${new URL(u).search ? "?…" : ""} | ${ms(median(t))} |`);
