// warcio (npm) reads webkeep's WARC/1.1 output record by record, and every block and
// payload digest checks out. Run from the project root: node --test scripts/test/interop/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WARCParser } from "warcio";
import { sha1Digest } from "../../lib/warcio-check.mjs";

const dir = mkdtempSync(join(tmpdir(), "warc-interop-"));
const webkeep = join(dir, "webkeep");
execFileSync("go", ["build", "-o", webkeep, "./cmd/webkeep"], { stdio: "inherit" });

const sha1 = sha1Digest;

function headerEnd(block) {
  for (let i = 0; i + 3 < block.length; i++) {
    if (block[i] === 13 && block[i + 1] === 10 && block[i + 2] === 13 && block[i + 3] === 10) return i + 4;
  }
  return -1;
}

for (const out of ["out.warc.gz", "out.warc"]) {
  test(`warcio reads ${out} and its digests match`, async () => {
    const src = "shared/warc/testdata/appendix-b-0.9.warc.gz";
    assert.ok(existsSync(src));
    const path = join(dir, out);
    execFileSync(webkeep, ["warc", "convert", "--to", "1.1", src, path]);
    const parser = new WARCParser(createReadStream(path), { parseHttp: false });
    const types = [];
    let payloads = 0;
    for await (const record of parser) {
      const block = await record.readFully(false);
      types.push(record.warcType);
      assert.equal(record.warcHeaders.protocol ?? record.warcHeaders.statusline, "WARC/1.1");
      assert.equal(block.length, record.warcContentLength, "Content-Length");
      assert.equal(record.warcBlockDigest, sha1(block), `block digest of ${record.warcHeader("WARC-Record-ID")}`);
      if (record.warcType === "response" || record.warcType === "request") {
        const end = headerEnd(block);
        assert.ok(end > 0);
        assert.equal(record.warcPayloadDigest, sha1(block.subarray(end)), "payload digest");
        payloads++;
      }
      if (record.warcType === "response") {
        assert.deepEqual(record.warcConcurrentTo, ["<uuid:f569983a-ef8c-4e62-b347-295b227c3e51>"]);
      }
    }
    assert.deepEqual(types, ["warcinfo", "request", "response", "resource", "metadata", "revisit", "conversion", "continuation"]);
    assert.equal(payloads, 2);
  });
}

// A body that does not compress (a video's) is stored whole in its gzip member, every
// deflate block stored (docs/formats.md): warcio and zlib read it as any other.
test("warcio and zlib read a large body stored whole, byte for byte", async () => {
  const body = randomBytes(3 << 20);
  const http = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: video/webm\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
  const src = join(dir, "video.warc"), out = join(dir, "video.warc.gz");
  writeFileSync(src, Buffer.concat([Buffer.from("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:7d1e2c1a-0b6f-4a53-9d7c-3f6c1b0e9a11>\r\n" +
    `WARC-Date: 2024-05-06T07:08:09Z\r\nWARC-Target-URI: http://example.com/v.webm\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n`), http, Buffer.from("\r\n\r\n")]));
  execFileSync(webkeep, ["warc", "convert", "--to", "1.1", src, out]);
  // Stored whole: after the gzip header (24 bytes), a stored block of 65535 bytes,
  // and the member as long as the record and 5 bytes for each block, gzip's 32.
  const file = readFileSync(out);
  const whole = gunzipSync(file);
  assert.equal(file[24], 0, "a stored block, not final");
  assert.equal(file.readUInt16LE(25), 65535, "a full one");
  assert.equal(file.length, whole.length + 5 * (Math.floor(whole.length / 65535) + 1) + 32, "stored blocks only");
  const parser = new WARCParser(createReadStream(out), { parseHttp: false });
  let seen = 0;
  for await (const record of parser) {
    if (record.warcType !== "response") continue;
    const block = await record.readFully(false);
    assert.equal(record.warcBlockDigest, sha1(block), "block digest");
    const payload = block.subarray(headerEnd(block));
    assert.equal(createHash("sha256").update(payload).digest("hex"), createHash("sha256").update(body).digest("hex"), "the body as written");
    seen++;
  }
  assert.equal(seen, 1);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
