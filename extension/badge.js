// webkeep's badge for the Chromium shim (sw.js): the latest text the core gave a tab,
// shown at most four times a second, as each chrome.action call costs about a
// millisecond of the service worker's thread.
"use strict";

// newBadge returns the host's badge(tabId, text).
const newBadge = () => {
  const badges = new Map(); // tabId -> text not yet shown
  const shown = new Map(); // tabId -> text shown
  const show = () => {
    for (const [tabId, text] of badges) {
      if (shown.get(tabId) === text) continue;
      if (!shown.get(tabId)) chrome.action.setBadgeBackgroundColor({ tabId, color: "#b00020" }).catch(() => {});
      chrome.action.setBadgeText({ tabId, text }).catch(() => {});
      shown.set(tabId, text);
    }
    badges.clear();
  };
  return (tabId, text) => {
    if (!badges.size) setTimeout(show, 250);
    badges.set(tabId, text);
  };
};
