// Drives headless Debian Chromium with the webkeep extension loaded, and the demo site:
// shared by `make demo` and the end-to-end tests.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
// WEBKEEP_EXTENSION names another build of the extension to load (to compare two).
export const extensionDir = process.env.WEBKEEP_EXTENSION || path.join(root, "dist/extension");

/** Starts the demo site on 127.0.0.1 and resolves to { url, log(), stop() }. */
export function startDemoSite(args = []) {
  const child = spawn(path.join(root, "bin/demosite"), args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.stdout.once("data", (chunk) => {
      const url = chunk.toString().split("\n")[0].trim();
      resolve({
        url,
        log: async () => (await fetch(new URL("/__log", url))).json(),
        stop: () => child.kill(),
      });
    });
  });
}

/**
 * Launches Chromium with the extension, and any other extensions (directories) named in
 * extra; resolves to { context, sw, extensionId, extraWorkers, userDataDir, close() },
 * where extraWorkers holds the service workers of the extra extensions, in their order.
 * profile names a profile directory (user-data-dir) to launch on, which close() leaves
 * in place; without it the browser gets a new one, which close() removes.
 */
export async function launch({ downloads, extra = [], profile } = {}) {
  const userDataDir = profile || mkdtempSync(path.join(tmpdir(), "webkeep-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: false,
    acceptDownloads: true,
    downloadsPath: downloads,
    ignoreDefaultArgs: ["--disable-extensions", "--disable-component-extensions-with-background-pages"],
    args: [
      "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-dev-shm-usage",
      `--disable-extensions-except=${[extensionDir, ...extra].join(",")}`, `--load-extension=${[extensionDir, ...extra].join(",")}`,
    ],
  });
  // The extensions' workers are told apart by their manifests' names.
  const workers = await waitFor(async () => {
    const ws = context.serviceWorkers().filter((w) => w.url().startsWith("chrome-extension://"));
    return ws.length > extra.length && ws;
  }, "the extensions' service workers");
  const names = await Promise.all(workers.map((w) => w.evaluate(() => chrome.runtime.getManifest().name)));
  const sw = workers[names.indexOf("webkeep")];
  if (!sw) throw new Error(`webkeep's service worker is not among ${names.join(", ")}`);
  const extraWorkers = extra.map((dir) => {
    const { name } = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
    const w = workers[names.indexOf(name)];
    if (!w) throw new Error(`the service worker of ${dir} (${name}) did not start`);
    return w;
  });
  const extensionId = new URL(sw.url()).host;
  // The core is ready when it has published its API.
  await waitFor(() => sw.evaluate(() => typeof self.webkeepCore === "object"), "the core to start");
  return {
    context, sw, extensionId, extraWorkers, userDataDir,
    page: (p) => `chrome-extension://${extensionId}/${p}`,
    close: async () => {
      await context.close();
      if (!profile) rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Polls f until it returns a truthy value. */
export async function waitFor(f, what, timeout = 30000) {
  const end = Date.now() + timeout;
  for (;;) {
    try { const v = await f(); if (v) return v; } catch { /* not yet */ }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Returns the id of the tab showing a URL that starts with prefix. */
export async function tabId(sw, prefix) {
  // The extension has no "tabs" permission, so tab URLs are hidden from chrome.tabs;
  // the debugger's target list (its "debugger" permission) shows them.
  return waitFor(() => sw.evaluate(async (p) => {
    const targets = await chrome.debugger.getTargets();
    const t = targets.find((x) => x.type === "page" && x.tabId && x.url.startsWith(p));
    return t && t.tabId;
  }, prefix), `a tab at ${prefix}`);
}

/**
 * Opens a new tab at url and starts recording it with the popup's button, as a user
 * would; resolves to { page, tab, popup }.
 */
export async function startRecording(browser, url) {
  const page = await browser.context.newPage();
  await page.goto(url);
  const tab = await tabId(browser.sw, url);
  const popup = await browser.context.newPage();
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  return { page, tab, popup };
}

/** Clicks a button of the demo site that sets data-done when its request completed. */
export async function clickAndWait(page, selector) {
  await page.click(selector);
  await page.waitForSelector(`${selector}[data-done]`, { timeout: 60000 });
}

/**
 * Visits every page of the demo site and submits every form, in the given tab. The
 * upload form's file is chosen as a user would, through the file input.
 */
export async function browseDemo(page, base, uploadFile) {
  const steps = [];
  const step = async (name, f) => { await f(); steps.push(name); };
  await step("home", () => page.goto(base));
  await step("large file", () => clickAndWait(page, "#load-big"));
  await step("gallery", async () => {
    await page.goto(new URL("/gallery", base).href);
    await page.waitForSelector("#worker-status[data-done]", { timeout: 30000 });
  });
  await step("forms", () => page.goto(new URL("/forms", base).href));
  for (const id of ["post-json", "post-text", "post-binary", "post-multipart", "put-item", "delete-item"]) {
    await step(id, () => clickAndWait(page, "#" + id));
  }
  await step("urlencoded form", () => Promise.all([page.waitForURL("**/submit/form"), page.click("#form-urlencoded button")]));
  await step("forms again", () => page.goto(new URL("/forms", base).href));
  await step("upload form", async () => {
    await page.setInputFiles("#form-multipart input[type=file]", uploadFile);
    await Promise.all([page.waitForURL("**/submit/upload"), page.click("#form-multipart button")]);
  });
  await step("redirects", () => page.goto(new URL("/redirect/start", base).href));
  await step("404", () => page.goto(new URL("/missing", base).href));
  await step("data.txt", () => page.goto(new URL("/data.txt", base).href));
  await step("robots.txt", () => page.goto(new URL("/robots.txt", base).href));
  return steps;
}
