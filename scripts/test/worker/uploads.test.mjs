// Uploads in parts in workerd (miniflare 4, R2 persisted on disk): a bundle of over
// 1 GiB generated on the fly, sent 16 MiB a part; the connection is cut in the middle
// of a part and the Worker stopped, a new one started on the same R2, the upload
// resumed from the parts the Worker says it has, completed, listed, downloaded
// byte-identical (SHA-256); an upload abandoned meanwhile is swept.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { Miniflare } from "miniflare";
import { ALICE, BOB, allKeys, call, workerOptions } from "./harness.mjs";

const PART = 16 << 20;
const PAYLOAD = Number(process.env.WEBKEEP_UPLOAD_TEST_BYTES || 1100 << 20); // over 1 GiB

const persist = mkdtempSync(join(tmpdir(), "webkeep-uploads-"));
after(() => rmSync(persist, { recursive: true, force: true }));

function start(bindings = {}) {
  return new Miniflare(workerOptions({ WEBKEEP_MAX_UPLOAD_BYTES: String(4 << 30), ...bindings }, { persistTo: persist }));
}

// rss returns the resident memory in bytes of this process and of workerd (the
// Worker's runtime, a child of this process), from /proc.
function rss() {
  const of = (pid) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
    } catch {
      return 0;
    }
  };
  let workerd = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
      if (cmd.includes("workerd") && ppid === process.pid) workerd += of(pid);
    } catch {
      /* gone */
    }
  }
  return { node: of(process.pid), workerd };
}

// BundleStream produces, in order, a bundle zip as the extension makes it: a stored
// WARC (one response record whose payload is n bytes, every MiB of it distinct) with a
// data descriptor, then its CDXJ index and the central directory. Only one MiB of
// payload is ever held.
class BundleStream {
  constructor(n) {
    const head = Buffer.from("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " + n + "\r\n\r\n");
    const warcHead = Buffer.from(
      "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/big\r\nWARC-Date: 2024-09-01T00:00:00Z\r\n" +
        "WARC-Record-ID: <urn:uuid:5e4c2f8a-0000-4000-8000-000000000002>\r\nContent-Type: application/http; msgtype=response\r\n" +
        `Content-Length: ${head.length + n}\r\n\r\n`,
    );
    this.block = randomBytes(1 << 20);
    this.n = n;
    this.warcSize = warcHead.length + head.length + n + 4;
    this.crc = 0;
    // Pieces to send; the WARC's (but its tail) go through the CRC as they are sent.
    this.queue = [{ buf: this.localHeader("big.warc", 0, 0, 8) }, { buf: warcHead, crc: true }, { buf: head, crc: true }];
    this.payloadDone = 0;
    this.offset = 0;
    this.ended = false;
    this.total = 0;
    this.sha = createHash("sha256");
  }

  localHeader(name, crc, size, flags = 0) {
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(flags, 6);
    h.writeUInt32LE(crc, 14);
    h.writeUInt32LE(size, 18);
    h.writeUInt32LE(size, 22);
    h.writeUInt16LE(name.length, 26);
    return Buffer.concat([h, Buffer.from(name)]);
  }

  centralHeader(name, crc, size, offset, flags) {
    const h = Buffer.alloc(46);
    h.writeUInt32LE(0x02014b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(20, 6);
    h.writeUInt16LE(flags, 8);
    h.writeUInt32LE(crc, 16);
    h.writeUInt32LE(size, 20);
    h.writeUInt32LE(size, 24);
    h.writeUInt16LE(name.length, 28);
    h.writeUInt32LE(offset, 42);
    return Buffer.concat([h, Buffer.from(name)]);
  }

  // refill queues the next piece; false at the end.
  refill() {
    if (this.payloadDone < this.n) {
      const k = Math.min(this.block.length, this.n - this.payloadDone);
      this.block.writeUInt32LE(this.payloadDone / this.block.length, 0);
      const piece = Buffer.from(this.block.subarray(0, k));
      this.payloadDone += k;
      this.queue.push({ buf: piece, crc: true });
      return true;
    }
    if (this.ended) return false;
    this.ended = true;
    const tail = Buffer.from("\r\n\r\n");
    const warcLocal = 30 + "big.warc".length;
    // Everything of the WARC but its tail has gone through the CRC by now.
    const crc = crc32(tail, this.crc);
    const dd = Buffer.alloc(16);
    dd.writeUInt32LE(0x08074b50, 0);
    dd.writeUInt32LE(crc, 4);
    dd.writeUInt32LE(this.warcSize, 8);
    dd.writeUInt32LE(this.warcSize, 12);
    const line =
      `com,example)/big 20240901000000 {"url": "http://example.com/big", "mime": "application/octet-stream", "status": "200", ` +
      `"digest": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "length": "${this.warcSize}", "offset": "0", "filename": "big.warc"}\n`;
    const cdxj = Buffer.from(line);
    const cdxOffset = warcLocal + this.warcSize + 16;
    const cdxLocal = this.localHeader("big.cdxj", crc32(cdxj), cdxj.length);
    const cdStart = cdxOffset + cdxLocal.length + cdxj.length;
    const cd = Buffer.concat([this.centralHeader("big.warc", crc, this.warcSize, 0, 8), this.centralHeader("big.cdxj", crc32(cdxj), cdxj.length, cdxOffset, 0)]);
    const eocd = Buffer.alloc(22);
    eocd.writeUInt32LE(0x06054b50, 0);
    eocd.writeUInt16LE(2, 8);
    eocd.writeUInt16LE(2, 10);
    eocd.writeUInt32LE(cd.length, 12);
    eocd.writeUInt32LE(cdStart, 16);
    this.queue.push(...[tail, dd, cdxLocal, cdxj, cd, eocd].map((buf) => ({ buf })));
    return true;
  }

  // take returns the next n bytes (fewer at the end, empty after it).
  take(n) {
    const out = [];
    let got = 0;
    while (got < n) {
      if (this.queue.length === 0 && !this.refill()) break;
      const piece = this.queue[0];
      const k = Math.min(piece.buf.length, n - got);
      const bytes = piece.buf.subarray(0, k);
      if (piece.crc) this.crc = crc32(bytes, this.crc);
      out.push(bytes);
      if (k === piece.buf.length) this.queue.shift();
      else piece.buf = piece.buf.subarray(k);
      got += k;
    }
    const buf = Buffer.concat(out);
    this.offset += buf.length;
    this.sha.update(buf);
    return buf;
  }
}

function sendPart(mf, u, n, body, token = ALICE) {
  return call(mf, "PUT", `/api/uploads/${u.name}/${u.upload}/${n}`, { body, token });
}

// cutBody sends half of buf, then fails, as a connection that drops.
function cutBody(buf) {
  let sent = false;
  return new ReadableStream({
    pull(c) {
      if (!sent) {
        sent = true;
        c.enqueue(new Uint8Array(buf.subarray(0, buf.length >> 1)));
        return;
      }
      c.error(new Error("connection reset"));
    },
  });
}

test(`an upload of ${(PAYLOAD / 2 ** 30).toFixed(2)} GiB in parts survives a cut and a Worker restart`, async () => {
  let mf = start();
  await mf.ready;
  try {
    // An upload that will be abandoned, with one part in.
    let r = await call(mf, "POST", "/api/uploads/abandoned.zip", { token: BOB });
    assert.equal(r.status, 201, r.text);
    const abandoned = r.json();
    r = await sendPart(mf, abandoned, 1, Buffer.alloc(PART, 7), BOB);
    assert.equal(r.status, 200, r.text);

    r = await call(mf, "POST", "/api/uploads/big-session.zip");
    assert.equal(r.status, 201, r.text);
    const u = r.json();
    assert.equal(u.partSize, PART);
    // Another token may not touch it.
    r = await sendPart(mf, u, 1, Buffer.alloc(PART), BOB);
    assert.equal(r.status, 403, r.text);

    const bundle = new BundleStream(PAYLOAD);
    const idle = rss();
    const peak = { ...idle };
    const sampler = setInterval(() => {
      const now = rss();
      peak.node = Math.max(peak.node, now.node);
      peak.workerd = Math.max(peak.workerd, now.workerd);
    }, 250);
    const started = process.hrtime.bigint();
    let n = 0;
    let held = null; // the part being sent when the connection was cut
    let cutAt = Math.max(2, Math.floor(PAYLOAD / PART / 2));
    for (;;) {
      const buf = held ?? bundle.take(PART);
      held = null;
      if (buf.length === 0) break;
      n++;
      if (process.env.DEBUG) console.log(`# part ${n}`);
      if (n === cutAt) {
        // The connection drops halfway through this part, and the Worker stops.
        const res = await call(mf, "PUT", `/api/uploads/${u.name}/${u.upload}/${n}`, { body: cutBody(buf) }).catch((err) => ({ status: 0, text: String(err) }));
        assert.notEqual(res.status, 200, `a cut part was accepted: ${res.text}`);
        await mf.dispose();
        mf = start();
        await mf.ready;
        // The new Worker says what it has: every part before the cut.
        r = await call(mf, "GET", `/api/uploads/${u.name}/${u.upload}`);
        assert.equal(r.status, 200, r.text);
        const got = r.json();
        assert.deepEqual(got.parts.map((p) => p.number), Array.from({ length: n - 1 }, (_, i) => i + 1));
        assert.equal(got.received, (n - 1) * PART);
        held = buf;
        n--;
        cutAt = 0;
        continue;
      }
      const t0 = Date.now();
      r = await sendPart(mf, u, n, buf);
      if (process.env.DEBUG) console.log(`# part ${n} took ${Date.now() - t0} ms`);
      assert.equal(r.status, 200, `part ${n}: ${r.text}`);
      assert.equal(r.json().size, buf.length);
    }
    const sha = bundle.sha.digest("hex");
    const size = bundle.offset;
    assert.ok(size > PAYLOAD, `bundle of ${size} bytes`);

    // Pending: invisible until completed.
    r = await call(mf, "GET", "/api/bundles");
    assert.deepEqual(r.json().bundles, []);

    r = await call(mf, "POST", `/api/uploads/${u.name}/${u.upload}`, { body: JSON.stringify({ parts: n, size, sha256: sha }) });
    assert.equal(r.status, 201, r.text);
    const info = r.json();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    const mib = (b) => (b / 2 ** 20).toFixed(0);
    // One line the benchmark script (scripts/bench/sections/upload.sh) reads.
    console.log(
      `# upload-figures bytes=${size} parts=${n} seconds=${seconds.toFixed(1)} mibps=${(size / 2 ** 20 / seconds).toFixed(1)} ` +
        `node_idle_mib=${mib(idle.node)} node_peak_mib=${mib(peak.node)} workerd_idle_mib=${mib(idle.workerd)} workerd_peak_mib=${mib(peak.workerd)}`,
    );
    assert.equal(info.size, size);
    assert.equal(info.sha256, sha);
    assert.equal(info.records, 1);

    r = await call(mf, "GET", "/api/bundles");
    assert.deepEqual(r.json().bundles.map((b) => [b.name, b.size, b.sha256]), [["big-session.zip", size, sha]]);
    r = await call(mf, "GET", "/api/cdx?url=example.com/big");
    assert.match(r.text, /^com,example\)\/big 20240901000000 .*"source": "big-session.zip"/);

    // Downloaded byte-identical, 64 MiB a ranged request, through a hash.
    const h = createHash("sha256");
    const step = 64 << 20;
    for (let at = 0; at < size; at += step) {
      const end = Math.min(size, at + step) - 1;
      r = await call(mf, "GET", "/api/bundles/big-session.zip", { headers: { Range: `bytes=${at}-${end}` } });
      assert.equal(r.status, 206, r.text.slice(0, 200));
      assert.equal(r.bytes.length, end - at + 1);
      h.update(r.bytes);
    }
    assert.equal(h.digest("hex"), sha);

    // The abandoned upload is swept once older than the TTL; the bundle stays.
    const record = await (await mf.getR2Bucket("ARCHIVE")).head(`uploads/abandoned.zip/${abandoned.upload}`);
    const mpuID = record.customMetadata.multipart;
    assert.ok(mpuID);
    await mf.dispose();
    mf = start({ WEBKEEP_UPLOAD_TTL: "1ms" });
    await mf.ready;
    r = await call(mf, "GET", "/api/uploads");
    assert.deepEqual(r.json().uploads.map((x) => x.name), ["abandoned.zip"]);
    r = await call(mf, "DELETE", "/api/uploads");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json(), { removed: 1 });
    const keys = await allKeys(mf);
    assert.equal(keys.filter((k) => k.startsWith("uploads/") || k.startsWith("parts/")).length, 0, keys.join(" "));
    assert.deepEqual(keys.map((k) => k.split("/").slice(0, 2).join("/")).sort(), ["cdx/big-session.zip", "data/big-session.zip", "index/big-session.zip"]);
    r = await sendPart(mf, abandoned, 2, Buffer.alloc(PART, 7), BOB);
    assert.equal(r.status, 404, r.text);
    // Its multipart upload is aborted in R2 too.
    const bucket = await mf.getR2Bucket("ARCHIVE");
    const mpu = bucket.resumeMultipartUpload(`data/abandoned.zip/${abandoned.upload}`, mpuID);
    await assert.rejects(mpu.uploadPart(2, "x"), /does not exist|10024/);
  } finally {
    await mf.dispose();
  }
});
