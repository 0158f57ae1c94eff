// End to end, in real Chromium through the real extension: the demo site recorded, its
// WACZ downloaded from the popup. The WACZ is signed (wacz-auth 0.1.0, anonymous form)
// with the key the options page shows, and verifies: with `webkeep wacz verify --key`
// and the key downloaded from the options page, and with WebCrypto making exactly the
// call ReplayWeb.page makes. Imported back, the archive page says who signed it and
// that it verified; a copy with a byte changed says what failed. Opened in
// ReplayWeb.page 2.5.3, its Archive Info shows the key as the "Observer Public Key",
// and ReplayWeb.page's own record of the signature check (its IndexedDB) says it held.
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash, webcrypto } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, root, startDemoSite, waitFor } from "../../lib/browser.mjs";
import { download, launchViewer, openInReplayWebPage, recordDemo, serveReplayWebPage } from "../../lib/replaywebpage.mjs";
import { readZip } from "../../lib/zip.mjs";

const webkeep = path.join(root, "bin/webkeep");
let site, browser, dir, files, key, signedData, datapackage;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-signed-"));
  site = await startDemoSite(["-big", "4096"]);
  browser = await launch({ downloads: dir });
  files = await recordDemo(site, dir, {}, { browser });
  const zip = readZip(files.wacz);
  signedData = JSON.parse(zip.get("datapackage-digest.json").toString("utf8")).signedData;
  datapackage = zip.get("datapackage.json");
}, { timeout: 600000 });

after(async () => {
  await browser?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the options page shows the signing key, to copy and to download", async () => {
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.waitForSelector("#key-fingerprint[data-fingerprint]", { timeout: 30000 });
  const fingerprint = await options.getAttribute("#key-fingerprint", "data-fingerprint");
  const publicKey = await options.inputValue("#key-public");
  assert.match(fingerprint, /^[0-9a-f]{64}$/);
  assert.equal(createHash("sha256").update(Buffer.from(publicKey, "base64")).digest("hex"), fingerprint, "the fingerprint is the SHA-256 of the SPKI");
  assert.match(await options.textContent("#key-algorithm"), /P-384, SHA-256/);
  const [download] = await Promise.all([options.waitForEvent("download"), options.click("#key-download")]);
  const pem = path.join(dir, "key.pem");
  await download.saveAs(pem);
  const text = readFileSync(pem, "utf8");
  assert.match(text, /^-----BEGIN PUBLIC KEY-----\n/);
  assert.equal(text.replace(/-----[^-]+-----|\s/g, ""), publicKey);
  await options.close();
  key = { fingerprint, publicKey, pem };
});

test("the WACZ downloaded from the popup is signed with that key, as ReplayWeb.page checks signatures", async () => {
  assert.ok(key, "no key from the options page");
  assert.deepEqual(Object.keys(signedData).sort(), ["created", "hash", "publicKey", "signature", "software"]);
  const hash = "sha256:" + createHash("sha256").update(datapackage).digest("hex");
  assert.equal(signedData.hash, hash, "the hash signed is datapackage.json's");
  assert.equal(signedData.publicKey, key.publicKey, "signed with the key the options page shows");
  assert.equal(signedData.software, "webkeep");
  assert.ok(Math.abs(Date.parse(signedData.created) - Date.now()) < 10 * 60 * 1000, `created ${signedData.created}`);
  const sig = Buffer.from(signedData.signature, "base64");
  assert.equal(sig.length, 96, "r||s on P-384");
  // wabac.js, src/wacz/certutils.ts (verifyWACZSignature), anonymous form.
  const subtle = webcrypto.subtle;
  const k = await subtle.importKey("spki", Buffer.from(signedData.publicKey, "base64"), { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]);
  assert.ok(await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, k, sig, new TextEncoder().encode(signedData.hash)));
});

test("webkeep wacz verify checks every file, record and index line, and the signature by the key", () => {
  assert.ok(key, "no key from the options page");
  for (const k of [key.pem, key.fingerprint]) {
    const out = execFileSync(webkeep, ["wacz", "verify", "--key", k, files.wacz], { encoding: "utf8" });
    assert.match(out, new RegExp(`verified: 4 files, \\d+ WARC records, \\d+ index lines; signed by key ${key.fingerprint} \\(ECDSA P-384\\)`));
    assert.match(out, /ok {4}signature: made with the key required/);
  }
  const other = path.join(dir, "other.pem");
  execFileSync(webkeep, ["wacz", "keygen", "-o", other]);
  const res = spawnSync(webkeep, ["wacz", "verify", "--key", other, files.wacz], { encoding: "utf8" });
  assert.equal(res.status, 1);
  assert.match(res.stdout, /FAIL {2}datapackage-digest\.json: signedData\.publicKey: signed with key [0-9a-f]{64}, not with the key required/);
});

/** Imports a file in the archive page; resolves to the page, its imported session shown. */
async function importFile(file) {
  const archive = await browser.context.newPage();
  await archive.goto(browser.page("archive.html"));
  await archive.waitForSelector("body[data-ready]");
  const before = archive.url();
  await archive.setInputFiles("#import-file", file);
  await archive.waitForSelector('#jobs .job[data-state="done"]', { timeout: 120000 });
  await waitFor(() => archive.url() !== before && archive.url().includes("#"), "the imported session to open");
  await archive.waitForSelector("#session-verification:not([hidden])");
  return archive;
}

test("imported back, the archive page says it is signed by this browser's key and verified", async () => {
  assert.ok(key, "no key from the options page");
  const archive = await importFile(files.wacz);
  assert.equal(await archive.getAttribute("#session-verification", "data-state"), "verified");
  const summary = await archive.textContent("#verification-summary");
  assert.match(summary, new RegExp(`^Signed by key ${key.fingerprint} \\(this browser's key\\) on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d with webkeep; \\d+ records, \\d+ index lines and 4 files verified\\.$`));
  assert.ok(await archive.isHidden("#verification-problems"));
  await archive.close();
});

/** The offset in a zip file of the data of a stored entry. */
function storedAt(buf, name) {
  let eocd = buf.length - 22;
  while (buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  let p = buf.readUInt32LE(eocd + 16);
  for (let n = buf.readUInt16LE(eocd + 10); n > 0; n--) {
    const nameLen = buf.readUInt16LE(p + 28), extraLen = buf.readUInt16LE(p + 30), commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    if (buf.toString("utf8", p + 46, p + 46 + nameLen) === name) {
      assert.equal(buf.readUInt16LE(p + 10), 0, `${name} is stored`);
      return { start: local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28), size: buf.readUInt32LE(p + 20) };
    }
    p += 46 + nameLen + extraLen + commentLen;
  }
  throw new Error(`no ${name}`);
}

test("a copy with one byte of its index changed imports, and the archive page says what failed", async () => {
  const buf = readFileSync(files.wacz);
  const { start, size } = storedAt(buf, "indexes/index.cdx.gz");
  buf[start + Math.floor(size / 2)] ^= 0x01;
  const tampered = path.join(dir, "tampered.wacz");
  writeFileSync(tampered, buf);
  const archive = await importFile(tampered);
  assert.equal(await archive.getAttribute("#session-verification", "data-state"), "failed");
  assert.match(await archive.textContent("#verification-summary"), /^Signed by key [0-9a-f]{64} \(this browser's key\) on .*, but the WACZ was changed or is damaged: \d+ problems? \(below\)/);
  const problems = await archive.$$eval("#verification-problems li", (lis) => lis.map((li) => li.textContent));
  assert.ok(problems.some((p) => /^indexes\/index\.cdx\.gz: sha256: datapackage\.json says sha256:[0-9a-f]{64}; the file's is sha256:[0-9a-f]{64}$/.test(p)), problems.join("\n"));
  assert.ok(problems.some((p) => /^indexes\/index\.cdx\.gz: crc32: /.test(p)), problems.join("\n"));
  await archive.close();
});

/** What ReplayWeb.page's checks of a WACZ found: its IndexedDB's "verification" entries. */
function rwpChecks(page) {
  return page.evaluate(async () => {
    const req = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    const out = [];
    for (const { name } of await indexedDB.databases()) {
      const db = await req(indexedDB.open(name));
      if (db.objectStoreNames.contains("verification")) out.push(...await req(db.transaction("verification").objectStore("verification").getAll()));
      db.close();
    }
    return out;
  });
}

test("in ReplayWeb.page 2.5.3 its Archive Info shows the key, and its check of the signature holds", async () => {
  assert.ok(key, "no key from the options page");
  const rwp = await serveReplayWebPage({ "session.wacz": files.wacz });
  const viewer = await launchViewer();
  try {
    const page = await viewer.newPage();
    await openInReplayWebPage(page, rwp.url, rwp.archive("session.wacz"), { view: "pages" });
    // The Archive Info dialog, as its menu item opens it.
    const item = page.locator("wr-item");
    await item.waitFor({ timeout: 60000 });
    const field = (label) => page.locator(`wr-item-info wr-labeled-field[label="${label}"]`);
    await waitFor(async () => {
      await item.evaluate((el) => el.onShowInfoDialog());
      return (await field("Observer Public Key").count()) > 0 && !/Not Available/.test(await field("Observer Public Key").textContent());
    }, "ReplayWeb.page's Archive Info to show a key", 60000);
    assert.equal((await field("Observer Public Key").textContent()).trim(), key.publicKey);
    assert.equal((await field("Package Hash").textContent()).trim(), signedData.hash);
    // ReplayWeb.page counts its signature entry as valid whatever it found (getVerifyInfo),
    // so what it found is read where it keeps it: the "verification" store of its
    // collection's IndexedDB, the entry "signature" ({expected: true, matched}).
    const checks = await rwpChecks(page);
    const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
    assert.deepEqual(byId.signature, { id: "signature", expected: true, matched: true }, JSON.stringify(checks));
    assert.equal(byId.publicKey?.expected, key.publicKey);
    assert.equal(byId.datapackageHash?.expected, signedData.hash);
    // Its Validation field counts the signature entry as valid whatever it found
    // (getVerifyInfo), and as invalid each file datapackage.json lists that it did not
    // hash: 2.5.3 hashes files only when its service worker is started with
    // useHashCheck=1, which the app never does, so pages.jsonl and index.idx keep the
    // placeholder it writes first ({expected: their hash, matched: false}). Each such
    // entry holds the right hash of its file: nothing it checked failed.
    const zip = readZip(files.wacz);
    const listed = Object.fromEntries(JSON.parse(datapackage.toString("utf8")).resources.map((r) => [r.path, r.hash]));
    const shown = ["domain", "created", "certFingerprint", "software", "datapackageHash", "publicKey", "signature"];
    for (const c of checks.filter((c) => !shown.includes(c.id) && c.matched !== true)) {
      const file = Object.keys(listed).find((p) => c.id.endsWith(p));
      assert.ok(file, `a check of ReplayWeb.page failed: ${JSON.stringify(c)}`);
      assert.equal(c.expected, listed[file]);
      assert.equal(c.expected, "sha256:" + createHash("sha256").update(zip.get(file)).digest("hex"), `${file}: ReplayWeb.page expects another hash`);
    }
    const unhashed = checks.filter((c) => !shown.includes(c.id) && c.matched === false).length;
    assert.equal((await field("Validation").textContent()).replace(/\s+/g, " ").trim(), `1 hashes verified${unhashed ? `, ${unhashed} invalid` : ""}`);
  } finally {
    await viewer.close();
    await rwp.close();
  }
});

// A timestamp authority set on the options page: OpenSSL's `openssl ts -reply` on
// 127.0.0.1 (internal/opensslts). The WACZ downloaded then carries its stamp of the
// signature, which `webkeep wacz verify --roots` checks whole (the authority's
// signature and chain) and the archive page shows on import.
/** Starts OpenSSL's timestamp authority (internal/opensslts): { url, root, dir, stop }. */
async function startAuthority() {
  const bin = path.join(dir, "opensslts");
  execFileSync("go", ["build", "-o", bin, "./internal/opensslts/cmd/opensslts"], { cwd: root, stdio: "inherit" });
  const proc = spawn(bin, [], { stdio: ["pipe", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    proc.once("error", reject);
    createInterface({ input: proc.stdout }).once("line", resolve);
  });
  return { ...JSON.parse(line), stop: () => proc.stdin.end() };
}

test("with a timestamp authority set, the WACZ is stamped; verify and import show when", async () => {
  const tsa = await startAuthority();
  try {
    // The user grants webkeep access to the authority's site (saving asks for it).
    await browser.grantSite("http://127.0.0.1/*");
    const options = await browser.context.newPage();
    await options.goto(browser.page("options.html"));
    await options.waitForSelector("#key-fingerprint[data-fingerprint]", { timeout: 30000 });
    await options.fill("#tsa-url", tsa.url);
    await options.click("#save");
    await options.waitForSelector('#saved[data-state="saved"]');
    const stamped = await download(options, dir, `/api/sessions/${files.id}/wacz`, "stamped.wacz");
    await options.close();

    const sd = JSON.parse(readZip(stamped).get("datapackage-digest.json").toString("utf8")).signedData;
    assert.ok(sd.timeSignature && sd.timestampCert, JSON.stringify(Object.keys(sd)));
    const v = spawnSync(webkeep, ["wacz", "verify", "--roots", tsa.root, stamped], { encoding: "utf8" });
    assert.equal(v.status, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /ok {4}timestamp: \S+ by CN=webkeep test TSA,O=webkeep tests \(serial \d+\), within 10m0s of created: its authority's signature valid/);
    assert.match(v.stdout, new RegExp(`verified: .*; signed by key ${key.fingerprint} \\(ECDSA P-384\\) on \\S+, timestamped \\S+ by CN=webkeep test TSA`));

    const archive = await importFile(stamped);
    assert.equal(await archive.getAttribute("#session-verification", "data-state"), "verified");
    assert.match(await archive.textContent("#verification-summary"),
      /verified\. Timestamped \d{4}-\d\d-\d\d \d\d:\d\d by CN=webkeep test TSA,O=webkeep tests \(the authority's own signature is checked by webkeep wacz verify, not in the browser\)\.$/);
    await archive.close();
  } finally {
    tsa.stop();
  }
});

// The domain-name form as the team archive writes it (here by the CLI, with a key
// and a certificate made with OpenSSL, and a timestamp): ReplayWeb.page imports the
// certificate's key and its own check of the signature holds, which it would not for
// authsign's DER signatures.
test("a WACZ signed in the domain-name form: ReplayWeb.page's own check holds", async () => {
  const tsa = await startAuthority();
  const viewer = await launchViewer();
  try {
    const teamKey = path.join(dir, "team.pem"), cert = path.join(dir, "team-cert.pem"), signed = path.join(dir, "domain.wacz");
    execFileSync(webkeep, ["wacz", "keygen", "-o", teamKey]);
    execFileSync("openssl", ["req", "-new", "-x509", "-key", teamKey, "-subj", "/CN=archive.team.example", "-days", "30", "-out", cert]);
    const s = spawnSync(webkeep, ["wacz", "sign", "--key", teamKey, "--cert", cert, "--tsa", tsa.url, files.wacz, signed], { encoding: "utf8" });
    assert.equal(s.status, 0, s.stdout + s.stderr);
    const roots = path.join(dir, "roots.pem");
    writeFileSync(roots, readFileSync(cert, "utf8") + readFileSync(tsa.root, "utf8"));
    const v = spawnSync(webkeep, ["wacz", "verify", "--roots", roots, signed], { encoding: "utf8" });
    assert.equal(v.status, 0, v.stdout + v.stderr);
    const sd = JSON.parse(readZip(signed).get("datapackage-digest.json").toString("utf8")).signedData;
    assert.equal(sd.domain, "archive.team.example");
    assert.equal(sd.publicKey, undefined);

    const served = await serveReplayWebPage({ "domain.wacz": signed });
    try {
      const page = await viewer.newPage();
      await openInReplayWebPage(page, served.url, served.archive("domain.wacz"), { view: "pages" });
      await page.locator("wr-item").waitFor({ timeout: 60000 });
      let checks = [];
      await waitFor(async () => (checks = await rwpChecks(page)).some((c) => c.id === "signature"), "ReplayWeb.page to check the signature", 60000);
      const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
      assert.deepEqual(byId.signature, { id: "signature", expected: true, matched: true }, JSON.stringify(checks));
      assert.deepEqual(byId.domain, { id: "domain", expected: "archive.team.example", matched: "archive.team.example" });
    } finally {
      await served.close();
    }
  } finally {
    await viewer.close();
    tsa.stop();
  }
});
