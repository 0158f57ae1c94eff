// End to end: recording survives what real browsing does to it. The service worker is
// stopped in the middle of a session, the tab fails to load a page, navigates to another
// site, and is closed; nothing recorded is lost and the user sees what happened.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { clickAndWait, launch, startDemoSite, startRecording, waitFor } from "../lib/browser.mjs";
import { readWarc09 } from "../lib/warc09.mjs";
import { readZip } from "../lib/zip.mjs";

let site, other, browser, dir, records, report, popupText, restarted;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-e2e-"));
  site = await startDemoSite(["-big", "1048576"]);
  other = await startDemoSite(["-big", "1024"]);
  browser = await launch({ downloads: dir });
  const { page, popup } = await startRecording(browser, site.url);

  await page.goto(new URL("/gallery", site.url).href);
  await waitFor(async () => Number(await popup.textContent('[data-stat="Records"]')) >= 8, "the gallery to be recorded");

  // Chrome stops idle service workers; a stopped worker must lose nothing.
  await browser.sw.evaluate(() => { self.beforeStop = true; });
  const cdp = await browser.context.newCDPSession(popup);
  await cdp.send("ServiceWorker.enable");
  await cdp.send("ServiceWorker.stopAllWorkers");

  await page.goto(new URL("/forms", site.url).href);
  await clickAndWait(page, "#post-json");
  restarted = await waitFor(async () => {
    const workers = browser.context.serviceWorkers().filter((w) => w.url().startsWith("chrome-extension://"));
    for (const w of workers) {
      if (await w.evaluate(() => typeof self.webkeepCore === "object" && !self.beforeStop).catch(() => false)) return true;
    }
    return false;
  }, "a new service worker");
  await page.goto("http://127.0.0.1:9/unreachable").catch(() => {}); // fails to load
  // The browser then shows its error page; going on before it has is an interrupted
  // navigation, so retry until the next site has loaded.
  await waitFor(() => page.goto(new URL("/gallery", other.url).href).then(() => true, () => false), "another site to load");
  await page.close();

  await popup.reload();
  await popup.waitForSelector('#state[data-recording="false"]', { timeout: 30000 });
  await popup.waitForSelector("#notes li", { timeout: 30000 });
  popupText = await popup.textContent("body");
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

test("what was recorded before the service worker stopped is kept", () => {
  assert.ok(has("response", new URL("/gallery", site.url).href));
  assert.ok(has("response", new URL("/static/noise.bin", site.url).href));
});

test("recording goes on after the service worker restarts", () => {
  assert.ok(restarted, "the service worker was really stopped and started again");
  assert.ok(has("response", new URL("/forms", site.url).href), "the page loaded after the restart");
  assert.ok(has("request", new URL("/api/json", site.url).href), "the POST made after the restart");
});

test("a page that fails to load is recorded as a failure, and recording goes on", () => {
  const failed = records.find((r) => r.type === "metadata" && r.uri === "http://127.0.0.1:9/unreachable");
  assert.ok(failed, "a metadata record for the failed load");
  assert.match(failed.block.toString(), /no response: net::ERR_/);
  assert.ok(has("response", new URL("/gallery", other.url).href), "the next site was recorded");
});

test("closing the tab ends recording, keeps the session, and says so", () => {
  assert.ok(report.session.failures >= 1);
  assert.ok(report.session.notes.some((n) => /stopped being recorded/.test(n)), report.session.notes.join("\n"));
  assert.match(popupText, /stopped being recorded/);
  assert.match(popupText, /Not recording/);
});
