// `make bench` (scripts/bench/sections/replay.sh): the demo site recorded through the extension,
// then each page replayed in webkeep (replay.html) and its replay tab's reloads until
// the load event timed against the live page's, the two alternating. Also each page's
// first load in a new tab (the browser's navigation timing: navigation start to load
// event), live and in a new replay. And memory while the 24 MB file replays, the site
// stopped.
// Prints a Markdown section.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, peakMemory, startDemoSite } from "../lib/browser.mjs";
import { openReplay } from "../lib/replay.mjs";
import { recordDemo } from "../lib/replaywebpage.mjs";

const runs = Number(process.env.REPLAY_BENCH_RUNS || 15);
const firstReplays = 3;
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-replay-bench-"));
const site = await startDemoSite(["-big", String(24 << 20)]);
const browser = await launch({ downloads: dir });
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const live = {};
const rows = [];
let mem;
try {
  const id = (await recordDemo(site, dir, live, { browser })).id;
  const urls = Object.keys(live).filter((u) => u.startsWith("http") && !/\/submit\//.test(u));
  // One reload of page until its load event, in ms, the page's tab brought to the
  // front first (the browser gives a tab in the background less of the machine).
  const reload = async (page) => {
    await page.bringToFront();
    const t0 = performance.now();
    await page.reload({ waitUntil: "load" });
    return performance.now() - t0;
  };
  const liveFirst = {};
  const firstLoad = () => {
    const n = performance.getEntriesByType("navigation")[0];
    return n.loadEventStart - n.startTime;
  };
  // A replay loads its page in a tab of its own: the live first load is timed the
  // same way, in a new tab (median of 5), the browser's cache as browsing left it.
  const firstRuns = 5;
  for (const u of urls) {
    const t = [];
    for (let i = 0; i < firstRuns; i++) {
      const tab = await browser.context.newPage();
      await tab.goto(u);
      t.push(await tab.evaluate(firstLoad));
      await tab.close();
    }
    liveFirst[u] = median(t);
  }
  // Each page's reloads, live and replayed, alternate (one of each in turn, both tabs
  // open), so that a change in the machine's load falls on both alike. The site stays
  // up meanwhile: the replay tab's requests are all answered from the archive (the
  // end-to-end test counts those that reach the site's port during replay: none).
  const page = await browser.context.newPage();
  for (const u of urls) {
    await page.goto(u);
    // The first load of a new replay (its bar made anew, no batch kept), three times;
    // the last one's tab is then reloaded.
    const firsts = [];
    let r;
    for (let i = 0; i < firstReplays; i++) {
      await r?.close();
      r = await openReplay(browser, id, u);
      firsts.push(await r.evaluate(firstLoad));
    }
    const first = median(firsts);
    const t = { live: [], replay: [] };
    for (let i = 0; i < runs; i++) {
      t.live.push(await reload(page));
      t.replay.push(await reload(r.page));
    }
    rows.push({ url: new URL(u).pathname, live: median(t.live), replay: median(t.replay), liveFirst: liveFirst[u], first });
    await r.close();
  }
  await page.close();
  site.stop();
  // Memory: the extension's process (core and replay page) and the whole browser,
  // sampled while the home page's button loads the 24 MB file from the archive.
  const r = await openReplay(browser, id, site.url);
  const m = await peakMemory(browser, async () => {
    await r.page.click("#load-big");
    await r.page.waitForSelector("#load-big[data-done]", { timeout: 120000 });
  });
  mem = { before: m.before, peak: m.peak, bigMs: m.ms, result: await r.page.textContent("#big-result") };
  await r.close();
} finally {
  await browser.close();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
const ms = (x) => `${Math.round(x)} ms`;
const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
console.log("## Replay in webkeep");
console.log();
console.log(`\`node scripts/bench/replay.mjs\`: the demo site recorded through the extension, each page replayed in webkeep (replay.html, the debugger's Fetch domain, every request answered from the archive) and its replay tab's reloads until the load event timed against the live page's, one of each in turn (median of ${runs} each). Target: replay at most 1.5x live. First load: the page's first load (the browser's navigation timing, from the navigation's start to the load event) in a new tab, live (median of 5 new tabs, the browser's cache as the recording left it) and in a new replay (median of ${firstReplays}, each its bar made anew, its batch not yet asked for).`);
console.log();
console.log("| page | live | replay | replay / live | first load: live | replay | replay / live |");
console.log("|---|---|---|---|---|---|---|");
const row = (name, r) => `| ${name} | ${ms(r.live)} | ${ms(r.replay)} | ${(r.replay / r.live).toFixed(2)}x | ${ms(r.liveFirst)} | ${ms(r.first)} | ${(r.first / r.liveFirst).toFixed(2)}x |`;
for (const r of rows) console.log(row(r.url, r));
const sum = (k) => rows.reduce((n, r) => n + r[k], 0);
console.log(row("all pages", Object.fromEntries(["live", "replay", "liveFirst", "first"].map((k) => [k, sum(k)]))));
console.log();
console.log(`The 24 MB file replayed (fetch() from the home page, ${mem.result}) in ${ms(mem.bigMs)}. Resident memory of the extension's process (the Go core and the replay page): ${mb(mem.before.ext)} before, ${mb(mem.peak.ext)} at the peak; of the whole browser: ${mb(mem.before.all)} before, ${mb(mem.peak.all)} at the peak (sampled every 50 ms).`);
