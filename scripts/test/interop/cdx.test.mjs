// `webkeep cdx index --dialect pywb-2.8` against warcio's `cdx-index` (npm warcio
// 2.4.11, the indexer of warcio.js and ReplayWeb.page) on WARC/1.1 files that webkeep
// wrote: from a set of GET and POST exchanges, and converted from WARC 0.9. Where the
// two should agree they must: urlkey, timestamp, url, mime, status, digest, offset,
// length, method and requestBody. Where they legitimately differ, the test says why.
// Run from the project root: node --test scripts/test/interop/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(".");
const dir = mkdtempSync(join(tmpdir(), "cdx-interop-"));
const webkeep = join(dir, "webkeep");
execFileSync("go", ["build", "-o", webkeep, "./cmd/webkeep"], { stdio: "inherit" });
const warcio = join(root, "node_modules/.bin/warcio");

// The exchanges: GETs, and POSTs of every body kind both indexers encode alike.
const form = "a=1&b=x+y%26z&c=%C3%A9t%C3%A9";
const json = JSON.stringify({ type: "event", id: 44, ok: true, none: null, nested: { id: 2, list: [1, "two"] } });
const text = "just some text";
const binary = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13]);
const exchanges = [
  { method: "GET", url: "http://www.Example.com/index.html" },
  { method: "GET", url: "https://example.org/search?q=warc&b=2&a=1" },
  { method: "GET", url: "http://example.net/a%20b/?x=%41" },
  { method: "POST", url: "http://example.com/form", type: "application/x-www-form-urlencoded", body: Buffer.from(form) },
  { method: "POST", url: "http://example.com/form?existing=1", type: "application/x-www-form-urlencoded", body: Buffer.from("k=v") },
  { method: "POST", url: "https://api.example.com/events", type: "application/json", body: Buffer.from(json) },
  { method: "POST", url: "https://api.example.com/text", type: "text/plain", body: Buffer.from(text) },
  { method: "POST", url: "https://api.example.com/upload", type: "application/octet-stream", body: binary },
  { method: "PUT", url: "https://api.example.com/put", type: "application/x-www-form-urlencoded", body: Buffer.from("p=1") },
  { method: "DELETE", url: "https://api.example.com/item/7" },
];

function record(type, id, date, url, headers, block) {
  const head = ["WARC/1.1", `WARC-Type: ${type}`, `WARC-Record-ID: <${id}>`, `WARC-Date: ${date}`, `WARC-Target-URI: ${url}`, ...headers,
    `Content-Type: application/http;msgtype=${type}`, `Content-Length: ${block.length}`, "", ""].join("\r\n");
  return Buffer.concat([Buffer.from(head), block, Buffer.from("\r\n\r\n")]);
}

// A plain WARC/1.1 file of the exchanges as a recorder writes them: request, then
// the response pointing at it (WARC-Concurrent-To). webkeep rewrites it below.
function exchangesFile() {
  const parts = [];
  exchanges.forEach((ex, i) => {
    const date = `2024-05-06T07:08:${String(10 + i).padStart(2, "0")}Z`;
    const u = new URL(ex.url);
    let req = `${ex.method} ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n`;
    if (ex.body) req += `Content-Type: ${ex.type}\r\nContent-Length: ${ex.body.length}\r\n`;
    const reqBlock = Buffer.concat([Buffer.from(req + "\r\n"), ex.body ?? Buffer.alloc(0)]);
    const payload = Buffer.from(`<html><body>page ${i}</body></html>`);
    const respBlock = Buffer.concat([Buffer.from(`HTTP/1.1 ${i === 2 ? "404 Not Found" : "200 OK"}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${payload.length}\r\n\r\n`), payload]);
    const reqID = `urn:uuid:00000000-0000-4000-8000-0000000000${String(i).padStart(2, "0")}`;
    parts.push(record("request", reqID, date, ex.url, [], reqBlock));
    parts.push(record("response", `urn:uuid:00000000-0000-4000-9000-0000000000${String(i).padStart(2, "0")}`, date, ex.url,
      [`WARC-Concurrent-To: <${reqID}>`], respBlock));
  });
  return Buffer.concat(parts);
}

// Where webkeep (following pywb, as the rulings say) and warcio.js legitimately
// differ, by URL and field.
const formBody = "warcio.js appends a form body as it is; pywb unquote_plus-es it and does not re-encode it (RULINGS.md)";
const differs = {
  "http://example.com/form": { urlkey: formBody, requestBody: formBody },
  "http://example.com/form?existing=1": {},
  // surt 0.3.1 sorts query arguments as (name, value) pairs, so "id" comes before
  // "id.2_"; warcio.js sorts the "name=value" strings, and "." sorts before "=".
  "https://api.example.com/events": { urlkey: "query arguments sorted as pairs (surt 0.3.1) or as strings (warcio.js)" },
  // surt 0.3.1 strips a path's trailing slash and unescapes (then lower-cases) the
  // query; warcio.js's SURT keeps both.
  "http://example.net/a%20b/?x=%41": { urlkey: "SURT canonicalization of surt 0.3.1 vs warcio.js" },
  // A text/plain body that is not JSON: pywb falls back to the binary form
  // (__wb_post_data=base64); warcio.js appends nothing, leaving "?&__wb_method=post".
  "https://api.example.com/text": { urlkey: "text/plain fallback", requestBody: "text/plain fallback" },
  // pywb appends only __wb_method=delete for a method other than POST and PUT;
  // warcio.js also appends the (empty) body as __wb_post_data=.
  "https://api.example.com/item/7": { urlkey: "no body query for DELETE in pywb", requestBody: "no body query for DELETE in pywb" },
};

const lines = (out) => out.split("\n").filter(Boolean).map((l) => {
  const [urlkey, timestamp] = l.split(" ", 2);
  return { urlkey, timestamp, ...JSON.parse(l.slice(urlkey.length + timestamp.length + 2)) };
});

function compare(file) {
  const ours = lines(execFileSync(webkeep, ["cdx", "index", "--dialect", "pywb-2.8", file], { cwd: dir, encoding: "utf8" }));
  const theirs = lines(execFileSync(warcio, ["cdx-index", file], { cwd: dir, encoding: "utf8" }));
  // warcio writes in file order, webkeep sorted (as pywb's indexer does): compare
  // by offset.
  const byOffset = new Map(theirs.map((l) => [l.offset, l]));
  assert.equal(ours.length, exchanges.length, "one line per exchange");
  assert.equal(theirs.length, ours.length, "same number of lines");
  for (const o of ours) {
    const w = byOffset.get(o.offset);
    assert.ok(w, `warcio has no line at offset ${o.offset} (${o.url})`);
    for (const f of ["urlkey", "timestamp", "url", "mime", "status", "digest", "length", "offset", "method", "requestBody", "filename"]) {
      const why = differs[o.url]?.[f];
      if (why) {
        assert.notEqual(o[f], w[f], `${o.url}: ${f} was expected to differ (${why})`);
        continue;
      }
      assert.equal(o[f], w[f], `${o.url}: ${f}`);
    }
    // Keys warcio writes that webkeep does not, and the reverse, must not exist.
    const keys = (l) => Object.keys(l).filter((k) => !differs[o.url]?.[k]).sort();
    assert.deepEqual(keys(o), keys(w), `${o.url}: fields`);
  }
  return ours;
}

test("webkeep and warcio index webkeep's WARC/1.1 alike", () => {
  writeFileSync(join(dir, "exchanges.warc"), exchangesFile());
  execFileSync(webkeep, ["warc", "convert", "--to", "1.1", "exchanges.warc", "written.warc.gz"], { cwd: dir });
  const ours = compare("written.warc.gz");
  // The values themselves, so that agreeing on something wrong fails too; worked
  // out by hand from the rules of RULINGS.md (pywb's behaviour): unquote_plus of the
  // form body, JSON names with ".2_" for a second use and true/null in this
  // dialect, padded base64 for binary and non-JSON text, nothing but the method for
  // DELETE, and the SURT's sorted query.
  const get = (url) => ours.find((l) => l.url === url);
  assert.equal(get("http://www.Example.com/index.html").urlkey, "com,example)/index.html");
  assert.equal(get("https://example.org/search?q=warc&b=2&a=1").urlkey, "org,example)/search?a=1&b=2&q=warc");
  assert.equal(get("http://example.com/form").requestBody, "a=1&b=x y&z&c=été");
  assert.equal(get("http://example.com/form").urlkey, "com,example)/form?__wb_method=post&a=1&b=x%20y&c=%c3%a9t%c3%a9&z");
  assert.equal(get("http://example.com/form").method, "POST");
  assert.equal(get("https://api.example.com/events").requestBody,
    "type=event&id=44&ok=true&none=null&id.2_=2&list=1&list.2_=two");
  assert.equal(get("https://api.example.com/upload").requestBody, "__wb_post_data=AAEC+vv8Cg0=");
  assert.equal(get("https://api.example.com/text").requestBody, "__wb_post_data=anVzdCBzb21lIHRleHQ=");
  assert.equal(get("https://api.example.com/item/7").requestBody, undefined);
  assert.equal(get("https://api.example.com/item/7").urlkey, "com,example,api)/item/7?__wb_method=delete");
  assert.equal(get("http://example.net/a%20b/?x=%41").status, "404");
  assert.equal(get("http://example.net/a%20b/?x=%41").urlkey, "net,example)/a%20b?x=a");
});

test("webkeep and warcio index WARC/1.1 converted from WARC 0.9 alike", () => {
  writeFileSync(join(dir, "exchanges.warc"), exchangesFile());
  execFileSync(webkeep, ["warc", "convert", "--to", "0.9", "exchanges.warc", "v09.warc.gz"], { cwd: dir });
  execFileSync(webkeep, ["warc", "convert", "--to", "1.1", "v09.warc.gz", "converted.warc.gz"], { cwd: dir });
  compare("converted.warc.gz");
  // The 0.9 file itself: warcio cannot read WARC 0.9 (no reader of today can), so
  // only webkeep indexes it; its lines are those of the 1.1 file but for offsets,
  // lengths and the file name.
  const strip = (ls) => ls.map(({ offset, length, filename, ...rest }) => rest);
  const v09 = lines(execFileSync(webkeep, ["cdx", "index", "--dialect", "pywb-2.8", "v09.warc.gz"], { cwd: dir, encoding: "utf8" }));
  const v11 = lines(execFileSync(webkeep, ["cdx", "index", "--dialect", "pywb-2.8", "converted.warc.gz"], { cwd: dir, encoding: "utf8" }));
  assert.deepEqual(strip(v09), strip(v11));
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
