// Replays recorded pages inside webkeep (replay.html), for `make demo`, the end-to-end
// test and the benchmark.
import { waitFor } from "./browser.mjs";

/**
 * Opens replay.html for url of session sess, as the archive page's Replay link does, in
 * browser (from launch()); resolves to { bar, page, close() }: the replay page (the bar)
 * and the tab the page replays in, loaded.
 */
export async function openReplay(browser, sess, url) {
  const earlier = new Set(browser.context.pages());
  const bar = await browser.context.newPage();
  await bar.goto(browser.page(`replay.html?session=${encodeURIComponent(sess)}&url=${encodeURIComponent(url)}`));
  await bar.waitForSelector('#state[data-state="replaying"]', { timeout: 60000 });
  const page = await waitFor(() => browser.context.pages().find((p) => !earlier.has(p) && p !== bar && /^http/.test(p.url())), "the replay tab", 60000)
    .catch(async (e) => { throw new Error(`${url}: ${e.message}; bar: ${await bar.textContent("body")}; tabs: ${browser.context.pages().map((p) => p.url())}`); });
  await page.waitForLoadState("load");
  return { bar, page, close: async () => { await page.close(); await bar.close(); } };
}

/** Whitespace squashed, to compare the texts of pages. */
export const squash = (s) => s.replace(/\s+/g, " ").trim();

/**
 * Replays every page of live (what browseDemo collected: text by URL) of session sess and
 * compares its text with the live one; resolves to { total, matched: [url], differ: [url] }.
 */
export async function replayDemoPages(browser, sess, live) {
  const urls = Object.keys(live).filter((u) => u.startsWith("http") && !/\/submit\//.test(u));
  const res = { total: urls.length, matched: [], differ: [] };
  for (const url of urls) {
    const r = await openReplay(browser, sess, url);
    if (new URL(url).pathname === "/gallery") await r.page.waitForSelector("#worker-status[data-done]", { timeout: 30000 }).catch(() => {});
    const text = await r.page.evaluate(() => document.body.innerText);
    (squash(text) === squash(live[url]) ? res.matched : res.differ).push(url);
    await r.close();
  }
  return res;
}
