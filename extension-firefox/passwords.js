// webkeep's content script in Firefox: it tells the background page the names of the
// page's fields of type password (never their values), and the background page hands
// them to the core as Chromium's recorder gets them from its own script in the page
// (shared/recorder/upload.js, op "passwords"); the core redacts those fields from the
// forms the page sends when the user asks it to (the default). A tab that is not
// recorded ignores them.
//
// Firefox gives an extension no way to ask a page as its request starts, as Chromium's
// recorder does (Runtime.evaluate), so the script tells the names before a password
// can be sent: as the user types or pastes into a field of type password (or a
// password manager fills it: Firefox fires the same input event), as the user clicks
// (a button that sends a login with fetch() or XHR), as a form is submitted, and when
// the background page asks (recording begins on a page already shown). Between two of
// those a name is told once.
"use strict";
const told = new Set();
const tell = (again) => {
  const names = [];
  for (const e of document.querySelectorAll("input[type=password]")) {
    if (e.name && (again || !told.has(e.name)) && !names.includes(e.name)) names.push(e.name);
  }
  if (names.length === 0) return;
  for (const n of names) told.add(n);
  browser.runtime.sendMessage({ webkeepPasswords: names }).catch(() => {});
};
const isPassword = (e) => e.target instanceof HTMLInputElement && e.target.type === "password";
addEventListener("submit", () => tell(true), true);
addEventListener("input", (e) => isPassword(e) && tell(false), true);
addEventListener("change", (e) => isPassword(e) && tell(false), true);
addEventListener("click", () => tell(false), true);
browser.runtime.onMessage.addListener((message) => {
  if (message && message.webkeepPasswordsAsk) tell(true);
});
