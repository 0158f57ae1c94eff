// Drives headless Debian Chromium with the webkeep extension loaded, and the demo site:
// shared by `make demo` and the end-to-end tests.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import net from "node:net";
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
 * in place; without it the browser gets a new one, which close() removes. extension
 * names the build of webkeep to load (extensionDir unless told). bfcache turns on the
 * back/forward cache, which Chrome has on and Playwright turns off; WEBKEEP_BFCACHE=1
 * turns it on by default (scripts/test.sh sets it for make test).
 */
export async function launch({ downloads, extra = [], profile, extension = extensionDir, bfcache = process.env.WEBKEEP_BFCACHE === "1" } = {}) {
  const userDataDir = profile || mkdtempSync(path.join(tmpdir(), "webkeep-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: false,
    acceptDownloads: true,
    downloadsPath: downloads,
    ignoreDefaultArgs: ["--disable-extensions", "--disable-component-extensions-with-background-pages", ...(bfcache ? ["--disable-back-forward-cache"] : [])],
    args: [
      "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-dev-shm-usage",
      `--disable-extensions-except=${[extension, ...extra].join(",")}`, `--load-extension=${[extension, ...extra].join(",")}`,
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
    // grantSite gives the extension access to the sites of a match pattern, as the
    // user does when asked (or on the extensions page, Site access), where a test
    // cannot answer the browser's prompt; resolves to a function that takes it back.
    grantSite: async (pattern) => {
      const onExtensionsPage = async (method) => {
        const ext = await context.newPage();
        try {
          await ext.goto(`chrome://extensions/?id=${extensionId}`);
          await ext.evaluate(([m, id, p]) => chrome.developerPrivate[m](id, p), [method, extensionId, pattern]);
        } finally {
          await ext.close();
        }
      };
      await onExtensionsPage("addHostPermission");
      return () => onExtensionsPage("removeHostPermission");
    },
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

/**
 * Waits until the session being recorded holds an archived record that archived(record)
 * accepts; getJSON(path) answers a GET of the extension's API as parsed JSON. The
 * session's records are listed only when its count of them has changed: listing over a
 * thousand records ten times a second is work no user asks of the core while it writes,
 * and in the benchmark of a 524 MB body it doubled the time to archive the body
 * (184 s against 98 s) and the extension's peak memory (+123 MB against +61 MB).
 */
export async function waitArchived(getJSON, archived, what, timeout) {
  let listedAt = -1;
  return waitFor(async () => {
    const { session } = await getJSON("/api/status");
    if (session.records === listedAt) return false;
    const records = await getJSON(`/api/sessions/${encodeURIComponent(session.id)}/records`);
    listedAt = session.records;
    return records.some(archived);
  }, what, timeout);
}

/**
 * The extension's service worker, watched through a DevTools session of page (an
 * extension page): status() is the browser's word on it ("running", "stopped", ...),
 * and stop() stops it and resolves once the browser says it is stopped; the next event
 * or fetch starts it again. cdp is the session, for other DevTools calls.
 */
export async function serviceWorker(browser, page) {
  const cdp = await browser.context.newCDPSession(page);
  let status = "running";
  cdp.on("ServiceWorker.workerVersionUpdated", (e) => {
    for (const v of e.versions) status = v.runningStatus;
  });
  await cdp.send("ServiceWorker.enable");
  return {
    cdp,
    status: () => status,
    stop: async () => {
      await cdp.send("ServiceWorker.stopAllWorkers");
      await waitFor(() => status === "stopped", "the service worker to stop").catch((e) => {
        throw new Error(`${e.message} (it is ${status})`);
      });
    },
  };
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

/**
 * Stops the recording with the popup's button, as a user would, and saves the session's
 * WARC 0.9 through the popup's link into dir; resolves to { info (the session, as the
 * API gives it), file (the WARC's path) }.
 */
export async function stopAndSaveWarc(popup, dir) {
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  const id = new URL(await popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  const info = await popup.evaluate(async (id) => (await fetch(`/api/sessions/${id}`)).json(), id);
  const link = await popup.waitForSelector("#download-warc");
  const [download] = await Promise.all([popup.waitForEvent("download"), link.click()]);
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  return { info, file };
}

/**
 * A function of a URL that resolves once the page at it, in the session popup (an
 * extension page) records, has its picture as loaded: the nth call for a URL waits
 * for the session's nth page at it. For browseDemo's pictured.
 */
export function picturedIn(popup) {
  const visits = {};
  return (url) => {
    const n = visits[url] = (visits[url] || 0) + 1;
    return waitFor(() => popup.evaluate(async ([url, n]) => {
      const [session] = await (await fetch("/api/sessions")).json();
      const pages = await (await fetch(`/api/sessions/${session.id}/pages`)).json();
      return pages.filter((p) => p.url === url)[n - 1]?.thumbnail === true;
    }, [url, n]), `the picture of ${url}`);
  };
}

/** Clicks a button of the demo site that sets data-done when its request completed. */
export async function clickAndWait(page, selector) {
  await page.click(selector);
  await page.waitForSelector(`${selector}[data-done]`, { timeout: 60000 });
}

/** The buttons of the demo's forms page that send a request with fetch(). */
export const demoCalls = ["post-json", "post-text", "post-binary", "post-multipart", "put-item", "delete-item", "search-first", "search-second"];

/**
 * Visits every page of the demo site and submits every form, in the given tab. The
 * upload form's file is chosen as a user would, through the file input. Returns the
 * steps taken; live, when given, receives what the pages showed: each page's text by
 * its URL, which of its images the browser could show (images, by URL), the large
 * file's digest as "big", and each fetch() call's answer by its button's id.
 * pictured(url), when given, resolves once the page at url is pictured as loaded: a
 * page used (buttons clicked, a file chosen) is first looked at, as a reader would.
 */
export async function browseDemo(page, base, uploadFile, live = {}, { pictured } = {}) {
  const steps = [];
  const text = async () => {
    live[page.url()] = await page.evaluate(() => document.body.innerText);
    live.images = { ...live.images, [page.url()]: await page.evaluate(() => [...document.images].map((i) => i.complete && i.naturalWidth > 0)) };
  };
  const step = async (name, f) => { await f(); steps.push(name); if (!demoCalls.includes(name) && name !== "large file") await text(); };
  const look = async () => { if (pictured) await pictured(page.url()); };
  await step("home", async () => { await page.goto(base); await look(); });
  await step("large file", async () => {
    await clickAndWait(page, "#load-big");
    live.big = await page.textContent("#big-result");
  });
  await step("gallery", async () => {
    await page.goto(new URL("/gallery", base).href);
    await page.waitForSelector("#worker-status[data-done]", { timeout: 30000 });
  });
  await step("forms", async () => { await page.goto(new URL("/forms", base).href); await look(); });
  for (const id of demoCalls) {
    await step(id, async () => {
      const before = await page.textContent("#out");
      await clickAndWait(page, "#" + id);
      live[id] = (await page.textContent("#out")).slice(before.length).trim();
    });
  }
  await step("urlencoded form", () => Promise.all([page.waitForURL("**/submit/form"), page.click("#form-urlencoded button")]));
  await step("forms again", async () => { await page.goto(new URL("/forms", base).href); await look(); });
  await step("upload form", async () => {
    // A second at least after the fetch() POST to the same URL: records carry whole
    // seconds, and a POST page's capture is told from another of its URL by its time
    // alone (the WACZ's pages.jsonl; docs/cdx-dialects.md).
    await new Promise((r) => setTimeout(r, 1100));
    await page.setInputFiles("#form-multipart input[type=file]", uploadFile);
    await Promise.all([page.waitForURL("**/submit/upload"), page.click("#form-multipart button")]);
  });
  await step("redirects", () => page.goto(new URL("/redirect/start", base).href));
  await step("404", () => page.goto(new URL("/missing", base).href));
  await step("data.txt", () => page.goto(new URL("/data.txt", base).href));
  await step("robots.txt", () => page.goto(new URL("/robots.txt", base).href));
  return steps;
}

// The page size of x86-64 and of arm64 as Debian builds it; /proc counts in pages.
const pageBytes = 4096;
// What processMemory has read of each process once, to find the browser's processes:
// pid -> { ppid, args }, dropped as the process goes (so a pid used again is read again).
const procSeen = new Map();

// procInfo reads a process's { ppid, args } from /proc, or null if it has gone.
function procInfo(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // The fields after the command's name (which may hold spaces and parentheses) are
    // state, ppid, ...
    const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
    const args = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
    return { ppid, args };
  } catch {
    return null;
  }
}

/**
 * Resident memory, in bytes, of the extension's process (where the service worker and
 * its Go core run) and of every process of the browser together: { ext, all }. Only the
 * browser that launch() started counts (its process, found by its profile directory, and that
 * process's descendants): other Chromiums on the machine, with extensions of their own,
 * are no part of the measure. It throws unless the browser has one extension process.
 * It reads /proc itself: a `ps` started every 50 ms (as until 2026-12-07) took a third
 * of this 2-CPU machine's time from the browser it measured, each start copying the
 * page tables of node's large address space.
 */
export function processMemory(browser) {
  const pids = new Set(readdirSync("/proc").filter((p) => /^\d+$/.test(p)));
  for (const pid of procSeen.keys()) if (!pids.has(pid)) procSeen.delete(pid);
  const procs = [];
  for (const pid of pids) {
    if (!procSeen.has(pid)) procSeen.set(pid, procInfo(pid));
    const p = procSeen.get(pid);
    if (p) procs.push({ pid, ...p });
  }
  const ours = new Set(procs.filter((p) => p.args.includes(`--user-data-dir=${browser.userDataDir}`) && !p.args.includes("--type=")).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!ours.has(p.pid) && ours.has(p.ppid)) { ours.add(p.pid); grew = true; }
  }
  let ext = 0, all = 0, exts = 0;
  for (const pid of ours) {
    // Read afresh: a renderer's command line is its zygote's until it names its type.
    let bytes, args;
    try {
      bytes = Number(readFileSync(`/proc/${pid}/statm`, "latin1").split(" ")[1]) * pageBytes;
      args = readFileSync(`/proc/${pid}/cmdline`, "latin1");
    } catch {
      continue; // gone
    }
    all += bytes;
    if (args.includes("--extension-process")) { ext += bytes; exts++; }
  }
  if (ours.size === 0 || exts !== 1) throw new Error(`expected one extension process of our browser, found ${exts} among ${ours.size}`);
  return { ext, all };
}

/**
 * Runs fn while sampling processMemory(browser) every 50 ms; resolves to { before, peak
 * (the largest of each measure), ms (fn's time), result (fn's) }.
 */
export async function peakMemory(browser, fn) {
  const before = processMemory(browser);
  const peak = { ...before };
  const timer = setInterval(() => {
    try {
      const m = processMemory(browser);
      peak.ext = Math.max(peak.ext, m.ext);
      peak.all = Math.max(peak.all, m.all);
    } catch { /* a process came or went */ }
  }, 50);
  const t0 = performance.now();
  try {
    const result = await fn();
    return { before, peak, ms: performance.now() - t0, result };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Stops the demo site and listens on its port instead, so that a replay can prove it
 * fetched nothing: resolves to { hits() (connections that reached the port), reached
 * (what each sent: its time and request line), close() }.
 */
export async function guardPort(site) {
  const port = Number(new URL(site.url).port);
  site.stop();
  await new Promise((r) => setTimeout(r, 200));
  let hits = 0;
  const reached = [];
  const listener = net.createServer((s) => {
    hits++;
    // What came is kept for the failure's message: a request's first line, or a
    // connection that sent nothing (a preconnect).
    const at = Date.now();
    const done = (what) => { reached.push(`${new Date(at).toISOString()} ${what}`); s.destroy(); };
    const quiet = setTimeout(() => done("(a connection that sent nothing)"), 1000);
    s.once("data", (d) => { clearTimeout(quiet); done(d.toString("latin1").split("\r\n")[0]); });
    s.once("error", () => {});
  });
  await new Promise((resolve, reject) => { listener.once("error", reject); listener.listen(port, "127.0.0.1", resolve); });
  return { hits: () => hits, reached, close: () => listener.close() };
}

/**
 * Serves html at / on 127.0.0.1 and answers anything else 500, logging it: the probes'
 * site whose every other request must not reach the network. Resolves to { base (its
 * origin), reached (the paths logged; the caller may empty it), close() }.
 */
export async function startTrapSite(html) {
  const reached = [];
  const server = createServer((req, res) => {
    if (req.url === "/") { res.writeHead(200, { "Content-Type": "text/html" }); res.end(html); return; }
    reached.push(req.url);
    res.writeHead(500); res.end("reached the network");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${server.address().port}`, reached, close: () => server.close() };
}
