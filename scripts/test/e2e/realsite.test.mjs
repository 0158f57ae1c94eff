// End to end against a real web application: Debian's DokuWiki (scripts/lib/dokuwiki.mjs)
// behind a proxy of ours that logs every exchange on the wire (scripts/tools/wireproxy). A
// user's session (log in, edit a page with non-ASCII text, upload a file in the media
// manager, search, log out) and a quick-navigation run (pages left before they finish)
// are recorded through the real extension, with the default settings; each run's
// archive is compared with the wire and with what a plain DevTools client on the same
// tab was told (scripts/lib/wire.mjs).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, tabId, waitFor } from "../../lib/browser.mjs";
import { checkLoginArchived, checkReplayWebPage, checkUploadArchived, galleryImages, imagesShown, pageState, pageText, quickNavigation, scriptRan, startDokuWiki, wikiUser } from "../../lib/dokuwiki.mjs";
import { describeMissing, offline, recordAgainstWire, summary, unreportedRequests } from "../../lib/wire.mjs";
import { openReplay, squash } from "../../lib/replay.mjs";
import { png } from "../../lib/png.mjs";

let wiki, browser, ext, files;
const runs = {};
// What pages of the user's session showed live, by URL: { text, images, scripts }.
const live = {};
const seen = async (page) => {
  await page.waitForLoadState("load");
  live[page.url()] = await pageState((f) => page.evaluate(f));
};
// The image the user uploads in the media manager.
const uploadBytes = png(1000);

/** A user's session: log in, edit, upload, search, log out. */
async function userSession(page) {
  const base = wiki.url;
  await page.goto(new URL("doku.php?id=start&do=login", base).href);
  await page.fill("#dw__login input[name=u]", wikiUser.name);
  await page.fill("#dw__login input[name=p]", wikiUser.password);
  await Promise.all([page.waitForURL((u) => !u.search.includes("do=login"), { waitUntil: "load" }), page.click("#dw__login button[type=submit]")]);
  await page.waitForSelector('a[href*="do=logout"]');

  await page.goto(new URL("doku.php?id=notes&do=edit", base).href);
  await page.fill("#wiki__text", "====== Notes ======\n\nÉté à Zürich: naïve café, Ελληνικά, 日本語, emoji 🎉.\n");
  await Promise.all([page.waitForURL((u) => !u.search.includes("do=edit"), { waitUntil: "load" }), page.click("#edbtn__save")]);
  assert.match(await page.textContent("#dokuwiki__content"), /Ελληνικά, 日本語/);

  await page.goto(new URL("doku.php?id=notes&do=media&ns=&tab_files=upload", base).href);
  await page.setInputFiles("#mediamanager__uploader input[type=file]", files.upload);
  await page.click("#mediamanager__upload_button");
  await page.waitForSelector(".qq-upload-success a", { timeout: 60000 });
  await page.click(".qq-upload-success a"); // the file's details, shown with XHR
  await page.waitForSelector("#mediamanager__page .file, #media__details, .panel.fileDetails", { timeout: 60000 }).catch(() => {});
  await page.goto(new URL("doku.php?id=notes", base).href);
  await seen(page);

  await page.fill("#qsearch__in", "Zürich");
  await page.waitForTimeout(1000); // the quick search answers as one types
  await Promise.all([page.waitForURL((u) => u.search.includes("do=search"), { waitUntil: "load" }), page.press("#qsearch__in", "Enter")]);
  await page.waitForSelector(".search-results-page, .search_results, #dokuwiki__content");
  await seen(page);

  await Promise.all([page.waitForURL((u) => !u.search.includes("do=logout"), { waitUntil: "load" }), page.click('a[href*="do=logout"]')]);
  await page.waitForSelector('a[href*="do=login"]');
  await seen(page);
}

before(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-realsite-"));
  files = { dir, upload: path.join(dir, "bildschirmfoto-äöü.png") };
  writeFileSync(files.upload, uploadBytes);
  wiki = await startDokuWiki();
  browser = await launch({});
  ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));
  runs.session = await recordAgainstWire(browser, ext, wiki, userSession);
  runs.quick = await recordAgainstWire(browser, ext, wiki, (page) => quickNavigation(page, wiki.url));
}, { timeout: 600000 });

after(async () => {
  await browser?.close();
  wiki?.stop();
  if (files) rmSync(files.dir, { recursive: true, force: true });
});

const label = { session: "a user's session", quick: "quick navigation" };
for (const name of ["session", "quick"]) {
  test(`${label[name]}: every exchange on the wire is archived byte-exact or marked`, (t) => {
    const { report, info, stopMs } = runs[name];
    t.diagnostic(summary(report));
    t.diagnostic(`Stop answered in ${stopMs} ms`);
    for (const m of report.marks.filter((x) => !/page was left/.test(x.reason))) t.diagnostic(`marked: ${m.method} ${m.url}: ${m.reason}`);
    for (const m of report.missing) t.diagnostic(`missing: ${describeMissing(m)}`);
    const extra = {};
    for (const e of report.extra) extra[e.notes.join(" / ")] = (extra[e.notes.join(" / ")] || 0) + 1;
    t.diagnostic(`archived, never on the wire (cancelled before they were sent): ${JSON.stringify(extra)}`);
    t.diagnostic(`the session's problems: ${JSON.stringify(info.reasons || {})}`);
    assert.ok(report.wire > 10, `only ${report.wire} exchanges on the wire`);
    assert.ok(report.exact > 0);
    assert.deepEqual(report.unmarked, [], "unmarked differences");
  });
  // Under quick navigation the renderer's reports of a page being left are dropped by
  // the browser as the next page commits, for every DevTools client, each at its own
  // point: traced on 2026-11-26 (BENCHMARKS.md), the plain client missed requests the
  // extension's session was told of as often as the other way round. So an exchange
  // missing from the archive that the plain client was told of must be one the
  // browser never reported to webkeep: the recorder counts those by the request
  // headers that still reach it (the session's note says how many), and the test
  // asserts that there are at least as many of them as such exchanges. The exchanges
  // missing that the plain client was not told of either are not bounded so: a CI run
  // on 2026-11-27 had three (a manifest and two style images of pages left) whose
  // request headers never reached webkeep either, so that the browser told no DevTools
  // client of them at all.
  test(`${label[name]}: every exchange missing from the archive is one the browser never told a plain DevTools client of, or never reported to webkeep`, (t) => {
    const { report, info } = runs[name];
    const { count: unreported, note } = unreportedRequests(info);
    const heard = report.missingHeard.reduce((a, m) => a + m.beyond, 0);
    t.diagnostic(`${report.missing.length} missing, ${heard} of them told to the plain DevTools client; the browser never reported ${unreported} requests to webkeep: ${note}`);
    for (const m of report.missingHeard) t.diagnostic(`missing, though told to the plain DevTools client: ${JSON.stringify(m)}`);
    assert.ok(heard <= unreported, `${heard} exchanges missing from the archive were told to the plain DevTools client, and the browser left only ${unreported} unreported to webkeep`);
    // The archive says it too: a metadata record on each page that named itself
    // (Referer), with the count of its requests never reported.
    const pageNotes = runs[name].records.filter((r) => r.type === "metadata" && /this page began as it was left (is|are) not in the archive/.test(r.block.toString("utf8")));
    const inArchive = pageNotes.reduce((a, r) => a + Number(r.block.toString("utf8").match(/^(\d+) requests? this page/)[1]), 0);
    t.diagnostic(`${pageNotes.length} pages' notes in the archive count ${inArchive} requests never reported`);
    assert.ok(inArchive <= unreported, `the archive's notes count ${inArchive}, the session's ${unreported} (its notes: ${JSON.stringify(info.notes || [])})`);
    if (/ of http/.test(note)) assert.ok(inArchive > 0, `the session's note names pages (${note}), the archive has no note on them`);
    for (const r of pageNotes) assert.match(r.uri, /^http:\/\//);
    // A page left as it loaded has its requests paused by the Fetch domain, which
    // names them in the notes (some of them were cancelled before their exchange
    // ended, and are not on the proxy's log).
    const named = pageNotes.flatMap((r) => {
      const m = r.block.toString("utf8").match(/Their addresses, from the browser's Fetch domain: (.*?)(?: \(and \d+ more\))?\.\s*$/s);
      return m ? m[1].split(", ").map((a) => { const [method, url] = a.split(" "); const u = new URL(url); return `${method} ${u.pathname}${u.search}`; }) : [];
    });
    const missing = new Set(report.missing.map((m) => `${m.method} ${m.url}`));
    t.diagnostic(`the archive's notes name ${named.length} of the ${inArchive} requests never reported; ${named.filter((n) => missing.has(n)).length} of them are exchanges missing from the archive`);
    assert.ok(named.length <= inArchive, `${named.length} addresses named, of ${inArchive} requests`);
    // Each missing exchange the plain client was told of is named in the notes, or one
    // of the requests they count but do not name.
    const names = new Set(named);
    const unnamed = report.missingHeard.filter((m) => !names.has(m.exchange)).reduce((a, m) => a + m.beyond, 0);
    t.diagnostic(`${heard - unnamed} of the ${heard} missing exchanges told to the plain DevTools client are named in the archive's notes`);
    assert.ok(unnamed <= unreported - named.length, `${unnamed} missing exchanges told to the plain client are not named, and only ${unreported - named.length} requests never reported are not named`);
  });
}

test("the login answer's Set-Cookie fields are archived, one for each on the wire, redacted by default", () => {
  checkLoginArchived(runs.session);
});

test("the file uploaded in the media manager is archived byte for byte, copied in the page", () => {
  checkUploadArchived(runs.session, uploadBytes);
});

test("the archive page opens a user's session on its pages, each with the title the wiki gave it", async () => {
  const archive = await browser.context.newPage();
  try {
    await archive.goto(browser.page(`archive.html#${runs.session.id}`));
    const pages = await archive.evaluate(async (id) => (await (await fetch(`/api/sessions/${id}/pages`)).json()), runs.session.id);
    assert.ok(pages.length >= 6, `${pages.length} pages`);
    await waitFor(async () => (await archive.$$("#pages li")).length === pages.length, `the ${pages.length} pages`);
    assert.ok(await archive.isHidden("#records-view"), "the records are one click away, not shown first");
    const titles = await archive.$$eval("#pages li h3", (hs) => hs.map((h) => h.textContent));
    assert.deepEqual(titles.filter((t) => !t.endsWith(" [webkeep test wiki]")), [], "every page titled as the wiki titled it");
  } finally {
    await archive.close();
  }
});

test("a user's session is found by its words: accents folded, Greek and Japanese, phrases and exclusions", async () => {
  const find = (q) => ext.evaluate(async ([q, id]) => (await (await fetch(`/api/search?q=${encodeURIComponent(q)}&session=${id}`)).json()), [q, runs.session.id]);
  const notes = (r) => r.results.length > 0 && new URL(r.results[0].url).searchParams.get("id") === "notes";
  for (const q of ["Ελληνικά", "zurich", "ZÜRICH naive", '"naïve café"', "日本語"]) {
    const r = await find(q);
    assert.ok(notes(r), `${q}: ${JSON.stringify(r.results.map((x) => x.url))}`);
  }
  const r = await find("zurich -Ελληνικά");
  assert.ok(r.results.every((x) => new URL(x.url).searchParams.get("id") !== "notes"), JSON.stringify(r.results.map((x) => x.url)));
});

test("a user's session replays in webkeep: each page shows the text and images it showed live, its script runs, no request missed", async (t) => {
  const urls = Object.keys(live);
  assert.equal(urls.length, 3, JSON.stringify(urls));
  await offline(wiki, async () => {
    for (const url of urls) {
      assert.ok(live[url].scripts, `${url}: DokuWiki's script did not run live`);
      const r = await openReplay(browser, runs.session.id, url);
      try {
        await waitFor(() => r.evaluate(scriptRan), `${url}: DokuWiki's script to run in the replay`, 20000);
        assert.equal(squash(await r.evaluate(pageText)), live[url].text, `${url}: the replayed text`);
        assert.deepEqual(await r.evaluate(imagesShown), live[url].images, `${url}: the images shown`);
        t.diagnostic(`${url}: replayed; the bar: ${squash(await r.bar.textContent("#replay-missed-count"))} missed ${squash(await r.bar.textContent("#replay-missed"))}`);
        assert.equal(await r.bar.textContent("#replay-missed-count"), "0", `${url}: missed ${await r.bar.textContent("#replay-missed")}`);
      } finally {
        await r.close();
      }
    }
  });
}, { timeout: 300000 });

test("a user's session replays in ReplayWeb.page from its WACZ: each page shows the text and images it showed live, its script runs", async () => {
  const wacz = path.join(files.dir, "session.wacz");
  const bytes = await ext.evaluate(async (id) => {
    const res = await fetch(`/api/sessions/${encodeURIComponent(id)}/wacz`);
    if (!res.ok) throw new Error(`wacz: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer()).toBase64();
  }, runs.session.id);
  writeFileSync(wacz, Buffer.from(bytes, "base64"));
  await checkReplayWebPage(wiki, wacz, live);
}, { timeout: 300000 });

// Recording leaves a page loading as it does unrecorded. The gallery's images are lazy
// (loading="lazy"); unrecorded, all of them load before its load event. A picture of
// the tab taken with a clip (Page.captureScreenshot's) once left the tab's next pages
// deferring their lazy images past their load event (9 of 249 loaded by then).
test("a recorded tab, once pictured, loads the gallery's lazy images before its load event, as an unrecorded one does", async () => {
  const url = new URL("doku.php?id=gallery", wiki.url).href;
  const shown = (page) => page.evaluate(() => [...document.images].filter((i) => i.complete && i.naturalWidth > 0).length);
  // Loaded again, as the recorded tab is below: a first load's images, not yet in
  // the browser's cache, may come after its load event, recorded or not.
  const plain = await browser.context.newPage();
  await plain.goto(url, { waitUntil: "load" });
  await plain.waitForTimeout(2000);
  await plain.goto(url, { waitUntil: "load" });
  const all = await shown(plain);
  await plain.close();
  assert.ok(all >= galleryImages, `${all} images shown unrecorded`);

  const page = await browser.context.newPage();
  await page.goto(`${url}&tab=recorded`);
  const tab = await tabId(browser.sw, `${url}&tab=recorded`);
  await ext.evaluate((t) => fetch(`/api/record/start?tab=${t}`, { method: "POST" }), tab);
  const counts = [];
  for (let i = 0; i < 4; i++) {
    await page.waitForTimeout(2000); // the tab is pictured a second after each load
    await page.goto(url, { waitUntil: "load" });
    counts.push(await shown(page));
  }
  await ext.evaluate(() => fetch("/api/record/stop", { method: "POST" }));
  await page.close();
  assert.deepEqual(counts, counts.map(() => all), `images shown at each load event of the recorded tab, of ${all}`);
});
