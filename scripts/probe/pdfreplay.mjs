// How long a replayed tab showing a PDF is without its debugger: an imported page and
// a PDF of BYTES bytes (3 MB unless told) at a stopped site (a listener on its port
// says what reaches it); the replay goes from the page to the PDF and back RUNS times
// (10 unless told), and the bar's own page logs, in ms, when the debugger was taken
// off (chrome.debugger.onDetach) and when the bar had attached it again
// (data-viewer-retaken, replay.js takeBack), the tab's requests blocked in between.
//
//   node scripts/probe/pdfreplay.mjs [BYTES] [RUNS]
//
// On 2026-12-06 (Chromium 156, this machine): see docs/benchmarks-history.md, "PDFs
// shown in replay".
import { createServer } from "node:net";
import { launch, waitFor } from "../lib/browser.mjs";
import { importWARC, openReplay } from "../lib/replay.mjs";

const bytes = Number(process.argv[2] || 3e6);
const runs = Number(process.argv[3] || 10);
// A one-page PDF, a comment padding it to about bytes.
const head = "%PDF-1.4\n";
const body = "1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
const pdf = Buffer.from(`${head}%${"x".repeat(Math.max(0, bytes - head.length - body.length - 2))}\n${body}`, "latin1");

const reached = [];
const trap = createServer((c) => {
  const at = reached.push("(sent nothing)") - 1;
  c.once("data", (d) => { reached[at] = d.toString("latin1").split("\r\n")[0]; c.destroy(); });
  c.on("error", () => {});
});
await new Promise((r) => trap.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${trap.address().port}`;
const browser = await launch();
try {
  const id = await importWARC(browser, "probe.warc.gz", [
    [`${base}/page`, "text/html", '<!doctype html><p id="t">page</p>'],
    [`${base}/doc.pdf`, "application/pdf", pdf],
  ]);
  const r = await openReplay(browser, id, `${base}/page`);
  await r.bar.evaluate(() => {
    globalThis.probe = { off: [], on: [] };
    chrome.debugger.onDetach.addListener(() => probe.off.push(performance.now()));
    new MutationObserver(() => probe.on.push(performance.now())).observe(document.body, { attributes: true, attributeFilter: ["data-viewer-retaken"] });
  });
  const gaps = [];
  for (let i = 1; i <= runs; i++) {
    await r.evaluate(() => { setTimeout(() => { location.href = "/doc.pdf"; }); });
    await waitFor(async () => (await r.bar.getAttribute("body", "data-viewer-retaken")) === String(i), `the tab attached again (${i})`, 30000);
    const { off, on } = await r.bar.evaluate(() => probe);
    gaps.push(on.at(-1) - off.at(-1));
    await r.evaluate(() => { setTimeout(() => { location.href = "/page"; }); });
    await waitFor(() => r.evaluate(() => document.getElementById("t")?.textContent === "page"), "the page again");
  }
  gaps.sort((a, b) => a - b);
  const ms = (v) => v.toFixed(1);
  console.log(`a PDF of ${pdf.length} bytes, ${runs} times: the tab without its debugger ${ms(gaps[Math.floor(gaps.length / 2)])} ms median (${ms(gaps[0])}-${ms(gaps.at(-1))}); the bar ${await r.bar.getAttribute("#state", "data-state")}; what reached the site's port: ${reached.length ? reached.join(", ") : "nothing"}`);
  await r.close();
} finally {
  await browser.close();
  trap.close();
}
