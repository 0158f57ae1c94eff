// First loads in a browser no harness instruments. Playwright attaches itself to every
// tab the browser makes, pausing each new one until its own set-up is done, a replay's
// tab too, which the replay bar makes and navigates at once; a live tab it makes is set
// up before it is navigated. This probe records the demo through the extension with
// Playwright, then opens the same profile in a Chromium driven by a bare DevTools
// connection (--remote-debugging-pipe) that attaches to no tab before its load is over.
// Each page's first load, in turn: live in a new tab made at its URL; live in a blank
// tab navigated at once by a client attached to it with nothing enabled (as the bar
// makes and navigates its replay tab); and in a new replay (a new bar, which makes its
// tab), as `make bench` times them (scripts/lib/firstload.mjs). Prints each
// page's medians and the replay's ratios with their 95% intervals
// (scripts/lib/stats.mjs), then the processor time each kind of the browser's processes
// had within the loads (each thread's /proc schedstat, sampled every 5 ms; a process
// made during a load counts whole).
//
//   node scripts/probe/rawfirstload.mjs [LOADS]    (default 15)
//
// CHROMIUM_FLAGS="--flag ..." adds flags to the second browser's command line
// (scripts/lib/pipebrowser.mjs).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, startDemoSite, waitFor } from "../lib/browser.mjs";
import { recordDemo } from "../lib/replaywebpage.mjs";
import { liveBlankTab, liveNewTab, replayTab } from "../lib/firstload.mjs";
import { median, ratio } from "../lib/stats.mjs";
import { pipeBrowser } from "../lib/pipebrowser.mjs";

const loads = Number(process.argv[2] || 15);
const cpuRows = [];
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-rawfirst-"));
const profile = path.join(dir, "profile");
const site = await startDemoSite(["-big", String(1 << 20)]);

// The processor time (ms) each kind of the browser's processes has had so far, from
// each thread's /proc schedstat; sampled every 5 ms (samples), so that a load's share
// can be read once its window is known (cpuIn).
const kinds = new Map(); // pid -> kind, or null when not the browser's
const kindOf = (pid) => {
  if (!kinds.has(pid)) {
    let args = "";
    try { args = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "); } catch { /* gone */ }
    kinds.set(pid, !args.includes(`--user-data-dir=${profile}`) && !args.includes("--type=") ? null
      : !args.includes("--type=") ? "browser" : args.includes("--extension-process") ? "extension" : args.includes("--type=renderer") ? "renderers"
        : args.includes("NetworkService") ? "network" : args.includes("--type=gpu") ? "gpu" : args.includes("zygote") ? null : "other");
  }
  return kinds.get(pid);
};
const samples = [];
let sampling = null;
const sample = () => {
  const by = new Map(); // pid -> ms
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || !kindOf(pid)) continue;
    try {
      let ms = 0;
      for (const t of readdirSync(`/proc/${pid}/task`)) ms += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;
      by.set(pid, ms);
    } catch { /* gone */ }
  }
  samples.push({ at: performance.timeOrigin + performance.now(), by });
};
// cpuIn is each kind's processor time between from and to (ms since the epoch): each
// process's growth between the samples around them, a process first seen in between
// counted from nothing, one gone meanwhile not at all.
const cpuIn = (from, to) => {
  const a = samples.findLast((x) => x.at <= from) || samples[0], b = samples.find((x) => x.at >= to) || samples.at(-1);
  const out = { browser: 0, renderers: 0, extension: 0, network: 0, gpu: 0, other: 0 };
  for (const [pid, ms] of b.by) out[kindOf(pid)] += ms - (a.by.get(pid) ?? 0);
  return out;
};

try {
  // Recorded with Playwright, as the benchmark records it.
  const live = {};
  const pw = await launch({ downloads: dir, profile });
  const { id } = await recordDemo({ url: site.url }, dir, live, { browser: pw });
  await pw.context.close();
  const urls = Object.keys(live).filter((u) => u.startsWith("http") && !/\/submit\//.test(u));

  const b = pipeBrowser(profile, [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`]);
  const sw = await waitFor(async () => (await b.send("Target.getTargets")).targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://")), "the extension's worker", 60000);
  const ext = new URL(sw.url).host;
  sampling = setInterval(sample, 5);
  console.log(`${loads} first loads of each page, live and in a new replay, in turn; no DevTools client attached to a tab before its load event:\n`);
  console.log("| page | live: a new tab at its URL | live: a blank tab navigated at once | replay | replay / the first live (95%) | replay / the second (95%) |\n|---|---|---|---|---|---|");
  for (const url of urls) {
    const t = { live: [], navigated: [], replay: [] };
    const cpus = { navigated: [], replay: [] };
    const cpu = (l) => cpuIn(l.origin, l.origin + l.ms);
    for (let i = 0; i < loads; i++) {
      t.live.push((await liveNewTab(b, url)).ms);
      const n = await liveBlankTab(b, url);
      t.navigated.push(n.ms);
      cpus.navigated.push(cpu(n));
      const r = await replayTab(b, ext, `session=${encodeURIComponent(id)}`, url);
      t.replay.push(r.ms);
      cpus.replay.push(cpu(r));
    }
    console.log(`| ${new URL(url).pathname} | ${median(t.live).toFixed(0)} ms | ${median(t.navigated).toFixed(0)} ms | ${median(t.replay).toFixed(0)} ms | ${ratio(t.replay, t.live)} | ${ratio(t.replay, t.navigated)} |`);
    for (const w of ["navigated", "replay"]) {
      cpuRows.push(`| ${new URL(url).pathname} | ${w} | ${Object.keys(cpus[w][0]).map((k) => median(cpus[w].map((c) => c[k])).toFixed(1)).join(" | ")} |`);
    }
  }
  console.log("\nProcessor time within each load (median ms, sampled every 5 ms):\n\n| page | way | browser | renderers | extension | network | gpu | other |\n|---|---|---|---|---|---|---|---|");
  console.log(cpuRows.join("\n"));
  clearInterval(sampling);
  await b.close();
} finally {
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
