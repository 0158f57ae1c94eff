// End to end, in real Chromium through the real extension: inputs that once killed the
// core. A 4 MB URL-database zip that inflates to 4 GB is refused with the limit
// named, the loaded database and the sessions untouched; a WARC/1.0 with a 40 MiB record
// imports (its block spooled through IndexedDB); the core answers /api/status after each.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, startDemoSite, waitFor } from "../../lib/browser.mjs";
import { writeBombZip, writeWARC10 } from "../../lib/hostile.mjs";
import { readWithWarcio } from "../../lib/warcio-check.mjs";

let site, browser, dir, options, archive;

const get = (page, p) => page.evaluate(async (p) => {
  const res = await fetch(p);
  return { status: res.status, json: await res.json() };
}, p);

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-hardening-"));
  site = await startDemoSite();
  browser = await launch({ downloads: dir });
  options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector("#urldb-status[data-loaded]");
  const dbZip = path.join(dir, "db.zip");
  writeFileSync(dbZip, Buffer.from(await (await fetch(new URL("/__urldb.zip", site.url))).arrayBuffer()));
  await options.setInputFiles("#urldb-zip", dbZip);
  await options.waitForSelector('#urldb-status[data-loaded="true"]');
});

after(async () => {
  await browser?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a URL-database zip bomb is refused with the limit named; the database stays", async () => {
  const before = (await get(options, "/api/urldb")).json;
  assert.ok(before.loaded && before.records > 0);
  const bomb = path.join(dir, "bomb.zip");
  const size = writeBombZip(bomb, 20, 200 << 20);
  assert.ok(size < 5 << 20, `the bomb is ${size} bytes`);
  await options.setInputFiles("#urldb-zip", bomb);
  await options.waitForSelector('#jobs .job[data-state="failed"]', { timeout: 120000 });
  await options.waitForSelector("#error:not([hidden])");
  const error = await options.textContent("#error");
  assert.match(error, /bomb\.zip: db\/bomb\d\d\.example\.yaml: the domain files come to more than 32 MiB/, error);
  const status = await get(options, "/api/status");
  assert.equal(status.status, 200);
  assert.equal(status.json.recording, false);
  const now = (await get(options, "/api/urldb")).json;
  assert.deepEqual(now.domains, before.domains);
  assert.equal(now.records, before.records);
});

test("an import cancelled as it uploads leaves no session and nothing spooled", async () => {
  const page = await browser.context.newPage();
  await page.goto(browser.page("archive.html"));
  await page.waitForSelector("#no-sessions:not([hidden]), #sessions tr");
  const warc = path.join(dir, "cancelled.warc");
  writeWARC10(warc, Array(400).fill(1 << 20), "http://cancelled.example/");
  await page.setInputFiles("#import-file", warc);
  // The upload's box counts what the core has taken: cancelled part of the way.
  await waitFor(async () => /\(([1-9]|[1-8]\d)%\)/.test(await page.textContent("#jobs .job .count")), "the upload to be under way", 60000);
  await page.click('#jobs .job [data-action="cancel"]');
  await page.waitForSelector('#jobs .job[data-state="cancelled"]', { timeout: 60000 });
  assert.equal((await page.$$("#jobs .job")).length, 1, await page.textContent("#jobs"));
  rmSync(warc);
  const sessions = (await get(page, "/api/sessions")).json;
  assert.ok(!sessions.some((s) => s.name === "cancelled.warc"), JSON.stringify(sessions));
  await waitFor(() => browser.sw.evaluate(() => self.webkeepHost.store.keys("spool/").then((k) => k.length === 0)), "the upload's spool to be removed", 30000);
  await page.close();
});

test("a WARC/1.0 with a 40 MiB record imports, and the core still answers", async () => {
  archive = await browser.context.newPage();
  await archive.goto(browser.page("archive.html"));
  // The page's Go has started once it has listed the sessions (none).
  await archive.waitForSelector("#no-sessions:not([hidden]), #sessions tr");
  const warc = path.join(dir, "big.warc");
  writeWARC10(warc, [5, 40 << 20], "http://big.example/");
  await archive.setInputFiles("#import-file", warc);
  // The upload's box, then the import job's.
  await waitFor(async () => (await archive.$$("#jobs .job")).length === 2 && !(await archive.$('#jobs .job[data-state="running"]')), "the import to finish", 180000)
    .catch(async (e) => { throw new Error(`${e.message}: ${await archive.textContent("#jobs")}`); });
  assert.equal(await archive.isHidden("#error"), true, await archive.textContent("#error"));
  assert.equal((await archive.$$('#jobs .job[data-state="done"]')).length, 2, await archive.textContent("#jobs"));
  const status = await get(archive, "/api/status");
  assert.equal(status.status, 200);
  const sessions = (await get(archive, "/api/sessions")).json;
  const imported = sessions.find((s) => s.name === "big.warc");
  assert.ok(imported, JSON.stringify(sessions));
  const records = (await get(archive, `/api/sessions/${imported.id}/records`)).json;
  const urls = records.map((r) => r.fields.url);
  assert.ok(urls.includes("http://big.example/0") && urls.includes("http://big.example/1"), urls.join(" "));
  // The 40 MiB body comes back whole in the session's WARC/1.1 download, which warcio
  // reads with every digest right: the response and its continuation segments.
  const b64 = await archive.evaluate(async (id) => {
    const bytes = new Uint8Array(await (await fetch(`/api/sessions/${id}/warc11.gz`)).arrayBuffer());
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  }, imported.id);
  const recs = await readWithWarcio(Buffer.from(b64, "base64"));
  const big = recs.filter((r) => r.uri === "http://big.example/1" || r.type === "continuation");
  const body = Buffer.concat(big.map((r) => r.block));
  const start = body.indexOf("\r\n\r\n") + 4;
  assert.equal(body.length - start, 40 << 20, `${big.length} records of the 40 MiB response`);
  assert.equal(body.subarray(start, start + 26).toString(), "abcdefghijklmnopqrstuvwxyz");
  // Nothing of the import's spooling is left in IndexedDB.
  const spooled = await browser.sw.evaluate(() => self.webkeepHost.store.keys("spool/").then((k) => k.length));
  assert.equal(spooled, 0);
});
