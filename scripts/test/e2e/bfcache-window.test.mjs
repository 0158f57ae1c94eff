// End to end, in real Chromium with its back/forward cache on: a window of pauses (the
// debugger's Fetch domain enabled on the tab because a page still loading was left, see
// shared/recorder/leaving.go) while an earlier page of the same tab is in the
// back/forward cache with images still coming. A recorded tab shows the demo's home
// page (A) and adds two slow images to it, goes to /hang (a document that never ends
// loading), then to the gallery: leaving /hang opens the window, while A waits in the
// cache and its first image ends. Back twice: /hang is loaded anew and left again (a
// second window), and A is shown again from the cache. Recording stops while A's
// second image is still coming. Each exchange must be archived as it was: A's first
// image whole, its second and both /hang documents marked with why.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launch, startDemoSite, startRecording, waitFor } from "../../lib/browser.mjs";
import { archivedExchanges, sessionRecords } from "../../lib/wire.mjs";

let site, browser, run;

before(async () => {
  site = await startDemoSite();
  browser = await launch({ bfcache: true });
  const A = site.url;
  const { page, popup } = await startRecording(browser, A);
  const from = (await site.log()).length;
  await page.goto(A, { waitUntil: "load" });
  await page.evaluate(() => {
    window.webkeepTestRestores = 0;
    addEventListener("pageshow", (e) => { if (e.persisted) window.webkeepTestRestores++; });
    for (const src of ["/slow.png?ms=1500", "/slow.png?ms=600000"]) document.body.append(Object.assign(new Image(), { src }));
  });
  await page.goto(new URL("/hang", site.url).href, { waitUntil: "commit" });
  await page.waitForTimeout(500);
  await page.goto(new URL("/gallery", site.url).href, { waitUntil: "load" });
  // A's first image ends while A is in the cache (the site logs an exchange once it has
  // sent all of it).
  await waitFor(async () => (await site.log()).some((e, i) => i >= from && e.url === "/slow.png?ms=1500"), "A's first image to end", 10000);
  await page.goBack({ waitUntil: "commit" }); // /hang, loaded anew
  await page.waitForTimeout(500);
  await page.goBack({ waitUntil: "commit" }); // A, from the cache
  const restores = await waitFor(() => page.evaluate(() => window.webkeepTestRestores), "A to be shown again from the back/forward cache", 10000);
  await page.waitForTimeout(500);
  const session = await popup.evaluate(async () => (await fetch("/api/record/stop", { method: "POST" })).json());
  run = {
    session, restores,
    archived: archivedExchanges(await sessionRecords(popup, session.id)),
    log: (await site.log()).slice(from),
  };
}, { timeout: 180000 });

after(async () => {
  await browser?.close();
  site?.stop();
});

const archivedAt = (url) => run.archived.filter((a) => a.method === "GET" && a.url === url);

test("A was shown again from the back/forward cache, its first image ended while it was there", () => {
  assert.equal(run.restores, 1);
  assert.equal(run.log.filter((e) => e.url === "/").length, 1, "GET / on the wire once");
  assert.ok(run.log.some((e) => e.url === "/slow.png?ms=1500"), "the first image crossed the wire whole");
});

test("A's image that ended in the cache is archived byte-exact, with no mark", () => {
  const [wire] = run.log.filter((e) => e.url === "/slow.png?ms=1500");
  const archived = archivedAt("/slow.png?ms=1500");
  assert.equal(archived.length, 1);
  assert.equal(archived[0].status, 200);
  assert.equal(archived[0].bodySHA, wire.response_sha256);
  assert.equal(archived[0].truncated, "");
  assert.deepEqual(archived[0].notes, []);
});

test("A's image still coming at Stop, and each /hang left as it loaded, are archived with their response, marked with why", () => {
  const [coming] = archivedAt("/slow.png?ms=600000");
  assert.equal(coming?.status, 200, "the image still coming: status");
  assert.equal(coming.truncated, "disconnect");
  assert.match(coming.notes.join(" / "), /^recording stopped before the body ended/);
  const hangs = archivedAt("/hang");
  assert.equal(hangs.length, 2, "/hang loaded twice");
  for (const h of hangs) {
    assert.equal(h.status, 200);
    assert.equal(h.truncated, "disconnect");
    assert.match(h.notes.join(" / "), /^the page was left before its body arrived/);
  }
});

test("the session counts no failure, and the three marked exchanges by reason", () => {
  assert.equal(run.session.failures, 0);
  assert.equal(run.session.incomplete, 3);
  assert.deepEqual(run.session.reasons, { "the page was left before its body arrived": 2, "recording stopped before the body ended": 1 });
});
