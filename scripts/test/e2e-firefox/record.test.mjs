// End to end, in headless Firefox ESR through webkeep's Firefox build: record a tab of
// the demo site with the popup's controls, make every fetch() call of its forms page,
// leave the tab idle with the popup closed for longer than Firefox lets an idle
// background page live, load one more page, stop, and compare the WARC the popup's
// download link saves with what the demo site received and sent.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { clickAndWait, demoCalls, startDemoSite } from "../../lib/browser.mjs";
import { api, firefoxTabId, launchFirefox, openExtensionPage } from "../../lib/firefox.mjs";
import { answerMissing, httpBody, readWarc09, reassemble } from "../../lib/warc09.mjs";

const idleMs = 45000;
// The file chosen in the multipart form: 2 MB of every byte value, CR LF included
// (larger than Chromium's page script reads ahead, which Firefox's does).
const chosenBytes = Buffer.from(Array.from({ length: 2000000 }, (_, i) => (i * 7 + (i >> 9)) & 0xff));
const chosenFile = path.join(mkdtempSync(path.join(tmpdir(), "webkeep-upload-")), "chosen.bin");
writeFileSync(chosenFile, chosenBytes);
const passwords = ["hunter2-firefox", "hunter3-early", "hunter4-typed"];
// postLoginByFetch, run in the login page, sends its form with fetch() as urlencoded.
const postLoginByFetch = () => fetch("/login", { method: "POST", body: new URLSearchParams(new FormData(document.querySelector("#login"))) }).then((r) => r.text());
let site, firefox, records, serverLog, warc, savedName, sessionID;

before(async () => {
  site = await startDemoSite();
  firefox = await launchFirefox();
  const tab = await firefox.browser.newPage();
  await tab.goto(site.url);
  const tabId = await firefoxTabId(firefox.control, site.url);
  // A password typed before recording begins, sent after by fetch(): the content
  // script names its field when the background page asks, as recording begins.
  await tab.goto(new URL("/login", site.url).href);
  await tab.type("#pw", "hunter3-early");
  const popup = firefox.control;
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));
  const unrecorded = (await site.log()).length; // what the tab loaded before
  await popup.click("#start");
  await popup.waitForSelector('#state[data-recording="true"]');
  await tab.evaluate(postLoginByFetch);
  await tab.goto(new URL("/forms", site.url).href);
  for (const id of demoCalls) await clickAndWait(tab, "#" + id);
  // Forms Firefox submits itself, which it reports as parsed fields only: the
  // urlencoded one, the multipart one without its file input (text parts only), and
  // the multipart one with a file chosen, whose bytes the content script copies.
  await Promise.all([tab.waitForNavigation(), tab.click("#form-urlencoded button")]);
  await tab.goto(new URL("/forms", site.url).href);
  await tab.evaluate(() => document.querySelector('#form-multipart input[type="file"]').remove());
  await Promise.all([tab.waitForNavigation(), tab.click("#form-multipart button")]);
  await tab.goto(new URL("/forms", site.url).href);
  await (await tab.$('#form-multipart input[type="file"]')).uploadFile(chosenFile);
  await new Promise((r) => setTimeout(r, 300)); // a user's pause before sending
  // The chosen file sent alone by fetch(), as a media manager sends it: Firefox gives
  // its body as a file's path, not its bytes.
  await tab.evaluate(() => fetch("/api/binary?file", { method: "POST", body: document.querySelector('#form-multipart input[type="file"]').files[0] }).then((r) => r.text()));
  await Promise.all([tab.waitForNavigation(), tab.click("#form-multipart button")]);
  // A login, its password in a field whose name is not a password's (secret): only the
  // content script, which names the page's fields of type password as it submits,
  // has it redacted.
  await tab.goto(new URL("/login", site.url).href);
  await tab.type("#pw", "hunter2-firefox");
  await Promise.all([tab.waitForNavigation(), tab.click("#login button")]);
  // A password typed while recording and sent by fetch(), which fires no submit event:
  // the content script names its field as the user types.
  await tab.goto(new URL("/login", site.url).href);
  await tab.type("#pw", "hunter4-typed");
  await tab.evaluate(postLoginByFetch);
  // A file of 20 MB that a script puts in the form (no change event: it is not read
  // ahead), the form sent by navigation at once: the page may be left before its copy
  // is read (the scripted form's test).
  await tab.goto(new URL("/forms", site.url).href);
  await tab.evaluate(() => {
    const form = document.querySelector("#form-multipart");
    form.action = "/submit/upload?scripted";
    const files = new DataTransfer();
    files.items.add(new File([new Uint8Array(20 << 20).fill(7)], "scripted.bin", { type: "application/octet-stream" }));
    form.querySelector('input[type="file"]').files = files.files;
  });
  await Promise.all([tab.waitForNavigation(), tab.click("#form-multipart button")]);
  // A redirect chain: the body of its last hop is streamed as the first hop's was.
  await tab.goto(new URL("/redirect/start", site.url).href);
  // The 24 MB file, fetched by the home page: a large body is streamed to IndexedDB.
  await tab.goto(site.url);
  await tab.click("#load-big");
  await tab.waitForSelector("#load-big[data-done]", { timeout: 120000 });
  // Firefox suspends a background page idle for 30 s; a page of the extension that is
  // open keeps it busy.
  await popup.goto("about:blank");
  await new Promise((r) => setTimeout(r, idleMs));
  await tab.goto(new URL("/data.txt", site.url).href);
  await openExtensionPage(popup, firefox.page(`popup.html?tab=${tabId}`));
  await popup.click("#stop");
  await popup.waitForSelector('#state[data-recording="false"]');
  // The WARC as the popup's download link saves it: the file handed to the browser to
  // save, from a blob URL, is taken before it is saved.
  await popup.evaluate(() => {
    window.webkeepSaved = new Promise((resolve) => {
      HTMLAnchorElement.prototype.click = function () {
        fetch(this.href).then((r) => r.arrayBuffer()).then((b) => resolve({ name: this.download, base64: new Uint8Array(b).toBase64() }));
      };
    });
  });
  await popup.click("#download-warc");
  const saved = await popup.evaluate(() => window.webkeepSaved);
  savedName = saved.name;
  warc = Buffer.from(saved.base64, "base64");
  records = reassemble(readWarc09(warc));
  sessionID = JSON.parse((await api(popup, "GET", "/api/sessions")).bytes)[0].id;
  serverLog = (await site.log()).slice(unrecorded).filter((e) => !e.url.startsWith("/favicon"));
}, { timeout: 240000 });

after(async () => {
  await firefox?.close();
  site?.stop();
});

test("the popup's WARC link saves the session's WARC", async () => {
  // Named by the answer's Content-Disposition, not by the link's last part.
  assert.match(savedName, /.\.warc\.gz$/);
  assert.notEqual(savedName, "warc.gz");
  const fromAPI = await api(firefox.control, "GET", `/api/sessions/${encodeURIComponent(sessionID)}/warc.gz`);
  assert.equal(fromAPI.status, 200);
  assert.deepEqual(warc, fromAPI.bytes);
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

test("every other request body is recorded byte for byte: rebuilt from the form fields, or with the files the page sent copied", () => {
  // The login's password is redacted (the next test); the scripted form's copy may
  // be cut short (the test after).
  const withBody = serverLog.filter((e) => e.body_base64 !== "" && e.url !== "/login" && !e.url.endsWith("?scripted"));
  assert.ok(withBody.length >= 5, `the server saw only ${withBody.length} requests with bodies`);
  const exact = { rebuilt: [], copied: [] };
  for (const entry of withBody) {
    const want = Buffer.from(entry.body_base64, "base64");
    const requests = recordsOf("request", entry).filter((r) => r.block.toString("latin1").startsWith(entry.method + " "));
    assert.ok(requests.length > 0, `no request record for ${entry.method} ${entry.url}`);
    const notes = requests.map((r) => records.find((m) => m.type === "metadata" && m.fields["Related-Record-ID"] === r.id)?.block.toString() ?? "");
    const i = requests.findIndex((r) => httpBody(r.block).body.equals(want));
    assert.ok(i >= 0, `${entry.method} ${entry.url}: no request record with the ${want.length} bytes the server received; notes: ${notes.join(" | ")}`);
    assert.ok(!requests[i].fields.Truncated, `${entry.url}: exact, yet marked Truncated: ${notes[i]}`);
    // A body Firefox gave only as form fields is rebuilt, or taken from the page's
    // copy when it holds a file; its record says which.
    if (/rebuilt with the files copied in the page/.test(notes[i])) exact.copied.push(entry.url);
    else if (entry.url.startsWith("/submit/")) {
      assert.match(notes[i], /rebuilt from the form fields/, `${entry.url}: ${notes[i]}`);
      exact.rebuilt.push(entry.url);
    }
  }
  // The urlencoded form and the multipart one of text parts were rebuilt; the FormData
  // with a Blob sent by fetch(), the chosen file sent by fetch() and the form with it
  // were copied.
  assert.deepEqual(exact.rebuilt.sort(), ["/submit/form", "/submit/upload"]);
  assert.deepEqual(exact.copied.sort(), ["/api/binary?file", "/submit/upload", "/submit/upload"]);
  const uploads = withBody.filter((e) => e.url === "/submit/upload").map((e) => Buffer.from(e.body_base64, "base64"));
  assert.equal(uploads.length, 3, "the server saw the three multipart bodies");
  assert.ok(uploads.some((b) => b.includes(chosenBytes)), "the server got the chosen file");
});

test("a file a script put in a form sent at once is archived whole, or marked: the page was left before it had read it", (t) => {
  const entry = serverLog.find((e) => e.url === "/submit/upload?scripted");
  assert.ok(entry, "the server got the scripted form");
  const want = Buffer.from(entry.body_base64, "base64");
  assert.ok(want.length > 20 << 20, `the server got ${want.length} bytes`);
  const post = recordsOf("request", entry).find((r) => r.block.toString("latin1").startsWith("POST "));
  assert.ok(post, "the scripted form's request record");
  const note = records.find((m) => m.type === "metadata" && m.fields["Related-Record-ID"] === post.id)?.block.toString() ?? "";
  t.diagnostic(`the scripted form's request: ${note.trim()}`);
  if (httpBody(post.block).body.equals(want)) {
    assert.match(note, /rebuilt with the files copied in the page/);
    return;
  }
  assert.ok(post.fields.Truncated, `neither whole nor marked Truncated: ${note}`);
  assert.match(note, /the page was left before it had read its files/);
});

test("every login's password is redacted: the content script names the page's field of type password", () => {
  // The form submitted (hunter2), and two sent by fetch(): typed before recording
  // began (hunter3) and while recording (hunter4).
  const sent = serverLog.filter((e) => e.method === "POST" && e.url === "/login").map((e) => Buffer.from(e.body_base64, "base64").toString("latin1"));
  for (const pw of passwords) assert.ok(sent.some((b) => b.includes(`secret=${pw}`)), `the site did not get ${pw}: ${sent.join(" | ")}`);
  const posts = records.filter((r) => r.type === "request" && r.block.toString("latin1").startsWith("POST /login "));
  assert.equal(posts.length, passwords.length, "a request record for each login");
  for (const post of posts) assert.equal(httpBody(post.block).body.toString("latin1"), "user=zo%C3%AB&secret=%5Bredacted+by+webkeep%5D");
  const all = Buffer.concat(records.map((r) => r.block));
  for (const pw of passwords) assert.ok(!all.includes(pw), `${pw} is somewhere in the WARC`);
});

test("the recording goes on after the tab was idle, with no page of the extension open", () => {
  const entry = serverLog.find((e) => e.url === "/data.txt");
  assert.ok(entry, "the server saw /data.txt");
  assert.equal(recordsOf("response", entry).length, 1, "one response record for /data.txt");
});

test("every response body is recorded as the demo site sent it", () => {
  assert.ok(serverLog.some((e) => e.url === "/forms") && serverLog.some((e) => e.url === "/api/binary") && serverLog.some((e) => e.url === "/big"), `the server saw /forms and the POST: ${serverLog.map((e) => e.url).join(" ")}`);
  for (const entry of serverLog) assert.equal(answerMissing(entry, recordsOf("response", entry)), "");
});
