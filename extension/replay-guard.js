// webkeep replay: what a replayed page asks for as its tab closes stays in the page.
// The replay answers the tab's requests while its debugger is on it, and closing the
// tab takes the debugger away (the browser's doing): a request paused then is let go
// to the web, and a beacon sent as the page is hidden or unloaded reaches it
// (scripts/probe/closeleak.mjs). A script run in every document of the replay tab
// before the page's own (guardScript) holds the page's fetch(), navigator.sendBeacon()
// and XMLHttpRequest from the moment it may be leaving (beforeunload, which comes
// before the debugger goes, and pagehide): a page that goes takes them with it; a page
// that stays (the leaving was cancelled, or a link turned into a download) sends them a
// second later, and one shown again from the back-forward cache at once.
"use strict";

// How long requests are held after beforeunload, for a page that stays.
const guardHoldMs = 1000;

// guardScript runs in the page's main world; its source is injected.
const guardScript = `(${function (holdMs) {
  "use strict";
  const given = Symbol.for("webkeep.replayGuard");
  if (globalThis[given]) return;
  Object.defineProperty(globalThis, given, { value: true });
  let held = null; // a promise, while the page may be leaving: resolved if it stays
  let release = null;
  let timer = 0;
  const hold = (ms) => {
    if (!held) held = new Promise((r) => { release = r; });
    clearTimeout(timer);
    if (ms) timer = setTimeout(free, ms);
  };
  const free = () => {
    const r = release;
    held = release = null;
    clearTimeout(timer);
    r?.();
  };
  // The browser's events only: one a page's script makes leaves nothing.
  addEventListener("beforeunload", (e) => { if (e.isTrusted) hold(holdMs); }, true);
  addEventListener("pagehide", (e) => { if (e.isTrusted) hold(0); }, true); // gone, unless shown again
  addEventListener("pageshow", (e) => { if (e.isTrusted && e.persisted) free(); }, true);

  const fetch = globalThis.fetch;
  globalThis.fetch = {
    fetch(...args) {
      return held ? held.then(() => Reflect.apply(fetch, this, args)) : Reflect.apply(fetch, this, args);
    },
  }.fetch;
  const sendBeacon = Navigator.prototype.sendBeacon;
  Navigator.prototype.sendBeacon = {
    sendBeacon(...args) {
      if (!held) return Reflect.apply(sendBeacon, this, args);
      held.then(() => Reflect.apply(sendBeacon, this, args));
      return true; // queued, as the browser says of a beacon it takes
    },
  }.sendBeacon;
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const sync = new WeakSet(); // the requests opened synchronous, which cannot wait
  XMLHttpRequest.prototype.open = {
    open(...args) {
      if (args.length > 2 && !args[2]) sync.add(this);
      else sync.delete(this);
      return Reflect.apply(open, this, args);
    },
  }.open;
  XMLHttpRequest.prototype.send = {
    send(...args) {
      if (!held || sync.has(this)) return Reflect.apply(send, this, args);
      held.then(() => {
        try {
          Reflect.apply(send, this, args);
        } catch {} // aborted or opened again while it waited: as the page left it
      });
      return undefined;
    },
  }.send;
}})(${guardHoldMs})`;
