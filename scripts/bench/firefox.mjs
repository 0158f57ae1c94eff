// Benchmarks of webkeep's Firefox build in headless Firefox ESR, printed as a markdown
// section for BENCHMARKS.md: page-load time of the demo gallery with recording on and
// off (two tabs, loads alternating), the extension process's memory while a large
// response is recorded (--big 0 leaves that out), and while a large WARC is imported
// from the archive page (--import 0 leaves that out).
//
//   node scripts/bench/firefox.mjs [--loads N] [--big BYTES] [--import BYTES]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDemoSite, waitArchived, waitFor } from "../lib/browser.mjs";
import { api, firefoxExtensionProcess, firefoxMemory, firefoxTabId, launchFirefox, openExtensionPage } from "../lib/firefox.mjs";
import { writeWARC10 } from "../lib/hostile.mjs";
import { loadTimes, mb, median, memoryRows, printSection, ratio, sampleMemory } from "../lib/stats.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const loads = arg("--loads", 61);
const bigSize = arg("--big", 500 << 20);
const importSize = arg("--import", 1e9);
const settle = 300;

const site = await startDemoSite(["-big", String(bigSize)]);
const firefox = await launchFirefox();
const extensionPid = firefoxExtensionProcess(firefox);
const rows = [];
try {
  const url = new URL("/gallery", site.url).href;
  const tabs = [];
  for (const name of ["off", "on"]) {
    const page = await firefox.browser.newPage();
    await page.goto(`${url}?tab=${name}`);
    tabs.push({ page, id: await firefoxTabId(firefox.control, `${url}?tab=${name}`) });
  }
  const started = await api(firefox.control, "POST", `/api/record/start?tab=${tabs[1].id}`);
  if (started.status !== 200) throw new Error(`start: ${started.status} ${started.bytes}`);
  await waitFor(async () => JSON.parse((await api(firefox.control, "GET", "/api/status")).bytes).recording, "the recording to start");
  const [off, on] = await loadTimes(tabs.map((t) => t.page), url, loads, settle);
  rows.push(["page load, recording off (demo /gallery: HTML, CSS, 3 images, a script, a worker POST)", `${median(off).toFixed(1)} ms`, `median of ${loads}; loads alternate with the recorded tab's, ${settle} ms apart`]);
  rows.push(["page load, recording on", `${median(on).toFixed(1)} ms`, `median of ${loads}`]);
  rows.push(["ratio on/off (target <= 1.3)", ratio(on, off), "ratio of the medians; the interval by resampling the loads"]);
  await tabs[0].page.close();
  if (bigSize > 0) {
    // Memory while the recorded tab fetches the large response.
    const page = tabs[1].page;
    await page.goto(site.url);
    await new Promise((r) => setTimeout(r, 2000));
    const { idle, peak, stop } = sampleMemory(() => firefoxMemory(firefox, extensionPid));
    const t0 = performance.now();
    await page.click("#load-big");
    await page.waitForSelector("#load-big[data-done]", { timeout: 900000 });
    // Stopped once the body is archived, as a user is told to (docs/recording.md).
    const big = new URL("/big", site.url).href;
    await waitArchived(async (p) => JSON.parse((await api(firefox.control, "GET", p)).bytes),
      (r) => r.fields.url === big && r.fields.status === "200", "the large body to be archived", 900000);
    const stopped = await api(firefox.control, "POST", "/api/record/stop");
    stop();
    const secs = (performance.now() - t0) / 1000;
    const session = JSON.parse(stopped.bytes);
    rows.push(...memoryRows({ size: bigSize, process: "background page + Go core", browser: "Firefox", note: "includes the page's own copy of the response", idle, peak, secs, warcBytes: session.bytes }));
    // Nothing may be lost for the memory's sake: the page got every byte, and so did the
    // archive (the body saved from the session, as the replay bar saves it, hashed).
    const sent = (await site.log()).find((e) => e.url === "/big");
    const received = await page.evaluate(() => document.querySelector("#big-result").textContent);
    const archived = await firefox.control.evaluate(async (id, url) => {
      const res = await fetch(`/api/replay/${encodeURIComponent(id)}/file?url=${encodeURIComponent(url)}`);
      if (!res.ok) return `${res.status} ${await res.text()}`;
      const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", await res.arrayBuffer()));
      return [...sum].map((b) => b.toString(16).padStart(2, "0")).join("");
    }, session.id, big);
    const whole = received === `${bigSize} bytes, sha256 ${sent.response_sha256}`;
    const kept = archived === sent.response_sha256 ? "every byte" : `not whole (sha256 ${archived.slice(0, 300)}); the session's reasons ${JSON.stringify(session.reasons || {})}`;
    rows.push(["same: what the page received / the archive kept", `${whole ? "every byte" : received} / ${kept}`, "the sha256 of the page's copy and of the body saved from the session, against the site's"]);
  }
  if (importSize > 0) {
    // A WARC/1.0 of one 300 MB response and 1 MiB ones up to importSize, imported from
    // the archive page: the page sends the file in pieces to the background page.
    const dir = mkdtempSync(path.join(tmpdir(), "bench-firefox-import-"));
    try {
      const warc = path.join(dir, "big.warc");
      const recordSize = Math.min(300e6, importSize);
      const sizes = [recordSize];
      for (let n = recordSize; n < importSize; n += 1 << 20) sizes.push(1 << 20);
      writeWARC10(warc, sizes);
      const archive = await firefox.browser.newPage();
      await openExtensionPage(archive, firefox.page("archive.html"));
      await new Promise((r) => setTimeout(r, 2000));
      const { idle, peak, stop } = sampleMemory(() => firefoxMemory(firefox, extensionPid));
      const t0 = performance.now();
      await (await archive.$("#import-file")).uploadFile(warc);
      await waitFor(() => archive.evaluate(() => document.querySelectorAll("#jobs .job").length === 2 &&
        !document.querySelector('#jobs .job[data-state="running"]')), "the import to end", 3600000);
      stop();
      const secs = (performance.now() - t0) / 1000;
      const jobs = await archive.evaluate(() => document.querySelectorAll('#jobs .job[data-state="done"]').length === 2 ? "" : document.querySelector("#jobs").textContent);
      if (jobs) throw new Error(`the import did not end done: ${jobs}`);
      const session = JSON.parse((await api(archive, "GET", "/api/sessions")).bytes).find((x) => x.name === "big.warc");
      const warcBytes = statSync(warc).size;
      rows.push([`import of a ${mb(warcBytes)} MB WARC/1.0 with one ${mb(recordSize)} MB record (archive page): extension process over idle, peak`,
        `+${mb(peak.ext - idle.ext)} MB`, `idle ${mb(idle.ext)} MB, peak ${mb(peak.ext)} MB RSS (target: flat, under 200 MB over idle); all Firefox processes ${mb(idle.all)} / ${mb(peak.all)} MB`]);
      rows.push(["same: time to upload and import", `${secs.toFixed(1)} s`, `${session ? session.records : "?"} records imported`]);
      await archive.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await firefox.close();
  site.stop();
}

printSection("Extension in Firefox", `\`node scripts/bench/firefox.mjs --loads ${loads} --big ${bigSize} --import ${importSize}\` (headless Debian Firefox ESR, the Firefox build)`, rows);
