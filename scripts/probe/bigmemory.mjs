// Where the extension's process grows while a large response is recorded. Every 200 ms:
// its resident memory over idle; the service worker's V8 heap (used, total), the array
// buffers' backing stores and the embedder's heap (Runtime.getHeapUsage); and the Go
// core's linear memory (self.webkeepGo), which never shrinks; and how far the worker is
// behind the network: the body's bytes a plain DevTools client of the tab has been
// told of (Network.dataReceived) against those the worker has routed to IndexedDB
// (its routes' sizes), the difference waiting in the browser's messages or in the
// worker's queue. With --dumps, a memory
// dump of each process every second (the trace's memory-infra): what each allocator of
// the extension's process holds, all its pages and the worker's included.
//
//   node scripts/probe/bigmemory.mjs [BYTES] [--loads N] [--dumps]
//
// --loads N loads the demo gallery N times in the recorded tab first, as the benchmark's
// session has its pages before the large body.
import { launch, processMemory, startDemoSite, startRecording, waitArchived } from "../lib/browser.mjs";
import { traced } from "../lib/wasmtrace.mjs";

const flag = (name) => process.argv.indexOf(name);
const bigSize = Number(/^\d+$/.test(process.argv[2] || "") ? process.argv[2] : 524288000);
const loads = flag("--loads") > 0 ? Number(process.argv[flag("--loads") + 1]) : 0;
const dumps = flag("--dumps") > 0;
const mb = (b) => (b / 1e6).toFixed(1);

// workerSession sends DevTools commands to the extension's service worker, through
// cdp (a page's session) and the Target domain's messages.
async function workerSession(cdp) {
  const { targetInfos } = await cdp.send("Target.getTargets");
  const sw = targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://"));
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId: sw.targetId, flatten: false });
  let id = 0;
  const waiting = new Map();
  cdp.on("Target.receivedMessageFromTarget", (e) => {
    const m = JSON.parse(e.message);
    waiting.get(m.id)?.(m.result || m.error);
    waiting.delete(m.id);
  });
  return (method, params = {}) => new Promise((resolve) => {
    waiting.set(++id, resolve);
    cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) });
  });
}

// allocatorRows gives, for each memory dump of the extension's process in the trace,
// its six largest allocators.
function allocatorRows(events) {
  const labels = new Map(events.filter((e) => e.ph === "M" && /^process_(labels|name)$/.test(e.name)).map((e) => [e.pid, e.args.labels || e.args.name]));
  const pid = [...labels].find(([, l]) => /Extension/.test(l))?.[0];
  const rows = events.filter((e) => e.ph === "v" && e.pid === pid && e.args.dumps.allocators);
  const size = (a) => Number.parseInt(a.attrs?.size?.value || "0", 16);
  return rows.map((d) => {
    const tops = Object.entries(d.args.dumps.allocators).filter(([k]) => !k.includes("/")).map(([k, v]) => [k, size(v)]);
    tops.sort((a, b) => b[1] - a[1]);
    return `${((d.ts - rows[0].ts) / 1e6).toFixed(1)} s: ${tops.slice(0, 6).map(([k, v]) => `${k} ${mb(v)}`).join(", ")}`;
  });
}

const site = await startDemoSite(["-big", String(bigSize)]);
const browser = await launch();
try {
  const { page, popup } = await startRecording(browser, site.url);
  const cdp = await browser.context.newCDPSession(popup);
  const send = await workerSession(cdp);
  for (let i = 0; i < loads; i++) await page.goto(new URL("/gallery", site.url).href);
  await page.goto(site.url);
  await new Promise((r) => setTimeout(r, 1000));
  const told = { bytes: 0, id: null };
  const tab = await browser.context.newCDPSession(page);
  tab.on("Network.responseReceived", (e) => { if (e.response.url.endsWith("/big")) told.id = e.requestId; });
  tab.on("Network.dataReceived", (e) => { if (e.requestId === told.id) told.bytes += e.dataLength; });
  await tab.send("Network.enable");
  const idle = processMemory(browser).ext;
  console.log(`idle: the extension's process ${mb(idle)} MB`);
  const t0 = performance.now();
  const secs = () => ((performance.now() - t0) / 1000).toFixed(1);
  let peak = 0;
  const timer = setInterval(async () => {
    let ext;
    try { ext = processMemory(browser).ext - idle; } catch { return; }
    peak = Math.max(peak, ext);
    const h = await send("Runtime.getHeapUsage");
    const network = told.bytes;
    // routes: the worker's streamed bodies (extension/store.js), a global of its scripts.
    const [wasm, routed] = await browser.sw.evaluate(() => [self.webkeepGo?.mem?.buffer.byteLength ?? NaN,
      [...routes.values()].reduce((n, r) => n + r.size, 0)]).catch(() => [NaN, NaN]);
    console.log(`${secs()} s: process +${mb(ext)} MB; worker's heap ${mb(h.usedSize)} used of ${mb(h.totalSize)}, backing stores ${mb(h.backingStorageSize)}, embedder ${mb(h.embedderHeapUsedSize)}; Go's memory ${mb(wasm)}; body told ${mb(network)} MB, routed ${mb(routed)} MB`);
  }, 200);
  const record = async () => {
    let dumping = null;
    if (dumps) dumping = setInterval(() => cdp.send("Tracing.requestMemoryDump", { levelOfDetail: "background" }).catch(() => {}), 1000);
    try {
      await page.click("#load-big");
      await page.waitForSelector("#load-big[data-done]", { timeout: 600000 });
      console.log(`-- the page has the body at ${secs()} s`);
      const big = new URL("/big", site.url).href;
      await waitArchived((p) => popup.evaluate((p) => fetch(p).then((r) => r.json()), p),
        (r) => r.fields.url === big && r.fields.mime !== "text/plain", "the large body to be archived", 600000);
      console.log(`-- archived at ${secs()} s`);
    } finally {
      clearInterval(dumping);
    }
  };
  if (dumps) {
    const [, events] = await traced(cdp, record, ["disabled-by-default-memory-infra"]);
    console.log(allocatorRows(events).join("\n"));
  } else await record();
  clearInterval(timer);
  console.log(`peak: +${mb(peak)} MB over idle`);
} finally {
  await browser.close();
  site.stop();
}
