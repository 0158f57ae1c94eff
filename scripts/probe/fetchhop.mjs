// What the Fetch domain's hop costs a page's first load, apart from webkeep: a demo
// page loaded in new tabs, in turn, live; with every request paused by the Fetch domain
// and answered from memory (Fetch.fulfillRequest) by a DevTools client in Node
// (Playwright's); and the same by a bare extension's page (chrome.debugger, as
// replay.html answers). The answers are the live site's, fetched once before. Prints
// each way's median load (navigation start to load event), its document's response
// end, and its subresources' time from being asked for to their first byte, and for the
// extension, from being asked for to the page's hearing of the pause, and the
// fulfilment's round trip.
//
//   node scripts/probe/fetchhop.mjs [PATH] [LOADS]    (default / and 21)
//
// EXTRA=page,inspector,autoattach enables those on the tab too, as replay.js does.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { startDemoSite, waitFor } from "../lib/browser.mjs";
import { median } from "../lib/stats.mjs";

const extra = (process.env.EXTRA || "").split(",").filter(Boolean);
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-fetchhop-"));
const ext = path.join(dir, "extension");
mkdirSync(ext);
writeFileSync(path.join(ext, "manifest.json"), JSON.stringify({ manifest_version: 3, name: "fetchhop", version: "1", permissions: ["debugger"], background: { service_worker: "sw.js" } }));
writeFileSync(path.join(ext, "sw.js"), "");
writeFileSync(path.join(ext, "probe.html"), `<!doctype html><script src="probe.js"></script>`);
writeFileSync(path.join(ext, "probe.js"), `
let answers = {}, tab = null;
const seen = [];
chrome.debugger.onEvent.addListener((source, method, p) => {
  // A worker or frame waits for the debugger (auto-attach): let it run; its requests
  // are paused by the tab's Fetch domain.
  if (method === "Target.attachedToTarget") return chrome.debugger.sendCommand({ ...source, sessionId: p.sessionId }, "Runtime.runIfWaitingForDebugger");
  if (method !== "Fetch.requestPaused") return;
  seen.push({ url: p.request.url, paused: performance.timeOrigin + performance.now() });
  const a = answers[p.request.url];
  if (!a) return chrome.debugger.sendCommand(source, "Fetch.continueRequest", { requestId: p.requestId });
  const t0 = performance.now();
  chrome.debugger.sendCommand(source, "Fetch.fulfillRequest", { requestId: p.requestId, responseCode: a.status, responseHeaders: a.headers, body: a.body })
    .then(() => seen.push({ trip: performance.now() - t0 }));
});
self.attach = async (tabId, a, extra) => {
  answers = a; tab = tabId; seen.length = 0;
  const t = { tabId };
  await chrome.debugger.attach(t, "1.3");
  await chrome.debugger.sendCommand(t, "Fetch.enable", { patterns: [{ urlPattern: "*" }] });
  if (extra.includes("page")) await chrome.debugger.sendCommand(t, "Page.enable");
  if (extra.includes("inspector")) await chrome.debugger.sendCommand(t, "Inspector.enable");
  if (extra.includes("autoattach")) await chrome.debugger.sendCommand(t, "Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
};
self.detach = async () => { await chrome.debugger.detach({ tabId: tab }); return seen; };
`);

const site = await startDemoSite();
const context = await chromium.launchPersistentContext(path.join(dir, "profile"), {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: false,
  ignoreDefaultArgs: ["--disable-extensions", "--disable-component-extensions-with-background-pages"],
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-dev-shm-usage", `--disable-extensions-except=${ext}`, `--load-extension=${ext}`],
});
try {
  const sw = await waitFor(() => context.serviceWorkers()[0], "the probe extension's worker");
  const probe = await context.newPage();
  await probe.goto(`chrome-extension://${new URL(sw.url()).host}/probe.html`);
  const url = new URL(process.argv[2] || "/", site.url).href;
  const loads = Number(process.argv[3] || 21);

  // The answers: the page and its resources as the live site serves them.
  const first = await context.newPage();
  await first.goto(url);
  const urls = [...new Set([url, first.url(), ...await first.evaluate(() => performance.getEntriesByType("resource").map((r) => r.name))])];
  await first.close();
  const answers = {};
  for (const u of urls) {
    const res = await fetch(u, { redirect: "manual" });
    const body = Buffer.from(await res.arrayBuffer()).toString("base64");
    const headers = [...res.headers].filter(([k]) => !/^(content-encoding|content-length|transfer-encoding)$/.test(k)).map(([name, value]) => ({ name, value }));
    answers[u] = { status: res.status, headers, body };
  }

  const ways = ["live", "Node's DevTools client", "an extension's page"];
  const got = Object.fromEntries(ways.map((w) => [w, { load: [], docEnd: [], firstByte: [], toPage: [], trip: [] }]));
  for (let i = 0; i < loads; i++) {
    for (const way of ways) {
      const page = await context.newPage();
      const blank = `about:blank#${i}-${ways.indexOf(way)}`;
      await page.goto(blank);
      let cdp = null;
      if (way === ways[1]) {
        cdp = await context.newCDPSession(page);
        cdp.on("Fetch.requestPaused", (p) => {
          const a = answers[p.request.url];
          const sent = a
            ? cdp.send("Fetch.fulfillRequest", { requestId: p.requestId, responseCode: a.status, responseHeaders: a.headers, body: a.body })
            : cdp.send("Fetch.continueRequest", { requestId: p.requestId });
          sent.catch(() => {});
        });
        await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*" }] });
      } else if (way === ways[2]) {
        const tabId = await waitFor(() => sw.evaluate(async (u) => (await chrome.debugger.getTargets()).find((t) => t.url === u)?.tabId, blank), "the tab");
        await probe.evaluate(([t, a, x]) => self.attach(t, a, x), [tabId, answers, extra]);
      }
      await page.goto(url, { waitUntil: "load" });
      const t = await page.evaluate(() => {
        const n = performance.getEntriesByType("navigation")[0];
        return {
          load: n.loadEventStart - n.startTime, docEnd: n.responseEnd - n.startTime, origin: performance.timeOrigin + n.startTime,
          res: performance.getEntriesByType("resource").map((r) => ({ url: r.name, start: r.startTime - n.startTime, firstByte: r.responseStart - r.startTime })),
        };
      });
      const g = got[way];
      g.load.push(t.load);
      g.docEnd.push(t.docEnd);
      g.firstByte.push(...t.res.map((r) => r.firstByte));
      if (way === ways[2]) {
        for (const s of await probe.evaluate(() => self.detach())) {
          if (s.trip !== undefined) g.trip.push(s.trip);
          const r = t.res.find((x) => x.url === s.url);
          if (r) g.toPage.push(s.paused - t.origin - r.start);
        }
      }
      if (cdp) await cdp.detach();
      await page.close();
    }
  }
  const ms = (a) => (a.length ? `${median(a).toFixed(1)} ms` : "-");
  console.log(`${url}, ${loads} first loads of each way, in turn${extra.length ? `; the tab's ${extra.join(", ")} enabled too` : ""}:\n`);
  console.log("| way | load | document's response end | a subresource: asked to first byte | asked to the pause heard | fulfilment's round trip |");
  console.log("|---|---|---|---|---|---|");
  for (const way of ways) {
    const g = got[way];
    console.log(`| ${way} | ${ms(g.load)} | ${ms(g.docEnd)} | ${ms(g.firstByte)} | ${ms(g.toPage)} | ${ms(g.trip)} |`);
  }
} finally {
  await context.close();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
