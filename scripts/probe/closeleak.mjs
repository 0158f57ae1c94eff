// Does a request of a replay's tab reach the web when the tab itself is closed? A copy
// of the built extension gets the declarativeNetRequest permission; a page on 127.0.0.1
// asks for /tick every 5 ms and sends a beacon as it is hidden; an extension page
// attaches the debugger to its tab, answers every paused request itself (Fetch domain),
// then closes the tab (chrome.tabs.remove). Each closing is done without and with a
// declarativeNetRequest session rule blocking every request of the tab (or every request
// of no tab), to see whether the rule lets the Fetch domain answer first and stops what
// the debugger lets go; with the network emulated offline (DevTools); and sent to
// about:blank with the debugger on, closed 500 ms later, as webkeep's bar ends a replay;
// and with webkeep's guard run in the page (extension/replay-guard.js), which holds its
// fetch(), sendBeacon() and XMLHttpRequest once it may be leaving.
// Prints, for each way, how many requests the Fetch domain answered and how many of the
// page's requests reached the site in each closing (URLS=1 lists them; WAYS=none,tab,
// "no tab","blank first",offline,guard picks the ways).
//   node scripts/probe/closeleak.mjs [CLOSINGS]
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { extensionDir, launch, startTrapSite, tabId } from "../lib/browser.mjs";

const closings = Number(process.argv[2] || 12);
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-closeleak-"));
cpSync(extensionDir, dir, { recursive: true });
const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
manifest.permissions.push("declarativeNetRequest");
writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));

const page = `<p>probe</p><script>
let n = 0; // the requests begin once the Fetch domain is on (start(), from the probe),
// and the page's listeners are added then, after a guard's, as a replay's script runs
// before the page's own
const start = () => {
  setInterval(() => fetch("/tick?" + n++).catch(() => {}), 5);
  addEventListener("pagehide", () => navigator.sendBeacon("/beacon", "bye"));
  document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && navigator.sendBeacon("/hidden", "bye"));
};
</script>`;
// The replay's guard (extension/replay-guard.js), as the bar injects it.
const GUARD = new Function(`${readFileSync(path.join(extensionDir, "replay-guard.js"), "utf8")}; return guardScript;`)();
const site = await startTrapSite(page);
const { base, reached } = site;
const browser = await launch({ extension: dir });
try {
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("archive.html"));
  for (const rule of (process.env.WAYS || "none,tab,no tab,blank first,offline,guard").split(",").map((w) => w === "none" ? false : w)) {
    const leaks = [];
    let answered = 0;
    for (let i = 0; i < closings; i++) {
      const tab = await browser.context.newPage();
      await tab.goto(base + "/");
      const id = await tabId(browser.sw, base + "/");
      await ext.evaluate(async ([tabId, rule, guard]) => {
        const t = { tabId };
        if (rule === "tab" || rule === "no tab") await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: [1], addRules: [{ id: 1, priority: 1, action: { type: "block" }, condition: { tabIds: [rule === "tab" ? tabId : -1] } }] });
        await chrome.debugger.attach(t, "1.3");
        globalThis.fulfilled = 0;
        globalThis.on = (src, method, params) => {
          if (src.tabId !== tabId || method !== "Fetch.requestPaused") return;
          chrome.debugger.sendCommand(t, "Fetch.fulfillRequest", { requestId: params.requestId, responseCode: 200, body: btoa("ok") }).then(() => globalThis.fulfilled++, () => {});
        };
        chrome.debugger.onEvent.addListener(globalThis.on);
        await chrome.debugger.sendCommand(t, "Fetch.enable", { patterns: [{ urlPattern: "*" }] });
        if (rule === "guard") await chrome.debugger.sendCommand(t, "Runtime.evaluate", { expression: guard });
        if (rule === "offline") {
          await chrome.debugger.sendCommand(t, "Network.enable", {});
          await chrome.debugger.sendCommand(t, "Network.emulateNetworkConditions", { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
        }
      }, [id, rule, GUARD]);
      reached.length = 0;
      await tab.evaluate(() => start());
      const out = await ext.evaluate(async ([tabId, rule]) => {
        await new Promise((r) => setTimeout(r, 300));
        if (rule === "blank first") { // as webkeep's bar ends a replay
          await chrome.debugger.sendCommand({ tabId }, "Page.navigate", { url: "about:blank" });
          await new Promise((r) => setTimeout(r, 500));
        }
        await chrome.tabs.remove(tabId);
        await new Promise((r) => setTimeout(r, 300));
        chrome.debugger.onEvent.removeListener(globalThis.on);
        if (rule === "tab" || rule === "no tab") await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: [1] });
        return globalThis.fulfilled;
      }, [id, rule]);
      await new Promise((r) => setTimeout(r, 200));
      answered += out;
      // The browser's favicon request of the page may have begun before the Fetch
      // domain was on (the probe loads the page first): not counted.
      const own = reached.filter((u) => u !== "/favicon.ico");
      leaks.push(own.length + (process.env.URLS ? ` (${own.join(" ")})` : ""));
    }
    console.log(`${rule === "offline" ? "the network emulated offline" : rule === "blank first" ? "sent to about:blank first, the debugger on" : rule === "guard" ? "with a guard in the page" : rule ? `with a blocking rule of ${rule === "tab" ? "the tab" : "requests of no tab"}` : "without a blocking rule"}: ${answered} requests answered by the Fetch domain; reached the network per closing: ${leaks.join(", ")}`);
  }
} finally {
  await browser.close();
  site.close();
  rmSync(dir, { recursive: true, force: true });
}
