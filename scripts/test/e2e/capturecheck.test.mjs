// End to end, in real Chromium through the real extension: the capture check. The
// demo site is recorded (each page pictured live once loaded), then the archive page's
// Check capture replays each page offline in a tab of its own and compares it with
// what it showed live once loaded: every page replays, those changed after they loaded
// (a form's answer, a feed autopilot went through) included. A record withheld from
// the archive (its index line taken out of the session's store) makes its page differ,
// the missed URL named; the verdicts are in the report and the WARC.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { clickAndWait, guardPort, launch, picturedIn, startDemoSite, startRecording, waitFor } from "../../lib/browser.mjs";

let site, browser, sessionId, archive, guard;
const paths = ["/", "/gallery", "/forms", "/redirect/end", "/feed"];

before(async () => {
  site = await startDemoSite();
  browser = await launch();
  const { page, popup } = await startRecording(browser, site.url);
  const pictured = picturedIn(popup);
  for (const p of paths) {
    await page.goto(new URL(p, site.url).href);
    if (p === "/gallery") await page.waitForSelector("#worker-status[data-done]", { timeout: 30000 });
    await pictured(page.url()); // the page pictured as loaded
    // Pages changed after they loaded: a fetch() answer written into the forms page,
    // the feed gone through by autopilot (60 items live, its first 10 as it loads).
    if (p === "/forms") await clickAndWait(page, "#post-json");
    if (p === "/feed") {
      await popup.click("#autopilot");
      await popup.waitForSelector('#autopilot-state[data-running="true"]');
      await page.bringToFront();
      await popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 240000 });
      assert.equal(await page.locator("#feed article").count(), 60, "autopilot went through the feed");
    }
  }
  await popup.bringToFront();
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  sessionId = await popup.evaluate(async () => (await (await fetch("/api/sessions")).json())[0].id);
  await popup.close();
  await page.close();
  archive = await browser.context.newPage();
  await archive.goto(browser.page(`archive.html#${sessionId}`));
  await archive.waitForSelector("#pages > li");
});

after(async () => {
  guard?.close();
  await browser?.close();
  site?.stop();
});

// checkAll clicks Check capture and resolves to the summary line, once every page is checked.
async function checkAll() {
  await archive.click("#check-capture");
  await waitFor(async () => /^Checking page /.test(await archive.textContent("#check-status")), "the capture check to start");
  await waitFor(async () => / checked: /.test(await archive.textContent("#check-status")), "the capture check", 300000);
  return archive.textContent("#check-status");
}

const cards = () => archive.$$eval("#pages > li", (lis) => lis.map((li) => ({
  path: new URL(li.dataset.url).pathname,
  verdict: li.querySelector(".check")?.dataset.verdict,
  why: [...li.querySelectorAll(".check .why li")].map((x) => x.textContent),
  missed: [...li.querySelectorAll(".check .url-list li")].map((x) => x.textContent),
})));

test("every page of the demo replays as it was recorded, checked offline", async () => {
  guard = await guardPort(site); // the site stopped: a check reaches nothing live
  const summary = await checkAll();
  const got = await cards();
  assert.equal(summary, `${got.length} pages checked: ${got.length} replay`, JSON.stringify(got, null, 1));
  assert.deepEqual(got.map((c) => c.path), paths);
  // The pair of pictures: live and replayed.
  const pair = await archive.$$eval('#pages li[data-url$="/gallery"] .check .pair img', (imgs) => imgs.map((i) => i.alt));
  assert.deepEqual(pair, ["The page live, once loaded", "The page replayed from the archive"]);
});

test("a page whose resource the archive lacks differs, the missed URL named; the report and the WARC say so", async () => {
  // Withhold the gallery's logo: its index line out of the session's store.
  const removed = await archive.evaluate(async (id) => {
    const db = await new Promise((resolve, reject) => { const o = indexedDB.open("webkeep"); o.onsuccess = () => resolve(o.result); o.onerror = () => reject(o.error); });
    const range = IDBKeyRange.bound(`s/${id}/cdx/`, `s/${id}/cdx/\uffff`);
    const all = await new Promise((resolve) => { const t = db.transaction("kv").objectStore("kv"); const k = t.getAllKeys(range), v = t.getAll(range); k.transaction.oncomplete = () => resolve([k.result, v.result]); });
    let n = 0;
    const t = db.transaction("kv", "readwrite").objectStore("kv");
    all[0].forEach((key, i) => {
      const lines = new TextDecoder().decode(all[1][i]).split("\n");
      const kept = lines.filter((l) => !l.includes("/static/logo.svg"));
      n += lines.length - kept.length;
      if (kept.length !== lines.length) t.put(new TextEncoder().encode(kept.join("\n")), key);
    });
    await new Promise((r) => { t.transaction.oncomplete = r; });
    return n;
  }, sessionId);
  assert.ok(removed >= 1, "the logo's index line");
  const summary = await checkAll();
  const gallery = (await cards()).find((c) => c.path === "/gallery");
  assert.equal(gallery.verdict, "differs", JSON.stringify(gallery));
  assert.match(gallery.why[0], /^1 request the page asked for in replay is not in the archive$/);
  assert.deepEqual(gallery.missed, [new URL("/static/logo.svg", site.url).href]);
  assert.match(summary, /^5 pages checked: 4 replay, 1 differs$/);

  const report = await archive.evaluate(async (id) => (await (await fetch(`/api/sessions/${id}/report`)).json()), sessionId);
  assert.deepEqual(report.checks.map((c) => [new URL(c.url).pathname, c.verdict]), paths.map((p) => [p, p === "/gallery" ? "differs" : "replays"]));
  const notes = await archive.evaluate(async (id) => (await (await fetch(`/api/sessions/${id}/records`)).json())
    .filter((r) => r.fields.mime === "text/plain" && !r.fields.status).length, sessionId);
  assert.ok(notes >= 10, `${notes} notes: a capture check's on each page, twice`);
  assert.equal(guard.hits(), 0, "nothing reached the demo site's port during the checks");
});
