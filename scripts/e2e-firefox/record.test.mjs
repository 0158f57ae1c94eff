// End to end, in headless Firefox ESR through webkeep's Firefox build: record a tab of
// the demo site with the popup's controls, POST binary bytes with fetch(), and compare
// the WARC the extension's API gives with what the demo site received and sent.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { clickAndWait, startDemoSite } from "../lib/browser.mjs";
import { api, firefoxTabId, launchFirefox, openExtensionPage } from "../lib/firefox.mjs";
import { httpBody, readWarc09, reassemble } from "../lib/warc09.mjs";

const sha256 = (b) => createHash("sha256").update(b).digest("hex");
let site, firefox, records, serverLog;

before(async () => {
  site = await startDemoSite();
  firefox = await launchFirefox();
  const tab = await firefox.browser.newPage();
  await tab.goto(site.url);
  const tabId = await firefoxTabId(firefox.control, site.url);
  const popup = firefox.control;
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));
  const unrecorded = (await site.log()).length; // what the tab loaded before
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  await tab.goto(new URL("/forms", site.url).href);
  await clickAndWait(tab, "#post-binary");
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  const sessions = JSON.parse((await api(popup, "GET", "/api/sessions")).bytes);
  const warc = await api(popup, "GET", `/api/sessions/${encodeURIComponent(sessions[0].id)}/warc.gz`);
  assert.equal(warc.status, 200);
  records = reassemble(readWarc09(warc.bytes));
  serverLog = (await site.log()).slice(unrecorded).filter((e) => !e.url.startsWith("/favicon"));
}, { timeout: 180000 });

after(async () => {
  await firefox?.close();
  site?.stop();
});

const recordsOf = (type, entry) => records.filter((r) => r.type === type && r.uri === new URL(entry.url, site.url).href);

test("the fetch() POST's request body is recorded byte for byte", () => {
  const entry = serverLog.find((e) => e.url === "/api/binary");
  assert.ok(entry, "the server saw the binary POST");
  const want = Buffer.from(entry.body_base64, "base64");
  assert.ok(want.includes(0xff) && want.includes(0x00));
  const requests = recordsOf("request", entry).filter((r) => r.block.toString("latin1").startsWith("POST "));
  assert.equal(requests.length, 1, "one request record for the POST");
  assert.deepEqual(httpBody(requests[0].block).body, want);
});

test("every response body is recorded as the demo site sent it", () => {
  const pages = serverLog.filter((e) => e.url === "/forms" || e.url === "/api/binary");
  assert.equal(pages.length, 2, `the server saw /forms and the POST: ${serverLog.map((e) => e.url).join(" ")}`);
  for (const entry of serverLog) {
    const responses = recordsOf("response", entry);
    assert.ok(responses.length > 0, `no response record for ${entry.method} ${entry.url}`);
    const ok = responses.some((r) => {
      const { head, body } = httpBody(r.block);
      return head.includes(` ${entry.status} `) && body.length === entry.response_size && sha256(body) === entry.response_sha256;
    });
    assert.ok(ok, `${entry.method} ${entry.url}: no response record with the ${entry.response_size} bytes the server sent`);
  }
});
