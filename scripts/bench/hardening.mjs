// Benchmarks of the core under large inputs in real Chromium, printed as a
// markdown section for BENCHMARKS.md: the extension process's memory while a 1 GB WARC
// with one 300 MB record is imported, and while the largest URL database the limits let
// in is loaded, each through its page as a user would; and the longest time /api/status
// went unanswered meanwhile, asked from another page every 100 ms.
//
//   node scripts/bench/hardening.mjs [--warc BYTES] [--record BYTES] [--db YAML_BYTES]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, processMemory, waitFor } from "../lib/browser.mjs";
import { writeDatabase, writeWARC10 } from "../lib/hostile.mjs";
import { mb } from "../lib/stats.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const warcSize = arg("--warc", 1e9);
const recordSize = arg("--record", 300e6);
const dbSize = arg("--db", 32 << 20);

const dir = mkdtempSync(path.join(tmpdir(), "webkeep-bench-hardening-"));
const browser = await launch();
const rows = [];

// during runs work while the extension process's memory is sampled every 200 ms and
// /api/status is asked for from the probe page every 100 ms; it returns the peak memory
// over idle and the longest an answer took.
async function during(probe, work) {
  await new Promise((r) => setTimeout(r, 1000));
  const idle = processMemory(browser).ext;
  let peak = idle, longest = 0, asked = 0, running = true;
  const sampler = setInterval(() => {
    try { peak = Math.max(peak, processMemory(browser).ext); } catch { /* a process went away */ }
  }, 200);
  const prober = (async () => {
    while (running) {
      const t0 = performance.now();
      const status = await probe.evaluate(() => fetch("/api/status").then((r) => r.status));
      if (status !== 200) throw new Error(`/api/status answered ${status}`);
      longest = Math.max(longest, performance.now() - t0);
      asked++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const t0 = performance.now();
  try {
    await work();
  } finally {
    running = false;
    clearInterval(sampler);
    await prober;
  }
  return { idle, peak, longest, asked, secs: (performance.now() - t0) / 1000 };
}

// finished waits until the page's job boxes (the upload's, then the core's job) have
// both ended, and fails unless both are done.
async function finished(page, what) {
  await waitFor(async () => (await page.$$("#jobs .job")).length === 2 && !(await page.$('#jobs .job[data-state="running"]')), what, 3600000);
  const done = (await page.$$('#jobs .job[data-state="done"]')).length;
  if (done !== 2) throw new Error(`${what}: ${await page.textContent("#jobs")} ${await page.textContent("#error")}`);
}

try {
  const probe = await browser.context.newPage();
  await probe.goto(browser.page("popup.html"));

  // A WARC/1.0 of one 300 MB response and 1 MiB ones up to 1 GB (none with --warc 0).
  if (warcSize > 0) {
    const warc = path.join(dir, "big.warc");
    const sizes = [recordSize];
    for (let n = recordSize; n < warcSize; n += 1 << 20) sizes.push(1 << 20);
    writeWARC10(warc, sizes);
    const warcBytes = statSync(warc).size;
    const archive = await browser.context.newPage();
    await archive.goto(browser.page("archive.html"));
    // The page's Go has started once it has listed the sessions (none).
    await archive.waitForSelector("#no-sessions:not([hidden]), #sessions tr");
    const imp = await during(probe, async () => {
      await archive.setInputFiles("#import-file", warc);
      await finished(archive, "the import");
    });
    rmSync(warc);
    const session = (await probe.evaluate(() => fetch("/api/sessions").then((r) => r.json()))).find((s) => s.name === "big.warc");
    rows.push([`import of a ${mb(warcBytes)} MB WARC/1.0 with one ${mb(recordSize)} MB record (archive page): extension process over idle, peak`,
      `+${mb(imp.peak - imp.idle)} MB`, `idle ${mb(imp.idle)} MB, peak ${mb(imp.peak)} MB RSS (target: flat, under 200 MB over idle)`]);
    rows.push(["same: longest /api/status answer meanwhile", `${imp.longest.toFixed(0)} ms`, `of ${imp.asked} asked (target: under 1 s)`]);
    rows.push(["same: time to upload and import", `${imp.secs.toFixed(1)} s`, `${session ? session.records : "?"} records imported`]);
  }

  // The largest database the limits let in: domain files of 20,000 generated records
  // each, shaped like the real database's, just under the 32 MiB of YAML allowed.
  const dbZip = path.join(dir, "db.zip");
  const { records, yaml } = writeDatabase(dbZip, dbSize);
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector("#urldb-status[data-loaded]");
  const load = await during(probe, async () => {
    await options.setInputFiles("#urldb-zip", dbZip);
    await finished(options, "the database load");
  });
  const info = await probe.evaluate(() => fetch("/api/urldb").then((r) => r.json()));
  if (info.records !== records) throw new Error(`${info.records} records loaded of ${records}`);
  rows.push([`URL database load of ${records} records, ${mb(yaml)} MB of YAML (zip ${mb(statSync(dbZip).size)} MB; options page): extension process over idle, peak`,
    `+${mb(load.peak - load.idle)} MB`, `idle ${mb(load.idle)} MB, peak ${mb(load.peak)} MB RSS (target: flat, under 200 MB over idle)`]);
  rows.push(["same: longest /api/status answer meanwhile", `${load.longest.toFixed(0)} ms`, `of ${load.asked} asked (target: under 1 s)`]);
  rows.push(["same: time to upload and load", `${load.secs.toFixed(1)} s`, ""]);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log("## Large inputs in Chromium: a 1 GB import and a 32 MiB URL database\n");
console.log(`\`node scripts/bench/hardening.mjs --warc ${warcSize} --record ${recordSize} --db ${dbSize}\` (headless Debian Chromium, the real extension)\n`);
console.log("| measure | value | notes |\n| --- | --- | --- |");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
