// webkeep service worker: a thin shim. It registers every listener at the top level (an
// MV3 worker drops events that arrive before a listener exists), queues events until the
// Go core is running, and does for the core what only JavaScript can: chrome.debugger,
// the badge (badge.js), and IndexedDB (store.js); its start, and the keyboard shortcut,
// are those of Firefox's background page too (boot.js). Every decision is made in the core
// (wasm/core): which events and fields it reads (events.js), and how they are paced
// (pacing.js).
"use strict";
// Marks of the start-up's steps, for scripts/bench/coldstart.mjs: the core adds its own
// (wasm/core), and the shim "webkeep: scripts", "webkeep: instantiated" and
// "webkeep: ready".
performance.mark("webkeep: shim");
importScripts("wasm_exec.js", "core-id.js", "store.js", "pacing.js", "boot.js", "badge.js", "events.js", "underway.js");
performance.mark("webkeep: scripts");

let fields = null; // the debugger events the core acts on, with the fields it reads
let urgent = null; // those of them the core must act on before what follows arrives
let handEvent = null; // hands an event to the pacer, as its request lets it (events.js)
let arrivalMs = 0; // how often a body still arriving is passed on (core.pacing)
let stopPaths = null; // the API paths whose answer sees every event as it comes
const { pacer, ready } = startShim((c) => {
  fields = c.fields;
  stopPaths = new Set(c.stopPaths);
  arrivalMs = c.pacing.arrivalMs;
  urgent = new Set(c.urgent);
  handEvent = newRequestRouter(pacer, new Set(c.streamedTypes), new Set(c.afterQueued), c.pacing.holdMs);
});
const showsArrival = newArrivals(() => arrivalMs);
// What a stop of this worker would lose, kept while there is any (underway.js).
const watchUnderway = newUnderwayWatch(chrome.storage.session, ready, pacer);

// The targets on which the core enabled the Fetch domain: each request paused there
// is let go at once, here, and only then handed to the core (which notes its address:
// shared/recorder/leaving.go), so that no request waits behind the core's queue.
const pausing = new Set();
const targetKey = (tabId, sessionId) => tabId + " " + (sessionId || "");

// The tabs a replay bar (replay.js) debugs, each with its bar's tab, as each bar says
// once it has attached (in the session's storage, which outlives this worker: a worker
// started again reads them): the browser hands this worker every debugger event of the
// extension's, theirs too, and the core records no such tab (webkeepHost.attach refuses
// it), so their events go no further than here instead of into Go as the page loads.
const replayTabs = new Set();
const replayTabKey = "replay tab ";
const noteReplayTabs = (items) => {
  for (const [key, on] of Object.entries(items)) {
    if (!key.startsWith(replayTabKey)) continue;
    const tab = Number(key.slice(replayTabKey.length));
    if (on) replayTabs.add(tab);
    else replayTabs.delete(tab);
  }
};
chrome.storage.session.get(null).then(noteReplayTabs, () => {});
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "session") noteReplayTabs(Object.fromEntries(Object.entries(changes).map(([key, c]) => [key, c.newValue])));
});

self.webkeepHost = {
  send: (tabId, sessionId, method, params) => {
    const p = JSON.parse(params);
    if (method === "Fetch.enable") pausing.add(targetKey(tabId, sessionId));
    const early = method === "Network.getRequestPostData" && earlyBodies.take(tabId, sessionId, p.requestId);
    const sent = early || chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, p);
    // Requests paused until the domain is off are still let go.
    if (method === "Fetch.disable") sent.finally(() => pausing.delete(targetKey(tabId, sessionId))).catch(() => {});
    return sent.then((result) => JSON.stringify(result || {}));
  },
  // A replay's tab is attached already, by its bar, whose answers a recording of it
  // would take over: it is refused, in words the core passes on.
  attach: (tabId) => replayTabs.has(tabId) ? Promise.reject(new Error(`tab ${tabId} is a webkeep replay, answered from the archive, and is not recorded: open the live page in a tab of its own to record it`)) : chrome.debugger.attach({ tabId }, "1.3").catch((e) => {
    // After a service-worker restart the old session is still attached: keep it.
    if (!/already attached/i.test(String(e && e.message))) throw e;
  }),
  detach: (tabId) => chrome.debugger.detach({ tabId }).catch(() => {}),
  // The open tabs' ids, and the page targets of tabs (their target ids, and whether a
  // debugger is attached), as JSON: the core reconciles its recording state with them.
  tabs: async () => {
    const [tabs, targets] = await Promise.all([chrome.tabs.query({}), chrome.debugger.getTargets()]);
    return JSON.stringify({
      tabs: tabs.map((t) => t.id),
      targets: targets.filter((t) => t.tabId).map(({ tabId, id, attached }) => ({ tabId, id, attached })),
    });
  },
  badge: newBadge(),
  body: {
    route: bodyRoutes.route,
    // One IO.read of a DevTools stream, its data stored as an event's would be under
    // prefix; resolves to whether the stream (or what may be kept of it) has ended.
    read: async (tabId, sessionId, handle, prefix, limit) => {
      const key = "io " + prefix;
      if (!routes.has(key)) routes.set(key, newRoute(prefix, limit));
      const r = routes.get(key);
      const c = await chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, "IO.read", { handle, size: routeChunk });
      if (!c.base64Encoded) routeBytes(r, new TextEncoder().encode(c.data));
      else if (Uint8Array.prototype.setFromBase64) routeData(r, c.data);
      else routeBytes(r, Uint8Array.from(atob(c.data), (ch) => ch.charCodeAt(0)));
      // The stream is read no faster than IndexedDB stores it: a body read from the
      // loopback had 143 chunks (1 MiB each) waiting to be put, in the worker's memory.
      while (r.writes.size >= routeWrites) await Promise.race(r.writes);
      return Boolean(c.eof) || r.cut;
    },
    end: bodyRoutes.end,
  },
  store: idbStore,
};

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (replayTabs.has(source.tabId)) {
    if (method === "Fetch.requestPaused") replayPaused(source, params);
    return;
  }
  watchUnderway();
  if (method === "Fetch.requestPaused") {
    // Only the core's own pauses: a replay (replay.js) answers those of its tab.
    if (!pausing.has(targetKey(source.tabId, source.sessionId))) return;
    chrome.debugger.sendCommand(source, "Fetch.continueRequest", { requestId: params.requestId }).catch(() => {});
  }
  // Events the core does not act on, and fields it does not read, are not worth a
  // crossing into Go, where decoding JSON is dear.
  if (fields && !Object.hasOwn(fields, method)) return;
  if (method === "Network.requestWillBeSent") earlyBodies.ask(source, params);
  // A streamed body's bytes never travel as base64 inside JSON: the data of a body the
  // core routed goes to IndexedDB from here (routeData), and the event to the core with
  // empty data; other data goes to the core as bytes, decoded natively and copied once.
  let bytes = null;
  if (method === "Network.dataReceived" && typeof params.data === "string" && Uint8Array.fromBase64) {
    const r = Uint8Array.prototype.setFromBase64 && routes.get(routeKey(source.tabId, params.requestId));
    if (!r) bytes = Uint8Array.fromBase64(params.data);
    else try { routeData(r, params.data); } catch (e) { r.error = r.error || e; }
    params = { ...params, data: r ? "" : undefined };
  }
  if (!bytes && !showsArrival(source, method, params)) return;
  // An event that waits in the pacer is put into JSON as it goes: not as the page loads.
  const event = (c) => c.event(source.tabId, source.sessionId || null, method, JSON.stringify(fields ? project(params || {}, fields[method]) : params || {}), bytes);
  // The request's URL, which underway.js keeps while the event waits (pacer.starting).
  if (method === "Network.requestWillBeSent" && params.request) event.url = params.request.url;
  if (handEvent) handEvent(source, method, params, event, bytes ? bytes.length : 0, urgent.has(method));
  else pacer.add(event, bytes ? bytes.length : 0);
});
// How long after a detach a tab still open is taken to stay (a tab being closed is
// gone from the browser's list by then; the replay bar waits as long, replay.js).
const takenOffAfter = 300;
const forgetReplayTab = (tab) => {
  replayTabs.delete(tab);
  replayPauses.delete(tab);
  chrome.storage.session.remove(replayTabKey + tab).catch(() => {});
};
chrome.debugger.onDetach.addListener((source, reason) => {
  for (const k of pausing) if (k.startsWith(source.tabId + " ")) pausing.delete(k);
  // Chromium says target_closed also when it takes the debugger off a tab that stays
  // open: one that shows a PDF in its PDF viewer, a frame of one of its own extensions.
  // A tab still there a moment later is attached again by the core and recorded on;
  // a replay's, by its bar (replay.js, takeBack), and stays the bar's. A replay tab
  // is forgotten otherwise, whether this worker has read it yet or not (a worker woken
  // by the detach).
  if (reason !== "target_closed") {
    forgetReplayTab(source.tabId);
    pacer.add((c) => c.detached(source.tabId, String(reason)));
  } else setTimeout(() => chrome.tabs.get(source.tabId).then(
    () => { if (!replayTabs.has(source.tabId)) pacer.add((c) => c.takenOff(source.tabId)); },
    () => {
      forgetReplayTab(source.tabId);
      pacer.add((c) => c.detached(source.tabId, String(reason)));
    },
  ), takenOffAfter);
});
// A replay's end, done here, for its bar may be gone: a bar asks as it closes
// (replay.js), and a bar's tab closed ends the replay it began (its page may have been
// too busy to ask). The replay's tab is sent to about:blank with the debugger still on
// it, which ends its page's requests, those still paused too, and is closed half a
// second later, once that page has unloaded (the time a probe found enough; no event
// says so). Closing it at once detached the debugger while the page, unloading, still
// had requests paused that no event had shown: the browser let them go on to the web.
// Network prediction, off while a replay runs, is the user's again once
// no replay bar is open (cleared while the next replay ran, the browser preconnected to
// the replayed site: two connections a page in the capture check's test). Only a
// replay's tab is ended so.
const replayTabUnload = 500;
const endingReplays = new Set();
// The requests a replay's tab paused last, which its bar may not have answered when it
// closed: the replay's end fails them, and every request the tab pauses from then on,
// as the bar is no longer there to answer it. (A request paused as the bar closed, the
// page's icon asked for as it had loaded, stayed paused until the tab was closed,
// when the browser let it go to the site: one CI run of the end-to-end suite.) Failing
// one its bar answered already is refused, and nothing more.
const replayPauses = new Map(); // tab -> Map of request id -> its debuggee, the last pausesKept
const pausesKept = 256;
const failPaused = (source, requestId) => chrome.debugger.sendCommand(source, "Fetch.failRequest", { requestId, errorReason: "Aborted" }).catch(() => {});
function replayPaused(source, { requestId }) {
  if (endingReplays.has(source.tabId)) return failPaused(source, requestId);
  let paused = replayPauses.get(source.tabId);
  if (!paused) replayPauses.set(source.tabId, paused = new Map());
  paused.set(requestId, source);
  if (paused.size > pausesKept) paused.delete(paused.keys().next().value);
}
const endReplay = (tab) => {
  if (endingReplays.has(tab)) return;
  endingReplays.add(tab);
  for (const [requestId, source] of replayPauses.get(tab) || []) failPaused(source, requestId);
  replayPauses.delete(tab);
  chrome.debugger.sendCommand({ tabId: tab }, "Page.navigate", { url: "about:blank" }).catch(() => {});
  setTimeout(async () => {
    await chrome.tabs.remove(tab).catch(() => {});
    endingReplays.delete(tab);
    replayPauses.delete(tab);
    // No replay bar open: the next one may have begun already, and turned it off.
    const bars = await chrome.runtime.getContexts({ contextTypes: ["TAB"] });
    if (!bars.some((c) => c.documentUrl && new URL(c.documentUrl).pathname === "/replay.html")) {
      chrome.privacy.network.networkPredictionEnabled.clear({}).catch(() => {});
    }
  }, replayTabUnload);
};
chrome.runtime.onMessage.addListener((m) => {
  const tab = m && m.endReplay;
  if (!Number.isInteger(tab)) return;
  chrome.storage.session.get(replayTabKey + tab).then((items) => {
    if (items[replayTabKey + tab]) endReplay(tab);
  }, () => {});
});
chrome.tabs.onRemoved.addListener((closed) => {
  chrome.storage.session.get(null).then((items) => {
    for (const [key, bar] of Object.entries(items)) {
      if (key.startsWith(replayTabKey) && bar === closed) endReplay(Number(key.slice(replayTabKey.length)));
    }
    if (items[replayTabKey + closed]) forgetReplayTab(closed); // a replay tab closed with its debugger on
  }, () => {});
});
chrome.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId) pacer.add((c) => c.tabCreated(tab.id, tab.openerTabId));
});
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.origin === location.origin && url.pathname.startsWith("/api/")) {
    // A request that changes something sees every event waiting; one that stops a
    // recording, each that comes until it is answered too (core.stopPaths); one that
    // only looks may be a moment behind.
    event.respondWith(ready.then((c) => {
      if (event.request.method === "GET") return c.handle(event.request);
      if (event.request.method === "POST" && stopPaths.has(url.pathname)) return pacer.during(() => c.handle(event.request));
      pacer.flush();
      if (event.request.method === "PUT" && url.pathname === "/api/settings") return c.handle(event.request).then((res) => {
        if (res.ok) keepCompiledInTurn().catch((e) => console.warn("webkeep: the compiled core's keeper:", e));
        return res;
      });
      return c.handle(event.request);
    }));
  }
});
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The core is shipped gzipped: the worker reads 2.7 MB instead of 10 MB from the
// extension's files. Reading and inflating that file was most of a start (BENCHMARKS.md,
// "Core cold start"), so the first start keeps the inflated core in the worker's Cache
// Storage, under a URL of its build (core-id.js; the Cache API takes only http(s) URLs),
// and the next starts compile it from there. A cache that fails is passed by, and a kept
// core that does not compile is dropped: the core is then read from the extension's files
// (and kept again). The core is read whole, as a Blob first, and compiled from memory:
// Chromium reads the kept 10 MB faster through a Blob than with Response.arrayBuffer(),
// and compiles them from a buffer in a quarter of the time it takes to compile them
// streamed from a Response (scripts/probe/coldstart.mjs). self.webkeepCoreFrom says
// where this start read it ("cache" or "files").
const go = newGo();
const wasmHeaders = { "content-type": "application/wasm" };
const coreCache = "webkeep-core";
const coreCacheURL = `https://webkeep.invalid/core-${self.webkeepCoreID}.wasm`;
const coreFromFiles = () => fetch("core.wasm.gz").then((r) => {
  if (!r.ok) throw new Error("core.wasm.gz: " + r.status);
  self.webkeepCoreFrom = "files";
  return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
});
const keepCore = (cache, bytes) => cache.put(coreCacheURL, new Response(bytes, { headers: wasmHeaders }))
  .then(async () => { // the cores of earlier builds go
    for (const r of await cache.keys()) if (r.url !== coreCacheURL) await cache.delete(r);
    return true;
  })
  .catch((e) => {
    console.warn("webkeep: the core is not kept for the next start:", e);
    return false;
  });
// coreKept settles once the core is in Cache Storage (to false if it could not be kept).
let coreKept = Promise.resolve(false);
const loadCore = () => caches.open(coreCache).then(async (cache) => {
  const kept = await cache.match(coreCacheURL);
  if (kept) {
    self.webkeepCoreFrom = "cache";
    coreKept = Promise.resolve(true);
    return (await kept.blob()).arrayBuffer();
  }
  const bytes = await coreFromFiles();
  coreKept = keepCore(cache, bytes); // the Response copies the bytes
  return bytes;
}).catch(() => coreFromFiles());
const instantiateCore = async () => {
  const bytes = await loadCore();
  performance.mark("webkeep: core read");
  return WebAssembly.instantiate(bytes, go.importObject);
};
instantiateCore()
  .catch(async (e) => {
    if (self.webkeepCoreFrom !== "cache") throw e;
    console.warn("webkeep: the kept core did not compile, reading the extension's:", e);
    await caches.delete(coreCache).catch(() => {});
    return instantiateCore();
  })
  .then((result) => {
    performance.mark("webkeep: instantiated");
    go.run(result.instance);
  })
  .catch((e) => console.error("webkeep: the core did not start:", e));

// keepCompiled has the offscreen document whose worker holds the compiled core between
// this worker's starts (keeper.js) hold it on for 30 minutes from this start, or opens
// it, once the core is running and kept in Cache Storage: its compiling then finds this
// worker's module and costs next to nothing. An update of the extension closes it with
// the extension's pages. A user who chose to give its memory back (the setting
// releaseCompiledCore) has it closed instead, at each start and as the setting is saved.
// Chromium only: Firefox's background page runs for as long as the browser.
const keepCompiled = async () => {
  if (!chrome.offscreen || !(await coreKept)) return;
  const settings = await (await (await ready).handle(new Request(new URL("/api/settings", location.origin)))).json();
  if (settings.releaseCompiledCore) {
    if (await chrome.offscreen.hasDocument()) await chrome.offscreen.closeDocument();
    return;
  }
  if (await chrome.runtime.sendMessage({ keepCore: true }).catch(() => undefined)) return;
  await chrome.offscreen.createDocument({
    url: `keeper.html?core=${encodeURIComponent(coreCacheURL)}`, reasons: ["WORKERS"],
    justification: "A worker holds the compiled core, so that the service worker starts without compiling it again.",
  });
};
// Its calls, a start's and each saved setting's, run one after the other: two at once
// would both find no keeper and both open one (the second fails).
let keeping = Promise.resolve();
const keepCompiledInTurn = () => (keeping = keeping.catch(() => {}).then(keepCompiled));
self.webkeepKeeper = ready.then(keepCompiledInTurn).catch((e) => console.warn("webkeep: the compiled core is not kept between starts:", e));
