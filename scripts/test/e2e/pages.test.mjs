// End to end, in real Chromium through the real extension: the extension's own pages
// (popup, archive, options) driven as a user would, over the core's API. A URL database
// for the demo site is loaded from a folder in the options page first, so the recorded
// session has verdicts of both kinds; then the archive page's filter, record detail,
// "Add to database", rename, import and delete (with its confirmation step) are used,
// and the options are saved and read back after a reload.
//
// WEBKEEP_SCREENSHOTS=1 (`make screenshots`) also writes docs/screenshots/popup.png,
// archive-pages.png (a session's pages), archive.png (its records), record.png (a record's detail),
// replay.png (a page replayed in its own tab, beside webkeep's replay page) and options.png.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { clickAndWait, launch, root, startDemoSite, tabId, waitFor } from "../../lib/browser.mjs";
import { openReplay } from "../../lib/replay.mjs";

const shots = process.env.WEBKEEP_SCREENSHOTS ? path.join(root, "docs/screenshots") : null;
let site, browser, dir, popup, archive, sessionId, importedId, verdicts, failCount;

// A URL database for the demo site (scripts/tools/demosite), in the format of the URL
// database description: / and /gallery pass; /missing fails (404) and
// /static/style.css fails (the site serves text/css, the record says text/plain).
const demoDatabase = `---
---
_path: /
content-type: text/html
---
_path: /gallery
content-type: text/html
---
_path: /missing
content-type: text/html
---
_path: /static/style.css
content-type: text/plain
`;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-pages-"));
  const db = path.join(dir, "urldb");
  mkdirSync(path.join(db, ".git"), { recursive: true });
  writeFileSync(path.join(db, "127.0.0.1.yaml"), demoDatabase);
  writeFileSync(path.join(db, "README.md"), "not part of the database\n");
  writeFileSync(path.join(db, ".git", "HEAD.yaml"), "not: [valid\n"); // hidden: must not be sent
  site = await startDemoSite(["-big", "1024"]);
  browser = await launch({ downloads: dir });

  // Options: load the database from a folder, as the folder picker gives it.
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector('#urldb-status[data-loaded="false"]');
  await options.setInputFiles("#urldb-folder", db);
  await options.waitForSelector('#urldb-status[data-loaded="true"]');
  assert.match(await options.textContent("#urldb-status"), /Loaded: 1 domain, 4 records, 0 problems/);
  await options.close();

  const page = await browser.context.newPage();
  await page.goto(site.url);
  const tab = await tabId(browser.sw, site.url);
  popup = await browser.context.newPage();
  await popup.setViewportSize({ width: 340, height: 600 });
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  await page.goto(site.url);
  await page.goto(new URL("/gallery", site.url).href);
  await page.goto(new URL("/forms", site.url).href);
  for (const id of ["post-json", "post-binary", "put-item", "delete-item"]) await clickAndWait(page, "#" + id);
  await page.goto(new URL("/missing", site.url).href);
  await waitFor(async () => Number(await popup.textContent('[data-stat="Records"]')) >= 10, "the visits to be recorded");
  await waitFor(async () => /fail/.test(await popup.textContent("#verdicts")), "verdicts in the popup");
  if (shots) {
    mkdirSync(shots, { recursive: true });
    // The popup as Chrome shows it: as tall as its content.
    await popup.locator("body").screenshot({ path: path.join(shots, "popup.png") });
  }
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  sessionId = new URL(await popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  assert.ok(sessionId, "the popup links to the session in the archive");
  // Once stopped, the popup shows the session's final counts.
  const info = await popup.evaluate(async (id) => (await fetch(`/api/sessions/${id}`)).json(), sessionId);
  failCount = info.verdicts.fail;
  verdicts = `${info.verdicts.pass} pass · ${failCount} fail`;
  await waitFor(async () => (await popup.textContent("#verdicts")) === verdicts, `the popup to show ${verdicts}`);
}, { timeout: 240000 });

after(async () => {
  await browser?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the popup shows the session's figures, verdicts, downloads and links", async () => {
  assert.equal(await popup.isVisible("#start"), true);
  assert.equal(await popup.isVisible("#stop"), false);
  assert.ok(Number(await popup.textContent('[data-stat="Records"]')) >= 10);
  assert.ok(Number(await popup.textContent('[data-stat="Non-GET"]')) >= 4);
  assert.match(await popup.textContent('[data-stat="Size"]'), /^\d+(\.\d)? [KM]?B$/);
  assert.match(await popup.textContent('[data-stat="Elapsed"]'), /^\d+(s|m\d\ds)$/);
  // / and /gallery pass; /missing and the stylesheet (loaded by every page) fail.
  assert.match(verdicts, /^2 pass · [4-9] fail$/);
  assert.equal(await popup.textContent("#verdicts"), verdicts);
  assert.ok(failCount >= 4);
  for (const [id, suffix] of [["download-bundle", "/bundle.zip"], ["download-warc", "/warc.gz"], ["download-warc11", "/warc11.gz"],
    ["download-wacz", ".wacz"], ["download-cdxj", "/index.cdxj"]]) {
    assert.ok((await popup.getAttribute("#" + id, "href")).endsWith(suffix), id);
  }
  assert.equal(await popup.getAttribute("#to-options", "href"), "options.html");
  // The popup's width is the 340px a browser action popup gets; nothing overflows it.
  const overflow = await popup.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 340, `popup is ${overflow}px wide`);
});

test("the archive lists the session and its records, with verdicts", async () => {
  archive = await browser.context.newPage();
  await archive.setViewportSize({ width: 1280, height: 860 });
  await archive.goto(browser.page(`archive.html#${sessionId}`));
  await archive.waitForSelector(`#sessions tr[data-session="${sessionId}"][aria-current="true"]`);
  // The session opens on its pages, each with the title it had, and its actions.
  await waitFor(async () => (await archive.$$("#pages li")).length >= 4, "the pages");
  assert.equal(await archive.getAttribute("#show-pages", "aria-selected"), "true");
  assert.ok(await archive.isHidden("#records-view"));
  const cards = await archive.$$eval("#pages li", (lis) => lis.map((li) => ({
    path: new URL(li.dataset.url).pathname, title: li.querySelector("h3").textContent,
    replay: li.querySelector("a.replay").getAttribute("href"), record: li.querySelector('button[data-action="record"]') !== null,
  })));
  const byPath = Object.fromEntries(cards.map((c) => [c.path, c]));
  assert.equal(byPath["/"].title, "webkeep demo site");
  assert.equal(byPath["/gallery"].title, "Gallery");
  assert.equal(byPath["/missing"].title, "404 Not Found");
  assert.ok(cards.every((c) => c.replay.startsWith("replay.html?session=") && c.record), JSON.stringify(cards));
  // The last page visited was open when recording stopped: it has a picture, taken
  // then, 320 pixels wide.
  await waitFor(() => archive.$eval('#pages li[data-url$="/missing"] img.thumbnail', (img) => img.complete && img.naturalWidth).catch(() => 0), "the last page's picture");
  assert.equal(await archive.$eval('#pages li[data-url$="/missing"] img.thumbnail', (img) => img.naturalWidth), 320);
  // A page's Records: the records of its URL.
  await archive.click('#pages li[data-url$="/gallery"] button[data-action="records"]');
  assert.ok(await archive.isVisible("#records-view"));
  assert.equal(await archive.getAttribute("#show-records", "aria-selected"), "true");
  assert.ok((await shownPaths()).every((p) => p === "/gallery"), (await shownPaths()).join(" "));
  // Its Open record: the detail of the page's capture.
  await archive.click("#show-pages");
  await archive.click('#pages li[data-url$="/gallery"] button[data-action="record"]');
  await archive.waitForSelector("#record-detail:not([hidden])");
  assert.equal(new URL(await archive.textContent("#detail-uri")).pathname, "/gallery");
  await archive.click("#detail-close");
  await waitFor(async () => (await archive.$$("#records tr")).length >= 10, "the records");
  assert.match(await archive.textContent("#record-count"), /^(\d+) of \1 captures( \(\d+ notes? beside them\))?$/);
  // No row is a note (a metadata record: text, no status): notes are marked on the
  // row of the URL they concern, and read in its detail.
  const rows = await archive.$$eval("#records tr", (trs) => trs.map((tr) => [tr.querySelector("td.mime").textContent, tr.querySelector("td.num").textContent]));
  assert.deepEqual(rows.filter(([mime, status]) => mime.startsWith("text/plain") && status.trim() === ""), []);
  assert.equal(await archive.textContent("#session-verdicts"), "URL database: " + verdicts);
  assert.equal(Number(await archive.textContent("#page-count")), cards.length);
  // The demo site's data.txt was asked for when it was first recorded.
  await archive.waitForSelector("#sites tr[data-origin]");
});

/** The URLs (paths) of the records the table shows. */
const shownPaths = async () => (await archive.$$eval("#records tr td.url", (tds) => tds.map((td) => new URL(td.getAttribute("title")).pathname)));
const distinctPaths = async () => [...new Set(await shownPaths())].sort();

/** Clears the filter's search box and lists. */
async function clearFilter() {
  await archive.fill("#filter", "");
  for (const id of ["method", "status", "type", "verdict"]) await archive.selectOption(`#filter-${id}`, "");
}

test("the filter narrows the records by method, status, type, verdict and words", async (t) => {
  t.after(clearFilter);
  const total = (await shownPaths()).length;
  await archive.fill("#filter", "method:POST");
  // The gallery's worker POSTs after the page's load; the test may leave the page first.
  assert.deepEqual((await distinctPaths()).filter((p) => p !== "/api/worker"), ["/api/binary", "/api/json"]);
  assert.ok((await archive.$$eval("#records td.method", (tds) => tds.map((t) => t.textContent))).every((m) => m === "POST"));
  await archive.fill("#filter", "");
  await archive.selectOption("#filter-method", "DELETE");
  assert.match((await distinctPaths()).join(), /^\/api\/item\/\w+$/);
  await archive.selectOption("#filter-method", "");
  await archive.selectOption("#filter-verdict", "fail");
  assert.deepEqual(await distinctPaths(), ["/missing", "/static/style.css"]);
  assert.equal((await shownPaths()).length, failCount);
  await archive.selectOption("#filter-verdict", "pass");
  assert.deepEqual(await distinctPaths(), ["/", "/gallery"]);
  await archive.selectOption("#filter-verdict", "");
  await archive.selectOption("#filter-status", "4xx");
  assert.deepEqual(await shownPaths(), ["/missing"]);
  await archive.selectOption("#filter-status", "");
  await archive.selectOption("#filter-type", "application/json");
  assert.ok((await distinctPaths()).includes("/api/json"));
  await archive.selectOption("#filter-type", "");
  await archive.fill("#filter", "type:css verdict:fail");
  assert.deepEqual(await distinctPaths(), ["/static/style.css"]);
  await archive.fill("#filter", "gallery");
  assert.ok((await shownPaths()).includes("/gallery"));
  assert.match(await archive.textContent("#record-count"), new RegExp(`^\\d+ of ${total} captures`));
  await archive.fill("#filter", "no-such-record-anywhere");
  assert.equal((await shownPaths()).length, 0);
  await archive.fill("#filter", "");
  assert.equal((await shownPaths()).length, total);
});

test("clicking a record shows its CDX key, headers and request", async (t) => {
  t.after(clearFilter);
  await archive.fill("#filter", "method:PUT");
  await archive.click("#records tr td.url");
  await archive.waitForSelector("#record-detail:not([hidden])");
  await waitFor(async () => (await archive.textContent("#detail-key")).includes("__wb_method=put"), "the PUT record's CDX key");
  assert.equal(await archive.textContent("#detail-type"), "response");
  assert.match(await archive.textContent("#detail-http"), /^HTTP\/1\.1 200 /);
  assert.match(await archive.textContent("#detail-request"), /^PUT \/api\/item\/\d+ HTTP\/1\.1\r?\n/);
  assert.match(await archive.textContent("#detail-fields"), /WARC-Payload-Digest\s*sha1:[A-Z2-7]{32}/);
  if (shots) await archive.locator("#record-detail").screenshot({ path: path.join(shots, "record.png") });
});

test("\"Add to database\" adds a recorded page to the URL database", async (t) => {
  t.after(clearFilter);
  await archive.fill("#filter", "url:/forms");
  await archive.click("#records tr td.url");
  await waitFor(async () => (await archive.textContent("#detail-uri")).endsWith("/forms"), "the /forms record");
  await archive.fill("#add-categories", "demo, static-page");
  await archive.click("#add-to-db");
  await waitFor(async () => /^Added \/forms to 127\.0\.0\.1/.test(await archive.textContent("#add-result")), "the record to be added");
  await archive.fill("#filter", "");
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await waitFor(async () => /Loaded: 1 domain, 5 records/.test(await options.textContent("#urldb-status")), "5 records in the database");
  await options.close();
  if (shots) {
    await archive.click("#show-pages");
    await archive.evaluate(() => window.scrollTo(0, 0));
    await archive.screenshot({ path: path.join(shots, "archive-pages.png"), fullPage: true });
    await archive.click("#show-records");
    await archive.fill("#filter", "method:POST");
    await archive.click("#records tr td.url");
    await archive.waitForSelector("#record-detail:not([hidden])");
    await waitFor(async () => (await archive.textContent("#detail-key")).includes("__wb_method=post"), "a POST record");
    await archive.fill("#filter", "");
    await archive.evaluate(() => window.scrollTo(0, 0));
    await archive.screenshot({ path: path.join(shots, "archive.png"), fullPage: true });
  }
});

test("a page of the session replays from the archive, in a tab of its own", async () => {
  const url = new URL("/gallery", site.url).href;
  const r = await openReplay(browser, sessionId, url);
  try {
    assert.equal(await r.evaluate(() => document.title), "Gallery");
    assert.equal(await r.evaluate(() => location.href), url, "the page replays at its original URL");
    await waitFor(async () => Number(await r.bar.textContent("#replay-answered")) > 0, "the answers in the replay page");
    assert.equal(await r.bar.textContent("#replay-url"), url);
    if (shots) {
      // The replayed tab and the replay page, side by side in one picture.
      await r.bar.setViewportSize({ width: 460, height: 640 });
      const tab = Number(await r.bar.getAttribute("body", "data-replay-tab"));
      await r.evaluate(() => new Promise((done) => setTimeout(done, 1500))); // the gallery's worker and images
      const replayed = await r.bar.evaluate(async (tabId) => {
        const target = { tabId };
        await chrome.debugger.sendCommand(target, "Emulation.setDeviceMetricsOverride", { width: 800, height: 640, deviceScaleFactor: 1, mobile: false });
        const shot = await chrome.debugger.sendCommand(target, "Page.captureScreenshot", { format: "png" });
        await chrome.debugger.sendCommand(target, "Emulation.clearDeviceMetricsOverride", {});
        return shot.data;
      }, tab);
      const bar = (await r.bar.screenshot()).toString("base64");
      const sheet = await browser.context.newPage();
      await sheet.setViewportSize({ width: 1300, height: 720 });
      await sheet.setContent(`<body style="margin:0;padding:10px;background:#e8e8e8;font:14px system-ui,sans-serif;display:flex;gap:10px;align-items:flex-start">
        <figure style="margin:0;width:800px"><figcaption style="margin-bottom:4px">The page replayed in its own tab, at its original URL</figcaption>
        <img style="width:800px;border:1px solid #999" src="data:image/png;base64,${replayed}"></figure>
        <figure style="margin:0;width:460px"><figcaption style="margin-bottom:4px">webkeep replay: what the archive answered</figcaption>
        <img style="width:460px;border:1px solid #999" src="data:image/png;base64,${bar}"></figure></body>`);
      await sheet.locator("body").screenshot({ path: path.join(shots, "replay.png") });
      await sheet.close();
    }
  } finally {
    await r.close();
  }
});

test("rename: the new name is kept", async () => {
  await archive.click("#rename");
  await archive.fill("#rename-input", "Demo site, renamed");
  await archive.click("#rename-save");
  await waitFor(async () => (await archive.textContent("#session-title")) === "Demo site, renamed", "the new title");
  await archive.waitForSelector("#rename-form", { state: "hidden" });
  await archive.reload();
  await archive.waitForSelector(`#sessions tr[data-session="${sessionId}"]`);
  assert.equal(await archive.textContent(`#sessions tr[data-session="${sessionId}"] td.name a:not(.replay)`), "Demo site, renamed");
  // An empty name is refused in the page, with what to do.
  await archive.waitForSelector("#session-view:not([hidden])");
  await archive.click("#rename");
  await archive.fill("#rename-input", "  ");
  await archive.click("#rename-save");
  await archive.waitForSelector("#error:not([hidden])");
  assert.match(await archive.textContent("#error"), /needs a name/);
  await archive.click("#rename-cancel");
});

test("import: a WARC downloaded from a session becomes a new session", async () => {
  const warc = path.join(dir, "import.warc.gz");
  const b64 = await archive.evaluate(async (id) => {
    const res = await fetch(`/api/sessions/${id}/warc.gz`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  }, sessionId);
  writeFileSync(warc, Buffer.from(b64, "base64"));
  const before = (await archive.$$("#sessions tr")).length;
  await archive.setInputFiles("#import-file", warc);
  await archive.waitForSelector('#jobs .job[data-state="done"]');
  await waitFor(async () => (await archive.$$("#sessions tr")).length === before + 1, "the imported session");
  await waitFor(async () => (await archive.textContent("#session-title")).length > 0 && !archive.url().endsWith(sessionId), "the imported session to open");
  const id = new URL(archive.url()).hash.slice(1);
  importedId = id;
  const count = (sid) => archive.evaluate(async (s) => (await (await fetch(`/api/sessions/${s}/records`)).json()).length, sid);
  const original = await count(sessionId);
  const imported = await count(id);
  assert.ok(imported >= original, `${imported} records imported from a session of ${original}`);
  // The table shows the captures: every index line but the notes (metadata records).
  const captures = await archive.evaluate(async (s) => (await (await fetch(`/api/sessions/${s}/records`)).json())
    .filter((r) => !(r.fields.mime.startsWith("text/plain") && !r.fields.status && !r.revisitStatus)).length, id);
  await waitFor(async () => (await archive.$$("#records tr")).length === captures, `${captures} captures shown for the imported session ${id}`);
});

test("delete asks first, in the page, and Keep it keeps the session", async () => {
  await archive.goto(browser.page(`archive.html#${sessionId}`));
  await waitFor(async () => (await archive.textContent("#session-title")) === "Demo site, renamed", "the renamed session to open");
  await archive.click("#delete");
  await archive.waitForSelector("#delete-confirm:not([hidden])");
  assert.match(await archive.textContent("#delete-question"), /^Delete “Demo site, renamed”: \d+ records, .* This cannot be undone/);
  await archive.click("#cancel-delete");
  await archive.waitForSelector("#delete-confirm", { state: "hidden" });
  const still = await archive.evaluate(async (id) => (await fetch(`/api/sessions/${id}`)).status, sessionId);
  assert.equal(still, 200);

  await archive.click("#delete");
  await archive.click("#confirm-delete");
  await archive.waitForSelector(`#sessions tr[data-session="${sessionId}"]`, { state: "detached" });
  await archive.waitForSelector("#session-view", { state: "hidden" });
  assert.match(await archive.textContent("#notice"), /Deleted “Demo site, renamed”/);
  const gone = await archive.evaluate(async (id) => (await fetch(`/api/sessions/${id}`)).status, sessionId);
  assert.equal(gone, 404);
});

test("options: saved settings come back after a reload; bad ones are refused with a reason", async () => {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await waitFor(async () => (await options.inputValue("#agent")) === "webkeep", "the settings");
  if (shots) {
    await options.waitForSelector("#key-fingerprint[data-fingerprint]", { timeout: 30000 });
    await options.screenshot({ path: path.join(shots, "options.png"), fullPage: true });
  }
  assert.equal(await options.inputValue("#header-policy"), "redact");
  assert.match(await options.textContent("#settings"), /Default: redact/);
  await options.selectOption("#header-policy", "keep");
  await options.fill("#body-limit", "5 MB");
  await options.selectOption("#warc-version", "1.1");
  await options.selectOption("#cdx-dialect", "pywb-2.8");
  await options.fill("#agent", "webkeep-test");
  await options.check("#respect-disallow");
  await options.click("#add-domain");
  await options.fill(".domain-rule:last-child .domain", "example.net");
  // A rule of shared/urlrules/testdata/example_net.rules.
  await options.fill(".domain-rule:last-child .rules", "everything_else {\n  protocol = any;\n}");
  await options.fill("#team-endpoint", "https://team.example.org");
  await options.fill("#team-token", "s3cret-token");
  // Saving asks for access to the team archive's site; the user allows it.
  const revoke = await browser.grantSite("https://team.example.org/*");
  await options.click("#save");
  await options.waitForSelector('#saved[data-state="saved"]');
  assert.match(await options.textContent("#saved"), /^Saved at \d\d:\d\d:\d\d\.$/);

  await options.reload();
  await waitFor(async () => (await options.inputValue("#agent")) === "webkeep-test", "the saved settings");
  assert.equal(await options.inputValue("#header-policy"), "keep");
  assert.equal(await options.inputValue("#body-limit"), "5 MB");
  assert.equal(await options.inputValue("#warc-version"), "1.1");
  assert.equal(await options.inputValue("#cdx-dialect"), "pywb-2.8");
  assert.equal(await options.isChecked("#respect-disallow"), true);
  assert.equal(await options.inputValue(".domain-rule .domain"), "example.net");
  assert.equal(await options.inputValue(".domain-rule .rules"), "everything_else {\n  protocol = any;\n}");
  assert.equal(await options.inputValue("#team-endpoint"), "https://team.example.org");
  // The token is write-only: never shown, but known to be stored.
  assert.equal(await options.inputValue("#team-token"), "");
  assert.equal(await options.getAttribute("#token-state", "data-set"), "true");
  const html = await options.content();
  assert.ok(!html.includes("s3cret-token"), "the token is not in the page");

  // Saving again without typing the token keeps it.
  await options.click("#save");
  await options.waitForSelector('#saved[data-state="saved"]');
  assert.equal(await options.getAttribute("#token-state", "data-set"), "true");

  // A size that is not one is refused in the page; rules the core cannot compile by the core.
  await options.fill("#body-limit", "ten");
  await options.click("#save");
  await options.waitForSelector('#saved[data-state="failed"]');
  assert.match(await options.textContent("#error"), /body size limit: not a size: "ten"/);
  await options.fill("#body-limit", "0");
  await options.fill(".domain-rule .rules", "website(");
  await options.click("#save");
  await waitFor(async () => /domainRules\[example\.net\]/.test(await options.textContent("#error")), "the core's refusal");
  assert.equal(await options.getAttribute("#saved", "data-state"), "failed");
  await options.reload();
  await waitFor(async () => (await options.inputValue("#agent")) === "webkeep-test", "the settings");
  assert.equal(await options.inputValue("#body-limit"), "5 MB", "a refused save changes nothing");

  // Forgetting the token.
  await options.check("#clear-token");
  await options.click("#save");
  await options.waitForSelector('#saved[data-state="saved"]');
  assert.equal(await options.getAttribute("#token-state", "data-set"), "false");
  await options.close();
  await revoke();
});

test("options: the database exports as a zip", async () => {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector('#urldb-status[data-loaded="true"]');
  // (Check all is tested against a site without CORS headers in check.test.mjs.)
  const exported = await options.evaluate(async () => {
    const r = await fetch("/api/urldb/export.zip");
    return [r.status, r.headers.get("Content-Type"), new Uint8Array(await r.arrayBuffer()).slice(0, 2).join()];
  });
  assert.deepEqual(exported, [200, "application/zip", "80,75"]);
  await options.close();
});

/**
 * A stand-in for the team archive's uploads in parts (docs/worker.md: POST
 * /api/uploads/<name> to start, 409 when the name is taken unless ?overwrite=1; PUT
 * .../<upload>/<n> a part; GET .../<upload> the parts received; POST .../<upload> to
 * complete; DELETE to abort), bearer token, and of its shared URL database (GET
 * /api/urldb, a zip), answering the extension's cross-origin requests.
 */
function startTeamArchive(token) {
  const bundles = new Map();
  const uploads = new Map(); // upload id -> { name, parts: Map(n -> Buffer) }
  const team = { bundles, urldb: null, stall: false, stalled: [], refused: 0, completed: 0, preflights: 0 };
  const partSize = 5 << 20;
  const server = createServer((req, res) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Allow-Methods", "GET, PUT, POST, DELETE");
    res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type");
    if (req.method === "OPTIONS") {
      team.preflights++;
      return res.end();
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url, "http://x");
      const answer = (status, body) => { res.writeHead(status, { "Content-Type": "application/json" }); res.end(body === undefined ? "" : JSON.stringify(body)); };
      if (req.headers.authorization !== `Bearer ${token}`) return answer(401, { error: "bad token" });
      if (req.method === "GET" && url.pathname === "/api/urldb" && team.urldb) {
        res.writeHead(200, { "Content-Type": "application/zip" });
        return res.end(team.urldb);
      }
      if (team.stall) return team.stalled.push(res); // answers nothing until closed
      const [, name, id, n] = url.pathname.match(/^\/api\/uploads\/([^/]+)(?:\/([^/]+)(?:\/(\d+))?)?$/) || [];
      if (!name) return answer(404, { error: "not found" });
      const facts = (u) => ({ name: u.name, upload: id, partSize, maxParts: 10000, maxSize: 16 << 30,
        parts: [...u.parts].map(([number, b]) => ({ number, size: b.length, etag: String(number) })),
        received: [...u.parts.values()].reduce((a, b) => a + b.length, 0) });
      if (!id && req.method === "POST") {
        if (bundles.has(name) && url.searchParams.get("overwrite") !== "1") {
          team.refused++;
          return answer(409, { error: `${name} exists` });
        }
        const upload = `u${uploads.size + 1}`;
        uploads.set(upload, { name, parts: new Map() });
        return answer(201, { name, upload, partSize, maxParts: 10000, maxSize: 16 << 30, parts: [], received: 0 });
      }
      const u = uploads.get(id);
      if (!u || u.name !== name) return answer(404, { error: "no such upload" });
      const body = Buffer.concat(chunks);
      if (n && req.method === "PUT") {
        u.parts.set(Number(n), body);
        return answer(200, { number: Number(n), size: body.length, etag: n });
      }
      if (req.method === "GET") return answer(200, facts(u));
      if (req.method === "DELETE") { uploads.delete(id); return answer(204); }
      if (req.method === "POST") {
        const whole = Buffer.concat([...u.parts].sort((a, b) => a[0] - b[0]).map(([, b]) => b));
        uploads.delete(id);
        bundles.set(name, whole);
        team.completed++;
        return answer(201, { name, records: 0, size: whole.length });
      }
      answer(405, { error: "method" });
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(Object.assign(team, {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => { for (const r of team.stalled) r.destroy(); server.close(); },
  }))));
}

test("saving a team archive: the page says it waits for the browser's question, then what refusing access costs", async () => {
  const options = await browser.context.newPage();
  try {
    await options.goto(browser.page("options.html"));
    await waitFor(async () => (await options.inputValue("#agent")) !== "", "the settings");
    await options.fill("#team-endpoint", "http://127.0.0.1:9/");
    await options.fill("#team-token", "team-token-0");
    // The browser's own prompt cannot be answered in a headless browser: the page's
    // calls to it are answered here, access not granted yet, then refused.
    await options.evaluate(() => {
      const perms = chrome.permissions;
      perms.contains = () => Promise.resolve(false);
      perms.request = () => new Promise((resolve) => { window.answerAccess = resolve; });
    });
    await options.click("#save");
    await options.waitForSelector('#saved[data-state="asking"]');
    assert.equal(await options.textContent("#saved"), "Waiting for your answer to the browser's question: may webkeep read http://127.0.0.1?");
    await options.evaluate(() => window.answerAccess(false));
    await options.waitForSelector('#saved[data-state="saved"]');
    assert.match(await options.textContent("#saved"), /^Saved at \d\d:\d\d:\d\d\. Without access to the team archive's site \(http:\/\/127\.0\.0\.1\/\*\), the browser checks each request to it with one more before it \(CORS\): save again to be asked, or allow it on the extensions page\.$/);
    assert.equal(await options.inputValue("#team-endpoint"), "http://127.0.0.1:9/", "the settings were saved all the same");
  } finally {
    await options.close();
  }
});

test("upload to team: progress, then an in-page choice to replace a bundle the team has", async () => {
  const team = await startTeamArchive("team-token-1");
  let revoke;
  try {
    const options = await browser.context.newPage();
    await options.goto(browser.page("options.html"));
    await waitFor(async () => (await options.inputValue("#agent")) !== "", "the settings");
    await options.fill("#team-endpoint", team.url);
    await options.fill("#team-token", "team-token-1");
    // Saving asks for access to the team archive's site; the user allows it, so no
    // request to it waits for a CORS check (a preflight, OPTIONS) before it.
    revoke = await browser.grantSite("http://127.0.0.1/*");
    // What the page asks the browser about (granted already: it asks no further).
    await options.evaluate(() => {
      const perms = chrome.permissions, contains = perms.contains.bind(perms);
      window.askedAccess = [];
      perms.contains = (p) => { window.askedAccess.push(...p.origins); return contains(p); };
    });
    await options.click("#save");
    await options.waitForSelector('#saved[data-state="saved"]');
    assert.match(await options.textContent("#saved"), /^Saved at \d\d:\d\d:\d\d\.$/);
    assert.deepEqual(await options.evaluate(() => window.askedAccess), ["http://127.0.0.1/*"], "saving asks for the team archive's site");
    await options.close();

    await archive.goto(browser.page(`archive.html#${importedId}`));
    await archive.waitForSelector(`#sessions tr[data-session="${importedId}"][aria-current="true"]`);
    await archive.click("#upload");
    await archive.waitForSelector('#jobs .job[data-state="done"]');
    await waitFor(async () => /^Uploaded “.*” to the team archive as webkeep-.*\.zip\.$/.test(await archive.textContent("#notice")), "the upload notice");
    assert.equal(team.bundles.size, 1);
    const [name, bytes] = [...team.bundles][0];
    assert.equal(name, `webkeep-${importedId}.zip`);
    assert.equal(bytes.subarray(0, 4).toString("latin1"), "PK\x03\x04", "a zip was uploaded");

    await archive.click("#upload");
    await archive.waitForSelector("#upload-exists:not([hidden])");
    await archive.click("#upload-replace");
    await archive.waitForSelector("#upload-exists", { state: "hidden" });
    // The session's upload is one job, run again: the team archive saw the second
    // upload refused (409) and the replacement completed.
    await waitFor(async () => team.completed === 2, "the second upload");
    assert.equal(team.refused, 1, "the upload refused with 409");
    await archive.waitForSelector('#jobs .job[data-state="done"]');
    assert.equal(await archive.isVisible("#error"), false);

    // Long work can be cancelled: an upload the team archive never answers.
    team.stall = true;
    await archive.click("#upload");
    const job = archive.locator('#jobs .job[data-state="running"]');
    await job.waitFor();
    await waitFor(() => team.stalled.length === 1, "the upload to reach the team archive");
    await job.locator('[data-action="cancel"]').click();
    await archive.waitForSelector('#jobs .job[data-state="cancelled"]');
    assert.equal(await archive.isVisible("#error"), false, "a cancelled job is not an error");
    team.stall = false;

    // The team's URL database: here, what this browser exports, after it is unloaded.
    const b64 = await archive.evaluate(async () => {
      const bytes = new Uint8Array(await (await fetch("/api/urldb/export.zip")).arrayBuffer());
      return btoa(String.fromCharCode(...bytes));
    });
    team.urldb = Buffer.from(b64, "base64");
    const o = await browser.context.newPage();
    await o.goto(browser.page("options.html"));
    await o.waitForSelector('#urldb-status[data-loaded="true"]');
    const before = await o.textContent("#urldb-status");
    await o.click("#urldb-clear");
    await o.waitForSelector('#urldb-status[data-loaded="false"]');
    await o.click("#urldb-team");
    await o.waitForSelector('#urldb-status[data-loaded="true"]');
    assert.equal(await o.textContent("#urldb-status"), before);
    assert.match(await o.textContent("#notice"), /Loaded the team's URL database/);
    await o.close();
    assert.equal(team.preflights, 0, "no request waited for a CORS check");
  } finally {
    await revoke?.();
    team.close();
  }
});

test("the elapsed time goes on while recording", async () => {
  const page = await browser.context.newPage();
  const url = new URL("/gallery?elapsed", site.url).href;
  await page.goto(url);
  const tab = await tabId(browser.sw, url);
  const p = await browser.context.newPage();
  await p.goto(browser.page(`popup.html?tab=${tab}`));
  await p.waitForSelector('#state[data-recording="false"]');
  await p.click("#start");
  await waitFor(async () => (await p.getAttribute("#state", "data-recording")) === "true" || (await p.isVisible("#error")), "recording to start");
  assert.equal(await p.isVisible("#error"), false, await p.textContent("#error"));
  const first = await p.textContent('[data-stat="Elapsed"]');
  await waitFor(async () => (await p.textContent('[data-stat="Elapsed"]')) !== first, "the elapsed time to change", 5000);
  await p.click("#stop");
  await p.waitForSelector('#state[data-recording="false"]');
  await p.close();
  await page.close();
});
