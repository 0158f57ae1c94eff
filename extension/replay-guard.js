// webkeep replay: what a replayed page asks for as its tab closes stays in the page.
// The replay answers the tab's requests while its debugger is on it, and closing the
// tab takes the debugger away (the browser's doing): a request paused then is let go
// to the web, and a beacon sent as the page is hidden or unloaded reaches it
// (scripts/probe/closeleak.mjs). A script run in every document of the replay tab
// before the page's own (guardScript) holds the page's fetch(), navigator.sendBeacon()
// and XMLHttpRequest from the moment it may be leaving (beforeunload, which comes
// before the debugger goes, and pagehide), and its timers: a page that goes takes them
// with it; a page that stays (the leaving was cancelled, or a link turned into a
// download) sends them a second later, and one shown again from the back-forward cache
// at once.
// A request the page made before and which is still waiting for its answer would be
// let go too. The script aborts the document's own fetch() and XMLHttpRequest calls
// under way as it may be leaving (beforeunload): their requests end in the browser
// before it goes on closing the tab. For the others (an image, a script), the top
// document's script tells the bar the page may be leaving, and the bar fails every
// request of the tab still waiting and, before the page has loaded or while images are
// on their way, stops the tab's scripts (a page's script run after beforeunload, an
// image's onload asking for the next, made requests that went on to the web with the
// debugger). It tells the bar through a binding the bar adds once the page has loaded
// (leaveBinding; the Runtime domain it needs cost first loads), and before that by a
// request of its own to a path on the page's host that only the bar knows (leavePath),
// which the bar fails: it goes out while beforeunload runs, ahead of the page's images
// (a beacon waited behind them). The script gives the bar the time to (leaveWaitMs,
// and more for each of the page's fetch() or XMLHttpRequest calls under way and each
// image still loading) when the page had one under way or had not loaded. (Told
// alone, the bar was sometimes too late: 1 to 12 requests of a page fetching every 5
// ms reached the web in 3 of 10 closings.) A page that stays after all sees those
// fail, as a page left does, and tells the bar it stayed as it sends what it held (the
// bar fails what the tab asks in between, and runs its scripts again, replay.js's
// runScripts).
"use strict";

// How long requests are held after beforeunload, for a page that stays.
const guardHoldMs = 1000;
// The binding the bar is told through that the page may be leaving.
const leaveBinding = "__webkeepReplayLeaving";
// The path, on the page's origin, of the request a page tells the bar through before the
// binding is added: one of this bar's own, which no page can guess.
const leavePath = `/${crypto.randomUUID()}`;

// leaveSaid is what a page told the bar through leavePath (empty: it may be leaving;
// "stayed"), or undefined for a request of any other URL.
function leaveSaid(url) {
  if (!url.includes(leavePath)) return undefined;
  const u = URL.parse(url);
  return u?.pathname === leavePath ? decodeURIComponent(u.search.slice(1)) : undefined;
}
// How long beforeunload waits, when the page has requests under way, for the bar to
// fail them before the browser goes on closing the tab: the bar's round trip takes a
// few milliseconds, and each request failed about one more, on a machine with every
// core busy more (told of 251 and 355 waiting, the bar had its commands' answers back
// 444 and 699 ms later, after the tab was gone, when the page waited 2 ms each; told of
// 1,390, 1.7 s later, when it waited the second it then waited at most); two seconds
// at most.
const leaveWaitMs = { first: 40, each: 4, most: 2000 };

// guardScript runs in the page's main world; its source is injected.
const guardScript = `(${function (holdMs, binding, waitMs, path) {
  "use strict";
  const given = Symbol.for("webkeep.replayGuard");
  if (globalThis[given]) return;
  // The binding is taken out of the page's reach as soon as it is seen: the bar adds
  // it once the page has loaded, then calls this.
  let channel = null;
  const take = () => {
    if (!channel && typeof globalThis[binding] === "function") {
      channel = globalThis[binding];
      delete globalThis[binding];
    }
    return channel;
  };
  Object.defineProperty(globalThis, given, { value: take });
  take(); // a document made after the binding was added has it from its start
  const pageFetch = globalThis.fetch;
  // tell tells the bar, through its binding or else by a request of its own; false if
  // neither went. The request goes at once, before the page's images (a beacon waited
  // behind them, and reached the bar only after a second of waiting), keeps nothing of
  // the page's (no cookie, no referrer), and is never answered (the bar fails it).
  const tell = (said) => {
    const channel = take();
    if (channel) {
      channel(said);
      return true;
    }
    try {
      // On the document's own URL's host (not its <base>'s): the bar takes it from any.
      const url = new URL(`${path}?${encodeURIComponent(said)}`, location.href).href;
      Reflect.apply(pageFetch, globalThis, [url, {
        method: "POST", keepalive: true, priority: "high", mode: "no-cors",
        credentials: "omit", referrerPolicy: "no-referrer", cache: "no-store",
      }]).catch(() => {});
      return true;
    } catch {
      return false; // a document with no host (about:blank), or a policy of the page's refusing it
    }
  };
  // The page's own constructors, taken before its scripts run.
  const Request = globalThis.Request, AbortController = globalThis.AbortController;
  const anySignal = globalThis.AbortSignal?.any?.bind(globalThis.AbortSignal);
  let underway = 0; // the page's fetch() and XMLHttpRequest calls not yet settled
  const stops = new Set(); // each of those, aborted
  let held = null; // a promise, while the page may be leaving: resolved if it stays
  let release = null;
  let timer = 0;
  // The page's timers are held too: one due as the tab closes (a timer adding an image)
  // asked for what went on to the web once the debugger was gone. A timeout due while
  // the page may be leaving runs once it stays; an interval's turns then are skipped
  // (run later, a second's worth would come at once).
  const setTimeout = globalThis.setTimeout, setInterval = globalThis.setInterval;
  const clearTimeout = globalThis.clearTimeout, reportError = globalThis.reportError;
  globalThis.setTimeout = {
    setTimeout(run, ...rest) {
      if (typeof run !== "function") return Reflect.apply(setTimeout, this, [run, ...rest]);
      return Reflect.apply(setTimeout, this, [function (...args) {
        if (!held) return Reflect.apply(run, this, args);
        held.then(() => {
          try {
            Reflect.apply(run, this, args);
          } catch (e) {
            reportError(e); // as a timer's own error is reported, not as a rejection
          }
        });
      }, ...rest]);
    },
  }.setTimeout;
  globalThis.setInterval = {
    setInterval(run, ...rest) {
      if (typeof run !== "function") return Reflect.apply(setInterval, this, [run, ...rest]);
      return Reflect.apply(setInterval, this, [function (...args) {
        if (!held) return Reflect.apply(run, this, args);
      }, ...rest]);
    },
  }.setInterval;
  const hold = (ms) => {
    if (!held) held = new Promise((r) => { release = r; });
    clearTimeout(timer);
    if (ms) timer = setTimeout(stayed, ms);
  };
  // The page stayed after all: the bar answers its requests again.
  const stayed = () => {
    if (globalThis.top === globalThis) tell("stayed");
    free();
  };
  // The bar, which stops the tab's scripts while the page may be leaving (a timer of
  // this script's due then is lost), says so when the page stayed.
  Object.defineProperty(globalThis, Symbol.for("webkeep.replayGuard.stayed"), { value: () => { if (held) stayed(); } });
  const free = () => {
    const r = release;
    held = release = null;
    clearTimeout(timer);
    r?.();
  };
  // The browser's events only: one a page's script makes leaves nothing.
  const beforeunload = (e) => {
    if (!e.isTrusted) return;
    hold(holdMs);
    const had = underway;
    take();
    // A frame's leaving is its own: the tab's top document tells for the tab. It tells
    // before it aborts what it has under way (hundreds of calls, on a page asking all
    // the time), so that the bar starts failing what is paused sooner.
    const top = globalThis.top === globalThis;
    // A page with images on their way says so ("busy"), loaded or not: the bar then
    // stops the tab's scripts too, whose onload handlers would ask for more as the
    // tab closes (a page that has not loaded tells by its request, and they are
    // stopped whatever it says).
    const loading = top && document.readyState !== "complete";
    const images = top ? imagesLoading() : 0;
    const told = top && tell(images ? "busy" : "");
    for (const stop of [...stops]) stop();
    if (!told) return;
    // The browser goes on closing the tab once this returns: if the page was asking,
    // has images on their way, or has not loaded (its scripts may be waiting), the bar
    // is given the time to fail what else it asked for first. It fails them one after
    // the other (a millisecond or so each: a page asking every 5 ms of a core slow to
    // answer has a hundred waiting), and a request the page aborted may still be
    // paused after it was told.
    if (!had && !loading && !images) return;
    const wait = Math.min(waitMs.first + (had + images) * waitMs.each, waitMs.most);
    for (const until = performance.now() + wait; performance.now() < until;);
    hold(holdMs); // a page that stays is said to a second after the wait, not during it
  };
  // imagesLoading counts the document's images not yet loaded, but for a lazy one the
  // browser has not asked for: one not shown (in a hidden part of the page) or far from
  // the screen (innerHeight's 3 above and 4 below is more than Chromium's margin for
  // starting them).
  const imagesLoading = () => {
    let n = 0;
    const screen = innerHeight || 1000;
    for (const i of document.images) {
      if (i.complete) continue;
      if (i.loading === "lazy") {
        if (i.checkVisibility?.() === false) continue;
        const at = i.getBoundingClientRect();
        if (at.bottom < -3 * screen || at.top > 4 * screen) continue;
      }
      n++;
    }
    return n;
  };
  const pagehide = (e) => { if (e.isTrusted) hold(0); }; // gone, unless shown again
  const pageshow = (e) => { if (e.isTrusted && e.persisted) stayed(); };
  // document.open() takes every listener off the window (the HTML standard's "erase
  // all event listeners and handlers"), and so does a document.write() that opens the
  // document anew (one after it has loaded); the global object and this script's
  // wrappers stay. The listeners are added again after each call (adding one again is
  // a no-op): a page that writes itself anew, as a large HTML document is replayed
  // (shared/replay/large.go) and as some pages do themselves, stays guarded.
  // The replay's other script (replay-stream.js) gives its own to add again
  // (alsoListen).
  const also = [];
  const listen = () => {
    addEventListener("beforeunload", beforeunload, true);
    addEventListener("pagehide", pagehide, true);
    addEventListener("pageshow", pageshow, true);
    for (const f of also) f();
  };
  Object.defineProperty(globalThis, Symbol.for("webkeep.replayGuard.alsoListen"), { value: (f) => { also.push(f); f(); } });
  listen();
  for (const name of globalThis.Document ? ["open", "write", "writeln"] : []) {
    const call = Document.prototype[name];
    Document.prototype[name] = {
      [name](...args) {
        try {
          return Reflect.apply(call, this, args);
        } finally {
          listen();
        }
      },
    }[name];
  }

  const fetch = globalThis.fetch;
  globalThis.fetch = {
    fetch(...args) {
      const go = () => {
        // The same request (fetch() makes its Request so), with a signal of the
        // script's beside the page's; one the constructor refuses goes as it was, for
        // fetch() to refuse.
        let call = args, stop = null;
        try {
          const asked = new Request(...args), ctl = new AbortController();
          call = [new Request(asked, { signal: anySignal([asked.signal, ctl.signal]) })];
          stop = () => ctl.abort();
        } catch {}
        underway++;
        if (stop) stops.add(stop);
        const settled = () => { underway--; if (stop) stops.delete(stop); };
        const p = Reflect.apply(fetch, this, call);
        p.then(settled, settled);
        return p;
      };
      return held ? held.then(go) : go();
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
  const sent = (xhr, args) => {
    Reflect.apply(send, xhr, args);
    if (sync.has(xhr)) return;
    underway++;
    const stop = () => xhr.abort();
    stops.add(stop);
    xhr.addEventListener("loadend", () => { underway--; stops.delete(stop); }, { once: true });
  };
  XMLHttpRequest.prototype.send = {
    send(...args) {
      if (!held || sync.has(this)) return sent(this, args);
      held.then(() => {
        try {
          sent(this, args);
        } catch {} // aborted or opened again while it waited: as the page left it
      });
      return undefined;
    },
  }.send;
}})(${guardHoldMs}, ${JSON.stringify(leaveBinding)}, ${JSON.stringify(leaveWaitMs)}, ${JSON.stringify(leavePath)})`;
