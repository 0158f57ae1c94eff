// `make demo`: records the demo site in headless Chromium through the real extension
// (its popup's controls), downloads the session through the extension's own download
// link, and leaves the bundle and its unpacked WARC and CDXJ in ./out.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { browseDemo, launch, root, startDemoSite, tabId, waitFor } from "./lib/browser.mjs";
import { readZip } from "./lib/zip.mjs";

const started = Date.now();
const out = path.join(root, "out");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const upload = path.join(out, ".upload-sample.bin");
writeFileSync(upload, Buffer.from("a file chosen in the upload form\n\x00\x01\xfe\xff", "latin1"));

const site = await startDemoSite();
const browser = await launch({ downloads: out });
try {
  console.log(`demo site at ${site.url}; extension ${browser.extensionId}`);
  const page = await browser.context.newPage();
  await page.goto(site.url);
  const tab = await tabId(browser.sw, site.url);

  const popup = await browser.context.newPage();
  await popup.goto(browser.page(`popup.html?tab=${tab}`));
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  console.log("recording tab", tab);

  const steps = await browseDemo(page, site.url, upload);
  console.log(`visited: ${steps.join(", ")}`);

  await popup.bringToFront();
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  const link = await popup.waitForSelector("#download-bundle");
  const [download] = await Promise.all([popup.waitForEvent("download"), link.click()]);
  const bundlePath = path.join(out, download.suggestedFilename());
  await download.saveAs(bundlePath);
  const failure = await download.failure();
  if (failure) throw new Error(`download failed: ${failure}`);

  const files = readZip(bundlePath);
  for (const [name, bytes] of files) {
    if (name.endsWith(".warc.gz") || name.endsWith(".cdxj")) writeFileSync(path.join(out, name), bytes);
  }
  const report = JSON.parse(files.get("report.json").toString());
  const s = report.session;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\nwebkeep demo: ${s.pages} pages, ${s.records} records, ${s.bytes} bytes of WARC, ` +
    `${s.nonGet} non-GET requests, ${s.exchanges} requests in all, ${seconds}s`);
  for (const n of s.notes || []) console.log(`  note: ${n}`);
  console.log(`out/: ${[...files.keys()].filter((n) => /\.(warc\.gz|cdxj)$/.test(n)).concat(path.basename(bundlePath)).join(", ")}`);
} finally {
  await browser.close();
  site.stop();
  rmSync(upload, { force: true });
}
