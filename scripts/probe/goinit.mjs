// Where a Go wasm module's start goes, outside the browser (BENCHMARKS.md, "Core cold
// start in Chromium"): node compiles the module (WebAssembly.compile), instantiates it
// with wasm_exec.js's imports, and runs it until its main marks "webkeep: main" (as
// wasm/core and scripts/bench/coldfloor do), timing the three; node's own V8 flags show what
// compiling at first call costs (--no-wasm-lazy-compilation compiles every function
// ahead; --single-threaded leaves no background tier-up beside the run). With --profile
// it samples the run with V8's profiler and prints the inclusive time of the runtime's
// start (runtime.rt0_go), of the package inits (runtime.doInit1) and of the largest
// package inits: a build with its function names (no -ldflags=-s) is needed for them.
//
//   node [V8 FLAGS] scripts/probe/goinit.mjs [--runs N] [--profile] FILE.wasm
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { execFileSync } from "node:child_process";
import path from "node:path";

const usage = "usage: node [V8 FLAGS] scripts/probe/goinit.mjs [--runs N] [--profile] FILE.wasm";
const args = process.argv.slice(2);
let runs = 5, profile = false, file = null;
while (args.length > 0) {
  const a = args.shift();
  if (a === "--runs") runs = Number(args.shift());
  else if (a === "--profile") profile = true;
  else if (!file && !a.startsWith("-")) file = a;
  else throw new Error(`${a}: not an argument of the probe; ${usage}`);
}
if (!file || !(runs >= 1)) throw new Error(usage);
const goroot = execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
await import(path.join(goroot, "lib/wasm/wasm_exec.js"));
const bytes = readFileSync(file);

// The module's main goes on without the worker's host, and fails: what it prints is
// kept, not shown, and shown only if it exits before its main begins.
let printed = "";
const decoder = new TextDecoder();
globalThis.fs.writeSync = (fd, buf) => {
  printed += decoder.decode(buf);
  return buf.length;
};

// unique returns the module's bytes with a custom section of random bytes after its
// own, so that V8 compiles them anew: it hands back a module it compiled before, with
// the functions already compiled in it, for the same bytes.
function unique() {
  const b = new Uint8Array(bytes.length + 12);
  b.set(bytes);
  b.set([0, 10, 1, 0x78], bytes.length); // section 0, 10 bytes, the name "x"
  crypto.getRandomValues(b.subarray(bytes.length + 4));
  return b;
}

// run starts one instance and resolves, when its main marks "webkeep: main", to the
// times of the three parts (ms).
async function run(session) {
  const b = unique();
  const t = [performance.now()];
  const module = await WebAssembly.compile(b);
  t.push(performance.now());
  const go = new Go();
  go.exit = () => {};
  const instance = await WebAssembly.instantiate(module, go.importObject);
  t.push(performance.now());
  if (session) await session.post("Profiler.start");
  printed = "";
  const main = new Promise((resolve, reject) => {
    globalThis.performance.mark = (name) => { if (name === "webkeep: main") resolve(performance.now()); };
    // Settled first only by a module that never marks its main (not webkeep's core or
    // floor), or that fails before it.
    go.run(instance).then(
      () => reject(new Error(`${file} exited before its main marked "webkeep: main"${printed && ":\n" + printed}`)),
      (e) => reject(new Error(`${file} failed before its main marked "webkeep: main": ${e}`)));
  });
  t.push(await main);
  const prof = session && (await session.post("Profiler.stop")).profile;
  return { parts: t.slice(1).map((x, i) => x - t[i]), prof };
}

// inclusive sums each sampled function's time with its callees', in ms.
function inclusive(prof) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const sums = new Map();
  prof.samples.forEach((id, i) => {
    const seen = new Set();
    for (; id; id = parent.get(id)) {
      const name = byId.get(id).callFrame.functionName;
      if (seen.has(name)) continue;
      seen.add(name);
      sums.set(name, (sums.get(name) || 0) + (prof.timeDeltas[i] || 0) / 1000);
    }
  });
  return sums;
}

const session = profile && new Session();
if (session) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
}
const times = [];
const sums = new Map();
for (let i = 0; i < runs; i++) {
  const { parts, prof } = await run(session);
  times.push(parts);
  if (prof) for (const [k, v] of inclusive(prof)) sums.set(k, (sums.get(k) || 0) + v / runs);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const flags = process.execArgv.join(" ") || "default V8 flags";
console.log(`${path.basename(file)} (${bytes.length} bytes), node ${process.version}, ${flags}, median of ${runs}:`);
console.log(["compile", "instantiate", "Go runtime and package init"].map((name, i) => `${name} ${median(times.map((t) => t[i])).toFixed(1)} ms`).join(", "));
if (session) {
  console.log("inclusive ms (mean):");
  const wanted = [...sums].filter(([k]) => /^runtime\.(rt0_go|schedinit|doInit1)$|\.init$/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 15);
  if (wanted.length === 0) console.log("(no Go function names in the profile: build the module without -ldflags=-s)");
  for (const [k, v] of wanted) console.log(`${v.toFixed(1).padStart(7)} ${k}`);
}
process.exit(0);
