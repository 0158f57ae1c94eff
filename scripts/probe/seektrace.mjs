// Where a seek in a recorded video goes in replay: the demo's /watch page with a video
// of BITRATE (VP8 WebM made by ffmpeg, 30 s) recorded played through and seeked, then
// replayed RUNS times; in each replay the video plays and seeks to 21.5, 4.2 and 12 s,
// and the bar logs each range request the tab makes (from the Fetch domain's pause to
// the fulfilment, with the bytes given). Prints, for each seek, its time to the seeked
// event and the requests made meanwhile: when each was paused (ms from the seek),
// its range, the ms to its fulfilment, and the bytes.
//
//   [PLAY=S] node scripts/probe/seektrace.mjs [BITRATE] [RUNS]    (default 8M and 3)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, startDemoSite } from "../lib/browser.mjs";
import { openReplay } from "../lib/replay.mjs";
import { makeVideo, recordVideoPage } from "../lib/video.mjs";

const bitrate = process.argv[2] || "8M";
const runs = Number(process.argv[3] || 3);
const seeks = [21.5, 4.2, 12.0];
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-seektrace-"));
const video = path.join(dir, "video.webm");
makeVideo(video, { seconds: 30, size: "640x360", bitrate, noise: true });
const site = await startDemoSite(["-video", video]);
const browser = await launch({});
const url = new URL("/watch", site.url).href;
const watch = (evaluate) => evaluate(new Function(`return (async () => {
  const v = document.getElementById("video");
  await new Promise((resolve, reject) => {
    v.onerror = () => reject(new Error("the video failed"));
    v.requestVideoFrameCallback(resolve);
    v.play().catch(reject);
  });
  // PLAY=S: the video plays S seconds first, and seeks while playing, as a viewer
  // who watched a while; without it, it is paused at its first frame.
  if (${Number(process.env.PLAY || 0)} > 0) await new Promise((r) => setTimeout(r, ${Number(process.env.PLAY || 0)} * 1000));
  else v.pause();
  const out = [];
  for (const at of ${JSON.stringify(seeks)}) {
    const t = performance.timeOrigin + performance.now();
    await new Promise((resolve) => { v.onseeked = resolve; v.currentTime = at; });
    out.push({ at, start: t, end: performance.timeOrigin + performance.now() });
  }
  return out;
})()`));
try {
  const session = await recordVideoPage(browser, site.url, url, watch);
  for (let i = 0; i < runs; i++) {
    const r = await openReplay(browser, session, url);
    await r.bar.evaluate(() => {
      const now = () => performance.timeOrigin + performance.now();
      self.trace = new Map();
      chrome.debugger.onEvent.addListener((source, method, p) => {
        if (method !== "Fetch.requestPaused") return;
        const range = Object.entries(p.request.headers).find(([h]) => h.toLowerCase() === "range");
        if (range) self.trace.set(p.requestId, { range: range[1], paused: now() });
      });
      const send = chrome.debugger.sendCommand.bind(chrome.debugger);
      chrome.debugger.sendCommand = (t, m, p) => {
        const e = p && self.trace.get(p.requestId);
        if (m === "Fetch.fulfillRequest" && e) {
          e.sent = now();
          e.bytes = Math.floor(p.body.length * 3 / 4);
          return send(t, m, p).finally(() => { e.fulfilled = now(); });
        }
        return send(t, m, p);
      };
    });
    const done = await watch(r.evaluate);
    const trace = await r.bar.evaluate(() => [...self.trace.values()]);
    for (const s of done) {
      console.log(`run ${i + 1}, seek to ${s.at} s: ${(s.end - s.start).toFixed(0)} ms`);
      for (const e of trace.filter((e) => e.paused >= s.start && e.paused <= s.end)) {
        console.log(`  paused at ${(e.paused - s.start).toFixed(0)} ms: ${e.range}, answer ready ${(e.sent - e.paused).toFixed(0)} ms later, fulfilled ${(e.fulfilled - e.sent).toFixed(0)} ms after that, ${e.bytes} bytes`);
      }
    }
    await r.close();
  }
} finally {
  await browser.close();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
