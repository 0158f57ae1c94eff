// Probe: the extension process's growth while its service worker reads a 1 GB
// upload's body (a file fetched from an extension page, as a Blob or as the Blob's
// stream), its chunks let go or detached once read (ArrayBuffer.transfer(0)), and
// optionally stored per MiB in IndexedDB (as a Blob or a typed array). Each line:
// the mode, the bytes read, the peak over idle, the time.
//
//   node scripts/probe/streamrelease.mjs
//   MODES="body=blob,body=blob&release=1,body=stream&store=blob" node scripts/probe/streamrelease.mjs
import { mkdtempSync, rmSync, openSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, processMemory } from "../lib/browser.mjs";

const modes = (process.env.MODES || "body=blob,body=blob&release=1,body=stream,body=stream&release=1,body=blob&store=blob,body=blob&store=array").split(",");
const dir = mkdtempSync(path.join(tmpdir(), "probe-streamrelease-"));
const file = path.join(dir, "big.bin");
const fd = openSync(file, "w");
const mib = Buffer.alloc(1 << 20, 97);
for (let i = 0; i < 1000; i++) writeSync(fd, mib);
closeSync(fd);
const browser = await launch();
try {
  // A fetch listener of the probe's own, beside the core's (which answers /api/ only).
  await browser.sw.evaluate(() => {
    self.addEventListener("fetch", (event) => {
      const url = new URL(event.request.url);
      if (url.pathname !== "/probe-body") return;
      const release = url.searchParams.has("release"), store = url.searchParams.get("store");
      event.respondWith((async () => {
        const db = await new Promise((resolve, reject) => {
          const open = indexedDB.open("probe-streamrelease", 1);
          open.onupgradeneeded = () => open.result.createObjectStore("kv");
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        const put = (value, key) => new Promise((resolve, reject) => {
          const t = db.transaction("kv", "readwrite");
          t.objectStore("kv").put(value, key);
          t.oncomplete = resolve;
          t.onerror = () => reject(t.error);
        });
        const reader = event.request.body.getReader();
        const buf = new Uint8Array(1 << 20);
        let n = 0, fill = 0, seq = 0;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          n += value.byteLength;
          for (let at = 0; store && at < value.length;) {
            const k = Math.min(value.length - at, buf.length - fill);
            buf.set(value.subarray(at, at + k), fill);
            fill += k;
            at += k;
            if (fill === buf.length) {
              await put(store === "blob" ? new Blob([buf]) : buf.slice(), String(seq++));
              fill = 0;
            }
          }
          if (release) value.buffer.transfer(0);
        }
        db.close();
        return new Response(String(n));
      })());
    });
  });
  const page = await browser.context.newPage();
  await page.goto(browser.page("popup.html"));
  await page.evaluate(() => {
    const input = document.createElement("input");
    input.type = "file";
    input.id = "probe-file";
    document.body.append(input);
  });
  await page.setInputFiles("#probe-file", file);
  for (const mode of modes) {
    await new Promise((r) => setTimeout(r, 2000));
    const idle = processMemory(browser).ext;
    let peak = idle;
    const sampler = setInterval(() => { try { peak = Math.max(peak, processMemory(browser).ext); } catch { /* a process went away */ } }, 100);
    const t0 = Date.now();
    const read = await page.evaluate(async (mode) => {
      const f = document.getElementById("probe-file").files[0];
      const init = { method: "POST", body: f };
      if (mode.includes("body=stream")) {
        init.body = f.stream().pipeThrough(new TransformStream());
        init.duplex = "half";
      }
      return (await fetch("/probe-body?" + mode, init)).text();
    }, mode);
    clearInterval(sampler);
    console.log(`${mode}: ${read} bytes read, the extension's process +${((peak - idle) / 1e6).toFixed(0)} MB over idle at the peak, ${Date.now() - t0} ms`);
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
