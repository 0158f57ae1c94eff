// End to end, in real Chromium: the demo site recorded through the real extension, its
// WACZ and WARC/1.1 downloads opened in the real ReplayWeb.page (2.5.3, from npm) with
// the demo site stopped, and every page, subresource, redirect, 404, fetch() POST and
// PUT answer, and the large file compared with what the live pages showed. No request
// may reach the demo site's port during replay (a listener there counts them).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { demoCalls, startDemoSite } from "../../lib/browser.mjs";
import { launchViewer, openInReplayWebPage, recordDemo, serveReplayWebPage } from "../../lib/replaywebpage.mjs";
import { readZip } from "../../lib/zip.mjs";
import { postToGetUrl } from "warcio/utils";

const bigSize = 24 << 20;
let site, dir, rwp, viewer, listener, pages, index;
const live = {};
let hits = 0;
const files = {};
const replayKeys = [];

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-rwp-"));
  site = await startDemoSite(["-big", String(bigSize)]);
  Object.assign(files, await recordDemo(site, dir, live));
  // The keys ReplayWeb.page computes when the recorded POSTs and PUTs are sent again,
  // from the requests the demo site received (its log).
  for (const ex of await site.log()) {
    if (ex.method !== "POST" && ex.method !== "PUT") continue;
    const url = new URL(ex.url, site.url).href;
    const req = new Request(url, { method: ex.method, headers: { "Content-Type": (ex.header["Content-Type"] || [""])[0] },
      body: Buffer.from(ex.body_base64, "base64") });
    const t = { method: req.method, postData: await req.text(), headers: req.headers, url };
    if (postToGetUrl(t)) replayKeys.push({ path: ex.url, key: t.url });
  }
  // The demo site is stopped; its port now only counts what reaches it.
  const port = Number(new URL(site.url).port);
  site.stop();
  site = null;
  await new Promise((r) => setTimeout(r, 200));
  listener = net.createServer((s) => { hits++; s.destroy(); });
  await new Promise((resolve, reject) => { listener.once("error", reject); listener.listen(port, "127.0.0.1", resolve); });

  const zip = readZip(files.wacz);
  pages = zip.get("pages/pages.jsonl").toString("utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l));
  index = [...zip.keys()].filter((n) => n.startsWith("indexes/"));
  rwp = await serveReplayWebPage({ "session.wacz": files.wacz, "session.warc.gz": files.warc });
  viewer = await launchViewer();
}, { timeout: 600000 });

after(async () => {
  await viewer?.close();
  await rwp?.close();
  listener?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const squash = (s) => s.replace(/\s+/g, " ").trim();
const ts14 = (ts) => ts.replace(/[-:TZ]/g, "").slice(0, 14);

/** Replays the demo in ReplayWeb.page from source; returns what it showed. */
async function replay(source, { byPageList }) {
  const ctx = await viewer.newContext();
  const seen = { pages: {}, calls: {}, styled: {}, images: {} };
  let page;
  const show = async (url, ts) => {
    await page?.close();
    page = await ctx.newPage();
    const frame = await openInReplayWebPage(page, rwp.url, source, { url, ts });
    await frame.waitForFunction(() => document.body && document.body.innerText.trim().length > 0, null, { timeout: 30000 }).catch(() => {});
    return frame;
  };
  // A plain WARC has no page list: its pages are opened by URL, but for the answers to
  // form posts, which only the form reaches (below).
  const list = byPageList ? pages.map((p) => ({ url: p.url, ts: ts14(p.ts), live: p.url })) :
    Object.keys(live).filter((u) => u.startsWith("http") && !new URL(u).pathname.startsWith("/submit/")).map((u) => ({ url: u, live: u }));
  for (const p of list) {
    const frame = await show(p.url, p.ts);
    seen.pages[p.url] = await frame.evaluate(() => document.body.innerText);
    seen.styled[p.url] = await frame.evaluate(() => [...document.styleSheets].reduce((n, s) => n + s.cssRules.length, 0));
    seen.images[p.url] = await frame.evaluate(() => [...document.images].map((i) => i.complete && i.naturalWidth > 0));
  }
  // The forms page's calls, and the large file, replayed by clicking as the user did.
  const home = list.find((p) => new URL(p.url).pathname === "/");
  let frame = await show(home.url, home.ts);
  await frame.click("#load-big");
  await frame.waitForSelector("#load-big[data-done]", { timeout: 120000 });
  seen.big = await frame.textContent("#big-result");
  const forms = list.find((p) => new URL(p.url).pathname === "/forms");
  frame = await show(forms.url, forms.ts);
  for (const id of demoCalls) {
    const before = await frame.textContent("#out");
    await frame.click("#" + id);
    await frame.waitForSelector(`#${id}[data-done]`, { timeout: 30000 });
    seen.calls[id] = (await frame.textContent("#out")).slice(before.length).trim();
  }
  // The urlencoded form, posted again from the replayed page: a navigation POST.
  const [form] = await Promise.all([
    frame.waitForNavigation({ url: /\/submit\/form$/, timeout: 60000 }).then(() => frame),
    frame.click("#form-urlencoded button"),
  ]);
  await form.waitForLoadState("load");
  seen.form = await form.evaluate(() => document.body.innerText);
  const redirect = await show(new URL("/redirect/start", home.url).href);
  seen.redirect = { url: redirect.url(), text: await redirect.evaluate(() => document.body.innerText) };
  // The keys ReplayWeb.page holds the archive's captures under (its IndexedDB), once
  // every page has been replayed.
  seen.keys = await page.evaluate(async () => {
    const req = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    const out = [];
    for (const { name } of await indexedDB.databases()) {
      const db = await req(indexedDB.open(name));
      if (db.objectStoreNames.contains("resources")) {
        for (const k of await req(db.transaction("resources").objectStore("resources").getAllKeys())) out.push(Array.isArray(k) ? k[0] : k);
      }
      db.close();
    }
    return out;
  });
  await ctx.close();
  return seen;
}

/** The answer of a call, as the page printed it, without the parts that name the server. */
const answer = (line) => line.replace(/^\w+ \S+ -> /, "");

for (const kind of ["WACZ", "WARC/1.1"]) {
  let seen;
  test(`${kind}: opened in ReplayWeb.page ${kind === "WACZ" ? "from its page list" : "by URL"}`, async () => {
    seen = await replay(kind === "WACZ" ? rwp.archive("session.wacz") : rwp.archive("session.warc.gz"), { byPageList: kind === "WACZ" });
  }, { timeout: 600000 });

  test(`${kind}: every page shows what it showed live, styled, with its images`, () => {
    assert.ok(seen, "not replayed");
    for (const [url, text] of Object.entries(seen.pages)) {
      const plain = url.replace(/\?__wb_method=.*$/, "");
      assert.equal(squash(text), squash(live[plain] ?? live[url]), `${url}: the replayed text`);
      if (!/\.txt$|\/submit\//.test(plain)) assert.ok(seen.styled[url] > 0, `${url}: no style sheet rules`);
      // Each image shows as it showed live (the gallery has one no browser can decode).
      assert.deepEqual(seen.images[url], live.images[plain] ?? live.images[url], `${url}: the images shown`);
    }
  });

  test(`${kind}: the redirect chain ends where it ended live`, () => {
    assert.match(seen.redirect.url, /\/redirect\/end$/);
    assert.equal(squash(seen.redirect.text), squash(live[seen.redirect.url.replace(/^.*mp_\//, "")]));
  });

  test(`${kind}: every fetch() POST and PUT answers what it answered live, each body its own`, () => {
    for (const id of demoCalls.filter((id) => id !== "delete-item")) {
      assert.equal(answer(seen.calls[id]), answer(live[id]), `${id}`);
    }
    assert.notEqual(answer(seen.calls["search-first"]), answer(seen.calls["search-second"]));
  });

  test(`${kind}: the urlencoded form, posted again, answers what it answered live`, () => {
    assert.equal(squash(seen.form), squash(live[new URL("/submit/form", Object.keys(live).find((u) => u.startsWith("http"))).href]));
  });

  test(`${kind}: the ${bigSize >> 20} MB file replays byte for byte`, () => {
    assert.equal(seen.big, live.big);
  });

  test(`${kind}: a DELETE does not replay (ReplayWeb.page looks it up as a GET)`, () => {
    assert.match(seen.calls["delete-item"], /-> 404\b/);
  });

  if (kind === "WACZ") {
    test("WACZ: every POST and PUT is held under the exact key ReplayWeb.page looks it up under", () => {
      assert.ok(replayKeys.length >= 8, `only ${replayKeys.length} POSTs and PUTs in the demo site's log`);
      const held = new Set(seen.keys);
      const missing = [], rewritten = [];
      for (const { path, key } of replayKeys) {
        if (held.has(key)) continue;
        // ReplayWeb.page's own loader stores the key of an HTML, JSON or script
        // answer as the URL parser writes it ("café" as "caf%C3%A9") and looks it up
        // as the page sends it: no index can hold such a key exactly
        // (docs/cdx-dialects.md); it must then be held in the loader's form.
        const href = new URL(key).href;
        if (href !== key && held.has(href)) rewritten.push(path);
        else missing.push({ path, key });
      }
      assert.deepEqual(missing, [], `held: ${JSON.stringify(seen.keys.filter((k) => k.includes("__wb_method")))}`);
      assert.deepEqual(rewritten, ["/submit/form"], "the keys only ReplayWeb.page's loader rewrites");
    });
  }
}

test("the page list lists every recorded page, a POST's answer under its key", () => {
  assert.ok(pages.some((p) => p.url.includes("/submit/form?__wb_method=POST&")), JSON.stringify(pages.map((p) => p.url)));
  assert.ok(index.length > 0);
});

test("nothing reached the demo site's port during replay", () => {
  assert.equal(hits, 0);
});
