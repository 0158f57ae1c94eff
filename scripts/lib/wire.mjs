// Compares what crossed the wire (scripts/tools/wireproxy's log) with a session's archive and
// with what a plain DevTools client heard: for the real-site test and benchmark.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { tabId, waitFor } from "./browser.mjs";
import { httpBody, readWarc09, reassemble } from "./warc09.mjs";

const sha256 = (b) => createHash("sha256").update(b).digest("hex");
const target = (u) => { const x = new URL(u); return x.pathname + x.search; };
const key = (method, url) => `${method} ${url}`;

/**
 * The exchanges of a session's records (reassembled): { method, url (path and query),
 * requestSHA, requestTruncated, status (0: no response), head, bodySHA, bodySize,
 * truncated, notes }.
 * A revisit's body is its original's, found by payload digest.
 */
export function archivedExchanges(records) {
  const bodies = new Map();
  for (const r of records) {
    if (r.type !== "response") continue;
    const digest = r.fields["Payload-Digest"] || r.fields["WARC-Payload-Digest"];
    if (digest) bodies.set(digest, httpBody(r.block).body);
  }
  const byRequest = new Map();
  const out = [];
  for (const r of records) {
    if (r.type !== "request") continue;
    const { head, body } = httpBody(r.block);
    const ex = {
      id: r.id, method: head.split(" ")[0], url: target(r.uri), requestSHA: sha256(body),
      requestTruncated: r.fields.Truncated || "", status: 0, head: "", bodySHA: "", truncated: "", notes: [],
    };
    byRequest.set(r.id, ex);
    out.push(ex);
  }
  for (const r of records) {
    const ex = byRequest.get(r.fields["Related-Record-ID"]);
    if (!ex) continue;
    if (r.type === "metadata") ex.notes.push(r.block.toString("utf8"));
    if (r.type !== "response" && r.type !== "revisit") continue;
    const { head, body } = httpBody(r.block);
    ex.head = head;
    ex.status = Number(head.split(" ")[1]);
    ex.truncated = r.fields.Truncated || "";
    const original = r.type === "revisit" ? bodies.get(r.fields["WARC-Payload-Digest"] || r.fields["Payload-Digest"]) : body;
    ex.bodySHA = original ? sha256(original) : "(revisit of a payload not in the session)";
    ex.bodySize = original ? original.length : -1;
  }
  return out;
}

/** A note in general words: URLs, numbers and quoted values left out, to count by. */
export const reasonOf = (note) => note
  .replace(/https?:\/\/\S+/g, "URL").replace(/\d+/g, "N").replace(/"[^"]*"/g, "…").trim();

const setCookies = (lines) => lines.filter(([name]) => /^set-cookie$/i.test(name)).length;
const headFields = (head) => head.split("\r\n").slice(1).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]);

/**
 * Pairs each exchange on the wire with an archived one (same method and URL; the same
 * bodies first) and sorts them:
 * - exact: status, request body, response body (decoded as the browser gives it) and
 *   the number of Set-Cookie fields as on the wire (exactNoted counts those with a
 *   note, by its reason);
 * - marked: archived otherwise, with a mark in its own records (Truncated, a note that
 *   says why, or a "no response" note), counted by the note's reason, and listed in
 *   marks with the body's size on the wire and as archived (-1: no response);
 * - unmarked: archived otherwise, with no mark: what must never happen;
 * - missing: on the wire, not in the archive; each says how many times the plain
 *   DevTools client heard of its method and URL (devtools: the { method, url } of each
 *   request it was told of), how many exchanges of them the wire carried, how many the
 *   archive holds, and how many it holds as served by the browser's cache.
 * A 304 on the wire is the server's answer to the browser's revalidation of its cached
 * copy: archived as sent (status 304, no body), or as the cached copy the browser's HTTP
 * cache gave the page (status 200, its note saying so) with a body the wire carried
 * for that URL before, it is exact, and counted apart as revalidated too.
 * Archived exchanges that the browser's cache served (their note says "served from the
 * browser's ... cache") never crossed the wire and are not paired with it: each is
 * counted as cached if its body is one the wire carried for its method and URL before
 * (earlier: the wire's log up to the end of the run, from before it too), as cached
 * marked if its record is marked, and as an unmarked difference otherwise; one whose
 * note says the browser did not tell whether the server was asked (Firefox) stands for
 * a 304 on the wire if there is one left, else is counted so. Other
 * archived exchanges the wire never saw (cancelled before they were sent) are extra;
 * one of them with a response is an unmarked difference. missingHeard lists, by method
 * and URL, the missing exchanges that the plain client was told of (of requests that
 * its cache did not serve): more missing than the wire carried beyond what it was told
 * ("beyond" of them).
 */
export function compareWire(wire, archived, devtools, earlier = wire) {
  const groups = new Map();
  const group = (k) => { if (!groups.has(k)) groups.set(k, { wire: [], archived: [] }); return groups.get(k); };
  const fromCache = (a) => a.notes.some((n) => n.startsWith("served from the browser's"));
  // Firefox says only that its HTTP cache gave the page its copy, not whether the
  // server was asked first: such a copy may stand for a 304 on the wire, or for none.
  const unsaid = (a) => a.notes.some((n) => n.includes("does not say whether it asked the server to revalidate"));
  // The browser's HTTP cache revalidated its copy (a 304 on the wire) and gave the page
  // that copy, which is archived.
  const cachedCopy = (a) => a.status === 200 && (unsaid(a) || a.notes.some((n) => n.includes("the page got the cached response")));
  for (const w of wire) group(key(w.method, w.url)).wire.push(w);
  for (const a of archived) if (!fromCache(a) || unsaid(a)) group(key(a.method, a.url)).archived.push(a);
  const heard = new Map();
  for (const d of devtools) if (!d.cached) heard.set(key(d.method, d.url), (heard.get(key(d.method, d.url)) || 0) + 1);

  const report = { wire: wire.length, exact: 0, exactNoted: {}, revalidated: 0, cached: 0, cachedMarked: {}, marked: {}, marks: [], unmarked: [], missing: [], extra: [] };
  const carried = new Map(); // method and URL -> the SHA-256 of each body the wire carried for them
  for (const w of earlier) {
    if (w.status !== 200 || !w.complete) continue;
    if (!carried.has(key(w.method, w.url))) carried.set(key(w.method, w.url), new Set());
    carried.get(key(w.method, w.url)).add(w.decoded_sha256);
  }
  const countCached = (a) => {
    const why = a.notes.filter((n) => !n.startsWith("served from the browser's")).map(reasonOf).join(" / ");
    if (a.status === 200 && !a.truncated && carried.get(key(a.method, a.url))?.has(a.bodySHA)) report.cached++;
    else if (a.truncated && why) report.cachedMarked[why] = (report.cachedMarked[why] || 0) + 1;
    else report.unmarked.push({ method: a.method, url: a.url, what: `served from the browser's cache, archived with status ${a.status} and a body (${a.bodySize} bytes) the wire never carried for it (it carried ${[...new Set(earlier.filter((w) => key(w.method, w.url) === key(a.method, a.url)).map((w) => `${w.status} ${w.complete ? "" : "incomplete "}${w.decoded_size}`))].join(", ") || "nothing"})` });
  };
  const servedByCache = new Map(); // method and URL -> how many the browser's cache served
  for (const a of archived) {
    if (!fromCache(a) || unsaid(a)) continue;
    countCached(a);
    servedByCache.set(key(a.method, a.url), (servedByCache.get(key(a.method, a.url)) || 0) + 1);
  }
  let current;
  const mark = (reason, a) => {
    report.marked[reason] = (report.marked[reason] || 0) + 1;
    report.marks.push({ method: current.method, url: current.url, reason, onWire: current.decoded_size, archived: a.status ? a.bodySize : -1 });
  };
  const responseExact = (w, a) => a.status === w.status && a.bodySHA === w.decoded_sha256 && setCookies(headFields(a.head)) === setCookies(w.headers);
  for (const [k, g] of groups) {
    const left = [...g.archived];
    const take = (f) => {
      for (const w of g.wire.filter((x) => !x.paired)) {
        const i = left.findIndex((a) => f(w, a));
        if (i >= 0) { w.paired = left.splice(i, 1)[0]; }
      }
    };
    // A cached copy given to the page stands for a 304 on the wire, and for nothing else.
    take((w, a) => w.status === 304 && cachedCopy(a));
    take((w, a) => a.requestSHA === w.request_sha256 && responseExact(w, a) && !cachedCopy(a));
    // Then by status, before a record with no response may stand for an exchange: a
    // record with the wire's status would otherwise be left over, "never on the wire",
    // while one with no response took its exchange.
    take((w, a) => a.requestSHA === w.request_sha256 && a.status === w.status && !cachedCopy(a));
    take((w, a) => a.requestSHA === w.request_sha256 && a.status === 0 && !cachedCopy(a));
    take(() => true);
    for (const w of g.wire) {
      const a = w.paired;
      delete w.paired;
      current = w;
      if (!a) {
        const told = heard.get(k) || 0;
        report.missing.push({ method: w.method, url: w.url, status: w.status, heardByDevTools: told, onWire: g.wire.length, archived: g.archived.length, cached: servedByCache.get(k) || 0 });
        continue;
      }
      const why = a.notes.map(reasonOf).join(" / ");
      const requestOK = a.requestSHA === w.request_sha256;
      if (a.status === 0) {
        mark(why || "no response (no note)", a);
        if (!why) report.unmarked.push({ url: w.url, what: "no response and no note" });
        continue;
      }
      const responseOK = responseExact(w, a);
      if (requestOK && responseOK) {
        report.exact++;
        if (w.status === 304) report.revalidated++;
        if (why) report.exactNoted[why] = (report.exactNoted[why] || 0) + 1;
        continue;
      }
      if (requestOK && w.status === 304 && cachedCopy(a) && !a.truncated && carried.get(k)?.has(a.bodySHA)) { report.exact++; report.revalidated++; continue; }
      const requestMarked = requestOK || a.requestTruncated || a.notes.length > 0;
      const responseMarked = responseOK || (a.truncated && a.notes.length > 0);
      if (requestMarked && responseMarked) { mark(why, a); continue; }
      report.unmarked.push({
        method: w.method, url: w.url,
        what: [
          !requestMarked && `request body: ${w.request_size} bytes on the wire, archived otherwise`,
          !responseMarked && `response: ${w.status} ${w.decoded_size} bytes (${setCookies(w.headers)} Set-Cookie) on the wire, archived ${a.status} (${setCookies(headFields(a.head))} Set-Cookie) ${a.bodySHA === w.decoded_sha256 ? "same body" : "other body"}${a.truncated ? `, Truncated: ${a.truncated} with no note` : ""}`,
        ].filter(Boolean).join("; "),
      });
    }
    for (const a of left) {
      if (unsaid(a)) { countCached(a); continue; }
      report.extra.push({ method: a.method, url: a.url, status: a.status, notes: a.notes.map(reasonOf) });
      if (a.status !== 0) {
        // What else of the same method and URL there was, to tell a duplicate from a
        // response the browser served without saying so.
        const described = (x) => `${x.status}${x.notes.length ? ` (${x.notes.map(reasonOf).join(" / ")})` : ""}`;
        const others = g.archived.filter((x) => x !== a).map(described);
        report.unmarked.push({
          method: a.method, url: a.url,
          what: `archived with status ${described(a)}, never on the wire; the wire carried ${g.wire.map((w) => w.status).join(", ") || "nothing"} for it, the archive also holds ${others.join(", ") || "nothing"} and ${archived.filter((x) => fromCache(x) && key(x.method, x.url) === k).length} served from the browser's cache`,
        });
      }
    }
  }
  // A missing exchange is one the browser kept from DevTools if, of the exchanges with
  // its method and URL, fewer were told to the plain client than crossed the wire.
  const missingBy = new Map();
  for (const m of report.missing) missingBy.set(key(m.method, m.url), (missingBy.get(key(m.method, m.url)) || 0) + 1);
  report.missingHeard = [];
  for (const [k, n] of missingBy) {
    const onWire = groups.get(k).wire.length;
    const told = heard.get(k) || 0;
    const beyond = n - Math.max(0, onWire - told);
    if (beyond > 0) report.missingHeard.push({ exchange: k, onWire, missing: n, toldToDevTools: told, archived: onWire - n, beyond });
  }
  return report;
}

/**
 * The requests the browser never reported to webkeep, as a stopped session's info
 * (its notes) says: { count, note } (0 and "" when it says none). See
 * shared/recorder/unreported.go.
 */
export function unreportedRequests(info) {
  const note = (info.notes || []).find((n) => /begun by pages left as they loaded (is|are) not in the archive/.test(n)) || "";
  return { count: Number(note.match(/^(\d+) requests? begun/)?.[1] || 0), note };
}

/** One missing exchange of a compareWire report, in words. */
export const describeMissing = (m) => `${m.method} ${m.url} (${m.status}); told to the plain DevTools client ${m.heardByDevTools} times; ${m.onWire} on the wire, ${m.archived} archived (and ${m.cached} served from the browser's cache)`;

/** One line of a report, for a person: counts, marks by reason, what is missing. */
export function summary(report) {
  const marked = Object.values(report.marked).reduce((a, b) => a + b, 0);
  const missing = report.missing.map((m) => `${m.method} ${m.url}`).join(", ");
  const cachedMarked = Object.values(report.cachedMarked).reduce((a, b) => a + b, 0);
  return `${report.wire} exchanges on the wire: ${report.exact} archived byte-exact (${report.revalidated} of them 304 revalidations; with a note: ${JSON.stringify(report.exactNoted)}), ${marked} archived marked ${JSON.stringify(report.marked)}, ${report.missing.length} missing${missing ? ` (${missing})` : ""}, ${report.unmarked.length} unmarked differences; served from the browser's cache, never on the wire: ${report.cached} archived with a body the wire carried before, ${cachedMarked} marked ${JSON.stringify(report.cachedMarked)}; ${report.extra.length} archived exchanges never reached the wire`;
}

// api calls the extension's API from one of its pages (ext).
const api = (ext, method, p) => ext.evaluate(async ([method, p]) => {
  const res = await fetch(p, { method });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}, [method, p]);

/** Fetches session id's WARC through ext, an extension page, and reads its records. */
export const sessionRecords = async (ext, id) => reassemble(readWarc09(Buffer.from(await ext.evaluate(async (p) => {
  const b = new Uint8Array(await (await fetch(p)).arrayBuffer());
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}, `/api/sessions/${id}/warc.gz`), "base64")));

/** Waits until site's wire has been quiet for 2 s: every exchange begun has ended. */
export async function wireQuiet(site) {
  let n = -1, since = Date.now();
  await waitFor(() => {
    const now = site.wire().length;
    if (now !== n) { n = now; since = Date.now(); }
    return Date.now() - since > 2000;
  }, "the wire to be quiet", 60000);
}

/**
 * Records what act(page) does in a new tab opened at site's start page (site: as
 * startDokuWiki gives it; site.start, if any, is the start page's path), with the
 * recording started and stopped through the API of the extension page ext, and a
 * plain DevTools client (Network.enable, nothing else) attached to the same tab from
 * before the recording starts. Resolves to { id (the session's), records, info (the
 * stopped session), wire (the exchanges begun meanwhile), devtools (the requests the
 * plain client was told of: { method, url, cached: whether the browser's cache
 * answered it }), stopMs (how long Stop took to answer), report (compareWire's) }.
 */
export async function recordAgainstWire(browser, ext, site, act) {
  const page = await browser.context.newPage();
  const startURL = new URL(site.start ?? "doku.php?id=start", site.url).href;
  await page.goto(startURL);
  const tab = await tabId(browser.sw, startURL);
  const cdp = await browser.context.newCDPSession(page);
  const devtools = [];
  const told = new Map(); // request id -> its entry in devtools (the last hop's)
  cdp.on("Network.requestWillBeSent", (e) => {
    if (!e.request.url.startsWith(site.url)) return;
    const d = { method: e.request.method, url: target(e.request.url), cached: false };
    devtools.push(d);
    told.set(e.requestId, d);
  });
  // Requests the browser's cache answered never reach the wire.
  const cached = (id) => { if (told.has(id)) told.get(id).cached = true; };
  cdp.on("Network.requestServedFromCache", (e) => cached(e.requestId));
  cdp.on("Network.responseReceived", (e) => { if (e.response.fromDiskCache || e.response.fromPrefetchCache) cached(e.requestId); });
  await cdp.send("Network.enable");
  await wireQuiet(site);
  devtools.length = 0;
  const t0 = Date.now();
  const start = await api(ext, "POST", `/api/record/start?tab=${tab}`);
  if (start.status !== 200) throw new Error(`start: ${start.status} ${JSON.stringify(start.json)}`);
  await act(page);
  await wireQuiet(site);
  const asked = Date.now();
  const stop = await api(ext, "POST", "/api/record/stop");
  if (stop.status !== 200) throw new Error(`stop: ${stop.status} ${JSON.stringify(stop.json)}`);
  const t1 = Date.now();
  const stopMs = t1 - asked;
  await cdp.detach();
  await page.close();
  const records = await sessionRecords(ext, start.json.id);
  return { id: start.json.id, records, info: stop.json, devtools, stopMs, ...compareRun(site, t0, t1, records, devtools) };
}

/**
 * Compares a run's records with site's wire between the times t0 and t1 (Date.now()):
 * { wire (the exchanges begun meanwhile), report (compareWire's, with devtools) }.
 */
export function compareRun(site, t0, t1, records, devtools = []) {
  const earlier = site.wire().filter((w) => w.start <= t1);
  const wire = earlier.filter((w) => w.start >= t0);
  return { wire, report: compareWire(wire, archivedExchanges(records), devtools, earlier) };
}

/** Runs replay() and asserts that site saw no exchange meanwhile: nothing live was asked. */
export async function offline(site, replay) {
  const before = site.wire().length;
  await replay();
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(site.wire().slice(before).map((w) => `${w.method} ${w.url}`), [], "the replay reached the live site");
}
