// What starting the team archive's Go instance costs before Go runs (docs/benchmarks-history.md, "The Worker's Go instance for each request"):
// node instantiates the built Worker module (dist/worker/app.wasm, which imports its
// memory) N times with wasm_exec.js's imports, each time in a new memory, then in one
// memory kept and cleared as wasm/worker/glue/worker.mjs does, and prints the medians.
// Instantiating copies the module's data into the memory: into pages never touched in
// a new one, into pages already there in a kept one.
//
//   node scripts/probe/instantiate.mjs [--runs N]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { memoryPages } from "../../dist/worker/memory.mjs";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 50;
const goroot = execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
createRequire(import.meta.url)(join(goroot, "lib", "wasm", "wasm_exec.js"));
const mod = new WebAssembly.Module(readFileSync(new URL("../../dist/worker/app.wasm", import.meta.url)));

const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const time = (memory) => {
  const t0 = performance.now();
  new WebAssembly.Instance(mod, { ...new Go().importObject, workers: { ready() {} }, webkeep: { memory: memory() } });
  return performance.now() - t0;
};
const fresh = () => new WebAssembly.Memory({ initial: memoryPages });
const kept = fresh();
const cleared = () => { new Uint8Array(kept.buffer).fill(0); return kept; };
const a = [], b = [];
for (let i = 0; i < runs; i++) { a.push(time(fresh)); b.push(time(cleared)); }
console.log(`instantiating app.wasm (${memoryPages} pages), median of ${runs}: in a new memory ${median(a).toFixed(2)} ms; in a kept one, cleared first ${median(b).toFixed(2)} ms`);
