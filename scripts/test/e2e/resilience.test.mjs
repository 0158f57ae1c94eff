// End to end: recording survives what real browsing does to it. The service worker is
// stopped in the middle of a session, the tab fails to load a page, navigates to another
// site, and is closed; nothing recorded is lost and the user sees what happened. Then
// the browser itself is killed while recording, and launched again on its profile.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { clickAndWait, launch, root, startDemoSite, startRecording, tabId, waitFor } from "../../lib/browser.mjs";
import { readWarc09 } from "../../lib/warc09.mjs";
import { readZip } from "../../lib/zip.mjs";

let site, other, browser, dir, records, report, popupText, plainProblems, popupScroll, restarted, firstCoreFrom, slowImage, underway;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-e2e-"));
  site = await startDemoSite(["-big", "1048576"]);
  slowImage = new URL("/slow.png?ms=20000", site.url).href;
  other = await startDemoSite(["-big", "1024"]);
  browser = await launch({ downloads: dir });
  const { page, popup } = await startRecording(browser, site.url);

  await page.goto(new URL("/gallery", site.url).href);
  // What the first test asserts was kept must have been recorded before the stop: a
  // count of records reached that early (8) was once reached before noise.bin's
  // answer, still on its way through the worker's queue as it was stopped.
  const recorded = async (urls) => {
    const { session } = await popup.evaluate(() => fetch("/api/status").then((r) => r.json()));
    const list = session ? await popup.evaluate((id) => fetch(`/api/sessions/${id}/records`).then((r) => r.json()), session.id) : [];
    return urls.every((u) => list.some((l) => l.fields.url === u));
  };
  await waitFor(() => recorded(["/gallery", "/static/noise.bin"].map((p) => new URL(p, site.url).href)), "the gallery and its noise.bin to be recorded");

  // Chrome stops idle service workers; a stopped worker must lose nothing it had
  // recorded, and say what it had under way: an image still coming as it stops.
  await page.evaluate((src) => { const img = new Image(); img.src = src; document.body.append(img); }, slowImage);
  underway = await waitFor(() => browser.sw.evaluate(async (url) => {
    const { underway } = await chrome.storage.session.get("underway");
    return Boolean(underway && JSON.parse(underway).urls.includes(url)) && JSON.parse(underway);
  }, slowImage), "the worker to keep that the slow image is under way");
  await browser.sw.evaluate(() => { self.beforeStop = true; });
  firstCoreFrom = await browser.sw.evaluate(() => self.webkeepCoreFrom);
  const cdp = await browser.context.newCDPSession(popup);
  await cdp.send("ServiceWorker.enable");
  await cdp.send("ServiceWorker.stopAllWorkers");

  await page.goto(new URL("/forms", site.url).href);
  await clickAndWait(page, "#post-json");
  [, restarted] = await waitFor(() => running(() => typeof self.webkeepCore === "object" && !self.beforeStop && self.webkeepCoreFrom), "a new service worker");
  await page.goto("http://127.0.0.1:9/unreachable").catch(() => {}); // fails to load
  // The browser then shows its error page; going on before it has is an interrupted
  // navigation, so retry until the next site has loaded.
  await waitFor(() => page.goto(new URL("/gallery", other.url).href).then(() => true, () => false), "another site to load");
  await page.close();

  await popup.reload();
  await popup.waitForSelector('#state[data-recording="false"]', { timeout: 30000 });
  await popup.waitForSelector("#notes li", { timeout: 30000 });
  popupText = await popup.textContent("body");
  plainProblems = await popup.$$eval("#notes li", (lis) => lis.map((li) => li.textContent));
  popupScroll = await popup.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth }));
  const link = await popup.waitForSelector("#download-bundle");
  const [download] = await Promise.all([popup.waitForEvent("download"), link.click()]);
  const bundle = path.join(dir, download.suggestedFilename());
  await download.saveAs(bundle);
  const files = readZip(bundle);
  records = readWarc09(files.get([...files.keys()].find((n) => n.endsWith(".warc.gz"))));
  report = JSON.parse(files.get("report.json"));
}, { timeout: 240000 });

after(async () => {
  await browser?.close();
  site?.stop();
  other?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const has = (type, url) => records.some((r) => r.type === type && r.uri === url);

// running returns the first of the extension's service workers (one stopped may still
// be listed) for which f, evaluated in it, is truthy, with what f returned; false if none.
async function running(f) {
  for (const w of browser.context.serviceWorkers().filter((w) => w.url().startsWith("chrome-extension://"))) {
    const v = await w.evaluate(f).catch(() => false);
    if (v) return [w, v];
  }
  return false;
}

test("what was recorded before the service worker stopped is kept", () => {
  assert.ok(has("response", new URL("/gallery", site.url).href));
  assert.ok(has("response", new URL("/static/noise.bin", site.url).href));
});

test("a request under way as the service worker stopped is said to be lost, in its own record and in plain words", () => {
  assert.equal(underway.session, report.session.id, "kept under the recording's session");
  const lost = records.filter((r) => r.type === "metadata" && r.uri === slowImage);
  assert.equal(lost.length, 1, "one metadata record on the slow image");
  assert.match(lost[0].block.toString(), /^under way when webkeep's service worker stopped \(the browser stopped it, or it crashed\): not recorded/);
  assert.ok(!has("response", slowImage), "its response is not archived");
  const note = report.session.notes.find((n) => n.startsWith("webkeep's service worker stopped while recording"));
  assert.ok(note?.includes(slowImage), report.session.notes.join("\n"));
  assert.ok(plainProblems.some((l) => /under way when the browser stopped webkeep's service worker, and (is|are) not recorded/.test(l)), plainProblems.join("\n"));
  assert.ok(popupText.includes(note), "the popup shows the note");
});

test("recording goes on after the service worker restarts", () => {
  assert.ok(restarted, "the service worker was really stopped and started again");
  // The first start read the core from the extension's files and kept it; the
  // restarted worker compiled the one kept.
  assert.equal(firstCoreFrom, "files");
  assert.equal(restarted, "cache");
  assert.ok(has("response", new URL("/forms", site.url).href), "the page loaded after the restart");
  assert.ok(has("request", new URL("/api/json", site.url).href), "the POST made after the restart");
});

test("an offscreen document holds the compiled core between the worker's starts, one for every start", async () => {
  const [sw] = await waitFor(() => running(() => typeof self.webkeepCore === "object"), "the running service worker");
  // Opened by the first start once it had kept the core, left open by the restarted
  // one; its worker says which core it compiled (keeper.js).
  const kept = await waitFor(() => sw.evaluate(() => chrome.runtime.sendMessage({ keepCore: true })).then((r) => r?.kept, () => null), "the keeper's worker to compile the kept core", 30000);
  const [cached] = await sw.evaluate(async () => (await (await caches.open("webkeep-core")).keys()).map((r) => r.url));
  assert.match(kept, /^https:\/\/webkeep\.invalid\/core-[0-9a-f]{16}\.wasm$/);
  assert.equal(kept, cached, "the keeper holds the core the worker compiles");
  const keepers = await sw.evaluate(async () => (await chrome.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"] })).map((c) => new URL(c.documentUrl).pathname));
  assert.deepEqual(keepers, ["/keeper.html"]);
});

test("unticking “Keep the compiled core between starts” closes the keeper, no start opens it again, and ticking it opens it", async () => {
  const keepers = async () => (await waitFor(() => running(async () => typeof self.webkeepCore === "object" &&
    (await chrome.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"] })).map((c) => new URL(c.documentUrl).pathname)), "the running service worker"))[1];
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector('#settings[data-loaded="true"]');
  assert.ok(await options.isVisible("#keep-compiled-core"), "Chromium shows the choice");
  assert.ok(await options.isChecked("#keep-compiled-core"), "kept by default");
  assert.deepEqual(await keepers(), ["/keeper.html"]);
  const save = async (keep) => {
    await options.setChecked("#keep-compiled-core", keep);
    await options.click("#save");
    await options.waitForSelector('#saved[data-state="saved"]');
  };
  await save(false);
  await waitFor(async () => (await keepers()).length === 0, "the keeper to close as the setting is saved", 30000);
  // A start after that reads the setting and opens none (self.webkeepKeeper: its
  // keepCompiled, settled).
  const cdp = await browser.context.newCDPSession(options);
  await cdp.send("ServiceWorker.enable");
  await cdp.send("ServiceWorker.stopAllWorkers");
  await options.reload();
  await options.waitForSelector('#settings[data-loaded="true"]');
  assert.equal(await options.isChecked("#keep-compiled-core"), false, "the choice is kept");
  await waitFor(() => running(() => typeof self.webkeepCore === "object" && self.webkeepKeeper.then(() => true)), "a new worker's keepCompiled to settle", 30000);
  assert.deepEqual(await keepers(), []);
  await save(true);
  await waitFor(async () => (await keepers()).length === 1, "the keeper to open as the setting is saved", 30000);
  assert.deepEqual(await keepers(), ["/keeper.html"]);
  await cdp.detach();
  await options.close();
}, { timeout: 120000 });

test("a kept core that does not compile is passed by: the worker starts from the extension's files and keeps it anew", async () => {
  const worker = async () => (await running(() => typeof self.webkeepCore === "object" && !self.broken && { from: self.webkeepCoreFrom }))[1];
  const w = browser.context.serviceWorkers().find((w) => w.url().startsWith("chrome-extension://"));
  const kept = await w.evaluate(async () => {
    self.broken = true;
    const cache = await caches.open("webkeep-core");
    const [key] = await cache.keys();
    await cache.put(key, new Response("not wasm", { headers: { "content-type": "application/wasm" } }));
    return key.url;
  });
  assert.match(kept, /^https:\/\/webkeep\.invalid\/core-[0-9a-f]{16}\.wasm$/);
  const page = await browser.context.newPage();
  await page.goto(browser.page("popup.html"));
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("ServiceWorker.enable");
  await cdp.send("ServiceWorker.stopAllWorkers");
  await page.evaluate(() => fetch("/api/status").then((r) => r.json())); // wakes it
  const state = await waitFor(worker, "a new service worker", 30000);
  assert.deepEqual(state, { from: "files" });
  // The core is kept again once its bytes are all written (a worker stopped before
  // that keeps nothing, and the next start reads the files again); then the next start
  // compiles the kept core.
  const keptSize = async () => {
    for (const w of browser.context.serviceWorkers().filter((w) => w.url().startsWith("chrome-extension://"))) {
      const size = await w.evaluate(async (url) => {
        const r = await (await caches.open("webkeep-core")).match(url);
        return r ? (await r.arrayBuffer()).byteLength : 0;
      }, kept).catch(() => 0);
      if (size) return size;
    }
    return 0;
  };
  await waitFor(async () => (await keptSize()) > 1e6, "the core kept again", 30000);
  await cdp.send("ServiceWorker.stopAllWorkers");
  await page.evaluate(() => fetch("/api/status").then((r) => r.json()));
  await waitFor(async () => (await worker())?.from === "cache", "a worker started from the core kept again", 30000);
  await page.close();
}, { timeout: 120000 });

test("a page that fails to load is recorded as a failure, and recording goes on", () => {
  const failed = records.find((r) => r.type === "metadata" && r.uri === "http://127.0.0.1:9/unreachable");
  assert.ok(failed, "a metadata record for the failed load");
  assert.match(failed.block.toString(), /no response: the request failed \(net::ERR_/);
  assert.ok(has("response", new URL("/gallery", other.url).href), "the next site was recorded");
});

test("closing the tab ends recording, keeps the session, and says so", () => {
  assert.ok(report.session.failures >= 1);
  assert.ok(report.session.notes.some((n) => /stopped being recorded/.test(n)), report.session.notes.join("\n"));
  assert.match(popupText, /stopped being recorded/);
  assert.match(popupText, /Not recording/);
});

test("the popup says what was not kept whole in plain words, and fits its width", () => {
  assert.ok(plainProblems.length > 0, "no plain line");
  for (const line of plainProblems) {
    assert.doesNotMatch(line, /\b(Network|Fetch|Page|IO|Runtime)\.[a-z]+[A-Za-z]*\b|net::ERR_|No resource with given identifier/, line);
    assert.match(line, /^\d+ /, line);
  }
  assert.ok(popupScroll.scroll <= popupScroll.width, `the popup scrolls sideways: ${JSON.stringify(popupScroll)}`);
});

// The browser process of a profile: the one Chromium process launched with its
// user-data-dir that is not a child (renderer, GPU, utility: those have --type=).
function browserProcess(profile) {
  const lines = execFileSync("ps", ["-eo", "pid=,args="]).toString().split("\n");
  const pids = lines
    .filter((l) => l.includes(`--user-data-dir=${profile}`) && !l.includes("--type="))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
  assert.equal(pids.length, 1, `one browser process for ${profile}: ${pids}`);
  return pids[0];
}

describe("the browser is killed while recording", () => {
  let site, browser, dir, profile, before_, status, popupState, startVisible, session, warc, cdxj;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "webkeep-e2e-"));
    profile = mkdtempSync(path.join(tmpdir(), "webkeep-profile-"));
    site = await startDemoSite(["-big", "1024"]);
    browser = await launch({ downloads: dir, profile });
    const { page, popup } = await startRecording(browser, site.url);
    await page.goto(new URL("/gallery", site.url).href);
    await waitFor(async () => Number(await popup.textContent('[data-stat="Records"]')) >= 8, "the gallery to be recorded");
    before_ = await popup.evaluate(() => fetch("/api/status").then((r) => r.json()));

    // SIGKILL, as a crash or the OOM killer would: nothing is closed gracefully.
    const pid = browserProcess(profile);
    process.kill(pid, "SIGKILL");
    await waitFor(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, "the browser to die");
    await browser.context.close().catch(() => {}); // its pipe is gone already

    browser = await launch({ downloads: dir, profile });
    const p = await browser.context.newPage();
    await p.goto(browser.page("popup.html"));
    status = await p.evaluate(() => fetch("/api/status").then((r) => r.json()));
    session = await p.evaluate((id) => fetch("/api/sessions/" + id).then((r) => r.json()), before_.session.id);

    // A new tab's popup.
    const page2 = await browser.context.newPage();
    await page2.goto(new URL("/forms", site.url).href);
    const tab = await tabId(browser.sw, new URL("/forms", site.url).href);
    const popup2 = await browser.context.newPage();
    await popup2.goto(browser.page(`popup.html?tab=${tab}`));
    await popup2.waitForSelector("#state[data-recording]");
    await popup2.waitForSelector("#download-warc");
    popupState = await popup2.textContent("#state");
    startVisible = await popup2.isVisible("#start");
    const save = async (id) => {
      const [download] = await Promise.all([popup2.waitForEvent("download"), popup2.click("#" + id)]);
      const file = path.join(dir, download.suggestedFilename());
      await download.saveAs(file);
      return file;
    };
    warc = await save("download-warc");
    cdxj = await save("download-cdxj");
  }, { timeout: 240000 });

  after(async () => {
    await browser?.close();
    site?.stop();
    for (const d of [dir, profile]) if (d) rmSync(d, { recursive: true, force: true });
  });

  test("was recording before the browser was killed", () => {
    assert.equal(before_.recording, true);
    assert.equal(before_.tabs.length, 1);
    assert.ok(before_.session.records >= 8, JSON.stringify(before_.session));
  });

  test("after the relaunch, nothing claims to be recording", () => {
    assert.deepEqual(status, { recording: false, tabs: [] });
  });

  test("a new tab's popup offers Start", () => {
    assert.equal(popupState, "Not recording");
    assert.ok(startVisible, "the Start button is shown");
  });

  test("the session was stopped with a note saying why, its records kept", () => {
    assert.ok(session.notes.some((n) => /the browser closed while recording; 1 tab was gone when webkeep restarted/.test(n)), session.notes.join("\n"));
    assert.ok(session.records >= before_.session.records, `${session.records} records, ${before_.session.records} before the kill`);
  });

  test("its WARC and CDXJ download and verify", () => {
    execFileSync(path.join(root, "bin/webkeep"), ["warc", "verify", warc]); // throws on exit != 0
    const records = readWarc09(readFileSync(warc));
    assert.ok(records.some((r) => r.type === "response" && r.uri === new URL("/gallery", site.url).href), "the gallery page");
    const indexed = execFileSync(path.join(root, "bin/webkeep"), ["cdx", "index", warc]).toString();
    assert.equal(readFileSync(cdxj, "utf8"), indexed, "the CDXJ is what the indexer makes of the WARC");
  });
});
