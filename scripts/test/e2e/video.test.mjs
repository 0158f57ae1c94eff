// A real encoded video (VP8 WebM made by Debian's ffmpeg at test time, a keyframe a
// second) on the demo site, served as media servers serve it (Range, 206), played
// through while recorded; then, with the demo site stopped, replayed in webkeep: it
// plays, and seeks to three positions, each answered from the archive's 206 capture
// by the bytes asked for, with nothing reaching the network.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, startDemoSite, startRecording, waitFor, guardPort } from "../../lib/browser.mjs";
import { importWARC, openReplay } from "../../lib/replay.mjs";
import { haveFFmpeg, makeVideo, playThrough } from "../../lib/video.mjs";

let site, dir, browser, guard, session, url, video;

before(async () => {
  if (!haveFFmpeg()) {
    if (process.env.CI === "true") throw new Error("ffmpeg is not installed (scripts/setup.sh installs it for make test)");
    return;
  }
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-video-"));
  video = path.join(dir, "video.webm");
  makeVideo(video);
  site = await startDemoSite(["-video", video]);
  url = new URL("/video", site.url).href;
  browser = await launch({});
  const rec = await startRecording(browser, site.url);
  await rec.page.goto(url);
  await playThrough(rec.page); // the browser fetches every byte it needs, by Range
  await rec.popup.bringToFront();
  await rec.popup.click("#stop");
  await rec.popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  session = new URL(await rec.popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  await rec.page.close();
  await rec.popup.close();
  // The demo site is stopped; its port now only counts what reaches it.
  guard = await guardPort(site);
  site = null;
}, { timeout: 300000 });

after(async () => {
  await browser?.close();
  guard?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the recorded video plays and seeks to three positions in replay", async (t) => {
  if (!session) return t.skip("ffmpeg is not installed");
  const r = await openReplay(browser, session, url);
  try {
    const played = await r.evaluate(() => new Promise((resolve) => {
      const v = document.getElementById("video");
      v.onerror = () => resolve({ error: v.error && v.error.message });
      v.play().then(() => setTimeout(() => resolve({ time: v.currentTime, duration: v.duration }), 500), (e) => resolve({ error: String(e) }));
    }));
    assert.equal(played.error, undefined, JSON.stringify(played));
    assert.ok(played.time > 0 && Math.abs(played.duration - 8) < 0.5, JSON.stringify(played));
    for (const at of [6.2, 1.5, 4.0]) {
      const seeked = await r.evaluate(new Function(`return new Promise((resolve) => {
        const v = document.getElementById("video");
        v.pause();
        v.onseeked = () => resolve({ time: v.currentTime, ready: v.readyState, error: v.error && v.error.message });
        v.onerror = () => resolve({ error: v.error && v.error.message });
        v.currentTime = ${at};
      })`));
      assert.equal(seeked.error ?? null, null, `seek to ${at}: ${JSON.stringify(seeked)}`);
      assert.ok(Math.abs(seeked.time - at) < 0.1 && seeked.ready >= 2, `seek to ${at}: ${JSON.stringify(seeked)}`);
    }
    await waitFor(async () => (await r.bar.textContent("#replay-missed-count")) === "0", "no request missed");
  } finally {
    await r.close();
  }
  assert.ok(statSync(video).size > 100000, "the video is a real one");
}, { timeout: 180000 });

test("nothing reached the demo site's port during replay", (t) => {
  if (!session) return t.skip("ffmpeg is not installed");
  assert.equal(guard.hits(), 0);
});

// A video too large for one DevTools message (over 64 MiB: the real one, its file
// padded), navigated to as a link to it is followed: replay shows it in a player, as
// the browser shows media, whose requests ask by Range; it plays and seeks.
test("a video over 64 MiB, navigated to, plays and seeks in replay's player", async (t) => {
  if (!session) return t.skip("ffmpeg is not installed");
  const big = new Uint8Array((64 << 20) + 4096);
  big.set(readFileSync(video));
  const id = await importWARC(browser, "lecture.warc.gz", [
    ["http://lecture.example/", "text/html", new TextEncoder().encode('<a id="l" href="/lecture.webm">the lecture</a>')],
    ["http://lecture.example/lecture.webm", "video/webm", big],
  ]);
  const r = await openReplay(browser, id, "http://lecture.example/");
  try {
    await r.evaluate(() => { location.href = "/lecture.webm"; });
    await waitFor(() => r.evaluate(() => location.pathname === "/lecture.webm" && Boolean(document.getElementById("webkeep-media"))).catch(() => false), "the player");
    const played = await r.evaluate(() => new Promise((resolve) => {
      const v = document.getElementById("webkeep-media");
      v.muted = true;
      v.onerror = () => resolve({ error: v.error && v.error.message });
      v.play().then(() => setTimeout(() => resolve({ time: v.currentTime, duration: v.duration }), 700), (e) => resolve({ error: String(e) }));
    }));
    assert.equal(played.error, undefined, JSON.stringify(played));
    assert.ok(played.time > 0, JSON.stringify(played));
    const seeked = await r.evaluate(() => new Promise((resolve) => {
      const v = document.getElementById("webkeep-media");
      v.pause();
      v.onseeked = () => resolve({ time: v.currentTime, ready: v.readyState });
      v.onerror = () => resolve({ error: v.error && v.error.message });
      v.currentTime = 5;
    }));
    assert.ok(Math.abs(seeked.time - 5) < 0.1 && seeked.ready >= 2, JSON.stringify(seeked));
    assert.equal(await r.bar.textContent("#replay-withheld-count"), "0");
  } finally {
    await r.close();
  }
});
