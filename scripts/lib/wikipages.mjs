// Pages of words drawn by their frequency (Zipf) from the words of real wiki pages
// (testdata/wiki), as the search benchmark and its probes import them: each page
// holds 300 words and one word no other page has (uniqueWord).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { root } from "./browser.mjs";
import { responseRecord } from "./warcrecord.mjs";

const WORDS = 300; // words of text per page

// vocab: the words of real wiki pages, most frequent first.
const wiki = path.join(root, "testdata/wiki");
const counts = new Map();
for (const f of readdirSync(wiki).filter((f) => f.endsWith(".html"))) {
  const text = readFileSync(path.join(wiki, f), "utf8").replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>|<[^>]+>|&[a-z]+;/g, " ");
  for (const w of text.toLowerCase().match(/\p{L}{2,}/gu) || []) counts.set(w, (counts.get(w) || 0) + 1);
}
export const vocab = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a));

let seed = 7;
/** A pseudo-random number in [0, 1), the same sequence every run. */
export const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x80000000);
// Zipf over the vocabulary: rank r with probability about 1/r.
const harmonic = Math.log(vocab.length) + 0.5772;
const word = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rand() * harmonic)) - 1)];

/** The word page i alone holds. */
export const uniqueWord = (i) => `quokka${i.toString(36)}zz`;

function page(i) {
  const words = Array.from({ length: WORDS }, word);
  words.splice(WORDS >> 1, 0, uniqueWord(i));
  return Buffer.from(`<!doctype html><title>Page ${i}: ${words.slice(0, 4).join(" ")}</title><p>${words.join(" ")}</p>`);
}

/** A WARC (gzipped records) of pages from to to - 1, a second apart. */
export function warcOf(from, to) {
  const parts = [];
  for (let i = from; i < to; i++) {
    const date = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(/\.\d+Z$/, "Z");
    parts.push(responseRecord(`https://wiki.example/page/${i}`, date, "text/html; charset=utf-8", page(i)));
  }
  return Buffer.concat(parts);
}
