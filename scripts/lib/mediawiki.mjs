// A second real web application, for scripts/test/e2e/realsite-mediawiki.test.mjs and
// scripts/probe/mediawiki.mjs: Debian's MediaWiki, its packages (mediawiki,
// mediawiki-classes) unpacked into .cache/mediawiki by scripts/setup.sh, not installed
// (installing them would install and start Apache). Its own installer sets up a wiki in
// a new temporary folder (an SQLite database, uploads allowed, VisualEditor and
// WikiEditor loaded), served by PHP's own server behind the logging proxy
// (scripts/lib/phpsite.mjs).
import { execFileSync } from "node:child_process";
import { existsSync, appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { root } from "./browser.mjs";
import { servePHP } from "./phpsite.mjs";

const install = path.join(root, ".cache/mediawiki/usr/share/mediawiki");

/** The wiki's user, its administrator (the installer makes it). */
export const mediaWikiUser = { name: "Zoe", password: "pässwörd-4242!" };

/** Starts MediaWiki behind the logging proxy; resolves as servePHP does. */
export async function startMediaWiki() {
  if (!existsSync(path.join(install, "maintenance/install.php"))) {
    throw new Error(`MediaWiki is not in ${install}: scripts/setup.sh unpacks it`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-mediawiki-"));
  const settings = path.join(dir, "LocalSettings.php");
  for (const d of ["db", "images"]) mkdirSync(path.join(dir, d));
  try {
    execFileSync("php", [path.join(install, "maintenance/install.php"), "--dbtype", "sqlite", "--dbpath", path.join(dir, "db"), "--dbname", "wiki",
      "--server", "http://127.0.0.1", "--scriptpath", "", "--confpath", dir, "--lang", "en", "--pass", mediaWikiUser.password, "webkeep test wiki", mediaWikiUser.name], { encoding: "utf8" });
  } catch (e) {
    throw new Error(`MediaWiki's installer failed: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
  appendFileSync(settings, `
$wgServer = WebRequest::detectServer(); // the proxy's address, as the browser asks
$wgEnableUploads = true;
$wgUploadDirectory = "${path.join(dir, "images")}";
$wgUploadPath = "$wgScriptPath/img_auth.php";
$wgMainCacheType = CACHE_DB;
// The package's extensions folder is made by its installation; the unpacked one has
// them all in extensions-core.
$wgExtensionDirectory = "$IP/extensions-core";
$wgExtensionAssetsPath = "$wgScriptPath/extensions-core";
wfLoadExtension( 'VisualEditor' );
wfLoadExtension( 'WikiEditor' );
$wgDefaultUserOptions['visualeditor-enable'] = 1;
$wgVisualEditorShowBetaWelcome = false; // its welcome dialog would cover the editor
`);
  writeFileSync(path.join(dir, "prepend.php"), `<?php define('MW_CONFIG_FILE', '${settings}');\n`);
  return servePHP({ docroot: install, prepend: path.join(dir, "prepend.php"), dir, ready: "index.php?title=Main_Page" });
}

/**
 * A user's session on the wiki at base, as a person clicks through it: log in, edit a
 * page in the source editor and in VisualEditor with non-ASCII text, upload the file
 * at upload, search with the search box's suggestions, log out. Calls seen(page) on
 * each page whose replay is to be checked, and note(text) for what it had to do again.
 */
export async function mediaWikiSession(page, base, upload, seen, note = () => {}) {
  const u = (p) => new URL(p, base).href;
  await page.goto(u("index.php?title=Special:UserLogin"));
  await page.fill("#wpName1", mediaWikiUser.name);
  await page.fill("#wpPassword1", mediaWikiUser.password);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#wpLoginAttempt")]);
  await page.waitForSelector("#pt-logout");

  await page.goto(u("index.php?title=Notes&action=edit"));
  await page.fill("#wpTextbox1", "== Notes ==\nÉté à Zürich: naïve café, Ελληνικά, 日本語, emoji 🎉.\n");
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#wpSave")]);

  // VisualEditor did not open once in about ten runs, the machine busy (why was not
  // found): the page is then loaded again, as a user would, and note says so.
  for (let attempt = 1; ; attempt++) {
    await page.goto(u("index.php?title=Notes&veaction=edit"));
    const opened = await page.waitForSelector(".ve-ce-documentNode[contenteditable=true]", { timeout: 45000 }).then(() => "", async (e) => {
      const shown = await page.evaluate(() => `${document.readyState}; dialog: ${document.querySelector(".oo-ui-window-active")?.innerText ?? "none"}; ${document.querySelector(".ve-init-mw-progressBarWidget, .ve-activated") ? "VisualEditor loading" : ""}`).catch((x) => String(x));
      return `VisualEditor did not open (${shown}): ${e.message.split("\n")[0]}`;
    });
    if (!opened) break;
    if (attempt === 2) throw new Error(opened);
    note(opened);
  }
  await page.click(".ve-ce-documentNode p");
  await page.keyboard.type(" Noch mehr: straße ✓ ");
  await page.click(".ve-ui-toolbar-saveButton");
  await page.waitForSelector(".ve-ui-mwSaveDialog-summary textarea", { timeout: 30000 });
  await page.fill(".ve-ui-mwSaveDialog-summary textarea", "VisualEditor: ü");
  await page.click(".ve-ui-mwSaveDialog .oo-ui-processDialog-actions-primary a");
  await page.waitForSelector(".ve-ui-mwSaveDialog", { state: "detached", timeout: 30000 });
  await page.waitForSelector(".mw-notification, .postedit", { timeout: 30000 }).catch(() => {});

  await page.goto(u("index.php?title=Special:Upload"));
  await page.setInputFiles("#wpUploadFile", upload);
  await page.fill("#wpDestFile", "Bildschirmfoto-äöü.png");
  await page.fill("#wpUploadDescription", "Bildschirmfoto äöü");
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("input[name=wpUpload]")]);

  await page.goto(u("index.php?title=Notes"));
  await seen(page);
  await page.fill("#searchInput", "Zürich");
  await page.waitForSelector(".suggestions-results a, .suggestions-special", { timeout: 10000 }).catch(() => {});
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.press("#searchInput", "Enter")]);
  await seen(page);
  await page.click("#pt-logout a");
  await page.waitForSelector("#pt-login, #pt-login-2", { timeout: 30000 });
  await page.waitForLoadState("load");
  await seen(page);
}
