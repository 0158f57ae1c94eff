// webkeep's content script in Firefox, run after copier.js (shared/recorder/copier.js)
// in every http(s) page. For a recorded tab it does what Chromium's recorder does with
// its script in the page (shared/recorder/upload.js): the copier copies the files the
// page sends, and the background page hands each message to the core as the event
// Chromium's binding sends (Runtime.bindingCalled). It reaches the page's fetch, XHR
// and form.submit through Firefox's Xray wrappers (window.wrappedJSObject,
// exportFunction): the page cannot call into this script's world, so it can neither
// forge a copy nor see one.
//
// It also tells the names of the page's fields of type password (never their values):
// Firefox lets an extension ask a page nothing as its request starts, as Chromium's
// recorder does (Runtime.evaluate), so they are told before a password can be sent: as
// the user types or pastes into such a field (a password manager's fill fires the same
// input event), clicks (a button that sends a login with fetch() or XHR), submits a
// form, and when recording begins on a page already shown. Between two of those a
// name is told once. And it tells when a navigation of the page begins (beforeunload).
// While the tab is not recorded, nothing is read or sent: the wrappers of fetch, XHR
// and form.submit pass every call straight on. And it carries out autopilot's page
// script for the core, in the top frame of a recorded tab, and tells the core when
// that frame has loaded and what it shows (its address, text and viewport), for the
// page's picture.
"use strict";
{
  let recording = false;
  browser.runtime.sendMessage({ webkeepRecordingAsk: true }).then((r) => { recording = recording || r === true; }, () => {});
  const post = (message) => {
    if (recording) browser.runtime.sendMessage({ webkeepUpload: message }).catch(() => {});
  };
  const page = window.wrappedJSObject;
  const copier = newCopier({
    post,
    page,
    hook: (obj, name, wrap) => {
      exportFunction(wrap(obj[name]), obj, { defineAs: name });
    },
    active: () => recording,
    chunkBytes: 1 << 20, // BENCHMARKS.md, "Firefox: the content script's copies"
  });

  // The copier tells the password fields as the page sends; tell tells them earlier
  // too: all of them if again, else only when one has not been told yet.
  const told = new Set();
  const tell = (again) => {
    if (again || copier.passwordNames().some((n) => !told.has(n))) for (const n of copier.passwords()) told.add(n);
  };
  const isPassword = (e) => e.target instanceof HTMLInputElement && e.target.type === "password";
  addEventListener("input", (e) => isPassword(e) && tell(false), true);
  addEventListener("change", (e) => isPassword(e) && tell(false), true);
  addEventListener("click", () => tell(false), true);
  // A navigation of this page begins: Firefox stops the page's loads now, before the
  // navigation's own request, and may end the bodies being passed on early. The time
  // goes to the background page, which then marks them (background.js, leaving).
  addEventListener("beforeunload", () => {
    if (recording) browser.runtime.sendMessage({ webkeepLeaving: Date.now() }).catch(() => {});
  }, true);
  // Autopilot (shared/autopilot/page.js, run before this script): in the top frame of
  // a recorded tab, the background page hands it the core's message and the answer goes
  // back (background.js, Runtime.evaluate).
  browser.runtime.onMessage.addListener((message) => {
    if (!message || !message.webkeepAutopilot || !recording || window !== window.top) return undefined;
    return globalThis[Symbol.for("webkeep.autopilot")](message.webkeepAutopilot);
  });
  // The load of the top frame of a recorded tab, after which the core pictures it.
  addEventListener("load", (e) => {
    if (recording && window === window.top && e.target === document) browser.runtime.sendMessage({ webkeepLoaded: true }).catch(() => {});
  }, true);
  // What the top frame of a recorded tab shows, for the core's picture of it: its
  // address, readyState and text (at most the number of characters asked)
  // (background.js, Runtime.evaluate).
  browser.runtime.onMessage.addListener((message) => {
    if (!message || !recording || window !== window.top) return undefined;
    if (typeof message.webkeepShown === "number") {
      return Promise.resolve([location.href, document.readyState, document.body ? document.body.innerText.slice(0, message.webkeepShown) : ""]);
    }
    return undefined;
  });
  browser.runtime.onMessage.addListener((message) => {
    if (!message || typeof message.webkeepRecording !== "boolean") return;
    recording = message.webkeepRecording;
    if (recording) tell(true);
  });
}
