// Benchmarks against a real web application (Debian's DokuWiki behind the logging proxy,
// scripts/lib/dokuwiki.mjs), printed as a markdown section for BENCHMARKS.md: the
// page-load ratio recording on/off on its heaviest page (a gallery of hundreds of
// uploaded images), what one recorded load of it asks of the server, and the share of
// the exchanges on the wire that a quick-navigation run's archive holds.
//
//   node scripts/bench/realsite.mjs [--loads N] [--runs N]
import { launch } from "../lib/browser.mjs";
import { galleryImages, quickNavigation, startDokuWiki } from "../lib/dokuwiki.mjs";
import { floorDir, measureTabs, settle } from "../lib/pageload.mjs";
import { median, ratio } from "../lib/stats.mjs";
import { recordAgainstWire, unreportedRequests, wireQuiet } from "../lib/wire.mjs";

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const loads = arg("--loads", 61);
const runs = arg("--runs", 3);
const pct = (n, of) => `${((100 * n) / of).toFixed(1)}%`;

const wiki = await startDokuWiki();
const browser = await launch({ extra: [floorDir] });
const floorId = new URL(browser.extraWorkers[0].url()).host;
const rows = [], quick = [];
try {
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("popup.html"));
  const url = new URL("doku.php?id=gallery", wiki.url).href;

  // How many requests one load of the page makes, counted on the wire.
  const probe = await browser.context.newPage();
  await probe.goto(url);
  await wireQuiet(wiki);
  const before = wiki.wire().length;
  await probe.goto(url, { waitUntil: "load" });
  await wireQuiet(wiki);
  const requests = wiki.wire().length - before;
  await probe.close();

  const [[off, base, on], recorded] = await measureTabs(browser, ext, url, floorId, loads);
  // What one more load of the recorded tab asks of the server, counted on the wire.
  await wireQuiet(wiki);
  const from = wiki.wire().length;
  await recorded.goto(url, { waitUntil: "load" });
  await wireQuiet(wiki);
  const statuses = {};
  for (const w of wiki.wire().slice(from)) statuses[w.status] = (statuses[w.status] || 0) + 1;
  await ext.evaluate(() => fetch("/api/record/stop", { method: "POST" }));
  await recorded.close();
  rows.push([`page load, recording off (DokuWiki's page gallery: ${galleryImages} uploaded images, ${requests} requests in all)`, `${median(off).toFixed(1)} ms`, `median of ${loads}; loads alternate with the other two tabs', ${settle} ms apart`]);
  rows.push(["page load, DevTools floor (the debugger attached as webkeep attaches it, nothing recorded)", `${median(base).toFixed(1)} ms`, `median of ${loads}; ratio to off ${ratio(base, off)}`]);
  rows.push(["page load, recording on", `${median(on).toFixed(1)} ms`, `median of ${loads}; ratio to the floor ${ratio(on, base)}`]);
  rows.push(["ratio on/off (target <= 1.3)", ratio(on, off), "ratio of the medians; the interval by resampling the loads"]);
  rows.push(["one load of the recorded tab, on the wire", `${Object.values(statuses).reduce((a, b) => a + b, 0)} exchanges`, `by status: ${Object.entries(statuses).map(([k, n]) => `${n} x ${k}`).join(", ")} (the rest of the page's requests answered by the browser's cache)`]);

  for (let i = 0; i < runs; i++) {
    const { report, info } = await recordAgainstWire(browser, ext, wiki, (page) => quickNavigation(page, wiki.url));
    const marked = Object.values(report.marked).reduce((a, b) => a + b, 0);
    const unheard = report.missing.length - report.missingHeard.reduce((a, m) => a + m.beyond, 0);
    for (const m of report.missingHeard) console.error(`bench-realsite: missing, though told to the plain DevTools client: ${JSON.stringify(m)}`);
    for (const u of report.unmarked) console.error(`bench-realsite: an unmarked difference: ${JSON.stringify(u)}`);
    const cachedMarked = Object.values(report.cachedMarked).reduce((a, b) => a + b, 0);
    quick.push([i + 1, report.wire, `${report.exact} (${pct(report.exact, report.wire)}; ${report.revalidated} of them 304s)`, `${marked} (${pct(marked, report.wire)})`,
      `${pct(report.exact + marked, report.wire)}`, `${report.missing.length} (${unheard} never told to a plain DevTools client)`, unreportedRequests(info).count, report.unmarked.length,
      `${report.cached} / ${cachedMarked}`, report.extra.length]);
  }
} finally {
  await browser.close();
  wiki.stop();
}

console.log("## A real web application: DokuWiki (Debian's package) behind a logging proxy\n");
console.log(`\`node scripts/bench/realsite.mjs --loads ${loads} --runs ${runs}\` (headless Debian Chromium, the real extension; DokuWiki served by \`php -S\` on 127.0.0.1 behind scripts/tools/wireproxy)\n`);
console.log("| measure | value | notes |\n| --- | --- | --- |");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
console.log("\nQuick navigation (scripts/lib/dokuwiki.mjs `quickNavigation`: 21 pages, each left as soon as its navigation commits, the last let load), each run a session of its own, compared with the proxy's log (scripts/lib/wire.mjs):\n");
console.log("| run | exchanges on the wire | archived byte-exact | archived marked | archived in all | missing | requests the browser left unreported to webkeep (the session's note) | unmarked differences | served from the browser's cache, never on the wire: archived with a body the wire carried / marked | archived, never on the wire (cancelled before sent) |\n|---|---|---|---|---|---|---|---|---|---|");
for (const q of quick) console.log(`| ${q.join(" | ")} |`);
