// The core's cold start in Chromium's service worker, printed as a markdown section for
// BENCHMARKS.md: the real extension in headless Chromium; its service worker stopped
// (DevTools ServiceWorker.stopAllWorkers), then woken by a fetch of /api/status from an
// extension page, timed until the answer has arrived; many times over. The shim and the
// core mark each step of their start (performance.mark), which splits the time:
//
//   worker start      the fetch sent -> sw.js begins (the browser starts the worker)
//   shim scripts      importScripts of wasm_exec.js, store.js and the shim's parts
//   wasm instantiate  core.wasm.gz fetched, inflated (DecompressionStream), compiled and
//                     instantiated (instantiateStreaming)
//   Go init           the Go runtime and every package's init, until main
//   store, service    capture.NewService: settings and sessions read from IndexedDB
//   reconcile         a recording whose tabs are gone is closed (tabs listed)
//   first answer      the API published -> the page has the /api/status answer
//
//   node scripts/bench-coldstart.mjs [--runs N]
import { extensionDir, launch, waitFor } from "./lib/browser.mjs";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { quantile } from "./lib/stats.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const runs = arg("--runs", 31);
const ms = (x) => `${x.toFixed(0)} ms`;

const steps = [
  ["worker start", "sent", "webkeep: shim"],
  ["shim scripts (importScripts)", "webkeep: shim", "webkeep: scripts"],
  ["core.wasm.gz fetched, inflated, compiled, instantiated", "webkeep: scripts", "webkeep: instantiated"],
  ["Go runtime and package init", "webkeep: instantiated", "webkeep: main"],
  ["store opened, settings and sessions read", "webkeep: main", "webkeep: service"],
  ["reconcile (tabs listed)", "webkeep: service", "webkeep: reconciled"],
  ["API published", "webkeep: reconciled", "webkeep: ready"],
  ["first answer (/api/status)", "webkeep: ready", "answered"],
];

const browser = await launch();
const times = { total: [] };
for (const [name] of steps) times[name] = [];
try {
  // An extension page that runs none of the pages' code (the popup asks the core for
  // its status by itself): its fetches go to the service worker all the same.
  const page = await browser.context.newPage();
  await page.goto(browser.page("style.css"));
  const cdp = await browser.context.newCDPSession(page);
  let status = "running";
  cdp.on("ServiceWorker.workerVersionUpdated", (e) => {
    for (const v of e.versions) status = v.runningStatus;
  });
  await cdp.send("ServiceWorker.enable");
  for (let i = 0; i < runs + 1; i++) {
    await cdp.send("ServiceWorker.stopAllWorkers");
    await waitFor(() => status === "stopped", "the service worker to stop");
    await new Promise((r) => setTimeout(r, 200)); // the browser quiet again
    const [sent, answered] = await page.evaluate(async () => {
      const t0 = performance.timeOrigin + performance.now();
      const r = await fetch("/api/status");
      if (!r.ok) throw new Error("/api/status answered " + r.status);
      await r.json();
      return [t0, performance.timeOrigin + performance.now()];
    });
    // Playwright's handle of the worker evaluates in the worker started anew.
    const marks = await browser.sw.evaluate(() => [performance.timeOrigin,
      performance.getEntriesByType("mark").filter((m) => m.name.startsWith("webkeep: ")).map((m) => [m.name, m.startTime])]);
    const at = { sent, answered };
    for (const [name, t] of marks[1]) at[name] = marks[0] + t;
    if (i === 0) continue; // the first start after install compiles what the rest may cache
    times.total.push(answered - sent);
    for (const [name, from, to] of steps) times[name].push(at[to] - at[from]);
  }
} finally {
  await browser.close();
}

const load = os.loadavg();
const gz = readFileSync(path.join(extensionDir, "core.wasm.gz"));
const size = `${gunzipSync(gz).length} bytes (${gz.length} gzipped, as shipped)`;
const row = (name, xs) => `| ${name} | ${ms(quantile(xs, 0.5))} | ${ms(quantile(xs, 0.1))} - ${ms(quantile(xs, 0.9))} | ${ms(Math.min(...xs))} - ${ms(Math.max(...xs))} |`;
console.log("## Core cold start in Chromium");
console.log();
console.log(`\`node scripts/bench-coldstart.mjs --runs ${runs}\` (headless Debian Chromium, the real extension, core.wasm of ${size}, an empty store): the service worker stopped (DevTools \`ServiceWorker.stopAllWorkers\`), then woken by a fetch of /api/status from an extension page, ${runs} times (after one start not counted). Target: under 250 ms. The steps are the shim's and the core's \`performance.mark\`s, on the browser's clock.`);
console.log();
console.log("| step | median | 10th - 90th percentile | fastest - slowest |");
console.log("| --- | ---: | ---: | ---: |");
console.log(row("**from the fetch to its answer**", times.total));
for (const [name] of steps) console.log(row(name, times[name]));
console.log();
console.log(`Load average while it ran: ${load.map((x) => x.toFixed(1)).join(", ")} (1, 5, 15 min) on ${os.cpus().length} cores.`);
