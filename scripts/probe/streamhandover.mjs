// How fast can a large body pass from the extension to a replayed page's script, and
// by which route? A body of BYTES (imported in segments of no given length, so that a
// replay offers it as a stream) is read by the page whole, three ways, and what each
// way costs is looked at:
//   - the replay's route: the page's fetch(), each chunk a DevTools message from the
//     bar (extension/replay-stream.js);
//   - an extension frame in the page at its web-accessible URL that changes with each
//     browser session (use_dynamic_url), reading the archive's file route and handing
//     the page the body as a transferred ReadableStream; then whether the replay's
//     debugger is still attached to the tab, and what the replay's bar says then;
//   - whether a page outside any replay can load the frame at the extension's own
//     URL, were it web-accessible there (then any site could tell the extension is
//     installed), and whether the replay's debugger stays as such a frame loads;
//   - an extension page that opened the page's tab with window.open(), posting the
//     body, read from the file route, to that window (a live page on 127.0.0.1 here);
//     then what such a tab costs a page against one made by chrome.tabs.create, as
//     the replay makes its tab: whether the page sees an opener, whether the posting
//     still reaches the tab once its page hid the opener and it went to another site,
//     whether going back restores the page from the back-forward cache, and whether a
//     page sent with Cross-Origin-Opener-Policy cuts the link.
// A copy of the built extension gets the frame for each frame route.
//
//   node scripts/probe/streamhandover.mjs [BYTES]
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, startTrapSite } from "../lib/browser.mjs";
import { importWARC, openReplay } from "../lib/replay.mjs";

const size = Number(process.argv[2] || 100 << 20);
const body = new Uint8Array(size);
for (let i = 0; i < size; i += 4096) body[i] = i & 255;
const records = [
  ["http://big.example/", "text/html", "<p id=t>big</p>"],
  ["http://big.example/big", "application/octet-stream", body, true],
];
const file = (id) => `/api/replay/${encodeURIComponent(id)}/file?url=${encodeURIComponent("http://big.example/big")}&ts=`;
const rate = (ms) => `${Math.round(ms)} ms, ${(size / 1e6 / (ms / 1000)).toFixed(1)} MB/s`;
// The page's reading, each byte checked (as scripts/probe/replay-big.mjs).
const check = `async (body) => {
  const reader = body.getReader();
  let n = 0, wrong = -1;
  for (let c = await reader.read(); !c.done; c = await reader.read()) {
    for (let i = 0; i < c.value.length && wrong < 0; i++) if (c.value[i] !== ((n + i) % 4096 ? 0 : (n + i) & 255)) wrong = n + i;
    n += c.value.length;
  }
  return wrong < 0 ? n + " bytes (each as imported)" : n + " bytes, byte " + wrong + " NOT as imported";
}`;

// A copy of the extension with a web-accessible frame that reads what the page names.
function withFrame(dynamic) {
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-handover-"));
  cpSync(extensionDir, dir, { recursive: true });
  writeFileSync(path.join(dir, "frame.html"), '<!doctype html><meta charset="utf-8"><script src="frame.js"></script>');
  writeFileSync(path.join(dir, "frame.js"), `addEventListener("message", async (e) => {
  const res = await fetch(chrome.runtime.getURL(e.data.file));
  e.ports[0].postMessage({ body: res.body }, [res.body]);
});`);
  const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
  manifest.web_accessible_resources = [{ resources: ["frame.html"], matches: ["http://*/*", "https://*/*"], use_dynamic_url: dynamic }];
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));
  return dir;
}

async function replayRoute() {
  const browser = await launch({});
  try {
    const id = await importWARC(browser, "big.warc.gz", records);
    const r = await openReplay(browser, id, "http://big.example/");
    const t0 = Date.now();
    const got = await r.page.evaluate(`fetch("/big").then((res) => (${check})(res.body))`);
    console.log(`the replay's route (DevTools, a message a MiB): ${got} in ${rate(Date.now() - t0)}`);
  } finally {
    await browser.close();
  }
}

async function frameRoute(dynamic) {
  const dir = withFrame(dynamic);
  const site = await startTrapSite("<p>live</p>");
  const browser = await launch({ extension: dir });
  try {
    // First, before any replay: can a page outside one load the frame at the
    // extension's own URL?
    const live = await browser.context.newPage();
    await live.goto(site.base + "/");
    const seen = await live.evaluate((url) => fetch(url).then((res) => `loads it (${res.status})`, () => "cannot load it"), browser.page("frame.html"));
    await live.close();
    const id = await importWARC(browser, "big.warc.gz", records);
    const r = await openReplay(browser, id, "http://big.example/");
    const frame = await r.bar.evaluate(() => chrome.runtime.getURL("frame.html"));
    const t0 = Date.now();
    // Read in the page through Playwright's own session for the frame at the session's
    // URL (the bar's debugger goes as the frame loads), through the bar's otherwise.
    const read = `(async () => {
      const f = document.createElement("iframe");
      f.src = ${JSON.stringify(frame)};
      f.style.display = "none";
      await new Promise((resolve) => { f.onload = resolve; document.body.append(f); });
      const { port1, port2 } = new MessageChannel();
      const answer = new Promise((resolve) => { port1.onmessage = (e) => resolve(e.data.body); });
      f.contentWindow.postMessage({ file: ${JSON.stringify(file(id))} }, "*", [port2]);
      return (${check})(await answer);
    })()`;
    const got = dynamic ? `${await r.page.evaluate(read).catch((e) => `failed: ${e.message.split("\n")[0]}`)} in ${rate(Date.now() - t0)}`
      : await r.evaluate(new Function(`const f = document.createElement("iframe");
        f.src = ${JSON.stringify(frame)};
        return new Promise((resolve) => { f.onload = () => resolve("loaded"); document.body.append(f); setTimeout(() => resolve("not loaded in 10 s"), 10000); });`), 15)
        .catch((e) => `failed: ${e.message.split("\n")[0]}`);
    const attached = await r.evaluate(() => location.href, 5).then(() => "still attached", (e) => `gone (${e.message.split("\n")[0]})`);
    const state = await r.bar.textContent("#state");
    console.log(`an extension frame at ${dynamic ? "its URL of the session" : "the extension's own URL"}: ${got}; the replay's debugger ${attached}; the bar: "${state}"; a live page at the extension's own URL ${seen}`);
  } finally {
    await browser.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function openerRoute() {
  const site = await startTrapSite(`<script>window.got = new Promise((resolve) => addEventListener("message", (e) => {
    if (e.data?.body) resolve((${check})(e.data.body));
  }));</script>`);
  const browser = await launch({});
  try {
    const id = await importWARC(browser, "big.warc.gz", records);
    const ext = await browser.context.newPage();
    await ext.goto(browser.page("archive.html"));
    const opened = browser.context.waitForEvent("page");
    await ext.evaluate((url) => { globalThis.opened = window.open(url); }, site.base + "/");
    const page = await opened;
    await page.waitForLoadState("load");
    const t0 = Date.now();
    await ext.evaluate(async (file) => {
      const res = await fetch(file);
      opened.postMessage({ body: res.body }, "*", [res.body]);
    }, file(id));
    const got = await page.evaluate(() => window.got);
    console.log(`posted by the extension page that opened the tab: ${got} in ${rate(Date.now() - t0)}`);
  } finally {
    await browser.close();
    await site.close();
  }
}

// openerCosts compares a tab the bar opens with window.open() to one it makes with
// chrome.tabs.create, each attached and navigated by DevTools, as a replay's is.
async function openerCosts() {
  const server = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html", ...(req.url === "/coop" ? { "Cross-Origin-Opener-Policy": "same-origin" } : {}) });
    res.end('<!doctype html><script>window.got = []; addEventListener("message", (e) => window.got.push(typeof e.data), true);</script>');
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const browser = await launch({ bfcache: true });
  try {
    const ext = await browser.context.newPage();
    await ext.goto(browser.page("archive.html"));
    for (const how of ["chrome.tabs.create", "window.open()"]) {
      const seen = await ext.evaluate(async ([how, port]) => {
        const seen = [];
        const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
        let tabId;
        let opened = null;
        if (how === "chrome.tabs.create") tabId = (await chrome.tabs.create({ url: "about:blank" })).id;
        else {
          const self = (await chrome.tabs.getCurrent()).id;
          const created = new Promise((resolve) => chrome.tabs.onCreated.addListener(function made(tab) {
            if (tab.openerTabId !== self) return; // another (the keeper's page, say)
            chrome.tabs.onCreated.removeListener(made);
            resolve(tab);
          }));
          opened = window.open("about:blank");
          tabId = (await created).id;
        }
        const t = { tabId };
        await chrome.debugger.attach(t, "1.3");
        const run = (expression) => chrome.debugger.sendCommand(t, "Runtime.evaluate", { expression, returnByValue: true }).then((r) => r.result.value);
        const go = async (url) => {
          await chrome.debugger.sendCommand(t, "Page.navigate", { url });
          await wait(800);
        };
        const posted = async () => {
          const s = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(3)); c.close(); } });
          opened.postMessage({ s }, "*", [s]);
          await wait(300);
          return (await run("window.got.length")) > 0 ? "reaches it" : `does not reach it (the window ${opened.closed ? "closed" : "open"} to the bar)`;
        };
        await go(`http://127.0.0.1:${port}/a`);
        seen.push(`an opener ${await run("window.opener !== null")}`);
        await run("window.kept = 1; window.opener = null");
        if (opened) seen.push(`posting with the opener hidden ${await posted()}`);
        await go(`http://localhost:${port}/b`);
        if (opened) seen.push(`on another site ${await posted()}`);
        await run("history.back()");
        await wait(1000);
        seen.push(`back, from the back-forward cache ${await run("window.kept === 1")}`);
        if (opened) {
          await go(`http://127.0.0.1:${port}/coop`);
          seen.push(`to a page with Cross-Origin-Opener-Policy ${await posted()}`);
        }
        await chrome.debugger.detach(t).catch(() => {});
        await chrome.tabs.remove(tabId);
        return seen;
      }, [how, server.address().port]).catch((e) => [`failed: ${e.message.split("\n")[0]}`]);
      console.log(`a tab made by ${how}: ${seen.join("; ")}`);
    }
  } finally {
    await browser.close();
    server.close();
  }
}

await replayRoute();
await frameRoute(true);
await frameRoute(false);
await openerRoute();
await openerCosts();
