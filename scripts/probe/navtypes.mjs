// What Chromium does with a navigation to each media type: shows it or saves it. A
// replay answers a navigation to a body too large for one DevTools message as the
// browser had it live (shared/replay/large.go: download, shownAsText, shownImage),
// and this probe checks those lists against the browser itself: a server on
// 127.0.0.1 answers /t?type=T with a small body of type T, and a fresh tab of
// headless Chromium (no extension) is navigated to each, watching for a download.
//
//   node scripts/probe/navtypes.mjs
//
// Prints one line a type: "shown" or "saved", and what the list in large.go says.
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

// Each type, and what large.go says of it (download: saved).
const types = {
  "text/plain": "shown", "text/xml": "shown", "text/javascript": "shown", "text/markdown": "shown",
  "application/json": "shown", "application/ld+json": "shown", "application/javascript": "shown",
  "application/xml": "shown", "application/rss+xml": "shown", "application/atom+xml": "shown",
  "text/html": "shown", "application/xhtml+xml": "shown", "image/svg+xml": "shown", "image/png": "shown",
  "image/avif": "shown", "application/pdf": "shown", "video/webm": "shown", "audio/mpeg": "shown",
  "text/csv": "saved", "text/tab-separated-values": "saved", "text/calendar": "saved", "text/vcard": "saved",
  "text/rtf": "saved", "image/tiff": "saved", "application/soap+xml": "saved", "application/zip": "saved",
  "application/octet-stream": "saved",
};
const body = {
  "image/png": Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNk+A8AAQUBAScY42YAAAAASUVORK5CYII=", "base64"),
};
const server = createServer((req, res) => {
  const type = new URL(req.url, "http://x").searchParams.get("type");
  if (!type) return res.writeHead(404).end(); // the favicon
  res.writeHead(200, { "Content-Type": type });
  res.end(body[type] || (type.includes("xml") ? '<?xml version="1.0"?><a>x</a>' : "x,y\n1,2\n"));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
const dir = mkdtempSync(path.join(tmpdir(), "webkeep-navtypes-"));
const context = await chromium.launchPersistentContext(dir, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: false, acceptDownloads: true,
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
let differ = 0;
try {
  for (const [type, said] of Object.entries(types)) {
    const page = await context.newPage();
    const saved = page.waitForEvent("download", { timeout: 3000 }).then(() => true, () => false);
    await page.goto(`${base}/t?type=${encodeURIComponent(type)}`).catch(() => {}); // a download aborts the navigation
    const got = (await saved) ? "saved" : "shown";
    if (got !== said) differ++;
    console.log(`${type.padEnd(28)} ${got}${got === said ? "" : `   (large.go says ${said})`}`);
    await page.close();
  }
} finally {
  await context.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(differ ? `${differ} types differ from large.go` : "every type as large.go says");
