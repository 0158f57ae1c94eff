// End to end, in real Chromium with its back/forward cache on (as users have it; the
// other tests run with Playwright's default, off): a recorded tab goes from the demo's
// home page (A) to its forms page (B), back, and forward. The browser shows A and B
// again from its back/forward cache, making no request; an image of A still on its way
// when A was left ends while A is in the cache, and reaches the page when A is shown
// again; another is still coming when recording stops, A being in the cache again.
// The archive and the labels must say exactly that.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { launch, startDemoSite, startRecording, waitFor } from "../../lib/browser.mjs";
import { archivedExchanges, sessionRecords } from "../../lib/wire.mjs";

let site, browser, run;

const sha256 = (b) => createHash("sha256").update(b).digest("hex");
const api = (page, p) => page.evaluate(async (p) => (await fetch(p)).json(), p);
// restores counts the times the page was shown again from the back/forward cache.
const restores = (page) => page.evaluate(() => window.webkeepTestRestores);
const countRestores = (page) => page.evaluate(() => {
  window.webkeepTestRestores = 0;
  addEventListener("pageshow", (e) => { if (e.persisted) window.webkeepTestRestores++; });
});

before(async () => {
  site = await startDemoSite();
  browser = await launch({ bfcache: true });
  const A = site.url, B = new URL("/forms", site.url).href;
  const { page, popup } = await startRecording(browser, A);
  const from = (await site.log()).length;
  // A is loaded again while recorded (it was loaded before recording began).
  await page.goto(A, { waitUntil: "load" });
  await countRestores(page);
  // Two images of A still on their way when A is left: one ends 1.5 s after it began,
  // the other long after the recording.
  await page.evaluate(() => {
    for (const src of ["/slow.png?ms=1500", "/slow.png?ms=600000"]) document.body.append(Object.assign(new Image(), { src }));
  });
  await waitFor(async () => (await site.log()).length > from, "A's load in the site's log");
  await page.goto(B, { waitUntil: "load" });
  await countRestores(page);
  // The first image ends while A is in the back/forward cache (the site logs an
  // exchange once it has sent all of it).
  await waitFor(async () => (await site.log()).some((e, i) => i >= from && e.url === "/slow.png?ms=1500"), "the first image to end", 10000);
  await page.goBack({ waitUntil: "commit" });
  await waitFor(() => restores(page), "A to be shown again from the back/forward cache", 10000);
  await page.waitForTimeout(500);
  await page.goForward({ waitUntil: "commit" });
  await waitFor(() => restores(page), "B to be shown again from the back/forward cache", 10000);
  await page.waitForTimeout(500);
  const session = await popup.evaluate(async () => (await fetch("/api/record/stop", { method: "POST" })).json());
  // The popup shows the session it recorded until another starts.
  let pagesCell;
  await waitFor(async () => (pagesCell = await popup.textContent('[data-stat="Pages"]')) === "4 (2 restored)", "the popup's count of pages", 5000).catch(() => {});
  run = {
    session, pagesCell,
    pages: await api(popup, `/api/sessions/${session.id}/pages`),
    archived: archivedExchanges(await sessionRecords(popup, session.id)),
    log: (await site.log()).slice(from),
  };
}, { timeout: 180000 });

after(async () => {
  await browser?.close();
  site?.stop();
});

test("going back and forward made no request: the pages came from the back/forward cache", () => {
  const gets = (p) => run.log.filter((e) => e.method === "GET" && e.url === p).length;
  assert.equal(gets("/"), 1, "GET / on the wire once");
  assert.equal(gets("/forms"), 1, "GET /forms on the wire once");
});

test("the restored pages are page visits marked restored, counted apart", () => {
  const visits = run.pages.map((p) => [new URL(p.url).pathname, Boolean(p.restored)]);
  assert.deepEqual(visits, [["/", false], ["/forms", false], ["/", true], ["/forms", true]]);
  assert.equal(run.session.pages, 4);
  assert.equal(run.session.restored, 2);
  assert.equal(run.pagesCell, "4 (2 restored)", "the popup's Pages");
});

test("every exchange on the wire is archived byte-exact; the image still coming is archived marked, with why", () => {
  const byKey = (list) => {
    const out = {};
    for (const e of list) (out[`${e.method} ${e.url}`] ??= []).push(e);
    return out;
  };
  // webkeep reads the site's /data.txt and /robots.txt itself: they are not the page's.
  const wire = byKey(run.log.filter((e) => e.url !== "/data.txt" && e.url !== "/robots.txt")), archived = byKey(run.archived);
  for (const [k, es] of Object.entries(wire)) {
    assert.equal(archived[k]?.length, es.length, `${k}: on the wire ${es.length} times, archived ${archived[k]?.length ?? 0}`);
    for (const [i, e] of es.entries()) {
      const a = archived[k][i];
      assert.equal(a.status, e.status, `${k}: status`);
      assert.equal(a.bodySHA, e.response_sha256, `${k}: body`);
      assert.equal(a.truncated, "", `${k}: Truncated`);
      assert.deepEqual(a.notes, [], `${k}: notes`);
    }
  }
  assert.ok(wire["GET /slow.png?ms=1500"], "the first image crossed the wire whole");
  // The second image's exchange has not ended on the site when recording stops.
  const coming = Object.keys(archived).filter((k) => !wire[k]);
  assert.deepEqual(coming, ["GET /slow.png?ms=600000"], "archived exchanges the site has not logged");
  const [a] = archived[coming[0]];
  assert.equal(a.status, 200);
  assert.equal(a.truncated, "disconnect");
  assert.match(a.notes.join(" / "), /^the page was left before its body arrived/, "the note of the image still coming");
});

test("the session counts and lists only the image still coming as not kept whole, in plain words", () => {
  assert.equal(run.session.failures, 0);
  assert.equal(run.session.incomplete, 1);
  assert.deepEqual(run.session.reasons, { "the page was left before its body arrived": 1 });
});

test("the archive page lists the restored visits as restored, with no requests made", async () => {
  const page = await browser.context.newPage();
  await page.goto(browser.page(`archive.html#${run.session.id}`));
  await page.waitForSelector("#pages li", { state: "attached" });
  const items = await page.$$eval("#pages li", (lis) => lis.map((li) => [li.querySelector(".url").textContent, li.dataset.restored === "true", li.textContent]));
  assert.equal(items.length, 4);
  assert.deepEqual(items.map(([, restored]) => restored), [false, false, true, true]);
  for (const [, restored, text] of items) {
    assert.equal(text.includes("restored from the back/forward cache, no requests made"), restored, text);
  }
  await page.close();
});

test("the replay page's list of pages marks the restored visits, each linked to a replay", async () => {
  const page = await browser.context.newPage();
  await page.goto(browser.page(`replay.html?session=${encodeURIComponent(run.session.id)}`));
  await page.waitForSelector("#replay-pages li", { state: "attached" });
  const items = await page.$$eval("#replay-pages li", (lis) => lis.map((li) => [li.dataset.restored === "true", li.textContent, li.querySelector("a").href]));
  assert.equal(items.length, 4);
  assert.deepEqual(items.map(([restored]) => restored), [false, false, true, true]);
  for (const [restored, text, href] of items) {
    assert.equal(text.includes("restored from the back/forward cache"), restored, text);
    assert.match(href, /replay\.html\?session=/);
  }
  await page.close();
});
