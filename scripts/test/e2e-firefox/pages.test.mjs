// End to end, in headless Firefox ESR through webkeep's Firefox build: the pages'
// uploads (fetch, with a Blob body: Firefox takes no stream) reach the core as in Chromium. The demo
// site's URL database is loaded on the options page and a WARC imported on the archive
// page, each from a file chosen in the page's file input, and the core's API shows both.
// A file larger than a piece (4 MiB) goes to the background page in pieces, every byte
// of it, and an upload cancelled or whose page is closed part of the way leaves no
// session.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startDemoSite, waitFor } from "../../lib/browser.mjs";
import { api, launchFirefox, openExtensionPage } from "../../lib/firefox.mjs";
import { patternedBody, writeWARC10 } from "../../lib/hostile.mjs";
import { httpBody, readWarc09, reassemble } from "../../lib/warc09.mjs";

let site, firefox, dir;

before(async () => {
  site = await startDemoSite();
  firefox = await launchFirefox();
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-firefox-pages-"));
}, { timeout: 120000 });

after(async () => {
  await firefox?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// jobsEnded waits until the page's two job boxes (the upload's, then the core's job)
// have ended, and returns the page's job text when either did not end done.
async function jobsEnded(page, what) {
  await waitFor(() => page.evaluate(() => document.querySelectorAll("#jobs .job").length === 2 &&
    !document.querySelector('#jobs .job[data-state="running"]')), what, 120000);
  return page.evaluate(() => document.querySelectorAll('#jobs .job[data-state="done"]').length === 2 ? "" : document.querySelector("#jobs").textContent);
}

test("a URL database chosen on the options page is loaded by the core", async () => {
  const zip = path.join(dir, "demo-urldb.zip");
  writeFileSync(zip, Buffer.from(await (await fetch(new URL("/__urldb.zip", site.url))).arrayBuffer()));
  const options = await firefox.browser.newPage();
  await openExtensionPage(options, firefox.page("options.html"));
  const input = await options.$("#urldb-zip");
  await input.uploadFile(zip);
  await waitFor(() => options.evaluate(() => document.querySelector("#urldb-status").dataset.loaded === "true"), "the database to be shown loaded", 120000);
  const info = JSON.parse((await api(options, "GET", "/api/urldb")).bytes);
  assert.ok(info.loaded && info.records > 0, `the core's database: ${JSON.stringify(info).slice(0, 300)}`);
  // Firefox's background page runs for as long as the browser: no compiled core to keep
  // between starts, and no such choice shown.
  await waitFor(() => options.evaluate(() => document.querySelector("#settings").dataset.loaded === "true"), "the settings to be shown", 30000);
  assert.equal(await options.evaluate(() => document.querySelector("#keep-compiled-core-field").hidden), true, "the keeper's choice is hidden");
  await options.close();
});

test("a WARC chosen on the archive page is imported by the core, whole", async () => {
  const warc = path.join(dir, "two.warc");
  writeWARC10(warc, [1000, 300000], "http://imported.example/");
  const archive = await firefox.browser.newPage();
  await openExtensionPage(archive, firefox.page("archive.html"));
  const input = await archive.$("#import-file");
  await input.uploadFile(warc);
  assert.equal(await jobsEnded(archive, "the import to end"), "", "the upload and the import both end done");
  const sessions = JSON.parse((await api(archive, "GET", "/api/sessions")).bytes);
  const imported = sessions.find((s) => s.name === "two.warc");
  assert.ok(imported, `no session named two.warc among ${sessions.map((s) => s.name).join(", ")}`);
  assert.equal(imported.records, 2);
  await archive.close();
});

test("a WARC larger than a piece is imported in pieces, every byte of it", async () => {
  const warc = path.join(dir, "pieces.warc");
  const sizes = [9 << 20, 1000, (5 << 20) + 7];
  writeWARC10(warc, sizes, "http://pieces.example/");
  const archive = await firefox.browser.newPage();
  await openExtensionPage(archive, firefox.page("archive.html"));
  await (await archive.$("#import-file")).uploadFile(warc);
  assert.equal(await jobsEnded(archive, "the import to end"), "", "the upload and the import both end done");
  const sessions = JSON.parse((await api(archive, "GET", "/api/sessions")).bytes);
  const imported = sessions.find((s) => s.name === "pieces.warc");
  assert.ok(imported, `no session named pieces.warc among ${sessions.map((s) => s.name).join(", ")}`);
  assert.equal(imported.records, sizes.length);
  const records = reassemble(readWarc09((await api(archive, "GET", `/api/sessions/${encodeURIComponent(imported.id)}/warc.gz`)).bytes));
  sizes.forEach((size, i) => {
    const record = records.find((r) => r.type === "response" && r.uri === `http://pieces.example/${i}`);
    assert.ok(record, `a response record for http://pieces.example/${i}`);
    const { body } = httpBody(record.block);
    assert.equal(body.length, size, `record ${i}`);
    assert.equal(createHash("sha256").update(body).digest("hex"), createHash("sha256").update(patternedBody(size)).digest("hex"), `record ${i}`);
  });
  await archive.close();
});

// uploading starts importing name, a WARC of 400 MiB, from a new archive page, and
// resolves to the page once its upload is under way: the core has spooled part of it.
async function uploading(name) {
  const warc = path.join(dir, name);
  writeWARC10(warc, Array(400).fill(1 << 20), `http://${name}/`);
  const archive = await firefox.browser.newPage();
  await openExtensionPage(archive, firefox.page("archive.html"));
  await (await archive.$("#import-file")).uploadFile(warc);
  await waitFor(() => archive.evaluate(() => document.querySelector('#jobs .job [data-action="cancel"]') !== null), "the upload's box", 60000);
  await waitFor(async () => (await spooled()) > 0, "the upload to be spooled", 60000);
  return archive;
}

// spooled is the number of the core's spool keys (uploads it has taken part of).
const spooled = () => firefox.control.evaluate(async () => (await (await browser.runtime.getBackgroundPage()).webkeepHost.store.keys("spool/")).length);

// abandoned checks that the upload of name left nothing: its spool removed within ms,
// no session of it, and the core answering.
async function abandoned(name, ms) {
  await waitFor(async () => (await spooled()) === 0, `the spool of ${name} to be removed`, ms);
  const sessions = JSON.parse((await api(firefox.control, "GET", "/api/sessions")).bytes);
  assert.ok(!sessions.some((s) => s.name === name), sessions.map((s) => s.name).join(", "));
  assert.equal((await api(firefox.control, "GET", "/api/status")).status, 200);
}

test("an import cancelled as it uploads in pieces leaves no session", async () => {
  const archive = await uploading("cancelled.warc");
  await archive.evaluate(() => document.querySelector('#jobs .job [data-action="cancel"]').click());
  await waitFor(() => archive.evaluate(() => document.querySelector('#jobs .job[data-state="cancelled"]') !== null), "the upload to be cancelled", 60000);
  // The core is told the body failed: it removes what it spooled of it, makes no
  // session of it, and answers.
  await abandoned("cancelled.warc", 60000);
  await archive.close();
});

test("an import whose page is closed as it uploads in pieces leaves no session, and the core answers", async () => {
  const archive = await uploading("closed.warc");
  await archive.close();
  // The body's stream fails as the tab closes (sooner than a missing piece's 60 s).
  await abandoned("closed.warc", 30000);
});
