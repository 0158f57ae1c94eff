// Can replay give a page a body as a stream? Tries every route an extension has to
// answer a page's request with a body it does not hand over whole in one DevTools
// message. A copy of the built extension gets a service worker handler that streams
// /stream, a web-accessible file, and the declarativeNetRequest permission; a page on
// 127.0.0.1 then requests /big three or four ways (fetch in cors and no-cors mode, a
// <video>, an iframe's navigation), and each request is sent on:
//   - Fetch.continueRequest with its URL replaced by the extension's /stream (its
//     service worker's stream) or its file (to tell a refused scheme from a worker
//     that is not asked);
//   - Fetch.continueRequest to a blob: URL made in the page's own origin, or to a
//     data: URL;
//   - a declarativeNetRequest session rule of the tab redirecting it to the
//     extension's /stream or its file.
// Prints one line per route and way: what the page got, and whether the request
// reached the network instead (it must not).
//
//   node scripts/probe/streamroute.mjs [BYTES]
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, startTrapSite, tabId } from "../lib/browser.mjs";

const n = Number(process.argv[2] || 5e6);
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-streamroute-"));
cpSync(extensionDir, dir, { recursive: true });
appendFileSync(path.join(dir, "sw.js"), `
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.pathname !== "/stream") return;
  const n = Number(url.searchParams.get("n")), chunk = new Uint8Array(1 << 20).fill(120);
  let sent = 0;
  const body = new ReadableStream({ pull(c) { if (sent >= n) return c.close(); const k = Math.min(chunk.length, n - sent); c.enqueue(chunk.subarray(0, k)); sent += k; } });
  event.respondWith(new Response(body, { headers: { "Content-Type": "application/octet-stream", "Access-Control-Allow-Origin": "*" } }));
});
`);
writeFileSync(path.join(dir, "file"), "from the extension's file");
const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
manifest.web_accessible_resources = [{ resources: ["stream", "file"], matches: ["<all_urls>"] }];
manifest.permissions.push("declarativeNetRequestWithHostAccess");
manifest.host_permissions = ["<all_urls>"];
writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));

const site = await startTrapSite("<p>probe</p>");
const { base, reached } = site;
const browser = await launch({ extension: dir });
try {
  const page = await browser.context.newPage();
  await page.goto(base + "/");
  const tab = await tabId(browser.sw, base + "/");
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("archive.html"));
  const ways = {
    "fetch()": `fetch("/big?ROUTE").then(async (r) => r.status + ", " + (await r.arrayBuffer()).byteLength + " bytes", (e) => String(e))`,
    "fetch(), no-cors": `fetch("/big?ROUTE", { mode: "no-cors" }).then(async (r) => r.type + " " + r.status + ", " + (await r.arrayBuffer()).byteLength + " bytes", (e) => String(e))`,
    "iframe": `new Promise((resolve) => { const f = document.createElement("iframe"); f.src = "/big?ROUTE"; f.onload = () => { let t; try { t = f.contentDocument ? "loaded, " + f.contentDocument.body.innerText.length + " characters" : "loaded (cross-origin)"; } catch (e) { t = "loaded (cross-origin)"; } resolve(t); }; setTimeout(() => resolve("no load in 5 s"), 5000); document.body.append(f); })`,
    "video": `new Promise((resolve) => { const v = document.createElement("video"); v.src = "/big?ROUTE"; v.onerror = () => resolve("error " + (v.error && v.error.code)); v.onloadedmetadata = () => resolve("metadata"); setTimeout(() => resolve("nothing in 5 s"), 5000); document.body.append(v); })`,
  };
  const routes = [
    "continueRequest to the extension's stream", "continueRequest to the extension's file",
    "continueRequest to a blob: URL", "continueRequest to a data: URL",
    "declarativeNetRequest redirect to the extension's stream", "declarativeNetRequest redirect to the extension's file",
  ];
  for (const [i, route] of routes.entries()) {
    for (const [way, expr] of Object.entries(ways)) {
      const before = reached.length;
      const out = await ext.evaluate(async ([tabId, expr, route, n]) => {
        const t = { tabId };
        const to = route.endsWith("stream") ? chrome.runtime.getURL("stream?n=" + n) : chrome.runtime.getURL("file");
        const redirect = route.startsWith("declarativeNetRequest");
        if (redirect) {
          await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: [1], addRules: [{ id: 1, priority: 1, action: { type: "redirect", redirect: { url: to } }, condition: { urlFilter: "/big", tabIds: [tabId] } }] });
        }
        await chrome.debugger.attach(t, "1.3");
        const seen = [];
        const on = async (src, method, params) => {
          if (src.tabId !== tabId || method !== "Fetch.requestPaused") return;
          seen.push(params.resourceType);
          let url = to;
          if (route.includes("blob:")) {
            const r = await chrome.debugger.sendCommand(t, "Runtime.evaluate", { expression: `URL.createObjectURL(new Blob([new Uint8Array(${n})]))`, returnByValue: true });
            url = r.result.value;
          } else if (route.includes("data:")) url = "data:application/octet-stream;base64,aGVsbG8=";
          await chrome.debugger.sendCommand(t, "Fetch.continueRequest", { requestId: params.requestId, url }).catch((e) => seen.push("continueRequest: " + e.message));
        };
        chrome.debugger.onEvent.addListener(on);
        if (!redirect) await chrome.debugger.sendCommand(t, "Fetch.enable", { patterns: [{ urlPattern: "*/big*" }] });
        const r = await chrome.debugger.sendCommand(t, "Runtime.evaluate", { expression: expr, awaitPromise: true, returnByValue: true });
        chrome.debugger.onEvent.removeListener(on);
        await chrome.debugger.detach(t);
        await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: [1] });
        return { got: r.result.value, seen };
      }, [tab, expr.replace("ROUTE", String(i)), route, n]);
      const paused = out.seen.length ? `; paused: ${out.seen.join(", ")}` : "";
      console.log(`${way}, ${route}: the page got ${out.got}${paused}; reached the network: ${reached.length > before ? "yes" : "no"}`);
    }
  }
} finally {
  await browser.close();
  site.close();
  rmSync(dir, { recursive: true, force: true });
}
