// The warcbench workload (see main.go: same generator, same records) written as
// WARC/1.1 with per-record gzip and SHA-1 block and payload digests by warcio (npm).
// Usage: node scripts/bench/warcbench/warcio.mjs [records]
import { WARCRecord, WARCSerializer } from "warcio";

const records = Number(process.argv[2] || 20000);
const poolSize = 4 << 20;
let state = 2463534242;
function next() {
  let v = state;
  v = (v ^ (v << 13)) >>> 0;
  v = (v ^ (v >>> 17)) >>> 0;
  v = (v ^ (v << 5)) >>> 0;
  state = v;
  return v;
}
const words = ["the", "archive", "of", "web", "pages", "record", "request", "response", "and", "a",
  "content", "block", "header", "digest", "crawl", "html", "<div>", "</div>", "<p>", "class=\"x\"",
  "lorem", "ipsum", "dolor", "sit", "amet", "data", "file", "index", "time", "date", "link", "href"];
const enc = new TextEncoder();
const parts = [];
let len = 0;
while (len < poolSize) {
  const r = next();
  const s = words[r % words.length] + ((r >>> 8) % 13 === 0 ? "\n" : " ");
  parts.push(s);
  len += s.length;
}
const text = enc.encode(parts.join("")).slice(0, poolSize);
const random = new Uint8Array(poolSize);
for (let i = 0; i < poolSize; i += 4) {
  const v = next();
  random[i] = v & 255; random[i + 1] = (v >>> 8) & 255; random[i + 2] = (v >>> 16) & 255; random[i + 3] = v >>> 24;
}
state = 88675123;
const digest = { algo: "sha-1", prefix: "sha1:", base32: true };
let input = 0, output = 0;
const start = process.hrtime.bigint();
for (let i = 0; i < records; i++) {
  const size = Math.floor(1024 * Math.pow(1000, next() / 4294967296));
  const off = next() % (poolSize - size);
  const payload = (i % 2 === 0 ? text : random).subarray(off, off + size);
  const httpHeaders = { "Content-Type": "text/html", "Content-Length": String(size) };
  const record = WARCRecord.create({
    url: "http://example.com/page/" + i, type: "response", warcVersion: "WARC/1.1",
    httpHeaders, statusline: "HTTP/1.1 200 OK",
  }, (async function* () { yield payload; })());
  input += payload.length + enc.encode(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${size}\r\n\r\n`).length;
  const out = await WARCSerializer.serialize(record, { gzip: true, digest });
  output += out.length;
}
const secs = Number(process.hrtime.bigint() - start) / 1e9;
const peak = process.memoryUsage().rss / 1e6;
console.log(`warcio ${records} ${(input / 1e6).toFixed(1)} ${secs.toFixed(2)} ${(input / 1e6 / secs).toFixed(1)} ${peak.toFixed(1)} ${(output / 1e6).toFixed(1)}`);
