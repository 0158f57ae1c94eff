// Checks of the extension's pages as a person reads them, for the end-to-end tests in
// Chromium (Playwright) and Firefox (puppeteer): axe-core's findings, the keyboard's
// Tab through a page, and whether a page scrolls sideways; assertReadable asserts all
// three.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { root } from "./browser.mjs";

const axe = readFileSync(path.join(root, "node_modules", "axe-core", "axe.min.js"), "utf8");

/** Runs axe-core in page and returns its serious and critical violations, in words. */
export async function findings(page) {
  // The extension's pages allow no inline script (their CSP): axe-core is evaluated
  // as a console would, which the CSP does not govern.
  await page.evaluate(axe + "\n;0");
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) })));
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact}: ${v.id}: ${v.help} (${v.nodes.length}): ${v.nodes.slice(0, 5).join(", ")}`);
}

/**
 * Presses Tab through page from its start to past its end and returns the controls it
 * never reached and those it reached with no focus shown (no outline, no shadow), each
 * by a selector, and how many controls page shows (count).
 */
export async function keyboard(page) {
  await page.bringToFront(); // a page shown in a window out of focus shows no focus
  const controls = await page.evaluate(() => {
    const all = [...document.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex]")]
      .filter((e) => !e.disabled && e.tabIndex >= 0 && e.checkVisibility({ visibilityProperty: true }) &&
        !(e.type === "radio" && !e.checked && document.querySelector(`input[type=radio][name="${e.name}"]:checked`)));
    all.forEach((e, i) => { e.dataset.control = String(i); });
    // Tab goes on from the page's start: from an element there out of the tab order.
    const start = Object.assign(document.createElement("span"), { tabIndex: -1, id: "a11y-start" });
    document.body.prepend(start);
    start.focus();
    window.scrollTo(0, 0);
    return all.map((e) => e.id ? "#" + e.id : `${e.localName}${e.className ? "." + String(e.className).split(" ")[0] : ""}[${e.textContent.trim().slice(0, 20) || e.name || ""}]`);
  });
  const reached = new Set();
  const unshown = new Set();
  for (let i = 0; i < controls.length * 2 + 10 && reached.size < controls.length; i++) {
    await page.keyboard.press("Tab");
    const at = await page.evaluate(() => {
      const e = document.activeElement;
      if (!document.hasFocus()) return "left"; // past the page's last control
      if (!e || e.dataset.control === undefined) return null;
      const s = getComputedStyle(e);
      const shown = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none";
      return [Number(e.dataset.control), shown];
    });
    if (at === "left" && reached.size > 0) break;
    if (!at || at === "left") continue;
    reached.add(at[0]);
    if (!at[1]) unshown.add(controls[at[0]]);
  }
  await page.evaluate(() => document.getElementById("a11y-start").remove());
  return { missed: controls.filter((_, i) => !reached.has(i)), unshown: [...unshown], count: controls.length };
}

/**
 * How far page scrolls sideways, in CSS pixels. At 200% zoom a page of a window 1280
 * pixels wide is laid out in 640 CSS pixels: the caller sets that viewport first.
 */
export function sideways(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Asserts that page reads as a person reads it: no serious or critical axe-core
 * finding, every control reached by Tab with its focus shown, and no sideways scroll
 * once laid out as at 200% zoom. what names the page in a failure. resize(width,
 * height) sets the page's viewport in the caller's driver (Playwright's
 * setViewportSize, puppeteer's setViewport); zoomed is the viewport of 200% (by
 * default half a 1280x860 window; a popup, which grows with its content, keeps its
 * own width). The viewport is set back to 1280x860 after.
 */
export async function assertReadable(page, what, resize, zoomed = { width: 640, height: 430 }) {
  assert.deepEqual(await findings(page), [], `${what}: axe-core`);
  const k = await keyboard(page);
  assert.ok(k.count > 3, `${what}: ${k.count} controls`);
  assert.deepEqual(k.missed, [], `${what}: controls Tab never reached`);
  assert.deepEqual(k.unshown, [], `${what}: controls focused with no focus shown`);
  await resize(zoomed.width, zoomed.height);
  assert.equal(await sideways(page), 0, `${what}: scrolls sideways at 200%`);
  await resize(1280, 860);
}
