// End to end, in headless Firefox ESR through webkeep's Firefox build: a response far
// larger than IndexedDB stores in the time the demo site on the same machine sends it
// (70 MB), fetched by a page of a recorded tab. The response's filter is not held back
// (Firefox loses data from a filter suspended and resumed): its pieces wait in
// IndexedDB's put requests; the page receives every byte the site sent, and the
// archive keeps them all, exact.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { startDemoSite, waitFor } from "../../lib/browser.mjs";
import { api, firefoxTabId, launchFirefox } from "../../lib/firefox.mjs";
import { httpBody, readWarc09, reassemble } from "../../lib/warc09.mjs";

const size = 70 << 20;
let site, firefox, pageResult, sent, record, session;

before(async () => {
  site = await startDemoSite(["-big", String(size)]);
  firefox = await launchFirefox();
  const tab = await firefox.browser.newPage();
  await tab.goto(site.url);
  const tabId = await firefoxTabId(firefox.control, site.url);
  const started = await api(firefox.control, "POST", `/api/record/start?tab=${tabId}`);
  assert.equal(started.status, 200, String(started.bytes));
  await tab.click("#load-big");
  // Polled: one wait for the selector may outlast the protocol's timeout on a busy machine.
  await waitFor(() => tab.evaluate(() => document.querySelector("#load-big").dataset.done), "the page to receive the large file", 600000);
  pageResult = await tab.evaluate(() => document.querySelector("#big-result").textContent);
  const big = new URL("/big", site.url).href;
  await waitFor(async () => {
    const status = JSON.parse((await api(firefox.control, "GET", "/api/status")).bytes);
    const records = JSON.parse((await api(firefox.control, "GET", `/api/sessions/${status.session.id}/records`)).bytes);
    return records.some((r) => r.fields.url === big && r.fields.status === "200");
  }, "the large body to be archived", 600000);
  const stopped = await api(firefox.control, "POST", "/api/record/stop");
  assert.equal(stopped.status, 200, String(stopped.bytes));
  session = JSON.parse(stopped.bytes);
  const warc = await api(firefox.control, "GET", `/api/sessions/${encodeURIComponent(session.id)}/warc.gz`);
  record = reassemble(readWarc09(warc.bytes)).find((r) => r.type === "response" && r.uri === big);
  sent = (await site.log()).find((e) => e.url === "/big");
}, { timeout: 1200000 });

after(async () => {
  await firefox?.close();
  site?.stop();
});

test("the page receives every byte the site sent: recording does not change it", () => {
  assert.ok(sent, "the site sent /big");
  assert.equal(sent.response_size, size);
  assert.equal(pageResult, `${size} bytes, sha256 ${sent.response_sha256}`);
});

test("the archive keeps the whole body, exact, unmarked", () => {
  assert.ok(record, "a response record for /big");
  const { body } = httpBody(record.block);
  assert.equal(body.length, size);
  assert.equal(createHash("sha256").update(body).digest("hex"), sent.response_sha256);
  assert.equal(record.fields.Truncated, undefined);
  assert.equal(session.incomplete, 0, JSON.stringify(session.reasons));
});
