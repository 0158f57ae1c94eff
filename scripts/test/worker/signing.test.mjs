// The team's signatures in workerd (miniflare 4): the Worker holds the team's key
// (WEBKEEP_SIGNING_KEY, made by `webkeep wacz keygen`), a certificate for it issued
// by a CA made with OpenSSL (WEBKEEP_SIGNING_CERT), and a real RFC 3161 timestamp
// authority, OpenSSL's `openssl ts -reply` on 127.0.0.1 (WEBKEEP_TSA_URL). Checked
// by what shares no code with the Worker's Go: node:crypto for the signature and the
// certificate, `openssl ts -verify` for the timestamps; and by `webkeep wacz verify`
// on a WACZ the CLI had the Worker sign (`webkeep wacz sign --team`).
//
// Run scripts/build-worker.sh first; the CLI is built into a temporary folder.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, verify, X509Certificate } from "node:crypto";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { call, fixture, root, startWorker } from "./harness.mjs";

// startAuthority runs internal/opensslts and returns {url, root, chain, dir, stop}.
async function startAuthority(bin) {
  const p = spawn(bin, [], { stdio: ["pipe", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    p.once("error", reject);
    p.once("exit", (code) => reject(new Error(`opensslts exited ${code}`)));
    createInterface({ input: p.stdout }).once("line", resolve);
  });
  return { ...JSON.parse(line), stop: () => p.stdin.end() };
}

describe("team signatures and timestamps", () => {
  let dir, cli, tsa, mf, chainPEM;
  const openssl = (...args) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "webkeep-signing-"));
    cli = join(dir, "webkeep");
    execFileSync("go", ["build", "-o", cli, "./cmd/webkeep"], { cwd: root, stdio: "inherit" });
    execFileSync("go", ["build", "-o", join(dir, "opensslts"), "./internal/opensslts/cmd/opensslts"], { cwd: root, stdio: "inherit" });
    tsa = await startAuthority(join(dir, "opensslts"));
    execFileSync(cli, ["wacz", "keygen", "-o", join(dir, "team.pem")]);
    openssl("req", "-new", "-key", "team.pem", "-subj", "/CN=archive.team.example", "-out", "team.csr");
    writeFileSync(join(dir, "ext.cnf"), "[e]\nsubjectAltName = DNS:archive.team.example\nkeyUsage = critical, digitalSignature\n");
    openssl("x509", "-req", "-in", "team.csr", "-CA", tsa.root, "-CAkey", join(tsa.dir, "ca.key"), "-CAcreateserial", "-days", "30",
      "-out", "team-cert.pem", "-extfile", "ext.cnf", "-extensions", "e");
    chainPEM = readFileSync(join(dir, "team-cert.pem"), "utf8") + readFileSync(tsa.root, "utf8");
    mf = startWorker({
      WEBKEEP_SIGNING_KEY: readFileSync(join(dir, "team.pem"), "utf8"),
      WEBKEEP_SIGNING_CERT: chainPEM,
      WEBKEEP_TSA_URL: tsa.url,
      WEBKEEP_NOTARY_KEY: execFileSync(cli, ["notary", "keygen", "archive.test/notary"], { encoding: "utf8" }).match(/PRIVATE\+KEY\+\S+/)[0],
    });
    await mf.ready;
  });
  after(async () => {
    await mf?.dispose();
    tsa?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // tsVerify has OpenSSL check an RFC 3161 response (base64) of data against the CA.
  function tsVerify(b64, data) {
    writeFileSync(join(dir, "stamp.tsr"), Buffer.from(b64, "base64"));
    writeFileSync(join(dir, "stamped.bin"), data);
    return spawnSync("openssl", ["ts", "-verify", "-data", "stamped.bin", "-in", "stamp.tsr", "-CAfile", tsa.root], { cwd: dir, encoding: "utf8" });
  }

  test("GET /api/signing describes the team's key and certificate", async () => {
    const r = await call(mf, "GET", "/api/signing");
    assert.equal(r.status, 200, r.text);
    const info = r.json();
    assert.equal(info.form, "domain");
    assert.equal(info.domain, "archive.team.example");
    assert.equal(info.timestamped, true);
    const leaf = new X509Certificate(info.certificate.split("\n\n")[0]);
    assert.equal(leaf.subject, "CN=archive.team.example");
    const spki = leaf.publicKey.export({ type: "spki", format: "der" });
    assert.equal(info.fingerprint, createHash("sha256").update(spki).digest("hex"));
  });

  test("POST /api/sign signs in the domain-name form, stamped by the authority", async () => {
    const hash = "sha256:" + createHash("sha256").update("a datapackage.json").digest("hex");
    const r = await call(mf, "POST", "/api/sign", { body: JSON.stringify({ hash }) });
    assert.equal(r.status, 200, r.text);
    const sd = r.json();
    assert.equal(sd.hash, hash);
    assert.equal(sd.domain, "archive.team.example");
    assert.equal(sd.publicKey, undefined);
    // The signature, as WebCrypto (and ReplayWeb.page) checks it: r || s, SHA-256.
    const leaf = new X509Certificate(sd.domainCert.split("\n\n")[0]);
    assert.ok(verify("sha256", Buffer.from(hash), { key: leaf.publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(sd.signature, "base64")),
      "the signature does not verify with the certificate's key");
    assert.ok(leaf.verify(new X509Certificate(readFileSync(tsa.root)).publicKey), "the certificate is not the CA's");
    // The timestamp, as OpenSSL checks it: of the signature's text.
    const v = tsVerify(sd.timeSignature, Buffer.from(sd.signature));
    assert.equal(v.status, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /Verification: OK/);
    assert.notEqual(tsVerify(sd.timeSignature, Buffer.from(sd.signature + "x")).status, 0, "a timestamp verifies for other data");
    assert.match(sd.timestampCert, /-----BEGIN CERTIFICATE-----/);
    assert.ok(Math.abs(Date.parse(sd.created) - Date.now()) < 60000, `created ${sd.created}`);

    const bad = await call(mf, "POST", "/api/sign", { body: JSON.stringify({ hash: "md5:0" }) });
    assert.equal(bad.status, 400);
    const anon = await call(mf, "POST", "/api/sign", { token: null, body: JSON.stringify({ hash }) });
    assert.equal(anon.status, 401);
  });

  test("webkeep wacz sign --team: the Worker signs a WACZ that webkeep wacz verify holds", async () => {
    const url = (await mf.ready).toString().replace(/\/$/, "");
    writeFileSync(join(dir, "site.warc.gz"), fixture("sample-2025.warc.gz"));
    execFileSync(cli, ["wacz", "create", "-o", join(dir, "in.wacz"), join(dir, "site.warc.gz")]);
    const s = spawnSync(cli, ["wacz", "sign", "--team", url, "--token", "alice-token-0123456789", join(dir, "in.wacz"), join(dir, "team.wacz")], { encoding: "utf8" });
    assert.equal(s.status, 0, s.stdout + s.stderr);
    assert.match(s.stdout, /signed by the certificate for archive\.team\.example, timestamped /);
    const v = spawnSync(cli, ["wacz", "verify", "--roots", tsa.root, join(dir, "team.wacz")], { encoding: "utf8" });
    assert.equal(v.status, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /ok {4}timestamp: .* by CN=webkeep test TSA,O=webkeep tests/);
    assert.match(v.stdout, /verified: .*; signed by the certificate for archive\.team\.example \(key [0-9a-f]{64}\) on .*, timestamped /);
    const untrusted = spawnSync(cli, ["wacz", "verify", join(dir, "team.wacz")], { encoding: "utf8" });
    assert.equal(untrusted.status, 1, "verified without the team's CA among the roots");
  });

  test("an upload's receipt carries a timestamp of its tree head", async () => {
    const bundle = fixture("sample-bundle.zip");
    const r = await call(mf, "PUT", "/api/bundles/stamped.zip", { body: bundle });
    assert.equal(r.status, 201, r.text);
    const n = r.json().notary;
    assert.ok(n.headTimestamp, JSON.stringify(n));
    const v = tsVerify(n.headTimestamp, Buffer.from(n.head));
    assert.equal(v.status, 0, v.stdout + v.stderr);
    writeFileSync(join(dir, "head"), n.head);
    writeFileSync(join(dir, "receipt.json"), JSON.stringify({ notary: n }));
    writeFileSync(join(dir, "receipt-stamp.json"), JSON.stringify(n));
    const key = (await call(mf, "GET", "/api/notary/key")).text.trim();
    const c = spawnSync(cli, ["notary", "verify", "--key", key, "--head", join(dir, "head"), "--leaf", n.leaf, "--index", String(n.index),
      "--proof", join(dir, "receipt.json"), "--timestamp", join(dir, "receipt-stamp.json"), "--roots", tsa.root], { encoding: "utf8" });
    assert.equal(c.status, 0, c.stdout + c.stderr);
    assert.match(c.stdout, /timestamped: the head existed at \d{4}-\d\d-\d\dT/);
  });
});
