// A WACZ made by `webkeep wacz create` reads back with warcio (npm) record by record:
// every WARC inside is WARC/1.x, every block and payload digest checks out, every
// CDXJ line (found through index.idx as wabac.js finds it) points at one whole
// record of its URL, and datapackage.json's sizes and SHA-256 hashes are right.
// Inputs: a WARC 0.9 fixture (converted by the command), the same converted by
// `webkeep warc convert`, and a WARC/1.1 file that warcio itself writes.
// Run from the project root after `make build`: node --test scripts/test/interop/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gunzipSync } from "node:zlib";
import { WARCParser, WARCRecord, WARCSerializer } from "warcio";
import { readZip } from "../../lib/zip.mjs";
import { base32 } from "../../lib/warcio-check.mjs";

const dir = mkdtempSync(join(tmpdir(), "wacz-interop-"));
let webkeep = "bin/webkeep";
if (!existsSync(webkeep)) {
  webkeep = join(dir, "webkeep");
  execFileSync("go", ["build", "-o", webkeep, "./cmd/webkeep"], { stdio: "inherit" });
}


// digestMatches checks a WARC digest ("sha1:BASE32" as webkeep writes, or
// "sha256:hex" as warcio.js writes) against the bytes.
function digestMatches(digest, bytes) {
  const [algo, value] = digest.split(":");
  const sum = createHash(algo === "sha1" ? "sha1" : "sha256").update(bytes).digest();
  return value === base32(sum) || value.toLowerCase() === sum.toString("hex");
}

function headerEnd(block) {
  for (let i = 0; i + 3 < block.length; i++) {
    if (block[i] === 13 && block[i + 1] === 10 && block[i + 2] === 13 && block[i + 3] === 10) return i + 4;
  }
  return -1;
}

async function records(bytes) {
  const out = [];
  for await (const record of new WARCParser(Readable.from([bytes]), { parseHttp: false })) {
    out.push({ record, block: await record.readFully(false) });
  }
  return out;
}

const sha256 = (b) => "sha256:" + createHash("sha256").update(b).digest("hex");

// A WARC/1.1 file written by warcio.js: one HTML page and its image.
async function warcioWARC(path) {
  const enc = new TextEncoder();
  const parts = [];
  for (const [url, type, body] of [
    ["https://example.com/", "text/html; charset=utf-8", "<html><title>Example</title><img src=logo.png></html>"],
    ["https://example.com/logo.png", "image/png", "\x89PNG not really"],
  ]) {
    const record = await WARCRecord.create({
      url, date: "2024-03-04T05:06:07Z", type: "response", warcVersion: "WARC/1.1",
      statusline: "HTTP/1.1 200 OK", httpHeaders: { "Content-Type": type },
    }, [enc.encode(body)]);
    parts.push(await WARCSerializer.serialize(record, { gzip: true }));
  }
  writeFileSync(path, Buffer.concat(parts));
}

test("warcio reads every WARC of a WACZ from webkeep wacz create, and the index points at its records", async () => {
  const fixture = "shared/warc/testdata/appendix-b-0.9.warc.gz";
  const converted = join(dir, "converted.warc.gz");
  execFileSync(webkeep, ["warc", "convert", "--to", "1.1", fixture, converted]);
  const foreign = join(dir, "warcio.warc.gz");
  await warcioWARC(foreign);
  const out = join(dir, "out.wacz");
  execFileSync(webkeep, ["wacz", "create", "-o", out, "--title", "Interop", fixture, converted, foreign]);

  const files = readZip(out);
  const archives = [...files.keys()].filter((n) => n.startsWith("archive/")).sort();
  assert.deepEqual(archives, ["archive/appendix-b-0.9.warc.gz", "archive/converted.warc.gz", "archive/warcio.warc.gz"]);

  // datapackage.json and datapackage-digest.json (WACZ 1.1.1, "datapackage.json").
  const manifest = files.get("datapackage.json");
  const dp = JSON.parse(manifest);
  assert.equal(dp.profile, "data-package");
  assert.equal(dp.wacz_version, "1.1.1");
  assert.equal(dp.title, "Interop");
  assert.equal(dp.mainPageUrl, "https://example.com/");
  assert.equal(dp.mainPageDate, "2024-03-04T05:06:07Z");
  const listed = dp.resources.map((r) => r.path).sort();
  assert.deepEqual(listed, [...files.keys()].filter((n) => !n.startsWith("datapackage")).sort());
  for (const r of dp.resources) {
    const b = files.get(r.path);
    assert.equal(r.bytes, b.length, `bytes of ${r.path}`);
    assert.equal(r.hash, sha256(b), `hash of ${r.path}`);
  }
  assert.deepEqual(JSON.parse(files.get("datapackage-digest.json")), { path: "datapackage.json", hash: sha256(manifest) });

  // pages.jsonl: the header, then the detected HTML page.
  const pages = files.get("pages/pages.jsonl").toString().trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(pages[0], { format: "json-pages-1.0", id: "pages", title: "All Pages" });
  assert.deepEqual(pages.slice(1).map((p) => [p.url, p.ts]), [["https://example.com/", "2024-03-04T05:06:07Z"]]);

  // Every record of every WARC, with warcio.
  let payloads = 0;
  for (const name of archives) {
    const recs = await records(files.get(name));
    assert.ok(recs.length > 0, name);
    for (const { record, block } of recs) {
      const id = `${name} ${record.warcHeader("WARC-Record-ID")}`;
      assert.match(record.warcHeaders.protocol, /^WARC\/1\.[01]$/, id);
      assert.equal(block.length, record.warcContentLength, `Content-Length of ${id}`);
      if (record.warcBlockDigest) assert.ok(digestMatches(record.warcBlockDigest, block), `block digest of ${id}`);
      if ((record.warcType === "response" || record.warcType === "request") && record.warcPayloadDigest) {
        assert.ok(digestMatches(record.warcPayloadDigest, block.subarray(headerEnd(block))), `payload digest of ${id}`);
        payloads++;
      }
    }
  }
  assert.ok(payloads >= 6, `${payloads} payload digests checked`);

  // index.idx -> gzip blocks of index.cdx.gz -> CDXJ lines -> one record each.
  const idx = files.get("indexes/index.idx").toString().trim().split("\n");
  assert.match(idx[0], /^!meta 0 \{"format": "cdxj-gzip-1\.0", "filename": "index\.cdx\.gz"\}$/);
  const cdxgz = files.get("indexes/index.cdx.gz");
  let lines = 0;
  for (const line of idx.slice(1)) {
    const brace = line.indexOf(" {");
    const { offset, length, digest } = JSON.parse(line.slice(brace + 1));
    const member = cdxgz.subarray(offset, offset + length);
    assert.equal(sha256(member), digest);
    const cdxj = gunzipSync(member).toString().trim().split("\n");
    assert.ok(cdxj[0].startsWith(line.slice(0, brace) + " {"));
    for (const entry of cdxj) {
      const fields = JSON.parse(entry.slice(entry.indexOf(" {") + 1));
      const file = files.get("archive/" + fields.filename);
      const start = Number(fields.offset), end = start + Number(fields.length);
      assert.ok(file && end <= file.length, entry);
      const recs = await records(file.subarray(start, end));
      assert.equal(recs.length, 1, entry);
      assert.equal(recs[0].record.warcTargetURI, fields.url, entry);
      lines++;
    }
  }
  assert.ok(lines >= 14, `${lines} index lines`);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
