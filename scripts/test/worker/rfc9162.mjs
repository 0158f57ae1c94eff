// RFC 9162's verification algorithms for Merkle tree proofs, written over node:crypto
// from the RFC's text, sharing no code with the Worker's Go (golang.org/x/mod's tlog).
import { createHash } from "node:crypto";

const sha256 = (...parts) => createHash("sha256").update(Buffer.concat(parts.map((p) => Buffer.from(p)))).digest();
export const leafHash = (leaf) => sha256([0], Buffer.from(leaf));
const nodeHash = (l, r) => sha256([1], l, r);

// verifyInclusion is RFC 9162 section 2.1.3.2.
export function verifyInclusion(index, size, leaf, proof, root) {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash(leaf);
  for (const p of proof.map((h) => Buffer.from(h, "base64"))) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

// verifyConsistency is RFC 9162 section 2.1.4.2.
export function verifyConsistency(first, second, firstHash, secondHash, proof) {
  let p = proof.map((h) => Buffer.from(h, "base64"));
  if (first === second) return p.length === 0 && firstHash.equals(secondHash);
  if (first === 0) return p.length === 0;
  if (first > second || p.length === 0) return false;
  if ((first & (first - 1)) === 0) p = [firstHash, ...p];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = p[0];
  let sr = p[0];
  for (const c of p.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(firstHash) && sr.equals(secondHash);
}

