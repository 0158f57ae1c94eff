// Can replay give a page a body as a stream? Tries the route issue "replay any size"
// names: Fetch.continueRequest with the request's URL replaced by one of the
// extension's own, answered by its service worker as a stream (or, to tell a refused
// scheme from a service worker that is not asked, by a web-accessible file). A copy
// of the built extension gets the handler and the file; a page on 127.0.0.1 then
// requests /big in four ways (fetch in cors and no-cors mode, an iframe's navigation,
// a <video>), each paused by the Fetch domain and continued to the extension's URL.
// Prints one line per way: what the page got, and whether the request reached the
// network instead (it must not).
//
//   node scripts/probe/streamroute.mjs [BYTES]
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, tabId } from "../lib/browser.mjs";

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
writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));

const reached = [];
const server = createServer((req, res) => {
  if (req.url === "/") { res.writeHead(200, { "Content-Type": "text/html" }); res.end("<p>probe</p>"); return; }
  reached.push(req.url);
  res.writeHead(500); res.end("reached the network");
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await launch({ extension: dir });
try {
  const page = await browser.context.newPage();
  await page.goto(base + "/");
  const tab = await tabId(browser.sw, base + "/");
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("archive.html"));
  const ways = {
    "fetch()": `fetch("/big?WHERE").then(async (r) => r.status + ", " + (await r.arrayBuffer()).byteLength + " bytes", (e) => String(e))`,
    "fetch(), no-cors": `fetch("/big?WHERE", { mode: "no-cors" }).then(async (r) => r.type + " " + r.status + ", " + (await r.arrayBuffer()).byteLength + " bytes", (e) => String(e))`,
    "iframe": `new Promise((resolve) => { const f = document.createElement("iframe"); f.src = "/big?WHERE"; f.onload = () => { let t; try { t = f.contentDocument ? "loaded, " + f.contentDocument.body.innerText.length + " characters" : "loaded (cross-origin)"; } catch (e) { t = "loaded (cross-origin)"; } resolve(t); }; setTimeout(() => resolve("no load in 5 s"), 5000); document.body.append(f); })`,
    "video": `new Promise((resolve) => { const v = document.createElement("video"); v.src = "/big?WHERE"; v.onerror = () => resolve("error " + (v.error && v.error.code)); v.onloadedmetadata = () => resolve("metadata"); setTimeout(() => resolve("nothing in 5 s"), 5000); document.body.append(v); })`,
  };
  for (const target of ["stream?n=" + n, "file"]) {
    for (const [way, expr] of Object.entries(ways)) {
      const before = reached.length;
      const out = await ext.evaluate(async ([tabId, expr, to]) => {
        const t = { tabId };
        await chrome.debugger.attach(t, "1.3");
        const seen = [];
        const on = async (src, method, params) => {
          if (src.tabId !== tabId || method !== "Fetch.requestPaused") return;
          seen.push(params.resourceType);
          await chrome.debugger.sendCommand(t, "Fetch.continueRequest", { requestId: params.requestId, url: chrome.runtime.getURL(to) }).catch((e) => seen.push("continueRequest: " + e.message));
        };
        chrome.debugger.onEvent.addListener(on);
        await chrome.debugger.sendCommand(t, "Fetch.enable", { patterns: [{ urlPattern: "*/big*" }] });
        const r = await chrome.debugger.sendCommand(t, "Runtime.evaluate", { expression: expr, awaitPromise: true, returnByValue: true });
        chrome.debugger.onEvent.removeListener(on);
        await chrome.debugger.detach(t);
        return { got: r.result.value, seen };
      }, [tab, expr.replace("WHERE", target.split("?")[0]), target]);
      console.log(`${way} continued to the extension's ${target.split("?")[0]}: the page got ${out.got}; paused: ${out.seen.join(", ")}; reached the network: ${reached.length > before ? "yes" : "no"}`);
    }
  }
} finally {
  await browser.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
