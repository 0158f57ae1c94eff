// Replays one large body in webkeep and measures it: a WARC/1.1 written by warcio.js
// (a page and a body of BYTES bytes, given no Content-Length, so that an import writes
// it in segments of unknown length) is imported, the page replayed, and the body
// fetched from the replay tab, with the resident memory of the extension's process and
// of the whole browser sampled every 50 ms. It then times the core's answer alone
// (from the replay page: the API's body read whole, and its base64 text made).
//   node scripts/probe-replay-big.mjs BYTES
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { WARCRecord, WARCSerializer } from "warcio";
import { launch, processMemory } from "./lib/browser.mjs";
import { openReplay } from "./lib/replay.mjs";

const size = Number(process.argv[2] || 24 << 20);
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-probe-"));
const body = new Uint8Array(size);
for (let i = 0; i < size; i += 4096) body[i] = i & 255;
const record = async (url, type, b) => WARCSerializer.serialize(await WARCRecord.create({
  url, type: "response", warcVersion: "WARC/1.1", date: "2024-05-06T07:08:09Z",
  httpHeaders: { "Content-Type": type }, statusline: "HTTP/1.1 200 OK",
}, (async function* () { yield b; })()), { gzip: true });
const file = Buffer.concat([
  await record("http://big.example/", "text/html", new TextEncoder().encode("<p id=t>big</p>")),
  await record("http://big.example/big", "application/octet-stream", body),
]);
const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
const browser = await launch({ downloads: dir });
try {
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("archive.html"));
  const job = await ext.evaluate(async (bytes) => {
    const started = await (await fetch("/api/import?name=big.warc.gz", { method: "POST", body: new Uint8Array(bytes) })).json();
    for (;;) {
      const j = await (await fetch(`/api/jobs/${started.job}`)).json();
      if (j.state !== "running") return j;
      await new Promise((r) => setTimeout(r, 200));
    }
  }, [...file]);
  if (job.state !== "done") throw new Error(`import: ${JSON.stringify(job)}`);
  const r = await openReplay(browser, job.result.id, "http://big.example/");
  const before = processMemory(browser);
  let peak = { ...before };
  const timer = setInterval(() => {
    try {
      const m = processMemory(browser);
      peak = { ext: Math.max(peak.ext, m.ext), all: Math.max(peak.all, m.all) };
    } catch { /* a process came or went */ }
  }, 50);
  const t0 = performance.now();
  const got = await r.page.evaluate(() => fetch("/big").then((res) => res.arrayBuffer()).then((b) => `${b.byteLength} bytes`, (e) => `failed: ${e}`));
  const ms = performance.now() - t0;
  clearInterval(timer);
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
  }, job.result.id);
  console.log(`the core's answer alone: ${core.ok ? "read whole" : "failed"} in ${Math.round(core.read)} ms, base64 in ${Math.round(core.base64)} ms`);
  await r.close();
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
