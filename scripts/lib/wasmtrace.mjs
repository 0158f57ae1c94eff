// What V8 compiles as the extension's service worker starts, read from a DevTools trace
// (scripts/bench/coldstart.mjs --compiled). V8 compiles a wasm function the first time it
// is called (lazy compilation, on the worker's thread), so the functions compiled in a
// step of the start are the code that step runs for the first time. Unlike a time, their
// number and size do not depend on the machine's load.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The trace categories lazyCompiled reads: the start's marks and V8's wasm compiles. */
export const categories = ["blink.user_timing", "v8.wasm", "disabled-by-default-v8.wasm.detailed"];

/**
 * The functions of a wasm module, by function index (imports counted, as V8 counts):
 * { name, size }, size being the body's length in bytes and name the one the module's
 * name section gives ("" when it has none).
 */
export function wasmFunctions(bytes) {
  let p = 8;
  const u32 = () => {
    let r = 0, shift = 0, b;
    do { b = bytes[p++]; r += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return r;
  };
  const fns = [];
  let imported = 0;
  while (p < bytes.length) {
    const id = bytes[p++], len = u32(), end = p + len;
    if (id === 2) { // imports: functions among them take the first indices
      for (let n = u32(); n > 0; n--) {
        for (let s = 0; s < 2; s++) { const l = u32(); p += l; } // module, field
        const kind = bytes[p++];
        if (kind === 0) { u32(); fns[imported++] = { name: "", size: 0 }; }
        else if (kind === 1) { p++; if (bytes[p++] & 1) { u32(); u32(); } else u32(); } // table
        else if (kind === 2) { if (bytes[p++] & 1) { u32(); u32(); } else u32(); } // memory
        else p += 2; // global: type, mutability
      }
    } else if (id === 10) { // code: each body's size
      for (let n = u32(), i = imported; n > 0; n--, i++) {
        const size = u32();
        fns[i] = { name: fns[i]?.name || "", size };
        p += size;
      }
    } else if (id === 0) {
      const nameLen = u32();
      const section = new TextDecoder().decode(bytes.subarray(p, p + nameLen));
      p += nameLen;
      while (section === "name" && p < end) {
        const sub = bytes[p++], subLen = u32(), subEnd = p + subLen;
        if (sub === 1) {
          for (let n = u32(); n > 0; n--) {
            const i = u32(), l = u32();
            fns[i] = { size: fns[i]?.size || 0, name: new TextDecoder().decode(bytes.subarray(p, p + l)) };
            p += l;
          }
        }
        p = subEnd;
      }
    }
    p = end;
  }
  return fns;
}

/**
 * The functions of wasm/core built as `make build` builds it, but with its names (no -s
 * -w): the code, and so the function indices, are those of the shipped core.wasm, which
 * lazyCompiled checks against the trace's body sizes.
 */
export function coreFunctions(root) {
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-core-names-"));
  try {
    const out = path.join(dir, "core.wasm");
    execFileSync("go", ["build", "-trimpath", "-o", out, "./wasm/core"], {
      cwd: root, env: { ...process.env, GOOS: "js", GOARCH: "wasm" }, stdio: ["ignore", "inherit", "inherit"],
    });
    return wasmFunctions(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The Go package of a function named in the wasm name section, where the linker writes
 * "/" and "%" as "_" and (*T) as __T_: "github.com_webkeep_webkeep_shared_capture.__Service_.routes"
 * is shared/capture, "gopkg.in_yaml_2ev3.init" gopkg.in/yaml.v3.
 */
export function goPackage(name) {
  const m = name.match(/^((?:vendor_)?[a-z0-9-]+\.[a-z]+_)?[^.]+/);
  return m[0].replace(/_2e/g, ".").replace(/_/g, "/").replace(/^github\.com\/webkeep\/webkeep\//, "");
}

/**
 * The wasm functions V8 compiled lazily on the worker's thread in a trace of one start,
 * each with the mark it followed: [{ step, name, size }] where step is the name of the
 * last "webkeep: " mark before the compile. It throws if a body size in the trace is not
 * that of fns (another build than the one the extension ships).
 */
export function lazyCompiled(events, fns) {
  const marks = events.filter((e) => e.cat.includes("blink.user_timing") && e.name.startsWith("webkeep: "))
    .sort((a, b) => a.ts - b.ts);
  if (marks.length === 0) throw new Error("the trace has no webkeep: marks");
  const thread = marks[0].tid;
  const out = [];
  for (const e of events) {
    if (e.name !== "wasm.CompileBaseline" || e.tid !== thread) continue;
    const { funcIndex, bodySize } = e.args;
    const fn = fns[funcIndex];
    if (!fn || fn.size !== bodySize) throw new Error(`function ${funcIndex} is ${bodySize} bytes in the trace, ${fn && fn.size} in the named build: not the same core.wasm`);
    let step = "";
    for (const m of marks) if (m.ts <= e.ts) step = m.name;
    out.push({ step, name: fn.name, size: bodySize });
  }
  return out;
}

/**
 * Traces one wake of the worker: starts tracing the categories lazyCompiled reads (or
 * those in cats) on the DevTools session cdp, awaits wake(), stops tracing, and
 * resolves to [wake's result, the trace's events].
 */
export async function traced(cdp, wake, cats = categories) {
  const events = [];
  const collect = (e) => events.push(...e.value);
  cdp.on("Tracing.dataCollected", collect);
  const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.start", { traceConfig: { includedCategories: cats }, transferMode: "ReportEvents" });
  try {
    return [await wake(), events];
  } finally {
    await cdp.send("Tracing.end");
    await complete;
    cdp.off("Tracing.dataCollected", collect);
  }
}

/**
 * The markdown rows of what was compiled lazily in each step of the start, over the
 * starts in wakes (one lazyCompiled list each): steps are [name, from, to] as
 * bench-coldstart.mjs names them, a function counting in the step whose first mark it
 * followed; a step in which none was is left out. Each row has the median number of functions and of bytes, and the Go packages
 * with most bytes in the step's median start; the first row, the whole start's, also the
 * fewest and the most.
 */
export function compiledRows(wakes, steps) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const rows = [];
  const total = { n: [], bytes: [] };
  for (const [name, from] of steps) {
    const per = wakes.map((fns) => fns.filter((f) => f.step === from));
    if (per.every((fns) => fns.length === 0)) continue; // the shim's steps run no Go
    const bytes = per.map((fns) => fns.reduce((s, f) => s + f.size, 0));
    const mid = per[bytes.indexOf(median(bytes))];
    const pkgs = new Map();
    for (const f of mid) pkgs.set(goPackage(f.name), (pkgs.get(goPackage(f.name)) || 0) + f.size);
    const top = [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([p, b]) => `${p} ${(b / 1000).toFixed(0)}`).join(", ");
    rows.push(`| ${name} | ${median(per.map((fns) => fns.length))} | ${(median(bytes) / 1000).toFixed(0)} | ${top} |`);
  }
  for (const fns of wakes) {
    total.n.push(fns.length);
    total.bytes.push(fns.reduce((s, f) => s + f.size, 0));
  }
  const range = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}-${f(Math.max(...xs))})`;
  const kb = (b) => (b / 1000).toFixed(0);
  rows.unshift(`| **from the fetch to its answer** (median, fewest-most) | ${range(total.n, String)} | ${range(total.bytes, kb)} | |`);
  return rows;
}

/** The trace category of V8's sampling profiler, which cpuSamples reads. */
export const profilerCategory = "disabled-by-default-v8.cpu_profiler";

/**
 * The samples of the V8 profiles in a trace (profilerCategory) of each thread that ran
 * a script whose URL starts with prefix: [{ ts, ms, stack }], ts the sample's time in
 * the trace's clock (µs, the monotonic clock), ms the time until the thread's next
 * sample, stack the function names from the sampled one outwards ("(program)",
 * "(idle)" and "(garbage collector)" as V8 names them).
 */
export function cpuSamples(events, prefix) {
  const profiles = new Map(); // pid:id -> { start, nodes: Map(id -> node), samples: [[ts, node]] }
  for (const e of events) {
    if (e.name !== "Profile" && e.name !== "ProfileChunk") continue;
    const key = `${e.pid}:${e.id}`;
    if (!profiles.has(key)) profiles.set(key, { t: 0, nodes: new Map(), samples: [], ours: false });
    const p = profiles.get(key);
    const d = e.args.data || {};
    if (e.name === "Profile") { p.t = d.startTime; continue; }
    for (const n of (d.cpuProfile && d.cpuProfile.nodes) || []) {
      p.nodes.set(n.id, n);
      if ((n.callFrame.url || "").startsWith(prefix)) p.ours = true;
    }
    const samples = (d.cpuProfile && d.cpuProfile.samples) || [];
    (d.timeDeltas || []).forEach((dt, i) => {
      p.t += dt;
      p.samples.push([p.t, samples[i]]);
    });
  }
  const out = [];
  for (const p of profiles.values()) {
    if (!p.ours) continue;
    const stack = (id) => {
      const names = [];
      for (let n = p.nodes.get(id); n; n = p.nodes.get(n.parent)) names.push(n.callFrame.functionName || "(anonymous)");
      return names;
    };
    p.samples.sort((a, b) => a[0] - b[0]);
    p.samples.forEach(([ts, id], i) => {
      const next = p.samples[i + 1];
      out.push({ ts, ms: next ? (next[0] - ts) / 1000 : 0, stack: stack(id) });
    });
  }
  return out;
}
