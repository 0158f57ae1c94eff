// How fast Chromium reads and compiles the core, each way the service worker could do it:
// an extension page of the real extension (the worker's origin and V8) times, several
// times over, reading the inflated core kept in Cache Storage (Response.arrayBuffer, or
// a Blob first), reading core.wasm.gz from the extension's files and inflating it
// (DecompressionStream), and compiling the core from a buffer or streamed from a
// Response. Each compile is of a module V8 has not seen (a custom section of its own
// appended), so that no cache of V8's answers it. It prints the milliseconds of each,
// fastest first. extension/sw.js reads the kept core as a Blob and compiles it from a
// buffer on these figures (BENCHMARKS.md, "Core cold start").
//
//   node scripts/probe-coreload.mjs [times]
import { extensionDir, launch } from "./lib/browser.mjs";

const times = Number(process.argv[2] || 7);
const browser = await launch({ extension: extensionDir });
try {
  const page = await browser.context.newPage();
  await page.goto(browser.page("style.css"));
  const rows = await page.evaluate(async (times) => {
    const inflate = (body) => new Response(body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
    const gz = new Uint8Array(await (await fetch("core.wasm.gz")).arrayBuffer());
    const raw = new Uint8Array(await inflate(new Blob([gz]).stream()));
    const cache = await caches.open("webkeep-probe-coreload");
    const url = "https://webkeep.invalid/probe-core.wasm";
    await cache.put(url, new Response(raw));
    let n = 0;
    const unseen = () => { // raw with a custom section named anew: a module V8 has not compiled
      const name = new TextEncoder().encode(`probe ${n++} ${Math.random()}`);
      const b = new Uint8Array(raw.length + 3 + name.length);
      b.set(raw);
      b.set([0, name.length + 1, name.length], raw.length); // id 0, size, name's length (< 128)
      b.set(name, raw.length + 3);
      return b;
    };
    const rows = [];
    const time = async (what, prepare, fn) => {
      const ms = [];
      for (let i = 0; i < times; i++) {
        const x = prepare();
        const t0 = performance.now();
        await fn(x);
        ms.push(performance.now() - t0);
      }
      rows.push([what, ms.sort((a, b) => a - b)]);
    };
    const none = () => null;
    await time("kept core read: Response.arrayBuffer()", none, async () => (await cache.match(url)).arrayBuffer());
    await time("kept core read: Response.blob(), then its arrayBuffer()", none, async () => (await (await cache.match(url)).blob()).arrayBuffer());
    await time("core.wasm.gz read from the extension's files", none, async () => (await fetch("core.wasm.gz")).arrayBuffer());
    await time("core.wasm.gz read from the extension's files and inflated", none, async () => inflate((await fetch("core.wasm.gz")).body));
    await time("compiled from a buffer: WebAssembly.compile", unseen, (b) => WebAssembly.compile(b));
    await time("compiled streamed: WebAssembly.compileStreaming(Response)", unseen,
      (b) => WebAssembly.compileStreaming(new Response(b, { headers: { "content-type": "application/wasm" } })));
    await caches.delete("webkeep-probe-coreload");
    return { rows, bytes: raw.length, gzipped: gz.length };
  }, times);
  console.log(`core.wasm: ${rows.bytes} bytes, ${rows.gzipped} gzipped; milliseconds of ${times} runs, fastest first`);
  for (const [what, ms] of rows.rows) console.log(`${what}: ${ms.map((x) => x.toFixed(0)).join(" ")}`);
} finally {
  await browser.close();
}
