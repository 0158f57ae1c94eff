// Serves ReplayWeb.page (its built app from the npm package, fetched by
// scripts/setup.sh into .cache) and an archive on 127.0.0.1, and opens pages of the
// archive in it: what a user does with a downloaded WACZ or WARC.
import http from "node:http";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { browseDemo, launch, root, tabId } from "./browser.mjs";

export const rwpVersion = "2.5.3";
export const rwpDir = path.join(root, ".cache", `replaywebpage-${rwpVersion}`);

const types = { ".js": "text/javascript", ".html": "text/html", ".json": "application/json", ".wacz": "application/zip", ".gz": "application/gzip" };

/**
 * Starts a server of ReplayWeb.page's files and of the given archives (name -> path),
 * with the range requests it reads archives with; resolves to { url, archive(name),
 * close() }.
 */
export async function serveReplayWebPage(archives) {
  if (!existsSync(path.join(rwpDir, "sw.js"))) throw new Error(`ReplayWeb.page is not in ${rwpDir}: run scripts/setup.sh`);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    const name = u.pathname.slice(1);
    const file = archives[name] ?? path.join(rwpDir, path.normalize(u.pathname === "/" ? "index.html" : u.pathname));
    if (!file.startsWith(rwpDir) && !archives[name] || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404);
      return res.end();
    }
    const data = readFileSync(file);
    const head = { "Content-Type": types[path.extname(file)] || "application/octet-stream", "Accept-Ranges": "bytes" };
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range || "");
    let start = 0, end = data.length - 1, status = 200;
    if (range) {
      status = 206;
      if (range[1] === "") start = Math.max(0, data.length - Number(range[2]));
      else { start = Number(range[1]); if (range[2] !== "") end = Math.min(Number(range[2]), end); }
      head["Content-Range"] = `bytes ${start}-${end}/${data.length}`;
    }
    head["Content-Length"] = end - start + 1;
    res.writeHead(status, head);
    res.end(req.method === "HEAD" ? undefined : data.subarray(start, end + 1));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, archive: (name) => `${url}/${name}`, close: () => new Promise((r) => server.close(r)) };
}

/**
 * Opens the archive at source in ReplayWeb.page in page: its page list (view) or a
 * replayed URL at a 14-digit time; for a replayed URL, resolves to its frame once it
 * has loaded and stopped navigating (a replayed redirect moves it on).
 */
export async function openInReplayWebPage(page, app, source, { url, ts, view } = {}) {
  const hash = url ? `view=replay&url=${encodeURIComponent(url)}${ts ? "&ts=" + ts : ""}` : `view=${view || "pages"}`;
  await page.goto(`${app}/?source=${encodeURIComponent(source)}#${hash}`);
  if (!url) return null;
  const deadline = Date.now() + 60000;
  let last = "", stable = 0;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`ReplayWeb.page showed no replay of ${url} (last frame: ${last})`);
    await page.waitForTimeout(250);
    const frame = page.frames().find((f) => /\/w\/[^/]+\/.*mp_\//.test(f.url()));
    if (!frame) continue;
    const state = await frame.evaluate(() => document.readyState).catch(() => "navigating");
    const now = frame.url() + " " + state;
    stable = now === last && state === "complete" ? stable + 1 : 0;
    last = now;
    if (stable >= 2) return frame;
  }
}

/**
 * Downloads an API path of the extension through a link click, as a user's download.
 * The download begins once the core has its first bytes (a WACZ is written whole
 * first), which on a busy machine can take longer than Playwright's 30 s default.
 */
export async function download(page, dir, apiPath, name) {
  const [d] = await Promise.all([page.waitForEvent("download", { timeout: 180_000 }), page.evaluate((p) => {
    const a = document.createElement("a");
    a.href = p;
    document.body.append(a);
    a.click();
  }, apiPath)]);
  const failure = await d.failure();
  if (failure) throw new Error(`downloading ${apiPath}: ${failure}`);
  const file = path.join(dir, name);
  await d.saveAs(file);
  return file;
}

/**
 * Records the demo site (started) through the extension in a new browser, as
 * browseDemo visits it, filling live with what the pages showed, and downloads the
 * session's WACZ and WARC/1.1 into dir; resolves to { wacz, warc, id } (their paths, and
 * the session's id). Given a browser (launched with downloads: dir), it records in
 * that one and leaves it open.
 */
export async function recordDemo(site, dir, live, { browser: given } = {}) {
  const browser = given || await launch({ downloads: dir });
  try {
    const page = await browser.context.newPage();
    await page.goto(site.url);
    const tab = await tabId(browser.sw, site.url);
    const popup = await browser.context.newPage();
    await popup.goto(browser.page(`popup.html?tab=${tab}`));
    await popup.click("#start");
    await popup.waitForSelector('#state[data-recording="true"]');
    const upload = path.join(dir, "upload.bin");
    writeFileSync(upload, Buffer.from("uploaded file \u00e9\n"));
    await page.bringToFront();
    await browseDemo(page, site.url, upload, live);
    await popup.bringToFront();
    await popup.click("#stop");
    await popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
    const id = new URL(await popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
    return {
      wacz: await download(popup, dir, `/api/sessions/${id}/wacz`, "session.wacz"),
      warc: await download(popup, dir, `/api/sessions/${id}/warc11.gz`, "session.warc.gz"),
      id,
    };
  } finally {
    if (!given) await browser.close();
  }
}

/** Launches a plain headless Chromium (no extension) to open ReplayWeb.page in. */
export function launchViewer() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
}
