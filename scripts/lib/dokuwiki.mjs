// A real web application for the tests and benchmarks: Debian's DokuWiki (package
// dokuwiki, installed by scripts/setup.sh) served by PHP's own server on 127.0.0.1, with
// its configuration and data in a new temporary folder, behind scripts/tools/wireproxy, which
// logs every exchange on the wire (scripts/lib/phpsite.mjs). The system's DokuWiki
// (/etc/dokuwiki, /var/lib/dokuwiki) is read, never written; no daemon is started.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { servePHP } from "./phpsite.mjs";
import { png } from "./png.mjs";
import { launchViewer, openInReplayWebPage, serveReplayWebPage } from "./replaywebpage.mjs";
import { squash } from "./replay.mjs";
import { httpBody } from "./warc09.mjs";
import { offline } from "./wire.mjs";

const install = "/usr/share/dokuwiki";

/** The wiki's user: a member of the user group, who may edit and upload. */
export const wikiUser = { name: "zoe", password: "pässwörd-42" };

/** How many images the heaviest page (the page gallery) shows. */
export const galleryImages = 240;


/**
 * Starts DokuWiki and the logging proxy in front of it; resolves to { url (the proxy's,
 * the only way the browser reaches the wiki), wiki (PHP's own address), wire() (the
 * proxy's log so far: one object per exchange, see scripts/tools/wireproxy), stop() }.
 */
export async function startDokuWiki() {
  if (!existsSync(path.join(install, "doku.php"))) throw new Error(`DokuWiki is not installed in ${install} (scripts/setup.sh installs Debian's dokuwiki)`);
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-dokuwiki-"));
  const conf = path.join(dir, "conf"), data = path.join(dir, "data");
  // Debian's default configuration is read from /etc/dokuwiki (its preload.php), ours
  // from conf/: a DOKU_CONF defined before DokuWiki's own preload takes precedence.
  mkdirSync(conf);
  for (const f of ["plugins.php", "plugins.required.php"]) cpSync(path.join("/etc/dokuwiki", f), path.join(conf, f));
  writeFileSync(path.join(conf, "plugins.local.php"), "<?php\n");
  writeFileSync(path.join(conf, "local.php"), `<?php
$conf['title'] = 'webkeep test wiki';
$conf['savedir'] = '${data}';
$conf['useacl'] = 1;
$conf['superuser'] = '@admin';
$conf['updatecheck'] = 0;
$conf['userewrite'] = 0;
$conf['lang'] = 'en';
`);
  const md5 = createHash("md5").update(wikiUser.password).digest("hex");
  writeFileSync(path.join(conf, "users.auth.php"), `# users\n${wikiUser.name}:${md5}:Zoë Test:zoe@example.org:user\n`);
  writeFileSync(path.join(conf, "acl.auth.php"), "# acl\n*\t@ALL\t1\n*\t@user\t16\n");
  writeFileSync(path.join(dir, "prepend.php"), `<?php if (!defined('DOKU_CONF')) define('DOKU_CONF', '${conf}/');\n`);
  cpSync("/var/lib/dokuwiki/data", data, { recursive: true });
  // The heaviest page: a gallery of galleryImages uploaded images.
  const media = path.join(data, "media/gallery");
  mkdirSync(media, { recursive: true });
  const names = Array.from({ length: galleryImages }, (_, i) => `img${String(i).padStart(3, "0")}.png`);
  names.forEach((name, i) => writeFileSync(path.join(media, name), png(i)));
  mkdirSync(path.join(data, "pages"), { recursive: true });
  writeFileSync(path.join(data, "pages/gallery.txt"), `====== Gallery ======\n\n${names.map((n) => `{{gallery:${n}|}}`).join("\n")}\n`);
  writeFileSync(path.join(data, "pages/start.txt"), "====== Welcome ======\n\nSee the [[gallery]], [[notes]] and [[wiki:syntax]].\n");
  writeFileSync(path.join(data, "pages/notes.txt"), "====== Notes ======\n\nA page to edit.\n");

  return servePHP({ docroot: install, prepend: path.join(dir, "prepend.php"), dir, ready: "doku.php?id=start" });
}

/** How quickNavigation drives a Playwright page. */
const playwrightSteps = {
  commit: (page, url) => page.goto(url, { waitUntil: "commit" }),
  domContentLoaded: (page, url) => page.goto(url, { waitUntil: "domcontentloaded" }),
  clickToCommit: (page, selector, part) => Promise.all([page.waitForURL(`**${part}**`, { waitUntil: "commit" }), page.click(selector)]),
  load: (page, url) => page.goto(url, { waitUntil: "load" }),
};

/**
 * Clicks through the wiki as a hurried user does: each page is left as soon as its
 * navigation commits (its images, style sheets and scripts still coming), some by a
 * click on one of its links; the last page is let load. steps drives page: Playwright's
 * by default (see playwrightSteps for what each step waits for).
 */
export async function quickNavigation(page, base, steps = playwrightSteps) {
  const pages = ["doku.php?id=start", "doku.php?id=gallery", "doku.php?id=wiki:syntax", "doku.php?id=notes", "doku.php?id=start&do=index", "doku.php?id=start&do=recent"];
  for (let round = 0; round < 3; round++) {
    for (const p of pages) {
      await steps.commit(page, new URL(p, base).href);
    }
    // A link clicked on a page still loading.
    await steps.domContentLoaded(page, new URL("doku.php?id=start", base).href);
    await steps.clickToCommit(page, 'a[href*="gallery"]', "id=gallery");
  }
  await steps.load(page, new URL("doku.php?id=gallery", base).href);
}

/**
 * Asserts that run (recordAgainstWire's: { records, wire }) archived the login's answer
 * with one Set-Cookie field for each on the wire, each redacted (the default), and
 * the login's POST without the user's password.
 */
export function checkLoginArchived({ records, wire }) {
  const sent = wire.find((w) => w.method === "POST" && w.url.startsWith("/doku.php") && w.headers.some(([n]) => n === "Set-Cookie") && w.status === 302);
  assert.ok(sent, "the login POST's answer on the wire");
  const onWire = sent.headers.filter(([n]) => n === "Set-Cookie");
  const post = records.find((r) => r.type === "request" && r.block.toString("latin1").startsWith("POST ") && /(^|&)do=login(&|$)/.test(httpBody(r.block).body.toString("latin1")));
  assert.ok(post, "the login POST's request record");
  const answer = records.find((r) => r.type === "response" && r.fields["Related-Record-ID"] === post.id);
  assert.ok(answer, "the login answer's record");
  const head = httpBody(answer.block).head;
  const archived = head.split("\r\n").filter((l) => /^set-cookie:/i.test(l));
  assert.equal(archived.length, onWire.length, head);
  for (const l of archived) assert.match(l, /^set-cookie: \[redacted by webkeep\]$/i);
  assert.doesNotMatch(httpBody(post.block).body.toString("utf8"), new RegExp(encodeURIComponent(wikiUser.password)), "the password was archived");
}

/**
 * Asserts that run archived the file (bytes) the media manager uploaded byte for byte,
 * unmarked, with the note that its bytes were copied in the page: DokuWiki's uploader
 * sends the chosen File itself with XHR, whose bytes the browser shows extensions none
 * of.
 */
export function checkUploadArchived({ records, wire }, bytes) {
  const sha = (b) => createHash("sha256").update(b).digest("hex");
  const sent = wire.find((w) => w.method === "POST" && w.request_sha256 === sha(bytes));
  assert.ok(sent, "the upload on the wire carries the file itself");
  const record = records.find((r) => r.type === "request" && sha(httpBody(r.block).body) === sha(bytes));
  assert.ok(record, "a request record holds the file's bytes");
  assert.equal(record.fields.Truncated, undefined, "the upload's request is whole, not marked");
  const note = records.find((r) => r.type === "metadata" && r.fields["Related-Record-ID"] === record.id);
  assert.match(note?.block.toString() ?? "", /files copied in the page as it sent them/);
}

// What a page shows, run in it (live, in webkeep's replay tab, in ReplayWeb.page's
// frame): its text, whether each of its images is shown, and whether DokuWiki's script
// ran (it defines jQuery and DOKU_BASE).
export const pageText = () => document.body.innerText;
export const imagesShown = () => [...document.images].map((i) => i.complete && i.naturalWidth > 0);
export const scriptRan = () => typeof window.jQuery === "function" && typeof window.DOKU_BASE === "string";

/**
 * What a page shows, { text (squashed), images, scripts }, by evaluate(f), which runs f
 * in the page (a Playwright or puppeteer page's evaluate).
 */
export async function pageState(evaluate) {
  return { text: squash(await evaluate(pageText)), images: await evaluate(imagesShown), scripts: await evaluate(scriptRan) };
}

/**
 * Replays each page of live (pageState's, by URL) from the WACZ file wacz in
 * ReplayWeb.page (in a Chromium of its own), and asserts that it shows the same text
 * and images, that DokuWiki's script runs, and that the wiki sees no request meanwhile.
 */
export async function checkReplayWebPage(wiki, wacz, live) {
  const rwp = await serveReplayWebPage({ "session.wacz": wacz });
  const viewer = await launchViewer();
  try {
    await offline(wiki, async () => {
      for (const url of Object.keys(live)) {
        assert.ok(live[url].scripts, `${url}: DokuWiki's script did not run live`);
        const page = await viewer.newPage();
        const frame = await openInReplayWebPage(page, rwp.url, rwp.archive("session.wacz"), { url });
        await frame.waitForFunction(scriptRan, null, { timeout: 20000 })
          .catch(() => assert.fail(`${url}: DokuWiki's script did not run in ReplayWeb.page`));
        assert.equal(squash(await frame.evaluate(pageText)), live[url].text, `${url}: the replayed text`);
        assert.deepEqual(await frame.evaluate(imagesShown), live[url].images, `${url}: the images shown`);
        await page.close();
      }
    });
  } finally {
    await viewer.close();
    await rwp.close();
  }
}
