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
import { assertReadable } from "../../lib/a11y.mjs";
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

/** Asserts that the Playwright page reads as a person reads it (assertReadable). */
const readable = (page, what, zoomed) => assertReadable(page, what, (width, height) => page.setViewportSize({ width, height }), zoomed);

test("the popup: no serious or critical finding, every control by keyboard, readable at 200%", async () => {
  const popup = await browser.context.newPage();
  await popup.setViewportSize({ width: 340, height: 600 });
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  await popup.waitForSelector("#state[data-recording]");
  // A popup grows with its content (to 800 pixels): at 200% it is 680 pixels wide,
  // its content laid out in its own 340 CSS pixels, which nothing overflows.
  await readable(popup, "the popup", { width: 340, height: 600 });
  await popup.close();
});

test("the archive page, a session and a record's detail: no serious or critical finding, every control by keyboard, readable at 200%", async () => {
  const archive = await browser.context.newPage();
  await archive.goto(browser.page(`archive.html#${sessionID}`));
  await archive.waitForSelector("body[data-ready]");
  await archive.waitForSelector("#pages li", { timeout: 60000 });
  await readable(archive, "the session's pages");
  await archive.click("#show-records");
  await archive.waitForSelector("#records tr", { timeout: 60000 });
  await archive.click("#records tr");
  await readable(archive, "the records and a record's detail");
  await archive.close();
});

test("the options page: no serious or critical finding, every control by keyboard, readable at 200%", async () => {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector("#key-fingerprint[data-fingerprint]", { timeout: 30000 });
  await readable(options, "options");
  await options.close();
});
