// End to end, in headless Firefox ESR through webkeep's Firefox build: recording
// survives what Firefox does to an add-on's background page, as scripts/test/e2e/
// resilience.test.mjs checks in Chromium. Only the recorded tab and the tab it opens are
// recorded, not another tab of the same site; Firefox suspends the background page (a
// test profile makes it do so after 5 s idle instead of 30) in the middle of the
// session, and the next request of the recorded tab starts it again; recording goes on
// in both tabs, Stop ends it, and every exchange the recorded tabs made, before and
// after, is in the WARC as the site sent it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { clickAndWait, startDemoSite, waitFor } from "../../lib/browser.mjs";
import { api, firefoxTabId, launchFirefox, openExtensionPage } from "../../lib/firefox.mjs";
import { readWarc09, reassemble } from "../../lib/warc09.mjs";
import { archivedExchanges } from "../../lib/wire.mjs";

const idleMs = 5000;
let site, firefox, records, serverLog, statusAfter, session, tabIds, suspended, restarted;

// The background page's marker: set in the page now running, gone from a new one.
const mark = (page) => page.evaluate(async () => { (await browser.runtime.getBackgroundPage()).webkeepMarked = true; });
const marked = (page) => page.evaluate(async () => Boolean((await browser.runtime.getBackgroundPage()).webkeepMarked));

before(async () => {
  site = await startDemoSite();
  firefox = await launchFirefox({ prefs: { "extensions.background.idle.timeout": idleMs } });
  const control = firefox.control;
  const recordedTab = await firefox.browser.newPage();
  await recordedTab.goto(site.url);
  const other = await firefox.browser.newPage();
  await other.goto(new URL("/data.txt?tab=other", site.url).href);
  const recordedId = await firefoxTabId(control, site.url);
  const unrecorded = (await site.log()).length;
  const started = await api(control, "POST", `/api/record/start?tab=${recordedId}`);
  assert.equal(started.status, 200, String(started.bytes));

  await recordedTab.goto(new URL("/gallery", site.url).href);
  // A tab the recorded tab opens, by a link the user clicks, is recorded too.
  await recordedTab.evaluate(() => {
    const a = Object.assign(document.createElement("a"), { href: "/forms?tab=opened", target: "_blank", id: "open-forms", textContent: "forms" });
    document.body.append(a);
  });
  await recordedTab.click("#open-forms");
  const openedId = await firefoxTabId(control, new URL("/forms?tab=opened", site.url).href);
  await waitFor(async () => JSON.parse((await api(control, "GET", "/api/status")).bytes).tabs.includes(openedId), "the opened tab to be recorded");
  const opened = await waitFor(async () => (await firefox.browser.pages()).find((p) => p.url().includes("tab=opened")), "the opened tab's page");
  // Its requests wait until the core has attached it: it is recorded from its first.
  await waitFor(() => opened.evaluate(() => document.readyState === "complete" && Boolean(document.querySelector("#post-binary"))), "the opened tab to load", 60000);
  tabIds = { recorded: recordedId, opened: openedId };

  // Left idle with no page of the add-on open, the background page is suspended.
  await mark(control);
  await control.goto("about:blank");
  await new Promise((r) => setTimeout(r, 3 * idleMs));
  // The unrecorded tab's request, then the recorded tabs' (the first of which starts
  // the background page again).
  await other.goto(new URL("/data.txt?tab=other-again", site.url).href);
  await recordedTab.goto(new URL("/forms", site.url).href);
  await clickAndWait(recordedTab, "#post-json");
  await clickAndWait(opened, "#post-binary");
  await openExtensionPage(control, firefox.page("popup.html"));
  suspended = !(await marked(control));
  statusAfter = JSON.parse((await api(control, "GET", "/api/status")).bytes);
  // Suspended again, then Stop starts it.
  await mark(control);
  await control.goto("about:blank");
  await new Promise((r) => setTimeout(r, 3 * idleMs));
  await recordedTab.goto(new URL("/data.txt?tab=recorded-last", site.url).href);
  await openExtensionPage(control, firefox.page("popup.html"));
  restarted = !(await marked(control));
  const stopped = await api(control, "POST", "/api/record/stop");
  assert.equal(stopped.status, 200, String(stopped.bytes));
  session = JSON.parse(stopped.bytes);
  const warc = await api(control, "GET", `/api/sessions/${encodeURIComponent(session.id)}/warc.gz`);
  records = reassemble(readWarc09(warc.bytes));
  serverLog = (await site.log()).slice(unrecorded).filter((e) => !e.url.startsWith("/favicon"));
}, { timeout: 300000 });

after(async () => {
  await firefox?.close();
  site?.stop();
});


test("the background page was really suspended and started again, twice", () => {
  assert.ok(suspended, "the background page of the first part was still running");
  assert.ok(restarted, "the background page of the second part was still running");
});

test("after the restart, both tabs are still recorded, and only they", () => {
  assert.equal(statusAfter.recording, true);
  assert.deepEqual([...statusAfter.tabs].sort(), [tabIds.recorded, tabIds.opened].sort());
});

test("nothing the recorded tabs loaded is lost, before or after", () => {
  const ours = serverLog.filter((e) => !e.url.includes("tab=other"));
  for (const url of ["/gallery", "/forms?tab=opened", "/forms", "/api/json", "/api/binary", "/data.txt?tab=recorded-last"]) {
    assert.ok(ours.some((e) => e.url === url), `the site saw ${url}: ${ours.map((e) => e.url).join(" ")}`);
  }
  // A response whose body was archived before (the same page at another address) is a
  // revisit: its body is its original's.
  const archived = archivedExchanges(records);
  for (const entry of ours) {
    const found = archived.filter((x) => x.method === entry.method && x.url === entry.url);
    assert.ok(found.some((x) => x.status === entry.status && x.bodySHA === entry.response_sha256 && !x.truncated),
      `${entry.method} ${entry.url}: no archived exchange with the ${entry.response_size} bytes the site sent: ${JSON.stringify(found.map((x) => [x.status, x.truncated, x.notes]))}`);
  }
});

test("the opened tab is recorded from its first request, with no second load", () => {
  assert.deepEqual(serverLog.filter((e) => e.url === "/forms?tab=opened").map((e) => e.method), ["GET"]);
  assert.ok(!(session.notes || []).some((n) => n.includes("was reloaded")), (session.notes || []).join("\n"));
});

test("the other tab of the same site is not recorded", () => {
  const theirs = serverLog.filter((e) => e.url.includes("tab=other"));
  assert.equal(theirs.length, 1, "the other tab loaded once while recording went on");
  assert.deepEqual(records.filter((r) => r.uri === new URL(theirs[0].url, site.url).href).map((r) => r.type), []);
});

// What Firefox itself may cut while a tab is left as its background page is suspended
// and started again (README, limits): a request it cancels, and a body it may end early
// as the page is left. How many depends on Firefox's timing, not on the recorder; the
// test before this one shows the site's copy of each exchange is archived exactly.
const browserCuts = ["cancelled by the browser", "the page was being left as its body was passed on"];

test("the session says nothing was lost but what Firefox cut, and nothing was closed", () => {
  const ours = Object.entries(session.reasons || {}).filter(([why]) => !browserCuts.some((c) => why.startsWith(c)));
  assert.deepEqual(ours, [], `exchanges not kept for the recorder's own reasons: ${JSON.stringify(session.reasons)}`);
  // The reasons count the exchanges cut and those left with no response.
  const said = Object.values(session.reasons || {}).reduce((a, b) => a + b, 0);
  assert.ok(said >= session.incomplete, `${session.incomplete} exchanges cut, reasons for ${said}: ${JSON.stringify(session.reasons)}`);
  assert.ok(!(session.notes || []).some((n) => /closed while recording|gone/.test(n)), (session.notes || []).join("\n"));
});
