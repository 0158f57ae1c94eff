// End to end, in real Chromium through the real extension: "Check all" on the options
// page against a site that does not allow other origins to read it (no CORS headers),
// as most sites of a real URL database. The check asks for access to the database's
// sites; the user grants it (here on chrome://extensions, as "Site access", since a
// headless browser cannot answer the permission dialog: the page's request is then
// granted without one), and every URL is fetched and judged.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, serviceWorker, waitFor } from "../../lib/browser.mjs";

let browser, server, dir, origin;

before(async () => {
  // A site with no Access-Control-Allow-Origin on any answer.
  server = createServer((req, res) => {
    if (req.url === "/good") {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<p>good</p>");
    } else if (req.url === "/typed") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("plain");
    } else {
      res.writeHead(404, { "Content-Type": "text/html" });
      res.end("not here");
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${server.address().port}`;
  // The domain file names the host with the site's port, so the check asks it there.
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-check-"));
  const db = path.join(dir, "urldb");
  mkdirSync(db);
  writeFileSync(path.join(db, `127.0.0.1:${server.address().port}.yaml`),
    "---\n---\n_path: /good\ncontent-type: text/html\n---\n_path: /typed\ncontent-type: text/html\n---\n_path: /gone\ncontent-type: text/html\n");
  // A site that is down: nothing listens on port 1.
  writeFileSync(path.join(db, "127.0.0.1:1.yaml"), "---\n---\n_path: /down\ncontent-type: text/html\n");
  browser = await launch({ downloads: dir });
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.setInputFiles("#urldb-folder", db);
  await options.waitForSelector('#urldb-status[data-loaded="true"]', { timeout: 90000 }); // the suite's first start of the core
  await options.close();
}, { timeout: 120000 });

after(async () => {
  await browser?.close();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("without access, the service worker cannot read the site: CORS stops it", async () => {
  const read = await browser.sw.evaluate(async (u) => {
    try { await fetch(u); return "read"; } catch (e) { return "blocked: " + e.message; }
  }, origin + "/good");
  assert.match(read, /^blocked/);
  assert.deepEqual((await browser.sw.evaluate(() => chrome.permissions.getAll())).origins, []);
});

test("the database names the sites a check needs access to", async () => {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  const db = await options.evaluate(async () => (await fetch("/api/urldb")).json());
  assert.deepEqual(db.origins, ["http://127.0.0.1/*"]);
  await options.close();
});

test("Check all, with access granted, reads the site and judges every URL", async () => {
  // The user grants site access to 127.0.0.1 on the extensions page.
  await browser.grantSite("http://127.0.0.1/*");

  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector('#urldb-status[data-loaded="true"]');
  await options.click("#check-all");
  await options.waitForSelector("#check-report:not([hidden])", { timeout: 60000 });
  assert.match(await options.textContent("#check-summary"), /^4 URLs checked: 1 pass, 3 fail\./);
  assert.equal(await options.getAttribute(".job", "data-state"), "done");
  assert.match(await options.textContent(".job .count"), /^done: 4 of 4 \(100%\)$/);
  const rows = await options.$$eval("#check-failures tr", (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  const byPath = Object.fromEntries(rows.map(([url, ...rest]) => [new URL(url).pathname, rest.join(" ")]));
  assert.deepEqual(Object.keys(byPath).sort(), ["/down", "/gone", "/typed"]);
  assert.match(byPath["/gone"], /404/);
  assert.match(byPath["/typed"], /text\/plain/);
  assert.match(byPath["/down"], /could not reach the site, or did not let webkeep read it/);
  // Granted through the page's request, for the database's site only.
  assert.deepEqual((await browser.sw.evaluate(() => chrome.permissions.getAll())).origins, ["http://127.0.0.1/*"]);
  await options.close();
});

// A restarted core parses the kept database when it is first needed, not as it starts
// (its status does not wait for it): asked for after the restart, it is all there.
test("a restarted service worker keeps the database and gives it when asked", async () => {
  const page = await browser.context.newPage();
  await page.goto(browser.page("style.css"));
  const worker = await serviceWorker(browser, page);
  await worker.stop();
  const [status, db] = await page.evaluate(async () => [
    await (await fetch("/api/status")).json(),
    await (await fetch("/api/urldb")).json(),
  ]);
  assert.equal(status.recording, false);
  assert.equal(db.loaded, true);
  assert.equal(db.records, 4);
  assert.deepEqual(db.domains.map((d) => d.name).sort(), ["127.0.0.1:1", `127.0.0.1:${server.address().port}`].sort());
  assert.deepEqual(db.problems, []);
  assert.notEqual(worker.status(), "stopped", "the worker was woken again");
  await page.close();
});

// While the browser asks for access to the database's sites, the page says it waits
// for the answer, and no longer once it is given (the browser's own prompt cannot be
// answered headless: the page's calls to it are answered here).
test("Check all says it waits for the answer to the browser's question, until it comes", async () => {
  const options = await browser.context.newPage();
  try {
    await options.goto(browser.page("options.html"));
    await options.waitForSelector('#urldb-status[data-loaded="true"]');
    await options.evaluate(() => {
      const perms = chrome.permissions;
      perms.contains = () => Promise.resolve(false);
      perms.request = () => new Promise((resolve) => { window.answerAccess = resolve; });
    });
    await options.click("#check-all");
    await waitFor(async () => (await options.textContent("#notice")) === "Waiting for your answer to the browser's question: may webkeep read the database's 1 site?", "the waiting notice");
    assert.equal(await options.isVisible("#notice"), true);
    await options.evaluate(() => window.answerAccess(true));
    await options.waitForSelector("#check-report:not([hidden])", { timeout: 60000 });
    assert.equal(await options.isVisible("#notice"), false, "the answered question is still said to be waited for");
  } finally {
    await options.close();
  }
});
