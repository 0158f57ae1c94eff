// A user's session on a second real web application, Debian's MediaWiki
// (scripts/lib/mediawiki.mjs), recorded through the real extension and compared with
// the logging proxy's wire (scripts/lib/wire.mjs), then replayed in webkeep: what
// scripts/test/e2e/realsite.test.mjs does with DokuWiki, which make test runs. MediaWiki is
// not installed by scripts/setup.sh: apt-get install --no-install-recommends
// mediawiki php-sqlite3 first.
//
//   node scripts/probe/mediawiki.mjs [--runs N]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch } from "../lib/browser.mjs";
import { mediaWikiSession, startMediaWiki } from "../lib/mediawiki.mjs";
import { png } from "../lib/png.mjs";
import { openReplay, squash } from "../lib/replay.mjs";
import { describeMissing, recordAgainstWire, summary } from "../lib/wire.mjs";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] || 1) || 1;
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-mediawiki-probe-"));
const upload = path.join(dir, "bildschirmfoto-äöü.png");
writeFileSync(upload, png(1001));
const wiki = await startMediaWiki();
const browser = await launch({});
try {
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));
  for (let i = 1; i <= runs; i++) {
    const live = {};
    const seen = async (page) => {
      live[page.url()] = squash(await page.evaluate(() => document.body.innerText));
    };
    const run = await recordAgainstWire(browser, ext, { ...wiki, start: "index.php?title=Main_Page" }, (page) => mediaWikiSession(page, wiki.url, upload, seen, (n) => console.log(`  done again: ${n}`)));
    console.log(`run ${i}: ${summary(run.report)}`);
    for (const m of run.report.unmarked) console.log(`  unmarked difference: ${JSON.stringify(m)}`);
    for (const m of run.report.missing) console.log(`  missing: ${describeMissing(m)}`);
    for (const n of run.info.notes || []) console.log(`  the session's note: ${n.slice(0, 300)}`);
    for (const [url, text] of Object.entries(live)) {
      const r = await openReplay(browser, run.id, url);
      const same = squash(await r.evaluate(() => document.body.innerText)) === text;
      console.log(`  replayed in webkeep: ${url}: text ${same ? "as live" : "NOT as live"}, ${await r.bar.textContent("#replay-missed-count")} missed ${squash(await r.bar.textContent("#replay-missed"))}`);
      await r.close();
    }
  }
} finally {
  await browser.close();
  wiki.stop();
  rmSync(dir, { recursive: true, force: true });
}
