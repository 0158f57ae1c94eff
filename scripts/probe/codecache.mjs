// Does Chromium keep V8's compiled code of the kept core (Cache Storage) once the core has
// done real work? Wakes the worker N times, records the demo site through the extension
// (the gallery and the forms, which run most of the core), waits, then wakes it N times
// again; prints each wake's "core read, compiled, instantiated" step and the size of the
// profile's Cache Storage before and after.
//   node scripts/probe/codecache.mjs [N]
import { execSync } from "node:child_process";
import { browseDemo, launch, startDemoSite, startRecording, waitFor } from "../lib/browser.mjs";

const n = Number(process.argv[2] || 7);
const site = await startDemoSite();
const browser = await launch();
const page = await browser.context.newPage();
await page.goto(browser.page("style.css"));
const cdp = await browser.context.newCDPSession(page);
let status = "running";
cdp.on("ServiceWorker.workerVersionUpdated", (e) => { for (const v of e.versions) status = v.runningStatus; });
await cdp.send("ServiceWorker.enable");
const du = () => execSync(`du -sk "${browser.userDataDir}/Default/Service Worker/CacheStorage" 2>/dev/null || echo 0`).toString().trim().split(/\s/)[0];
async function wake() {
  await cdp.send("ServiceWorker.stopAllWorkers");
  await waitFor(() => status === "stopped", "stop");
  await new Promise((r) => setTimeout(r, 300));
  const [t0, t1] = await page.evaluate(async () => {
    const t0 = performance.timeOrigin + performance.now();
    await (await fetch("/api/status")).json();
    return [t0, performance.timeOrigin + performance.now()];
  });
  const m = await browser.sw.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((x) => [x.name, x.startTime])));
  return { total: Math.round(t1 - t0), core: Math.round(m["webkeep: instantiated"] - m["webkeep: scripts"]), init: Math.round(m["webkeep: main"] - m["webkeep: instantiated"]) };
}
const series = async (label) => {
  const xs = [];
  for (let i = 0; i < n; i++) xs.push(await wake());
  const med = (k) => xs.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(label, "cache KB", du(), "median total", med("total"), "core", med("core"), "init", med("init"), JSON.stringify(xs.map((x) => x.core)));
};
await wake(); // the first start keeps the core
await series("before work");
for (let round = 0; round < 3; round++) {
  const { page: tab, popup } = await startRecording(browser, site.url);
  await browseDemo(tab, site.url, process.argv[1]);
  await popup.evaluate(async () => (await fetch("/api/record/stop", { method: "POST" })).json());
  await tab.close(); await popup.close();
  await new Promise((r) => setTimeout(r, 5000));
  await series(`after recording ${round + 1}`);
}
await browser.close();
site.stop();
