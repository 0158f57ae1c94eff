// Where a replay's first load waits, seen in the browser's own trace. Records the demo
// through the extension with Playwright, opens the profile in a Chromium no harness
// instruments (scripts/lib/pipebrowser.mjs), replays PAGE a few times to warm it, then
// traces (Tracing.start: top-level tasks, mojo messages, the timeline) one new replay
// of it and one live load in a blank tab navigated at once. Prints, for each load,
// each thread's busy time within it (the navigation's start to its load event) and the
// extension process's tasks of 0.5 ms or more, in order, from 60 ms before the start;
// writes the whole trace to OUT (chrome://tracing, Perfetto) if given.
//
//   node scripts/probe/replaytrace.mjs [PAGE] [OUT]    (default /)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, startDemoSite, waitFor } from "../lib/browser.mjs";
import { liveBlankTab, replayTab } from "../lib/firstload.mjs";
import { pipeBrowser } from "../lib/pipebrowser.mjs";
import { recordDemo } from "../lib/replaywebpage.mjs";

const page = process.argv[2] || "/";
const out = process.argv[3];
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-replaytrace-"));
const profile = path.join(dir, "profile");
const site = await startDemoSite(["-big", String(1 << 20)]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

try {
  const pw = await launch({ downloads: dir, profile });
  const { id } = await recordDemo({ url: site.url }, dir, {}, { browser: pw });
  await pw.context.close();
  const url = new URL(page, site.url).href;

  const b = pipeBrowser(profile, [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`]);
  const sw = await waitFor(async () => (await b.send("Target.getTargets")).targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://")), "the extension's worker", 60000);
  const ext = new URL(sw.url).host;
  const query = `session=${encodeURIComponent(id)}`;
  for (let i = 0; i < 3; i++) {
    await replayTab(b, ext, query, url);
    await liveBlankTab(b, url);
    await sleep(300);
  }
  const events = [];
  b.on("Tracing.dataCollected", (p) => events.push(...p.value));
  const done = new Promise((r) => b.on("Tracing.tracingComplete", r));
  await b.send("Tracing.start", {
    traceConfig: { includedCategories: ["toplevel", "mojom", "devtools.timeline", "v8.execute", "loading", "navigation", "disabled-by-default-devtools.timeline", "devtools"] },
    transferMode: "ReportEvents",
  });
  await sleep(300);
  const replay = await replayTab(b, ext, query, url);
  await sleep(300);
  const blank = await liveBlankTab(b, url);
  await sleep(300);
  await b.send("Tracing.end");
  await done;
  await b.close();
  if (out) writeFileSync(out, JSON.stringify({ traceEvents: events }));

  // Processes and threads by name; a trace's clock is the monotonic one, in µs: the
  // loads' windows are found by their navigation timing's start, matched to the trace
  // by the clock sync the trace gives (its first event on the browser's clock).
  const names = new Map(), threads = new Map();
  for (const e of events) {
    if (e.ph !== "M") continue;
    if (e.name === "process_name") names.set(e.pid, e.args.name);
    if (e.name === "process_labels") names.set(e.pid, `${names.get(e.pid) || ""} ${e.args.labels}`);
    if (e.name === "thread_name") threads.set(`${e.pid}.${e.tid}`, e.args.name);
  }
  // navigationStart marks, one per load: the renderer's "navigationStart" of each
  // document, with its URL.
  const starts = events.filter((e) => e.name === "navigationStart" && e.args?.data?.documentLoaderURL === url).map((e) => e.ts);
  const loads = events.filter((e) => e.name === "loadEventEnd" || e.name === "MarkLoad").map((e) => e.ts);
  console.log(`${starts.length} navigations to ${url} traced; the replay's first load ${replay.ms.toFixed(1)} ms, the blank tab's ${blank.ms.toFixed(1)} ms`);
  const extPid = [...names].find(([, n]) => /extension/i.test(n))?.[0];
  for (const [what, start, ms] of [["replay", starts[0], replay.ms], ["blank tab", starts[1], blank.ms]]) {
    if (start === undefined) continue;
    const from = start - 60000, to = start + ms * 1000;
    console.log(`\n## ${what}: ${ms.toFixed(1)} ms\n\nBusy within the load (top-level tasks, ms): `);
    const busy = new Map();
    for (const e of events) {
      if (e.ph !== "X" || !/RunTask|ThreadControllerImpl::RunTask|ThreadPool_RunTask/.test(e.name) || e.ts + e.dur < start || e.ts > to) continue;
      const k = `${names.get(e.pid) || e.pid} / ${threads.get(`${e.pid}.${e.tid}`) || e.tid}`;
      busy.set(k, (busy.get(k) || 0) + (Math.min(e.ts + e.dur, to) - Math.max(e.ts, start)) / 1000);
    }
    for (const [k, v] of [...busy].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`- ${k}: ${v.toFixed(1)}`);
    console.log(`\nThe extension's process and the browser's main thread, tasks of 0.5 ms or more (ms from the navigation's start, duration, what):\n`);
    const tasks = events.filter((e) => e.ph === "X" && e.dur >= 500 && e.ts >= from && e.ts <= to && /RunTask/.test(e.name) &&
      (e.pid === extPid || threads.get(`${e.pid}.${e.tid}`) === "CrBrowserMain"));
    for (const t of tasks.sort((a, b) => a.ts - b.ts)) {
      const inner = events.filter((e) => e.pid === t.pid && e.tid === t.tid && e.ts >= t.ts && e.ts < t.ts + t.dur && e !== t && e.dur > 100)
        .sort((a, b) => b.dur - a.dur).slice(0, 3).map((e) => `${e.name}${e.args?.data?.functionName ? `(${e.args.data.functionName})` : ""}${e.args?.chrome_mojo_event_info?.mojo_interface_tag ? `[${e.args.chrome_mojo_event_info.mojo_interface_tag}]` : ""} ${(e.dur / 1000).toFixed(1)}`);
      console.log(`- ${((t.ts - start) / 1000).toFixed(1)} +${(t.dur / 1000).toFixed(1)} ${t.pid === extPid ? "extension" : "browser"} / ${threads.get(`${t.pid}.${t.tid}`)}: ${inner.join("; ")}`);
    }
  }
  void loads;
} finally {
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
