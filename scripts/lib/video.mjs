// A real encoded video for the tests and benchmarks of media: made by Debian's ffmpeg
// at run time, played through in a page as a viewer plays it.
import { execFileSync, spawnSync } from "node:child_process";
import { startRecording } from "./browser.mjs";

/** Whether ffmpeg is installed (scripts/setup.sh installs it for make test). */
export const haveFFmpeg = () => spawnSync("ffmpeg", ["-version"]).status === 0;

/**
 * Writes a VP8 WebM of ffmpeg's test pattern to file: seconds long, size (WxH) at
 * 25 frames a second, bitrate (ffmpeg's -b:v, at most: the bare pattern takes far
 * less; with noise, grain over it, it takes about that), a keyframe a second, no audio.
 */
export function makeVideo(file, { seconds = 8, size = "320x240", bitrate = "400k", noise = false } = {}) {
  execFileSync("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", `testsrc=duration=${seconds}:size=${size}:rate=25`,
    ...(noise ? ["-vf", "noise=alls=20:allf=t"] : []), "-c:v", "libvpx", "-b:v", bitrate, "-g", "25", "-an", file]);
}

/**
 * Plays the video of id in page (Playwright's) through to its end at rate times its
 * speed, so that the browser fetches every byte it needs, by Range.
 */
export function playThrough(page, id = "video", rate = 4) {
  return page.evaluate(([id, rate]) => new Promise((resolve, reject) => {
    const v = document.getElementById(id);
    v.playbackRate = rate;
    v.onended = resolve;
    v.onerror = () => reject(new Error(`the video failed live: ${v.error && v.error.message}`));
    v.play().catch(reject);
  }), [id, rate]);
}

/**
 * Records the page at url of the demo site at siteURL, whose video's id is "video",
 * through the extension in browser: the video played through at 8 times its speed,
 * then watch run with the page's evaluate (seeks: their ranges are recorded too, and
 * a replay answers only the ranges it holds). Resolves to the session's id.
 */
export async function recordVideoPage(browser, siteURL, url, watch) {
  const rec = await startRecording(browser, siteURL);
  await rec.page.goto(url);
  await playThrough(rec.page, "video", 8);
  await watch((fn) => rec.page.evaluate(fn));
  await rec.popup.bringToFront();
  await rec.popup.click("#stop");
  await rec.popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  const session = new URL(await rec.popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  await rec.page.close();
  await rec.popup.close();
  return session;
}
