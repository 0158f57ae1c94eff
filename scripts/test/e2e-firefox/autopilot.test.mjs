// Autopilot in headless Firefox ESR through webkeep's Firefox build: the popup's
// Autopilot button on the demo site's feed (10 more items each time its end shows, 60 in
// all, each image offering three sizes by srcset), in a tab not recorded yet. The
// content script runs the page script (autopilot.js) for the core. Every item and image
// size is archived, the run stops by itself, and it never submits the feed's form,
// follows its link away, or clicks its delete or log-out buttons.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startDemoSite } from "../../lib/browser.mjs";
import { api, firefoxTabId, launchFirefox, openExtensionPage } from "../../lib/firefox.mjs";

const feedTotal = 60;
const widths = [200, 400, 800];
let site, firefox, line, urls, during, stayed;

before(async () => {
  site = await startDemoSite();
  firefox = await launchFirefox();
  const feed = new URL("/feed", site.url).href;
  const tab = await firefox.browser.newPage();
  await tab.goto(feed);
  const tabId = await firefoxTabId(firefox.control, feed);
  const popup = firefox.control;
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));
  const before = (await site.log()).length;
  await popup.click("#autopilot");
  await popup.waitForSelector('#autopilot-state[data-running="true"]', { timeout: 30000 });
  await tab.bringToFront();
  await popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 240000 });
  line = await popup.$eval("#autopilot-state", (e) => e.textContent);
  stayed = tab.url();
  const stopped = JSON.parse((await api(popup, "POST", "/api/record/stop")).bytes);
  const list = JSON.parse((await api(popup, "GET", `/api/sessions/${stopped.id}/records`)).bytes);
  urls = new Set(list.filter((r) => /^\d{3}$/.test(r.fields.status ?? "") || r.fields.mime === "warc/revisit")
    .map((r) => { const u = new URL(r.fields.url); return u.pathname + u.search; }));
  during = (await site.log()).slice(before);
}, { timeout: 400000 });

after(async () => {
  await firefox?.close();
  site?.stop();
});

test("autopilot scrolls the feed to its end and stops by itself", () => {
  assert.match(line, /^Autopilot: done: the page stopped growing, 60 items/, line);
});

test("every feed item and image size is archived", () => {
  for (let page = 1; page < feedTotal / 10; page++) assert.ok(urls.has(`/feed/items?page=${page}`), `/feed/items?page=${page} missing`);
  const missing = [];
  for (let n = 1; n <= feedTotal; n++) for (const w of widths) if (!urls.has(`/feed/img/${n}?w=${w}`)) missing.push(`/feed/img/${n}?w=${w}`);
  assert.deepEqual(missing, [], `${missing.length} image sizes missing`);
});

test("autopilot never submits the form, follows the link away, or clicks delete or log out", () => {
  const bad = during.filter((e) => e.method !== "GET" || e.url.startsWith("/feed/elsewhere") || e.url.startsWith("/submit/"));
  assert.deepEqual(bad.map((e) => `${e.method} ${e.url}`), []);
  assert.equal(new URL(stayed).pathname, "/feed");
});
