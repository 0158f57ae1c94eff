// End to end, in real Chromium through the real extension: full-text search. A session
// recorded on the demo site, and a WARC imported, are found from the archive page's
// search form (and from the popup's search field, which opens the archive page on its
// results); a result opens the page in webkeep's replay; a deleted session is no longer
// found.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch, startDemoSite, startRecording, waitFor } from "../../lib/browser.mjs";
import { attachReplay, importWARC, squash } from "../../lib/replay.mjs";

let site, browser, sessionId, importedId;

before(async () => {
  site = await startDemoSite();
  browser = await launch();
  const { page, popup } = await startRecording(browser, site.url);
  await page.goto(new URL("/gallery", site.url).href);
  await page.goto(new URL("/redirect/start", site.url).href);
  await page.waitForURL("**/redirect/end");
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  sessionId = await popup.evaluate(async () => (await (await fetch("/api/sessions")).json())[0].id);
  await popup.close();
  await page.close();
  importedId = await importWARC(browser, "imported.warc.gz", [
    ["https://example.org/lake", "text/html; charset=utf-8", Buffer.from("<title>Lake</title><p>The ferry crosses Lake Zürich at noon.</p>")],
  ]);
});

after(async () => {
  await browser?.close();
  site?.stop();
});

// search fills the archive page's search form and resolves to the results shown:
// { count (the summary line), results: [{ title, href, url, snippet, marked: [words], session }] }.
async function search(archive, q, scope = "") {
  await archive.fill("#search", q);
  await archive.selectOption("#search-scope", scope);
  await archive.click("#search-go");
  await waitFor(async () => !/Searching/.test(await archive.textContent("#search-count")), `the results of ${q}`);
  return readResults(archive);
}

const readResults = (page) => page.evaluate(() => ({
  count: document.querySelector("#search-count").textContent,
  results: [...document.querySelectorAll("#search-results li")].map((li) => ({
    title: li.querySelector("h3 a").textContent, href: li.querySelector("h3 a").getAttribute("href"),
    url: li.querySelector(".url").textContent, snippet: li.querySelector(".snippet").textContent,
    marked: [...li.querySelectorAll("mark")].map((m) => m.textContent), session: li.dataset.session,
  })),
}));

test("the archive page finds a word on one recorded page and replays the page", async () => {
  const archive = await browser.context.newPage();
  await archive.goto(browser.page("archive.html"));
  await archive.waitForSelector('body[data-ready="true"]');
  const { count, results } = await search(archive, "redirected");
  assert.match(count, /^1 answer found \(\d+(\.\d)? ms\)$/);
  assert.equal(results.length, 1);
  const [r] = results;
  assert.equal(new URL(r.url).pathname, "/redirect/end");
  assert.equal(r.session, sessionId);
  assert.match(r.title, /Redirected/); // a word of the title (which the snippet does not repeat)
  assert.match(r.href, /^replay\.html\?session=/);

  const earlier = new Set(browser.context.pages());
  const [bar] = await Promise.all([browser.context.waitForEvent("page"), archive.click("#search-results h3 a")]);
  const replay = await attachReplay(browser, bar, earlier);
  const shown = await replay.evaluate(() => ({ url: location.href, title: document.title, text: document.body.innerText }));
  assert.equal(new URL(shown.url).pathname, "/redirect/end");
  assert.equal(shown.title, r.title);
  assert.equal(squash(shown.text), squash(r.snippet));
  await replay.close();
  await archive.close();
});

test("an imported WARC is found, accents folded, and a session alone can be searched", async () => {
  const archive = await browser.context.newPage();
  await archive.goto(browser.page("archive.html"));
  await archive.waitForSelector('body[data-ready="true"]');
  let { results } = await search(archive, "ZURICH ferry");
  assert.deepEqual(results.map((r) => [r.title, r.url, r.session]), [["Lake", "https://example.org/lake", importedId]]);
  assert.deepEqual(results[0].marked, ["ferry", "Zürich"]);
  ({ results } = await search(archive, '"lake zurich" -noon'));
  assert.equal(results.length, 0);

  // Searching the session open: the recorded one does not hold the imported page.
  await archive.goto(browser.page(`archive.html#${sessionId}`));
  await archive.waitForSelector("#session-view:not([hidden])");
  ({ results } = await search(archive, "ferry", "session"));
  assert.equal(results.length, 0);
  ({ results } = await search(archive, "ferry", ""));
  assert.equal(results.length, 1);
  await archive.close();
});

test("the popup's search field opens the archive page on the results", async () => {
  const popup = await browser.context.newPage();
  await popup.goto(browser.page("popup.html"));
  await popup.fill("#popup-q", "ferry");
  const [archive] = await Promise.all([browser.context.waitForEvent("page"), popup.click("#popup-search-go")]);
  await archive.waitForURL(/archive\.html\?q=ferry/);
  await waitFor(async () => (await archive.locator("#search-results li").count()) === 1, "the popup's search results");
  assert.equal((await readResults(archive)).results[0].title, "Lake");
  await archive.close();
  await popup.close();
});

test("a deleted session is no longer found", async () => {
  const page = await browser.context.newPage();
  await page.goto(browser.page("archive.html"));
  const status = await page.evaluate(async (id) => (await fetch(`/api/sessions/${id}`, { method: "DELETE" })).status, importedId);
  assert.equal(status, 204);
  const { results } = await search(page, "ferry");
  assert.equal(results.length, 0);
  await page.close();
});
