// Benchmarks of the extension in real Chromium, printed as a markdown section for
// BENCHMARKS.md: page-load time with recording on and off (median of repeated loads in
// the same run), and the browser's memory while a large response is recorded. (The
// core's cold start is scripts/bench/coldstart.mjs.)
//
//   node scripts/bench/extension.mjs [--loads N] [--big BYTES]
import { launch, processMemory, startDemoSite, waitArchived, waitFor } from "../lib/browser.mjs";
import { floorDir, measureTabs, settle } from "../lib/pageload.mjs";
import { median, memoryRows, printSection, ratio, sampleMemory } from "../lib/stats.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const loads = arg("--loads", 61);
const bigSize = arg("--big", 500 << 20);

const site = await startDemoSite(["-big", String(bigSize)]);
const browser = await launch({ extra: [floorDir] });
const floorId = new URL(browser.extraWorkers[0].url()).host;
const rss = () => processMemory(browser);
const rows = [];
try {
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("popup.html"));

  // Three tabs on the same page (lib/pageload.mjs): the floor tells the browser's cost
  // from webkeep's. Once against the demo site as it is (loopback, answers at once),
  // once with each response 40 ms late, as from a distant server: recording's cost is
  // mostly fixed per page.
  const measure = (siteURL) => measureTabs(browser, ext, new URL("/gallery", siteURL).href, floorId, loads);
  const [[off, base, on], page] = await measure(site.url);
  rows.push(["page load, recording off (demo /gallery: HTML, CSS, 3 images, a script, a worker POST)", `${median(off).toFixed(1)} ms`, `median of ${loads}; loads alternate with the other two tabs', ${settle} ms apart`]);
  rows.push(["page load, DevTools floor (the debugger attached as webkeep attaches it, nothing recorded)", `${median(base).toFixed(1)} ms`, `median of ${loads}; ratio to off ${ratio(base, off)}`]);
  rows.push(["page load, recording on", `${median(on).toFixed(1)} ms`, `median of ${loads}; ratio to the floor ${ratio(on, base)}`]);
  rows.push(["ratio on/off (target <= 1.3)", ratio(on, off), "ratio of the medians; the interval by resampling the loads"]);
  const far = await startDemoSite(["-latency", "40ms"]);
  try {
    const [[farOff, , farOn], farTab] = await measure(far.url);
    await farTab.close();
    rows.push(["same, each response 40 ms late: recording off / on", `${median(farOff).toFixed(1)} / ${median(farOn).toFixed(1)} ms`, `ratio ${ratio(farOn, farOff)}`]);
  } finally {
    far.stop();
  }

  // Memory while a large response is recorded, by the one extension process left once
  // the floor's has gone.
  ext.evaluate((id) => chrome.runtime.sendMessage(id, { leave: true }), floorId).catch(() => { /* it went */ });
  await waitFor(() => { try { return rss(); } catch { return false; } }, "the floor extension to leave");
  await page.goto(site.url);
  await new Promise((r) => setTimeout(r, 1000));
  const { idle, peak, stop } = sampleMemory(() => rss());
  const t0 = performance.now();
  await page.click("#load-big");
  await page.waitForSelector("#load-big[data-done]", { timeout: 600000 });
  // Stopped once the body is archived, as a user is told to (docs/recording.md: a body
  // that came before its stream could start is fetched again, which a stop would cut).
  const big = new URL("/big", site.url).href;
  await waitArchived((p) => ext.evaluate((p) => fetch(p).then((r) => r.json()), p),
    (r) => r.fields.url === big && r.fields.mime !== "text/plain", "the large body to be archived", 600000);
  const session = await ext.evaluate(() => fetch("/api/record/stop", { method: "POST" }).then((r) => r.json()));
  stop();
  const secs = (performance.now() - t0) / 1000;
  rows.push(...memoryRows({ size: bigSize, process: "service worker + Go core", browser: "Chromium", note: "includes the page's own copy of the response and shared pages counted per process", idle, peak, secs, warcBytes: session.bytes }));
  // Nothing may be lost for the memory's sake: the page got every byte, and so did the
  // archive (the body saved from the session, as the replay bar saves it, hashed).
  const sent = (await site.log()).find((e) => e.url === "/big");
  const received = await page.evaluate(() => document.querySelector("#big-result").textContent);
  const archived = await ext.evaluate(async ([id, url]) => {
    const res = await fetch(`/api/replay/${encodeURIComponent(id)}/file?url=${encodeURIComponent(url)}`);
    if (!res.ok) return `${res.status} ${await res.text()}`;
    const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", await res.arrayBuffer()));
    return [...sum].map((b) => b.toString(16).padStart(2, "0")).join("");
  }, [session.id, new URL("/big", site.url).href]);
  const whole = received === `${bigSize} bytes, sha256 ${sent.response_sha256}`;
  const kept = archived === sent.response_sha256;
  let lost = "";
  if (!kept) {
    const records = await ext.evaluate((id) => fetch(`/api/sessions/${encodeURIComponent(id)}/records`).then((r) => r.json()), session.id);
    const notes = await ext.evaluate(([id, offsets]) => Promise.all(offsets.map((o) => fetch(`/api/sessions/${encodeURIComponent(id)}/record?offset=${o}`).then((r) => r.json()).then((r) => r.text))),
      [session.id, records.filter((r) => r.fields.url.endsWith("/big") && r.fields.mime === "text/plain").map((r) => r.fields.offset)]);
    lost = `not whole (sha256 ${archived.slice(0, 300)}): its notes ${JSON.stringify(notes)}; the session's reasons ${JSON.stringify(session.reasons || {})}`;
  }
  rows.push(["same: what the page received / the archive kept", `${whole ? "every byte" : received} / ${kept ? "every byte" : lost}`, "the sha256 of the page's copy and of the body saved from the session, against the site's"]);
} finally {
  await browser.close();
  site.stop();
}

printSection("Extension in Chromium", `\`node scripts/bench/extension.mjs --loads ${loads} --big ${bigSize}\` (headless Debian Chromium, the real extension)`, rows);
