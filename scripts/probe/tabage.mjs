// How a tab's age when it is navigated changes its page's first load, with no
// extension and no harness in the tab. A replay's bar makes its tab and navigates it
// as soon as the replay can answer; this probe makes a blank tab, waits WAIT ms, then
// navigates it (a client attaches only to send the navigation, and again after the
// load event to read the tab's navigation timing: navigation start to load event;
// scripts/lib/firstload.mjs), for
// each of the waits in turn. Prints each page's median for each wait and its ratio to
// the longest wait's (a settled tab), with its 95% interval (scripts/lib/stats.mjs).
//
//   node scripts/probe/tabage.mjs [LOADS]    (default 15)
//
// WAITS="0 30 80 150 500" sets the waits (ms; the last is the settled one); PAGES="/
// /missing" the demo's pages; CHROMIUM_FLAGS="--flag ..." adds flags to Chromium's
// (scripts/lib/pipebrowser.mjs).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDemoSite } from "../lib/browser.mjs";
import { liveBlankTab } from "../lib/firstload.mjs";
import { median, ratio } from "../lib/stats.mjs";
import { pipeBrowser } from "../lib/pipebrowser.mjs";

const loads = Number(process.argv[2] || 15);
const waits = (process.env.WAITS || "0 30 80 150 500").split(" ").map(Number);
const pages = (process.env.PAGES || "/ /missing").split(" ");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-tabage-"));
const site = await startDemoSite(["-big", "1024"]);
const b = pipeBrowser(dir);

try {
  await sleep(2000);
  console.log(`${loads} first loads of each page in a blank tab navigated after each wait, in turn:\n`);
  console.log(`| page | ${waits.map((w) => `${w} ms`).join(" | ")} |\n|---|${waits.map(() => "---").join("|")}|`);
  for (const p of pages) {
    const t = new Map(waits.map((w) => [w, []]));
    for (let i = 0; i < loads; i++) for (const w of waits) {
      t.get(w).push((await liveBlankTab(b, new URL(p, site.url).href, w)).ms);
      await sleep(300);
    }
    const settled = t.get(waits.at(-1));
    console.log(`| ${p} | ${waits.map((w) => `${median(t.get(w)).toFixed(1)} ms, ${ratio(t.get(w), settled)}`).join(" | ")} |`);
  }
} finally {
  await b.close(); // the profile is Chromium's until it has gone
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
