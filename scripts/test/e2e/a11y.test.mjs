// Accessibility, checked as assistive technology reads the pages: axe-core (from npm)
// run in the popup, the archive page (on a recorded session, its records and a
// record's detail open) and the options page of the real extension in Chromium. No
// finding of serious or critical impact is allowed; each one found is listed with the
// elements it concerns. And as a person without a mouse, or who reads large, uses them:
// the keyboard's Tab reaches every control of the popup, archive and options pages, its
// focus shown, and at 200% zoom (640 CSS pixels of a 1280-pixel window) neither scrolls
// sideways (scripts/test/e2e-firefox/a11y.test.mjs checks the same in Firefox).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { findings, keyboard, sideways } from "../../lib/a11y.mjs";
import { launch, startDemoSite, startRecording } from "../../lib/browser.mjs";

let site, browser, sessionID, tab;

before(async () => {
  site = await startDemoSite();
  browser = await launch({});
  const rec = await startRecording(browser, site.url);
  tab = rec.tab;
  await rec.page.goto(new URL("/forms", site.url).href);
  await rec.popup.bringToFront();
  await rec.popup.click("#stop");
  await rec.popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  sessionID = new URL(await rec.popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  await rec.page.close();
  await rec.popup.close();
}, { timeout: 300000 });

after(async () => {
  await browser?.close();
  site?.stop();
});

/** Checks page with the keyboard and at 200% zoom. */
async function byKeyboardAndZoomed(page, what) {
  const k = await keyboard(page);
  assert.ok(k.count > 3, `${what}: ${k.count} controls`);
  assert.deepEqual(k.missed, [], `${what}: controls Tab never reached`);
  assert.deepEqual(k.unshown, [], `${what}: controls focused with no focus shown`);
  await page.setViewportSize({ width: 640, height: 430 });
  assert.equal(await sideways(page), 0, `${what}: scrolls sideways at 200%`);
  await page.setViewportSize({ width: 1280, height: 860 });
}

test("the popup: no serious or critical finding, every control by keyboard", async () => {
  const popup = await browser.context.newPage();
  await popup.setViewportSize({ width: 340, height: 600 });
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  await popup.waitForSelector("#state[data-recording]");
  assert.deepEqual(await findings(popup), []);
  const k = await keyboard(popup);
  assert.ok(k.count > 3, `${k.count} controls`);
  assert.deepEqual(k.missed, [], "controls Tab never reached");
  assert.deepEqual(k.unshown, [], "controls focused with no focus shown");
  await popup.close();
});

test("the archive page, a session and a record's detail: no serious or critical finding, every control by keyboard, readable at 200%", async () => {
  const archive = await browser.context.newPage();
  await archive.goto(browser.page(`archive.html#${sessionID}`));
  await archive.waitForSelector("body[data-ready]");
  await archive.waitForSelector("#pages li", { timeout: 60000 });
  assert.deepEqual(await findings(archive), []); // the session's pages
  await byKeyboardAndZoomed(archive, "the session's pages");
  await archive.click("#show-records");
  await archive.waitForSelector("#records tr", { timeout: 60000 });
  await archive.click("#records tr");
  assert.deepEqual(await findings(archive), []);
  await byKeyboardAndZoomed(archive, "the records and a record's detail");
  await archive.close();
});

test("the options page: no serious or critical finding, every control by keyboard, readable at 200%", async () => {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector("#key-fingerprint[data-fingerprint]", { timeout: 30000 });
  assert.deepEqual(await findings(options), []);
  await byKeyboardAndZoomed(options, "options");
  await options.close();
});
