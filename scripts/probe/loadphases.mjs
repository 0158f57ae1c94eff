// Where recording's cost in a page load goes: the page-load benchmark's three tabs
// (lib/pageload.mjs: plain, the DevTools floor, recorded) load a demo page in turn, and
// after each load the page's own timing is read. Prints, for each tab, the median of
// each phase in ms from the moment the load was asked for: the navigation's start in
// the page, its response's first and last byte, DOMContentLoaded, the load event, each
// subresource's start and end, the load's end as the client saw it, and the processor
// time each kind of the browser's processes had meanwhile (the two extensions' together:
// the floor's in its tab's loads, webkeep's in the recorded tab's).
//
//   node scripts/probe/loadphases.mjs [PATH] [LOADS]    (default /gallery and 41)
//
// With WEBKEEP_EXTENSION=DIR, a build made by scripts/probe/timedbuild.mjs, it also says
// where the core's and the shim's time in the recorded loads went. With --profile, V8's
// sampling profiler runs meanwhile (a DevTools trace), and it prints the functions the
// extension's worker spent its time in within the recorded loads, by their own time and
// by their time with what they called; a build made with timedbuild.mjs --names gives
// the core's functions their Go names. --profile=FILE also writes the samples to FILE.
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { launch, startDemoSite } from "../lib/browser.mjs";
import { floorDir, measureTabs } from "../lib/pageload.mjs";
import { median } from "../lib/stats.mjs";
import { cpuSamples, profilerCategory, traced } from "../lib/wasmtrace.mjs";

const profileArg = process.argv.find((a) => a.startsWith("--profile"));
const profile = Boolean(profileArg);
const args = process.argv.slice(2).filter((a) => a !== profileArg);
const pathArg = args[0] || "/gallery";
const loads = Number(args[1] || 41);
const site = await startDemoSite([]);
const browser = await launch({ extra: [floorDir] });
const floorId = new URL(browser.extraWorkers[0].url()).host;
const names = ["off", "floor", "on"];
const phases = names.map(() => new Map()); // phase -> [ms]
const windows = []; // [tab, asked, told] of each load, ms since the epoch
const note = (k, name, v) => {
  if (!phases[k].has(name)) phases[k].set(name, []);
  phases[k].get(name).push(v);
};
// The processor time (ms) each kind of the browser's processes has had so far, from
// each thread's /proc schedstat.
const cpu = () => {
  const out = execFileSync("ps", ["-e", "-ww", "-o", "pid=,ppid=,args="], { encoding: "utf8" }).trim();
  const procs = out.split("\n").map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/)).filter(Boolean).map(([, pid, ppid, args]) => ({ pid, ppid, args }));
  const ours = new Set(procs.filter((p) => p.args.includes(`--user-data-dir=${browser.userDataDir}`) && !p.args.includes("--type=")).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!ours.has(p.pid) && ours.has(p.ppid)) { ours.add(p.pid); grew = true; }
  }
  const by = { browser: 0, renderers: 0, extensions: 0, network: 0, gpu: 0, other: 0 };
  for (const p of procs) {
    if (!ours.has(p.pid)) continue;
    const kind = !p.args.includes("--type=") ? "browser" : p.args.includes("--extension-process") ? "extensions" : p.args.includes("--type=renderer") ? "renderers"
      : p.args.includes("NetworkService") ? "network" : p.args.includes("--type=gpu") ? "gpu" : "other";
    try {
      for (const t of readdirSync(`/proc/${p.pid}/task`)) by[kind] += Number(readFileSync(`/proc/${p.pid}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    } catch { /* gone */ }
  }
  by.node = process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
  return by;
};
let cpuBefore = null;
try {
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("popup.html"));
  const before = () => { cpuBefore = cpu(); };
  const after = async (page, k, asked) => {
    const done = performance.timeOrigin + performance.now();
    const used = cpu();
    for (const kind in used) note(k, `4 cpu ms: ${kind}`, used[kind] - cpuBefore[kind]);
    const t = await page.evaluate(() => ({
      origin: performance.timeOrigin,
      nav: performance.getEntriesByType("navigation")[0].toJSON(),
      res: performance.getEntriesByType("resource").map((r) => ({ name: new URL(r.name).pathname, start: r.startTime, reqStart: r.requestStart, first: r.responseStart, end: r.responseEnd })),
    }));
    const at = t.origin - asked; // the navigation's start, from the asking
    note(k, "0 navigation start", at);
    for (const f of ["fetchStart", "requestStart", "responseStart", "responseEnd", "domInteractive", "domContentLoadedEventEnd", "loadEventStart", "loadEventEnd"]) note(k, `1 ${f}`, at + t.nav[f]);
    for (const r of t.res) {
      note(k, `2 ${r.name} start`, at + r.start);
      note(k, `2 ${r.name} requestStart`, at + r.reqStart);
      note(k, `2 ${r.name} first byte`, at + r.first);
      note(k, `2 ${r.name} end`, at + r.end);
    }
    note(k, "3 the client told of the load", done - asked);
    windows.push([k, asked, done]);
  };
  const measure = () => measureTabs(browser, ext, new URL(pathArg, site.url).href, floorId, loads, { before, after });
  let trace = null;
  if (profile) {
    const cdp = await browser.context.newCDPSession(await browser.context.newPage());
    [, trace] = await traced(cdp, measure, [profilerCategory]);
  } else {
    await measure();
  }
  const all = [...new Set(phases.flatMap((m) => [...m.keys()]))].sort();
  console.log(`phase (median ms from the asking, ${loads} loads) | ${names.join(" | ")} | on - floor`);
  for (const p of all) {
    const m = phases.map((x) => (x.has(p) ? median(x.get(p)) : NaN));
    console.log(`${p} | ${m.map((v) => v.toFixed(1)).join(" | ")} | ${(m[2] - m[1]).toFixed(1)}`);
  }
  // A build made by scripts/probe/timedbuild.mjs notes each entry into the Go core and
  // each event's handling by the shim ([at, ms, what]): their time within the recorded
  // tab's loads, by what they were for, per load (and how many a load).
  const spans = await browser.sw.evaluate(() => ({ go: globalThis.__goTime || [], shim: globalThis.__jsTime || [] }));
  const recorded = windows.filter((w) => w[0] === 2);
  for (const [kind, list] of Object.entries(spans)) {
    if (!list.length) continue;
    const by = new Map(); // what -> [ms, count]
    for (const [, asked, told] of recorded) {
      for (const [at, ms, what] of list) {
        if (at < asked || at >= told) continue;
        const [sum, n] = by.get(what) || [0, 0];
        by.set(what, [sum + ms, n + 1]);
      }
    }
    const total = [...by.values()].reduce((a, [ms]) => a + ms, 0);
    const parts = [...by].sort((a, b) => b[1][0] - a[1][0]).map(([what, [ms, n]]) => `${what || "(other)"} ${(ms / recorded.length).toFixed(2)} (${(n / recorded.length).toFixed(1)})`);
    console.log(`${kind === "go" ? "the core's" : "the shim's event handling"} time within the recorded loads: ${(total / recorded.length).toFixed(2)} ms a load; ${parts.join(", ")}`);
  }
  if (trace) {
    // The trace's clock is the monotonic one, as node's hrtime is.
    const toTrace = Number(process.hrtime.bigint() / 1000n) - (performance.timeOrigin + performance.now()) * 1000;
    const samples = cpuSamples(trace, `chrome-extension://${new URL(browser.sw.url()).host}/`)
      .filter((x) => recorded.some(([, asked, told]) => x.ts >= asked * 1000 + toTrace && x.ts < told * 1000 + toTrace));
    // --profile=FILE also keeps the samples, as JSON, for a closer look.
    if (profileArg.includes("=")) writeFileSync(profileArg.slice("--profile=".length), JSON.stringify(samples));
    const self = new Map(), total = new Map(), paths = new Map();
    let busy = 0;
    const short = (f) => f.replace(/^github\.com_webkeep_webkeep_/, "").slice(0, 60);
    for (const { ms, stack } of samples) {
      if (stack[0] === "(idle)") continue;
      busy += ms;
      self.set(stack[0], (self.get(stack[0]) || 0) + ms);
      const path = stack.slice(0, 10).map(short).join(" < ");
      paths.set(path, (paths.get(path) || 0) + ms);
      for (const f of new Set(stack)) total.set(f, (total.get(f) || 0) + ms);
    }
    const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([f, ms]) => `  ${(ms / recorded.length).toFixed(3)} ${f}`).join("\n");
    console.log(`the extension's worker, sampled within the recorded loads: ${(busy / recorded.length).toFixed(2)} ms a load busy (${samples.length} samples)`);
    console.log(`by own time (ms a load):\n${top(self)}`);
    console.log(`by time with what they called (ms a load):\n${top(total)}`);
    console.log(`by call path, the sampled function first (ms a load):\n${top(paths)}`);
  }
} finally {
  await browser.close();
  site.stop();
}
