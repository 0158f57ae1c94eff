// End to end, in headless Firefox ESR through webkeep's Firefox build: two pages of the
// demo site are recorded, the recording stopped while the tab shows the second, so each
// has its picture (taken by browser.tabs.captureTab a second after its load, and again
// as recording stops), served by the thumbnail route and shown on its card in the
// archive page. Then the
// extension's pages as a person reads them: axe-core finds nothing serious or critical
// in the popup, the archive page (its pages, its records and a record's detail) and the
// options page; the keyboard's Tab reaches every control of each, its focus shown;
// and at 200% zoom (half the width of a 1280-pixel window) no page scrolls sideways
// (the popup, which grows with its content, within its own width).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertReadable } from "../../lib/a11y.mjs";
import { startDemoSite, waitFor } from "../../lib/browser.mjs";
import { api, firefoxTabId, launchFirefox, openExtensionPage } from "../../lib/firefox.mjs";

let site, firefox, sessionID, tabId;

before(async () => {
  site = await startDemoSite();
  firefox = await launchFirefox();
  const tab = await firefox.browser.newPage();
  await tab.goto(site.url);
  tabId = await firefoxTabId(firefox.control, site.url);
  const popup = firefox.control;
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  // The first page, loaded while recording: its picture is taken a second after its
  // load, before the tab goes on.
  await tab.goto(new URL("/forms", site.url).href);
  await waitFor(async () => {
    const id = await popup.evaluate(async () => (await (await fetch("/api/status")).json()).session?.id);
    const pages = id ? JSON.parse((await api(popup, "GET", `/api/sessions/${id}/pages`)).bytes) : [];
    const forms = (Array.isArray(pages) ? pages : pages.pages || []).find((p) => new URL(p.url).pathname === "/forms");
    return forms && (await api(popup, "GET", `/api/sessions/${id}/pages/${forms.id}/thumbnail`)).status === 200;
  }, "the picture of /forms, after its load", 60000);
  await tab.goto(new URL("/gallery", site.url).href);
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  sessionID = new URL(await popup.$eval("#to-archive", (a) => a.getAttribute("href")), "http://x/").hash.slice(1);
  assert.ok(sessionID, "the popup links to the session in the archive");
  await tab.close();
}, { timeout: 300000 });

after(async () => {
  await firefox?.close();
  site?.stop();
});

test("each page has its picture, on its card too: after its load, and as recording stopped", async () => {
  const pages = JSON.parse((await api(firefox.control, "GET", `/api/sessions/${sessionID}/pages`)).bytes);
  const list = Array.isArray(pages) ? pages : pages.pages;
  const gallery = list.find((p) => new URL(p.url).pathname === "/gallery");
  assert.ok(gallery, `no /gallery among ${JSON.stringify(list).slice(0, 300)}`);
  const picture = await api(firefox.control, "GET", `/api/sessions/${sessionID}/pages/${gallery.id}/thumbnail`);
  assert.equal(picture.status, 200, picture.bytes.toString());
  assert.deepEqual([...picture.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], "a JPEG");

  const archive = await firefox.browser.newPage();
  await archive.setViewport({ width: 1280, height: 860 });
  await openExtensionPage(archive, firefox.page(`archive.html#${sessionID}`));
  const card = '#pages li[data-url$="/gallery"] img.thumbnail';
  await waitFor(() => archive.$eval(card, (img) => img.complete && img.naturalWidth).catch(() => 0), "the card's picture");
  assert.equal(await archive.$eval(card, (img) => img.naturalWidth), 320);
  const first = '#pages li[data-url$="/forms"] img.thumbnail';
  await waitFor(() => archive.$eval(first, (img) => img.complete && img.naturalWidth).catch(() => 0), "the first page's picture");
  assert.equal(await archive.$eval(first, (img) => img.naturalWidth), 320);
  await archive.close();
});

/** Asserts that the puppeteer page reads as a person reads it (assertReadable). */
const readable = (page, what, zoomed) => assertReadable(page, what, (width, height) => page.setViewport({ width, height }), zoomed);

test("the popup: no serious or critical finding, every control by keyboard, readable at 200%", async () => {
  const popup = await firefox.browser.newPage();
  await popup.setViewport({ width: 340, height: 600 });
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));
  await popup.waitForSelector("#state[data-recording]");
  // A popup grows with its content (to 800 pixels): at 200% it is 680 pixels wide,
  // its content laid out in its own 340 CSS pixels, which nothing overflows.
  await readable(popup, "the popup", { width: 340, height: 600 });
  await popup.close();
});

test("the archive page, a session's pages: as readable", async () => {
  const archive = await firefox.browser.newPage();
  await archive.setViewport({ width: 1280, height: 860 });
  await openExtensionPage(archive, firefox.page(`archive.html#${sessionID}`));
  await archive.waitForSelector("#pages li", { timeout: 60000 });
  await readable(archive, "the session's pages");
  await archive.close();
});

test("the archive page's records and a record's detail: as readable", async () => {
  const archive = await firefox.browser.newPage();
  await archive.setViewport({ width: 1280, height: 860 });
  await openExtensionPage(archive, firefox.page(`archive.html#${sessionID}`));
  await archive.waitForSelector("#pages li", { timeout: 60000 });
  // The records and a record's detail, opened by keyboard.
  await archive.focus("#show-records");
  await archive.keyboard.press("Enter");
  await archive.waitForSelector("#records tr", { timeout: 60000 });
  await archive.focus("#records tr");
  await archive.keyboard.press("Enter");
  await archive.waitForSelector("#record-detail:not([hidden])");
  await readable(archive, "the records and a record's detail");
  await archive.close();
});

test("the options page: as readable", async () => {
  const options = await firefox.browser.newPage();
  await options.setViewport({ width: 1280, height: 860 });
  await openExtensionPage(options, firefox.page("options.html"));
  await options.waitForSelector("#key-fingerprint[data-fingerprint]", { timeout: 30000 });
  await readable(options, "options");
  await options.close();
});
