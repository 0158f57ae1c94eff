// Probe: the CPU the Worker (workerd, through miniflare) spends during and after its
// answer to a page's batch (GET /api/replay/batch), by thread, on this machine's cores,
// which the browser shares in the replay benchmark. The sample bundle is uploaded, then
// N batches are asked for, GAP ms apart (default 800), each as of a new time; for each,
// the ms of CPU of each workerd thread during the request and after it (at 10, 25, 50,
// 100, 200, 400 and 800 ms), and the Worker's Server-Timing.
// PAGE names the page (default http://example.com/, in the sample bundle);
// MINIFLARE_WORKERD_V8_FLAGS passes V8 flags to workerd (to tell what the work is).
//
//   [GAP=ms] [PAGE=URL] node scripts/probe/workerafter.mjs [N]
import { readdirSync, readFileSync } from "node:fs";
import { startWorker, fixture } from "../test/worker/harness.mjs";

const N = Number(process.argv[2] || 10);
const TOKEN = "probe-token-0123456789";
const mf = startWorker({ WEBKEEP_TOKENS: `probe:${TOKEN}` });
const base = (await mf.ready).href.replace(/\/$/, "");
const auth = { Authorization: `Bearer ${TOKEN}` };
function workerdPids() {
  const out = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, "utf8").trim() === "workerd") out.push(d);
    } catch {}
  }
  return out;
}
const pids = workerdPids();
// threads gives each thread of every workerd its run time (schedstat, in ms), by name.
function threads() {
  const out = {};
  for (const p of pids) {
    for (const t of readdirSync(`/proc/${p}/task`)) {
      try {
        const name = `${p}/${readFileSync(`/proc/${p}/task/${t}/comm`, "utf8").trim()}/${t}`;
        out[name] = Number(readFileSync(`/proc/${p}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;
      } catch {}
    }
  }
  return out;
}
const total = (t) => Object.values(t).reduce((a, b) => a + b, 0);
function diff(a, b) {
  const out = {};
  for (const [k, v] of Object.entries(b)) if (v - (a[k] || 0) >= 0.5) out[k] = +(v - (a[k] || 0)).toFixed(1);
  return out;
}
const up = await fetch(`${base}/api/bundles/sample`, { method: "PUT", headers: auth, body: fixture("sample-bundle.zip") });
if (up.status !== 201) throw new Error(`uploading the sample bundle: ${up.status} ${await up.text()}`);
const page = process.env.PAGE || "http://example.com/";
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
await sleep(1500);
const rows = [];
for (let i = 0; i < N; i++) {
  await sleep(Number(process.env.GAP || 800));
  const th0 = threads();
  const t0 = performance.now();
  const res = await fetch(`${base}/api/replay/batch?url=${encodeURIComponent(page)}&ts=2025${String(i).padStart(2, "0")}`, { headers: auth });
  const body = await res.arrayBuffer();
  const t1 = performance.now();
  const th1 = threads();
  const marks = [];
  let th2 = th1;
  for (const at of [10, 25, 50, 100, 200, 400, 800]) {
    await sleep(at - (performance.now() - t1));
    th2 = threads();
    marks.push(+(total(th2) - total(th1)).toFixed(1));
  }
  rows.push({ status: res.status, ms: (t1 - t0).toFixed(1), during: +(total(th1) - total(th0)).toFixed(1), whoDuring: diff(th0, th1), after: marks, who: diff(th1, th2), timing: res.headers.get("server-timing") });
}
for (const row of rows) console.log(JSON.stringify(row));
await mf.dispose();
