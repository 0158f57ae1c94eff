// The parts of the core's cold start, timed one by one inside the running service worker
// (BENCHMARKS.md, "Core cold start in Chromium"): for each gzipped module named, a fetch
// of the .gz, its inflation by DecompressionStream, WebAssembly.validate, compile,
// instantiate (with wasm_exec.js's imports, not run), compileStreaming (from a Response
// in memory), and two reads of the inflated module kept in Cache Storage, as the shim
// keeps it: with Response.arrayBuffer(), and as a Blob first, then its arrayBuffer()
// (the shim's way, extension/sw.js), and four reads of it kept in IndexedDB instead.
// Each module's bytes get a custom section of random bytes first, so that V8 cannot
// hand back a module it compiled before. The modules must be files of the extension
// directory given.
//
//   node scripts/probe/coldstart.mjs [--runs N] EXTENSION_DIR FILE.wasm.gz...
import { launch } from "../lib/browser.mjs";

const args = process.argv.slice(2);
let runs = 6;
if (args[0] === "--runs") runs = Number(args.splice(0, 2)[1]);
const [dir, ...files] = args;
if (!dir || files.length === 0) throw new Error("usage: node scripts/probe/coldstart.mjs [--runs N] EXTENSION_DIR FILE.wasm.gz...");
const parts = ["fetch gz", "inflate", "validate", "compile", "instantiate", "compileStreaming", "kept: Response.arrayBuffer()", "kept: Blob, then arrayBuffer()",
  "IndexedDB: Blob", "IndexedDB: ArrayBuffer", "IndexedDB: 1 MiB pieces", "IndexedDB: 60000-byte pieces"];

const b = await launch({ extension: dir });
const times = Object.fromEntries(files.map((f) => [f, []]));
try {
  for (let i = 0; i < runs; i++) {
    for (const f of files) {
      times[f].push(await b.sw.evaluate(async (name) => {
        const t = [performance.now()];
        const gz = await (await fetch(name)).arrayBuffer();
        t.push(performance.now());
        // Inflated into one buffer of the size gzip's trailer gives, as the chunks come.
        const raw = new Uint8Array(new DataView(gz).getUint32(gz.byteLength - 4, true));
        const reader = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
        for (let n = 0, r; !(r = await reader.read()).done; n += r.value.length) raw.set(r.value, n);
        t.push(performance.now());
        // A custom section (id 0, 10 bytes: the name "x" and 8 random bytes) after the
        // module's own; a byte of it changed before each compile.
        const bytes = new Uint8Array(raw.length + 12);
        bytes.set(raw);
        bytes.set([0, 10, 1, 0x78], raw.length);
        crypto.getRandomValues(bytes.subarray(raw.length + 4));
        if (!WebAssembly.validate(bytes)) throw new Error(name + " is not a valid module");
        t.push(performance.now());
        bytes[bytes.length - 1] ^= 0xff;
        const module = await WebAssembly.compile(bytes);
        t.push(performance.now());
        await WebAssembly.instantiate(module, new Go().importObject);
        t.push(performance.now());
        bytes[bytes.length - 1] ^= 0x0f;
        await WebAssembly.compileStreaming(new Response(bytes, { headers: { "content-type": "application/wasm" } }));
        t.push(performance.now());
        const d = t.slice(1).map((x, i) => x - t[i]);
        // The inflated module kept in Cache Storage, read back whole.
        const cache = await caches.open("webkeep-probe-coldstart");
        const url = "https://webkeep.invalid/probe-" + name;
        await cache.put(url, new Response(raw, { headers: { "content-type": "application/wasm" } }));
        const timed = async (read) => {
          const t0 = performance.now();
          await read();
          return performance.now() - t0;
        };
        d.push(await timed(async () => (await cache.match(url)).arrayBuffer()));
        d.push(await timed(async () => (await (await cache.match(url)).blob()).arrayBuffer()));
        await caches.delete("webkeep-probe-coldstart");
        // The same bytes kept in IndexedDB instead: as a Blob, as one ArrayBuffer, and in
        // pieces of 1 MiB and of 60000 bytes (under the 64 KiB above which Chromium keeps
        // a value in a file of its own), read back with one getAll and joined.
        const db = await new Promise((resolve, reject) => {
          const open = indexedDB.open("webkeep-probe-coldstart", 1);
          open.onupgradeneeded = () => open.result.createObjectStore("kv");
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        const tx = (mode, fn) => new Promise((resolve, reject) => {
          const t = db.transaction("kv", mode);
          const req = fn(t.objectStore("kv"));
          t.oncomplete = () => resolve(req && req.result);
          t.onerror = () => reject(t.error);
        });
        await tx("readwrite", (s) => s.put(new Blob([raw]), "blob"));
        d.push(await timed(async () => (await tx("readonly", (s) => s.get("blob"))).arrayBuffer()));
        await tx("readwrite", (s) => s.put(raw.buffer.slice(0), "buffer"));
        d.push(await timed(() => tx("readonly", (s) => s.get("buffer"))));
        for (const size of [1 << 20, 60000]) {
          await tx("readwrite", (s) => {
            for (let at = 0, k = 0; at < raw.length; at += size, k++) s.put(raw.slice(at, at + size), `${size} ${String(k).padStart(4, "0")}`);
          });
          d.push(await timed(async () => {
            const pieces = await tx("readonly", (s) => s.getAll(IDBKeyRange.bound(`${size} `, `${size} \uffff`)));
            const whole = new Uint8Array(raw.length);
            let n = 0;
            for (const p of pieces) whole.set(p, (n += p.length) - p.length);
            if (n !== raw.length) throw new Error(`${n} of ${raw.length} bytes read back`);
          }));
        }
        db.close();
        await new Promise((resolve) => { indexedDB.deleteDatabase("webkeep-probe-coldstart").onsuccess = resolve; });
        return d;
      }, f));
    }
  }
} finally {
  await b.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`| module | ${parts.join(" | ")} |`);
console.log(`| --- |${" ---: |".repeat(parts.length)}`);
for (const f of files) {
  console.log(`| ${f} | ${parts.map((_, i) => `${median(times[f].map((d) => d[i])).toFixed(0)} ms`).join(" | ")} |`);
}
