// Inputs that once broke the extension's core, and large real-looking ones, written to
// files for the end-to-end tests and benchmarks: a URL-database zip bomb, a
// WARC/1.0 with one large record, a URL database of generated records.
import { createHash, randomUUID } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { deflateRawSync } from "node:zlib";

const crcTable = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** CRC-32 (IEEE) of buf, continuing from crc. */
export function crc32(buf, crc = 0) {
  crc = ~crc;
  for (let i = 0; i < buf.length; i++) crc = crcTable[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

/**
 * Writes a zip of entries { name, data } (deflated here) or { name, raw, crc, size } (raw
 * deflate data of size bytes whose CRC-32 is crc), without zip64: each entry and the
 * file stay under 4 GiB.
 */
export function writeZip(file, entries) {
  const fd = openSync(file, "w");
  const central = [];
  let off = 0;
  const put = (b) => { writeSync(fd, b); off += b.length; };
  for (const e of entries) {
    const raw = e.raw ?? deflateRawSync(e.data);
    const crc = e.raw ? e.crc : crc32(e.data);
    const size = e.raw ? e.size : e.data.length;
    const name = Buffer.from(e.name);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0); head.writeUInt16LE(20, 4); head.writeUInt16LE(8, 8);
    head.writeUInt32LE(crc, 14); head.writeUInt32LE(raw.length, 18); head.writeUInt32LE(size, 22);
    head.writeUInt16LE(name.length, 26);
    central.push({ name, crc, csize: raw.length, size, at: off });
    put(head); put(name); put(raw);
  }
  const start = off;
  for (const c of central) {
    const h = Buffer.alloc(46);
    h.writeUInt32LE(0x02014b50, 0); h.writeUInt16LE(20, 4); h.writeUInt16LE(20, 6); h.writeUInt16LE(8, 10);
    h.writeUInt32LE(c.crc, 16); h.writeUInt32LE(c.csize, 20); h.writeUInt32LE(c.size, 24);
    h.writeUInt16LE(c.name.length, 28); h.writeUInt32LE(c.at, 42);
    put(h); put(c.name);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(central.length, 8); end.writeUInt16LE(central.length, 10);
  end.writeUInt32LE(off - start, 12); end.writeUInt32LE(start, 16);
  put(end);
  closeSync(fd);
  return off;
}

/** Writes a zip of n domain files each inflating to size bytes of spaces (a zip bomb). */
export function writeBombZip(file, n = 20, size = 200 << 20) {
  const spaces = Buffer.alloc(size, 0x20);
  const raw = deflateRawSync(spaces, { level: 9 });
  const crc = crc32(spaces);
  const entries = [];
  for (let i = 0; i < n; i++) entries.push({ name: `db/bomb${String(i).padStart(2, "0")}.example.yaml`, raw, crc, size });
  return writeZip(file, entries);
}

// The 1 MiB of letters writeWARC10's bodies repeat.
const patternChunk = Buffer.alloc(1 << 20);
for (let i = 0; i < patternChunk.length; i++) patternChunk[i] = 0x61 + (i % 26);

/** The body writeWARC10 writes of size bytes, whole: to check what was archived of it. */
export function patternedBody(size) {
  const out = Buffer.alloc(size);
  for (let at = 0; at < size; at += patternChunk.length) patternChunk.copy(out, at, 0, Math.min(patternChunk.length, size - at));
  return out;
}

/**
 * Writes a plain WARC/1.0 of responses, one per body size in sizes, each body a
 * repeated pattern, for URLs `${base}${i}`; resolves to the file's size.
 */
export function writeWARC10(file, sizes, base = "http://big.example/") {
  const fd = openSync(file, "w");
  let total = 0;
  const put = (b) => { writeSync(fd, b); total += b.length; };
  sizes.forEach((size, i) => {
    const http = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`);
    const head = Buffer.from([
      "WARC/1.0", "WARC-Type: response", `WARC-Record-ID: <urn:uuid:${randomUUID()}>`,
      "WARC-Date: 2026-11-23T12:00:00Z", `WARC-Target-URI: ${base}${i}`,
      "Content-Type: application/http; msgtype=response", `Content-Length: ${http.length + size}`, "", "",
    ].join("\r\n"));
    put(head); put(http);
    for (let left = size; left > 0; left -= patternChunk.length) put(left >= patternChunk.length ? patternChunk : patternChunk.subarray(0, left));
    put(Buffer.from("\r\n\r\n"));
  });
  closeSync(fd);
  return total;
}

/** A domain file of n records shaped like the real database's (wwt-url-database). */
export function domainFile(n, seed) {
  const parts = ["---\nhttps: true\n"];
  for (let i = 0; i < n; i++) {
    let r = `---\n_path: /data/${seed}/${String(i).padStart(7, "0")}/tile.png\n`;
    if (i % 3 === 0) r += "categories:\n- coreapp\n";
    if (i % 2 === 0) r += `content-length: ${1000 + i}\ncontent-sha256: ${createHash("sha256").update(`${seed} ${i}`).digest("hex")}\n`;
    parts.push(r + "content-type: image/png\n");
  }
  return Buffer.from(parts.join(""));
}

/**
 * Writes a zip URL database of as many domain files of perFile records each as fit in
 * bytes of YAML; returns { records, yaml } (the YAML's size).
 */
export function writeDatabase(file, bytes, perFile = 20000) {
  const entries = [];
  let yaml = 0, records = 0;
  for (let i = 0; ; i++) {
    const data = domainFile(perFile, i);
    if (yaml + data.length > bytes) break;
    entries.push({ name: `db/d${String(i).padStart(3, "0")}.example.org.yaml`, data });
    yaml += data.length;
    records += perFile;
  }
  writeZip(file, entries);
  return { records, yaml };
}

