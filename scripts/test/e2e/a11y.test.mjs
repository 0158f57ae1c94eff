// Accessibility, checked as assistive technology reads the pages: axe-core (from npm)
// run in the popup, the archive page (on a recorded session, its records and a
// record's detail open) and the options page of the real extension in Chromium. No
// finding of serious or critical impact is allowed; each one found is listed with the
// elements it concerns.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, root, startDemoSite, startRecording } from "../../lib/browser.mjs";

const axe = path.join(root, "node_modules", "axe-core", "axe.min.js");
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

/** Runs axe-core in page and returns its serious and critical violations, in words. */
async function findings(page) {
  // The extension's pages allow no inline script (their CSP): axe-core is evaluated
  // through DevTools, as a console would, which the CSP does not govern.
  await page.evaluate(readFileSync(axe, "utf8") + "\n;0");
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations);
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact}: ${v.id}: ${v.help} (${v.nodes.length}): ${v.nodes.slice(0, 5).map((n) => n.target.join(" ")).join(", ")}`);
}

test("the popup has no serious or critical accessibility finding", async () => {
  const popup = await browser.context.newPage();
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  await popup.waitForSelector("#state[data-recording]");
  assert.deepEqual(await findings(popup), []);
  await popup.close();
});

test("the archive page, a session and a record's detail: no serious or critical finding", async () => {
  const archive = await browser.context.newPage();
  await archive.goto(browser.page(`archive.html#${sessionID}`));
  await archive.waitForSelector("body[data-ready]");
  await archive.waitForSelector("#pages li", { timeout: 60000 });
  assert.deepEqual(await findings(archive), []); // the session's pages
  await archive.click("#show-records");
  await archive.waitForSelector("#records tr", { timeout: 60000 });
  await archive.click("#records tr");
  assert.deepEqual(await findings(archive), []);
  await archive.close();
});

test("the options page has no serious or critical accessibility finding", async () => {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector("#key-fingerprint[data-fingerprint]", { timeout: 30000 });
  assert.deepEqual(await findings(options), []);
  await options.close();
});
