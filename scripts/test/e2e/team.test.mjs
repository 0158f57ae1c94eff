// End to end: the extension uploads a recorded session to the team archive Worker
// running in workerd (miniflare, on 127.0.0.1), the archive lists it and finds its
// POST by key, and the extension loads the team's URL database.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createServer } from "node:http";
import { Miniflare } from "miniflare";
import { clickAndWait, launch, startDemoSite, tabId, waitFor } from "../../lib/browser.mjs";
import { workerOptions } from "../worker/harness.mjs";

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
    ...workerOptions({ WEBKEEP_TOKENS: `e2e:${TOKEN}`, WEBKEEP_PUBLIC_READS: "0" }),
    host: "127.0.0.1",
    port: 0,
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
  assert.match(cdx.text, /__wb_method=post/, `the session's records: ${JSON.stringify(indexed.map((r) => r.urlkey))}; all: ${(await teamCall("GET", "/api/cdx?url=" + encodeURIComponent(site.url) + "&matchType=prefix")).text}`);
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

// An upload in parts whose service worker is stopped in the middle of a part: the
// worker that starts next resumes it by itself, under the same job id, from the part
// that did not arrive, and the archive ends with the session's bundle, byte-identical.
test("an upload stopped with the service worker resumes when it starts again", { timeout: 240000 }, async () => {
  const parts = new Map(); // part number: PUTs that reached the Worker
  let hold = "2"; // the part whose first PUT never gets through
  let held;
  const heldSeen = new Promise((resolve) => (held = resolve));
  const mf5 = new Miniflare({
    ...workerOptions({ WEBKEEP_TOKENS: `e2e:${TOKEN}`, WEBKEEP_PART_BYTES: String(5 << 20) }),
    host: "127.0.0.1",
    port: 0,
  });
  const upstream = (await mf5.ready).href;
  // A proxy on 127.0.0.1 that counts parts and swallows the first PUT of part `hold`.
  const proxy = createServer(async (req, res) => {
    const m = /^\/api\/uploads\/[^/]+\/[^/]+\/(\d+)$/.exec(req.url);
    if (m && req.method === "PUT" && m[1] === hold) {
      hold = null;
      held();
      req.resume();
      return; // never answered: the service worker is stopped meanwhile
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (m && req.method === "PUT") parts.set(m[1], (parts.get(m[1]) || 0) + 1);
    const headers = { ...req.headers };
    for (const h of ["host", "connection", "keep-alive", "transfer-encoding", "content-length"]) delete headers[h];
    try {
      const r = await fetch(new URL(req.url, upstream), { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const out = Object.fromEntries(r.headers);
      for (const h of ["connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"]) delete out[h];
      res.writeHead(r.status, out);
      res.end(Buffer.from(await r.arrayBuffer()));
    } catch (err) {
      res.writeHead(502, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: `proxy: ${err.cause ?? err}` }));
    }
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  try {
    // A session of over two parts: a WARC with 12 MiB of random payload, imported.
    const imported = await ext.evaluate(async () => {
      const n = 12 << 20;
      const payload = new Uint8Array(n);
      for (let i = 0; i < n; i += 65536) crypto.getRandomValues(payload.subarray(i, i + 65536));
      const http = `HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${n}\r\n\r\n`;
      const head = `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/big.bin\r\nWARC-Date: 2024-09-01T00:00:00Z\r\n` +
        `WARC-Record-ID: <urn:uuid:5e4c2f8a-0000-4000-8000-000000000003>\r\nContent-Type: application/http; msgtype=response\r\n` +
        `Content-Length: ${http.length + n}\r\n\r\n`;
      const res = await fetch("/api/import?name=big.warc", { method: "POST", body: new Blob([head, http, payload, "\r\n\r\n"]) });
      if (res.status !== 202) return { status: res.status, json: await res.json() };
      // An import is a job: its result is the new session.
      const { job } = await res.json();
      for (;;) {
        const j = await (await fetch(`/api/jobs/${job}`)).json();
        if (j.state !== "running") return { status: j.state === "done" ? 200 : 500, json: j.state === "done" ? j.result : j };
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    assert.equal(imported.status, 200, JSON.stringify(imported.json));
    const big = imported.json.id;
    const proxied = `http://127.0.0.1:${proxy.address().port}/`;
    await api("PUT", "/api/settings", JSON.stringify({ headerPolicy: "redact", warcVersion: "0.9", cdxDialect: "pywb-2.6.7", agent: "webkeep", teamEndpoint: proxied, teamToken: TOKEN }));
    const job = (await api("POST", `/api/sessions/${big}/upload`)).json.job;
    assert.equal(job, `upload-${big}`);
    // Named, so that a run that never gets there says where it stopped.
    let seen = false;
    heldSeen.then(() => (seen = true));
    await waitFor(() => seen, "part 2's first PUT to reach the team archive (the upload stalled before it)", 60000);
    const before = await api("GET", `/api/jobs/${job}`);
    assert.equal(before.json.state, "running");
    assert.ok(before.json.done >= 5 << 20, JSON.stringify(before.json));

    await browser.sw.evaluate(() => { self.beforeStop = true; });
    const cdp = await browser.context.newCDPSession(ext);
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopAllWorkers");
    // The next call starts a new service worker, which resumes the upload.
    const done = await waitFor(async () => {
      const r = await api("GET", `/api/jobs/${job}`).catch(() => null);
      return r?.status === 200 && r.json.state !== "running" && r.json;
    }, "the resumed upload", 180000);
    assert.equal(done.state, "done", JSON.stringify(done));
    const restarted = await Promise.any(browser.context.serviceWorkers().map((w) => w.evaluate(() => typeof self.webkeepCore === "object" && !self.beforeStop)));
    assert.ok(restarted, "the service worker was really stopped and started again");
    assert.deepEqual([...parts.entries()].sort(), [["1", 1], ["2", 1], ["3", 1]], "each part reached the Worker once");

    // The archive has the session's bundle, byte-identical.
    const bundle = await ext.evaluate(async (id) => {
      const b = new Uint8Array(await (await fetch(`/api/sessions/${id}/bundle.zip`)).arrayBuffer());
      const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", b));
      return { size: b.length, sha256: [...sum].map((x) => x.toString(16).padStart(2, "0")).join("") };
    }, big);
    const list = await (await fetch(new URL("/api/bundles", upstream), { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
    const mine = list.bundles.find((b) => b.name === `webkeep-${big}.zip`);
    assert.ok(mine, JSON.stringify(list));
    assert.equal(mine.size, bundle.size);
    assert.equal(mine.sha256, bundle.sha256);
    const pending = await (await fetch(new URL("/api/uploads", upstream), { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
    assert.deepEqual(pending.uploads, []);
  } finally {
    proxy.close();
    await mf5.dispose();
  }
});
