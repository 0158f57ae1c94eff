// webkeep's content script in Firefox: as a page submits a form, it tells the background
// page the names of the page's fields of type password (never their values). The
// background page hands them to the core as Chromium's recorder gets them from its own
// script in the page (shared/recorder/upload.js, op "passwords"), and the core redacts
// those fields from the form's request body when the user asks it to (the default). A
// tab that is not recorded ignores them.
"use strict";
addEventListener("submit", () => {
  const names = new Set();
  for (const e of document.querySelectorAll("input[type=password]")) if (e.name) names.add(e.name);
  if (names.size > 0) browser.runtime.sendMessage({ webkeepPasswords: [...names] }).catch(() => {});
}, true);
