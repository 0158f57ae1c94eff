// What `make demo` does the same in every browser: the ./out folder, the file chosen in
// the demo's upload form, the demo URL database, and the summary of the bundle.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { root } from "./browser.mjs";
import { readZip } from "./zip.mjs";

/** The folder `make demo` writes to. */
export const out = path.join(root, "out");
const upload = path.join(out, ".upload-sample.bin");
const database = path.join(out, ".demo-url-database.zip");

/** Empties ./out and writes the file the upload form sends; returns its path. */
export function startOut() {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(upload, Buffer.from("a file chosen in the upload form\n\x00\x01\xfe\xff", "latin1"));
  return upload;
}

/** Saves the demo site's URL database as a zip in ./out; returns its path. */
export async function demoDatabase(site) {
  writeFileSync(database, Buffer.from(await (await fetch(new URL("/__urldb.zip", site.url))).arrayBuffer()));
  return database;
}

/** Removes from ./out what only the demo's run needed. */
export function endOut() {
  rmSync(upload, { force: true });
  rmSync(database, { force: true });
}

/**
 * Unpacks the bundle's WARC and CDXJ into ./out and prints what the session holds, the
 * URL database's verdicts, the sites' data.txt and robots.txt, and the files written.
 * Returns the bundle's files.
 */
export function printDemo(bundlePath, waczPath, started) {
  const files = readZip(bundlePath);
  for (const [name, bytes] of files) {
    if (name.endsWith(".warc.gz") || name.endsWith(".cdxj")) writeFileSync(path.join(out, name), bytes);
  }
  const report = JSON.parse(files.get("report.json").toString());
  const s = report.session;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\nwebkeep demo: ${s.pages} pages, ${s.records} records, ${s.bytes} bytes of WARC, ` +
    `${s.nonGet} non-GET requests, ${s.exchanges} requests in all, ${seconds}s`);
  const byURL = new Map(report.verdicts.map((v) => [v.url, v])); // the last verdict of each URL
  const failed = [...byURL.values()].filter((v) => !v.ok);
  console.log(`URL database checks: ${byURL.size - failed.length} URLs passed, ${failed.length} failed` +
    failed.map((v) => `\n  FAIL ${v.url}: ${v.problem || v.code}`).join(""));
  for (const site of report.sites) {
    console.log(`data.txt of ${site.origin}: ${site.datatxt.found ? `${site.datatxt.format}, ${site.datatxt.records} records` : "none"}; ` +
      `robots.txt: ${site.robots.found ? "found" : "none"}; ${site.agent} ${site.allowed ? "may" : "may not"} crawl ${site.page}`);
  }
  for (const n of s.notes || []) console.log(`  note: ${n}`);
  console.log(verifyLine(waczPath));
  console.log(searchLine(files));
  const kept = [...files.keys()].filter((n) => /\.(warc\.gz|cdxj)$/.test(n)).concat(path.basename(bundlePath), path.basename(waczPath));
  console.log(`out/: ${kept.join(", ")}`);
  return files;
}

/**
 * Checks the WACZ with `webkeep wacz verify` (every file, WARC record, index line and
 * the signature) and says it in one line: "verify: signed, N records verified".
 * Throws when the WACZ does not verify.
 */
export function verifyLine(waczPath) {
  let text;
  try {
    text = execFileSync(path.join(root, "bin", "webkeep"), ["wacz", "verify", "-q", waczPath], { encoding: "utf8" });
  } catch (err) {
    throw new Error(`the WACZ does not verify:\n${err.stdout || ""}${err.stderr || err.message}`);
  }
  const m = / verified: (\d+) files, (\d+) WARC records, (\d+) index lines; (.*)$/m.exec(text);
  if (!m) throw new Error(`webkeep wacz verify said: ${text}`);
  const signed = m[4].startsWith("signed by ");
  return `verify: ${signed ? "signed" : "not signed"}, ${m[2]} records verified ` +
    `(${m[1]} files, ${m[3]} index lines${signed ? `; ${m[4].replace(/^signed by /, "")}` : ""})`;
}

/**
 * Searches the session's WARC for a word on exactly one demo page (the end of the
 * redirect chain's title) with `webkeep search`, and says it in one line:
 * `search: "Redirected" found 1 of 1 pages (N ms)`. Throws when it finds another count.
 */
export function searchLine(files) {
  const warc = path.join(out, [...files.keys()].find((n) => n.endsWith(".warc.gz")));
  const word = "Redirected";
  const started = process.hrtime.bigint();
  const r = spawnSync(path.join(root, "bin", "webkeep"), ["search", warc, word], { encoding: "utf8" });
  const ms = Number((process.hrtime.bigint() - started) / 1000000n);
  const hits = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const pages = hits.filter((h) => new URL(h.url).pathname === "/redirect/end");
  if (r.status !== 0 || hits.length !== 1 || pages.length !== 1) throw new Error(`webkeep search ${word}: exit ${r.status}: ${r.stdout}${r.stderr}`);
  return `search: "${word}" found ${pages.length} of 1 pages (${ms} ms)`;
}
