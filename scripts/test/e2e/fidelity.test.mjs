// End to end, in real Chromium through the real extension: what the browser sent and
// received on the wire reaches the archive (Set-Cookie from a login answer, the Cookie
// sent after it), under the header policy; Stop ends in bounded time when a tab opened
// from the recorded tab keeps a body coming.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launch, startDemoSite, tabId, waitFor } from "../../lib/browser.mjs";
import { httpBody, readWarc09, reassemble } from "../../lib/warc09.mjs";

const sha256 = (b) => createHash("sha256").update(b).digest("hex");
let site, browser, ext;
const runs = {};

const api = (method, p, body) => ext.evaluate(async ([method, p, body]) => {
  const res = await fetch(p, { method, body, headers: body ? { "Content-Type": "application/json" } : {} });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}, [method, p, body]);

const warcOf = async (id) => readWarc09(Buffer.from(await ext.evaluate(async (p) => {
  const b = new Uint8Array(await (await fetch(p)).arrayBuffer());
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}, `/api/sessions/${id}/warc.gz`), "base64"));

/** Fills the login form's password and clicks its button. */
const signIn = (page) => Promise.all([page.waitForURL("**/login", { waitUntil: "load" }), page.click("#login button")]);

/**
 * Signs in by script, with a second field of type password that the script adds to the
 * form as it sends it and removes at once: only the page's own report of its password
 * fields, made as it sends, names it (no question put to the page finds it).
 */
const signInFleeting = (page) => Promise.all([page.waitForURL("**/login", { waitUntil: "load" }), page.evaluate(() => {
  const form = document.querySelector("#login");
  const pin = Object.assign(document.createElement("input"), { type: "password", name: "pin", value: "fleeting-4711" });
  form.append(pin);
  form.requestSubmit();
  pin.remove();
})]);

/**
 * Records signing in to the demo site (by send, signIn if not given) and visiting the
 * account page, with settings; with restarted, after a recording of the page begun and
 * stopped first.
 */
async function recordLogin(settings, send = signIn, restarted = false) {
  const current = (await api("GET", "/api/settings")).json;
  const saved = await api("PUT", "/api/settings", JSON.stringify({ ...current, ...settings }));
  assert.equal(saved.status, 200, JSON.stringify(saved.json));
  const page = await browser.context.newPage();
  const url = new URL("/login", site.url).href;
  await page.goto(url);
  const tab = await tabId(browser.sw, url);
  if (restarted) {
    assert.equal((await api("POST", `/api/record/start?tab=${tab}`)).status, 200);
    assert.equal((await api("POST", "/api/record/stop")).status, 200);
  }
  const session = (await api("POST", `/api/record/start?tab=${tab}`)).json.id;
  await page.waitForSelector("#pw");
  await page.fill("#pw", "hunter2-sécret");
  await send(page);
  await page.waitForSelector("#account");
  await Promise.all([page.waitForURL("**/account"), page.click("#account")]);
  const shown = await page.textContent("#session");
  const stop = await api("POST", "/api/record/stop");
  assert.equal(stop.status, 200, JSON.stringify(stop.json));
  await page.close();
  const raw = await warcOf(session);
  const records = reassemble(raw);
  return { session, shown, records, info: stop.json, text: Buffer.concat(raw.map((r) => r.block)).toString("latin1") };
}

/**
 * Records a page that opens, in a new tab, a page whose body never ends, then stops:
 * resolves to { took (ms), info (the session) }.
 */
async function recordHang() {
  const page = await browser.context.newPage();
  const url = new URL("/login", site.url).href;
  await page.goto(url);
  const tab = await tabId(browser.sw, url);
  await api("POST", `/api/record/start?tab=${tab}`);
  await page.fill("#pw", "x");
  await Promise.all([page.waitForURL("**/login", { waitUntil: "load" }), page.click("#login button")]);
  const [opened] = await Promise.all([browser.context.waitForEvent("page"), page.click("#open-hang")]);
  await waitFor(async () => (await api("GET", "/api/status")).json.tabs.length === 2, "the opened tab recorded");
  // The opened tab is reloaded to be recorded from its start: let its body flow.
  await waitFor(async () => (await opened.evaluate(() => document.body && document.body.innerText.length)) > 5000, "the endless body arriving", 30000);
  const began = Date.now();
  const stop = await api("POST", "/api/record/stop");
  const took = Date.now() - began;
  assert.equal(stop.status, 200, JSON.stringify(stop.json));
  await opened.close();
  await page.close();
  return { took, info: stop.json };
}

/**
 * Records pages left as soon as their navigation commits, as a user clicking through
 * quickly does: resolves to { records, log } (the site's log of what it sent).
 */
async function recordQuickNavigation() {
  const page = await browser.context.newPage();
  await page.goto(site.url);
  const tab = await tabId(browser.sw, site.url);
  // The server's log from before Start: a request the page made as it finished loading
  // (its icon) may be recorded and answered while Start is under way.
  const before = (await site.log()).length;
  const session = (await api("POST", `/api/record/start?tab=${tab}`)).json.id;
  for (let i = 0; i < 4; i++) {
    for (const p of ["/gallery", "/forms", "/", "/redirect/start"]) {
      await page.goto(new URL(p, site.url).href, { waitUntil: "commit" });
    }
  }
  await page.goto(new URL("/gallery", site.url).href);
  const stop = await api("POST", "/api/record/stop");
  assert.equal(stop.status, 200, JSON.stringify(stop.json));
  await page.close();
  return { records: reassemble(await warcOf(session)), log: (await site.log()).slice(before), info: stop.json };
}

/**
 * Records the forms page's upload form sending a file of 900 KB (below the 1 MiB the
 * page's script hands over itself): the form navigates, and its page is gone once the
 * server answers, which on 127.0.0.1 comes before a read of the file begun as the form
 * was sent would end.
 */
async function recordFormUpload() {
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-upload-"));
  const file = path.join(dir, "chosen-900k.bin");
  const bytes = Buffer.alloc(900 << 10);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + (i >> 8)) & 0xff;
  writeFileSync(file, bytes);
  const page = await browser.context.newPage();
  const url = new URL("/forms", site.url).href;
  await page.goto(url);
  const tab = await tabId(browser.sw, url);
  const session = (await api("POST", `/api/record/start?tab=${tab}`)).json.id;
  const before = (await site.log()).length;
  await page.setInputFiles("#form-multipart input[type=file]", file);
  await Promise.all([page.waitForURL("**/submit/upload", { waitUntil: "load" }), page.click("#form-multipart button")]);
  // The same, its file put in the input by a script (no change event: the page's
  // script reads it only as the form is sent).
  await page.goto(url);
  await Promise.all([page.waitForURL("**/submit/upload", { waitUntil: "load" }), page.evaluate((n) => {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = i & 0xff;
    const files = new DataTransfer();
    files.items.add(new File([b], "scripted.bin"));
    document.querySelector("#form-multipart input[type=file]").files = files.files;
    document.querySelector("#form-multipart").requestSubmit();
  }, 1000 << 10)]);
  const stop = await api("POST", "/api/record/stop");
  assert.equal(stop.status, 200, JSON.stringify(stop.json));
  await page.close();
  rmSync(dir, { recursive: true, force: true });
  return { records: reassemble(await warcOf(session)), log: (await site.log()).slice(before), bytes };
}

/** The response record of the POST to /login and the request record of /account. */
function loginRecords(records) {
  const requests = records.filter((r) => r.type === "request");
  const post = requests.find((r) => r.block.toString("latin1").startsWith("POST /login "));
  assert.ok(post, "the login POST's request record");
  const answer = records.find((r) => r.type === "response" && r.fields["Related-Record-ID"] === post.id);
  const account = requests.find((r) => r.block.toString("latin1").startsWith("GET /account "));
  assert.ok(answer && account, "the login answer and the account request");
  return { post, answer: httpBody(answer.block).head, account: httpBody(account.block).head };
}

const setCookies = (head) => head.split("\r\n").filter((l) => /^set-cookie:/i.test(l)).map((l) => l.slice(l.indexOf(":") + 1).trim());

before(async () => {
  site = await startDemoSite();
  browser = await launch({});
  ext = await browser.context.newPage();
  await ext.goto(browser.page("options.html"));
  runs.redact = await recordLogin({ headerPolicy: "redact" });
  runs.keep = await recordLogin({ headerPolicy: "keep", passwordPolicy: "keep" });
  runs.fleeting = await recordLogin({ headerPolicy: "redact", passwordPolicy: "redact" }, signInFleeting, true);
  runs.hang = await recordHang();
  runs.quick = await recordQuickNavigation();
  runs.upload = await recordFormUpload();
}, { timeout: 240000 });

after(async () => {
  await browser?.close();
  site?.stop();
});

test("the login answer's two Set-Cookie fields are archived, redacted by default", () => {
  const { answer, account } = loginRecords(runs.redact.records);
  assert.deepEqual(setCookies(answer), ["[redacted by webkeep]", "[redacted by webkeep]"], answer);
  assert.match(account, /^cookie: \[redacted by webkeep\]$/im, account);
  assert.match(runs.redact.shown, /session: s-/, "the site saw the cookie");
});

test("with the keep policy, Set-Cookie and Cookie are archived as they were on the wire", () => {
  const { answer, account } = loginRecords(runs.keep.records);
  const cookies = setCookies(answer);
  assert.equal(cookies.length, 2, answer);
  assert.match(cookies[0], /^demo_session=s-\d+-42; Path=\/; HttpOnly$/);
  assert.match(cookies[1], /^demo_user=.+; Path=\/$/);
  assert.match(account, /^cookie: .*demo_session=s-\d+-42/im, account);
});

test("Stop ends within 10 s while a tab opened from the recorded one keeps a body coming, and says what it gave up on", (t) => {
  const { took, info } = runs.hang;
  t.diagnostic(`stop took ${took} ms`);
  assert.ok(took < 11000, `stop took ${took} ms`);
  const notes = info.notes.join("\n");
  assert.match(notes, /recording stopped while 1 body was still arriving, kept as far as they had come and marked Truncated: http:\/\/127\.0\.0\.1:\d+\/hang/, notes);
  assert.equal(info.reasons["recording stopped before the body ended"], 1, JSON.stringify(info.reasons));
});

test("the login form's password is redacted by default (found as the page's field of type password), and kept by option", () => {
  const { post } = loginRecords(runs.redact.records);
  const body = httpBody(post.block).body.toString("latin1");
  assert.equal(body, "user=zo%C3%AB&secret=%5Bredacted+by+webkeep%5D");
  assert.match(httpBody(post.block).head, new RegExp(`^content-length: ${body.length}$`, "im"));
  assert.ok(!runs.redact.text.includes("hunter2"), "the password is somewhere in the WARC");
  assert.match(runs.redact.text, /the value of the password field secret of the request body replaced/);
  assert.equal(runs.redact.info.loginPosts, 1);
  const kept = httpBody(loginRecords(runs.keep.records).post.block).body.toString("latin1");
  assert.equal(kept, "user=zo%C3%AB&secret=hunter2-s%C3%A9cret");
  assert.equal(runs.keep.info.loginPosts, 1);
});

test("a field of type password that the page's script adds as it sends the form, and removes, is redacted too (the page recorded a second time)", () => {
  const { post } = loginRecords(runs.fleeting.records);
  const body = httpBody(post.block).body.toString("latin1");
  assert.equal(body, "user=zo%C3%AB&secret=%5Bredacted+by+webkeep%5D&pin=%5Bredacted+by+webkeep%5D");
  assert.ok(!runs.fleeting.text.includes("fleeting-4711"), "the fleeting field's password is somewhere in the WARC");
  assert.match(runs.fleeting.text, /the value of the password fields secret, pin of the request body replaced/);
});

test("a file of 900 KB sent by a form that navigates is archived byte for byte (read by the page's script as it was chosen)", () => {
  const { records, log, bytes } = runs.upload;
  const sent = log.find((e) => e.method === "POST" && e.url === "/submit/upload" && Buffer.from(e.body_base64, "base64").includes("chosen-900k.bin"));
  assert.ok(sent, "the server saw the upload");
  const body = Buffer.from(sent.body_base64, "base64");
  assert.ok(body.includes(bytes), "the server's body holds the file");
  const post = records.find((r) => r.type === "request" && r.block.toString("latin1").startsWith("POST /submit/upload ") && r.block.includes("chosen-900k.bin"));
  assert.ok(post, "the upload's request record");
  assert.equal(post.fields.Truncated, undefined, "the upload is marked Truncated");
  assert.ok(httpBody(post.block).body.equals(body), "the archived body is not the one the server received");
});

test("a file put in a form's input by a script is archived whole, or marked: the page left before it had read it", (t) => {
  const { records, log } = runs.upload;
  const sent = log.find((e) => e.method === "POST" && e.url === "/submit/upload" && Buffer.from(e.body_base64, "base64").includes("scripted.bin"));
  assert.ok(sent, "the server saw the scripted upload");
  const post = records.filter((r) => r.type === "request" && r.block.toString("latin1").startsWith("POST /submit/upload "))
    .find((r) => r.block.includes("scripted.bin"));
  assert.ok(post, "the scripted upload's request record");
  if (post.fields.Truncated === undefined) {
    t.diagnostic("archived whole: the page read its file before it was left");
    assert.ok(httpBody(post.block).body.equals(Buffer.from(sent.body_base64, "base64")), "the archived body is not the one the server received");
    return;
  }
  const note = records.find((r) => r.type === "metadata" && r.fields["Related-Record-ID"] === post.id);
  t.diagnostic(`marked: ${note?.block.toString()}`);
  assert.match(note?.block.toString() ?? "", /the page was left before it had read its files/);
});

test("the archive page marks the sessions that hold a login POST", async () => {
  const archive = await browser.context.newPage();
  await archive.goto(browser.page("archive.html"));
  const mark = await archive.waitForSelector(`tr[data-session="${runs.redact.session}"] .login-mark`);
  assert.match(await mark.getAttribute("title"), /holds 1 request that sent a password/);
  await archive.close();
});

test("pages left at once: every response archived is what the server sent, or marked Truncated with a note saying why", (t) => {
  const { records, log, info } = runs.quick;
  const notes = new Map(records.filter((r) => r.type === "metadata").map((r) => [r.fields["Related-Record-ID"], r.block.toString("utf8")]));
  let exact = 0;
  const marked = {};
  for (const r of records.filter((x) => x.type === "response")) {
    const path = new URL(r.uri).pathname + new URL(r.uri).search;
    const { head, body } = httpBody(r.block);
    const status = Number(head.split(" ")[1]);
    const sent = log.filter((e) => e.url === path && e.status === status);
    assert.ok(sent.length > 0, `${r.uri}: archived ${status}, which the server never sent`);
    if (r.fields.Truncated) {
      const why = notes.get(r.fields["Related-Record-ID"]);
      assert.ok(why, `${r.uri}: marked Truncated: ${r.fields.Truncated} with no note`);
      const reason = why.split(/[(:;]/)[0].trim();
      marked[reason] = (marked[reason] || 0) + 1;
      t.diagnostic(`marked ${r.uri}: ${why}`);
      continue;
    }
    if (status >= 300 && status < 400) { exact++; continue; }
    assert.ok(sent.some((e) => e.response_size === body.length && e.response_sha256 === sha256(body)),
      `${r.uri}: an unmarked difference: ${body.length} bytes archived, none of ${sent.map((e) => e.response_size).join(", ")} sent`);
    exact++;
  }
  t.diagnostic(`${log.length} exchanges on the wire; ${exact} responses archived byte-exact; marked: ${JSON.stringify(marked)}; without a response: ${info.failures} ${JSON.stringify(info.reasons || {})}`);
  assert.ok(exact > 0);
  assert.ok(!JSON.stringify(info.reasons || {}).includes("detached"));
});
