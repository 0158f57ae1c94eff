// The team archive Worker in workerd (miniflare 4): uploads, listing, Range
// downloads, CDX queries of every match type, the URL database's ETags, rejected
// tokens and names, oversized, interrupted and concurrent uploads.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { ALICE, BOB, allKeys, bigWARC, call, fixture, root, startWorker } from "./harness.mjs";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const bundle = fixture("sample-bundle.zip");
const warc2025 = fixture("sample-2025.warc.gz");

describe("team archive", () => {
  let mf;
  before(async () => {
    mf = startWorker({ WEBKEEP_MAX_BUNDLE_BYTES: String(4 << 20) });
    await mf.ready;
  });
  after(() => mf?.dispose());

  test("upload, list, download with Range", async () => {
    let r = await call(mf, "PUT", "/api/bundles/team-2024.zip", { body: bundle });
    assert.equal(r.status, 201, r.text);
    const info = r.json();
    assert.equal(info.name, "team-2024.zip");
    assert.equal(info.kind, "bundle");
    assert.equal(info.size, bundle.length);
    assert.equal(info.records, 6);
    assert.equal(info.uploader, "alice");
    assert.ok(Date.now() - Date.parse(info.uploaded) < 60000);

    r = await call(mf, "PUT", "/api/bundles/sample-2025.warc.gz", { body: warc2025, token: BOB });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json().uploader, "bob");

    r = await call(mf, "GET", "/api/bundles?limit=1");
    assert.equal(r.status, 200);
    const page1 = r.json();
    assert.equal(page1.bundles.length, 1);
    assert.equal(page1.truncated, true);
    r = await call(mf, "GET", `/api/bundles?limit=1&cursor=${encodeURIComponent(page1.cursor)}`);
    const page2 = r.json();
    assert.deepEqual([...page1.bundles, ...page2.bundles].map((b) => [b.name, b.kind, b.size, b.records, b.uploader]), [
      ["sample-2025.warc.gz", "warc", warc2025.length, 6, "bob"],
      ["team-2024.zip", "bundle", bundle.length, 6, "alice"],
    ]);

    r = await call(mf, "GET", "/api/bundles/team-2024.zip");
    assert.equal(r.status, 200);
    assert.ok(r.bytes.equals(bundle));
    assert.equal(r.headers.get("accept-ranges"), "bytes");

    r = await call(mf, "GET", "/api/bundles/team-2024.zip", { headers: { Range: "bytes=1000-1999" } });
    assert.equal(r.status, 206);
    assert.equal(r.headers.get("content-range"), `bytes 1000-1999/${bundle.length}`);
    assert.ok(r.bytes.equals(bundle.subarray(1000, 2000)));

    r = await call(mf, "GET", "/api/bundles/team-2024.zip", { headers: { Range: "bytes=-16" } });
    assert.equal(r.status, 206);
    assert.ok(r.bytes.equals(bundle.subarray(bundle.length - 16)));

    // Several ranges: one answer in parts (multipart/byteranges), as a replay's batch
    // asks for the places of a bundle that hold a page's records.
    r = await call(mf, "GET", "/api/bundles/team-2024.zip", { headers: { Range: "bytes=0-99, 1000-1099" } });
    assert.equal(r.status, 206);
    const [type, boundary] = r.headers.get("content-type").split("; boundary=");
    assert.equal(type, "multipart/byteranges");
    const parts = byteranges(r.bytes, boundary);
    assert.deepEqual(parts.map((p) => p.range), [`bytes 0-99/${bundle.length}`, `bytes 1000-1099/${bundle.length}`]);
    assert.ok(parts[0].body.equals(bundle.subarray(0, 100)) && parts[1].body.equals(bundle.subarray(1000, 1100)), "the parts' bytes are the bundle's");

    r = await call(mf, "GET", "/api/bundles/team-2024.zip", { headers: { Range: `bytes=${bundle.length}-` } });
    assert.equal(r.status, 416);
    assert.equal(r.headers.get("content-range"), `bytes */${bundle.length}`);

    r = await call(mf, "HEAD", "/api/bundles/team-2024.zip");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-length"), String(bundle.length));
  });

  // Keys as surt 0.3.1 computes them; ranges as pywb's calc_search_range
  // (pywb/utils/canonicalize.py); from/to padded as pywb's cdx_clamp.
  const cases = [
    ["url=http://example.com/", ["com,example)/ 20240102030405 team-2024.zip", "com,example)/ 20250102030405 sample-2025.warc.gz"]],
    ["url=example.com/about/&matchType=exact", ["com,example)/about 20240302030405 team-2024.zip", "com,example)/about 20250302030405 sample-2025.warc.gz"]],
    ["url=http://example.com/pa&matchType=prefix", ["com,example)/page?a=1&b=2 20240202030405 team-2024.zip", "com,example)/page?a=1&b=2 20250202030405 sample-2025.warc.gz"]],
    ["url=example.com/a*&to=2024", ["com,example)/about 20240302030405 team-2024.zip", "com,example)/api?__wb_method=post&a=1&b=2 20240502030405 team-2024.zip"]],
    ["url=example.com&matchType=host&from=2025&limit=2", ["com,example)/ 20250102030405 sample-2025.warc.gz", "com,example)/about 20250302030405 sample-2025.warc.gz"]],
    ["url=sub.example.com&matchType=host", ["com,example,sub)/x 20240402030405 team-2024.zip", "com,example,sub)/x 20250402030405 sample-2025.warc.gz"]],
    ["url=example.com&matchType=domain&from=202504&to=202505", [
      "com,example)/api?__wb_method=post&a=1&b=2 20250502030405 sample-2025.warc.gz", "com,example,sub)/x 20250402030405 sample-2025.warc.gz"]],
    ["url=*.example.com&from=2025&limit=10", [
      "com,example)/ 20250102030405 sample-2025.warc.gz", "com,example)/about 20250302030405 sample-2025.warc.gz",
      "com,example)/api?__wb_method=post&a=1&b=2 20250502030405 sample-2025.warc.gz", "com,example)/page?a=1&b=2 20250202030405 sample-2025.warc.gz",
      "com,example,sub)/x 20250402030405 sample-2025.warc.gz"]],
    ["url=org&matchType=domain", ["org,example)/ 20240602030405 team-2024.zip", "org,example)/ 20250602030405 sample-2025.warc.gz"]],
    // The POST capture, found by its request as pywb keys it.
    ["url=http://example.com/api&method=POST&requestBody=b%3D2%26a%3D1&to=2024", ["com,example)/api?__wb_method=post&a=1&b=2 20240502030405 team-2024.zip"]],
    ["url=http://example.com/api", []],
  ];
  for (const [query, want] of cases) {
    test(`cdx ${query}`, async () => {
      const r = await call(mf, "GET", `/api/cdx?${query}`);
      assert.equal(r.status, 200, r.text);
      const got = r.text.split("\n").filter(Boolean).map((line) => {
        const [key, ts, ...rest] = line.split(" ");
        return `${key} ${ts} ${JSON.parse(rest.join(" ")).source}`;
      });
      assert.deepEqual(got, want);
    });
  }

  test("cdx line leads to its record (one gzip member, one record)", async () => {
    const r = await call(mf, "GET", "/api/cdx?url=https://sub.example.com/x&output=json");
    assert.equal(r.headers.get("content-type"), "text/x-ndjson");
    const lines = r.text.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    for (const e of lines) {
      assert.equal(e.urlkey, "com,example,sub)/x");
      const off = Number(e.offset), len = Number(e.length);
      const rec = await call(mf, "GET", `/api/bundles/${e.source}/${e.filename}`, { headers: { Range: `bytes=${off}-${off + len - 1}` } });
      assert.equal(rec.status, 206, rec.text);
      // Exactly one gzip member holding one WARC 0.9 response record (no current
      // reader, warcio included, reads 0.9: the text is checked as it is).
      const text = gunzipSync(rec.bytes).toString("latin1");
      assert.match(text, /^warc\/0\.9 \d+ response https:\/\/sub\.example\.com\/x \d{14} /);
      assert.equal(text.split("warc/0.9 ").length, 2);
      assert.match(text, new RegExp(`https://sub\\.example\\.com/x in ${e.timestamp.slice(0, 4)}</p>\r\n\r\n$`));
    }
  });

  // Each request's Go instance runs in a memory an earlier one has finished with, once
  // cleared (wasm/worker/glue/worker.mjs): queries one after another and many at once,
  // around an upload that grows its instance's memory, answer as the first did.
  test("instances on kept memories answer as on new ones", async () => {
    const q = "/api/cdx?url=example.org&matchType=domain&output=json";
    const first = await call(mf, "GET", q);
    assert.equal(first.status, 200, first.text);
    assert.ok(first.text.trim().split("\n").length >= 2, first.text);
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await call(mf, "GET", q));
    const [, big] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => call(mf, "GET", q))).then((rs) => answers.push(...rs)),
      call(mf, "PUT", "/api/bundles/kept-memory.warc", { body: bigWARC("http://example.net/kept", 3 << 20) }),
    ]);
    assert.equal(big.status, 201, big.text);
    for (let i = 0; i < 20; i++) answers.push(await call(mf, "GET", q));
    for (const r of answers) assert.equal(`${r.status} ${r.text}`, `${first.status} ${first.text}`);
    const r = await call(mf, "DELETE", "/api/bundles/kept-memory.warc");
    assert.ok(r.status < 300, r.text);
  });

  test("a bundle's own index: its lines, sorted, each leading to its record in the bundle", async () => {
    const r = await call(mf, "GET", "/api/bundles/team-2024.zip?cdxj");
    assert.equal(r.status, 200, r.text);
    const lines = r.text.split("\n").filter(Boolean);
    assert.deepEqual(lines, [...lines].sort());
    const queried = await call(mf, "GET", "/api/cdx?url=https://sub.example.com/x&output=json");
    const want = queried.text.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.source === "team-2024.zip");
    const line = lines.find((l) => l.startsWith("com,example,sub)/x "));
    const e = JSON.parse(line.slice(line.indexOf("{")));
    assert.deepEqual([e.offset, e.length, e.filename], [want.offset, want.length, want.filename]);
    assert.equal((await call(mf, "GET", "/api/bundles/none.zip?cdxj")).status, 404);
  });

  // A page's batch for a replay, made in the Worker in one request: its answers (the
  // batch format: the JSON's length in 4 bytes, the JSON, the bodies), the capture it
  // is of, and 304 for a client that names the batch it kept. Bodiless answers end
  // their instance as others do: the requests after them are answered.
  test("a page's batch for a replay, and 304 for a batch kept", async () => {
    const page = "https://sub.example.com/x";
    const batch = async (headers = {}) => call(mf, "GET", `/api/replay/batch?url=${encodeURIComponent(page)}&ts=2024`, { headers });
    let r = await batch();
    assert.equal(r.status, 200, r.text);
    const n = r.bytes.readUInt32BE(0);
    const answers = JSON.parse(r.bytes.subarray(4, 4 + n).toString());
    assert.deepEqual(answers.map((a) => [a.url, a.status, a.timestamp.slice(0, 4)]), [[page, 200, "2024"]]);
    assert.match(r.bytes.subarray(4 + n, 4 + n + answers[0].size).toString(), /https:\/\/sub\.example\.com\/x in 2024/);
    const capture = new URLSearchParams(r.headers.get("x-webkeep-batch-capture"));
    assert.equal(capture.get("source"), "team-2024.zip");
    assert.equal(capture.get("timestamp"), answers[0].timestamp);
    const etag = r.headers.get("etag");
    assert.match(r.headers.get("server-timing"), /lookup;dur=.*index;dur=.*records;dur=.*build;dur=.*ranges;desc=1/);
    for (let i = 0; i < 12; i++) {
      r = await batch({ "If-None-Match": etag });
      assert.equal(r.status, 304, r.text);
      assert.equal(r.bytes.length, 0);
    }
    r = await batch({ "If-None-Match": '"another"' });
    assert.equal(r.status, 200, r.text);
    r = await call(mf, "GET", "/api/replay/batch?url=https://never.example/");
    assert.equal(r.status, 200, r.text);
    const none = JSON.parse(r.bytes.subarray(4, 4 + r.bytes.readUInt32BE(0)).toString());
    assert.ok(!none?.length, `a page not archived: ${JSON.stringify(none)}`);
    assert.equal(r.headers.get("x-webkeep-batch-capture"), null);
  });

  test("URL database round trip with ETag conflicts", async () => {
    const dir = join(root, "shared", "teamarchive", "testdata", "urldb");
    const binder = readFileSync(join(dir, "binder.wwt-forum.org.yaml"));
    let r = await call(mf, "PUT", "/api/urldb/binder.wwt-forum.org.yaml", { body: binder });
    assert.equal(r.status, 201, r.text);
    const etag1 = r.headers.get("etag");
    assert.match(etag1, /^"[0-9a-f]+"$/);

    r = await call(mf, "GET", "/api/urldb/binder.wwt-forum.org.yaml");
    assert.equal(r.status, 200);
    assert.ok(r.bytes.equals(binder));
    assert.equal(r.headers.get("etag"), etag1);
    r = await call(mf, "GET", "/api/urldb/binder.wwt-forum.org.yaml", { headers: { "If-None-Match": etag1 } });
    assert.equal(r.status, 304);

    // Two writers read etag1; the first wins, the second is told, with the current ETag.
    const edited = Buffer.concat([binder, Buffer.from("---\n_path: /new\ncontent-type: text/html\n")]);
    const [a, b] = await Promise.all([
      call(mf, "PUT", "/api/urldb/binder.wwt-forum.org.yaml", { body: edited, headers: { "If-Match": etag1 } }),
      call(mf, "PUT", "/api/urldb/binder.wwt-forum.org.yaml", { body: binder, token: BOB, headers: { "If-Match": etag1 } }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 412], `${a.text} ${b.text}`);
    const winner = a.status === 200 ? a : b, loser = a.status === 200 ? b : a;
    assert.equal(loser.headers.get("etag"), winner.headers.get("etag"));

    r = await call(mf, "PUT", "/api/urldb/binder.wwt-forum.org.yaml", { body: binder });
    assert.equal(r.status, 428, "no blind overwrite");
    r = await call(mf, "PUT", "/api/urldb/binder.wwt-forum.org.yaml", { body: binder, headers: { "If-None-Match": "*" } });
    assert.equal(r.status, 412);
    r = await call(mf, "PUT", "/api/urldb/binder.wwt-forum.org.yaml", { body: "---\nhttps: maybe\n", headers: { "If-Match": winner.headers.get("etag") } });
    assert.equal(r.status, 422);
    assert.match(r.json().error, /binder\.wwt-forum\.org\.yaml:2/);

    r = await call(mf, "GET", "/api/urldb");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/zip");
    assert.equal(r.bytes.subarray(0, 4).toString("latin1"), "PK\x03\x04");
    r = await call(mf, "GET", "/api/urldb?format=json");
    assert.deepEqual(r.json().domains.map((d) => [d.file, d.etag]), [["binder.wwt-forum.org.yaml", winner.headers.get("etag")]]);
  });

  test("rejected tokens", async () => {
    for (const [method, path, token] of [
      ["PUT", "/api/bundles/x.zip", null],
      ["PUT", "/api/bundles/x.zip", "wrong-token"],
      ["PUT", "/api/bundles/x.zip", ALICE + "x"],
      ["GET", "/api/bundles", null],
      ["GET", "/api/bundles", "wrong-token"],
      ["GET", "/api/cdx?url=example.com", null],
      ["GET", "/api/urldb", null],
      ["PUT", "/api/urldb/example.com.yaml", null],
    ]) {
      const r = await call(mf, method, path, { token, body: method === "PUT" ? bundle : undefined });
      assert.equal(r.status, 401, `${method} ${path} ${token}`);
      assert.match(r.headers.get("www-authenticate"), /^Bearer realm="webkeep"/);
    }
    const r = await call(mf, "GET", "/api/bundles", { token: null, headers: { Authorization: `Basic ${btoa("alice:" + ALICE)}` } });
    assert.equal(r.status, 401);
  });

  test("hostile names", async () => {
    const before = await allKeys(mf);
    for (const name of ["..%2Fx.zip", "%2e%2e%2fsecret", ".hidden", "-rf", "a%00b", "a%20b", "name.", "a..b", "%C3%BC.zip", "x".repeat(129), "a%5Cb"]) {
      const r = await call(mf, "PUT", `/api/bundles/${name}`, { body: bundle });
      assert.equal(r.status, 400, `${name}: ${r.status} ${r.text}`);
    }
    // The URL parser resolves dot segments before the Worker sees them: nothing matches.
    for (const path of ["/api/bundles/../urldb/x.yaml", "/api/bundles/%2e%2e/urldb/x.yaml"]) {
      const r = await call(mf, "PUT", path, { body: bundle });
      assert.notEqual(r.status, 201, path);
    }
    const r = await call(mf, "PUT", "/api/bundles/team-2024.zip", { body: warc2025 });
    assert.equal(r.status, 409, "no overwrite unless asked");
    assert.deepEqual(await allKeys(mf), before);
  });

  test("oversized and malformed uploads leave nothing", async () => {
    const before = await allKeys(mf);
    let r = await call(mf, "PUT", "/api/bundles/big.warc", { body: Buffer.alloc((4 << 20) + 1) });
    assert.equal(r.status, 413);
    r = await call(mf, "PUT", "/api/bundles/text.zip", { body: "not an archive" });
    assert.equal(r.status, 415);
    r = await call(mf, "PUT", "/api/bundles/cut.zip", { body: bundle.subarray(0, bundle.length - 40) });
    assert.equal(r.status, 422);
    assert.deepEqual(await allKeys(mf), before);
  });

  test("interrupted upload leaves nothing", async () => {
    const before = await allKeys(mf);
    const big = bigWARC("http://example.net/big", 3 << 20);
    for (const sent of [1000, 2 << 20]) {
      const body = new ReadableStream({
        start(c) {
          c.enqueue(big.subarray(0, sent));
        },
        pull(c) {
          c.error(new Error("client went away"));
        },
      });
      let status;
      try {
        status = (await call(mf, "PUT", "/api/bundles/cut.warc", { body, headers: { "Content-Length": String(big.length) } })).status;
      } catch (err) {
        status = "aborted"; // the request itself failed: equally fine, if nothing was stored
      }
      assert.notEqual(status, 201);
    }
    assert.deepEqual(await allKeys(mf), before);
    const r = await call(mf, "GET", "/api/bundles/cut.warc");
    assert.equal(r.status, 404);
  });

  test("large upload is streamed and indexed", async () => {
    const big = bigWARC("http://example.net/big", 3 << 20);
    let r = await call(mf, "PUT", "/api/bundles/big.warc", { body: big });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json().records, 1);
    r = await call(mf, "GET", "/api/bundles/big.warc", { headers: { Range: `bytes=${big.length - 100}-` } });
    assert.ok(r.bytes.equals(big.subarray(big.length - 100)));
    r = await call(mf, "GET", "/api/bundles/big.warc");
    assert.ok(r.bytes.equals(big));
    r = await call(mf, "GET", "/api/cdx?url=example.net/big");
    assert.match(r.text, /^net,example\)\/big 20240901000000 \{.*"filename": "big.warc", "source": "big.warc", "upload": "[0-9TZ.a-f-]+"\}\n$/);
    r = await call(mf, "DELETE", "/api/bundles/big.warc");
    assert.equal(r.status, 204);
    assert.ok(!(await allKeys(mf)).some((k) => k.includes("big.warc")));
  });

  test("50 concurrent uploads, nothing lost", async () => {
    const names = Array.from({ length: 50 }, (_, i) => `conc-${String(i).padStart(2, "0")}.zip`);
    const results = await Promise.all(names.map((n, i) => call(mf, "PUT", `/api/bundles/${n}`, { body: bundle, token: i % 2 ? BOB : ALICE })));
    assert.deepEqual(results.map((r) => r.status), names.map(() => 201), results.map((r) => r.text).join());
    // And five at once under one name: exactly one wins, the others leave nothing.
    const same = await Promise.all(Array.from({ length: 5 }, () => call(mf, "PUT", "/api/bundles/conc-same.zip", { body: bundle })));
    assert.deepEqual(same.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);

    const listed = [];
    let cursor = "";
    for (;;) {
      const r = await call(mf, "GET", `/api/bundles?limit=20${cursor ? "&cursor=" + encodeURIComponent(cursor) : ""}`);
      const page = r.json();
      listed.push(...page.bundles.filter((b) => b.name.startsWith("conc-")).map((b) => b.name));
      if (!page.truncated) break;
      cursor = page.cursor;
    }
    assert.deepEqual(listed, [...names, "conc-same.zip"]);
    const keys = (await allKeys(mf)).filter((k) => k.includes("/conc-"));
    assert.equal(keys.length, 51 * 3);
    const r = await call(mf, "GET", "/api/cdx?url=example.org&to=2024&limit=1000");
    assert.equal(r.text.trim().split("\n").length, 52); // 51 concurrent + team-2024.zip
  });
});

describe("public reads", () => {
  let mf;
  before(async () => {
    mf = startWorker({ WEBKEEP_PUBLIC_READS: "1" });
    await mf.ready;
  });
  after(() => mf?.dispose());

  test("reads without a token, writes still need one", async () => {
    let r = await call(mf, "PUT", "/api/bundles/p.zip", { body: bundle });
    assert.equal(r.status, 201);
    r = await call(mf, "GET", "/api/bundles", { token: null });
    assert.equal(r.status, 200);
    r = await call(mf, "GET", "/api/bundles/p.zip", { token: null });
    assert.ok(r.bytes.equals(bundle));
    r = await call(mf, "GET", "/api/cdx?url=example.org", { token: null });
    assert.equal(r.status, 200);
    r = await call(mf, "PUT", "/api/bundles/q.zip", { body: bundle, token: null });
    assert.equal(r.status, 401);
    r = await call(mf, "DELETE", "/api/bundles/p.zip", { token: null });
    assert.equal(r.status, 401);
  });
});

describe("uploads larger than a multipart part", () => {
  let mf;
  before(async () => {
    mf = startWorker({ WEBKEEP_MAX_BUNDLE_BYTES: String(32 << 20) });
    await mf.ready;
  });
  after(() => mf?.dispose());

  // miniflare's dispatchFetch sends bodies chunked, without Content-Length: past 8 MiB
  // the Worker stores them with an R2 multipart upload.
  test("12 MiB chunked upload round trips", async () => {
    const big = bigWARC("http://example.net/huge", 12 << 20);
    let r = await call(mf, "PUT", "/api/bundles/huge.warc", { body: big });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json().size, big.length);
    r = await call(mf, "GET", "/api/bundles/huge.warc", { headers: { Range: `bytes=${(8 << 20) - 10}-${(8 << 20) + 9}` } });
    assert.ok(r.bytes.equals(big.subarray((8 << 20) - 10, (8 << 20) + 10)));
    r = await call(mf, "GET", "/api/cdx?url=http://example.net/huge");
    assert.match(r.text, /"source": "huge.warc"/);
  });
});

// byteranges splits a multipart/byteranges body (RFC 9110 section 14.6) into its parts:
// each part's Content-Range and bytes.
function byteranges(body, boundary) {
  const parts = [];
  const sep = Buffer.from(`--${boundary}`);
  let at = body.indexOf(sep);
  while (at >= 0) {
    const start = at + sep.length;
    if (body.subarray(start, start + 2).toString() === "--") break; // the closing delimiter
    const headEnd = body.indexOf("\r\n\r\n", start);
    const next = body.indexOf(Buffer.concat([Buffer.from("\r\n"), sep]), headEnd);
    const head = body.subarray(start, headEnd).toString();
    parts.push({ range: /content-range: *(.*)/i.exec(head)?.[1].trim(), body: body.subarray(headEnd + 4, next) });
    at = next + 2;
  }
  return parts;
}
