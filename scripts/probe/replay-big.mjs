// Replays one large body in webkeep and measures it: a WARC/1.1 written by warcio.js
// (a page and a body of BYTES bytes, given no Content-Length, so that an import writes
// it in segments of unknown length) is imported, the page replayed, and the body
// fetched from the replay tab, with the resident memory of the extension's process and
// of the whole browser sampled every 50 ms. It then times the core's answer alone
// (from the replay page: the API's body read whole, and its base64 text made).
//   node scripts/probe/replay-big.mjs BYTES
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, peakMemory } from "../lib/browser.mjs";
import { importWARC, openReplay } from "../lib/replay.mjs";

const size = Number(process.argv[2] || 24 << 20);
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-probe-"));
const body = new Uint8Array(size);
for (let i = 0; i < size; i += 4096) body[i] = i & 255;
const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
const browser = await launch({ downloads: dir });
try {
  const id = await importWARC(browser, "big.warc.gz", [
    ["http://big.example/", "text/html", new TextEncoder().encode("<p id=t>big</p>")],
    ["http://big.example/big", "application/octet-stream", body, true],
  ]);
  const r = await openReplay(browser, id, "http://big.example/");
  const { before, peak, ms, result: got } = await peakMemory(browser, () => r.page.evaluate(() => fetch("/big").then((res) => res.arrayBuffer()).then((b) => `${b.byteLength} bytes`, (e) => `failed: ${e}`)));
  console.log(`body of ${size} bytes: the page got ${got} in ${Math.round(ms)} ms; the extension's process ${mb(before.ext)} before, ${mb(peak.ext)} at the peak; the whole browser ${mb(before.all)} before, ${mb(peak.all)} at the peak`);
  console.log(`the bar: withheld ${await r.bar.textContent("#replay-withheld")}; error ${await r.bar.textContent("#error")}`);
  const core = await r.bar.evaluate(async (sess) => {
    const t = performance.now();
    const res = await fetch(`/api/replay/${sess}/answer?ts=`, { method: "POST", body: JSON.stringify({ method: "GET", url: "http://big.example/big", headers: {} }) });
    const buf = await res.arrayBuffer().catch(() => null);
    const read = performance.now() - t;
    const t2 = performance.now();
    if (buf) new Uint8Array(buf).toBase64();
    return { read, base64: performance.now() - t2, ok: Boolean(buf) };
  }, id);
  console.log(`the core's answer alone: ${core.ok ? "read whole" : "failed"} in ${Math.round(core.read)} ms, base64 in ${Math.round(core.base64)} ms`);
  await r.close();
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
