// End to end, in real Chromium through the real extension: the URL database (load,
// verdicts, check all, add and export), every download format validated with warcio,
// import, the keyboard shortcut's handler, tabs opened from a recorded tab, the badge.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { clickAndWait, launch, startDemoSite, tabId, waitFor } from "../../lib/browser.mjs";
import { readWithWarcio } from "../../lib/warcio-check.mjs";
import { readZip } from "../../lib/zip.mjs";

let site, browser, dir, ext, session, badge, openedURL;
const downloads = {};

// api calls the core from an extension page, as the pages do.
const api = (method, p, body, type) => ext.evaluate(async ([method, p, body, type]) => {
  const init = { method, headers: type ? { "Content-Type": type } : {} };
  if (body) init.body = typeof body === "string" ? body : new Uint8Array(body);
  const res = await fetch(p, init);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}, [method, p, body, type]);

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-e2e-"));
  site = await startDemoSite(["-big", "65536"]);
  browser = await launch({ downloads: dir });
  ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));
  const dbZip = path.join(dir, "db.zip");
  writeFileSync(dbZip, Buffer.from(await (await fetch(new URL("/__urldb.zip", site.url))).arrayBuffer()));
  await ext.setInputFiles("#urldb-zip", dbZip);
  await ext.waitForSelector('#urldb-status[data-loaded="true"]');

  const page = await browser.context.newPage();
  await page.goto(site.url);
  const tab = await tabId(browser.sw, site.url);
  // The keyboard shortcut's handler (shortcuts cannot be pressed headless).
  const started = await browser.sw.evaluate((id) => self.webkeepToggle({ id }), tab);
  session = started.id;
  await page.goto(site.url);
  await page.goto(new URL("/gallery", site.url).href);
  await page.waitForSelector("#worker-status[data-done]");
  await page.goto(new URL("/forms", site.url).href);
  await clickAndWait(page, "#post-json");
  await page.goto(new URL("/missing", site.url).href);
  badge = await waitFor(() => browser.sw.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tab).then((t) => Number(t) > 0 && t), "the badge");
  // A tab opened from the recorded tab is recorded too.
  const [opened] = await Promise.all([
    browser.context.waitForEvent("page"),
    page.evaluate(() => window.open("/data.txt?opened=1")),
  ]);
  await opened.waitForLoadState("load");
  openedURL = new URL("/data.txt?opened=1", site.url).href;
  await waitFor(async () => (await api("GET", `/api/sessions/${session}/records`)).json.some((r) => r.fields.url === openedURL), "the opened tab's record");
  const stopped = await api("POST", "/api/record/stop");
  assert.equal(stopped.status, 200);

  const popup = await browser.context.newPage();
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  for (const id of ["download-bundle", "download-warc", "download-warc11", "download-wacz", "download-cdxj"]) {
    const link = await popup.waitForSelector("#" + id);
    const [d] = await Promise.all([popup.waitForEvent("download"), link.click()]);
    const file = path.join(dir, id + "-" + d.suggestedFilename());
    await d.saveAs(file);
    assert.equal(await d.failure(), null, `${id} download failed`);
    downloads[id] = { file, name: d.suggestedFilename() };
  }
}, { timeout: 240000 });

after(async () => {
  await browser?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the keyboard shortcut's handler starts recording and the badge counts records", () => {
  assert.ok(session, "a session was started");
  assert.ok(Number(badge) > 0, `badge ${badge}`);
});

test("a tab opened from a recorded tab is recorded into the same session", async () => {
  const recs = (await api("GET", `/api/sessions/${session}/records`)).json;
  assert.ok(recs.some((r) => r.fields.url === openedURL));
});

test("recorded responses get URL-database verdicts, passing and failing", async () => {
  const rep = (await api("GET", `/api/sessions/${session}/report`)).json;
  const codes = Object.fromEntries(rep.verdicts.map((v) => [new URL(v.url).pathname, v.code]));
  assert.equal(codes["/"], "ok");
  assert.equal(codes["/gallery"], "ok");
  assert.equal(codes["/static/style.css"], "ok");
  assert.equal(codes["/missing"], "status");
  assert.equal(codes["/static/logo.svg"], "content-type");
  assert.equal(codes["/static/app.js"], "sha256");
  assert.ok(rep.session.verdicts.pass > 0 && rep.session.verdicts.fail > 0);
  assert.ok(rep.sites.length >= 1 && rep.sites[0].datatxt.found, "data.txt findings");
});

test("WARC/1.1 download: warcio reads every record and every digest matches", async () => {
  const recs = await readWithWarcio(readFileSync(downloads["download-warc11"].file));
  assert.ok(recs.length > 20);
  assert.ok(recs.every((r) => r.version === "WARC/1.1"));
  assert.ok(recs.some((r) => r.type === "request" && r.uri.endsWith("/api/json")));
});

test("WACZ download: datapackage, index and pages, and its WARC reads in warcio", async () => {
  const files = readZip(downloads["download-wacz"].file);
  const pkg = JSON.parse(files.get("datapackage.json"));
  assert.equal(pkg.wacz_version, "1.1.1");
  for (const res of pkg.resources) assert.ok(files.has(res.path), `resource ${res.path}`);
  assert.ok(files.has("indexes/index.idx") && files.has("pages/pages.jsonl"));
  const warcName = [...files.keys()].find((n) => n.startsWith("archive/"));
  const recs = await readWithWarcio(files.get(warcName));
  assert.ok(recs.some((r) => r.type === "response" && r.uri.endsWith("/gallery")));
});

test("import of the downloaded bundle makes a session with the same records", async () => {
  const bundle = readFileSync(downloads["download-bundle"].file);
  const orig = (await api("GET", `/api/sessions/${session}`)).json;
  const started = await api("POST", "/api/import?name=imported", [...bundle]);
  assert.equal(started.status, 202, JSON.stringify(started.json));
  const job = await waitFor(async () => {
    const j = (await api("GET", `/api/jobs/${started.json.job}`)).json;
    return j.state !== "running" && j;
  }, "the import to finish", 60000);
  assert.equal(job.state, "done", JSON.stringify(job));
  assert.equal(job.done, bundle.length);
  const imported = job.result;
  assert.equal(imported.name, "imported");
  assert.equal(imported.records, orig.records);
  assert.equal(imported.pages, orig.pages);
  const recs = (await api("GET", `/api/sessions/${imported.id}/records`)).json;
  assert.ok(recs.some((r) => r.urlkey.includes("__wb_method=post")));
});

test("check all fetches every URL of the database, with progress, and records them", async () => {
  const started = await api("POST", "/api/urldb/check", JSON.stringify({ record: true }), "application/json");
  assert.equal(started.status, 202, JSON.stringify(started.json));
  const job = await waitFor(async () => {
    const j = (await api("GET", `/api/jobs/${started.json.job}`)).json;
    return j.state !== "running" && j;
  }, "the check to finish", 60000);
  assert.equal(job.state, "done", JSON.stringify(job));
  assert.equal(job.total, 8);
  assert.equal(job.done, 8);
  const byPath = Object.fromEntries(job.result.verdicts.map((v) => [v.path, v.code]));
  assert.equal(byPath["/"], "ok");
  assert.equal(byPath["/missing"], "status");
  assert.equal(byPath["/static/app.js"], "sha256");
  const recorded = (await api("GET", `/api/sessions/${job.result.session}`)).json;
  assert.equal(recorded.exchanges, 8);
});

test("add to database from a recorded response, then export a zip that loads", async () => {
  const recs = (await api("GET", `/api/sessions/${session}/records`)).json;
  const json = recs.find((r) => r.fields.url.endsWith("/api/json"));
  const added = await api("POST", "/api/urldb/records", JSON.stringify({ session, offset: Number(json.fields.offset), categories: ["api"], static: false }), "application/json");
  assert.equal(added.status, 200, JSON.stringify(added.json));
  const [d] = await Promise.all([ext.waitForEvent("download"), ext.evaluate(() => { location.href = "/api/urldb/export.zip"; })]);
  const file = path.join(dir, "export.zip");
  await d.saveAs(file);
  const files = readZip(file);
  const yaml = [...files.values()].map(String).join("\n");
  assert.match(yaml, /_path: \/api\/json\n/);
  assert.match(yaml, /_path: \/static\/style.css\n/);
});
