// Autopilot in real Chromium, on the demo site's feed (10 more items each time its end
// shows, 60 in all, lazy images offering three sizes by srcset), its "load more" page
// (a button and a closed <details>) and a video that loads nothing until played (VP8
// WebM made by Debian's ffmpeg at test time). A session recorded by a reader who only
// opens each page lacks what lies further; a session where the popup's Autopilot
// button ran on each page holds every feed item, every image size, every "load more"
// answer and the video's bytes, and replays them with the demo site stopped. Autopilot
// never submits the pages' forms, never follows their link away, never clicks their
// delete or log-out buttons, and stops by itself.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { guardPort, launch, startDemoSite, startRecording, tabId, waitFor } from "../../lib/browser.mjs";
import { openReplay } from "../../lib/replay.mjs";
import { haveFFmpeg, makeVideo } from "../../lib/video.mjs";

const feedTotal = 60;
const widths = [200, 400, 800];
let site, dir, browser, guard, video;
let base, plain, piloted; // plain and piloted: { session, urls: Set of archived URLs, runs: [popup lines] }
let logStart, logDuring; // the demo site's log while autopilot ran
let stopped; // the run stopped from the popup: its line and the feed's items then
let everyLine, everyURLs; // the run the setting started: the popup's line, the URLs archived

// records returns the URLs of a session's responses and revisits, path and query only.
async function records(session) {
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("archive.html"));
  const list = await ext.evaluate(async (id) => (await fetch(`/api/sessions/${id}/records`)).json(), session);
  await ext.close();
  const urls = new Set();
  // A response or a revisit has a status; a metadata note of a URL has none.
  for (const r of list) {
    if (!/^\d{3}$/.test(r.fields.status ?? "") && r.fields.mime !== "warc/revisit") continue;
    const u = new URL(r.fields.url);
    urls.add(u.pathname + u.search);
  }
  return urls;
}

// stop stops the recording from the popup and returns the session's id.
async function stop(rec) {
  await rec.popup.bringToFront();
  await rec.popup.click("#stop");
  await rec.popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  return new URL(await rec.popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
}

// autopilot clicks the popup's Autopilot button for the recorded tab, brings the tab
// to the front as the real popup leaves it shown, and waits for the run to end by
// itself; it returns the popup's line about it.
async function autopilot(rec) {
  await rec.popup.click("#autopilot");
  await rec.popup.waitForSelector('#autopilot-state[data-running="true"]', { timeout: 30000 });
  await rec.page.bringToFront();
  await rec.popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 240000 });
  return rec.popup.textContent("#autopilot-state");
}

// everyPage sets the options page's "Run autopilot on every page", as a user does.
async function everyPage(on) {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector("#settings[data-loaded=true]");
  await options.setChecked("#autopilot-every-page", on);
  await options.click("#save");
  await options.waitForSelector('#saved[data-state="saved"]');
  const saved = await options.evaluate(async () => (await (await fetch("/api/settings")).json()).autopilotEveryPage);
  assert.equal(saved, on);
  await options.close();
}

before(async () => {
  const args = [];
  if (haveFFmpeg()) {
    dir = mkdtempSync(path.join(tmpdir(), "webkeep-autopilot-"));
    video = path.join(dir, "video.webm");
    makeVideo(video, { seconds: 4 });
    args.push("-video", video);
  } else if (process.env.CI === "true") {
    throw new Error("ffmpeg is not installed (scripts/setup.sh installs it for make test)");
  }
  site = await startDemoSite(args);
  base = site.url;
  browser = await launch({});
  const pages = ["/feed", "/more", ...(video ? ["/watch"] : [])].map((p) => new URL(p, base).href);

  // A reader who only opens each page.
  {
    const rec = await startRecording(browser, pages[0]);
    for (const url of pages) {
      await rec.page.goto(url);
      await rec.page.waitForTimeout(1500);
    }
    plain = { session: await stop(rec) };
    await rec.page.close();
    await rec.popup.close();
    plain.urls = await records(plain.session);
  }

  // Autopilot on each page.
  {
    // The feed is open in a tab not recorded: Autopilot records it, from its start.
    logStart = (await site.log()).length;
    const page = await browser.context.newPage();
    await page.goto(pages[0]);
    const tab = await tabId(browser.sw, pages[0]);
    const popup = await browser.context.newPage();
    await popup.goto(browser.page(`popup.html?tab=${tab}`));
    await popup.waitForSelector("#autopilot:not([disabled])");
    const rec = { page, tab, popup };
    const runs = [];
    const stayed = [];
    for (const url of pages) {
      if (rec.page.url() !== url) await rec.page.goto(url);
      runs.push(await autopilot(rec));
      stayed.push(rec.page.url());
    }
    piloted = { session: await stop(rec), runs, stayed };
    await rec.page.close();
    await rec.popup.close();
    piloted.urls = await records(piloted.session);
  }
  // The options page's "Run autopilot on every page": the load-more page, opened in a
  // recorded tab, is gone through with no button pressed.
  {
    await everyPage(true);
    const rec = await startRecording(browser, base);
    await rec.page.goto(pages[1]);
    await rec.page.bringToFront();
    // The line and whether the run goes on, read together: read apart, the line of a
    // run still going was once read just before the popup showed it ended.
    everyLine = await waitFor(() => rec.popup.evaluate(() => {
      const state = document.querySelector("#autopilot-state");
      return state?.dataset.running === "false" && state.textContent;
    }), "autopilot to run on the page by itself", 120000);
    const session = await stop(rec);
    await rec.page.close();
    await rec.popup.close();
    everyURLs = await records(session);
    await everyPage(false);
  }
  logDuring = (await site.log()).slice(logStart);

  // Stop autopilot: on the feed, in a tab already recorded (no reload), the popup's
  // Stop autopilot button ends the run at once.
  {
    const rec = await startRecording(browser, base);
    await rec.page.goto(pages[0]);
    await rec.popup.click("#autopilot");
    await rec.popup.waitForSelector('#autopilot-state[data-running="true"]', { timeout: 30000 });
    await rec.page.bringToFront();
    await rec.page.waitForSelector("#item-11", { timeout: 30000 }); // it has begun
    await rec.popup.click("#autopilot-stop");
    await rec.popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 30000 });
    stopped = { line: await rec.popup.textContent("#autopilot-state"), items: await rec.page.evaluate(() => document.querySelectorAll("#feed article").length) };
    await stop(rec);
    await rec.page.close();
    await rec.popup.close();
  }
  // The demo site is stopped; its port now only counts what reaches it.
  guard = await guardPort(site);
  site = null;
}, { timeout: 600000 });

after(async () => {
  await browser?.close();
  guard?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const feedImages = () => {
  const out = [];
  for (let n = 1; n <= feedTotal; n++) for (const w of widths) out.push(`/feed/img/${n}?w=${w}`);
  return out;
};

test("without autopilot the session lacks the feed's later items, image sizes, load-more answers and the video", () => {
  assert.ok(plain.urls.has("/feed"), [...plain.urls].join(" "));
  assert.ok(!plain.urls.has("/feed/items?page=5"), "the feed's last page archived without scrolling");
  const sizes = feedImages().filter((u) => plain.urls.has(u));
  assert.ok(sizes.length < feedTotal, `${sizes.length} image sizes archived without autopilot`);
  assert.ok(!plain.urls.has("/more/items?from=15"), "the last load-more answer archived without a click");
  assert.ok(!plain.urls.has("/feed/img/999?w=100"), "the closed details' image archived");
  if (video) assert.ok(![...plain.urls].some((u) => u.startsWith("/media/video.webm")), "the video archived without playing");
});

test("autopilot stops by itself on each page and says so in the popup", () => {
  for (const line of piloted.runs) {
    assert.match(line, /^Autopilot: done: the page stopped growing, \d+ items?/, line);
  }
  assert.match(piloted.runs[0], /done: the page stopped growing, 60 items/, piloted.runs[0]);
  assert.match(piloted.runs[1], /\b3 buttons clicked\b/, piloted.runs[1]);
});

test("with autopilot every feed item, image size, load-more answer and the video are archived", () => {
  for (let page = 1; page < feedTotal / 10; page++) assert.ok(piloted.urls.has(`/feed/items?page=${page}`), `/feed/items?page=${page} missing`);
  const missing = feedImages().filter((u) => !piloted.urls.has(u));
  assert.deepEqual(missing, [], `${missing.length} image sizes missing`);
  for (const from of [5, 10, 15]) assert.ok(piloted.urls.has(`/more/items?from=${from}`), `/more/items?from=${from} missing`);
  assert.ok(piloted.urls.has("/feed/img/999?w=100"), "the image of the details missing");
  if (video) assert.ok(piloted.urls.has("/media/video.webm"), "the video missing");
});

test("with the setting on, autopilot goes through each page by itself", () => {
  assert.match(everyLine, /^Autopilot: done: the page stopped growing, \d+ items, 3 buttons clicked/, everyLine);
  for (const from of [5, 10, 15]) assert.ok(everyURLs.has(`/more/items?from=${from}`), `/more/items?from=${from} missing`);
});

test("Stop autopilot ends the run at once", () => {
  assert.match(stopped.line, /^Autopilot: done: stopped by the user, \d+ items/, stopped.line);
  assert.ok(stopped.items < feedTotal, `the feed had ${stopped.items} items when stopped`);
});

test("autopilot never submits a form, follows the link away, or clicks delete or log out", () => {
  const bad = logDuring.filter((e) => e.method !== "GET" || e.url.startsWith("/feed/elsewhere") || e.url.startsWith("/submit/"));
  assert.deepEqual(bad.map((e) => `${e.method} ${e.url}`), []);
  assert.deepEqual(piloted.stayed.map((u) => new URL(u).pathname), ["/feed", "/more", ...(video ? ["/watch"] : [])]);
});

test("the feed replays offline to its 60th item with every image", async () => {
  const r = await openReplay(browser, piloted.session, new URL("/feed", base).href);
  try {
    // Shown, as a reader has it: a hidden tab neither sees its end come into view nor
    // loads its lazy images.
    await r.page?.bringToFront();
    await waitFor(() => r.evaluate(() => {
      scrollTo(0, document.documentElement.scrollHeight);
      return document.querySelector("#feed-end[data-done]") !== null;
    }), "the replayed feed to load to its end", 60000).catch(async (e) => {
      const state = await r.evaluate(() => ({ items: document.querySelectorAll("#feed article").length, end: document.getElementById("feed-end").textContent, hidden: document.hidden }));
      throw new Error(`${e.message}: ${JSON.stringify(state)}; bar: ${await r.bar.textContent("body")}`);
    });
    const got = await waitFor(() => r.evaluate(async () => {
      const imgs = [...document.querySelectorAll("#feed img")];
      for (const i of imgs) { i.loading = "eager"; }
      await Promise.all(imgs.map((i) => i.decode().catch(() => {})));
      const shown = imgs.filter((i) => i.complete && i.naturalWidth > 0).length;
      return shown === imgs.length && { items: document.querySelectorAll("#feed article").length, shown };
    }), "every image of the replayed feed", 60000);
    assert.equal(got.items, feedTotal);
    assert.equal(got.shown, feedTotal);
    await waitFor(async () => (await r.bar.textContent("#replay-missed-count")) === "0", "no request missed");
  } finally {
    await r.close();
  }
}, { timeout: 180000 });

test("the video replays offline through to its end", async (t) => {
  if (!video) return t.skip("ffmpeg is not installed");
  const r = await openReplay(browser, piloted.session, new URL("/watch", base).href);
  try {
    const played = await r.evaluate(() => new Promise((resolve) => {
      const v = document.getElementById("video");
      v.playbackRate = 4;
      v.onended = () => resolve({ ended: true, duration: v.duration });
      v.onerror = () => resolve({ error: v.error && v.error.message });
      v.play().catch((e) => resolve({ error: String(e) }));
      setTimeout(() => resolve({ late: v.currentTime }), 4500);
    }));
    assert.equal(played.ended, true, JSON.stringify(played));
    assert.ok(Math.abs(played.duration - 4) < 0.5, JSON.stringify(played));
  } finally {
    await r.close();
  }
}, { timeout: 120000 });

test("nothing reached the demo site's port during replay", () => {
  assert.equal(guard.hits(), 0);
});
