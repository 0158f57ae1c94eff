// End to end in headless Firefox ESR through webkeep's Firefox build, against a real web
// application: Debian's DokuWiki (scripts/lib/dokuwiki.mjs) behind the proxy that logs
// every exchange on the wire (scripts/tools/wireproxy). A user's session (log in, edit a page
// with non-ASCII text, upload an image in the media manager, search, log out) and a
// quick-navigation run are recorded with the default settings, and each run's archive
// is compared with the wire (scripts/lib/wire.mjs); three of the session's pages are
// then replayed from its WACZ in ReplayWeb.page (webkeep's own replay is not built in
// Firefox).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { waitFor } from "../../lib/browser.mjs";
import { checkLoginArchived, checkReplayWebPage, checkUploadArchived, pageState, quickNavigation, startDokuWiki, wikiUser } from "../../lib/dokuwiki.mjs";
import { api, firefoxTabId, launchFirefox } from "../../lib/firefox.mjs";
import { png } from "../../lib/png.mjs";
import { readWarc09, reassemble } from "../../lib/warc09.mjs";
import { compareRun, summary, wireQuiet } from "../../lib/wire.mjs";

let wiki, firefox, files;
const runs = {};
const uploadBytes = png(1001);
const json = (r) => JSON.parse(r.bytes.toString("utf8"));

/**
 * Records what act(page) does in a new tab at the wiki's start page, started and
 * stopped through the extension's API; resolves to { id, records, info, wire, report }.
 */
async function recordAgainstWire(act) {
  const page = await firefox.browser.newPage();
  const startURL = new URL("doku.php?id=start", wiki.url).href;
  await page.goto(startURL);
  const tab = await firefoxTabId(firefox.control, startURL);
  await wireQuiet(wiki);
  const t0 = Date.now();
  const start = await api(firefox.control, "POST", `/api/record/start?tab=${tab}`);
  assert.equal(start.status, 200, start.bytes.toString());
  const { id } = json(start);
  await act(page);
  await wireQuiet(wiki);
  const stop = await api(firefox.control, "POST", "/api/record/stop");
  assert.equal(stop.status, 200, stop.bytes.toString());
  const t1 = Date.now();
  await page.close();
  const warc = await api(firefox.control, "GET", `/api/sessions/${id}/warc.gz`);
  const records = reassemble(readWarc09(warc.bytes));
  return { id, records, info: json(stop), ...compareRun(wiki, t0, t1, records) };
}

// The address page shows, or "" if it cannot say within 2 s (between two documents).
const shownURL = (page) => Promise.race([page.evaluate(() => location.href), new Promise((r) => setTimeout(() => r(""), 2000))]).catch(() => "");

// What pages of the user's session showed live, by URL (pageState's).
const live = {};
const seen = async (page) => { live[await shownURL(page)] = await pageState((f) => page.evaluate(f)); };

// Whether page shows a document other than the one at before, loaded.
const loadedAfter = async (page, before) => {
  const now = await shownURL(page);
  return now !== "" && now !== before && (await Promise.race([page.evaluate(() => document.readyState === "complete"), new Promise((r) => setTimeout(r, 2000, false))]).catch(() => false));
};

/** Has page navigate by act (a click, a key) and waits until the next page has loaded. */
async function navigateBy(page, act, what) {
  const before = await shownURL(page);
  await act();
  await waitFor(() => loadedAfter(page, before), `${what}: the next page to load`);
}
const clickToNavigate = (page, selector) => navigateBy(page, () => page.$eval(selector, (e) => e.click()), selector);

// The page's document.readyState, or "" if it cannot say within 2 s.
const readyState = (page) => Promise.race([page.evaluate(() => document.readyState), new Promise((r) => setTimeout(r, 2000, ""))]).catch(() => "");

// How quickNavigation drives Firefox (puppeteer over WebDriver BiDi, which has no wait
// for a navigation's commit): each step starts a navigation in the page and polls
// the page's address (a page is left once the next one's document shows its address)
// and readyState, so that a missed event of the driver's cannot stall it.
const commit = async (page, url) => {
  await page.evaluate((u) => { location.href = u; }, url);
  await waitFor(async () => (await shownURL(page)) === url, `${url} to commit`);
};
const loaded = (page, url, states, timeout) => waitFor(async () => (await shownURL(page)) === url && states.includes(await readyState(page)), `${url} to be ${states.join(" or ")}`, timeout);
const firefoxSteps = {
  commit,
  domContentLoaded: async (page, url) => {
    await commit(page, url);
    await loaded(page, url, ["interactive", "complete"]);
  },
  clickToCommit: async (page, selector, part) => {
    await page.$eval(selector, (a) => a.click());
    await waitFor(async () => (await shownURL(page)).includes(part), `${part} to commit after a click on ${selector}`);
  },
  load: async (page, url) => {
    await commit(page, url);
    await loaded(page, url, ["complete"], 60000);
  },
};

/** A user's session: log in, edit, upload, search, log out. */
async function userSession(page) {
  const base = wiki.url;
  // Each step's error says which step it was (puppeteer's timeouts name none).
  const step = async (what, f) => {
    try {
      return await f();
    } catch (e) {
      throw new Error(`${what}: ${e.message} (the page at ${await shownURL(page)})`);
    }
  };
  await step("the login page", () => page.goto(new URL("doku.php?id=start&do=login", base).href));
  await step("typing the login", async () => {
    await page.type("#dw__login input[name=u]", wikiUser.name);
    await page.type("#dw__login input[name=p]", wikiUser.password);
  });
  await step("logging in", () => clickToNavigate(page, "#dw__login button[type=submit]"));
  await step("the logout link", () => page.waitForSelector('a[href*="do=logout"]'));

  await step("the edit page", () => page.goto(new URL("doku.php?id=notes&do=edit", base).href));
  await step("typing the text", async () => {
    await page.$eval("#wiki__text", (e) => { e.value = ""; });
    await page.type("#wiki__text", "====== Notes ======\n\nÉté à Zürich: naïve café, Ελληνικά, 日本語.\n");
  });
  await step("saving", () => clickToNavigate(page, "#edbtn__save"));
  assert.match(await page.$eval("#dokuwiki__content", (e) => e.textContent), /Ελληνικά, 日本語/);

  await step("the media manager", () => page.goto(new URL("doku.php?id=notes&do=media&ns=&tab_files=upload", base).href));
  await step("uploading", async () => {
    await (await page.$("#mediamanager__uploader input[type=file]")).uploadFile(files.upload);
    await page.click("#mediamanager__upload_button");
    await page.waitForSelector(".qq-upload-success a", { timeout: 60000 });
  });
  await step("the edited page", async () => {
    await page.goto(new URL("doku.php?id=notes", base).href);
    await seen(page);
  });

  await step("typing the search", () => page.type("#qsearch__in", "Zürich"));
  await new Promise((r) => setTimeout(r, 1000)); // the quick search answers as one types
  await step("searching", async () => {
    await navigateBy(page, () => page.keyboard.press("Enter"), "the search");
    await page.waitForSelector("#dokuwiki__content");
    await seen(page);
  });

  await step("logging out", async () => {
    await clickToNavigate(page, 'a[href*="do=logout"]');
    await page.waitForSelector('a[href*="do=login"]');
    await seen(page);
  });
}

before(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-realsite-firefox-"));
  files = { dir, upload: path.join(dir, "bildschirmfoto-äöü.png") };
  writeFileSync(files.upload, uploadBytes);
  wiki = await startDokuWiki();
  firefox = await launchFirefox();
  runs.session = await recordAgainstWire(userSession);
  runs.quick = await recordAgainstWire((page) => quickNavigation(page, wiki.url, firefoxSteps));
}, { timeout: 600000 });

after(async () => {
  await firefox?.close();
  wiki?.stop();
  if (files) rmSync(files.dir, { recursive: true, force: true });
});

const label = { session: "a user's session", quick: "quick navigation" };
for (const name of ["session", "quick"]) {
  test(`${label[name]}: every exchange on the wire is archived byte-exact or marked, none missing`, (t) => {
    const { report, info } = runs[name];
    t.diagnostic(summary(report));
    for (const m of report.marks) t.diagnostic(`marked: ${m.method} ${m.url}: ${m.reason} (body: ${m.onWire} bytes on the wire, ${m.archived} archived)`);
    for (const m of report.missing) t.diagnostic(`missing: ${m.method} ${m.url} (${m.status})`);
    t.diagnostic(`the session's problems: ${JSON.stringify(info.reasons || {})}`);
    assert.ok(report.wire > 10, `only ${report.wire} exchanges on the wire`);
    assert.ok(report.exact > 0);
    assert.deepEqual(report.unmarked, [], "unmarked differences");
    // Firefox's webRequest reports every request of a tab, a page's being left
    // included: nothing is missing but the site files webkeep reads itself.
    assert.deepEqual(report.missing.filter((m) => !/^\/(data|robots)\.txt$/.test(m.url)), [], "missing from the archive");
  });
}

test("the login answer's Set-Cookie fields are archived, one for each on the wire, redacted by default", () => {
  checkLoginArchived(runs.session);
});

test("the file uploaded in the media manager is archived byte for byte, copied in the page", () => {
  checkUploadArchived(runs.session, uploadBytes);
});

test("a user's session recorded in Firefox replays in ReplayWeb.page from its WACZ: each page shows the text and images it showed live, its script runs", async () => {
  assert.equal(Object.keys(live).length, 3, JSON.stringify(Object.keys(live)));
  const wacz = await api(firefox.control, "GET", `/api/sessions/${encodeURIComponent(runs.session.id)}/wacz`);
  assert.equal(wacz.status, 200);
  const file = path.join(files.dir, "session.wacz");
  writeFileSync(file, wacz.bytes);
  await checkReplayWebPage(wiki, file, live);
}, { timeout: 300000 });
