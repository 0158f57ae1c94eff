// Drives headless Debian Firefox ESR with webkeep's Firefox build (dist/firefox)
// installed as a temporary add-on, over WebDriver BiDi (puppeteer-core).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { root, waitFor } from "./browser.mjs";

// The build installed: dist/firefox, or the directory WEBKEEP_FIREFOX_DIR names (another
// branch's dist/firefox, for a benchmark that alternates two builds).
export const firefoxExtensionDir = process.env.WEBKEEP_FIREFOX_DIR || path.join(root, "dist/firefox");
// The add-on's moz-extension:// host, fixed by a preference so that tests can open its pages.
const addonID = "webkeep@webkeep.dev";
const addonHost = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

/**
 * Launches Firefox with webkeep installed; resolves to { browser, page(p), control,
 * profile, close() }, where page(p) is the address of the extension's page p and control is a
 * tab showing the extension's popup, where the extension's API can be called
 * (api(control, method, path)). prefs are Firefox preferences of the test profile.
 */
export async function launchFirefox({ prefs = {} } = {}) {
  const profile = mkdtempSync(path.join(tmpdir(), "webkeep-firefox-"));
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: process.env.FIREFOX || "/usr/bin/firefox-esr",
    headless: true,
    userDataDir: profile,
    // WebDriver BiDi navigates to moz-extension:// pages only with system access.
    args: ["--remote-allow-system-access"],
    extraPrefsFirefox: { ...prefs, "extensions.webextensions.uuids": JSON.stringify({ [addonID]: addonHost }) },
  });
  const id = await browser.installExtension(firefoxExtensionDir);
  if (id !== addonID) throw new Error(`installed add-on is ${id}, not ${addonID}`);
  const page = (p) => `moz-extension://${addonHost}/${p}`;
  const control = await browser.newPage();
  await openExtensionPage(control, page("popup.html"));
  // The core is ready when it answers.
  await waitFor(() => control.evaluate(async () => (await fetch("/api/status")).ok), "the core to answer");
  return {
    browser, page, control, profile,
    close: async () => {
      await browser.close();
      // Firefox's last writes to its profile may come after it closed.
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}

/**
 * Shows the extension's page at url in page (a puppeteer Page) and waits for its code to
 * be ready (data-ready). Firefox's WebDriver BiDi never reports the load of a
 * moz-extension:// page, so the navigation is not awaited.
 */
export async function openExtensionPage(page, url) {
  page.goto(url).catch(() => {});
  await waitFor(() => page.evaluate((u) => location.href === u && document.body.dataset.ready === "true", url), url);
}

/** Calls the extension's API from one of its pages; resolves to { status, bytes }. */
export async function api(extensionPage, method, apiPath) {
  const { status, base64 } = await extensionPage.evaluate(async (m, p) => {
    const res = await fetch(p, { method: m });
    return { status: res.status, base64: new Uint8Array(await res.arrayBuffer()).toBase64() };
  }, method, apiPath);
  return { status, bytes: Buffer.from(base64, "base64") };
}

/** The id of the tab whose address starts with prefix, as the extension names it. */
export function firefoxTabId(extensionPage, prefix) {
  return waitFor(() => extensionPage.evaluate(async (p) => {
    const tabs = await browser.tabs.query({});
    const t = tabs.find((x) => x.url && x.url.startsWith(p));
    return t && t.id;
  }, prefix), `a tab at ${prefix}`);
}

/** The processes of a Firefox launched by launchFirefox: [{ pid, bytes, content }]. */
function firefoxProcesses(firefox) {
  const out = execFileSync("ps", ["-e", "-ww", "-o", "pid=,ppid=,rss=,args="], { encoding: "utf8" }).trim();
  const procs = [];
  for (const line of out.split("\n")) {
    const m = line.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/);
    if (m) procs.push({ pid: m[1], ppid: m[2], bytes: Number(m[3]) * 1024, content: m[4].includes("-contentproc") && m[4].endsWith(" tab"), args: m[4] });
  }
  const ours = new Set(procs.filter((p) => p.args.includes(firefox.profile) && !p.args.includes("-contentproc")).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!ours.has(p.pid) && ours.has(p.ppid)) { ours.add(p.pid); grew = true; }
  }
  return procs.filter((p) => ours.has(p.pid));
}

/**
 * The process where the add-on's background page (and the Go core) runs: Firefox's
 * command lines do not tell an extension's content process from a site's, so it is the
 * content process far larger than the others (the core's memory) while no site is
 * open. Call it before opening any.
 */
export function firefoxExtensionProcess(firefox) {
  const content = firefoxProcesses(firefox).filter((p) => p.content).sort((a, b) => b.bytes - a.bytes);
  if (content.length === 0 || content.length > 1 && content[0].bytes < 1.5 * content[1].bytes) {
    throw new Error(`no content process of our Firefox stands out as the extension's: ${content.map((p) => `${p.pid} ${(p.bytes / 1e6).toFixed(0)} MB`).join(", ")}`);
  }
  return content[0].pid;
}

/**
 * The resident memory of a Firefox launched by launchFirefox, in bytes: { ext } of the
 * process extensionPid (firefoxExtensionProcess), and { all } of its processes together.
 */
export function firefoxMemory(firefox, extensionPid) {
  let ext = null, all = 0;
  for (const p of firefoxProcesses(firefox)) {
    all += p.bytes;
    if (p.pid === extensionPid) ext = p.bytes;
  }
  if (ext === null) throw new Error(`the extension's process ${extensionPid} has gone`);
  return { ext, all };
}
