// Where a replay's first load waits, seen in the browser's own trace. Records the demo
// through the extension with Playwright, opens the profile in a Chromium no harness
// instruments (scripts/lib/pipebrowser.mjs), replays PAGE a few times to warm it, then
// traces (Tracing.start: top-level tasks, mojo messages, the timeline) one new replay
// of it and one live load in a blank tab navigated at once. Prints, for each load,
// each thread's busy time within it (the navigation's start to its load event), when
// the page asked for each request and when the Fetch domain paused and fulfilled it,
// and the tasks of the browser's main thread and the extension's process, in order;
// writes the whole trace to OUT (chrome://tracing, Perfetto) if given. TEAM=1 replays
// from the team archive (the session uploaded to the Worker in workerd, niced, as the
// benchmark runs it) and WOKEN=1 stops the extension's worker before the traced replay
// (from the team archive as of a time not asked before, so the Worker makes the batch);
// the thread pools' tasks of the extension's processes within each load are listed by
// where they were posted from. PROFILE=1 samples the extension's JavaScript and wasm
// (V8's CPU profiler in the trace) and prints the functions that ran most from the
// traced replay's start (the worker's wake, with WOKEN=1) to the end of its load, by
// their own time and with their callers: run it with WEBKEEP_EXTENSION naming a copy of
// the extension whose core keeps its names (built without -ldflags=-s), or the wasm
// functions are only numbers.
//
//   [TEAM=1] [WOKEN=1] [PROFILE=1] node scripts/probe/replaytrace.mjs [PAGE] [OUT]    (default /)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, startDemoSite, waitFor } from "../lib/browser.mjs";
import { liveBlankTab, replayTab, workerStopper } from "../lib/firstload.mjs";
import { pipeBrowser } from "../lib/pipebrowser.mjs";
import { niceWorkerd, uploadToTeam } from "../lib/replay.mjs";
import { recordDemo } from "../lib/replaywebpage.mjs";
import { startWorker } from "../test/worker/harness.mjs";

const page = process.argv[2] || "/";
const out = process.argv[3];
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-replaytrace-"));
const profile = path.join(dir, "profile");
const site = await startDemoSite(["-big", String(1 << 20)]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const team = process.env.TEAM === "1", woken = process.env.WOKEN === "1", profiling = process.env.PROFILE === "1";
const TOKEN = "probe-trace-token";
const mf = team ? startWorker({ WEBKEEP_TOKENS: `probe:${TOKEN}` }) : null;

try {
  const pw = await launch({ downloads: dir, profile });
  const { id } = await recordDemo({ url: site.url }, dir, {}, { browser: pw });
  if (team) {
    await uploadToTeam(pw, (await mf.ready).href, TOKEN, [id], { allowSite: true });
    niceWorkerd();
  }
  await pw.context.close();
  const url = new URL(page, site.url).href;

  const b = pipeBrowser(profile, [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`]);
  const sw = await waitFor(async () => (await b.send("Target.getTargets")).targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://")), "the extension's worker", 60000);
  const ext = new URL(sw.url).host;
  let asked = 0;
  const query = () => (team ? (woken ? `team=1&ts=2099010100${String(asked++).padStart(4, "0")}` : "team=1") : `session=${encodeURIComponent(id)}`);
  const stopWorker = await workerStopper(b);
  for (let i = 0; i < 3; i++) {
    if (woken) await stopWorker();
    await replayTab(b, ext, query(), url);
    await liveBlankTab(b, url);
    await sleep(300);
  }
  const events = [];
  b.on("Tracing.dataCollected", (p) => events.push(...p.value));
  const done = new Promise((r) => b.on("Tracing.tracingComplete", r));
  await b.send("Tracing.start", {
    traceConfig: { includedCategories: ["toplevel", "mojom", "devtools.timeline", "v8.execute", "loading", "navigation", "disabled-by-default-devtools.timeline", "devtools", "v8", "disabled-by-default-v8.gc", "disabled-by-default-v8.compile", "v8.wasm", "disabled-by-default-v8.wasm.detailed", ...(profiling ? ["disabled-by-default-v8.cpu_profiler"] : [])] },
    transferMode: "ReportEvents",
  });
  if (woken) await stopWorker();
  await sleep(300);
  const replay = await replayTab(b, ext, query(), url);
  await sleep(300);
  const blank = await liveBlankTab(b, url);
  await sleep(300);
  await b.send("Tracing.end");
  await done;
  await b.close();
  if (out) writeFileSync(out, JSON.stringify({ traceEvents: events }));

  // Processes and threads by name. Each load's window: from the navigation's start
  // (the last "NavigationTiming navigationStart" before the renderer sends its
  // document's request) for as long as its navigation timing says it took.
  const names = new Map(), threads = new Map();
  for (const e of events) {
    if (e.ph !== "M") continue;
    if (e.name === "process_name") names.set(e.pid, e.args.name);
    if (e.name === "thread_name") threads.set(`${e.pid}.${e.tid}`, e.args.name);
  }
  const thread = (e) => `${names.get(e.pid) || e.pid} / ${threads.get(`${e.pid}.${e.tid}`) || e.tid}`;
  const byTime = (a, b) => a.ts - b.ts;
  const navStarts = events.filter((e) => e.name === "NavigationTiming navigationStart").sort(byTime);
  const docs = events.filter((e) => e.name === "ResourceSendRequest" && e.args?.data?.resourceType === "Document" && e.args.data.url === url).sort(byTime);
  const starts = docs.map((d) => navStarts.findLast((n) => n.ts <= d.ts)?.ts);
  const browserMain = events.find((e) => e.name === "thread_name" && e.args.name === "CrBrowserMain");
  // The extension's processes: the bar's, and the worker's (a worker woken anew may
  // start in another).
  const extPids = new Set([...names].filter(([, n]) => /extension/i.test(n)).map(([pid]) => pid));
  // What a top-level task did: the mojo interface it received, or DevTools command
  // it handled, or its largest inner event.
  const what = (k) => {
    const inner = events.filter((e) => e.pid === k.pid && e.tid === k.tid && e.ts >= k.ts && e.ts < k.ts + k.dur && e !== k && !/RunTask/.test(e.name));
    const mojo = inner.find((e) => e.args?.chrome_mojo_event_info?.mojo_interface_tag);
    const cmd = inner.find((e) => e.args?.method);
    const big = inner.filter((e) => e.dur).sort((x, y) => y.dur - x.dur)[0];
    return [mojo && mojo.args.chrome_mojo_event_info.mojo_interface_tag, cmd && cmd.args.method, big && `${big.name} ${(big.dur / 1000).toFixed(1)}`].filter(Boolean).join(", ");
  };
  console.log(`the replay's first load ${replay.ms.toFixed(1)} ms, the blank tab's ${blank.ms.toFixed(1)} ms (navigation timing)`);
  for (const [kind, start, ms] of [["replay", starts[0], replay.ms], ["live, blank tab", starts[1], blank.ms]]) {
    if (start === undefined) {
      console.log(`\n## ${kind}: its navigation was not found in the trace`);
      continue;
    }
    const to = start + ms * 1000;
    const rel = (ts) => ((ts - start) / 1000).toFixed(1);
    const tasks = events.filter((e) => e.ph === "X" && /^(ThreadControllerImpl::RunTask|ThreadPool_RunTask)$/.test(e.name) && e.ts + e.dur > start && e.ts < to).sort(byTime);
    const busy = new Map();
    for (const e of tasks) busy.set(thread(e), (busy.get(thread(e)) || 0) + (Math.min(e.ts + e.dur, to) - Math.max(e.ts, start)) / 1000);
    console.log(`\n## ${kind}: ${ms.toFixed(1)} ms\n\nEach thread's top-level tasks within the load (ms), the busiest first:\n`);
    for (const [k, v] of [...busy].sort((x, y) => y[1] - x[1]).slice(0, 10)) console.log(`- ${k}: ${v.toFixed(1)}`);
    console.log("\nThe page's requests (ms from the navigation's start): asked for by its renderer, and paused by the Fetch domain until fulfilled:\n");
    for (const e of events.filter((e) => e.name === "ResourceSendRequest" && e.ts >= start && e.ts < to && /^http/.test(e.args.data.url)).sort(byTime)) {
      console.log(`- ${rel(e.ts)} asked: ${e.args.data.url}`);
    }
    const paused = events.filter((e) => e.name === "Fetch.requestPaused" && e.ts >= start && e.ts < to).sort(byTime);
    for (const e of paused.filter((p) => p.ph === "b")) {
      const end = paused.find((p) => p.ph === "e" && p.id2?.local === e.id2?.local && p.id === e.id && p.ts >= e.ts);
      console.log(`- ${rel(e.ts)} paused${end ? `, fulfilled at ${rel(end.ts)}` : ""}`);
    }
    // The extension's thread pools: each task by where it was posted from, and the
    // largest event within it (V8's compiling and garbage collection among them).
    const pool = events.filter((e) => extPids.has(e.pid) && e.ph === "X" && e.name === "ThreadPool_RunTask" && e.ts + e.dur > start && e.ts < to);
    const byPost = new Map();
    for (const e of pool) {
      const a = e.args ?? {};
      const from = a.src_func ? `${a.src_file}:${a.src_func}` : JSON.stringify(a).slice(0, 160);
      const inner = events.filter((x) => x.pid === e.pid && x.tid === e.tid && x.ts >= e.ts && x.ts < e.ts + e.dur && x !== e && x.dur).sort((x, y) => y.dur - x.dur)[0];
      const k = `${threads.get(`${e.pid}.${e.tid}`)} ${e.name} ${from}${inner ? ` [${inner.name}]` : ""}`;
      byPost.set(k, (byPost.get(k) || 0) + e.dur / 1000);
    }
    console.log("\nThe extension's thread pools' tasks within the load (ms, by where they were posted from):\n");
    for (const [k, v] of [...byPost].sort((x, y) => y[1] - x[1]).slice(0, 25)) console.log(`- ${v.toFixed(1)} ${k}`);
    console.log("\nThe browser's main thread and the extension's process, tasks of 0.5 ms or more (ms from the navigation's start, their length, what they did):\n");
    for (const k of tasks.filter((e) => e.dur >= 500 && (extPids.has(e.pid) || (browserMain && e.pid === browserMain.pid && e.tid === browserMain.tid)))) {
      console.log(`- ${rel(k.ts)} +${(k.dur / 1000).toFixed(1)} ${extPids.has(k.pid) ? `extension ${k.pid}` : "browser"} / ${threads.get(`${k.pid}.${k.tid}`)}: ${what(k)}`);
    }
  }
  if (profiling) printProfile(events, extPids, starts[0] === undefined ? undefined : starts[0] + replay.ms * 1000);
} finally {
  await mf?.dispose();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}

// printProfile prints, from the CPU profiles of the extension's processes in the trace,
// the functions sampled most up to the end of the replay's load (until, in the trace's
// microseconds; every sample if not known): by their own time, each with the callers
// that lead to it most often (three frames up).
function printProfile(events, pids, until) {
  const interval = new Map(); // profile id: { nodes, samples }
  for (const e of events) {
    if (!pids.has(e.pid) || (e.name !== "Profile" && e.name !== "ProfileChunk")) continue;
    const p = interval.get(e.id) ?? { nodes: new Map(), samples: [], t: 0 };
    interval.set(e.id, p);
    if (e.name === "Profile") p.t = e.args.data.startTime;
    const cpu = e.args?.data?.cpuProfile;
    for (const n of cpu?.nodes ?? []) p.nodes.set(n.id, n);
    const deltas = e.args?.data?.timeDeltas ?? [];
    (cpu?.samples ?? []).forEach((id, i) => {
      p.t += deltas[i] ?? 0;
      p.samples.push([id, p.t]);
    });
  }
  const self = new Map(), callers = new Map();
  let total = 0;
  for (const p of interval.values()) {
    const name = (id) => p.nodes.get(id)?.callFrame?.functionName || `(${p.nodes.get(id)?.callFrame?.url || "?"})`;
    for (const [id, t] of p.samples) {
      if (until !== undefined && t > until) continue;
      const f = name(id);
      if (/^\((idle|program|root)\)$/.test(f)) continue;
      total++;
      self.set(f, (self.get(f) || 0) + 1);
      const chain = [];
      for (let n = p.nodes.get(id)?.parent, i = 0; n && i < 3; n = p.nodes.get(n)?.parent, i++) chain.push(name(n));
      const k = `${f} <- ${chain.join(" <- ")}`;
      callers.set(k, (callers.get(k) || 0) + 1);
    }
  }
  console.log(`\nThe extension's CPU profile up to the replay's load event: ${total} samples, the functions with most of their own:\n`);
  for (const [f, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`- ${n} ${f}`);
  console.log("\nThe paths to them seen most:\n");
  for (const [f, n] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`- ${n} ${f}`);
}
