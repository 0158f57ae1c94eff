// Replays one large body in webkeep and measures it: a WARC/1.1 written by warcio.js
// (a page and a body of BYTES bytes, given no Content-Length, so that an import writes
// it in segments of unknown length) is imported, the page replayed, and the body
// fetched by the page's script and read as a stream, each byte checked against what
// was imported, with the resident memory of the extension's process and of the whole
// browser sampled every 50 ms. A body over 64 MiB reaches the page's fetch() as a
// stream from the archive (docs/replay.md); a synchronous XMLHttpRequest of it is then
// not given it, and it is saved from the bar's "Save the file", as a user has it: the download
// timed, its SHA-256 checked, the memory sampled. Last it times the core's answer
// alone (from the replay page: the API's body read whole, and its base64 text made).
//   node scripts/probe/replay-big.mjs BYTES
import { createHash } from "node:crypto";
import { createReadStream, mkdtempSync, rmSync, statSync } from "node:fs";
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
  // Read as a stream, each byte checked as it comes: the page keeps none of it.
  const { before, peak, ms, result: got } = await peakMemory(browser, () => r.page.evaluate(async () => {
    try {
      const reader = (await fetch("/big")).body.getReader();
      let n = 0, wrong = -1;
      for (let c = await reader.read(); !c.done; c = await reader.read()) {
        for (let i = 0; i < c.value.length && wrong < 0; i++) if (c.value[i] !== ((n + i) % 4096 ? 0 : (n + i) & 255)) wrong = n + i;
        n += c.value.length;
      }
      return wrong < 0 ? `${n} bytes (each as imported)` : `${n} bytes, byte ${wrong} NOT as imported`;
    } catch (e) {
      return `failed: ${e}`;
    }
  }));
  console.log(`body of ${size} bytes: the page got ${got} in ${Math.round(ms)} ms; the extension's process ${mb(before.ext)} before, ${mb(peak.ext)} at the peak; the whole browser ${mb(before.all)} before, ${mb(peak.all)} at the peak${got.startsWith("failed") ? "" : `; ${(size / 1e6 / (ms / 1000)).toFixed(1)} MB/s`}`);
  // A synchronous XMLHttpRequest of a body over 64 MiB is not given it (it cannot wait
  // for a stream); the bar lists it, with its "Save the file", once nothing in the page
  // took the stream (10 s).
  await r.page.evaluate(() => {
    const x = new XMLHttpRequest();
    x.open("GET", "/big", false);
    x.send();
  });
  if (size > 64 << 20) await r.bar.waitForSelector('#replay-withheld a:text("Save the file")', { timeout: 30_000 }).catch(() => {});
  console.log(`the bar: withheld ${await r.bar.textContent("#replay-withheld")}; error ${await r.bar.textContent("#error")}`);
  if (await r.bar.$('#replay-withheld a:text("Save the file")')) {
    const saved = await peakMemory(browser, async () => {
      const [d] = await Promise.all([r.bar.waitForEvent("download", { timeout: 600_000 }), r.bar.click('#replay-withheld a:text("Save the file")')]);
      const failure = await d.failure();
      return failure ? { failure } : { file: await d.path() };
    });
    const { file, failure } = saved.result;
    if (failure) console.log(`saved from the bar: failed (${failure})`);
    else {
      const n = statSync(file).size;
      const hash = createHash("sha256");
      for await (const chunk of createReadStream(file)) hash.update(chunk);
      const same = n === size && hash.digest("hex") === createHash("sha256").update(body).digest("hex");
      console.log(`saved from the bar: ${n} bytes (${same ? "SHA-256 as imported" : "NOT as imported"}) in ${Math.round(saved.ms)} ms (${(n / 1e6 / (saved.ms / 1000)).toFixed(1)} MB/s); the extension's process ${mb(saved.before.ext)} before, ${mb(saved.peak.ext)} at the peak; the whole browser ${mb(saved.before.all)} before, ${mb(saved.peak.all)} at the peak`);
    }
  }
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
