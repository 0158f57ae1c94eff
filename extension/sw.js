// webkeep service worker: a thin shim. It registers every listener at the top level (an
// MV3 worker drops events that arrive before a listener exists), queues events until the
// Go core is running, and does for the core what only JavaScript can: chrome.debugger,
// the badge, and IndexedDB (store.js). Every decision is made in the core (wasm/core).
"use strict";
importScripts("wasm_exec.js", "store.js");

const pending = [];
let core = null;
let fields = null; // the debugger events the core acts on, with the fields it reads
let urgent = null; // those of them the core must act on before what follows arrives
const ready = new Promise((resolve) => {
  self.webkeepCoreReady = () => {
    core = self.webkeepCore;
    fields = core.fields;
    urgent = new Set(core.urgent);
    for (const deliver of pending.splice(0)) deliver(core);
    resolve(core);
  };
});
const deliver = (fn) => (core ? fn(core) : pending.push(fn));

// Browser events reach the core in order, one per task of this thread, so that what
// arrives meanwhile is not kept waiting behind a burst of them (handling one costs the
// core a millisecond or so). While the browser is busy sending them (a page is
// loading), they wait: the core's work would take processor time from the page. They
// go once no event has come for quietMs, or lateMs after the oldest came, or when
// they hold more than heldMax bytes of body data. Those the core must act on before
// what follows them arrives (core.urgent: a new request, whose body may have to be
// streamed from its start; a new worker, held until it is set up) are handed over at
// once.
const quietMs = 30, lateMs = 1000, heldMax = 4 << 20;
const backlog = []; // { fn, at, size }
let held = 0; // bytes of body data in the backlog
let lastEvent = 0;
let waiting = null; // the timer of a wait for quiet
const turns = new MessageChannel();
const next = () => {
  const { fn, size } = backlog.shift();
  held -= size;
  deliver(fn);
};
const pump = () => {
  waiting = null;
  if (!backlog.length) return;
  const now = performance.now();
  const wait = Math.min(quietMs - (now - lastEvent), lateMs - (now - backlog[0].at));
  if (wait > 0 && held < heldMax) {
    waiting = setTimeout(pump, wait);
    return;
  }
  if (backlog.length > 1) turns.port2.postMessage(null);
  next();
};
turns.port1.onmessage = pump;
// flush hands the core every event still waiting, before it answers a request of the
// user's (stopping a recording must see all that was recorded).
const flush = () => {
  while (backlog.length) next();
};
const inTurn = (fn, size = 0) => {
  const at = performance.now();
  lastEvent = at;
  backlog.push({ fn, at, size });
  held += size;
  if (backlog.length === 1 && !waiting) waiting = setTimeout(pump, quietMs);
};

const badges = new Map(); // tabId -> text not yet shown
const shown = new Map(); // tabId -> text shown
const showBadges = () => {
  for (const [tabId, text] of badges) {
    if (shown.get(tabId) === text) continue;
    if (!shown.get(tabId)) chrome.action.setBadgeBackgroundColor({ tabId, color: "#b00020" }).catch(() => {});
    chrome.action.setBadgeText({ tabId, text }).catch(() => {});
    shown.set(tabId, text);
  }
  badges.clear();
};

// A request body the browser did not put in its requestWillBeSent event (a Blob in a
// FormData, a large body) can be asked for only while the browser still holds the
// request: asked for here as soon as the event arrives, the answer waits for the core's
// own Network.getRequestPostData, which the core, behind its queue of events, might send
// too late (the page gone, the request forgotten).
const earlyBodies = new Map(); // tab, session and request id -> the answer's promise
const hiddenBody = (r) => r && r.hasPostData && !(r.postDataEntries && r.postDataEntries.every((e) => typeof e.bytes === "string"));
const askBodyEarly = (source, params) => {
  const key = source.tabId + " " + (source.sessionId || "") + " " + params.requestId;
  const answer = chrome.debugger.sendCommand(source, "Network.getRequestPostData", { requestId: params.requestId });
  answer.catch(() => {});
  earlyBodies.set(key, answer);
  setTimeout(() => earlyBodies.delete(key), 120000); // never asked for: forgotten
};

self.webkeepHost = {
  send: (tabId, sessionId, method, params) => {
    const p = JSON.parse(params);
    const key = method === "Network.getRequestPostData" && tabId + " " + (sessionId || "") + " " + p.requestId;
    const early = key && earlyBodies.get(key);
    if (early) earlyBodies.delete(key);
    return (early || chrome.debugger.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, p))
      .then((result) => JSON.stringify(result || {}));
  },
  attach: (tabId) => chrome.debugger.attach({ tabId }, "1.3").catch((e) => {
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
  // The badge shows the latest text the core gave a tab, at most four times a second:
  // each chrome.action call costs about a millisecond of this thread.
  badge: (tabId, text) => {
    if (!badges.size) setTimeout(showBadges, 250);
    badges.set(tabId, text);
  },
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
      return Boolean(c.eof) || r.cut;
    },
    end: bodyRoutes.end,
  },
  store: idbStore,
};

// Network.dataReceived without data only shows that a body is still arriving (the
// core waits for such bodies when recording stops): one a second per request is enough.
const arriving = new Map(); // tab, session and request id -> when the last one was passed on
const showsArrival = (source, method, params) => {
  const key = source.tabId + " " + (source.sessionId || "") + " " + params.requestId;
  if (method !== "Network.dataReceived") {
    if (method === "Network.loadingFinished" || method === "Network.loadingFailed") arriving.delete(key);
    return true;
  }
  if (params.data) return true;
  const now = performance.now();
  if (now - (arriving.get(key) ?? -Infinity) < 1000) return false;
  arriving.set(key, now);
  return true;
};

// project keeps of v the fields in tree: a name maps to true (the whole value) or to
// the fields kept inside it.
const project = (v, tree) => {
  if (tree === true || v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const out = {};
  for (const k in tree) if (v[k] !== undefined) out[k] = project(v[k], tree[k]);
  return out;
};

chrome.debugger.onEvent.addListener((source, method, params) => {
  // Events the core does not act on, and fields it does not read, are not worth a
  // crossing into Go, where decoding JSON is dear.
  if (fields && !Object.hasOwn(fields, method)) return;
  if (method === "Network.requestWillBeSent" && hiddenBody(params.request)) askBodyEarly(source, params);
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
  const json = JSON.stringify(fields ? project(params || {}, fields[method]) : params || {});
  const event = (c) => c.event(source.tabId, source.sessionId || null, method, json, bytes);
  if (urgent && urgent.has(method)) {
    lastEvent = performance.now();
    deliver(event);
  } else inTurn(event, bytes ? bytes.length : 0);
});
chrome.debugger.onDetach.addListener((source, reason) => {
  inTurn((c) => c.detached(source.tabId, String(reason)));
});
chrome.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId) inTurn((c) => c.tabCreated(tab.id, tab.openerTabId));
});
// The keyboard shortcut: start or stop recording the tab. Named, so tests can call it
// (shortcuts cannot be pressed in a headless browser).
self.webkeepToggle = async (tab) => {
  const c = await ready;
  flush();
  const res = await c.handle(new Request(new URL("/api/record/toggle?tab=" + tab.id, location.origin), { method: "POST" }));
  if (!res.ok) console.warn("webkeep: toggle:", await res.text());
  return res.json();
};
chrome.commands.onCommand.addListener((command, tab) => {
  if (command === "toggle-recording" && tab) self.webkeepToggle(tab);
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.origin === location.origin && url.pathname.startsWith("/api/")) {
    // A request that changes something (stopping a recording) sees every event; one
    // that only looks may be a moment behind.
    event.respondWith(ready.then((c) => {
      if (event.request.method !== "GET") flush();
      return c.handle(event.request);
    }));
  }
});
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

const go = new Go();
WebAssembly.instantiateStreaming(fetch("core.wasm"), go.importObject)
  .then((result) => go.run(result.instance))
  .catch((e) => console.error("webkeep: the core did not start:", e));
