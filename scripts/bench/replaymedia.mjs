// Replay of media and of large bodies in webkeep, in real Chromium (`make bench`,
// scripts/bench/sections/replaymedia.sh). A real video (VP8 WebM made by Debian's
// ffmpeg, 30 s, a keyframe a second) on the demo site's /watch page, which loads
// none of it until played, is recorded played through; then each run opens the page
// live and in a new replay, alternating (the site stays up: the replays' requests are
// answered from the archive, and its log shows that none reached it), and times, from the page's own clock: the first frame
// after play() (requestVideoFrameCallback), and three seeks (to their seeked event).
// Prints a Markdown section.
//
//   node scripts/bench/replaymedia.mjs [--runs 7] [--bitrates 1M,8M]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, startDemoSite } from "../lib/browser.mjs";
import { openReplay } from "../lib/replay.mjs";
import { median, quantile, ratio } from "../lib/stats.mjs";
import { makeVideo, recordVideoPage } from "../lib/video.mjs";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] || 7) || 7;
const bitrates = (args.includes("--bitrates") ? args[args.indexOf("--bitrates") + 1] : "1M").split(",");
const seeks = [21.5, 4.2, 12.0];
const seconds = 30; // of each video

// watch plays the /watch page's video in a page (evaluate runs a function there) and
// returns the time to its first frame and to each seek, in ms.
const watch = (evaluate) => evaluate(new Function(`return (async () => {
  const v = document.getElementById("video");
  const t0 = performance.now();
  const first = await new Promise((resolve, reject) => {
    v.onerror = () => reject(new Error("the video failed: " + (v.error && v.error.message)));
    v.requestVideoFrameCallback(() => resolve(performance.now() - t0));
    v.play().catch(reject);
  });
  v.pause();
  const seeked = [];
  for (const at of ${JSON.stringify(seeks)}) {
    const t = performance.now();
    await new Promise((resolve) => { v.onseeked = resolve; v.currentTime = at; });
    seeked.push(performance.now() - t);
  }
  return { first, seeked };
})()`));

// measure records a video of bitrate played through, then times its first frame
// and seeks live and in a new replay, runs times each, alternating.
async function measure(bitrate) {
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-bench-media-"));
  const video = path.join(dir, "video.webm");
  makeVideo(video, { seconds, size: "640x360", bitrate, noise: true });
  const bytes = statSync(video).size;
  const site = await startDemoSite(["-video", video]);
  const browser = await launch({});
  const url = new URL("/watch", site.url).href;
  const live = { first: [], seek: [] }, replayed = { first: [], seek: [] };
  const reached = []; // requests of the replays that reached the site
  try {
    const session = await recordVideoPage(browser, site.url, url, watch);
    for (let i = 0; i < runs; i++) {
      const page = await browser.context.newPage();
      await page.goto(url);
      const l = await watch((fn) => page.evaluate(fn));
      await page.close();
      live.first.push(l.first);
      live.seek.push(...l.seeked);
      // The live page's last requests, made as it closed, reach the site a moment
      // later: they are not the replay's.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = (await site.log()).length;
      const r = await openReplay(browser, session, url);
      const p = await watch(r.evaluate);
      const closing = Date.now();
      await r.close();
      // What reached the site, with when, from the replay's closing (its bar's).
      reached.push(...(await site.log()).slice(before).map((e) => `${e.method} ${e.url}${e.header.Range ? ` (${e.header.Range})` : ""} ${Date.parse(e.time) - closing} ms after the replay's closing`));
      replayed.first.push(p.first);
      replayed.seek.push(...p.seeked);
    }
  } finally {
    await browser.close();
    site.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { bitrate, bytes, live, replayed, reached };
}

const results = [];
for (const b of bitrates) results.push(await measure(b));
const ms = (xs) => `${median(xs).toFixed(0)} ms (p90 ${quantile(xs, 0.9).toFixed(0)})`;
console.log("## Replay of a video and of large bodies in webkeep");
console.log();
console.log(`\`node scripts/bench/replaymedia.mjs --runs ${runs} --bitrates ${bitrates.join(",")}\`: a ${seconds} s VP8 WebM (640x360, a keyframe a second, made by ffmpeg of its test pattern with grain, so that it takes the bitrate asked for) of each bitrate on the demo site's /watch page, recorded played through and seeked; then ${runs} times the page opened live and in a new replay, alternating, each timing the first frame after play() and seeks to ${seeks.join(", ")} s, from the page's clock. A player asks by Range, and replay answers an open range with 256 KiB at a time, the bar asking for the next one ahead (docs/replay.md).`);
console.log();
console.log("| video | measure | live | replay | replay / live |");
console.log("|---|---|---|---|---|");
for (const { bitrate, bytes, live, replayed } of results) {
  const video = `${(bytes / 1e6).toFixed(1)} MB (${(bytes * 8 / seconds / 1e6).toFixed(1)} Mbit/s; -b:v ${bitrate})`;
  console.log(`| ${video} | first frame after play() | ${ms(live.first)} | ${ms(replayed.first)} | ${ratio(replayed.first, live.first)} |`);
  console.log(`| ${video} | a seek, to its seeked event | ${ms(live.seek)} | ${ms(replayed.seek)} | ${ratio(replayed.seek, live.seek)} |`);
}
console.log();
const reached = results.flatMap((r) => r.reached);
console.log(`Requests of the replays that reached the site: ${reached.length}${reached.length ? `: ${reached.join("; ")}` : ""}.`);
