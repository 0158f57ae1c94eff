// Benchmark: what copying a file in the page costs (the browser hides the bytes of a
// file a page sends from extensions; webkeep's copier in the page copies them, see
// shared/recorder/copier.js). A file chosen with <input type=file> on the demo's /forms
// page is sent with fetch() as FormData, in two tabs, one plain and one recorded,
// alternating; the page times each upload from fetch() to its answer. At the end the
// recorded session says how many bodies it archived marked (0 means every copy was
// taken). --browser firefox measures Firefox's build (its content script copies the
// files). Needs `make build`.
//
//   node scripts/bench/filecopy.mjs [--uploads 15] [--sizes 1,16] [--browser chromium|firefox]   (MiB)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { launch, startDemoSite, tabId, waitFor } from "../lib/browser.mjs";
import { api, firefoxTabId, launchFirefox } from "../lib/firefox.mjs";
import { median, printSection, ratio } from "../lib/stats.mjs";

const { values } = parseArgs({ options: {
  uploads: { type: "string", default: "15" },
  sizes: { type: "string", default: "1,16" },
  browser: { type: "string", default: "chromium" },
} });
const uploads = Number(values.uploads);
const sizes = values.sizes.split(",").map(Number);
const firefox = values.browser === "firefox";
if (!firefox && values.browser !== "chromium") throw new Error(`--browser ${values.browser}: chromium or firefox`);

// The browser, as the benchmark drives it: tabs, the core's API, a file chosen.
async function driver() {
  if (firefox) {
    const ff = await launchFirefox();
    return {
      name: "Firefox ESR (its build's content script copies the files)",
      newTab: () => ff.browser.newPage(),
      tabId: (at) => firefoxTabId(ff.control, at),
      api: async (method, p) => JSON.parse((await api(ff.control, method, p)).bytes.toString() || "null"),
      choose: async (page, file) => (await page.$("#form-multipart input[type=file]")).uploadFile(file),
      close: () => ff.close(),
    };
  }
  const browser = await launch({});
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("popup.html"));
  return {
    name: "Chromium (its recorder's script in the page copies the files)",
    newTab: () => browser.context.newPage(),
    tabId: (at) => tabId(browser.sw, at),
    api: (method, p) => ext.evaluate(([m, q]) => fetch(q, { method: m }).then((r) => r.json()), [method, p]),
    choose: (page, file) => page.setInputFiles("#form-multipart input[type=file]", file),
    close: () => browser.close(),
  };
}

const dir = mkdtempSync(path.join(tmpdir(), "webkeep-bench-filecopy-"));
const site = await startDemoSite([]);
const browser = await driver();
const forms = new URL("/forms", site.url).href;
try {
  const tabs = [];
  for (const name of ["off", "on"]) {
    const page = await browser.newTab();
    const at = `${forms}?tab=${name}`;
    await page.goto(at);
    tabs.push({ page, id: await browser.tabId(at) });
  }
  await browser.api("POST", `/api/record/start?tab=${tabs[1].id}`);
  await waitFor(() => tabs[1].page.goto(forms).then(() => true, () => false), "the recorded tab to load");
  const rows = [];
  for (const mib of sizes) {
    const file = path.join(dir, `upload-${mib}.bin`);
    writeFileSync(file, randomBytes(mib << 20));
    const times = [[], []];
    for (let i = 0; i < uploads; i++) {
      for (const [k, { page }] of tabs.entries()) {
        await browser.choose(page, file);
        await new Promise((r) => setTimeout(r, 300));
        times[k].push(await page.evaluate(async () => {
          const t0 = performance.now();
          const res = await fetch("/submit/upload", { method: "POST", body: new FormData(document.getElementById("form-multipart")) });
          await res.json();
          return performance.now() - t0;
        }));
      }
    }
    rows.push([`upload of a ${mib} MiB chosen file with fetch(), recording off`, `${median(times[0]).toFixed(1)} ms`, `median of ${uploads}`]);
    rows.push([`same, recorded (the file copied in the page)`, `${median(times[1]).toFixed(1)} ms`, `ratio ${ratio(times[1], times[0])}`]);
  }
  // The last copies may still be being read: stopping now would cut them, which is not
  // what is measured here.
  await new Promise((r) => setTimeout(r, 5000));
  const stopped = await browser.api("POST", "/api/record/stop");
  // Why a copy was not used: the last parenthesis of each upload's note.
  const why = {};
  for (const n of stopped.notes ?? []) {
    if (!n.includes("/submit/upload: ")) continue;
    const w = n.slice(n.lastIndexOf(" (") + 2, -1).replace(/\d+/g, "N");
    if (!/^(the page's cop|no copy)/.test(w)) continue; // Chromium's and Firefox's notes alike
    why[w] = (why[w] || 0) + 1;
  }
  rows.push(["uploads archived marked (Truncated) in the recorded session", String(stopped.incomplete ?? 0), `of ${uploads * sizes.length}; why the page's copy was not used: ${JSON.stringify(why)}`]);
  const command = firefox ? "`node scripts/bench/filecopy.mjs --browser firefox`" : "`node scripts/bench/filecopy.mjs`";
  printSection(`Uploads: copying the files a page sends, in ${browser.name}`, command, rows);
  console.log(`\nLoad average at the end: ${loadavg().map((x) => x.toFixed(1)).join(", ")} (1, 5, 15 min).`);
} finally {
  await browser.close();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
}
