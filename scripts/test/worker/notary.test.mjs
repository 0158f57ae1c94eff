// The team archive's notary log in workerd (miniflare 4), with a signing key given as
// the secret WEBKEEP_NOTARY_KEY: every upload (single PUT and in parts) answers a
// receipt whose signed head and inclusion proof are checked here twice, by RFC 9162's
// verification algorithms over node:crypto (sharing no code with the Worker's Go) and
// by the native CLI (webkeep notary verify / consistency); concurrent uploads are each
// logged once; heads taken at two times are consistent; a bundle replaced after its
// upload is a new leaf, and its bytes do not verify as the old one.
//
// Run scripts/build-worker.sh first; the CLI is built into a temporary folder.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOB, bigWARC, call, fixture, root, startWorker } from "./harness.mjs";
import { leafHash, verifyConsistency, verifyInclusion } from "./rfc9162.mjs";

const bundle = fixture("sample-bundle.zip");
const warc2025 = fixture("sample-2025.warc.gz");
const NAME = "archive.test/notary";

const sha256 = (...parts) => createHash("sha256").update(Buffer.concat(parts.map((p) => Buffer.from(p)))).digest();

// noteKeys makes an Ed25519 key pair in golang.org/x/mod/sumdb/note's encoding: the
// signer key "PRIVATE+KEY+<name>+<hash>+<base64(1 || seed)>" and the verifier key
// "<name>+<hash>+<base64(1 || public key)>", hash the first 4 bytes of
// SHA-256(name || "\n" || 1 || public key).
function noteKeys(name) {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d, "base64url");
  const hash = sha256(name + "\n", [1], pub).subarray(0, 4).toString("hex");
  return {
    skey: `PRIVATE+KEY+${name}+${hash}+${Buffer.concat([Buffer.from([1]), seed]).toString("base64")}`,
    vkey: `${name}+${hash}+${Buffer.concat([Buffer.from([1]), pub]).toString("base64")}`,
    publicKey,
    keyHash: hash,
  };
}

// openHead checks a signed note with the key and returns its checkpoint: origin,
// size and root hash.
function openHead(msg, key) {
  const at = msg.indexOf("\n\n");
  assert.ok(at > 0, `not a signed note: ${msg}`);
  const text = msg.slice(0, at + 1);
  const sigs = msg.slice(at + 2).split("\n").filter((l) => l !== "");
  const mine = sigs.map((l) => l.match(/^— (\S+) (\S+)$/)).find((m) => m && m[1] === NAME);
  assert.ok(mine, `no signature by ${NAME}: ${msg}`);
  const sig = Buffer.from(mine[2], "base64");
  assert.equal(sig.subarray(0, 4).toString("hex"), key.keyHash);
  assert.ok(verify(null, Buffer.from(text), key.publicKey, sig.subarray(4)), "the head's signature does not verify");
  const [origin, size, hash, ...rest] = text.split("\n");
  assert.deepEqual(rest, [""]);
  assert.match(size, /^(0|[1-9][0-9]*)$/);
  return { origin, size: Number(size), hash: Buffer.from(hash, "base64"), text };
}

const leafOf = (bytes, name, upload) =>
  `webkeep-bundle ${name} ${upload} ${createHash("sha256").update(bytes).digest("hex")} ${bytes.length}`;

describe("notary log", () => {
  const key = noteKeys(NAME);
  let mf;
  let dir;
  let cli;
  const receipts = []; // [{name, bytes, notary}] of every upload, in order
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "webkeep-notary-"));
    cli = join(dir, "webkeep");
    execFileSync("go", ["build", "-o", cli, "./cmd/webkeep"], { cwd: root, stdio: "inherit" });
    mf = startWorker({ WEBKEEP_NOTARY_KEY: key.skey });
    await mf.ready;
  });
  after(async () => {
    await mf?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // webkeep runs the CLI with files written from strings: {name: content}.
  function webkeep(files, ...args) {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    const r = spawnSync(cli, args.map((a) => (a in files ? join(dir, a) : a)), { encoding: "utf8" });
    return { code: r.status, out: r.stdout, err: r.stderr };
  }

  // checkReceipt checks an upload's receipt in JS and with the CLI.
  function checkReceipt(name, bytes, n) {
    assert.equal(n.signed, true);
    const upload = n.leaf.split(" ")[2];
    const leaf = leafOf(bytes, name, upload);
    assert.equal(n.leaf, leaf);
    const head = openHead(n.head, key);
    assert.equal(head.origin, NAME);
    assert.equal(head.size, n.treeSize);
    assert.equal(head.hash.toString("base64"), n.treeHash);
    assert.ok(verifyInclusion(n.index, n.treeSize, leaf, n.proof, head.hash), `leaf ${n.index} does not verify`);
    const r = webkeep({ head: n.head, "proof.json": JSON.stringify({ notary: n }) },
      "notary", "verify", "--key", key.vkey, "--head", "head", "--leaf", leaf, "--index", String(n.index), "--proof", "proof.json");
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^verified: leaf \d+ of the tree of \d+ leaves of archive\.test\/notary/);
    return upload;
  }

  test("the key is served", async () => {
    const r = await call(mf, "GET", "/api/notary/key");
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, key.vkey + "\n");
  });

  test("uploads get receipts: PUT and upload in parts", async () => {
    let r = await call(mf, "PUT", "/api/bundles/team.zip", { body: bundle });
    assert.equal(r.status, 201, r.text);
    let n = r.json().notary;
    assert.equal(n.index, 0);
    assert.equal(n.treeSize, 1);
    checkReceipt("team.zip", bundle, n);
    receipts.push({ name: "team.zip", bytes: bundle, notary: n });

    r = await call(mf, "PUT", "/api/bundles/sample-2025.warc.gz", { body: warc2025, token: BOB });
    assert.equal(r.status, 201, r.text);
    n = r.json().notary;
    assert.equal(n.index, 1);
    checkReceipt("sample-2025.warc.gz", warc2025, n);
    receipts.push({ name: "sample-2025.warc.gz", bytes: warc2025, notary: n });

    // In parts (one, smaller than a part: the last may be).
    r = await call(mf, "POST", "/api/uploads/parts.zip");
    assert.equal(r.status, 201, r.text);
    const u = r.json();
    r = await call(mf, "PUT", `/api/uploads/parts.zip/${u.upload}/1`, { body: bundle });
    assert.equal(r.status, 200, r.text);
    r = await call(mf, "POST", `/api/uploads/parts.zip/${u.upload}`, {
      body: JSON.stringify({ parts: 1, size: bundle.length, sha256: createHash("sha256").update(bundle).digest("hex") }),
    });
    assert.equal(r.status, 201, r.text);
    n = r.json().notary;
    assert.equal(n.index, 2);
    assert.equal(checkReceipt("parts.zip", bundle, n), u.upload);
    receipts.push({ name: "parts.zip", bytes: bundle, notary: n });

    // The leaves read back, and the head is the last receipt's.
    for (const { notary } of receipts) {
      r = await call(mf, "GET", `/api/notary/leaf/${notary.index}`);
      assert.equal(r.status, 200);
      assert.equal(r.text, notary.leaf);
    }
    r = await call(mf, "GET", "/api/notary/head");
    assert.equal(r.text, n.head);
    assert.equal(r.headers.get("x-notary-tree-size"), "3");
  });

  test("concurrent uploads are each logged once", async () => {
    const names = Array.from({ length: 20 }, (_, i) => `conc-${String(i).padStart(2, "0")}.warc.gz`);
    const results = await Promise.all(names.map((name) => call(mf, "PUT", `/api/bundles/${name}`, { body: warc2025 })));
    assert.deepEqual(results.map((r) => r.status), names.map(() => 201), results.map((r) => r.text).join("\n"));
    const got = results.map((r) => r.json().notary);
    const indexes = got.map((n) => n.index).sort((a, b) => a - b);
    assert.deepEqual(indexes, names.map((_, i) => 3 + i));
    got.forEach((n, i) => receipts.push({ name: names[i], bytes: warc2025, notary: n }));

    const head = openHead((await call(mf, "GET", "/api/notary/head")).text, key);
    assert.equal(head.size, 3 + names.length);
    for (const { name, bytes, notary } of receipts) {
      const r = await call(mf, "GET", `/api/notary/proof?index=${notary.index}&size=${head.size}`);
      assert.equal(r.status, 200, r.text);
      const p = r.json();
      assert.equal(p.leaf, notary.leaf);
      assert.equal(p.treeHash, head.hash.toString("base64"));
      assert.equal(p.leaf, leafOf(bytes, name, notary.leaf.split(" ")[2]));
      assert.ok(verifyInclusion(p.index, head.size, p.leaf, p.proof, head.hash), `leaf ${p.index} not in the head`);
      // Each receipt's own proof, in its own tree, too.
      assert.ok(verifyInclusion(notary.index, notary.treeSize, notary.leaf, notary.proof, Buffer.from(notary.treeHash, "base64")));
    }
  });

  test("heads at two times are consistent", async () => {
    const first = receipts[0].notary; // the tree of 1
    const older = receipts[2].notary; // of 3
    const newer = openHead((await call(mf, "GET", "/api/notary/head")).text, key);
    for (const old of [first, older]) {
      const r = await call(mf, "GET", `/api/notary/consistency?old=${old.treeSize}&new=${newer.size}`);
      assert.equal(r.status, 200, r.text);
      const c = r.json();
      assert.equal(c.oldHead, old.head);
      assert.equal(c.newHash, newer.hash.toString("base64"));
      const oldHead = openHead(c.oldHead, key);
      assert.ok(verifyConsistency(oldHead.size, newer.size, oldHead.hash, newer.hash, c.proof), `${oldHead.size} -> ${newer.size}`);
      // Not with another old hash.
      assert.ok(!verifyConsistency(oldHead.size, newer.size, sha256("x"), newer.hash, c.proof));
      const cli = webkeep({ old: old.head, new: c.newHead, "c.json": r.text },
        "notary", "consistency", "--key", key.vkey, "old", "new", "c.json");
      assert.equal(cli.code, 0, cli.err);
      assert.match(cli.out, /^consistent: /);
      const swapped = webkeep({}, "notary", "consistency", "--key", key.vkey, "new", "old", "c.json");
      assert.equal(swapped.code, 1, swapped.out);
    }
  });

  test("a bundle replaced after upload is a new leaf; its bytes do not verify as the old one", async () => {
    const old = receipts[0];
    const other = Buffer.from(bundle);
    other[200] ^= 0x20; // a stored byte of the zip: still a bundle the archive takes
    let r = await call(mf, "PUT", "/api/bundles/team.zip?overwrite=1", { body: other });
    assert.equal(r.status, 200, r.text);
    const n = r.json().notary;
    const upload = checkReceipt("team.zip", other, n);
    assert.notEqual(upload, old.notary.leaf.split(" ")[2]);
    assert.equal(n.index, receipts.length);

    // The download is the replacement: as the first upload's leaf it fails, in JS and
    // with the CLI; the first leaf itself still verifies, in its tree and now.
    r = await call(mf, "GET", "/api/bundles/team.zip");
    assert.ok(r.bytes.equals(other));
    const asOld = leafOf(r.bytes, "team.zip", old.notary.leaf.split(" ")[2]);
    assert.notEqual(asOld, old.notary.leaf);
    const root0 = Buffer.from(old.notary.treeHash, "base64");
    assert.ok(!verifyInclusion(0, 1, asOld, old.notary.proof, root0));
    assert.ok(verifyInclusion(0, 1, old.notary.leaf, old.notary.proof, root0));
    const files = { head: old.notary.head, "proof.json": JSON.stringify(old.notary) };
    let cli = webkeep(files, "notary", "verify", "--key", key.vkey, "--head", "head", "--leaf", asOld, "--index", "0", "--proof", "proof.json");
    assert.equal(cli.code, 1, cli.out);
    assert.match(cli.err, /NOT IN THE LOG/);
    // webkeep notary leaf of the downloaded file says the same.
    writeFileSync(join(dir, "downloaded.zip"), r.bytes);
    cli = webkeep({}, "notary", "leaf", join(dir, "downloaded.zip"), "team.zip", old.notary.leaf.split(" ")[2]);
    assert.equal(cli.code, 0, cli.err);
    assert.equal(cli.out, asOld + "\n");

    r = await call(mf, "GET", "/api/notary/proof?index=0");
    const p = r.json();
    const head = openHead(p.head, key);
    assert.equal(p.leaf, old.notary.leaf);
    assert.ok(verifyInclusion(0, head.size, p.leaf, p.proof, head.hash));
    cli = webkeep({ head: p.head, "p.json": r.text }, "notary", "verify", "--key", key.vkey, "--head", "head", "--leaf", p.leaf, "--index", "0", "--proof", "p.json");
    assert.equal(cli.code, 0, cli.err);
  });

  test("errors", async () => {
    for (const [path, status] of [
      ["/api/notary/proof?index=9999", 400],
      ["/api/notary/proof", 400],
      ["/api/notary/consistency?old=5&new=2", 400],
      ["/api/notary/leaf/9999", 404],
      ["/api/notary/nope", 404],
    ]) {
      const r = await call(mf, "GET", path);
      assert.equal(r.status, status, `${path}: ${r.text}`);
      assert.ok(r.json().error);
    }
    assert.equal((await call(mf, "GET", "/api/notary/head", { token: null })).status, 401);
  });
});

describe("notary log without a key", () => {
  let mf;
  before(async () => {
    mf = startWorker();
    await mf.ready;
  });
  after(() => mf?.dispose());

  test("heads are unsigned, and say so", async () => {
    let r = await call(mf, "PUT", "/api/bundles/a.warc.gz", { body: warc2025 });
    assert.equal(r.status, 201, r.text);
    const n = r.json().notary;
    assert.equal(n.signed, false);
    assert.equal(n.head, `webkeep-notary\n1\n${n.treeHash}\n`);
    assert.ok(verifyInclusion(0, 1, n.leaf, n.proof, Buffer.from(n.treeHash, "base64")));
    assert.equal(Buffer.from(n.treeHash, "base64").toString("hex"), leafHash(n.leaf).toString("hex"));
    r = await call(mf, "GET", "/api/notary/key");
    assert.equal(r.status, 404);
    r = await call(mf, "GET", "/api/notary/head");
    assert.equal(r.headers.get("x-notary-signed"), "false");
  });
});

// 1,000 uploads, then proofs at every size from 1 to 1,000 leaves: each tree's head
// signed, each size's newest leaf included, each size consistent with the 1,000-leaf
// tree (RFC 9162's algorithms in JS), and a sample checked by the CLI, whose
// verifier is golang.org/x/mod's tlog.
describe("notary log at 1 to 1,000 leaves", () => {
  const key = noteKeys(NAME);
  const N = 1000;
  let mf, dir, cli;
  const leaves = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "webkeep-notary-scale-"));
    cli = join(dir, "webkeep");
    execFileSync("go", ["build", "-o", cli, "./cmd/webkeep"], { cwd: root, stdio: "inherit" });
    mf = startWorker({ WEBKEEP_NOTARY_KEY: key.skey });
    await mf.ready;
    let next = 0;
    const worker = async () => {
      while (next < N) {
        const i = next++;
        const body = bigWARC(`http://example.org/${i}`, 16);
        const r = await call(mf, "PUT", `/api/bundles/n${i}.warc`, { body });
        assert.equal(r.status, 201, r.text);
        const n = r.json().notary;
        assert.equal(n.error, undefined, `upload ${i}: ${n.error}`);
        assert.equal(leaves[n.index], undefined, `leaf ${n.index} given twice`);
        leaves[n.index] = n.leaf;
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  });
  after(async () => {
    await mf?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("every size's proofs verify", async () => {
    assert.equal(leaves.filter(Boolean).length, N, "a leaf is missing or logged twice");
    const full = openHead((await call(mf, "GET", "/api/notary/head")).text, key);
    assert.equal(full.size, N);
    for (let n = 1; n <= N; n++) {
      let r = await call(mf, "GET", `/api/notary/proof?index=${n - 1}&size=${n}`);
      assert.equal(r.status, 200, r.text);
      const p = r.json();
      const head = openHead(p.head, key);
      assert.equal(head.size, n);
      assert.equal(p.leaf, leaves[n - 1]);
      assert.ok(verifyInclusion(n - 1, n, leaves[n - 1], p.proof, head.hash), `leaf ${n - 1} of ${n}`);
      r = await call(mf, "GET", `/api/notary/consistency?old=${n}&new=${N}`);
      assert.equal(r.status, 200, r.text);
      const c = r.json();
      assert.ok(verifyConsistency(n, N, head.hash, full.hash, c.proof), `tree ${n} in tree ${N}`);
      if (n % 97 === 1 || n === N) {
        writeFileSync(join(dir, "head"), p.head);
        writeFileSync(join(dir, "proof.json"), JSON.stringify(p));
        writeFileSync(join(dir, "old"), c.oldHead);
        writeFileSync(join(dir, "new"), c.newHead);
        writeFileSync(join(dir, "c.json"), JSON.stringify(c));
        let v = spawnSync(cli, ["notary", "verify", "--key", key.vkey, "--head", join(dir, "head"), "--leaf", leaves[n - 1], "--index", String(n - 1),
          "--proof", join(dir, "proof.json")], { encoding: "utf8" });
        assert.equal(v.status, 0, v.stderr);
        v = spawnSync(cli, ["notary", "consistency", "--key", key.vkey, join(dir, "old"), join(dir, "new"), join(dir, "c.json")], { encoding: "utf8" });
        assert.equal(v.status, 0, v.stderr);
      }
    }
  });
});
