// The merged CDX index in workerd (miniflare 4: R2, the IndexStore Durable Objects
// with SQLite storage, the compaction queue): random uploads, replacements and
// deletes answered exactly as a brute-force merge of every stored bundle's own index;
// a compaction killed with the Worker, then resumed, losing and duplicating nothing;
// the digests an upload holds.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, startWorker } from "./harness.mjs";

const SITES = ["a.example.org", "b.example.org", "shop.example.com", "news.example.co.uk", "wiki.example.net"];
let seed = 7;
const rand = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
let serial = 0;

function record(headers, block) {
  const head = Buffer.from(`WARC/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\nContent-Length: ${block.length}\r\n\r\n`);
  return gzipSync(Buffer.concat([head, block, Buffer.from("\r\n\r\n")]));
}

// session writes n captures, GETs and form POSTs (request and response records).
function session(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const site = SITES[rand(SITES.length)];
    const post = rand(5) === 0;
    const url = post ? `https://${site}/search` : `https://${site}/p/${rand(15)}`;
    const date = new Date(Date.UTC(2020 + rand(6), rand(12), 1 + rand(28), rand(24), rand(60), rand(60))).toISOString().replace(/\.\d+Z$/, "Z");
    const body = `q=${rand(3)}`;
    const path = url.slice(url.indexOf("/", 8));
    const req = Buffer.from(post
      ? `POST ${path} HTTP/1.1\r\nHost: ${site}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
      : `GET ${path} HTTP/1.1\r\nHost: ${site}\r\n\r\n`);
    const payload = Buffer.from(`<p>${url} ${rand(3)}</p>`);
    const resp = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${payload.length}\r\n\r\n`), payload]);
    const id = (k) => `<urn:uuid:00000000-0000-4000-8000-${String(k).padStart(12, "0")}>`;
    serial += 2;
    out.push(record({ "WARC-Type": "request", "WARC-Target-URI": url, "WARC-Date": date, "WARC-Record-ID": id(serial), "Content-Type": "application/http; msgtype=request" }, req));
    out.push(record({ "WARC-Type": "response", "WARC-Target-URI": url, "WARC-Date": date, "WARC-Record-ID": id(serial + 1), "WARC-Concurrent-To": id(serial), "Content-Type": "application/http; msgtype=response" }, resp));
  }
  return Buffer.concat(out);
}

// storedLines reads every listed bundle's own stored index from R2, each line as the
// merged index gives it ("source" and "upload" added).
async function storedLines(mf) {
  const bucket = await mf.getR2Bucket("ARCHIVE");
  const lines = [];
  let cursor;
  do {
    const page = await bucket.list({ prefix: "index/", cursor, include: ["customMetadata"] });
    for (const o of page.objects) {
      const name = o.key.slice("index/".length);
      const cdxKey = o.customMetadata.cdx;
      const upload = cdxKey.slice(cdxKey.lastIndexOf("/") + 1);
      const text = await (await bucket.get(cdxKey)).text();
      for (const l of text.split("\n").filter(Boolean)) lines.push(`${l.slice(0, -1)}, "source": ${JSON.stringify(name)}, "upload": ${JSON.stringify(upload)}}`);
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

const surtHost = (host) => host.split(".").reverse().join(",");

// expected answers the queries the test asks from the stored lines.
function expected(lines, q) {
  const key = (l) => l.slice(0, l.indexOf(" "));
  let out;
  if (q.exactKey) out = lines.filter((l) => key(l) === q.exactKey);
  else out = lines.filter((l) => key(l).startsWith(surtHost(q.domain) + ")") || key(l).startsWith(surtHost(q.domain) + ","));
  if (q.reverse) out = [...out].reverse();
  return out.slice(0, q.limit ?? 1000); // the CDX API's default limit
}

async function checkAll(mf, step) {
  const lines = await storedLines(mf);
  const probes = [];
  for (let i = 0; i < 4 && lines.length; i++) {
    const l = lines[rand(lines.length)];
    const js = JSON.parse(l.slice(l.indexOf("{")));
    const k = l.slice(0, l.indexOf(" "));
    const qs = js.method ? `url=${encodeURIComponent(js.url)}&method=${js.method}&requestBody=${encodeURIComponent(js.requestBody)}` : `url=${encodeURIComponent(js.url)}`;
    probes.push({ qs, exactKey: k });
  }
  for (const d of ["example.org", "example.com", "example.co.uk"]) {
    probes.push({ qs: `url=${d}&matchType=domain`, domain: d });
    probes.push({ qs: `url=${d}&matchType=domain&sort=reverse&limit=5`, domain: d, reverse: true, limit: 5 });
  }
  for (const p of probes) {
    const r = await call(mf, "GET", `/api/cdx?${p.qs}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.text.split("\n").filter(Boolean), expected(lines, p), `${step}: ${p.qs}`);
  }
}

describe("merged index in workerd", () => {
  let dir;
  before(() => (dir = mkdtempSync(join(tmpdir(), "webkeep-index-test-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("random uploads, replacements and deletes answer as a brute-force merge", async () => {
    const mf = startWorker({ WEBKEEP_INDEX_DELTA_LIMIT: "40", WEBKEEP_INDEX_SPLIT_LINES: "60", WEBKEEP_INDEX_LINES_PER_BLOCK: "6" });
    try {
      for (let step = 0; step < 40; step++) {
        const name = `s${rand(10)}.warc.gz`;
        if (rand(5) === 0) {
          const r = await call(mf, "DELETE", `/api/bundles/${name}`);
          assert.ok([204, 404].includes(r.status), r.text);
        } else {
          const r = await call(mf, "PUT", `/api/bundles/${name}?overwrite=1`, { body: session(1 + rand(20)) });
          assert.ok([200, 201].includes(r.status), r.text);
        }
        if (step % 8 === 7) await call(mf, "POST", "/api/index/compact");
        await checkAll(mf, `step ${step}`);
      }
      const { shards } = (await call(mf, "GET", "/api/index")).json();
      assert.ok(shards.length >= 2, `${shards.length} shard(s): the index never split`);
      assert.ok(shards.some((s) => s.blocks > 0), "no shard has a main index: nothing was compacted");
    } finally {
      await mf.dispose();
    }
  });

  test("a compaction killed with the Worker, then resumed, loses and duplicates nothing", async () => {
    const persist = join(dir, "killed");
    const env = { WEBKEEP_INDEX_DELTA_LIMIT: "1000000", WEBKEEP_INDEX_LEASE: "2s", WEBKEEP_INDEX_SPLIT_LINES: "3000" };
    let mf = startWorker(env, { persistTo: persist });
    for (let i = 0; i < 12; i++) {
      const r = await call(mf, "PUT", `/api/bundles/k${i}.warc.gz`, { body: session(400) });
      assert.equal(r.status, 201, r.text);
    }
    const before = await storedLines(mf);
    await mf.dispose();
    // Kill the Worker at several points of a compaction of 4,800 lines (a split
    // among them), each followed by a check that the index answers as before.
    let killedMidway = 0;
    for (const delay of [20, 40, 70, 100, 140, 200, 300]) {
      mf = startWorker(env, { persistTo: persist });
      await call(mf, "GET", "/api/index"); // started
      const compacting = call(mf, "POST", "/api/index/compact").catch((e) => e);
      await new Promise((r) => setTimeout(r, delay));
      await mf.dispose();
      const answer = await compacting;
      mf = startWorker(env, { persistTo: persist });
      try {
        const { shards } = (await call(mf, "GET", "/api/index")).json();
        if ((answer instanceof Error || answer.status !== 200) && shards.some((s) => s.compacting)) killedMidway++;
        await checkAll(mf, `killed after ${delay} ms`);
      } finally {
        await mf.dispose();
      }
      await new Promise((r) => setTimeout(r, 2100)); // the killed compaction's lease ends
    }
    assert.ok(killedMidway >= 2, `only ${killedMidway} kills fell inside a compaction`);
    mf = startWorker(env, { persistTo: persist });
    try {
      const r = await call(mf, "POST", "/api/index/compact");
      assert.equal(r.status, 200, r.text);
      await checkAll(mf, "after compacting to the end");
      const { shards } = (await call(mf, "GET", "/api/index")).json();
      assert.equal(shards.reduce((a, s) => a + s.lines, 0), before.length, JSON.stringify(shards));
      assert.ok(shards.every((s) => s.delta === 0 && !s.pending), JSON.stringify(shards));
      const got = (await call(mf, "GET", "/api/cdx?url=example.org&matchType=domain&limit=100000")).text.split("\n").filter(Boolean);
      assert.equal(new Set(got).size, got.length, "duplicate lines");
      assert.deepEqual(got, expected(before, { domain: "example.org", limit: 100000 }));
    } finally {
      await mf.dispose();
    }
  });

  test("the digests of an upload are held until it is deleted", async () => {
    const mf = startWorker();
    try {
      const body = session(10);
      let r = await call(mf, "PUT", "/api/bundles/d1.warc.gz", { body });
      assert.equal(r.status, 201, r.text);
      const lines = await storedLines(mf);
      const digests = [...new Set(lines.map((l) => JSON.parse(l.slice(l.indexOf("{"))).digest).filter(Boolean))];
      r = await call(mf, "POST", "/api/digests", { body: JSON.stringify({ digests: [...digests, "NOTHELD"] }) });
      assert.equal(r.status, 200, r.text);
      const known = r.json().known;
      assert.deepEqual(Object.keys(known).sort(), [...digests].sort());
      for (const d of digests) assert.equal(known[d].source, "d1.warc.gz");
      assert.equal((await call(mf, "DELETE", "/api/bundles/d1.warc.gz")).status, 204);
      r = await call(mf, "POST", "/api/digests", { body: JSON.stringify({ digests }) });
      assert.deepEqual(r.json().known, {});
    } finally {
      await mf.dispose();
    }
  });
});
