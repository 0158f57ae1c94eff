// Probe: while a WARC (one 300 MB record, then 1 MiB ones up to SIZE bytes, 1 GB
// unless given) is imported from the archive page, the extension process's RSS next to
// the core's wasm memory, sampled each second with the page's job boxes.
//
//   SIZE=3e9 node scripts/probe/importmem.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, processMemory } from "../lib/browser.mjs";
import { writeWARC10 } from "../lib/hostile.mjs";
const dir = mkdtempSync(path.join(tmpdir(), "probe-importmem-"));
const browser = await launch();
try {
  const warc = path.join(dir, "big.warc");
  const sizes = [300e6];
  for (let n = 300e6; n < Number(process.env.SIZE || 1e9); n += 1 << 20) sizes.push(1 << 20);
  writeWARC10(warc, sizes);
  const archive = await browser.context.newPage();
  await archive.goto(browser.page("archive.html"));
  await archive.waitForSelector("#no-sessions:not([hidden]), #sessions tr");
  const sample = async () => {
    const m = processMemory(browser);
    const wasm = await browser.sw.evaluate(() => go._inst.exports.mem.buffer.byteLength).catch(() => NaN);
    return `ext ${(m.ext / 1e6).toFixed(0)} MB, wasm ${(wasm / 1e6).toFixed(0)} MB`;
  };
  console.log("idle", await sample());
  const t0 = Date.now();
  await archive.setInputFiles("#import-file", warc);
  for (let i = 0; i < 300; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const jobs = await archive.textContent("#jobs");
    console.log(((Date.now() - t0) / 1000).toFixed(0), await sample(), jobs.replace(/\s+/g, " ").slice(0, 120));
    if ((await archive.$$('#jobs .job')).length === 2 && !(await archive.$('#jobs .job[data-state="running"]'))) break;
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
