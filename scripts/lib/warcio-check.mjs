// Reads a WARC/1.x file with warcio (npm), the reader today's tools share, and checks
// every record's block and payload digests. Returns the records' types and URIs.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { WARCParser } from "warcio";

export function base32(buf) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0, value = 0, out = "";
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export const sha1Digest = (b) => "sha1:" + base32(createHash("sha1").update(b).digest());

/** Reads every record of buf (a Buffer) with warcio; throws on a wrong digest. */
export async function readWithWarcio(buf) {
  const parser = new WARCParser(Readable.from([buf]), { parseHttp: false });
  const records = [];
  for await (const record of parser) {
    const block = Buffer.from(await record.readFully(false));
    const id = record.warcHeader("WARC-Record-ID");
    if (block.length !== record.warcContentLength) throw new Error(`${id}: Content-Length ${record.warcContentLength}, block ${block.length}`);
    if (record.warcBlockDigest && record.warcBlockDigest !== sha1Digest(block)) throw new Error(`${id}: block digest mismatch`);
    if (record.warcPayloadDigest && (record.warcType === "response" || record.warcType === "request")) {
      const end = block.indexOf("\r\n\r\n") + 4;
      if (record.warcPayloadDigest !== sha1Digest(block.subarray(end))) throw new Error(`${id}: payload digest mismatch`);
    }
    records.push({ type: record.warcType, uri: record.warcTargetURI, version: record.warcHeaders.protocol, block });
  }
  return records;
}
