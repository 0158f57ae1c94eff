// `make demo`: records the demo site in headless Chromium through the real extension
// (its popup's controls), downloads the session through the extension's own download
// link, leaves the bundle and its unpacked WARC and CDXJ in ./out, and replays every page
// in webkeep with the demo site stopped. Autopilot goes through the demo's feed.
import path from "node:path";
import { browseDemo, launch, picturedIn, startDemoSite, tabId, waitFor } from "./lib/browser.mjs";
import { replayDemoPages } from "./lib/replay.mjs";
import { demoDatabase, endOut, out, printDemo, startOut } from "./lib/demo.mjs";

const started = Date.now();
const upload = startOut();

const site = await startDemoSite();
const browser = await launch({ downloads: out });
try {
  console.log(`demo site at ${site.url}; extension ${browser.extensionId}`);
  // The URL database of the demo site, loaded through the options page as a user would.
  const dbZip = await demoDatabase(site);
  const options = await browser.context.newPage();
  await options.goto(browser.page("options.html"));
  await options.setInputFiles("#urldb-zip", dbZip);
  await options.waitForSelector('#urldb-status[data-loaded="true"]');
  console.log(`URL database: ${await options.textContent("#urldb-status")}`);
  await options.close();

  const page = await browser.context.newPage();
  await page.goto(site.url);
  const tab = await tabId(browser.sw, site.url);

  const popup = await browser.context.newPage();
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  console.log("recording tab", tab);

  const live = {};
  // A page is looked at before it is used: the capture check compares each page's
  // replay with the page as it showed once loaded (its first picture).
  const steps = await browseDemo(page, site.url, upload, live, { pictured: picturedIn(popup) });
  console.log(`visited: ${steps.join(", ")}`);

  // The feed, gone through by the popup's Autopilot: it stops by itself.
  await page.goto(new URL("/feed", site.url).href);
  await popup.click("#autopilot");
  await popup.waitForSelector('#autopilot-state[data-running="true"]');
  await page.bringToFront();
  await popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 240000 });
  const feed = await page.evaluate(() => ({
    items: document.querySelectorAll("#feed article").length,
    total: Number(document.getElementById("feed").dataset.total),
    end: document.querySelector("#feed-end[data-done]") !== null,
  }));
  console.log(`autopilot: /feed ${feed.end ? "scrolled to its end" : "NOT scrolled to its end"}, ${feed.items} of ${feed.total} items` +
    ` (${(await popup.textContent("#autopilot-state")).replace(/^Autopilot: /, "")})`);

  await popup.bringToFront();
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  const link = await popup.waitForSelector("#download-bundle");
  const [download] = await Promise.all([popup.waitForEvent("download"), link.click()]);
  const bundlePath = path.join(out, download.suggestedFilename());
  await download.saveAs(bundlePath);
  const failure = await download.failure();
  if (failure) throw new Error(`download failed: ${failure}`);

  const waczLink = await popup.waitForSelector("#download-wacz");
  const [waczDownload] = await Promise.all([popup.waitForEvent("download"), waczLink.click()]);
  const waczPath = path.join(out, waczDownload.suggestedFilename());
  await waczDownload.saveAs(waczPath);
  if (await waczDownload.failure()) throw new Error(`WACZ download failed: ${await waczDownload.failure()}`);

  const files = printDemo(bundlePath, waczPath, started);

  // Every page recorded, replayed in webkeep with the demo site stopped.
  const id = new URL(await popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  site.stop();
  // ./out is written by now: a replay that fails or hangs is reported, plainly, and
  // does not take the recording with it.
  try {
    const replayed = await Promise.race([replayDemoPages(browser, id, live),
      // unref: the timer does not keep the demo running once it is done.
      new Promise((_, reject) => setTimeout(() => reject(new Error("no result after 5 minutes")), 300000).unref())]);
    console.log(`replay: ${replayed.matched.length} of ${replayed.total} pages match the live site` +
      replayed.differ.map((u) => `\n  DIFFERS ${u}`).join(""));
  } catch (e) {
    console.log(`replay: FAILED: ${e.message}`);
  }
  // The product's own capture check, from the archive page: each page replayed offline
  // and compared with what it showed live once loaded.
  try {
    const archive = await browser.context.newPage();
    await archive.goto(browser.page(`archive.html#${id}`));
    await archive.waitForSelector("#pages > li");
    await archive.click("#check-capture");
    await waitFor(async () => / checked: /.test(await archive.textContent("#check-status")), "the capture check", 600000);
    const pages = await archive.$$eval("#pages > li", (lis) => lis.map((li) => ({
      url: li.dataset.url, verdict: li.querySelector(".check")?.dataset.verdict,
      why: [...li.querySelectorAll(".check .why li")].map((x) => x.textContent),
    })).filter((p) => p.verdict));
    const replaying = pages.filter((p) => p.verdict === "replays").length;
    const status = await archive.textContent("#check-status"); // with the pages left out, if any
    console.log(`check: ${replaying} of ${pages.length} pages replay as captured${status.includes(";") ? status.slice(status.indexOf(";")) : ""}` +
      pages.filter((p) => p.verdict !== "replays").map((p) => `\n  ${p.verdict.toUpperCase()} ${p.url}: ${p.why.join("; ")}`).join(""));
  } catch (e) {
    console.log(`check: FAILED: ${e.message}`);
  }
} finally {
  await browser.close();
  site.stop();
  endOut();
}
