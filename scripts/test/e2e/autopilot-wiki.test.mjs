// Autopilot on a real web application: Debian's DokuWiki (scripts/lib/dokuwiki.mjs)
// behind the logging proxy, its heaviest page a gallery of 240 lazily loaded images.
// A scripted reader scrolls the page to its end a window at a time, letting each
// window's images load; autopilot, from the popup's button on the same page in a tab not
// recorded yet, must archive everything the reader's session archived of the wiki
// (every image among it), stop by itself, and send the wiki nothing but GETs,
// staying on the page. Both times are printed: autopilot's against the reader's.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { galleryImages, startDokuWiki } from "../../lib/dokuwiki.mjs";
import { launch, startRecording, tabId } from "../../lib/browser.mjs";

let wiki, browser, reader, pilot;

// stop stops the recording from the popup and resolves to the session's archived
// URLs (responses and revisits), path and query only, with the session's notes as
// urls.notes.
async function stop(rec) {
  await rec.popup.bringToFront();
  await rec.popup.click("#stop");
  await rec.popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  const session = new URL(await rec.popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  const list = await rec.popup.evaluate(async (id) => (await fetch(`/api/sessions/${id}/records`)).json(), session);
  const { notes } = await rec.popup.evaluate(async (id) => (await fetch(`/api/sessions/${id}`)).json(), session);
  await rec.page.close();
  await rec.popup.close();
  const urls = new Set(list.filter((r) => /^\d{3}$/.test(r.fields.status ?? "") || r.fields.mime === "warc/revisit")
    .map((r) => { const u = new URL(r.fields.url); return u.pathname + u.search; }));
  urls.notes = notes;
  return urls;
}

before(async () => {
  wiki = await startDokuWiki();
  browser = await launch({});
  const gallery = new URL("doku.php?id=gallery", wiki.url).href;

  // The reader: a window at a time, each window's images let load, to the end.
  {
    const rec = await startRecording(browser, new URL("doku.php?id=start", wiki.url).href);
    const t0 = Date.now();
    await rec.page.goto(gallery);
    await rec.page.bringToFront();
    for (;;) {
      const atEnd = await rec.page.evaluate(async () => {
        const inView = [...document.images].filter((i) => { const b = i.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; });
        // Each image in view loaded (or failed), as a reader waits to see them.
        const loaded = (i) => i.complete || new Promise((done) => { i.addEventListener("load", done, { once: true }); i.addEventListener("error", done, { once: true }); });
        await Promise.race([Promise.all(inView.map(loaded)), new Promise((done) => setTimeout(done, 30000))]);
        if (scrollY + innerHeight >= document.documentElement.scrollHeight - 2) return true;
        scrollBy(0, innerHeight);
        return false;
      });
      if (atEnd) break;
      await rec.page.waitForTimeout(100);
    }
    reader = { ms: Date.now() - t0 };
    // What the reader saw: the gallery's images shown, broken and not loaded.
    reader.page = await rec.page.evaluate(() => {
      const imgs = [...document.images].filter((i) => /media=gallery(:|%3A)img/.test(i.src));
      const shown = imgs.filter((i) => i.complete && i.naturalWidth > 0).length;
      const broken = imgs.filter((i) => i.complete && i.naturalWidth === 0).length;
      return { shown, broken, loading: imgs.length - shown - broken };
    });
    // What the wiki answered: how many of the images it sent with each status.
    reader.wire = {};
    for (const e of new Set(wiki.wire().filter((e) => /media=gallery/.test(e.url)).map((e) => `${e.status} ${e.url}`))) {
      const status = e.split(" ")[0];
      reader.wire[status] = (reader.wire[status] ?? 0) + 1;
    }
    reader.urls = await stop(rec);
  }

  // Autopilot, from the popup, on the page open in a tab not recorded.
  {
    const page = await browser.context.newPage();
    await page.goto(gallery);
    const tab = await tabId(browser.sw, gallery);
    const popup = await browser.context.newPage();
    await popup.goto(browser.page(`popup.html?tab=${tab}`));
    await popup.waitForSelector("#autopilot:not([disabled])");
    const before = wiki.wire().length;
    const t0 = Date.now();
    await popup.click("#autopilot");
    await popup.waitForSelector('#autopilot-state[data-running="true"]', { timeout: 30000 });
    await page.bringToFront();
    await popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 300000 });
    pilot = { ms: Date.now() - t0, line: await popup.textContent("#autopilot-state"), stayed: page.url() };
    pilot.urls = await stop({ page, popup });
    pilot.wire = wiki.wire().slice(before);
  }
  console.log(`autopilot on the wiki's gallery: ${(pilot.ms / 1000).toFixed(1)} s (${pilot.line}); a scripted reader: ${(reader.ms / 1000).toFixed(1)} s`);
}, { timeout: 600000 });

after(async () => {
  await browser?.close();
  wiki?.stop();
});

const images = (urls) => [...urls].filter((u) => /fetch\.php.*media=gallery(:|%3A)img/.test(u));

test("autopilot archives every image of the gallery, as the reader scrolling to the end did", () => {
  const seen = `the reader's page: ${JSON.stringify(reader.page)}; the wiki's answers by status: ${JSON.stringify(reader.wire)}; the session's notes: ${JSON.stringify(reader.urls.notes)}`;
  assert.equal(reader.page.shown, galleryImages, `the reader did not see every image: ${seen}`);
  assert.equal(images(reader.urls).length, galleryImages, `the reader's session has ${images(reader.urls).length} images; ${seen}`);
  const missing = images(reader.urls).filter((u) => !pilot.urls.has(u));
  assert.deepEqual(missing, [], `${missing.length} images the reader's session has are missing`);
});

test("autopilot archives everything of the wiki the reader's session did", () => {
  // The tasks DokuWiki's page asks its server to run carry the time: compared by path.
  const paths = (urls) => new Set([...urls].map((u) => (u.includes("taskrunner.php") ? u.split("?")[0] : u)));
  const got = paths(pilot.urls);
  const missing = [...paths(reader.urls)].filter((u) => u.startsWith("/") && !u.startsWith("/doku.php?id=start") && !got.has(u));
  assert.deepEqual(missing, []);
});

test("autopilot stops by itself, sends only GETs and stays on the page", () => {
  assert.match(pilot.line, /^Autopilot: done: the page stopped growing/, pilot.line);
  const bad = pilot.wire.filter((e) => e.method !== "GET");
  assert.deepEqual(bad.map((e) => `${e.method} ${e.url}`), []);
  assert.equal(new URL(pilot.stayed).search, "?id=gallery");
});
