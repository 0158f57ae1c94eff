// `webkeep cdx encode --dialect warcio.js` against the key ReplayWeb.page computes at
// replay, with the real warcio.js from npm (2.4.11, whose postToGetUrl wabac.js calls
// from convertPostToGet): the request is built as the browser hands it to the replay
// service worker (a fetch Request: method normalized, body read with request.text()),
// and the URL ReplayWeb.page rebuilds from our CDXJ line (appendRequestQuery of the
// url, method and requestBody fields, as its CDXJ loader does) must be the URL it looks
// up, exactly; and it must never make decodeURIComponent throw.
// Inputs: every request vector of the project (shared/cdx/testdata), bodies written
// to probe each branch, and a seeded random run over generated bodies.
// Run from the project root: node --test scripts/test/interop/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendRequestQuery, postToGetUrl } from "warcio/utils";

const dir = mkdtempSync(join(tmpdir(), "replaykey-"));
const webkeep = join(dir, "webkeep");
execFileSync("go", ["build", "-o", webkeep, "./cmd/webkeep"], { stdio: "inherit" });

/** What ReplayWeb.page looks a request up under, or null when fetch() refuses it. */
async function replayLookup(v) {
  let req;
  try {
    req = new Request(v.url, { method: v.method, headers: v.headers, body: v.body.length ? v.body : undefined });
  } catch {
    return null;
  }
  // wabac.js's ArchiveRequest.convertPostToGet.
  if (req.method !== "POST" && req.method !== "PUT") return { url: v.url, converted: false };
  const t = { method: req.method, postData: await req.text(), headers: req.headers, url: v.url };
  return postToGetUrl(t) ? { url: t.url, method: req.method, converted: true } : { url: v.url, converted: false };
}

/** Our keys for the vectors, in one run of the CLI; mime is the answers' content type. */
function ourKeys(vectors, mime = "text/plain") {
  const input = vectors.map((v) => JSON.stringify({ method: v.method, url: v.url, headers: v.headers, mime,
    body_base64: Buffer.from(v.body).toString("base64") })).join("\n") + "\n";
  const out = execFileSync(webkeep, ["cdx", "encode", "--dialect", "warcio.js"], { input, maxBuffer: 1 << 30 });
  return out.toString().trim().split("\n").map((l) => JSON.parse(l));
}

// The key ReplayWeb.page 2.5.3's CDXJ loader stores a non-GET line under (wabac.js's
// loader, as its built sw.js has it): for some response types it runs the key
// through the URL parser and cuts each query value at 1024 characters, else it cuts
// the key at 512.
const loaderMimes = ["text/javascript", "application/javascript", "application/x-javascript", "application/json", "application/octet-stream", "text/html"];
function loaderURL(url, requestBody, method, mime) {
  let key = appendRequestQuery(url, requestBody || "", method);
  if (mime && loaderMimes.includes(mime)) {
    try {
      const u = new URL(key);
      for (const [k, v] of u.searchParams) if (v.length > 1024) u.searchParams.set(k, v.slice(0, 1024));
      key = u.href;
    } catch { key = key.slice(0, 8192); }
  } else if (key.length > 512) key = key.slice(0, 512);
  return key;
}

function decodes(url) {
  try { decodeURIComponent(url); return true; } catch { return false; }
}

/** Checks our keys against ReplayWeb.page's; returns the number compared. */
async function compare(vectors) {
  const ours = ourKeys(vectors);
  assert.equal(ours.length, vectors.length);
  let compared = 0, mismatches = [];
  for (let i = 0; i < vectors.length; i++) {
    const want = await replayLookup(vectors[i]);
    if (!want || !want.converted) continue;
    compared++;
    // What wabac.js's CDXJ loader rebuilds from our line.
    const stored = appendRequestQuery(vectors[i].url, ours[i].requestBody, want.method);
    const problem = !decodes(stored) ? "the stored URL makes decodeURIComponent throw"
      : decodes(want.url) ? (stored !== want.url || ours[i].url !== want.url ? "key differs" : null)
      // ReplayWeb.page's own key throws: ours must differ from it only by escaping
      // the "%" that make it throw.
      : stored.replace(/%25/g, "%") !== want.url.replace(/%25/g, "%") ? "key differs beyond escaped %" : null;
    if (problem) mismatches.push({ problem, name: vectors[i].name, ours: stored, want: want.url });
  }
  assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} of ${compared} differ`);
  // Where ReplayWeb.page's loader stores each line: replayUrl, for an answer of a
  // type it rewrites keys of and one it does not.
  for (const mime of ["application/json", "text/plain"]) {
    const stored = ourKeys(vectors, mime);
    const wrong = [];
    for (let i = 0; i < vectors.length; i++) {
      const m = (await replayLookup(vectors[i]))?.method;
      if (!m || !stored[i].replayUrl) continue;
      const want = loaderURL(vectors[i].url, stored[i].requestBody, m, mime);
      // Keys holding "#" are left to the URL parser alone (see ReplayWebPageURL).
      if (stored[i].replayUrl !== want && !stored[i].replayUrl.includes("#")) wrong.push({ name: vectors[i].name, mime, ours: stored[i].replayUrl, want });
    }
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} stored keys differ for ${mime}`);
  }
  return compared;
}

test("every request vector of the project gets ReplayWeb.page's exact key", async () => {
  const vectors = readFileSync("shared/cdx/testdata/pywb-requests.jsonl", "utf8").trim().split("\n").map((l) => {
    const v = JSON.parse(l);
    return { name: v.name, method: v.method, url: v.url, headers: v.headers, body: Buffer.from(v.body_base64, "base64") };
  });
  const n = await compare(vectors);
  assert.ok(n > vectors.length / 2, `only ${n} of ${vectors.length} vectors were POST or PUT requests fetch() accepts`);
});

const form = "application/x-www-form-urlencoded";
const probes = [
  ["json numbers as JavaScript writes them", "application/json", '{"big":1e21,"small":1e-7,"tiny":0.000001,"f":44.0,"neg":-0,"huge":1e400,"long":12345678901234567890}'],
  ["json property order: indexes first, duplicates in place", "application/json", '{"b":1,"a":2,"10":3,"2":4,"a":5,"01":6}'],
  ["json nesting, arrays and repeated keys", "application/json", '{"a":{"a":[1,{"a":2}],"b":null},"c":[],"d":"","e":true,"f":false}'],
  ["json top-level scalar", "application/json", '"just a string"'],
  ["json with escapes and a lone surrogate", "application/json", '{"k\\u00e9":"v\\ud800x","s":"tab\\there","q":"\\"quoted\\""}'],
  ["json that does not parse", "application/json", "{not json"],
  ["json with a charset", "application/json; charset=utf-8", '{"x":"é"}'],
  ["text/plain that is JSON", "text/plain;charset=UTF-8", '{"x":1}'],
  ["text/plain that is not JSON", "text/plain", "hello world"],
  ["urlencoded form, escaped", form, "a=1&b=x+y%26z&c=%C3%A9t%C3%A9&d=%E2%82%AC"],
  ["urlencoded form with a literal percent", form, "discount=100%25&x=%zz"],
  ["urlencoded form with invalid UTF-8 escapes", form, "a=%C3%28&b=%FF"],
  ["urlencoded form, raw non-ASCII", form, "name=Zoë&city=Zürich"],
  ["multipart text fields", "multipart/form-data; boundary=----WebKitFormBoundaryAbC123xyz",
    '------WebKitFormBoundaryAbC123xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nHello world\r\n' +
    '------WebKitFormBoundaryAbC123xyz\r\nContent-Disposition: form-data; name="body"\r\n\r\nline one\r\nline two\r\n' +
    '------WebKitFormBoundaryAbC123xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nsecond\r\n' +
    '------WebKitFormBoundaryAbC123xyz--\r\n'],
  ["multipart with a file part", "multipart/form-data; boundary=----geckoformboundary1f2e3d",
    '------geckoformboundary1f2e3d\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\x01binary\xff\r\n' +
    '------geckoformboundary1f2e3d\r\nContent-Disposition: form-data; name="note"\r\n\r\nkept\r\n------geckoformboundary1f2e3d--\r\n'],
  ["binary body", "application/octet-stream", Buffer.from([0, 1, 2, 250, 251, 252, 10, 13])],
  ["binary body of Latin-1 range characters", "application/octet-stream", "caf\u00e9"],
  ["no content type", null, "a=1"],
  ["a body with a BOM", "application/json", "\ufeff{\"bom\":1}"],
];

test("bodies that probe each branch of postToGetUrl get ReplayWeb.page's exact key", async () => {
  const vectors = [];
  for (const [name, type, body] of probes) {
    for (const method of ["POST", "put", "PATCH", "DELETE"]) {
      vectors.push({ name: `${name} (${method})`, method, url: "https://example.com/api/x?q=1",
        headers: type ? { "Content-Type": type } : {}, body: Buffer.from(body, typeof body === "string" ? "latin1" : undefined) });
    }
  }
  // Strings above are written in Latin-1 for bytes; the UTF-8 ones are written again as UTF-8.
  for (const [name, type, body] of probes) {
    if (typeof body === "string") vectors.push({ name: `${name} (utf-8)`, method: "POST", url: "http://example.com/p", headers: type ? { "Content-Type": type } : {}, body: Buffer.from(body, "utf8") });
  }
  const n = await compare(vectors);
  assert.ok(n >= probes.length * 2, `only ${n} compared`);
});

// A small seeded generator (mulberry32), so a failure can be run again.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("random bodies of every kind get ReplayWeb.page's exact key", async () => {
  const seed = Number(process.env.REPLAYKEY_SEED || 20261123);
  const rand = rng(seed);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const chars = ["a", "Z", "0", " ", "%", "&", "=", "+", "#", "é", "€", "😀", "\n", "\r\n", '"', "\\", "%41", "%25", "%C3%A9", "%E2", "%zz", "\u2028", "\t", "-", "."];
  const str = (n) => Array.from({ length: Math.floor(rand() * n) }, () => pick(chars)).join("");
  const num = () => pick([0, -0, 1, -1, 44.5, 1e21, 1e-7, 123456789, 0.1, 1.7976931348623157e308, 5e-324, 2 ** 53 + 1]);
  const value = (d) => {
    const r = rand();
    if (d > 3 || r < 0.3) return pick([str(8), num(), true, false, null, ""]);
    if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => value(d + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [pick(["a", "b", "0", "7", "10", str(4)]), value(d + 1)]));
  };
  const jsonText = () => {
    let s = JSON.stringify(value(0));
    if (rand() < 0.2) s = s.replace("{", '{"dup":1,"dup":2,'); // JSON.stringify never repeats a key
    if (rand() < 0.1) s = s.slice(0, Math.floor(rand() * s.length));
    return s;
  };
  const multipart = () => {
    const b = pick(["----WebKitFormBoundary" + Math.floor(rand() * 1e9).toString(36), "----geckoformboundary" + Math.floor(rand() * 1e9).toString(16), "simple"]);
    let body = "";
    for (let i = 0; i < 1 + rand() * 4; i++) {
      body += `--${b}\r\nContent-Disposition: form-data; name="${pick(["a", "b", "f", str(3).replace(/"/g, "")]) || "n"}"`;
      if (rand() < 0.3) body += `; filename="${str(5).replace(/"/g, "")}"\r\nContent-Type: application/octet-stream`;
      body += `\r\n\r\n${str(12)}\r\n`;
    }
    return [`multipart/form-data; boundary=${b}`, body + `--${b}--\r\n`];
  };
  const vectors = [];
  const n = Number(process.env.REPLAYKEY_N || 3000);
  for (let i = 0; i < n; i++) {
    let type, body;
    switch (pick(["json", "text", "form", "multipart", "binary"])) {
      case "json": type = pick(["application/json", "application/json;charset=UTF-8"]); body = Buffer.from(jsonText()); break;
      case "text": type = pick(["text/plain", "text/plain;charset=UTF-8"]); body = Buffer.from(rand() < 0.5 ? jsonText() : str(20)); break;
      case "form": type = form; body = Buffer.from(str(30)); break;
      case "multipart": [type, body] = multipart(); body = Buffer.from(body); break;
      default: type = pick(["application/octet-stream", "image/png", "application/x-amf", ""]);
        body = Buffer.from(Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * (rand() < 0.5 ? 128 : 256))));
    }
    vectors.push({ name: `random #${i} (seed ${seed})`, method: pick(["POST", "PUT", "post"]), url: pick(["http://example.com/p", "https://example.org/a/b?c=d"]),
      headers: type ? { "Content-Type": type } : {}, body });
  }
  const compared = await compare(vectors);
  assert.ok(compared > n * 0.9);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
