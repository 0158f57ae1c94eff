// Whether the debugger's Fetch domain names the requests whose reports Chromium drops
// when a page is left as it loads (BENCHMARKS.md, A real web application), and what
// pausing every request costs a page's load. A plain DevTools client (no webkeep) on
// Debian's DokuWiki behind the logging proxy (scripts/lib/dokuwiki.mjs):
//   node scripts/probe/fetchdomain.mjs name [RUNS]   quick navigation with Network and
//     Fetch (request stage, each request continued at once) enabled: the requests known
//     only by their wire headers (Network.requestWillBeSentExtraInfo, never
//     requestWillBeSent), how many of them a Fetch.requestPaused named (networkId), and
//     of how many Network.getResponseBody gives the body once the run is over
//   node scripts/probe/fetchdomain.mjs window [RUNS] the same, Fetch enabled only from the
//     start of each navigation of the tab to half a second after its document commits
//   node scripts/probe/fetchdomain.mjs leaving [RUNS] the same, only for navigations that
//     leave a page before its load event
//   node scripts/probe/fetchdomain.mjs cost [LOADS]  reloads of the page gallery in a
//     tab with Network enabled, one with Network and Fetch, and one with Fetch around
//     navigations, in turn
import { launch } from "../lib/browser.mjs";
import { quickNavigation, startDokuWiki } from "../lib/dokuwiki.mjs";
import { median } from "../lib/stats.mjs";

const [mode = "name", count] = process.argv.slice(2);
const windowMs = Number(process.env.WINDOW_MS ?? 500); // window mode: Fetch kept this long after a commit
const wiki = await startDokuWiki();
const browser = await launch({});
// client opens a tab with a DevTools session of its own, Network enabled as webkeep's
// recorder enables it (durable messages on), and Fetch as kind says: "network" never,
// "fetch" always, "window" from the start of each navigation of the main frame to
// WINDOW_MS after its document commits, "leaving" the same but only for a navigation
// that leaves a page before its load event. Each paused request is continued at once, and
// its URL put in named under its networkId.
const client = async (kind, named = new Map()) => {
  const page = await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send("Network.enable", { maxTotalBufferSize: 256 << 20, maxResourceBufferSize: 64 << 20, enableDurableMessages: true });
  cdp.on("Fetch.requestPaused", (p) => {
    if (p.networkId) named.set(p.networkId, p.request.url);
    cdp.send("Fetch.continueRequest", { requestId: p.requestId }).catch(() => {});
  });
  const enable = () => cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  if (kind === "fetch") await enable();
  if (kind === "window" || kind === "leaving") {
    const main = (await cdp.send("Page.getFrameTree")).frameTree.frame.id;
    let off = null;
    let loaded = true; // the main frame's document has had its load event
    cdp.on("Page.frameStartedNavigating", (p) => {
      if (p.frameId !== main || (kind === "leaving" && loaded)) return;
      clearTimeout(off);
      enable().catch(() => {});
    });
    cdp.on("Page.frameNavigated", (p) => {
      if (p.frame.parentId) return;
      loaded = false;
      clearTimeout(off);
      off = setTimeout(() => cdp.send("Fetch.disable").catch(() => {}), windowMs);
    });
    cdp.on("Page.loadEventFired", () => { loaded = true; });
    await cdp.send("Page.enable");
  }
  return { page, cdp };
};
try {
  if (mode === "name" || mode === "window" || mode === "leaving") {
    for (let run = 0; run < Number(count || 3); run++) {
      const reported = new Set(), wired = new Set(), named = new Map();
      const { page, cdp } = await client(mode === "name" ? "fetch" : mode, named);
      cdp.on("Network.requestWillBeSent", (p) => reported.add(p.requestId));
      cdp.on("Network.requestWillBeSentExtraInfo", (p) => wired.add(p.requestId));
      const from = wiki.wire().length;
      await quickNavigation(page, wiki.url);
      await new Promise((r) => setTimeout(r, 1500));
      const dropped = [...wired].filter((id) => !reported.has(id));
      let bodies = 0;
      for (const id of dropped) {
        if (await cdp.send("Network.getResponseBody", { requestId: id }).then(() => true, () => false)) bodies++;
      }
      console.log(`run ${run + 1}: ${wiki.wire().length - from} exchanges on the wire; ${dropped.length} requests known only by their wire headers, ${dropped.filter((id) => named.has(id)).length} of them named by Fetch.requestPaused; Network.getResponseBody gave the body of ${bodies}`);
      await page.close();
    }
  } else {
    const url = new URL("doku.php?id=gallery", wiki.url).href;
    const tabs = { network: await client("network"), fetch: await client("fetch"), window: await client("window"), leaving: await client("leaving") };
    const times = { network: [], fetch: [], window: [], leaving: [] };
    for (const t of Object.values(tabs)) await t.page.goto(url, { waitUntil: "load" });
    const loads = Number(count || 21);
    for (let i = 0; i < loads; i++) {
      for (const kind of i % 2 ? ["leaving", "window", "fetch", "network"] : ["network", "fetch", "window", "leaving"]) {
        await tabs[kind].page.bringToFront();
        const t0 = performance.now();
        await tabs[kind].page.reload({ waitUntil: "load" });
        times[kind].push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 300));
      }
    }
    const [a, b, c, d] = ["network", "fetch", "window", "leaving"].map((k) => median(times[k]));
    console.log(`the page gallery's reload (median of ${loads} each): Network only ${a.toFixed(0)} ms; Network and Fetch ${b.toFixed(0)} ms, ${(b / a).toFixed(2)}x; Fetch around navigations (${windowMs} ms after the commit) ${c.toFixed(0)} ms, ${(c / a).toFixed(2)}x; Fetch around navigations that leave a page before its load event ${d.toFixed(0)} ms, ${(d / a).toFixed(2)}x`);
  }
} finally {
  await browser.close();
  wiki.stop();
}
