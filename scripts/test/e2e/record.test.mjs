// End to end, in real Chromium through the real extension: record the demo site with
// the popup's controls, download the bundle through the extension's download link, and
// compare the archive with what the demo site says it received and sent.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { browseDemo, launch, startDemoSite, startRecording } from "../../lib/browser.mjs";
import { answerMissing, httpBody, readWarc09, reassemble } from "../../lib/warc09.mjs";
import { readZip } from "../../lib/zip.mjs";

let site, browser, dir, files, records, raw, serverLog;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-e2e-"));
  const upload = path.join(dir, "chosen.bin");
  writeFileSync(upload, Buffer.from([0x66, 0x69, 0x6c, 0x65, 0x00, 0xff, 0xfe, 0x0a]));
  site = await startDemoSite();
  browser = await launch({ downloads: dir });
  const { page, popup } = await startRecording(browser, site.url);
  await browseDemo(page, site.url, upload);
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  const link = await popup.waitForSelector("#download-bundle");
  const [download] = await Promise.all([popup.waitForEvent("download"), link.click()]);
  const bundle = path.join(dir, download.suggestedFilename());
  await download.saveAs(bundle);
  files = readZip(bundle);
  const warcName = [...files.keys()].find((n) => n.endsWith(".warc.gz"));
  raw = readWarc09(files.get(warcName));
  records = reassemble(raw);
  serverLog = (await site.log()).filter((e) => !e.url.startsWith("/favicon"));
}, { timeout: 240000 });

after(async () => {
  await browser?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the bundle holds the WARC, the CDXJ, pages and the report", () => {
  const names = [...files.keys()];
  assert.ok(names.some((n) => n.endsWith(".warc.gz")), names.join());
  assert.ok(names.some((n) => n.endsWith(".cdxj")), names.join());
  assert.ok(names.includes("pages.jsonl"));
  const report = JSON.parse(files.get("report.json"));
  assert.equal(report.session.records, raw.length);
  assert.ok(report.session.pages >= 8, `pages: ${report.session.pages}`);
});

test("every record is valid WARC 0.9 in its own gzip member (checked while reading)", () => {
  assert.ok(records.length > 40, `only ${records.length} records`);
  for (const r of records) {
    assert.match(r.id, /^[a-z][a-z0-9+.-]*:/i, "record-id is a URI");
    if (r.type === "response" || r.type === "request") assert.match(r.fields.Checksum, /^sha1:[A-Z2-7]{32}$/);
  }
});

// The request record of each request the server received: same method and URL, in order.
function requestRecordsFor(entry) {
  const url = new URL(entry.url, site.url).href;
  return records.filter((r) => r.type === "request" && r.uri === url && r.block.toString("latin1").startsWith(entry.method + " "));
}

test("every request body is byte-identical to what the server received", () => {
  const withBody = serverLog.filter((e) => e.body_base64 !== "");
  assert.ok(withBody.length >= 7, `server saw only ${withBody.length} requests with bodies`);
  for (const entry of serverLog) {
    const candidates = requestRecordsFor(entry);
    assert.ok(candidates.length > 0, `no request record for ${entry.method} ${entry.url}`);
    const want = Buffer.from(entry.body_base64, "base64");
    const match = candidates.some((r) => httpBody(r.block).body.equals(want));
    assert.ok(match, `${entry.method} ${entry.url}: no request record with the ${want.length} bytes the server received`);
  }
});

test("a file chosen by the user is archived byte for byte, copied in the page, and says so", () => {
  // The browser never shows DevTools the bytes of a file chosen with <input type=file>
  // (nor of a File or Blob a page sends with fetch() or XHR): the recorder's script in
  // the page copies them, and the record's note says where they came from.
  const entry = serverLog.find((e) => e.url === "/submit/upload" && Buffer.from(e.body_base64, "base64").includes(Buffer.from("chosen.bin")));
  assert.ok(entry, "the server saw the form with the chosen file");
  const want = Buffer.from(entry.body_base64, "base64");
  const record = requestRecordsFor(entry).find((r) => httpBody(r.block).body.equals(want));
  assert.ok(record, "the chosen file's bytes are archived");
  assert.equal(record.fields.Truncated, undefined, "the upload is whole, not marked");
  const note = records.find((r) => r.type === "metadata" && r.fields["Related-Record-ID"] === record.id);
  assert.match(note?.block.toString() ?? "", /files copied in the page as it sent them/);
});

test("the binary POST survives byte for byte", () => {
  const entry = serverLog.find((e) => e.url === "/api/binary");
  assert.ok(entry, "the server saw the binary POST");
  const body = Buffer.from(entry.body_base64, "base64");
  assert.ok(body.includes(0xff) && body.includes(0x00));
  assert.ok(requestRecordsFor(entry).some((r) => httpBody(r.block).body.equals(body)));
});

test("every response body is byte-identical to what the server sent, the large one included", () => {
  for (const entry of serverLog) {
    const url = new URL(entry.url, site.url).href;
    const missing = answerMissing(entry, records.filter((r) => r.type === "response" && r.uri === url));
    assert.equal(missing, "");
  }
  const big = serverLog.find((e) => e.url === "/big");
  assert.ok(big && big.response_size >= 20 << 20, "the large response was at least 20 MB");
  const bigRecord = records.find((r) => r.type === "response" && r.uri.endsWith("/big"));
  assert.ok(bigRecord.segments > 1, "the large response was written in segments, each its own gzip member");
});

test("the redirect chain is recorded hop by hop: 301, 302, 200", () => {
  const status = (p) => {
    const r = records.find((x) => x.type === "response" && x.uri === new URL(p, site.url).href);
    return r && Number(httpBody(r.block).head.split(" ")[1]);
  };
  assert.equal(status("/redirect/start"), 301);
  assert.equal(status("/redirect/middle"), 302);
  assert.equal(status("/redirect/end"), 200);
  assert.equal(status("/missing"), 404);
});

test("every non-GET request has a CDXJ line whose key carries __wb_method= and the body", () => {
  const cdxName = [...files.keys()].find((n) => n.endsWith(".cdxj"));
  const lines = files.get(cdxName).toString().trim().split("\n");
  const parsed = lines.map((l) => {
    const [key, ts] = l.split(" ", 2);
    return { key, ts, fields: JSON.parse(l.slice(key.length + ts.length + 2)) };
  });
  const sorted = [...lines].sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b))));
  assert.deepEqual(lines, sorted, "CDXJ is sorted");
  const nonGet = serverLog.filter((e) => e.method !== "GET");
  assert.ok(nonGet.length >= 8);
  for (const entry of nonGet) {
    const url = new URL(entry.url, site.url).href;
    const line = parsed.find((p) => p.fields.url === url && p.fields.method === entry.method);
    assert.ok(line, `no CDXJ line for ${entry.method} ${entry.url}`);
    assert.match(line.key, new RegExp(`__wb_method=${entry.method.toLowerCase()}`));
    if (entry.method === "POST" || entry.method === "PUT") {
      assert.ok(line.fields.requestBody.length > 0, `${entry.method} ${entry.url}: empty requestBody`);
    }
  }
  const bin = parsed.find((p) => p.fields.url.endsWith("/api/binary"));
  const body = Buffer.from(serverLog.find((e) => e.url === "/api/binary").body_base64, "base64");
  assert.equal(bin.fields.requestBody, "__wb_post_data=" + body.toString("base64"));
  // Each line points at its record: offset and length select one gzip member.
  for (const p of parsed) {
    const rec = raw.find((r) => r.offset === Number(p.fields.offset));
    assert.ok(rec, `${p.key}: offset ${p.fields.offset} is not a record`);
    assert.equal(rec.length, Number(p.fields.length));
  }
});

test("the CDXJ is, line for line, what the indexer makes of the WARC: notes and segments included", () => {
  const warcName = [...files.keys()].find((n) => n.endsWith(".warc.gz"));
  const cdxName = [...files.keys()].find((n) => n.endsWith(".cdxj"));
  const file = path.join(dir, warcName);
  writeFileSync(file, files.get(warcName));
  const indexed = execFileSync(path.resolve(import.meta.dirname, "../../../bin/webkeep"), ["cdx", "index", file]).toString();
  const lines = files.get(cdxName).toString();
  assert.equal(lines, indexed);
  const types = new Set(lines.trim().split("\n").map((l) => {
    const offset = Number(JSON.parse(l.slice(l.indexOf("{"))).offset);
    return raw.find((r) => r.offset === offset).type;
  }));
  for (const t of ["response", "metadata", "continuation"]) assert.ok(types.has(t), `no line for a ${t} record: ${[...types]}`);
});
