// Deduplication across a team's uploads: a week of simulated daily visits to the same
// 50 sites (20 sessions a day of 25 pages, each page with its images, 90% of which are
// the same from one day to the next, the HTML new every day), uploaded to the built
// Worker in workerd. Before each upload the session's payload digests are asked of
// the Worker (POST /api/digests, as the extension's upload does): what it holds would
// go as revisit records. Prints the payload bytes sent without and with deduplication.
//
//   node scripts/bench/dedup.mjs [--days 7] [--sessions 20]
import { createHash } from "node:crypto";
import { base32, responseRecord } from "../lib/warcrecord.mjs";
import { startWorker, call } from "../test/worker/harness.mjs";
import { mb } from "../lib/stats.mjs";

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return Number(i >= 0 ? args[i + 1] : def);
};
const DAYS = opt("days", 7), SESSIONS = opt("sessions", 20), PAGES = 25, IMAGES = 4;
const SITES = Array.from({ length: 50 }, (_, i) => `site${i}.example.org`);
let seed = 99;
const rand = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);

const digest = (payload) => base32(createHash("sha1").update(payload).digest());

// An image's bytes on a day: the same as the day before but for one in ten.
function image(url, day) {
  let version = 0;
  for (let d = 1; d <= day; d++) if (createHash("md5").update(`${url} ${d}`).digest()[0] < 26) version = d;
  const seedBuf = createHash("sha256").update(`${url} v${version}`).digest();
  const out = Buffer.alloc(8000 + (seedBuf[0] << 6));
  for (let i = 0; i < out.length; i += 32) seedBuf.copy(out, i, 0, Math.min(32, out.length - i));
  return out;
}

function recordOf(url, day, payload, type) {
  const date = new Date(Date.UTC(2026, 10, 1 + day, rand(24), rand(60), rand(60))).toISOString().replace(/\.\d+Z$/, "Z");
  return responseRecord(url, date, type, payload);
}

const mf = startWorker();
let plain = 0, deduped = 0, revisits = 0, records = 0;
try {
  for (let day = 0; day < DAYS; day++) {
    for (let s = 0; s < SESSIONS; s++) {
      const payloads = [], parts = [];
      for (let p = 0; p < PAGES; p++) {
        const site = SITES[rand(SITES.length)];
        const page = `https://${site}/article/${rand(20)}`;
        payloads.push([page, Buffer.from(`<html>${page} on day ${day}: ${createHash("md5").update(`${page}${day}${s}`).digest("hex").repeat(40)}</html>`), "text/html"]);
        for (let i = 0; i < IMAGES; i++) {
          const img = `https://${site}/img/${i}.png`;
          payloads.push([img, image(img, day), "image/png"]);
        }
      }
      const digests = [...new Set(payloads.map(([, b]) => digest(b)))];
      const r = await call(mf, "POST", "/api/digests", { body: JSON.stringify({ digests }) });
      if (r.status !== 200) throw new Error(`digests: ${r.status} ${r.text}`);
      const known = r.json().known;
      const seen = new Set();
      for (const [url, b, type] of payloads) {
        const d = digest(b);
        plain += b.length;
        records++;
        if (known[d] || seen.has(d)) revisits++;
        else deduped += b.length;
        seen.add(d);
        parts.push(recordOf(url, day, b, type));
      }
      const up = await call(mf, "PUT", `/api/bundles/day${day}-s${s}.warc.gz`, { body: Buffer.concat(parts) });
      if (up.status !== 201) throw new Error(`upload: ${up.status} ${up.text}`);
    }
  }
} finally {
  await mf.dispose();
}
console.log(`| days | sessions | payloads | sent as revisits | payload MB without dedup | with | saved |`);
console.log(`|---:|---:|---:|---:|---:|---:|---:|`);
console.log(`| ${DAYS} | ${DAYS * SESSIONS} | ${records} | ${revisits} | ${mb(plain)} | ${mb(deduped)} | ${mb(plain - deduped)} MB (${((1 - deduped / plain) * 100).toFixed(0)}%) |`);
