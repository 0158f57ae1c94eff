// WARC records written by hand for the benchmarks and tests that need many of them fast.
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

let serial = 0;

/**
 * A WARC/1.1 response record of an HTTP 200 answer (its payload of content type type)
 * for url at date (an ISO string), gzipped as a member of its own unless gzip is false.
 */
export function responseRecord(url, date, type, payload, { gzip = true } = {}) {
  const http = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nContent-Length: ${payload.length}\r\n\r\n`), payload]);
  const head = Buffer.from(`WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: ${url}\r\nWARC-Date: ${date}\r\n` +
    `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}>\r\n` +
    `WARC-Payload-Digest: sha1:${base32(createHash("sha1").update(payload).digest())}\r\n` +
    `Content-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n`);
  const record = Buffer.concat([head, http, Buffer.from("\r\n\r\n")]);
  return gzip ? gzipSync(record) : record;
}

/** RFC 4648 base 32, as WARC payload digests are written. */
export function base32(buf) {
  const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0, value = 0, out = "";
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += A[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += A[(value << (5 - bits)) & 31];
  return out;
}
