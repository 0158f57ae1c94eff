// End to end, in real Chromium: two sessions of the demo site recorded through the
// extension (the first: the home page, the forms page, a fetch() POST, the urlencoded
// form POST and the home page again, a revisit; the second, later: the home page
// again) are uploaded to the
// team archive Worker running in workerd (miniflare, on 127.0.0.1), then deleted from
// the extension, and the demo site is stopped (its port only counts what reaches it).
// The archive page lists the team's captures of the home page, newest first, each
// from its bundle; the home page replays from the team archive as of the oldest
// capture (the archive page's form), of the revisit and of the newest (their Replay
// links), with the text it showed live; on the forms page, the fetch() POST and the form POST replay their
// answers, found by their keys; a page never recorded gets the "not archived" page.
// Nothing reaches the demo site. With "Sign downloads with: the team archive's key",
// a WACZ download is signed by the Worker's key (its secret WEBKEEP_SIGNING_KEY).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { clickAndWait, launch, root, startDemoSite, startRecording, waitFor, guardPort } from "../../lib/browser.mjs";
import { download } from "../../lib/replaywebpage.mjs";
import { readZip } from "../../lib/zip.mjs";
import { attachReplay, openTeamReplay, squash, uploadToTeam } from "../../lib/replay.mjs";
import { startWorker } from "../worker/harness.mjs";

const TOKEN = "e2e-teamreplay-token";
let site, base, browser, ext, mf, team, guard;
const live = {};
const sessions = []; // the two sessions' ids, in the order recorded
let captures = []; // the archive page's rows of the home page's captures: { ts, source, href }

const api = (method, p, body) => ext.evaluate(async ([method, p, body]) => {
  const res = await fetch(p, { method, body, headers: body ? { "Content-Type": "application/json" } : {} });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}, [method, p, body]);
const text = (page) => page.evaluate(() => document.body.innerText);

// record starts recording a tab (the popup's button), runs visit in it, stops, and
// resolves to the session's id.
async function record(visit) {
  const { page, popup } = await startRecording(browser, new URL("/missing", base).href);
  await page.bringToFront();
  await visit(page);
  await popup.bringToFront();
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]', { timeout: 120000 });
  const id = new URL(await popup.getAttribute("#to-archive", "href"), "http://x/").hash.slice(1);
  await page.close();
  await popup.close();
  return id;
}

const webkeep = path.join(root, "bin", "webkeep");
const keyDir = mkdtempSync(path.join(tmpdir(), "webkeep-teamkey-"));
const teamKey = path.join(keyDir, "team.pem");

before(async () => {
  // The Worker as the Worker tests run it (its R2 bucket, the merged index's stores),
  // served by miniflare on 127.0.0.1 at a free port, where Chromium reaches it; it
  // holds the team's signing key.
  execFileSync(webkeep, ["wacz", "keygen", "-o", teamKey]);
  mf = startWorker({ WEBKEEP_TOKENS: `e2e:${TOKEN}`, WEBKEEP_PUBLIC_READS: "0", WEBKEEP_SIGNING_KEY: readFileSync(teamKey, "utf8") });
  team = (await mf.ready).href;
  assert.match(team, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  site = await startDemoSite();
  base = site.url;
  browser = await launch({});
  ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));

  sessions.push(await record(async (page) => {
    await page.goto(base);
    live.home = await text(page);
    await page.goto(new URL("/forms", base).href);
    live.forms = await text(page);
    await clickAndWait(page, "#post-json");
    live.postJSON = (await page.textContent("#out")).trim();
    await Promise.all([page.waitForURL("**/submit/form"), page.click("#form-urlencoded button")]);
    live.submitted = await text(page);
    // The home page again, a second later at least: its payload is the session's
    // already, so the session writes a revisit of it.
    await new Promise((r) => setTimeout(r, 1100));
    await page.goto(base);
    live.homeRevisited = await text(page);
  }));
  await new Promise((r) => setTimeout(r, 1100)); // the next capture a second later at least
  sessions.push(await record(async (page) => {
    await page.goto(base);
    live.homeAgain = await text(page);
  }));

  // Both sessions go to the team archive, and are deleted from the extension.
  const saved = await api("PUT", "/api/settings", JSON.stringify({ headerPolicy: "redact", warcVersion: "0.9", cdxDialect: "pywb-2.6.7", agent: "webkeep", teamEndpoint: team, teamToken: TOKEN }));
  assert.equal(saved.status, 200, JSON.stringify(saved.json));
  const uploads = await uploadToTeam(browser, team, TOKEN, sessions);
  for (const id of sessions) {
    const del = await api("DELETE", `/api/sessions/${id}`);
    assert.equal(del.status, 204, JSON.stringify(del.json));
  }
  // The second session visited the home page again: its payloads the team holds
  // from the first go as revisits.
  assert.equal(uploads[0].dedup?.revisits ?? 0, 0, JSON.stringify(uploads[0]));
  assert.ok(uploads[1].dedup?.revisits >= 1 && uploads[1].dedup.bytesSaved > 0, `the second upload deduplicates: ${JSON.stringify(uploads[1])}`);
  const left = (await api("GET", "/api/sessions")).json.map((s) => s.id);
  assert.deepEqual(left.filter((id) => sessions.includes(id)), [], "the sessions are deleted from the extension");

  // The demo site is stopped; its port now only counts what reaches it.
  guard = await guardPort(site);
  site = null;
}, { timeout: 600000 });

after(async () => {
  await browser?.close();
  guard?.close();
  site?.stop();
  await mf?.dispose();
});

// The bar's count of requests not in the archive, once it has been brought up to date.
const missed = async (r) => {
  await new Promise((res) => setTimeout(res, 300));
  return `${await r.bar.textContent("#replay-missed-count")} ${await r.bar.textContent("#replay-missed")}`;
};

const utc = (ts) => ts.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, "$1-$2-$3 $4:$5:$6");

let archive;
test("the archive page lists the team's captures of a URL, newest first, each from its bundle", async () => {
  archive = await browser.context.newPage();
  await archive.goto(browser.page("archive.html"));
  await archive.waitForSelector('body[data-ready="true"]');
  await archive.fill("#team-captures-url", base);
  await archive.click("#team-captures-list");
  await archive.waitForSelector("#team-captures tr", { timeout: 30000 })
    .catch(async (e) => { throw new Error(`${e.message}: ${await archive.textContent("#error")}`); });
  captures = await archive.$$eval("#team-captures tr", (rows) => rows.map((r) => ({
    ts: r.dataset.timestamp, source: r.dataset.source, href: r.querySelector("a.replay").getAttribute("href"), cells: [...r.cells].map((c) => c.textContent),
  })));
  assert.equal(captures.length, 3, JSON.stringify(captures));
  assert.ok(captures[0].ts > captures[1].ts && captures[1].ts > captures[2].ts, `newest first: ${JSON.stringify(captures)}`);
  assert.deepEqual(captures.map((c) => c.source), [`webkeep-${sessions[1]}.zip`, `webkeep-${sessions[0]}.zip`, `webkeep-${sessions[0]}.zip`]);
  assert.deepEqual(captures.map((c) => c.cells[1]), [
    captures[0].cells[1] === "revisit" ? "revisit" : "200", // a revisit of the first session's when the upload dedups
    "revisit", "200",
  ]);
  for (const c of captures) {
    assert.equal(c.cells[0], utc(c.ts));
    assert.equal(c.href, `replay.html?team=1&ts=${c.ts}&url=${encodeURIComponent(base)}`);
  }
  assert.match(await archive.textContent("#team-captures-count"), /^3 captures of .* newest first/);
}, { timeout: 120000 });

test("a page replays from the team archive as of a time, started from the archive page", async () => {
  assert.ok(captures.length === 3, "the captures were listed");
  await archive.fill("#team-replay-url", base);
  await archive.fill("#team-replay-ts", captures[2].ts);
  const earlier = new Set(browser.context.pages());
  const [bar] = await Promise.all([browser.context.waitForEvent("page"), archive.click("#team-replay")]);
  assert.match(bar.url(), /\/replay\.html\?team=1&/);
  const r = await attachReplay(browser, bar, earlier);
  assert.equal(squash(await r.evaluate(() => document.body.innerText)), squash(live.home));
  const images = await r.evaluate(() => [...document.images].map((i) => i.complete && i.naturalWidth > 0));
  assert.deepEqual(images, [true, true], "the logo and the pixel, from the team archive");
  // The page and its images came in the page's batch, made from the bundle that holds
  // the page, not asked of the team archive one by one.
  const answered = await r.bar.evaluate(() => ({ batch: timeline.batch, core: timeline.core, requests: timeline.requests.map((s) => `${s.from} ${s.url}`) }));
  assert.ok(answered.batch >= 3 && answered.core === 0, `answered from the batch / by the core: ${JSON.stringify(answered)}`);
  // The tab was navigated once the batch was in: the document did not wait for it.
  const marks = await r.bar.evaluate(() => ({ batchIn: timeline.batchIn, batchLoaded: timeline.batchLoaded, navigate: timeline.navigate, documentPaused: timeline.documentPaused }));
  assert.ok(marks.batchLoaded && marks.batchLoaded <= marks.navigate && marks.navigate < marks.documentPaused, `the batch before the navigation: ${JSON.stringify(marks)}`);
  // The page's captures are counted once it has loaded, not before its tab is made.
  await waitFor(async () => (await r.bar.textContent("#replay-session")).endsWith(")"), "the count of the page's captures in the bar");
  assert.match(await r.bar.textContent("#replay-session"), /^Team archive at http:\/\/127\.0\.0\.1:\d+\/ \(3 captures\)$/);
  await waitFor(async () => (await r.bar.textContent("#replay-time")) !== "", "the capture's time in the bar");
  assert.equal(await r.bar.textContent("#replay-time"), utc(captures[2].ts));
  assert.equal(await missed(r), "0 ");
  // The batch was made by the Worker, in one request.
  assert.match(await r.bar.evaluate(() => timeline.batchSteps), /guess;desc=worker/);
  await r.close();
  // The same page as of the same time again, at once: the core names the batch it
  // kept, and takes it when the Worker's lookup finds the same capture (304).
  const before = new Set(browser.context.pages());
  const [again] = await Promise.all([browser.context.waitForEvent("page"), archive.click("#team-replay")]);
  const r2 = await attachReplay(browser, again, before);
  assert.equal(squash(await r2.evaluate(() => document.body.innerText)), squash(live.home));
  assert.match(await r2.bar.evaluate(() => timeline.batchSteps), /guess;desc=kept/);
  // Again once the browser stopped the extension's worker, which kept nothing: the
  // browser's cache kept the batch, and the Worker's lookup said it is unchanged (304).
  const cdp = await browser.context.newCDPSession(r2.bar);
  await cdp.send("ServiceWorker.enable");
  await cdp.send("ServiceWorker.stopAllWorkers");
  await r2.close();
  const woken = new Set(browser.context.pages());
  const [third] = await Promise.all([browser.context.waitForEvent("page"), archive.click("#team-replay")]);
  const r3 = await attachReplay(browser, third, woken);
  assert.equal(squash(await r3.evaluate(() => document.body.innerText)), squash(live.home));
  const steps = await r3.bar.evaluate(() => timeline.batchSteps);
  assert.match(steps, /batch;desc=unchanged.*guess;desc=cached/);
  assert.doesNotMatch(steps, /index;dur=/, "the Worker read no bundle's index");
  await r3.close();
}, { timeout: 120000 });

// The revisit answers with its own header and its original's payload, which the core
// finds by its digest in the team archive.
for (const [i, what, page] of [[1, "the revisit's", "homeRevisited"], [0, "the newest capture's", "homeAgain"]]) {
  test(`${what} Replay link replays it`, async () => {
    const earlier = new Set(browser.context.pages());
    const [bar] = await Promise.all([browser.context.waitForEvent("page"), archive.click(`#team-captures tr[data-timestamp="${captures[i].ts}"] a.replay`)]);
    const r = await attachReplay(browser, bar, earlier);
    assert.equal(squash(await r.evaluate(() => document.body.innerText)), squash(live[page]));
    await waitFor(async () => (await r.bar.textContent("#replay-time")) !== "", "the capture's time in the bar");
    assert.equal(await r.bar.textContent("#replay-time"), utc(captures[i].ts));
    assert.equal(await missed(r), "0 ");
    await r.close();
  }, { timeout: 120000 });
}

test("the fetch() POST and the form POST replay from the team archive, by their keys", async () => {
  const r = await openTeamReplay(browser, new URL("/forms", base).href);
  assert.equal(squash(await r.evaluate(() => document.body.innerText)), squash(live.forms));
  await r.page.click("#post-json");
  await r.page.waitForSelector("#post-json[data-done]", { timeout: 30000 });
  assert.equal((await r.page.textContent("#out")).trim(), live.postJSON);
  await Promise.all([r.page.waitForURL("**/submit/form"), r.page.click("#form-urlencoded button")]);
  await waitFor(() => r.evaluate(() => document.readyState === "complete"), "the form's answer");
  assert.equal(squash(await r.evaluate(() => document.body.innerText)), squash(live.submitted));
  assert.equal(await r.bar.textContent("#replay-approx-count"), "0", await r.bar.textContent("#replay-approx"));
  assert.equal(await missed(r), "0 ");

  // A page never recorded: the "not archived" page, in the bar's list.
  const never = new URL("/never-recorded", base).href;
  await r.evaluate(new Function(`location.href = ${JSON.stringify(never)}`));
  await waitFor(() => r.evaluate(new Function(`return location.href === ${JSON.stringify(never)} && document.readyState === "complete"`)), "the never-recorded page");
  assert.equal(await r.evaluate(() => document.getElementById("webkeep-not-archived").textContent), `GET ${never}`);
  assert.match(await r.evaluate(() => document.body.innerText), /in the team archive/);
  await waitFor(async () => (await r.bar.textContent("#replay-missed")).includes(never), "the miss in the bar");
  await r.close();
}, { timeout: 120000 });

test("the demo site got no request while the team archive replayed it", () => {
  assert.equal(guard.hits(), 0);
});

test("signing with the team's key: the WACZ download is signed by the team archive", async () => {
  const settings = (await api("GET", "/api/settings")).json;
  const saved = await api("PUT", "/api/settings", JSON.stringify({ ...settings, signWith: "team" }));
  assert.equal(saved.status, 200, JSON.stringify(saved.json));
  try {
    // A session to download: a WARC imported (the demo site is stopped).
    const archive = await browser.context.newPage();
    await archive.goto(browser.page("archive.html"));
    await archive.waitForSelector("body[data-ready]");
    const before = archive.url();
    await archive.setInputFiles("#import-file", path.join(root, "shared", "teamarchive", "testdata", "sample-2025.warc.gz"));
    await archive.waitForSelector('#jobs .job[data-state="done"]', { timeout: 120000 });
    await waitFor(() => archive.url() !== before && archive.url().includes("#"), "the imported session to open");
    const id = new URL(archive.url()).hash.slice(1);
    const file = await download(archive, keyDir, `/api/sessions/${id}/wacz`, "team-signed.wacz");
    await archive.close();
    const sd = JSON.parse(readZip(file).get("datapackage-digest.json").toString("utf8")).signedData;
    assert.equal(sd.software, "webkeep team archive");
    const info = await (await fetch(new URL("/api/signing", team), { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
    assert.equal(sd.publicKey, info.publicKey);
    const v = spawnSync(webkeep, ["wacz", "verify", "--key", teamKey, file], { encoding: "utf8" });
    assert.equal(v.status, 0, v.stdout + v.stderr);
    assert.match(v.stdout, new RegExp(`signed by key ${info.fingerprint} \\(ECDSA P-384\\)`));
  } finally {
    await api("PUT", "/api/settings", JSON.stringify(settings));
    rmSync(keyDir, { recursive: true, force: true });
  }
}, { timeout: 180000 });
