// `make bench` (scripts/bench/sections/autopilot.sh): autopilot's time on the demo
// site's feed (60 items loaded 10 at a time as its end shows, each lazy image offering
// three sizes by srcset) against a scripted reader's, in real Chromium through the
// extension. The reader, recorded from the popup's Start, scrolls a window at a time,
// letting each window's images load, until the feed says it has ended; autopilot is the
// popup's button on the feed open in a tab not recorded (it records it, reloading it
// first) and ends by itself. Each is timed from the button to its end, runs
// alternating; what each session archived is counted. Prints a Markdown section.
import { launch, startDemoSite, startRecording, tabId } from "../lib/browser.mjs";

const runs = Number(process.env.AUTOPILOT_BENCH_RUNS || 3);
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const site = await startDemoSite();
const browser = await launch({});
const feed = new URL("/feed", site.url).href;

// archived stops the recording from popup and counts the session's feed items pages
// and feed image sizes.
async function archived(popup) {
  await popup.bringToFront();
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  const id = new URL(await popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  const list = await popup.evaluate(async (s) => (await fetch(`/api/sessions/${s}/records`)).json(), id);
  const urls = new Set(list.filter((r) => /^\d{3}$/.test(r.fields.status ?? "")).map((r) => new URL(r.fields.url).pathname + new URL(r.fields.url).search));
  return { pages: [...urls].filter((u) => u.startsWith("/feed/items")).length, sizes: [...urls].filter((u) => u.startsWith("/feed/img/")).length };
}

const reader = [], pilot = [];
try {
  for (let i = 0; i < runs; i++) {
    {
      const rec = await startRecording(browser, site.url);
      await rec.page.bringToFront();
      const t0 = performance.now();
      await rec.page.goto(feed);
      for (;;) {
        const done = await rec.page.evaluate(async () => {
          const inView = [...document.images].filter((img) => { const b = img.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; });
          await Promise.all(inView.map((img) => img.decode().catch(() => {})));
          if (document.querySelector("#feed-end[data-done]") && scrollY + innerHeight >= document.documentElement.scrollHeight - 2) return true;
          scrollBy(0, innerHeight);
          return false;
        });
        if (done) break;
        await rec.page.waitForTimeout(100);
      }
      const ms = performance.now() - t0;
      reader.push({ ms, ...(await archived(rec.popup)) });
      await rec.page.close();
      await rec.popup.close();
    }
    {
      const page = await browser.context.newPage();
      await page.goto(feed);
      const tab = await tabId(browser.sw, feed);
      const popup = await browser.context.newPage();
      await popup.goto(browser.page(`popup.html?tab=${tab}`));
      await popup.waitForSelector("#autopilot:not([disabled])");
      const t0 = performance.now();
      await popup.click("#autopilot");
      await popup.waitForSelector('#autopilot-state[data-running="true"]', { timeout: 30000 });
      await page.bringToFront();
      await popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 300000 });
      const ms = performance.now() - t0;
      const items = await page.evaluate(() => document.querySelectorAll("#feed article").length);
      pilot.push({ ms, items, ...(await archived(popup)) });
      await page.close();
      await popup.close();
    }
  }
} finally {
  await browser.close();
  site.stop();
}
const row = (name, rs, note) => `| ${name} | ${(median(rs.map((r) => r.ms)) / 1000).toFixed(1)} | ${rs.map((r) => (r.ms / 1000).toFixed(1)).join(", ")} | ${median(rs.map((r) => r.pages))} of 5 | ${median(rs.map((r) => r.sizes))} of 180 | ${note} |`;
console.log("## Autopilot on the demo's feed (Chromium)");
console.log();
console.log(`\`node scripts/bench/autopilot.mjs\` on ${new Date().toISOString().slice(0, 10)} (${runs} runs each, alternating; the feed: 60 items, 10 more each time its end shows, each image offering 3 sizes). The reader scrolls a window at a time and lets each window's images load; its time runs from the navigation to the feed's end, autopilot's from the popup's button (a reload of the page included) to the run's end, its 8 rounds of a still page at the end included.`);
console.log();
console.log("| who | median s | runs, s | feed pages archived | image sizes archived | |");
console.log("|---|---|---|---|---|---|");
console.log(row("scripted reader", reader, "one size per image: the one the screen chose"));
console.log(row("autopilot", pilot, `every size; the popup's line: ${median(pilot.map((r) => r.items))} items`));
