// `make bench` (scripts/bench/sections/checkcapture.sh): the capture check's time per
// page, in real Chromium through the extension. The demo site is recorded as `make demo`
// records it (every page, its forms, the feed gone through by autopilot), the site
// stopped, then the archive page's Check capture is clicked ROUNDS times (default 3) on
// the session. A page's time runs from the end of the check before it (or the click) to
// its verdict, kept by the core: the replay tab opened, the page loaded from the
// archive and a second of quiet, its picture and text, the comparison. Prints a
// Markdown section.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { browseDemo, guardPort, launch, picturedIn, startDemoSite, startRecording, waitFor } from "../lib/browser.mjs";

const rounds = Number(process.env.CHECK_BENCH_ROUNDS || 3);
const dir = mkdtempSync(path.join(os.tmpdir(), "webkeep-checkbench-"));
const upload = path.join(dir, "chosen.bin");
writeFileSync(upload, Buffer.from("a file chosen in the upload form\n", "latin1"));
const site = await startDemoSite();
const browser = await launch({});
const ms = [];
const sessions = [];
const differing = []; // "check N: verdict /path: why"
let guard;
try {
  const { page, popup } = await startRecording(browser, site.url);
  await browseDemo(page, site.url, upload, {}, { pictured: picturedIn(popup) });
  await page.goto(new URL("/feed", site.url).href);
  await popup.click("#autopilot");
  await popup.waitForSelector('#autopilot-state[data-running="true"]');
  await page.bringToFront();
  await popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 240000 });
  await popup.bringToFront();
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  const id = new URL(await popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  guard = await guardPort(site); // nothing live answers a check
  const archive = await browser.context.newPage();
  await archive.goto(browser.page(`archive.html#${id}`));
  await archive.waitForSelector("#pages > li");
  for (let r = 0; r < rounds; r++) {
    const clicked = Date.now();
    const t0 = performance.now();
    await archive.click("#check-capture");
    await waitFor(async () => /^Checking page /.test(await archive.textContent("#check-status")), "the check to start");
    await waitFor(async () => / checked: /.test(await archive.textContent("#check-status")), "the capture check", 900000);
    const whole = performance.now() - t0;
    const checks = (await archive.evaluate(async (s) => (await fetch(`/api/sessions/${s}/checks`)).json(), id))
      .map((c) => ({ verdict: c.verdict, at: Date.parse(c.checked), url: c.url, why: c.why || [] })).sort((a, b) => a.at - b.at);
    for (const c of checks.filter((c) => c.verdict !== "replays")) differing.push(`check ${r + 1}: ${c.verdict} ${new URL(c.url).pathname}: ${c.why.join("; ")}`);
    let last = clicked;
    for (const c of checks) { ms.push(c.at - last); last = c.at; }
    sessions.push({ whole, pages: checks.length, summary: await archive.textContent("#check-status") });
  }
  if (guard.hits() > 0) throw new Error(`${guard.hits()} connections reached the stopped demo site during the checks`);
} finally {
  guard?.close();
  await browser.close();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
const sorted = [...ms].sort((a, b) => a - b);
const q = (p) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
const s = (x) => (x / 1000).toFixed(1);
const summaries = [...new Set(sessions.map((x) => `"${x.summary}"`))];
console.log(`The archive page said ${summaries.join(", then ")}; the ${rounds} checks of the session took ${sessions.map((x) => s(x.whole)).join(", ")} s, from the click to the summary.`);
console.log();
console.log("| pages timed | median s a page | p99 s | min-max s | the session's check, median s |");
console.log("|---|---|---|---|---|");
const wholes = sessions.map((x) => x.whole).sort((a, b) => a - b);
console.log(`| ${ms.length} | ${s(q(0.5))} | ${s(q(0.99))} | ${s(sorted[0])}-${s(sorted.at(-1))} | ${s(wholes[Math.floor(wholes.length / 2)])} |`);
console.log();
if (differing.length) {
  console.log("Pages that did not replay as captured:");
  console.log();
  for (const d of differing) console.log(`- ${d}`);
  console.log();
}
console.log(`At the median, 183 pages would take ${(183 * q(0.5) / 60000).toFixed(1)} minutes, one page at a time.`);
