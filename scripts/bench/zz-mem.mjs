import { Miniflare } from "miniflare";
import { call, fixture, workerModules, workerOptions } from "../test/worker/harness.mjs";
const mf = new Miniflare({ ...workerOptions(), ...workerModules(process.env.WDIR || "/tmp/wmem") });
await mf.ready;
let r = await call(mf, "PUT", "/api/bundles/team-2024.zip", { body: fixture("sample-bundle.zip") });
console.log("put", r.status);
await new Promise((res) => setTimeout(res, 3000));
r = await call(mf, "GET", "/api/cdx?url=http://127.0.0.1:8123/gallery&output=json");
console.log("cdx", r.status, r.text.slice(0, 200));
const n = Number(process.argv[2] || 500);
const q = process.argv[3] || "/api/cdx?url=http://127.0.0.1:8123/gallery";
const t = [];
for (let i = 0; i < n; i++) {
  const t0 = performance.now();
  await call(mf, "GET", q);
  t.push(performance.now() - t0);
}
t.sort((a, b) => a - b);
console.log("median", t[n >> 1].toFixed(2), "p99", t[Math.floor(n * 0.99)].toFixed(2), "max", t[n - 1].toFixed(1));
await mf.dispose();
