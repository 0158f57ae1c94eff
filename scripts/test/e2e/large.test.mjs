// End to end, in real Chromium through the real extension: a response larger than the
// browser gives whole (64 MB), fetched by a page that has loaded, from a server on the
// same machine, which answers faster than any stream can be asked for. The archive
// keeps it whole and exact, with flat memory in the core, whichever way it was taken.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, startDemoSite, startRecording, stopAndSaveWarc, waitFor } from "../../lib/browser.mjs";
import { httpBody, readWarc09, reassemble } from "../../lib/warc09.mjs";

const size = 70 << 20;
let site, browser, dir, pageResult, records, info;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webkeep-large-"));
  site = await startDemoSite(["-big", String(size)]);
  browser = await launch({ downloads: dir });
  const { page, popup } = await startRecording(browser, site.url);
  await page.goto(site.url);
  await page.click("#load-big");
  await page.waitForSelector("#load-big[data-done]", { timeout: 120000 });
  pageResult = await page.textContent("#big-result");
  // The body may have to be fetched a second time (it outran its stream), which takes
  // longer than Stop waits (10 s): stop once it is archived, as a user who watches the
  // session's figures would.
  const big = new URL("/big", site.url).href;
  await waitFor(async () => (await popup.evaluate(async () => {
    const st = await (await fetch("/api/status")).json();
    return st.session ? (await (await fetch(`/api/sessions/${st.session.id}/records`)).json()).map((r) => r.fields.url) : [];
  })).includes(big), "the large body archived", 120000);
  let file;
  ({ info, file } = await stopAndSaveWarc(popup, dir));
  records = reassemble(readWarc09(readFileSync(file)));
}, { timeout: 240000 });

after(async () => {
  await browser?.close();
  site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a 70 MB response is archived whole: the bytes the page received", () => {
  const rec = records.find((r) => r.type === "response" && r.uri === new URL("/big", site.url).href);
  assert.ok(rec, "no response record for /big");
  const { body } = httpBody(rec.block);
  assert.equal(body.length, size);
  assert.equal(rec.fields.Truncated, undefined);
  assert.equal(pageResult, `${size} bytes, sha256 ${createHash("sha256").update(body).digest("hex")}`);
  assert.ok(rec.segments > 1, "written as segments");
});

test("if it was fetched a second time, its own records and the session both say so", () => {
  const big = new URL("/big", site.url).href;
  // The archive's own mark: a metadata record about /big. Whether the body was
  // fetched again depends on timing; what must hold is that the WARC and the
  // session's notes tell the same story, and that no other note is made.
  const marks = records.filter((r) => r.type === "metadata" && r.uri === big).map((r) => r.block.toString("utf8"));
  const notes = (info.notes || []).filter((n) => n.includes("/big"));
  const fetchedAgain = marks.some((m) => /fetched again at/.test(m));
  assert.equal(notes.some((n) => /fetched again at/.test(n)), fetchedAgain,
    `WARC metadata ${JSON.stringify(marks)} vs session notes ${JSON.stringify(notes)}`);
  assert.equal(notes.length, fetchedAgain ? 1 : 0, `notes about /big: ${JSON.stringify(notes)}`);
});
