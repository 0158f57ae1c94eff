// Replays recorded pages inside webkeep (replay.html), for `make demo`, the end-to-end
// test and the benchmark.
import { readdirSync, readFileSync } from "node:fs";
import { setPriority } from "node:os";
import { WARCRecord, WARCSerializer } from "warcio";
import { waitFor } from "./browser.mjs";

/**
 * Writes records ([url, content type, body (bytes, or a string as UTF-8), no Content-Length, more header
 * fields]) as responses of a
 * gzipped WARC/1.1 with warcio.js, imports it as name through the API of browser's
 * extension, and resolves to the new session's id; a failed import throws.
 */
export async function importWARC(browser, name, records) {
  const parts = [];
  for (const [url, type, body, noLength, headers] of records) {
    const payload = typeof body === "string" ? new TextEncoder().encode(body) : body;
    const rec = await WARCRecord.create({
      url, type: "response", warcVersion: "WARC/1.1", date: "2024-05-06T07:08:09Z",
      httpHeaders: { "Content-Type": type, ...(noLength ? {} : { "Content-Length": String(payload.length) }), ...headers }, statusline: "HTTP/1.1 200 OK",
    }, (async function* () { yield payload; })());
    parts.push(await WARCSerializer.serialize(rec, { gzip: true }));
  }
  const file = Buffer.concat(parts);
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("archive.html"));
  const job = await ext.evaluate(async ([name, bytes]) => {
    const started = await (await fetch(`/api/import?name=${encodeURIComponent(name)}`, { method: "POST", body: new Uint8Array(bytes) })).json();
    for (;;) {
      const j = await (await fetch(`/api/jobs/${started.job}`)).json();
      if (j.state !== "running") return j;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, [name, [...file]]);
  await ext.close();
  if (job.state !== "done") throw new Error(`import ${name}: ${JSON.stringify(job)}`);
  return job.result.id;
}

/**
 * Points browser's extension at the team archive team (with token) and uploads each of
 * sessions there in turn; resolves to each upload's result. A failed upload throws.
 * With allowSite, the extension is given access to the team archive's site first, as
 * the user allows it when the options page asks on saving the endpoint (its requests
 * then go without a CORS check before each); without, they go as without access.
 */
export async function uploadToTeam(browser, team, token, sessions, { allowSite = false } = {}) {
  if (allowSite) {
    const u = new URL(team);
    await browser.grantSite(`${u.protocol}//${u.hostname}/*`);
  }
  const ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));
  try {
    const jobs = await ext.evaluate(async ([team, token, sessions]) => {
      const settings = await (await fetch("/api/settings")).json();
      const put = await fetch("/api/settings", { method: "PUT", body: JSON.stringify({ ...settings, teamEndpoint: team, teamToken: token }) });
      if (!put.ok) return `settings: ${await put.text()}`;
      const done = [];
      for (const id of sessions) {
        const { job } = await (await fetch(`/api/sessions/${id}/upload`, { method: "POST" })).json();
        for (;;) {
          const j = await (await fetch(`/api/jobs/${job}`)).json();
          if (j.state !== "running") {
            if (j.state !== "done") return `session ${id}: ${JSON.stringify(j)}`;
            done.push(j.result);
            break;
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      return done;
    }, [team, token, sessions]);
    if (typeof jobs === "string") throw new Error(`uploading to the team archive at ${team}: ${jobs}`);
    return jobs;
  } finally {
    await ext.close();
  }
}

/**
 * Opens replay.html for url of session sess, as the archive page's Replay link does, in
 * browser (from launch()); resolves to { bar, page, evaluate(fn), close() }: the replay
 * page (the bar), the tab the page replays in (a Playwright page, for clicks), and fn
 * evaluated in that tab through the extension's own debugger session (Playwright's view
 * of a tab the extension also debugs can lag, and lose its URL).
 */
export async function openReplay(browser, sess, url) {
  return openBar(browser, `session=${encodeURIComponent(sess)}&url=${encodeURIComponent(url)}`, url);
}

/** As openReplay, of url's latest capture in the team archive the settings name. */
export async function openTeamReplay(browser, url) {
  return openBar(browser, `team=1&url=${encodeURIComponent(url)}`, url);
}

async function openBar(browser, query, url) {
  const earlier = new Set(browser.context.pages());
  const bar = await browser.context.newPage();
  await bar.goto(browser.page(`replay.html?${query}`));
  return attachReplay(browser, bar, earlier).catch((e) => { throw new Error(`${url}: ${e.message}`); });
}

/**
 * Follows a replay page already open (bar; earlier: the pages open before it) until its
 * tab has loaded; resolves to what openReplay does. An error says what the bar shows.
 */
export async function attachReplay(browser, bar, earlier) {
  const withBar = async (e) => { throw new Error(`${e.message}; bar: ${await bar.textContent("body")}`); };
  await bar.waitForSelector('#state[data-state="replaying"]', { timeout: 60000 }).catch(withBar);
  const tab = Number(await bar.getAttribute("body", "data-replay-tab"));
  // Each evaluation has 5 s unless the caller gives more (a function that fetches and
  // hashes large bodies): a command the browser never answers (a tab between two
  // documents) fails, and the caller's wait goes on or gives up, instead of hanging.
  const evaluate = (fn, seconds = 5) => bar.evaluate(async ([tabId, src, seconds]) => {
    const r = await Promise.race([
      chrome.debugger.sendCommand({ tabId }, "Runtime.evaluate", { expression: `(${src})()`, returnByValue: true, awaitPromise: true }),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`Runtime.evaluate: no answer in ${seconds} s`)), seconds * 1000)),
    ]);
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.text);
    return r.result.value;
  }, [tab, fn.toString(), seconds]);
  await waitFor(() => evaluate(() => /^http/.test(location.href) && document.readyState === "complete"), "the replay tab to load", 60000)
    .catch(withBar);
  const page = browser.context.pages().find((p) => !earlier.has(p) && p !== bar);
  return {
    bar, page, evaluate,
    // The replay ends with its bar, which has its tab closed (replay.js's end).
    close: async () => {
      await bar.close();
      await waitFor(() => browser.sw.evaluate((tab) => chrome.tabs.get(tab).then(() => false, () => true), tab), "the replay tab to close");
    },
  };
}

/** Whitespace squashed, to compare the texts of pages. */
export const squash = (s) => s.replace(/\s+/g, " ").trim();

/**
 * Replays every page of live (what browseDemo collected: text by URL) of session sess and
 * compares its text with the live one; resolves to { total, matched: [url], differ: [url] }.
 */
export async function replayDemoPages(browser, sess, live) {
  const urls = Object.keys(live).filter((u) => u.startsWith("http") && !/\/submit\//.test(u));
  const res = { total: urls.length, matched: [], differ: [] };
  for (const url of urls) {
    let r;
    try {
      r = await openReplay(browser, sess, url);
      if (new URL(url).pathname === "/gallery") await waitFor(() => r.evaluate(() => Boolean(document.querySelector("#worker-status[data-done]"))), "the worker").catch(() => {});
      const text = await r.evaluate(() => document.body.innerText);
      (squash(text) === squash(live[url]) ? res.matched : res.differ).push(url);
    } catch (e) {
      res.differ.push(`${url} (${e.message.split(";")[0]})`);
    } finally {
      await r?.close();
    }
  }
  return res;
}

// The team archive's Worker runs at Cloudflare, not on the user's machine; here workerd
// shares the browser's two cores, and what it still does after answering a batch (a
// trial: a woken core's team replay took 1.19x of the Fetch domain's floor with workerd
// at the browser's priority, 0.98x at nice 19, its main thread niced;
// docs/benchmarks-history.md) slowed the page's load. niceWorkerd, called once the
// Worker has started, gives this process's workerd descendants the lowest priority:
// their answers may come later, and any that comes after a navigation's start shows
// in its load.
export function niceWorkerd() {
  const parent = new Map(); // pid -> [ppid, name]
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      parent.set(Number(pid), [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]), name]);
    } catch { /* gone meanwhile */ }
  }
  const mine = (pid) => { for (let p = pid; p > 1; p = parent.get(p)?.[0] ?? 0) if (p === process.pid) return true; return false; };
  const niced = [...parent].filter(([pid, [, name]]) => name === "workerd" && mine(pid)).map(([pid]) => pid);
  if (!niced.length) throw new Error("no workerd process of this program's to nice: start the Worker first");
  // Linux gives each thread its own priority: every thread of each is niced.
  for (const pid of niced) for (const tid of readdirSync(`/proc/${pid}/task`)) setPriority(Number(tid), 19);
}
