// Page-load timing with recording on and off, shared by the benchmarks
// (scripts/bench/extension.mjs, scripts/bench/realsite.mjs): three tabs on the same page,
// one plain, one instrumented by the DevTools floor extension, one recorded, whose loads
// alternate.
import path from "node:path";
import { root, tabId } from "./browser.mjs";
import { loadTimes } from "./stats.mjs";

/** The DevTools floor: a test extension that attaches the debugger as webkeep does. */
export const floorDir = path.join(root, "scripts/bench/sections/devtools-floor");

/** How long each load waits after the last (see loadTimes in stats.mjs). */
export const settle = 300;

/**
 * Loads url loads times in each of three tabs, one plain, one instrumented by the
 * DevTools floor extension (floorId), one recorded by webkeep through the API of the
 * extension page ext, their loads alternating; resolves to [[off, floor, on], the
 * recorded tab's page], the times in ms. The popup is closed meanwhile, as it is when a
 * user clicks into the page; the other two tabs are closed at the end. hooks are
 * loadTimes' (stats.mjs), tab k being 0 off, 1 floor, 2 on.
 */
export async function measureTabs(browser, ext, url, floorId, loads, hooks = {}) {
  const tabs = [];
  for (const name of ["off", "floor", "on"]) {
    const page = await browser.context.newPage();
    const at = `${url}${url.includes("?") ? "&" : "?"}tab=${name}`;
    await page.goto(at);
    tabs.push({ page, id: await tabId(browser.sw, at) });
  }
  await ext.goto(browser.page("popup.html"));
  const res = await ext.evaluate(([id, t]) => chrome.runtime.sendMessage(id, { instrument: t }), [floorId, tabs[1].id]);
  if (!res || !res.ok) throw new Error(`the floor extension did not instrument its tab: ${JSON.stringify(res)}`);
  await ext.evaluate((t) => fetch(`/api/record/start?tab=${t}`, { method: "POST" }), tabs[2].id);
  await ext.goto("about:blank");
  // Starting may reload the tab, so that its page is recorded whole; a load of ours
  // may be cut short by it.
  for (let tries = 0; ; tries++) {
    try {
      await tabs[2].page.goto(url, { timeout: 180000 });
      break;
    } catch (e) {
      if (tries > 3 || !/interrupted by another navigation/.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const times = await loadTimes(tabs.map((t) => t.page), url, loads, settle, hooks);
  await tabs[0].page.close();
  await tabs[1].page.close();
  await ext.goto(browser.page("popup.html"));
  return [times, tabs[2].page];
}
