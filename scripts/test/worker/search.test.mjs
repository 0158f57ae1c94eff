// Full-text search of the team archive in workerd (miniflare 4: R2, the IndexStore
// Durable Objects, the queue): bundles uploaded are searchable by their pages' text
// as soon as the upload answers; words, phrases, exclusions, filters, non-ASCII text;
// a deleted or replaced bundle's pages are gone; after the segments are merged the
// answers are the same and read fewer segments.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { call, fixture, root, startWorker } from "./harness.mjs";

let serial = 0;
function record(headers, block) {
  const head = Buffer.from(`WARC/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\nContent-Length: ${block.length}\r\n\r\n`);
  return gzipSync(Buffer.concat([head, block, Buffer.from("\r\n\r\n")]));
}

// warc writes pages ({url, html, ctype?, date?}) as request and response records.
function warc(pages) {
  const out = [];
  for (const p of pages) {
    const u = new URL(p.url);
    const body = Buffer.from(p.html);
    const date = p.date ?? "2024-05-01T10:00:00Z";
    const id = (k) => `<urn:uuid:00000000-0000-4000-8000-${String(k).padStart(12, "0")}>`;
    serial += 2;
    const req = Buffer.from(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
    const resp = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${p.ctype ?? "text/html; charset=utf-8"}\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
    out.push(record({ "WARC-Type": "request", "WARC-Target-URI": p.url, "WARC-Date": date, "WARC-Record-ID": id(serial), "Content-Type": "application/http; msgtype=request" }, req));
    out.push(record({ "WARC-Type": "response", "WARC-Target-URI": p.url, "WARC-Date": date, "WARC-Record-ID": id(serial + 1), "WARC-Concurrent-To": id(serial), "Content-Type": "application/http; msgtype=response" }, resp));
  }
  return Buffer.concat(out);
}

const wiki = (name) => readFileSync(join(root, "testdata", "wiki", name), "utf8");

async function search(mf, q, extra = "") {
  const r = await call(mf, "GET", `/api/search?q=${encodeURIComponent(q)}${extra}`);
  assert.equal(r.status, 200, r.text);
  const body = r.json();
  const reads = Object.fromEntries(r.headers.get("x-search-reads").split(", ").map((kv) => kv.split("=")).map(([k, v]) => [k, Number(v)]));
  return { ...body, urls: body.results.map((x) => x.url), reads };
}

async function put(mf, name, body, status = 201) {
  const r = await call(mf, "PUT", `/api/bundles/${name}`, { body });
  assert.equal(r.status, status, r.text);
  return r.json();
}

describe("team search in workerd", () => {
  let mf;
  before(async () => {
    mf = startWorker();
    await mf.ready;
  });
  after(async () => {
    await mf?.dispose();
  });

  const SYNTAX = "http://wiki.example/doku.php?id=wiki:syntax";
  const VERSION = "http://mw.example/index.php?title=Special:Version";

  test("uploaded pages are found by their words, phrases and filters", async () => {
    const doku = await put(mf, "dokuwiki.warc.gz", warc([
      { url: SYNTAX, html: wiki("dokuwiki-wiki-syntax.html") },
      { url: "http://wiki.example/doku.php?id=wiki:dokuwiki", html: wiki("dokuwiki-wiki-dokuwiki.html") },
      { url: "http://wiki.example/doku.php?id=wiki:welcome", html: wiki("dokuwiki-wiki-welcome.html") },
    ]));
    assert.deepEqual(doku.search, { pages: 3 });
    const mw = await put(mf, "mediawiki.warc.gz", warc([
      { url: "http://mw.example/index.php?title=Main_Page", html: wiki("mediawiki-Main_Page.html"), date: "2025-02-01T00:00:00Z" },
      { url: VERSION, html: wiki("mediawiki-Special-Version.html"), date: "2025-02-01T00:00:00Z" },
      { url: "http://mw.example/style.css", html: "body { font-family: sans-serif }", ctype: "text/css" },
    ]));
    assert.deepEqual(mw.search, { pages: 2 });
    // The extension's own bundle (zip with its .cdxj): its pages say "... in 2024".
    const sample = await put(mf, "sample.zip", fixture("sample-bundle.zip"));
    assert.deepEqual(sample.search, { pages: 6 });

    let r = await search(mf, "monospaced");
    assert.equal(r.total, 1);
    assert.deepEqual(r.urls, [SYNTAX]);
    const hit = r.results[0];
    assert.equal(hit.session, "dokuwiki.warc.gz");
    assert.equal(hit.ts, "20240501100000");
    assert.equal(hit.title, "wiki:syntax [webkeep test wiki]");
    assert.match(hit.snippet, /«monospaced»/);
    assert.equal(typeof r.ms, "number");
    assert.equal(r.reads.segments, 3);

    assert.deepEqual((await search(mf, "Laxstrom")).urls, [VERSION]); // "Laxström"
    // On pages of both wikis, in the title of one: ranked as one index of every
    // bundle would rank them, whatever segment each page is in.
    assert.equal((await search(mf, "version")).urls[0], VERSION);
    assert.deepEqual((await search(mf, "dziewoński")).urls, [VERSION]);
    assert.equal((await search(mf, '"Andreas Gohr"')).total, 2);
    assert.equal((await search(mf, '"Gohr Andreas"')).total, 0);
    assert.deepEqual((await search(mf, '"Andreas Gohr" -monospaced')).urls, ["http://wiki.example/doku.php?id=wiki:dokuwiki"]);
    assert.equal((await search(mf, "sans-serif")).total, 0);
    assert.equal((await search(mf, "2024 site:example.com")).total, 5);
    assert.equal((await search(mf, "2024 method:post")).total, 1);
    assert.equal((await search(mf, "wiki", "&session=mediawiki.warc.gz")).results.every((x) => x.session === "mediawiki.warc.gz"), true);
    r = await search(mf, "wiki", "&limit=2");
    assert.equal(r.results.length, 2);
    assert.ok(r.total > 2);

    assert.equal((await call(mf, "GET", "/api/search?q=monospaced", { token: null })).status, 401);
    assert.equal((await call(mf, "GET", "/api/search?q=")).status, 400);
  });

  test("many bundles: merged by the queue, the same answers from fewer segments", async () => {
    const words = ["archive", "team", "bundle", "Zürich", "東京都", "naïve", "page", "record"];
    const has = (n, w) => words[n % words.length] === w || words[(n * 3) % words.length] === w;
    const count = (pred) => Array.from({ length: 120 }, (_, n) => n).filter(pred).length;
    for (let b = 0; b < 24; b++) {
      const pages = [];
      for (let i = 0; i < 5; i++) {
        const n = b * 5 + i;
        pages.push({ url: `https://many.example/p/${n}`, html: `<title>Page ${n}</title><p>${words[n % words.length]} ${words[(n * 3) % words.length]} kiwi${n}</p>` });
      }
      await put(mf, `many-${b}.warc.gz`, warc(pages));
    }
    const before = await search(mf, "zurich site:many.example", "&limit=1000");
    assert.equal(before.total, count((n) => has(n, "Zürich")));
    // The queue merges as uploads fill a tier; let it run, then merge what is left.
    await new Promise((r) => setTimeout(r, 3000));
    const merged = await call(mf, "POST", "/api/index/compact?shard=search");
    assert.equal(merged.status, 200, merged.text);
    const afterMerge = await search(mf, "zurich site:many.example", "&limit=1000");
    assert.deepEqual([...afterMerge.urls].sort(), [...before.urls].sort());
    // 27 uploads with pages: the queue merged them as they came (8 to a tier).
    assert.ok(before.reads.segments < 27, `${before.reads.segments} segments: the queue merged nothing`);
    assert.ok(afterMerge.reads.segments <= before.reads.segments, `${before.reads.segments} segments before merging, ${afterMerge.reads.segments} after`);
    assert.deepEqual((await search(mf, "kiwi77")).urls, ["https://many.example/p/77"]);
    assert.equal((await search(mf, "東京")).total, count((n) => has(n, "東京都")));
    assert.equal((await search(mf, "naive -zurich site:many.example")).total, count((n) => has(n, "naïve") && !has(n, "Zürich")));

    // Deleted after merging: its pages are gone at once.
    assert.equal((await call(mf, "DELETE", "/api/bundles/many-15.warc.gz")).status, 204);
    assert.equal((await search(mf, "kiwi77")).total, 0);
    assert.equal((await search(mf, "kiwi78")).total, 0);
    assert.equal((await search(mf, "kiwi80")).total, 1);
    // Replaced: the new pages only.
    await put(mf, "many-16.warc.gz?overwrite=1", warc([{ url: "https://many.example/new", html: "<p>kiwi80 replaced</p>" }]), 200);
    assert.deepEqual((await search(mf, "kiwi80")).urls, ["https://many.example/new"]);
    // A deleted bundle never merged: gone too.
    assert.equal((await call(mf, "DELETE", "/api/bundles/dokuwiki.warc.gz")).status, 204);
    assert.equal((await search(mf, "monospaced")).total, 0);
    // And after a merge that drops them.
    assert.equal((await call(mf, "POST", "/api/index/compact?shard=search")).status, 200);
    assert.equal((await search(mf, "kiwi77")).total, 0);
    assert.equal((await search(mf, "kiwi79")).total, 0);
    assert.deepEqual((await search(mf, "kiwi80")).urls, ["https://many.example/new"]);
  });
});
