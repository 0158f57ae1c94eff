// End to end against a second real web application: Debian's MediaWiki
// (scripts/lib/mediawiki.mjs) behind the logging proxy (scripts/tools/wireproxy). A user's
// session (log in, edit a page in the source editor and in VisualEditor, whose save is
// a POST of its own API, upload a file, search, log out) is recorded through the real
// extension with the default settings, compared with the wire (scripts/lib/wire.mjs),
// and replayed in webkeep.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch } from "../../lib/browser.mjs";
import { mediaWikiSession, mediaWikiUser, startMediaWiki } from "../../lib/mediawiki.mjs";
import { png } from "../../lib/png.mjs";
import { openReplay, squash } from "../../lib/replay.mjs";
import { httpBody } from "../../lib/warc09.mjs";
import { describeMissing, offline, recordAgainstWire, summary, unreportedRequests } from "../../lib/wire.mjs";

// The image uploaded.
const uploadBytes = png(1001);
let wiki, browser, dir, run;
const retried = []; // what the session had to do again (mediaWikiSession's note)
const live = {}; // the text of the pages to replay, by URL, as they showed it live

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-mediawiki-"));
  const upload = path.join(dir, "bildschirmfoto-äöü.png");
  writeFileSync(upload, uploadBytes);
  wiki = await startMediaWiki();
  browser = await launch({});
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));
  const seen = async (page) => {
    live[page.url()] = squash(await page.evaluate(() => document.body.innerText));
  };
  run = await recordAgainstWire(browser, ext, { ...wiki, start: "index.php?title=Main_Page" }, (page) => mediaWikiSession(page, wiki.url, upload, seen, (n) => retried.push(n)));
}, { timeout: 600000 });

after(async () => {
  await browser?.close();
  wiki?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("every exchange on the wire is archived byte-exact or marked; none missing but the site files webkeep reads itself, or requests the browser never reported", (t) => {
  const { report, info } = run;
  t.diagnostic(summary(report));
  for (const n of retried) t.diagnostic(`done again: ${n}`);
  for (const m of report.missing) t.diagnostic(`missing: ${describeMissing(m)}`);
  assert.ok(report.wire > 50, `only ${report.wire} exchanges on the wire`);
  assert.deepEqual(report.unmarked, [], "unmarked differences");
  const { count: unreported, note } = unreportedRequests(info);
  const others = report.missing.filter((m) => !/^\/(data|robots)\.txt$/.test(m.url));
  assert.ok(others.length <= unreported, `missing: ${JSON.stringify(others)}; the browser left ${unreported} requests unreported to webkeep (${note})`);
});

test("the scripts and style sheets the browser's memory cache served are archived with their bodies", (t) => {
  // MediaWiki's loader (load.php) sends its modules to be cached for minutes: pages
  // after the first get them from the memory cache, whose responses still say they
  // have ExtraInfo, which never comes. Waiting for it, the recorder read their bodies
  // seconds late, after their page had been left: 18 of 19 were marked then.
  const { report } = run;
  const marked = Object.values(report.cachedMarked).reduce((a, b) => a + b, 0);
  t.diagnostic(`served from the cache: ${report.cached} archived with a body the wire carried, ${marked} marked ${JSON.stringify(report.cachedMarked)}`);
  assert.ok(report.cached >= 10, `only ${report.cached} responses served from the cache archived with their bodies`);
  assert.ok(marked <= 2, `${marked} responses served from the cache were archived without their bodies: ${JSON.stringify(report.cachedMarked)}`);
});

test("VisualEditor's save, a POST to MediaWiki's API, and the upload are archived byte for byte; the password is not", () => {
  const { records, wire } = run;
  const sha = (b) => createHash("sha256").update(b).digest("hex");
  const requests = records.filter((r) => r.type === "request");
  const requestBodies = new Set(requests.map((r) => sha(httpBody(r.block).body)));
  const posts = wire.filter((w) => w.method === "POST" && w.url.startsWith("/api.php"));
  assert.ok(posts.length > 0, "MediaWiki's API got POSTs");
  for (const w of posts) assert.ok(requestBodies.has(w.request_sha256), `the API POST ${w.url} of ${w.request_size} bytes is not archived byte for byte`);
  // VisualEditor posts the page when its save dialog opens (paction serializeforcache)
  // and when the user saves (paction save, with the summary typed; the page's HTML
  // goes deflated).
  const ve = requests.filter((r) => r.block.toString("latin1").startsWith("POST /api.php") && httpBody(r.block).body.includes("visualeditoredit"));
  assert.ok(ve.length > 0, "VisualEditor's POSTs (action=visualeditoredit) are archived");
  for (const r of ve) assert.ok(posts.some((w) => w.request_sha256 === sha(httpBody(r.block).body)), "a POST of VisualEditor's is archived otherwise than the wire carried it");
  const summaries = ve.map((r) => httpBody(r.block).body.toString("utf8"));
  assert.ok(summaries.some((b) => b.includes("VisualEditor: ü")), `the summary typed is not in VisualEditor's POSTs: ${summaries.map((b) => b.replace(/html"\r\n\r\n[^\r]*/, "html\" …").slice(0, 2000)).join("\n\n")}`);
  const upload = wire.find((w) => w.method === "POST" && w.url.includes("Special:Upload") && w.request_size > uploadBytes.length);
  assert.ok(upload, "the upload on the wire");
  assert.ok(requestBodies.has(upload.request_sha256), "the upload's multipart body, its file copied in the page, is archived byte for byte");
  const all = Buffer.concat(records.map((r) => r.block));
  const pw = mediaWikiUser.password;
  for (const form of [pw, encodeURIComponent(pw), new URLSearchParams({ pw }).toString().slice(3)]) assert.ok(!all.includes(Buffer.from(form)), `the password is in the WARC (${form})`);
});

test("the session replays in webkeep: each page shows the text it showed live, no request missed", async (t) => {
  const urls = Object.keys(live);
  assert.equal(urls.length, 3, JSON.stringify(urls));
  // The wiki, still running, sees nothing of the replay.
  await offline(wiki, async () => {
    for (const url of urls) {
      const r = await openReplay(browser, run.id, url);
      try {
        assert.equal(squash(await r.evaluate(() => document.body.innerText)), live[url], `${url}: the replayed text`);
        t.diagnostic(`${url}: ${await r.bar.textContent("#replay-missed-count")} missed`);
        assert.equal(await r.bar.textContent("#replay-missed-count"), "0", `${url}: missed ${await r.bar.textContent("#replay-missed")}`);
      } finally {
        await r.close();
      }
    }
  });
}, { timeout: 300000 });
