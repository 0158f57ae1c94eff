// Checks a WACZ signature (argv: hash, signature, publicKey, as datapackage-digest.json's
// signedData holds them) as ReplayWeb.page does, and makes one as ArchiveWeb.page
// does; prints the results as JSON. Run by shared/wacz's TestSignatureInteropNode.
import { createPublicKey, verify, webcrypto } from "node:crypto";

const [hash, signature, publicKey] = process.argv.slice(2);
const subtle = webcrypto.subtle;
const b64 = (s) => Buffer.from(s, "base64");
const utf8 = (s) => new TextEncoder().encode(s);

// wabac.js, src/wacz/certutils.ts, verifyWACZSignature (anonymous form).
const key = await subtle.importKey("spki", b64(publicKey), { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]);
const ecdsa = { name: "ECDSA", hash: "SHA-256" };
const webCrypto = await subtle.verify(ecdsa, key, b64(signature), utf8(hash));
const tampered = await subtle.verify(ecdsa, key, b64(signature), utf8(hash.replace(/.$/, (c) => (c === "0" ? "1" : "0"))));

// node's own verifier, the signature read as IEEE P1363 (r || s).
const cryptoVerify = verify("sha256", Buffer.from(hash, "utf8"),
  { key: createPublicKey({ key: b64(publicKey), format: "der", type: "spki" }), dsaEncoding: "ieee-p1363" }, b64(signature));

// A signature as ArchiveWeb.page makes one (awp-sw, src/keystore.ts, Signer.sign).
const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-384" }, true, ["sign", "verify"]);
const made = "sha256:" + "ab".repeat(32);
const signed = {
  hash: made,
  signature: Buffer.from(await subtle.sign(ecdsa, pair.privateKey, utf8(made))).toString("base64"),
  publicKey: Buffer.from(await subtle.exportKey("spki", pair.publicKey)).toString("base64"),
};
console.log(JSON.stringify({ webCrypto, cryptoVerify, tampered, signed }));
