// webkeep's Firefox background page: a thin shim, as extension/sw.js is in Chromium.
// Firefox has no chrome.debugger, so this hands the core (wasm/core) the webRequest
// events of a recorded tab, which turns them into the DevTools events its recorder reads
// (shared/webrequest), and answers the commands the core sends it: a response body from
// the bytes a StreamFilter passed on, the tab's address and a reload. The pages reach
// the core's API through runtime messages (api.js), for an event page has no fetch
// event. Every decision is made in the core, how its events are paced too (pacing.js).
// wasm_exec.js, store.js (IndexedDB), pacing.js and boot.js (the start this page shares
// with sw.js) are loaded before it.
"use strict";

// Large values go into IndexedDB as typed arrays, released once put (store.js).
storeOptions.blobs = false;

// The events wait while a page loads, as in Chromium (pacing.js): the core's work on
// them runs on this page's one thread, where it would hold back the webRequest events
// and the StreamFilter data of the loading page (about 60 ms of a 190 ms load of the
// demo gallery, BENCHMARKS.md). None of them is urgent here, unlike Chromium's
// (core.urgent): the core asks for nothing that is lost if it asks late, for a body
// stays in its filter's hop until the core streams or reads it, and a request body
// comes with its request. So every event keeps its place in one queue; only a new
// tab's opening goes ahead (tabs.onCreated below), and a body kept past the pacing's
// heldMax sends the queue at once (filterBody).
let arrivalMs = 0; // how often the core hears that a routed body still arrives (core.pacing)
const { pacer, ready } = startShim((c) => { arrivalMs = c.pacing.arrivalMs; });

// forward queues a webRequest event of a recorded tab (kind, its details) for the core.
const forward = (kind, d) => {
  const json = JSON.stringify(d);
  pacer.add((c) => c.webRequest(kind, json));
};

// The tabs being recorded, each with a target id made when it was attached. Firefox
// suspends an idle background page, and this page's state with it; the recorded tabs
// are kept in browser.storage.session, which outlives that (not a restart of the
// browser), and read back when the page starts again (restoring), before any request
// of theirs is looked at. Their target ids tell the core (Reconcile) that a tab is the
// one it recorded, still recorded, and not another that took its id after a restart.
const recorded = new Map();
const saveRecorded = () => browser.storage.session.set({ recorded: Object.fromEntries(recorded) })
  .catch((e) => console.warn("webkeep: keeping the recorded tabs:", e));
let restoring = browser.storage.session.get("recorded").then(({ recorded: saved }) => {
  for (const [tabId, target] of Object.entries(saved || {})) recorded.set(Number(tabId), target);
  keepRecording();
}, (e) => console.warn("webkeep: reading the recorded tabs:", e)).finally(() => { restoring = null; });
// Requests of recorded tabs, by webRequest id (a redirect keeps its id): the tab, and
// the response body the current hop's StreamFilter passed on.
const requests = new Map();

// details is a webRequest event's details as the core reads them: a request body's
// bytes (requestBody.raw, ArrayBuffers) in base64.
const details = (d) => {
  const raw = d.requestBody && d.requestBody.raw;
  if (!raw) return d;
  return { ...d, requestBody: { ...d.requestBody, raw: raw.map((part) => (part.bytes ? { bytes: new Uint8Array(part.bytes).toBase64() } : {})) } };
};

// A StreamFilter sees every byte of a response body, decoded as the page gets it, and
// passes it on. Until the core streams the body (Network.streamResourceContent), the
// bytes are kept here, to answer Network.getResponseBody; once it does, each piece goes
// on as it comes (streamed): to IndexedDB when the core routed the body (a large one),
// else to the core in a Network.dataReceived event. So a large body is never held here:
// once more than the pacing's heldMax is kept, the events waiting go to the core.
// hop.done settles once every byte has been passed on (onstop), or the filter failed;
// hop.stopped is then the time (Date.now()) it settled.
const filterBody = (requestId, tabId) => {
  const hop = { chunks: [], size: 0, error: null, streaming: false, shown: 0, flushed: false };
  let filter;
  try {
    filter = browser.webRequest.filterResponseData(requestId);
  } catch (e) {
    hop.error = String(e);
    hop.stopped = Date.now();
    hop.done = Promise.resolve();
    return hop;
  }
  hop.done = new Promise((resolve) => {
    filter.ondata = (e) => {
      filter.write(e.data);
      if (hop.streaming) streamed(tabId, requestId, hop, new Uint8Array(e.data));
      else {
        hop.chunks.push(new Uint8Array(e.data));
        hop.size += e.data.byteLength;
        // A body that comes faster than the events wait (the loopback's 100 MB a
        // second) would be kept here, 100 MB and more, until the core saw its request
        // and streamed it, and more would go through the core before it saw the
        // response's length and routed the body (route): the events waiting go to the
        // core now, all of them, so that it does both at once.
        if (hop.size > pacer.heldMax() && !hop.flushed) {
          hop.flushed = true;
          pacer.flush();
        }
      }
    };
    filter.onstop = () => {
      hop.stopped = Date.now();
      filter.close();
      resolve();
    };
    filter.onerror = () => {
      hop.stopped = Date.now();
      hop.error = filter.error || "the response's filter failed";
      resolve();
    };
  });
  return hop;
};

// joined is a hop's kept bytes in one array; they are no longer kept.
const joined = (hop) => {
  const body = new Uint8Array(hop.size);
  let at = 0;
  for (const c of hop.chunks) {
    body.set(c, at);
    at += c.length;
  }
  hop.chunks = [];
  hop.size = 0;
  return body;
};

// streamed passes on a piece of a streamed body. A routed body's pieces go to
// IndexedDB (routeBytes), which copies them, and the piece's buffer is released at once
// (the filter made it for this event alone, and a garbage collection may come only
// after hundreds of them); the core hears at most once each arrivalMs that the body is
// still arriving. Other pieces go to the core as bytes, beside the event. A body that comes
// faster than IndexedDB stores it waits in the put requests, which Firefox's main
// process holds, not this page's: the filter is not held back (suspend and resume),
// for Firefox then loses data, from the page and from the archive alike. Its parent
// side drops any piece that reaches it once it counts itself suspended
// (StreamFilterParent::DoSendData sends only while transferring), and the network
// hands it pieces already read after the suspend (a 500 MB body lost 256 KiB so); and
// its child side refuses the write of a piece that comes while it is resuming with a
// new suspend asked for (StreamFilterChild::Write), which lost more.
const streamed = (tabId, requestId, hop, bytes) => {
  const route = routes.get(routeKey(tabId, requestId));
  const length = bytes.length;
  if (!route) {
    pacer.add((c) => c.bodyData(tabId, requestId, length, false, bytes), length);
    return;
  }
  try {
    routeBytes(route, bytes);
  } catch (e) {
    route.error = route.error || e;
  }
  released(bytes);
  const now = performance.now();
  if (now - hop.shown < arrivalMs) return;
  hop.shown = now;
  pacer.add((c) => c.bodyData(tabId, requestId, length, true, null));
};

const urls = { urls: ["http://*/*", "https://*/*"] };

// A request that wakes this page waits until the recorded tabs are read back.
browser.webRequest.onBeforeRequest.addListener((d) => {
  if (restoring) return restoring.then(() => beforeRequest(d));
  return beforeRequest(d);
}, urls, ["blocking", "requestBody"]);

function beforeRequest(d) {
  if (!recorded.has(d.tabId)) {
    const opened = opening.get(d.tabId);
    return opened ? opened.held.then(() => beforeRequest(d)) : {};
  }
  const r = requests.get(d.requestId) || { tabId: d.tabId };
  // A redirect's next hop keeps streaming the body the core streams for the request.
  const streaming = Boolean(r.hop && r.hop.streaming);
  r.hop = filterBody(d.requestId, d.tabId);
  if (streaming) r.hop.streaming = true;
  requests.set(d.requestId, r);
  forward("beforeRequest", details(d));
  return {};
}

// The other events of a recorded request go to the core as they come.
for (const [kind, event, extra] of [
  ["sendHeaders", browser.webRequest.onSendHeaders, ["requestHeaders"]],
  ["beforeRedirect", browser.webRequest.onBeforeRedirect, ["responseHeaders"]],
  ["responseStarted", browser.webRequest.onResponseStarted, ["responseHeaders"]],
]) {
  event.addListener((d) => {
    if (requests.has(d.requestId)) forward(kind, d);
  }, urls, extra);
}

// A body the core never asked for is dropped the core's forgetAfterMs after its request
// ended (webrequest.Forget).
const ended = (requestId, r) => ready.then((c) => setTimeout(() => requests.get(requestId) === r && requests.delete(requestId), c.forgetAfterMs));

// The core is told that a body ended the core's leaveCheckMs after its filter stopped,
// with when it stopped: it then knows whether the page was being left meanwhile (a
// navigation of the frame or tab began, or the content script saw the page's
// beforeunload), for Firefox then stops a filter after part of the body, or none, as
// if the body had ended (webrequest.LeaveCheck). The ends of bodies waiting to be
// told: an API request that changes something (a stop) tells them at once
// (finishNow), so that no body that ended is cut by it.
const finishing = new Set();
const finishNow = () => { for (const finish of [...finishing]) finish(); };

browser.webRequest.onCompleted.addListener((d) => {
  const r = requests.get(d.requestId);
  if (!r) return;
  forward("completed", d);
  // A body's last pieces may come after this event: the core hears that the body ended once the filter has passed all of it on
  // (or failed), however long the body takes to come, so that a body the core starts
  // streaming meanwhile is not ended before its last pieces; a recording stopped
  // meanwhile marks it.
  const finish = () => {
    if (!finishing.delete(finish)) return;
    forward("finished", { requestId: d.requestId, tabId: r.tabId, stopped: r.hop.stopped });
    ended(d.requestId, r);
  };
  Promise.all([ready, r.hop.done]).then(([c]) => {
    finishing.add(finish);
    setTimeout(finish, c.leaveCheckMs);
  });
}, urls);

browser.webRequest.onErrorOccurred.addListener((d) => {
  const r = requests.get(d.requestId);
  if (!r) return;
  forward("errorOccurred", d);
  ended(d.requestId, r);
}, urls);

// The commands the core sends here (the core answers the others itself:
// shared/webrequest Translator.Answer).
const commands = {
  "Network.getResponseBody": async (tabId, { requestId }) => {
    const r = requests.get(requestId);
    if (!r || r.tabId !== tabId) throw new Error("No resource with given identifier found");
    const hop = r.hop;
    const { bodyWaitMs } = await ready; // webrequest.BodyWait
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(resolve, bodyWaitMs, "late"); });
    const outcome = await Promise.race([hop.done, late]);
    clearTimeout(timer);
    if (outcome === "late") throw new Error(`the response's filter did not end within ${bodyWaitMs / 1000} s`);
    if (hop.error) throw new Error(`the response's filter failed: ${hop.error}`);
    requests.delete(requestId);
    const body = joined(hop);
    return { body: body.toBase64(), base64Encoded: true };
  },
  // From now on the body's bytes go on as they come (streamed); those kept so far
  // are the answer. A body that has ended is read whole instead.
  "Network.streamResourceContent": async (tabId, { requestId }) => {
    const r = requests.get(requestId);
    if (!r || r.tabId !== tabId || r.hop.error) throw new Error("No resource with given identifier found");
    r.hop.streaming = true;
    return { bufferedData: joined(r.hop).toBase64() };
  },
  // The tab's address, for the core to reload it (Page.reload) and record it whole
  // (the core answers for a tab whose requests all waited for it to be attached).
  "Page.getNavigationHistory": async (tabId) => {
    const tab = await browser.tabs.get(tabId);
    return { currentIndex: 0, entries: [{ url: tab.url || "" }] };
  },
  "Page.reload": async (tabId) => {
    await browser.tabs.reload(tabId, { bypassCache: true });
    return {};
  },
  // Only autopilot's calls (shared/capture autopilot.go): the page script, then the
  // call of its function with a message. The content script runs the same script in
  // every page (autopilot.js) and answers the message in the tab's top frame. And the
  // core's question of what the page shows (shared/capture shownTextExpression), which
  // the content script answers in the top frame too.
  "Runtime.evaluate": async (tabId, { expression }) => {
    const shown = typeof expression === "string" && /^\/\* webkeep:shown (\d+) \*\//.exec(expression);
    if (shown) return { result: { type: "object", value: await fromPage(tabId, { webkeepShown: Number(shown[1]) }) } };
    const at = typeof expression === "string" ? expression.lastIndexOf(autopilotCall) : -1;
    if (at < 0 || !expression.endsWith(")")) throw new Error("Runtime.evaluate is not available in Firefox");
    const message = JSON.parse(expression.slice(at + autopilotCall.length, -1));
    const value = await browser.tabs.sendMessage(tabId, { webkeepAutopilot: message }, { frameId: 0 });
    if (value === undefined) throw new Error("the page's content script did not answer");
    return { result: { type: "object", value } };
  },
  // A picture of what the tab shows, which the core scales down.
  "Page.captureScreenshot": async (tabId, { format, quality }) => {
    const url = await browser.tabs.captureTab(tabId, { format, quality });
    return { data: url.slice(url.indexOf(",") + 1) };
  },
};
const autopilotCall = 'globalThis[Symbol.for("webkeep.autopilot")](';

// fromPage is the answer of the content script of the tab's top frame to message.
const fromPage = async (tabId, message) => {
  const value = await browser.tabs.sendMessage(tabId, message, { frameId: 0 });
  if (value === undefined) throw new Error("the page's content script did not answer");
  return value;
};

// Firefox suspends an idle background page after about 30 s, and the recorder's state
// with it; a call into the browser's API counts as activity. While a tab is recorded,
// each recorded tab is looked up this often (a gone tab is reported as closed). While
// a page's API request is being answered, the page is kept running too: stopping a
// recording waits for the exchanges under way to be written, which for a large body
// may take longer than the idle time (a 500 MB body's records took 40 s and more once
// its page had it whole), and a page suspended meanwhile loses them. How often is the
// core's keepAliveMs (webrequest.KeepAlive).
let keepAlive = null; // the interval, once the core has said how often
let keeping = false;
let answering = 0; // API requests being answered
const keepRecording = () => {
  const keep = recorded.size > 0 || answering > 0;
  if (keep === keeping) return;
  keeping = keep;
  if (!keep) {
    clearInterval(keepAlive);
    keepAlive = null;
    return;
  }
  ready.then((c) => {
    if (!keeping || keepAlive !== null) return;
    keepAlive = setInterval(() => {
      if (recorded.size === 0) browser.runtime.getPlatformInfo().catch(() => {});
      for (const tabId of recorded.keys()) {
        browser.tabs.get(tabId).catch(() => {
          if (recorded.has(tabId)) pacer.add((c) => c.detached(tabId, "target_closed"));
        });
      }
    }, c.keepAliveMs);
  });
};

self.webkeepHost = {
  firefox: true, // the core answers the commands Firefox needs nothing for
  send: async (tabId, sessionId, method, params) => {
    const command = commands[method];
    if (!command) throw new Error(`${method}: not a command of this page`);
    return JSON.stringify(await command(tabId, JSON.parse(params)));
  },
  // Resolves to whether the tab's requests were all held until now (holdOpened).
  attach: async (tabId) => {
    await browser.tabs.get(tabId); // throws for a tab that is not there
    recorded.set(tabId, recorded.get(tabId) || crypto.randomUUID());
    const held = opening.get(tabId)?.release() ?? false;
    await saveRecorded();
    keepRecording();
    // The content script of each of the tab's pages copies and tells from now on;
    // the page already shown may hold a password typed before recording began.
    browser.tabs.sendMessage(tabId, { webkeepRecording: true }).catch(() => {});
    return held;
  },
  detach: async (tabId) => {
    recorded.delete(tabId);
    saveRecorded();
    keepRecording();
    for (const [id, r] of requests) if (r.tabId === tabId) requests.delete(id);
    pacer.add((c) => c.forgetTab(tabId)); // after the tab's events still waiting
    browser.tabs.sendMessage(tabId, { webkeepRecording: false }).catch(() => {});
  },
  // The open tabs' ids, and the recorded ones as attached, with their target ids.
  tabs: async () => {
    await restoring;
    const tabs = await browser.tabs.query({});
    return JSON.stringify({
      tabs: tabs.map((t) => t.id),
      targets: [...recorded].map(([tabId, id]) => ({ tabId, id, attached: true })),
    });
  },
  badge: (tabId, text) => {
    if (text) browser.action.setBadgeBackgroundColor({ tabId, color: "#b00020" }).catch(() => {});
    browser.action.setBadgeText({ tabId, text }).catch(() => {});
  },
  body: {
    route: bodyRoutes.route,
    end: bodyRoutes.end,
  },
  store: idbStore,
};

browser.tabs.onRemoved.addListener((tabId) => {
  opening.get(tabId)?.release();
  if (recorded.has(tabId)) pacer.add((c) => c.detached(tabId, "target_closed"));
});
// A tab a recorded tab opens is recorded from its first request: the core hears of it
// at once, ahead of the events waiting, and its requests wait (opening) until the core
// attaches it, or for the core's openWaitMs (webrequest.OpenWait says why).
const opening = new Map(); // tab id → { held: a promise, release() }
const holdOpened = (tabId) => {
  let release;
  const held = new Promise((resolve) => {
    // Lets the tab's requests go; true if they were held until now.
    release = () => {
      if (opening.get(tabId) !== gate) return false;
      opening.delete(tabId);
      resolve();
      return true;
    };
  });
  const gate = { held, release };
  opening.set(tabId, gate);
  ready.then((c) => setTimeout(release, c.openWaitMs));
};
browser.tabs.onCreated.addListener(async (tab) => {
  if (!tab.openerTabId) return;
  if (restoring) await restoring;
  if (recorded.has(tab.openerTabId) && !opening.has(tab.id)) holdOpened(tab.id);
  pacer.urgent((c) => c.tabCreated(tab.id, tab.openerTabId));
});
// The content script (content.js) of a page of a recorded tab: the copies of the files
// the page sends, and the names of its password fields, handed to the core as the event
// Chromium's recorder gets them by (the binding of its script in the page,
// shared/recorder/upload.js). It asks whether its tab is recorded as it starts.
browser.runtime.onMessage.addListener((message, sender) => {
  if (!message || sender.id !== browser.runtime.id || !sender.tab) return undefined;
  const tabId = sender.tab.id;
  if (message.webkeepRecordingAsk) return Promise.resolve(recorded.has(tabId));
  if (!recorded.has(tabId)) return undefined;
  if (message.webkeepLoaded === true) {
    if (sender.frameId === 0) forward("loaded", { tabId });
    return undefined;
  }
  if (typeof message.webkeepLeaving === "number") {
    const { frameId } = sender;
    pacer.add((c) => c.leaving(tabId, frameId, message.webkeepLeaving));
    return undefined;
  }
  let payload = null;
  let bytes = null;
  if (message.webkeepUpload && typeof message.webkeepUpload === "object") payload = message.webkeepUpload;
  if (payload && payload.op === "data" && typeof payload.data === "string") {
    // A copy's bytes go to the core as the event's bytes, decoded here natively, not
    // as base64 inside the event's JSON (the recorder's onBindingCalled).
    try {
      bytes = Uint8Array.fromBase64(payload.data);
      payload = { ...payload, data: "" };
    } catch {}
  }
  if (payload) {
    const json = JSON.stringify(payload);
    pacer.add((c) => c.upload(tabId, json, bytes), bytes ? bytes.length : 0);
  }
  return undefined;
});

// Request bodies that come in pieces (api.js): pieces.js, waiting for each piece the
// core's pieceWaitMs (webrequest.PieceWait); made once the core has started.
const pieceBodies = ready.then((c) => newPieceBodies(c.pieceWaitMs));
browser.runtime.onMessage.addListener((message, sender) => {
  const m = message && message.webkeepBody;
  if (!m || sender.id !== browser.runtime.id || !String(sender.url).startsWith(location.origin)) return undefined;
  return pieceBodies.then((p) => p.piece(m.id, m, sender.tab && sender.tab.id));
});
browser.tabs.onRemoved.addListener((tabId) => pieceBodies.then((p) => p.tabClosed(tabId)));

// The pages' API requests (api.js), answered by the core as the service worker's fetch
// event has them answered in Chromium: the answer goes back as status, headers and bytes.
browser.runtime.onMessage.addListener((message, sender) => {
  const m = message && message.webkeepApi;
  if (!m || sender.id !== browser.runtime.id || !String(sender.url).startsWith(location.origin)) return undefined;
  return ready.then(async (c) => {
    const url = new URL(m.url, location.origin);
    if (url.origin !== location.origin || !url.pathname.startsWith("/api/")) throw new Error(`not an API request: ${m.url}`);
    // Firefox's Request has no body stream (Request.body), which the core reads a body
    // from: it is handed a request with a Response's, or the stream of a body in pieces.
    const pieces = await pieceBodies;
    const body = m.bodyId ? pieces.stream(m.bodyId, sender.tab && sender.tab.id) : m.body && m.body.length ? new Response(m.body).body : null;
    // A request that changes something sees every event waiting; one that stops a
    // recording, each that comes until it is answered too (core.stopPaths); one that
    // only looks may be a moment behind.
    const stops = m.method === "POST" && c.stopPaths.includes(url.pathname);
    if (m.method !== "GET") {
      finishNow();
      if (!stops) pacer.flush();
    }
    answering++;
    keepRecording();
    try {
      const request = { url: url.href, method: m.method, headers: new Headers(m.headers), body };
      const res = await (stops ? pacer.during(() => c.handle(request)) : c.handle(request));
      return { status: res.status, statusText: res.statusText, headers: [...res.headers], body: new Uint8Array(await res.arrayBuffer()) };
    } finally {
      if (m.bodyId) pieces.finish(m.bodyId);
      answering--;
      keepRecording();
    }
  });
});

const go = newGo();
WebAssembly.instantiateStreaming(fetch("core.wasm"), go.importObject)
  .then((result) => go.run(result.instance))
  .catch((e) => console.error("webkeep: the core did not start:", e));
