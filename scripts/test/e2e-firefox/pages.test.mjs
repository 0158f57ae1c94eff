// End to end, in headless Firefox ESR through webkeep's Firefox build: the pages'
// uploads (fetch, with a Blob body: Firefox takes no stream) reach the core as in Chromium. The demo
// site's URL database is loaded on the options page and a WARC imported on the archive
// page, each from a file chosen in the page's file input, and the core's API shows both.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startDemoSite, waitFor } from "../../lib/browser.mjs";
import { api, launchFirefox, openExtensionPage } from "../../lib/firefox.mjs";
import { writeWARC10 } from "../../lib/hostile.mjs";

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
