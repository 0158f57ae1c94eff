// An independent reader of WARC 0.9 files, written from the draft for the tests: it
// checks that every gzip member holds exactly one record and that every data-length is
// exact, and returns the records. It shares no code with the Go implementation.
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";

const CRLF = Buffer.from("\r\n");

/** Splits a .warc.gz into its gzip members using the sl extra field, verifying it. */
export function members(buf) {
  const out = [];
  let off = 0;
  while (off < buf.length) {
    if (buf[off] !== 0x1f || buf[off + 1] !== 0x8b) throw new Error(`offset ${off}: not a gzip member`);
    const flags = buf[off + 3];
    if (!(flags & 4)) throw new Error(`offset ${off}: gzip member has no extra field (sl)`);
    const xlen = buf.readUInt16LE(off + 10);
    let sl = null;
    for (let p = off + 12; p < off + 12 + xlen;) {
      const id = buf.toString("latin1", p, p + 2), len = buf.readUInt16LE(p + 2);
      if (id === "sl") sl = { compressed: buf.readUInt32LE(p + 4), uncompressed: buf.readUInt32LE(p + 8) };
      p += 4 + len;
    }
    if (!sl) throw new Error(`offset ${off}: no sl subfield`);
    const member = buf.subarray(off, off + sl.compressed);
    const data = gunzipSync(member);
    if (data.length !== sl.uncompressed) throw new Error(`offset ${off}: sl says ${sl.uncompressed} bytes, member holds ${data.length}`);
    out.push({ offset: off, length: sl.compressed, data });
    off += sl.compressed;
  }
  return out;
}

/** Parses one uncompressed WARC 0.9 record, checking its data-length exactly. */
export function parseRecord(data, where = "") {
  const eol = data.indexOf(CRLF);
  const line = data.toString("latin1", 0, eol);
  const parts = line.split(/ +/);
  if (parts.length !== 7 || parts[0] !== "warc/0.9") throw new Error(`${where}: bad header line ${JSON.stringify(line)}`);
  const [, len, type, uri, date, contentType, id] = parts;
  const dataLength = Number(len);
  // data-length counts from the "w" of warc/0.9 through the end of the block, and the
  // record ends with CRLF CRLF.
  if (dataLength + 4 !== data.length) throw new Error(`${where}: data-length ${dataLength} but record is ${data.length - 4} bytes before CRLF CRLF`);
  if (!data.subarray(dataLength).equals(Buffer.from("\r\n\r\n"))) throw new Error(`${where}: record does not end with CRLF CRLF`);
  const fields = {};
  let p = eol + 2;
  for (;;) {
    const e = data.indexOf(CRLF, p);
    if (e === p) { p += 2; break; }
    const l = data.toString("utf8", p, e);
    const c = l.indexOf(":");
    fields[l.slice(0, c)] = l.slice(c + 1).trim();
    p = e + 2;
  }
  if (!/^\d{14}$/.test(date)) throw new Error(`${where}: creation-date ${date} is not 14 digits`);
  return { type, uri, date, contentType, id, fields, block: data.subarray(p, dataLength) };
}

/** Splits an HTTP message block into its head and body. */
export function httpBody(block) {
  const i = block.indexOf("\r\n\r\n");
  return { head: block.toString("latin1", 0, i), body: block.subarray(i + 4) };
}

/** Reads a whole .warc.gz: records with their offsets. */
export function readWarc09(buf) {
  return members(buf).map((m) => ({ offset: m.offset, length: m.length, ...parseRecord(m.data, `offset ${m.offset}`) }));
}

/**
 * Joins segmented records (section 7.2): the first segment's block followed by its
 * continuation records' blocks in Segment-Number order. The joined record's length
 * covers every segment's gzip member; End-Length on the last segment is checked.
 */
export function reassemble(records) {
  const out = [];
  const conts = new Map();
  for (const r of records) {
    if (r.type !== "continuation") continue;
    const origin = r.fields["Segment-Origin-ID"];
    if (!conts.has(origin)) conts.set(origin, []);
    conts.get(origin).push(r);
  }
  for (const r of records) {
    if (r.type === "continuation") continue;
    if (r.fields["Segment-Number"] !== "1") { out.push(r); continue; }
    const parts = (conts.get(r.id) || []).sort((a, b) => Number(a.fields["Segment-Number"]) - Number(b.fields["Segment-Number"]));
    parts.forEach((p, i) => {
      if (Number(p.fields["Segment-Number"]) !== i + 2) throw new Error(`${r.id}: segment ${i + 2} missing`);
    });
    const block = Buffer.concat([r.block, ...parts.map((p) => p.block)]);
    const last = parts[parts.length - 1];
    if (!last || Number(last.fields["End-Length"]) !== block.length) {
      throw new Error(`${r.id}: End-Length ${last && last.fields["End-Length"]} but the segments hold ${block.length} bytes`);
    }
    out.push({ ...r, block, length: r.length + parts.reduce((a, p) => a + p.length, 0), segments: parts.length + 1 });
  }
  return out;
}

/**
 * Whether one of responses (records of the URL of a demo site's log entry) is the
 * answer the site sent: "" if so, else what is missing. The answer's status and body
 * must match, except for a redirect, whose body browsers never hand to anyone: its
 * record keeps the status, the Location and the length the server declared.
 */
export function answerMissing(entry, responses) {
  if (responses.length === 0) return `no response record for ${entry.method} ${entry.url}`;
  if (entry.status >= 300 && entry.status < 400) {
    const r = responses.find((x) => httpBody(x.block).head.includes(` ${entry.status} `));
    if (!r) return `${entry.url}: no ${entry.status} response`;
    const { head } = httpBody(r.block);
    if (!/\r\nLocation: /i.test(head)) return `${entry.url}: the ${entry.status} response has no Location`;
    if (!head.includes(`\r\nX-Archive-Orig-Content-Length: ${entry.response_size}\r\n`)) return `${entry.url}: the ${entry.status} response does not keep the declared length ${entry.response_size}`;
    return "";
  }
  const sha256 = (b) => createHash("sha256").update(b).digest("hex");
  const ok = responses.some((r) => {
    const { head, body } = httpBody(r.block);
    return head.includes(` ${entry.status} `) && body.length === entry.response_size && sha256(body) === entry.response_sha256;
  });
  return ok ? "" : `${entry.method} ${entry.url}: no response record with the ${entry.response_size} bytes the server sent`;
}
