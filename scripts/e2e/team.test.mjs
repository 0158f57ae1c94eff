// End to end: the extension uploads a recorded session to the team archive Worker
// running in workerd (miniflare, on 127.0.0.1), the archive lists it and finds its
// POST by key, and the extension loads the team's URL database.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Miniflare } from "miniflare";
import { clickAndWait, launch, startDemoSite, tabId, waitFor } from "../lib/browser.mjs";
import { workerModules } from "../worker/harness.mjs";

const TOKEN = "e2e-team-token";
let site, browser, ext, mf, team, session;

const api = (method, p, body) => ext.evaluate(async ([method, p, body]) => {
  const res = await fetch(p, { method, body, headers: body ? { "Content-Type": "application/json" } : {} });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}, [method, p, body]);
const teamCall = async (method, p, body) => {
  const res = await fetch(new URL(p, team), { method, body, headers: { Authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, text: await res.text() };
};

before(async () => {
  mf = new Miniflare({
    ...workerModules(),
    host: "127.0.0.1",
    port: 0,
    r2Buckets: ["ARCHIVE"],
    bindings: { WEBKEEP_TOKENS: `e2e:${TOKEN}`, WEBKEEP_PUBLIC_READS: "0" },
  });
  team = (await mf.ready).href;
  site = await startDemoSite(["-big", "4096"]);
  browser = await launch({});
  ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));
  const page = await browser.context.newPage();
  await page.goto(site.url);
  const tab = await tabId(browser.sw, site.url);
  session = (await api("POST", `/api/record/start?tab=${tab}`)).json.id;
  await page.goto(new URL("/forms", site.url).href);
  await clickAndWait(page, "#post-json");
  await api("POST", "/api/record/stop");
}, { timeout: 180000 });

after(async () => {
  await browser?.close();
  site?.stop();
  await mf?.dispose();
});

test("an upload without a team endpoint says where to set one", async () => {
  const r = await api("POST", `/api/sessions/${session}/upload`);
  assert.equal(r.status, 409);
  assert.match(r.json.error, /options page/);
});

test("a wrong token is refused, and the job says so", async () => {
  const saved = await api("PUT", "/api/settings", JSON.stringify({ headerPolicy: "redact", warcVersion: "0.9", cdxDialect: "pywb-2.6.7", agent: "webkeep", teamEndpoint: team, teamToken: "wrong" }));
  assert.equal(saved.status, 200, JSON.stringify(saved.json));
  const job = (await api("POST", `/api/sessions/${session}/upload`)).json.job;
  const done = await waitFor(async () => { const j = (await api("GET", `/api/jobs/${job}`)).json; return j.state !== "running" && j; }, "the upload job");
  assert.equal(done.state, "failed");
  assert.match(done.error, /refused the token/);
});

test("the session uploads to the Worker, which lists it and finds its POST", async () => {
  await api("PUT", "/api/settings", JSON.stringify({ headerPolicy: "redact", warcVersion: "0.9", cdxDialect: "pywb-2.6.7", agent: "webkeep", teamEndpoint: team, teamToken: TOKEN }));
  const job = (await api("POST", `/api/sessions/${session}/upload`)).json.job;
  const done = await waitFor(async () => { const j = (await api("GET", `/api/jobs/${job}`)).json; return j.state !== "running" && j; }, "the upload job");
  assert.equal(done.state, "done", JSON.stringify(done));
  const list = JSON.parse((await teamCall("GET", "/api/bundles")).text);
  const mine = list.bundles.find((b) => b.name === `webkeep-${session}.zip`);
  assert.ok(mine, JSON.stringify(list));
  assert.equal(mine.uploader, "e2e");
  const indexed = (await api("GET", `/api/sessions/${session}/records`)).json;
  assert.equal(mine.records, indexed.length, "the archive indexed every record the session's index has");
  const cdx = await teamCall("GET", `/api/cdx?url=${encodeURIComponent(new URL("/api/json", site.url).href)}&matchType=prefix`);
  assert.equal(cdx.status, 200, cdx.text);
  assert.match(cdx.text, /__wb_method=post/);
});

test("the team's URL database loads into the extension", async () => {
  const host = new URL(site.url).hostname; // a domain file is named by host, port aside
  const yaml = "--- {}\n---\n_path: /\ncontent-type: text/html\n";
  const put = await teamCall("PUT", `/api/urldb/${host}.yaml`, yaml);
  assert.ok(put.status < 300, put.text);
  const r = await api("POST", "/api/urldb/team");
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.records, 1);
  assert.equal(r.json.domains[0].name, host);
});
