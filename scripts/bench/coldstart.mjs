// The core's cold start in Chromium's service worker, printed as a markdown section for
// BENCHMARKS.md: the real extension in headless Chromium; its service worker stopped
// (DevTools ServiceWorker.stopAllWorkers), then woken by a fetch of /api/status from an
// extension page, timed until the answer has arrived; many times over. The shim and the
// core mark each step of their start (performance.mark), which splits the time:
//
//   worker start      the fetch sent -> sw.js begins (the browser starts the worker)
//   shim scripts      importScripts of wasm_exec.js, store.js and the shim's parts
//   core read         the inflated core kept in Cache Storage read whole (on the first
//                     start: core.wasm.gz read from the files and inflated)
//   core compiled     WebAssembly.instantiate of those bytes
//   Go init           the Go runtime and every package's init, until main
//   store, service    capture.NewService: settings and sessions read from IndexedDB
//   reconcile         a recording whose tabs are gone is closed (tabs listed)
//   first answer      the API published -> the page has the /api/status answer
//
// --against DIR compares with another build of the extension (a copy of an earlier
// dist/extension): both are launched, each in a browser of its own, and their wakes
// alternate, so that the machine's load, which on a shared machine moves the times
// several-fold, weighs on both alike; it prints the other build's table too, and the
// ratio of each pair of wakes.
//
// --user-store DIR fills each build's store as a user's is before the wakes (it is
// empty otherwise): the URL database of DIR's domain files loaded through the options
// page, the settings saved, and one session recorded (of the extension page the wakes
// are asked from), so that a wake reads settings, state and that session. A core that
// parsed its kept database as it started made every wake wait for it.
//
// --idle S waits S seconds before each wake instead of 200 ms, the worker stopped and
// the browser idle, as before a user's wake (Chromium stops the worker after 30 s
// idle): whatever V8 collects from an idle process meanwhile, the keeper's compiled
// core included if nothing holds it, is gone when the worker starts. Wakes 200 ms
// apart found the module held even when the keeper lost it to its worker's first
// garbage collection (2026-12-05, docs/benchmarks-history.md).
//
// --compiled traces each start instead of timing it (scripts/lib/wasmtrace.mjs), and
// prints how many of core.wasm's functions V8 compiled lazily in each step, and their
// bytes, by Go package: the code each step runs for the first time, which a loaded
// machine does not change (it needs Go, to build the core again with its names).
//
//   node scripts/bench/coldstart.mjs [--runs N] [--user-store DIR] [--idle S] [--against DIR | --compiled]
import { extensionDir, launch, root, serviceWorker } from "../lib/browser.mjs";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { quantile } from "../lib/stats.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
};
const runs = Number(arg("--runs", 31));
const userStore = arg("--user-store", null);
const against = arg("--against", null);
const compiled = process.argv.includes("--compiled");
const idle = Number(arg("--idle", 0));
const trace = compiled && await import("../lib/wasmtrace.mjs");
if (compiled && against) throw new Error("--compiled names the functions of this tree's core: it takes no --against");
const functions = compiled && trace.coreFunctions(root);
const ms = (x) => `${x.toFixed(0)} ms`;

const steps = [
  ["worker start", "sent", "webkeep: shim"],
  ["shim scripts (importScripts)", "webkeep: shim", "webkeep: scripts"],
  ["core read (kept core, or core.wasm.gz inflated)", "webkeep: scripts", "webkeep: core read"],
  ["core compiled, instantiated", "webkeep: core read", "webkeep: instantiated"],
  ["Go runtime and package init", "webkeep: instantiated", "webkeep: main"],
  ["store opened, settings and sessions read", "webkeep: main", "webkeep: service"],
  ["reconcile (tabs listed)", "webkeep: service", "webkeep: reconciled"],
  ["API published", "webkeep: reconciled", "webkeep: ready"],
  ["first answer (/api/status)", "webkeep: ready", "answered"],
];

// start launches a build and opens an extension page that runs none of the pages' code
// (the popup asks the core for its status by itself): its fetches go to the service
// worker all the same.
async function start(dir) {
  const browser = await launch({ extension: dir });
  const page = await browser.context.newPage();
  await page.goto(browser.page("style.css"));
  const worker = await serviceWorker(browser, page);
  const b = { dir, browser, page, worker, cdp: worker.cdp, times: { total: [] }, lazy: [] };
  for (const [name] of steps) b.times[name] = [];
  if (userStore) {
    await fillStore(browser).catch(async (e) => {
      await browser.close();
      throw new Error(`--user-store: the store of the build in ${dir} could not be filled (the floor's core, scripts/bench/coldfloor, answers no request but the status, so it cannot be): ${e.message}`);
    });
  }
  return b;
}

// fillStore fills the store of the browser's extension as --user-store says.
async function fillStore(browser) {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.setInputFiles("#urldb-folder", path.resolve(userStore));
  await options.waitForSelector('#urldb-status[data-loaded="true"]', { timeout: 90000 });
  const failed = await options.evaluate(async () => {
    const settings = await (await fetch("/api/settings")).json();
    const [tab] = await chrome.tabs.query({ url: location.origin + "/style.css" });
    const steps = [
      ["PUT", "/api/settings", JSON.stringify(settings)],
      ["POST", "/api/record/start?tab=" + tab.id],
      ["POST", "/api/record/stop"],
    ];
    for (const [method, url, body] of steps) {
      const r = await fetch(url, { method, body, headers: body ? { "content-type": "application/json" } : {} });
      if (!r.ok) return `${method} ${url}: ${r.status} ${await r.text()}`;
    }
    return (await (await fetch("/api/sessions")).json()).length === 1 ? "" : "no session was recorded";
  });
  if (failed) throw new Error("filling the store: " + failed);
  await options.close();
}

// wake stops b's service worker, wakes it with a fetch of /api/status, and returns the
// time of each mark on the browser's clock.
async function wake(b) {
  await b.worker.stop();
  await new Promise((r) => setTimeout(r, idle ? idle * 1000 : 200)); // the browser quiet again
  const fetchStatus = () => b.page.evaluate(async () => {
    const t0 = performance.timeOrigin + performance.now();
    const r = await fetch("/api/status");
    if (!r.ok) throw new Error("/api/status answered " + r.status);
    await r.json();
    return [t0, performance.timeOrigin + performance.now()];
  });
  const [[sent, answered], events] = compiled ? await trace.traced(b.cdp, fetchStatus) : [await fetchStatus()];
  if (compiled) b.lazy.push(trace.lazyCompiled(events, functions));
  // Playwright's handle of the worker evaluates in the worker started anew.
  const marks = await b.browser.sw.evaluate(() => [performance.timeOrigin,
    performance.getEntriesByType("mark").filter((m) => m.name.startsWith("webkeep: ")).map((m) => [m.name, m.startTime])]);
  const at = { sent, answered };
  for (const [name, t] of marks[1]) at[name] = marks[0] + t;
  return at;
}

const builds = [];
try {
  builds.push(await start(extensionDir));
  if (against) builds.push(await start(path.resolve(against)));
  for (let i = 0; i < runs + 1; i++) {
    // Each round wakes every build once, in turns that alternate which goes first.
    for (const b of i % 2 ? [...builds].reverse() : builds) {
      const at = await wake(b);
      if (i === 0) { // the first start after install compiles what the rest may cache
        b.lazy.length = 0;
        continue;
      }
      b.times.total.push(at.answered - at.sent);
      for (const [name, from, to] of steps) b.times[name].push(at[to] - at[from]);
    }
  }
} finally {
  for (const b of builds) await b.browser.close();
}

if (compiled) {
  const build = process.env.WEBKEEP_EXTENSION ? `WEBKEEP_EXTENSION=${process.env.WEBKEEP_EXTENSION} ` : "";
  const after = idle ? `, each after ${idle} s idle` : "";
  console.log(`### What the cold start compiles${after}${build ? ": " + process.env.WEBKEEP_EXTENSION : ""}`);
  console.log();
  console.log(`\`${build}node scripts/bench/coldstart.mjs --runs ${runs}${idle ? " --idle " + idle : ""} --compiled\`: the wasm functions V8 compiled lazily (at their first call, on the worker's thread) in each step of a cold start${after}, median of ${runs} starts; the kilobytes are of wasm function bodies, the packages those with most of them.`);
  console.log();
  console.log("| step | functions compiled | KB compiled | largest packages (KB) |");
  console.log("| --- | ---: | ---: | --- |");
  for (const row of trace.compiledRows(builds[0].lazy, steps)) console.log(row);
  process.exit(0);
}

// size describes a build's core: gzipped as shipped, or, in a build from before it was,
// as it is.
function size(dir) {
  const gz = path.join(dir, "core.wasm.gz");
  if (!existsSync(gz)) return `${statSync(path.join(dir, "core.wasm")).size} bytes (not gzipped)`;
  const b = readFileSync(gz);
  return `${gunzipSync(b).length} bytes (${b.length} gzipped, as shipped)`;
}

const load = os.loadavg();
const row = (name, xs) => `| ${name} | ${ms(quantile(xs, 0.5))} | ${ms(quantile(xs, 0.1))} - ${ms(quantile(xs, 0.9))} | ${ms(Math.min(...xs))} - ${ms(Math.max(...xs))} |`;
const table = (b) => {
  console.log("| step | median | 10th - 90th percentile | fastest - slowest |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(row("**from the fetch to its answer**", b.times.total));
  // A build from before a mark was added has no time for its steps: they are left out.
  for (const [name] of steps) if (!b.times[name].some(Number.isNaN)) console.log(row(name, b.times[name]));
};
// Its section runs this with an empty store, then with a user's (coldstart.sh): the second
// is a part of the first's section.
console.log(userStore ? "### With a user's store" : idle ? `### After ${idle} s idle, as a user's wake` : "## Core cold start in Chromium");
console.log();
const store = userStore ? `a user's store: the URL database of ${userStore} loaded (${readdirSync(userStore).filter((f) => f.endsWith(".yaml")).length} domain files), the settings saved, one session recorded` : "an empty store";
console.log(`\`node scripts/bench/coldstart.mjs --runs ${runs}${userStore ? " --user-store " + userStore : ""}${idle ? " --idle " + idle : ""}${against ? " --against " + against : ""}\` (headless Debian Chromium, the real extension, core.wasm of ${size(extensionDir)}, ${store}): the service worker stopped (DevTools \`ServiceWorker.stopAllWorkers\`), then${idle ? `, after ${idle} s with the browser idle (whatever V8 collects from an idle process meanwhile gone, as before a user's wake),` : ""} woken by a fetch of /api/status from an extension page, ${runs} times (after one start not counted). Target: under 250 ms. The steps are the shim's and the core's \`performance.mark\`s, on the browser's clock.`);
console.log();
table(builds[0]);
if (against) {
  const [b, a] = builds;
  console.log();
  console.log(`The build compared with, ${against} (core.wasm of ${size(a.dir)}), its wakes alternating with the ones above:`);
  console.log();
  table(a);
  const ratios = b.times.total.map((t, i) => t / a.times.total[i]);
  console.log();
  console.log(`Each wake's time over the compared build's wake of the same round: median ${quantile(ratios, 0.5).toFixed(2)} (10th - 90th percentile ${quantile(ratios, 0.1).toFixed(2)} - ${quantile(ratios, 0.9).toFixed(2)}); the ratio of the medians ${(quantile(b.times.total, 0.5) / quantile(a.times.total, 0.5)).toFixed(2)}.`);
}
console.log();
console.log(`Load average while it ran: ${load.map((x) => x.toFixed(1)).join(", ")} (1, 5, 15 min) on ${os.cpus().length} cores.`);
