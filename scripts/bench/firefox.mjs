// Benchmarks of webkeep's Firefox build in headless Firefox ESR, printed as a markdown
// section for BENCHMARKS.md: page-load time of the demo gallery with recording on and
// off (two tabs, loads alternating), and the extension process's memory while a large
// response is recorded (--big 0 leaves that out).
//
//   node scripts/bench/firefox.mjs [--loads N] [--big BYTES]
import { startDemoSite, waitFor } from "../lib/browser.mjs";
import { api, firefoxExtensionProcess, firefoxMemory, firefoxTabId, launchFirefox } from "../lib/firefox.mjs";
import { loadTimes, median, memoryRows, printSection, ratio, sampleMemory } from "../lib/stats.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const loads = arg("--loads", 61);
const bigSize = arg("--big", 500 << 20);
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
    const stopped = await api(firefox.control, "POST", "/api/record/stop");
    stop();
    const secs = (performance.now() - t0) / 1000;
    const session = JSON.parse(stopped.bytes);
    rows.push(...memoryRows({ size: bigSize, process: "background page + Go core", browser: "Firefox", note: "includes the page's own copy of the response", idle, peak, secs, warcBytes: session.bytes }));
    // Nothing may be lost for the memory's sake: the page got every byte, and the session
    // has no body marked incomplete and no note.
    const sent = (await site.log()).find((e) => e.url === "/big");
    const received = await page.evaluate(() => document.querySelector("#big-result").textContent);
    const whole = received === `${bigSize} bytes, sha256 ${sent.response_sha256}`;
    const notes = session.notes || [];
    const kept = session.incomplete === 0 && notes.length === 0 && session.bytes > 0;
    rows.push(["same: what the page received / the archive kept", `${whole ? "every byte" : received} / ${kept ? "nothing marked" : `not whole: ${String(stopped.bytes)}`}`, "the page's sha256 against the site's; the session's marks and notes"]);
  }
} finally {
  await firefox.close();
  site.stop();
}

printSection("Extension in Firefox", `\`node scripts/bench/firefox.mjs --loads ${loads} --big ${bigSize}\` (headless Debian Firefox ESR, the Firefox build)`, rows);
