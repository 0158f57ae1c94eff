// Replays a page whose <script src> is BYTES long in webkeep and measures it: over
// 64 MiB the script gets webkeep's loader in its place (shared/replay/loader.go),
// which reads it by Range, 512 KiB at a time, and runs it where it stood. The page's
// script after it checks what it declared; the reads are timed from the page's
// resource timing (the loader's requests), the whole from the page's own clock, and
// the resident memory of the extension's process and of the whole browser is sampled
// every 50 ms. The same page is first loaded live, from a server on 127.0.0.1, as the
// measure to compare with; then replayed from the team archive (the Worker in workerd
// through miniflare), a second line.
//
//   node scripts/probe/replay-script.mjs BYTES
import http from "node:http";
import { launch, peakMemory } from "../lib/browser.mjs";
import { importWARC, niceWorkerd, openReplay, openTeamReplay, uploadToTeam } from "../lib/replay.mjs";
import { startWorker } from "../test/worker/harness.mjs";

const TOKEN = "probe-script-token";

const size = Number(process.argv[2] || 100 << 20);
const head = "globalThis.seen = [];\nconst DATA = \"";
const tail = "\";\nseen.push(DATA.length);\n";
const script = new Uint8Array(size);
script.set(new TextEncoder().encode(head));
script.fill(0x61, head.length, size - tail.length); // "aaaa..."
script.set(new TextEncoder().encode(tail), size - tail.length);
const length = size - head.length - tail.length;
const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
const page = `<p id=t>script</p><script>performance.setResourceTimingBufferSize(100000); window.t0 = performance.now();</script><script src="/big.js"></script><script>window.took = performance.now() - t0; window.ok = seen[0] === ${length} && DATA.length === ${length};</script>`;
const browser = await launch();
const server = http.createServer((req, res) => {
  const js = req.url === "/big.js";
  res.writeHead(200, { "Content-Type": js ? "text/javascript" : "text/html" });
  res.end(js ? script : page);
}).listen(0, "127.0.0.1");
try {
  await new Promise((resolve) => server.once("listening", resolve));
  const tab = await browser.context.newPage();
  await tab.goto(`http://127.0.0.1:${server.address().port}/`, { timeout: 600_000 });
  const live = await tab.evaluate(() => (window.ok ? window.took : undefined));
  await tab.close();
  const id = await importWARC(browser, "script.warc.gz", [
    ["http://script.example/", "text/html", new TextEncoder().encode('<p id=t>start</p><a id=go href="/page">page</a>')],
    ["http://script.example/page", "text/html", new TextEncoder().encode(page)],
    ["http://script.example/big.js", "text/javascript", script],
  ]);
  console.log(await measure(() => openReplay(browser, id, "http://script.example/"), `script of ${size} bytes`, ` live in ${live === undefined ? "(not run)" : `${Math.round(live)} ms`};`));
  // From the team archive: the session uploaded to the Worker in workerd through
  // miniflare on 127.0.0.1 (at the lowest priority, as it does not run on the user's
  // machine), the loader's reads answered from the bundle in R2.
  const mf = startWorker({ WEBKEEP_TOKENS: `probe:${TOKEN}` });
  try {
    await uploadToTeam(browser, (await mf.ready).href, TOKEN, [id], { allowSite: true });
    niceWorkerd();
    console.log(await measure(() => openTeamReplay(browser, "http://script.example/"), `script of ${size} bytes from the team archive`, ""));
  } finally {
    await mf.dispose();
  }
} finally {
  server.close();
  await browser.close();
}

// measure opens a replay (open) at the start page, follows its link to the page that
// runs the script, and says in a line, after label (and more after the times), what it
// took (from the page's clock; the reads from its resource timing) and the memory at
// the peak.
async function measure(open, label, more) {
  const r = await open();
  try {
    // The page that runs the script is followed to once the replay runs.
    const { before, peak, result: got } = await peakMemory(browser, async () => {
      await r.page.click("#go");
      for (let i = 0; i < 6000 && !(await r.page.evaluate(() => window.took !== undefined).catch(() => false)); i++) await new Promise((res) => setTimeout(res, 100));
      return r.page.evaluate(() => {
        const reads = performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/big.js") && e.initiatorType === "xmlhttprequest");
        return { took: window.took, ok: window.ok, reads: reads.length, read: reads.length ? reads.at(-1).responseEnd - reads[0].startTime : 0 };
      });
    });
    const withheld = await r.bar.textContent("#replay-withheld-count");
    return got.took === undefined || !got.ok
      ? `${label}: NOT run (${JSON.stringify(got)}; withheld ${withheld})`
      : `${label}: read and run in ${Math.round(got.took)} ms (read in ${Math.round(got.read)} ms by ${got.reads} requests, ${(size / 1e6 / (got.read / 1000)).toFixed(1)} MB/s; run in ${Math.round(got.took - got.read)} ms),${more} the extension's process ${mb(before.ext)} before, ${mb(peak.ext)} at the peak; the whole browser ${mb(before.all)} before, ${mb(peak.all)} at the peak`;
  } finally {
    await r.close();
  }
}
