// `make bench` (scripts/bench/sections/replay.sh): the demo site recorded through the
// extension, then each page's reloads, live and replayed, one of each in turn
// (REPLAY_BENCH_RUNS, default 15), and its first loads in a Chromium no harness
// instruments (scripts/lib/firstload.mjs): live in a new tab at its URL, live in a blank
// tab navigated at once, in such a tab with each request answered from memory by a bare
// DevTools client through the Fetch domain (the floor of any replay that way), in a new
// replay (replay.html) and in a new replay from the team archive (the session uploaded
// to the Worker in workerd, through miniflare, workerd niced), and each of the two
// again with the extension's worker stopped before (the core woken, nothing kept; from
// the team archive as of a time not asked before, so that the browser's cache holds no
// batch either), one of each in turn (REPLAY_BENCH_FIRST of each, default 41): each
// page's ratios with their 95% bootstrap intervals. Then where each new replay's first
// load went (the timeline the bar keeps), and memory while the 24 MB file replays, the
// site stopped. Prints a
// Markdown section.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, peakMemory, startDemoSite, waitFor } from "../lib/browser.mjs";
import { fetchFloor, liveBlankTab, liveNewTab, loadWait, replayTab, workerStopper } from "../lib/firstload.mjs";
import { pipeBrowser } from "../lib/pipebrowser.mjs";
import { niceWorkerd, openReplay, uploadToTeam } from "../lib/replay.mjs";
import { interval, median } from "../lib/stats.mjs";
import { recordDemo } from "../lib/replaywebpage.mjs";
import { startWorker } from "../test/worker/harness.mjs";

// Each new replay's timeline (extension/replay.js keeps it in the bar: when each step
// first came) is broken down by step, from the replay tab's navigation start.
const stepNames = [
  ["opened", "bar opened"], ["start", "bar's script"], ["batchAsked", "batch asked"], ["started", "replay started"],
  ["tabCreated", "tab made"], ["attached", "debugger attached"], ["navigate", "navigate sent"],
  ["documentPaused", "document paused"], ["batchLoaded", "batch in the bar"], ["documentAnswered", "document answered"],
  ["documentFulfilled", "document fulfilled"], ["lastFulfilled", "last request fulfilled"],
];

// The steps of a team replay's batch in the core (its Server-Timing header).
const batchSteps = ["lookup", "index", "records", "build", "trip"]; // trip: the Worker's, as the core waited for it
const batchCounts = ["ranges"]; // how many requests the records took

const runs = Number(process.env.REPLAY_BENCH_RUNS || 15);
// New replays (and new live tabs) per page, for its first load.
const firstRuns = Number(process.env.REPLAY_BENCH_FIRST || 41);
// The pause before each first load, live or replayed alike, so that the one before
// (its tabs closing, its processes ending) is not measured with it, as the extension's
// benchmark spaces its loads.
const settle = Number(process.env.REPLAY_BENCH_SETTLE ?? 300);
// REPLAY_BENCH_KINDS=blankTab,floor,... times only those kinds of first load (newTab,
// blankTab, floor, replay, team, replayWoken, teamWoken), for a trial; the tables print
// "-" for the others.
const onlyKinds = process.env.REPLAY_BENCH_KINDS?.split(",");
// REPLAY_BENCH_STEPS=FILE writes each new replay's timeline there (JSON lines), to
// look at single loads rather than the medians.
const stepsFile = process.env.REPLAY_BENCH_STEPS;
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-replay-bench-"));
const profile = path.join(dir, "profile");
const site = await startDemoSite(["-big", String(24 << 20)]);
let browser = await launch({ downloads: dir, profile });
const TOKEN = "bench-replay-token";
const mf = startWorker({ WEBKEEP_TOKENS: `bench:${TOKEN}` });
const live = {};
const rows = [];
const steps = []; // each new replay's timeline (see stepNames), ms from its navigation's start
const loads = [];
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];

let mem;
try {
  const id = (await recordDemo(site, dir, live, { browser })).id;
  const urls = Object.keys(live).filter((u) => u.startsWith("http") && !/\/submit\//.test(u));
  // The session goes to the team archive too.
  const team = (await mf.ready).href;
  niceWorkerd();
  await uploadToTeam(browser, team, TOKEN, [id], { allowSite: true });
  // One reload of page until its load event, in ms, the page's tab brought to the
  // front first (the browser gives a tab in the background less of the machine).
  const reload = async (page) => {
    await page.bringToFront();
    const t0 = performance.now();
    await page.reload({ waitUntil: "load" });
    return performance.now() - t0;
  };
  // Each page's reloads, live and replayed, alternate (one of each in turn, both tabs
  // open), so that a change in the machine's load falls on both alike. The site stays
  // up meanwhile: the replay tab's requests are all answered from the archive (the
  // end-to-end test counts those that reach the site's port during replay: none).
  const page = await browser.context.newPage();
  for (const u of urls) {
    await page.goto(u);
    const r = await openReplay(browser, id, u);
    const t = { live: [], replay: [] };
    for (let i = 0; i < runs; i++) {
      t.live.push(await reload(page));
      t.replay.push(await reload(r.page));
    }
    rows.push({ url: new URL(u).pathname, t });
    await r.close();
  }
  await browser.close();

  // First loads, in the same profile opened in a Chromium no harness instruments
  // (scripts/lib/firstload.mjs): live in a new tab at the page's URL, live in a blank
  // tab navigated at once (as the bar makes and navigates its replay tab), in a new
  // replay and in a new replay from the team archive, one of each in turn, the order
  // turned each time, so that a change in the machine's load falls on all alike.
  const b = pipeBrowser(profile, [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`]);
  try {
    const sw = await waitFor(async () => (await b.send("Target.getTargets")).targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://")), "the extension's worker", 60000);
    const ext = new URL(sw.url).host;
    const stopWorker = await workerStopper(b);
    // Each new replay's timeline, broken down by step from its tab's navigation start.
    // A time no replay asked for before (in 2099: the latest capture is the nearest),
    // so that no batch of it is in the browser's cache.
    let asked = 0;
    const newTime = () => "20990101" + [Math.floor(asked / 3600), Math.floor(asked / 60) % 60, asked++ % 60].map((x) => String(x).padStart(2, "0")).join("");
    const replayFirst = async (u, team, woken = false) => {
      if (woken) await stopWorker();
      const t = await replayTab(b, ext, team ? (woken ? `team=1&ts=${newTime()}` : "team=1") : `session=${encodeURIComponent(id)}`, u);
      const tl = t.bar;
      const batch = Object.fromEntries((tl.batchSteps ?? "").split(",").map((e) => e.trim().split(/;dur=|;desc=/))
        .filter(([, d]) => d !== undefined).map(([k, d]) => [k, k === "guess" ? d : Number(d)]));
      const at = (k) => (tl[k] ? tl[k] - t.origin : NaN);
      // Each subresource: from the tab's asking for it to the bar's being told it is
      // paused, and from then to its fulfilment.
      const subs = tl.requests.filter((q) => t.asked[q.url] !== undefined && q.fulfilled);
      steps.push({
        team, woken, page: new URL(u).pathname, ...Object.fromEntries(stepNames.map(([k]) => [k, at(k)])),
        responseEnd: t.responseEnd, dcl: t.dcl, load: t.ms, paused: tl.paused, batch: tl.batch, kept: tl.kept, core: tl.core,
        toBar: subs.length ? median(subs.map((q) => q.paused - t.origin - t.asked[q.url])) : NaN,
        toFulfil: subs.length ? median(subs.map((q) => q.fulfilled - q.paused)) : NaN,
        ...Object.fromEntries([...batchSteps, ...batchCounts].map((k) => [k, batch[k] ?? NaN])), guess: batch.guess, timing: tl.batchSteps,
      });
      if (stepsFile) appendFileSync(stepsFile, JSON.stringify(steps.at(-1)) + "\n");
      return t.ms;
    };
    const floor = fetchFloor(b);
    const allKinds = [
      ["newTab", async (u) => (await liveNewTab(b, u)).ms], ["blankTab", async (u) => (await liveBlankTab(b, u)).ms],
      // The floor of any replay through the Fetch domain: the blank tab's load with each
      // request paused and answered from memory by a bare client.
      ["floor", async (u) => (await floor(u)).ms],
      ["replay", (u) => replayFirst(u, false)], ["team", (u) => replayFirst(u, true)],
      // The first replay after the browser let the extension's worker sleep: the core
      // woken by the bar, nothing kept (no batch, no bundle's index); from the team
      // archive, as of a new time: the Worker makes the batch.
      ["replayWoken", (u) => replayFirst(u, false, true)], ["teamWoken", (u) => replayFirst(u, true, true)],
    ];
    const kinds = onlyKinds ? allKinds.filter(([k]) => onlyKinds.includes(k)) : allKinds;
    // A browser just started has its core and the Worker's to wake (their cold starts
    // are measured in their own sections): one load of each kind first, not counted.
    for (const [, load] of kinds) await load(urls[0]);
    for (const row of rows) {
      const u = urls.find((x) => new URL(x).pathname === row.url);
      row.f = Object.fromEntries(allKinds.map(([k]) => [k, []]));
      for (let i = 0; i < firstRuns; i++) {
        for (let k = 0; k < kinds.length; k++) {
          const [kind, load] = kinds[(i + k) % kinds.length];
          await new Promise((r) => setTimeout(r, settle));
          row.f[kind].push(await load(u));
        }
      }
      loads.push(loadavg());
    }
  } finally {
    await b.close(); // the profile is Chromium's until it has gone
  }

  // Memory: the extension's process (core and replay page) and the whole browser,
  // sampled while the home page's button loads the 24 MB file from the archive, the
  // site stopped.
  site.stop();
  browser = await launch({ downloads: dir, profile });
  const r = await openReplay(browser, id, site.url);
  const m = await peakMemory(browser, async () => {
    await r.page.click("#load-big");
    await r.page.waitForSelector("#load-big[data-done]", { timeout: 120000 });
  });
  mem = { before: m.before, peak: m.peak, bigMs: m.ms, result: await r.page.textContent("#big-result") };
  await r.close();
} finally {
  await browser.close();
  await mf.dispose();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
const ms = (x) => (x === undefined ? "-" : `${Math.round(x)} ms`);
const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
// Each pair's interval is drawn once, so that the lines that list the pages over the
// target read the intervals the table prints.
const intervals = new Map(); // on -> off -> [lo, hi]
const drawn = (on, off) => {
  if (!intervals.has(on)) intervals.set(on, new Map());
  const m = intervals.get(on);
  if (!m.has(off)) m.set(off, interval(on, off));
  return m.get(off);
};
const band = (on, off) => {
  if (!on.length || !off.length) return "-";
  const [lo, hi] = drawn(on, off);
  return `${(median(on) / median(off)).toFixed(2)}x (${lo.toFixed(2)}-${hi.toFixed(2)})`;
};
console.log("## Replay in webkeep");
console.log();
console.log(`\`node scripts/bench/replay.mjs\`: the demo site recorded through the extension, each page replayed in webkeep (replay.html, the debugger's Fetch domain, every request answered from the archive).`);
console.log();
console.log(`First load: the page's first load by the browser's navigation timing (from the navigation's start to the load event), in a Chromium no harness instruments (the same profile driven through a bare DevTools pipe that attaches to a tab only to navigate it and, ${loadWait} ms after it appeared, to read its timing: scripts/lib/firstload.mjs); live (the browser's cache as the recording left it) in a new tab made at the page's URL, as a link opened in a new tab, and in a blank tab navigated at once, the tab a replay's bar makes and navigates; in a new replay (its bar made anew, with no batch kept; the core keeps the batches it made last); and in a new replay from the team archive (the session uploaded to the Worker in workerd through miniflare, on 127.0.0.1, workerd at the lowest priority, nice 19, as the Worker runs at Cloudflare and not on the user's machine; the core keeps the team's batches it made last too, and asks the merged index again each time). ${firstRuns} of each, one of each in turn, ${settle} ms apart. Each ratio is of the medians, with its 95% bootstrap interval (scripts/lib/stats.mjs). Target (issue 38): first loads at most 1.3x live over the whole interval, here against the live tab made and navigated as the replay's is (the blank tab); against the new tab too.`);
console.log();
console.log("| page | live: new tab | live: blank tab | replay | replay / blank tab (95%) | replay / new tab (95%) | from the team archive | team / blank tab (95%) | team / new tab (95%) |");
console.log("|---|---|---|---|---|---|---|---|---|");
// All pages: the sum of each page's loads, run by run.
const sums = (k, side) => rows[0][k][side].map((_, i) => rows.reduce((n, r) => n + r[k][side][i], 0));
const all = { url: "all pages", f: Object.fromEntries(Object.keys(rows[0].f).map((k) => [k, sums("f", k)])), t: { live: sums("t", "live"), replay: sums("t", "replay") } };
for (const { url, f } of [...rows, all]) {
  console.log(`| ${url} | ${ms(median(f.newTab))} | ${ms(median(f.blankTab))} | ${ms(median(f.replay))} | ${band(f.replay, f.blankTab)} | ${band(f.replay, f.newTab)} | ${ms(median(f.team))} | ${band(f.team, f.blankTab)} | ${band(f.team, f.newTab)} |`);
}
console.log();
console.log("The same, each new replay made just after the extension's service worker was stopped (DevTools `ServiceWorker.stopAllWorkers`), as the browser stops it after 30 s idle: the bar wakes the core (before the navigation starts, so not in the figure: the bar's timeline below), which has kept nothing, so a page's batch is made anew; from the team archive, asked as of a time not asked before (in 2099, the latest capture the nearest), so that the browser's cache holds none of its batches either: the Worker makes the batch. The first replay of a page, in figures.");
console.log();
console.log("| page | live: new tab | live: blank tab | replay, core woken | replay / blank tab (95%) | replay / new tab (95%) | from the team archive, core woken | team / blank tab (95%) | team / new tab (95%) |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const { url, f } of [...rows, all]) {
  console.log(`| ${url} | ${ms(median(f.newTab))} | ${ms(median(f.blankTab))} | ${ms(median(f.replayWoken))} | ${band(f.replayWoken, f.blankTab)} | ${band(f.replayWoken, f.newTab)} | ${ms(median(f.teamWoken))} | ${band(f.teamWoken, f.blankTab)} | ${band(f.teamWoken, f.newTab)} |`);
}
console.log();
console.log("The floor of any replay through the debugger's Fetch domain: a blank tab made and navigated as the live one, each of its requests paused and fulfilled from memory by a bare DevTools client (the live site's answers, fetched once; no extension, no archive, no lookup: `fetchFloor` in scripts/lib/firstload.mjs), timed in turn with the loads above. Each replay's first load against it: what webkeep adds to the domain's own cost, but for the replay's tab being older when navigated (made while the bar attaches its debugger; the bar's timeline below), which a day a new tab starts slowly favours.");
console.log();
console.log("| page | live: blank tab | the floor | floor / blank tab (95%) | replay / floor (95%) | team / floor (95%) | replay, core woken / floor (95%) | team, core woken / floor (95%) |");
console.log("|---|---|---|---|---|---|---|---|");
for (const { url, f } of [...rows, all]) {
  console.log(`| ${url} | ${ms(median(f.blankTab))} | ${ms(median(f.floor))} | ${band(f.floor, f.blankTab)} | ${band(f.replay, f.floor)} | ${band(f.team, f.floor)} | ${band(f.replayWoken, f.floor)} | ${band(f.teamWoken, f.floor)} |`);
}
console.log();
for (const [side, what] of [["floor", "The floor"], ["replay", "First loads"], ["team", "First loads from the team archive"], ["replayWoken", "First loads, core woken"], ["teamWoken", "First loads from the team archive, core woken"]]) {
  for (const [base, against] of [["blankTab", "the blank tab"], ["newTab", "the new tab"]]) {
    if (!rows[0].f[side].length || !rows[0].f[base].length) continue;
    const over = rows.filter(({ f }) => drawn(f[side], f[base])[1] > 1.3).map((r) => r.url);
    console.log(over.length ? `${what}${what.includes(",") ? "," : ""} over 1.3x of ${against} somewhere in their interval: ${over.join(", ")}.` : `${what}: every page's interval is at most 1.3x of ${against}.`);
  }
}
console.log();
console.log(`Reload: the page's tab reloaded until its load event (Playwright's \`reload\`), live and replayed, one of each in turn, ${runs} of each.`);
console.log();
console.log("| page | live | replay | replay / live (95%) |");
console.log("|---|---|---|---|");
for (const { url, t } of [...rows, all]) console.log(`| ${url} | ${ms(median(t.live))} | ${ms(median(t.replay))} | ${band(t.replay, t.live)} |`);
console.log();
console.log(`Load average (1 min) after each page's first loads: ${loads.join(", ")}.`);
console.log();
console.log("Where a new replay's first load goes (median of its replays, ms from the replay tab's navigation start, on the clock the bar and the tab share; negative: before it), the session's replays first, then those from the team archive, then each of the two with the core woken (the bar's script to the replay started includes the wake). How many replays had their batch in the bar only after the document's request was paused (the document then waits for it). The last two are durations, medians of the page's subresources: from the tab's asking for one (its resource timing) to the bar's being told it is paused, and from then to its fulfilment:");
console.log();
console.log(`| page | ${stepNames.map(([, name]) => name).join(" | ")} | document's response end | DOMContentLoaded | load event | requests: batch / kept / core | batch after the document paused | a subresource: asked to paused in the bar | paused to fulfilled |`);
console.log(`|---|${stepNames.map(() => "---").join("|")}|---|---|---|---|---|---|---|`);
const label = (u, team, woken) => (team || woken ? `${u} (${[team && "team", woken && "core woken"].filter(Boolean).join(", ")})` : u);
for (const [u, team, woken] of [[false, false], [true, false], [false, true], [true, true]].flatMap(([team, woken]) => rows.map((r) => [r.url, team, woken]))) {
  const s = steps.filter((x) => x.page === u && x.team === team && x.woken === woken);
  const m = (k) => { const v = s.map((x) => x[k]).filter((x) => !Number.isNaN(x)); return v.length ? String(Math.round(median(v))) : "-"; };
  console.log(`| ${label(u, team, woken)} | ${stepNames.map(([k]) => m(k)).join(" | ")} | ${m("responseEnd")} | ${m("dcl")} | ${m("load")} | ${m("batch")} / ${m("kept")} / ${m("core")} | ${s.filter((x) => x.batchLoaded > x.documentPaused).length} of ${s.length} | ${m("toBar")} | ${m("toFulfil")} |`);
}
console.log();
console.log("The core's steps in making a team replay's batch (median ms, its Server-Timing header): the page's lookup in the merged index, its bundle's index (kept from the last page of the same bundle), the reads of the records the batch takes (one request of their places in the bundle, answered in parts, made as the lookup goes when the kept index holds the page), and the batch made of them; for a batch asked of the Worker, whose steps the columns before are, its whole trip as the core waited for it (those steps, the Worker's start and answer, the way there and back); how many requests the records took (median); then how many replays had the page's batch made by the Worker, kept by the core from an earlier replay (as a session's replay has: the Worker's lookup alone, 304), or kept by the browser's cache (after the core was woken: the Worker's lookup alone, its 304 turned into the kept batch by the browser), and how many found their records read from the kept index as the lookup went (a Worker without the batch route); the replays with the core woken last (asked as of a new time: nothing kept, the Worker makes the batch):");
console.log();
console.log(`| page | ${batchSteps.join(" | ")} | requests for the records | batch: made by the Worker / kept by the core / by the browser's cache | records read as the lookup went: the batch's / not |`);
console.log(`|---|${batchSteps.map(() => "---").join("|")}|---|---|---|`);
for (const [u, woken] of [false, true].flatMap((woken) => rows.map((r) => [r.url, woken]))) {
  const s = steps.filter((x) => x.page === u && x.team && x.woken === woken);
  const m = (k) => { const v = s.map((x) => x[k]).filter((x) => !Number.isNaN(x)); return v.length ? median(v).toFixed(1) : "-"; };
  const n = (g) => s.filter((x) => x.guess === g).length;
  console.log(`| ${label(u, false, woken)} | ${batchSteps.map(m).join(" | ")} | ${m("ranges")} | ${n("worker")} / ${n("kept")} / ${n("cached")} of ${s.length} | ${n("hit")} / ${n("miss")} of ${s.length} |`);
}
console.log();
console.log(`The 24 MB file replayed (fetch() from the home page, ${mem.result}) in ${ms(mem.bigMs)}. Resident memory of the extension's process (the Go core and the replay page): ${mb(mem.before.ext)} before, ${mb(mem.peak.ext)} at the peak; of the whole browser: ${mb(mem.before.all)} before, ${mb(mem.peak.all)} at the peak (sampled every 50 ms).`);
