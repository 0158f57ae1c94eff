// Replay load times of two or more builds of the extension, compared on a shared,
// noisy machine: `node scripts/bench/replay-ab.mjs NAME=DIR NAME=DIR ...` (each DIR an
// unpacked build, as dist/extension). Each build runs in its own Chromium, which records
// the demo site; then, page by page, one live reload and one replay reload in each
// build are made in turn (the builds' order alternating), so a change in the machine's
// load falls on all of them alike. Prints each page's median (of N, default 9) and its
// ratio to the live one, and the load average. Not part of `make bench`: it is for
// measuring a change to replay against the build before it.
//
// REPLAY_AB_FIRST=1 compares first loads instead: each page's first load (the browser's
// navigation timing, navigation start to load event) live in a new tab and in a new
// replay of each build (its bar made anew), in turn, with each ratio's 95% interval
// (scripts/lib/stats.mjs); the replay's time from its bar's opening to its load event
// (what its user waits for) too.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
// A first load in the page it is evaluated in: navigation start to the load event, ms.
const firstLoad = () => {
  const n = performance.getEntriesByType("navigation")[0];
  return { ms: n.loadEventStart - n.startTime, start: performance.timeOrigin + n.startTime };
};

if (process.argv[2] === "--build") {
  // One build (WEBKEEP_EXTENSION): record the demo site at argv[3], then answer lines
  // on stdin, "live URL" or "replay URL", with the time of one reload of it until
  // its load event; "firstlive URL" or "firstreplay URL" with a first load of it in a
  // new tab or a new replay ({ ms, open }: open the replay's from its bar's opening).
  const { launch } = await import("../lib/browser.mjs");
  const { attachReplay, openReplay } = await import("../lib/replay.mjs");
  const { recordDemo } = await import("../lib/replaywebpage.mjs");
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-replay-ab-"));
  const browser = await launch({ downloads: dir });
  try {
    const live = {};
    const id = (await recordDemo({ url: process.argv[3] }, dir, live, { browser })).id;
    const livePage = await browser.context.newPage();
    let replaying = null; // { url, r }
    console.log(JSON.stringify({ urls: Object.keys(live).filter((u) => u.startsWith("http") && !/\/submit\//.test(u)) }));
    for await (const line of readline.createInterface({ input: process.stdin })) {
      const [what, url] = line.split(" ");
      if (what === "quit") break;
      if (what === "firstlive") {
        const tab = await browser.context.newPage();
        await tab.goto(url);
        console.log(JSON.stringify({ ms: (await tab.evaluate(firstLoad)).ms }));
        await tab.close();
        continue;
      }
      if (what === "firstreplay") {
        // Awaited in the bar, which notes the tab's load event: polling the replay
        // tab would run scripts in it while it loads.
        const earlier = new Set(browser.context.pages());
        const bar = await browser.context.newPage();
        await bar.goto(browser.page(`replay.html?session=${encodeURIComponent(id)}&url=${encodeURIComponent(url)}`));
        await bar.waitForFunction(() => document.body.dataset.replayTab && typeof timeline === "object" && timeline.loadEvent, null, { polling: 50, timeout: 60000 });
        const r = await attachReplay(browser, bar, earlier);
        const t = await r.evaluate(firstLoad);
        const opened = await bar.evaluate(() => performance.timeOrigin);
        console.log(JSON.stringify({ ms: t.ms, open: t.start + t.ms - opened }));
        await r.close();
        continue;
      }
      let page = livePage;
      if (what === "live" && livePage.url() !== url) await livePage.goto(url);
      if (what === "replay") {
        if (replaying?.url !== url) {
          await replaying?.r.close();
          replaying = { url, r: await openReplay(browser, id, url) };
        }
        page = replaying.r.page;
      }
      const t0 = performance.now();
      await page.reload({ waitUntil: "load" });
      console.log(JSON.stringify({ ms: performance.now() - t0 }));
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

const { startDemoSite } = await import("../lib/browser.mjs");
const builds = process.argv.slice(2).map((a) => a.split("="));
if (!builds.length || builds.some((b) => b.length !== 2)) throw new Error("usage: bench-replay-ab.mjs NAME=DIR ...");
const runs = Number(process.env.REPLAY_BENCH_RUNS || 9);
const site = await startDemoSite(["-big", String(1 << 20)]);
const kids = builds.map(([name, dir]) => {
  const p = spawn(process.execPath, [process.argv[1], "--build", site.url], { env: { ...process.env, WEBKEEP_EXTENSION: path.resolve(dir) }, stdio: ["pipe", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: p.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`build ${name} (${dir}) stopped`);
    return JSON.parse(value);
  };
  return { name, p, next, reload: async (line) => { p.stdin.write(line + "\n"); return (await next()).ms; } };
});
try {
  let urls;
  for (const k of kids) urls = (await k.next()).urls;
  if (process.env.REPLAY_AB_FIRST) await firsts(urls);
  else await reloads(urls);
} finally {
  for (const k of kids) k.p.stdin.write("quit\n");
  site.stop();
}

// reloads prints the reload times of urls, live and replayed in each build, in turn
// (the builds' order alternating), runs of each.
async function reloads(urls) {
  const rows = [];
  const loads = [];
  for (const url of urls) {
    const t = { live: [] };
    for (const k of kids) t[k.name] = [];
    for (let i = 0; i < runs; i++) {
      t.live.push(await kids[0].reload(`live ${url}`));
      for (const k of i % 2 ? [...kids].reverse() : kids) t[k.name].push(await k.reload(`replay ${url}`));
    }
    rows.push({ page: new URL(url).pathname, ...Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)])) });
    loads.push(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  }
  rows.push({ page: "all pages", ...Object.fromEntries(["live", ...builds.map(([n]) => n)].map((k) => [k, rows.reduce((s, r) => s + r[k], 0)])) });
  console.log(`| page | live | ${builds.map(([n]) => `${n} | ${n} / live`).join(" | ")} |`);
  console.log(`|---|---|${builds.map(() => "---|---").join("|")}|`);
  for (const r of rows) {
    console.log(`| ${r.page} | ${Math.round(r.live)} ms | ${builds.map(([n]) => `${Math.round(r[n])} ms | ${(r[n] / r.live).toFixed(2)}x`).join(" | ")} |`);
  }
  console.log();
  console.log(`Median of ${runs} reloads each; load average (1 min) after each page: ${loads.join(", ")}.`);
}

// firsts prints the first loads of urls, live and in a new replay of each build, in
// turn (the builds' order alternating), runs of each.
async function firsts(urls) {
  const { interval } = await import("../lib/stats.mjs");
  const ask = async (k, line) => { k.p.stdin.write(line + "\n"); return k.next(); };
  const rows = [];
  const loads = [];
  const band = (on, off) => {
    const [lo, hi] = interval(on, off);
    return `${(median(on) / median(off)).toFixed(2)}x (${lo.toFixed(2)}-${hi.toFixed(2)})`;
  };
  for (const url of urls) {
    const t = { live: [] };
    for (const k of kids) t[k.name] = { ms: [], open: [] };
    for (let i = 0; i < runs; i++) {
      t.live.push((await ask(kids[0], `firstlive ${url}`)).ms);
      for (const k of i % 2 ? [...kids].reverse() : kids) {
        const f = await ask(k, `firstreplay ${url}`);
        t[k.name].ms.push(f.ms);
        t[k.name].open.push(f.open);
      }
    }
    rows.push({ page: new URL(url).pathname, t });
    loads.push(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  }
  const names = builds.map(([n]) => n);
  console.log(`| page | first load: live | ${names.map((n) => `${n} | ${n} / live (95%) | ${n}: bar opened to load`).join(" | ")} |`);
  console.log(`|---|---|${names.map(() => "---|---|---").join("|")}|`);
  for (const { page, t } of rows) {
    console.log(`| ${page} | ${Math.round(median(t.live))} ms | ${names.map((n) => `${Math.round(median(t[n].ms))} ms | ${band(t[n].ms, t.live)} | ${Math.round(median(t[n].open))} ms`).join(" | ")} |`);
  }
  if (names.length === 2) {
    const [a, b] = names;
    console.log();
    console.log(`${b} / ${a}, first load (95%): ${rows.map(({ page, t }) => `${page} ${band(t[b].ms, t[a].ms)}`).join("; ")}.`);
    console.log(`${b} / ${a}, bar opened to load (95%): ${rows.map(({ page, t }) => `${page} ${band(t[b].open, t[a].open)}`).join("; ")}.`);
  }
  console.log();
  console.log(`${runs} first loads of each; load average (1 min) after each page: ${loads.join(", ")}.`);
}
