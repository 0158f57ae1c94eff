// `make demo BROWSER=firefox`: records the demo site in headless Firefox ESR through
// webkeep's Firefox build (its popup's controls), saves the session's bundle and WACZ
// through the popup's download links, and leaves them, with the bundle's WARC and CDXJ
// unpacked, in ./out, as `make demo` does in Chromium; Autopilot goes through the
// demo's feed. Replay is Chromium's only.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { browseDemo, startDemoSite, waitFor } from "./lib/browser.mjs";
import { demoDatabase, endOut, out, printDemo, startOut } from "./lib/demo.mjs";
import { firefoxTabId, launchFirefox, openExtensionPage } from "./lib/firefox.mjs";

// playwrightLike gives a puppeteer page the few Playwright calls browseDemo makes.
const playwrightLike = (page) => ({
  goto: (url) => page.goto(url),
  url: () => page.url(),
  evaluate: (f, ...args) => page.evaluate(f, ...args),
  click: (selector) => page.click(selector),
  waitForSelector: (selector, options) => page.waitForSelector(selector, options),
  textContent: (selector) => page.$eval(selector, (e) => e.textContent),
  waitForURL: () => page.waitForNavigation(),
  setInputFiles: async (selector, file) => (await page.$(selector)).uploadFile(file),
});

// saveDownload clicks a download link of the popup and writes the file it hands the
// browser to save (from a blob URL) into ./out; returns its path.
async function saveDownload(popup, selector) {
  await popup.evaluate(() => {
    window.webkeepSaved = new Promise((resolve) => {
      HTMLAnchorElement.prototype.click = function () {
        fetch(this.href).then((r) => r.arrayBuffer()).then((b) => resolve({ name: this.download, base64: new Uint8Array(b).toBase64() }));
      };
    });
  });
  await popup.click(selector);
  const saved = await popup.evaluate(() => window.webkeepSaved);
  const file = path.join(out, path.basename(saved.name));
  writeFileSync(file, Buffer.from(saved.base64, "base64"));
  return file;
}

const started = Date.now();
const upload = startOut();
const site = await startDemoSite();
const firefox = await launchFirefox();
try {
  console.log(`demo site at ${site.url}; Firefox ${await firefox.browser.version()}`);
  const options = await firefox.browser.newPage();
  await openExtensionPage(options, firefox.page("options.html"));
  await (await options.$("#urldb-zip")).uploadFile(await demoDatabase(site));
  await waitFor(() => options.evaluate(() => document.querySelector("#urldb-status").dataset.loaded === "true"), "the URL database to load", 120000);
  console.log(`URL database: ${await options.$eval("#urldb-status", (e) => e.textContent)}`);
  await options.close();

  const tab = await firefox.browser.newPage();
  await tab.goto(site.url);
  const tabId = await firefoxTabId(firefox.control, site.url);
  const popup = firefox.control;
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  console.log("recording tab", tabId);

  const steps = await browseDemo(playwrightLike(tab), site.url, upload);
  console.log(`visited: ${steps.join(", ")}`);

  // The popup is shown again, as a user opens it again (its page is reloaded).
  await popup.goto("about:blank");
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));

  // The feed, gone through by the popup's Autopilot: it stops by itself.
  await tab.goto(new URL("/feed", site.url).href);
  await popup.click("#autopilot");
  await popup.waitForSelector('#autopilot-state[data-running="true"]', { timeout: 30000 });
  await tab.bringToFront();
  await popup.waitForSelector('#autopilot-state[data-running="false"]', { timeout: 240000 });
  const feed = await tab.evaluate(() => ({
    items: document.querySelectorAll("#feed article").length,
    total: Number(document.getElementById("feed").dataset.total),
    end: document.querySelector("#feed-end[data-done]") !== null,
  }));
  const line = await popup.$eval("#autopilot-state", (e) => e.textContent);
  console.log(`autopilot: /feed ${feed.end ? "scrolled to its end" : "NOT scrolled to its end"}, ${feed.items} of ${feed.total} items (${line.replace(/^Autopilot: /, "")})`);

  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  const bundlePath = await saveDownload(popup, "#download-bundle");
  const waczPath = await saveDownload(popup, "#download-wacz");
  printDemo(bundlePath, waczPath, started);
  console.log("replay: not in Firefox yet (the debugger's Fetch domain is Chromium's); run `make demo` to replay in Chromium");
} finally {
  await firefox.close();
  site.stop();
  endOut();
}
