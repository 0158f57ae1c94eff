// How fast a recorded video plays through in replay, against live: the demo's /watch
// page with a 30 s VP8 WebM of BITRATE (made by ffmpeg), recorded played through,
// then RUNS times played muted at RATE times its speed to its end, live and in a new
// replay, alternating. Prints each time and the replay's bytes a second: what a
// player that asks by Range, one range at a time, gets through the debugger.
//
//   node scripts/probe/playthrough.mjs [RATE] [BITRATE] [RUNS]    (default 16, 8M, 3)
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, startDemoSite } from "../lib/browser.mjs";
import { openReplay } from "../lib/replay.mjs";
import { makeVideo, recordVideoPage } from "../lib/video.mjs";

const rate = Number(process.argv[2] || 16);
const bitrate = process.argv[3] || "8M";
const runs = Number(process.argv[4] || 3);
// through plays the page's video to its end (evaluate runs a function there); ms.
const through = (evaluate) => evaluate(new Function(`return (async () => {
  const v = document.getElementById("video");
  v.muted = true;
  v.playbackRate = ${rate};
  const t0 = performance.now();
  await new Promise((resolve, reject) => {
    v.onended = resolve;
    v.onerror = () => reject(new Error("the video failed: " + (v.error && v.error.message)));
    v.play().catch(reject);
  });
  return performance.now() - t0;
})()`));

const dir = mkdtempSync(path.join(tmpdir(), "webkeep-playthrough-"));
const video = path.join(dir, "video.webm");
makeVideo(video, { seconds: 30, size: "640x360", bitrate, noise: true });
const bytes = statSync(video).size;
const site = await startDemoSite(["-video", video]);
const browser = await launch({});
try {
  const url = new URL("/watch", site.url).href;
  const session = await recordVideoPage(browser, site.url, url, async () => {});
  const live = [], replayed = [];
  for (let i = 0; i < runs; i++) {
    const page = await browser.context.newPage();
    await page.goto(url);
    live.push(await through((fn) => page.evaluate(fn)));
    await page.close();
    const r = await openReplay(browser, session, url);
    replayed.push(await through((fn) => r.evaluate(fn, 120)));
    await r.close();
  }
  const ms = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
  console.log(`${bytes} bytes played at ${rate}x: live ${ms(live)} ms; replay ${ms(replayed)} ms (${replayed.map((x) => (bytes / 1e3 / x).toFixed(1)).join(", ")} MB/s)`);
} finally {
  await browser.close();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
