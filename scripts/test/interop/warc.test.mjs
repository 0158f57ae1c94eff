// warcio (npm) reads webkeep's WARC/1.1 output record by record, and every block and
// payload digest checks out. Run from the project root: node --test scripts/test/interop/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createReadStream, existsSync, mkdtempSync, rmSync } from "node:fs";
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

test.after(() => rmSync(dir, { recursive: true, force: true }));
