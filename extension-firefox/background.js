// webkeep's Firefox background page: a thin shim, as extension/sw.js is in Chromium.
// Firefox has no chrome.debugger, so this turns the webRequest events of a recorded tab
// into the DevTools events the Go core's recorder reads (core.fields), and answers the
// commands the recorder sends: a response body from the bytes a StreamFilter passed on,
// a request body from requestBody.raw. The pages reach the core's API through runtime
// messages (api.js), for an event page has no fetch event. Every decision is made in
// the core (wasm/core), how its events are paced too (pacing.js). wasm_exec.js,
// store.js (IndexedDB) and pacing.js are loaded before it.
"use strict";

// Large values go into IndexedDB as typed arrays, released once put (store.js).
storeOptions.blobs = false;

const pending = [];
let core = null;
let fields = null; // the DevTools events the core acts on
const deliver = (fn) => (core ? fn(core) : pending.push(fn));
// The events wait while a page loads, as in Chromium (pacing.js): the core's work on
// them runs on this page's one thread, where it would hold back the webRequest events
// and the StreamFilter data of the loading page (about 60 ms of a 190 ms load of the
// demo gallery, BENCHMARKS.md). None of them is urgent here, unlike Chromium's
// (core.urgent): the core asks for nothing that is lost if it asks late, for a body
// stays in its filter's hop until the core streams or reads it, and a request body
// comes with its request. So every event keeps its place in one queue; only a new
// tab's opening goes ahead (tabs.onCreated below).
const pacer = newPacer(deliver);
const ready = new Promise((resolve) => {
  self.webkeepCoreReady = () => {
    core = self.webkeepCore;
    fields = core.fields;
    for (const fn of pending.splice(0)) fn(core);
    pacer.start(core.pacing);
    resolve(core);
  };
});

// emit queues one DevTools event of a tab for the core, in the order the browser's
// came; bytes, if any, are a body's data passed beside it.
const emit = (tabId, method, params, bytes = null) => {
  if (fields && !Object.hasOwn(fields, method)) return;
  const json = JSON.stringify(params);
  pacer.add((c) => c.event(tabId, null, method, json, bytes), bytes ? bytes.length : 0);
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
// Requests of recorded tabs, by webRequest id (a redirect keeps its id): the current
// hop's request body and the response body its StreamFilter passed on.
const requests = new Map();
// The document each frame of a recorded tab shows: tab and frame id -> the request id
// that loaded it (DevTools' loaderId).
const documents = new Map();
// When the document each frame of a recorded tab shows last changed: by tab and frame
// id, the times (webRequest's timeStamp) at which its last navigations began and their
// responses started, each with its request's id, and those at which the content script
// saw the page begin to be left (beforeunload; see leaving).
const frameChanges = new Map();
const maxFrameChanges = 16;
const frameChanged = (d) => {
  const key = d.tabId + " " + d.frameId;
  const list = frameChanges.get(key) || [];
  list.push({ requestId: d.requestId, at: d.timeStamp });
  if (list.length > maxFrameChanges) list.shift();
  frameChanges.set(key, list);
};
const forgetAfterMs = 120000; // a body the core never asked for

// DevTools resource types for webRequest's.
const resourceTypes = {
  main_frame: "Document", sub_frame: "Document", xmlhttprequest: "XHR", script: "Script",
  stylesheet: "Stylesheet", image: "Image", imageset: "Image", font: "Font", media: "Media",
  websocket: "WebSocket", ping: "Ping", beacon: "Ping", csp_report: "CSPViolationReport",
  object: "Other", xslt: "Other", xml_dtd: "Other", web_manifest: "Manifest", speculative: "Other", other: "Other",
};

// headerMap gives webRequest's header list as DevTools does: one value per name, the
// values of a repeated name joined by newlines.
const headerMap = (list) => {
  const m = {};
  for (const { name, value } of list || []) {
    if (value === undefined) continue;
    m[name] = Object.hasOwn(m, name) ? m[name] + "\n" + value : value;
  }
  return m;
};

// requestBody: the exact bytes when Firefox gives them (requestBody.raw, as it does for
// fetch() and XMLHttpRequest). A form Firefox submits itself (by navigation, or any
// multipart body) comes only as parsed formData, a file part as its file name: those
// fields go to the core in order, which rebuilds the body and marks it (see the
// recorder's FormField). A raw part without bytes (a file) has an empty entry.
const requestBody = (body) => {
  if (!body) return null;
  if (!body.raw) {
    const fields = Object.entries(body.formData || {}).flatMap(([name, values]) => values.map((value) => ({ name, value })));
    return { entries: [], fields };
  }
  return { entries: body.raw.map((part) => (part.bytes ? { bytes: new Uint8Array(part.bytes).toBase64() } : {})) };
};

// response is the DevTools response object of a webRequest response event.
const response = (d) => {
  const [version = "", , ...reason] = (d.statusLine || "").split(" ");
  const protocols = { "HTTP/2": "h2", "HTTP/2.0": "h2", "HTTP/3": "h3" };
  return {
    url: d.url,
    status: d.statusCode,
    statusText: reason.join(" "),
    headers: headerMap(d.responseHeaders),
    protocol: protocols[version] || version.toLowerCase(),
    remoteIPAddress: d.ip || "",
    // Firefox says only that its HTTP cache gave the page its copy, not whether it
    // asked the server first (a 304 on the wire): the core's note says so.
    webkeepFromHTTPCache: Boolean(d.fromCache),
  };
};

// A StreamFilter sees every byte of a response body, decoded as the page gets it, and
// passes it on. Until the core streams the body (Network.streamResourceContent), the
// bytes are kept here, to answer Network.getResponseBody; once it does, each piece goes
// on as it comes (streamed): to IndexedDB when the core routed the body (a large one),
// else to the core in a Network.dataReceived event. So a large body is never held here.
// hop.done settles once every byte has been passed on (onstop), or the filter failed;
// hop.stopped is then the time (Date.now()) it settled.
const filterBody = (requestId, tabId) => {
  const hop = { chunks: [], size: 0, error: null, streaming: false, shown: 0 };
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
// after hundreds of them); the core hears at most once a second that the body is still
// arriving. Other pieces go to the core as bytes, beside the event. A body that comes
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
  const params = { requestId, dataLength: bytes.length, encodedDataLength: bytes.length };
  if (!route) {
    emit(tabId, "Network.dataReceived", params, bytes);
    return;
  }
  try {
    routeBytes(route, bytes);
  } catch (e) {
    route.error = route.error || e;
  }
  released(bytes);
  const now = performance.now();
  if (now - hop.shown < 1000) return;
  hop.shown = now;
  emit(tabId, "Network.dataReceived", { ...params, data: "" });
};

const urls = { urls: ["http://*/*", "https://*/*"] };

// A request that wakes this page waits until the recorded tabs are read back.
browser.webRequest.onBeforeRequest.addListener((d) => {
  if (restoring) return restoring.then(() => beforeRequest(d));
  beforeRequest(d);
}, urls, ["blocking", "requestBody"]);

function beforeRequest(d) {
  if (!recorded.has(d.tabId)) return {};
  const r = requests.get(d.requestId) || { tabId: d.tabId, redirect: null };
  const streaming = Boolean(r.hop && r.hop.streaming);
  const type = resourceTypes[d.type] || "Other";
  if (type === "Document") frameChanged(d);
  Object.assign(r, {
    began: d.timeStamp, url: d.url, method: d.method, type, frameId: d.frameId, parentFrameId: d.parentFrameId,
    documentURL: d.documentUrl || d.url, wallTime: d.timeStamp / 1000, headers: null, sent: false,
    post: requestBody(d.requestBody), hop: filterBody(d.requestId, d.tabId),
  });
  // A redirect's next hop keeps streaming the body the core streams for the request.
  if (streaming) r.hop.streaming = true;
  requests.set(d.requestId, r);
  return {};
}

// sent emits Network.requestWillBeSent for a request's hop, once.
const sent = (requestId, r) => {
  if (r.sent) return;
  r.sent = true;
  const navigation = r.type === "Document";
  const params = {
    requestId,
    request: {
      url: r.url, method: r.method, headers: r.headers || {},
      hasPostData: Boolean(r.post), postDataEntries: r.post ? r.post.entries : undefined,
      webkeepFormFields: r.post ? r.post.fields : undefined,
    },
    wallTime: r.wallTime, type: r.type, documentURL: r.documentURL, frameId: String(r.frameId),
    // A document's request is its own loader; another request belongs to the
    // document its frame shows.
    loaderId: navigation ? requestId : documents.get(r.tabId + " " + r.frameId) || "",
  };
  if (r.redirect) {
    params.redirectResponse = r.redirect;
    r.redirect = null;
  }
  emit(r.tabId, "Network.requestWillBeSent", params);
};

browser.webRequest.onSendHeaders.addListener((d) => {
  const r = requests.get(d.requestId);
  if (!r) return;
  r.headers = headerMap(d.requestHeaders);
  sent(d.requestId, r);
}, urls, ["requestHeaders"]);

browser.webRequest.onBeforeRedirect.addListener((d) => {
  const r = requests.get(d.requestId);
  if (!r) return;
  sent(d.requestId, r);
  // The next hop's requestWillBeSent carries this response, as in DevTools.
  r.redirect = response(d);
}, urls, ["responseHeaders"]);

browser.webRequest.onResponseStarted.addListener((d) => {
  const r = requests.get(d.requestId);
  if (!r) return;
  sent(d.requestId, r);
  emit(r.tabId, "Network.responseReceived", { requestId: d.requestId, response: response(d), hasExtraInfo: false });
  if (r.type === "Document") {
    frameChanged(d);
    documents.set(r.tabId + " " + r.frameId, d.requestId);
    emit(r.tabId, "Page.frameNavigated", {
      frame: { id: String(r.frameId), loaderId: d.requestId, parentId: r.frameId === 0 ? undefined : String(r.parentFrameId), url: r.url },
    });
  }
}, urls, ["responseHeaders"]);

const ended = (requestId, r) => setTimeout(() => requests.get(requestId) === r && requests.delete(requestId), forgetAfterMs);

// leaving says whether the document of request id's frame, or of its tab, changed
// between the request's start and its filter's stop: a navigation began, or its
// response started (which is how a request the page being left made after the
// navigation began is known). Its page may then have been left as the filter passed
// its body on, and Firefox stops a filter so after part of the body, or none, as if the
// body had ended (its state "finishedtransferringdata", no error): the core cannot
// know the body whole. Firefox stops the page's loads as a navigation begins, after
// the page's beforeunload, which the content script tells, and before the navigation's
// own request (seen 15-22 ms before its timeStamp on DokuWiki), so a change up to
// leaveMarginMs after the stop counts too; and the stop's event can come before the
// others, by other roads: leaving is asked leaveCheckMs after the stop. A body that
// ended whole just before a navigation is marked all the same.
const leaving = (id, r) => [r.frameId, 0].some((frame) => (frameChanges.get(r.tabId + " " + frame) || [])
  .some((c) => c.requestId !== id && c.at > r.began && c.at <= r.hop.stopped + leaveMarginMs));
const leaveMarginMs = 200;
const leaveCheckMs = 500;
// The ends of bodies waiting leaveCheckMs to be told: an API request that changes
// something (a stop) tells them at once (finishNow), so that no body that ended is
// cut by it.
const finishing = new Set();
const finishNow = () => { for (const finish of [...finishing]) finish(); };

browser.webRequest.onCompleted.addListener((d) => {
  const r = requests.get(d.requestId);
  if (!r) return;
  sent(d.requestId, r);
  // A body's last pieces may come after this event: the core hears that the body ended once the filter has passed all of it on
  // (or failed), however long the body takes to come, so that a body the core starts
  // streaming meanwhile is not ended before its last pieces; a recording stopped
  // meanwhile marks it.
  const finish = () => {
    if (!finishing.delete(finish)) return;
    emit(r.tabId, "Network.loadingFinished", { requestId: d.requestId, webkeepEndsEarlyWhenLeft: leaving(d.requestId, r) });
    ended(d.requestId, r);
  };
  r.hop.done.then(() => {
    finishing.add(finish);
    setTimeout(finish, leaveCheckMs);
  });
}, urls);

browser.webRequest.onErrorOccurred.addListener((d) => {
  const r = requests.get(d.requestId);
  if (!r) return;
  sent(d.requestId, r);
  emit(r.tabId, "Network.loadingFailed", { requestId: d.requestId, errorText: d.error, canceled: d.error === "NS_BINDING_ABORTED" });
  ended(d.requestId, r);
}, urls);

// The recorder's commands that Firefox needs nothing for: webRequest reports every
// request of a recorded tab, its workers' included, and keeps no bodies to configure.
// The content script (content.js) runs in every page from its start, where Chromium's
// recorder has its script run (Runtime.addBinding, Page.addScriptToEvaluateOnNewDocument).
const noOps = new Set([
  "Network.enable", "Network.setCacheDisabled", "Network.configureDurableMessages", "Page.enable",
  "Target.setAutoAttach", "Runtime.runIfWaitingForDebugger", "IO.close",
  "Runtime.enable", "Runtime.addBinding", "Page.addScriptToEvaluateOnNewDocument",
]);
const bodyWaitMs = 30000;

const commands = {
  "Network.getResponseBody": async (tabId, { requestId }) => {
    const r = requests.get(requestId);
    if (!r || r.tabId !== tabId) throw new Error("No resource with given identifier found");
    const hop = r.hop;
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
  "Network.getRequestPostData": async () => {
    throw new Error("Firefox gave this body only as form fields, not as bytes");
  },
  // The tab's address, for the core to reload it (Page.reload) and record it whole.
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
  // every page (autopilot.js) and answers the message in the tab's top frame.
  "Runtime.evaluate": async (tabId, { expression }) => {
    const at = typeof expression === "string" ? expression.lastIndexOf(autopilotCall) : -1;
    if (at < 0 || !expression.endsWith(")")) throw new Error("Runtime.evaluate is not available in Firefox");
    const message = JSON.parse(expression.slice(at + autopilotCall.length, -1));
    const value = await browser.tabs.sendMessage(tabId, { webkeepAutopilot: message }, { frameId: 0 });
    if (value === undefined) throw new Error("the page's content script did not answer");
    return { result: { type: "object", value } };
  },
};
const autopilotCall = 'globalThis[Symbol.for("webkeep.autopilot")](';

// Firefox suspends an idle background page after about 30 s, and the recorder's state
// with it; a call into the browser's API counts as activity. While a tab is recorded,
// each recorded tab is looked up this often (a gone tab is reported as closed). While
// a page's API request is being answered, the page is kept running too: stopping a
// recording waits for the exchanges under way to be written, which for a large body
// may take longer than the idle time (a 500 MB body's records took 40 s and more once
// its page had it whole), and a page suspended meanwhile loses them.
const keepAliveMs = 20000;
let keepAlive = null;
let answering = 0; // API requests being answered
const keepRecording = () => {
  if (recorded.size === 0 && answering === 0) {
    clearInterval(keepAlive);
    keepAlive = null;
    return;
  }
  keepAlive ??= setInterval(() => {
    if (recorded.size === 0) browser.runtime.getPlatformInfo().catch(() => {});
    for (const tabId of recorded.keys()) {
      browser.tabs.get(tabId).catch(() => {
        if (recorded.has(tabId)) pacer.add((c) => c.detached(tabId, "target_closed"));
      });
    }
  }, keepAliveMs);
};

self.webkeepHost = {
  send: async (tabId, sessionId, method, params) => {
    if (noOps.has(method)) return "{}";
    const command = commands[method];
    if (!command) throw new Error(`${method} is not available in Firefox`);
    return JSON.stringify(await command(tabId, JSON.parse(params)));
  },
  attach: async (tabId) => {
    await browser.tabs.get(tabId); // throws for a tab that is not there
    recorded.set(tabId, recorded.get(tabId) || crypto.randomUUID());
    await saveRecorded();
    keepRecording();
    // The content script of each of the tab's pages copies and tells from now on;
    // the page already shown may hold a password typed before recording began.
    browser.tabs.sendMessage(tabId, { webkeepRecording: true }).catch(() => {});
  },
  detach: async (tabId) => {
    recorded.delete(tabId);
    saveRecorded();
    keepRecording();
    for (const [id, r] of requests) if (r.tabId === tabId) requests.delete(id);
    for (const map of [documents, frameChanges]) for (const key of map.keys()) if (key.startsWith(tabId + " ")) map.delete(key);
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
    read: async () => {
      throw new Error("DevTools streams are not available in Firefox");
    },
    end: bodyRoutes.end,
  },
  store: idbStore,
};

browser.tabs.onRemoved.addListener((tabId) => {
  if (recorded.has(tabId)) pacer.add((c) => c.detached(tabId, "target_closed"));
});
// A tab a recorded tab opens is recorded from its first request: the core hears of it
// at once, ahead of the events waiting, and attaches it before that request comes.
browser.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId) pacer.urgent((c) => c.tabCreated(tab.id, tab.openerTabId));
});
// The keyboard shortcut: start or stop recording the tab.
self.webkeepToggle = async (tab) => {
  const c = await ready;
  pacer.flush();
  const res = await c.handle(new Request(new URL("/api/record/toggle?tab=" + tab.id, location.origin), { method: "POST" }));
  if (!res.ok) console.warn("webkeep: toggle:", await res.text());
  return res.json();
};
browser.commands.onCommand.addListener((command, tab) => {
  if (command === "toggle-recording" && tab) self.webkeepToggle(tab);
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
  if (typeof message.webkeepLeaving === "number") {
    frameChanged({ tabId, frameId: sender.frameId, requestId: "", timeStamp: message.webkeepLeaving });
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
  if (payload) emit(tabId, "Runtime.bindingCalled", { name: "__webkeepUpload", payload: JSON.stringify(payload), executionContextId: 0 }, bytes);
  return undefined;
});

// The pages' API requests (api.js), answered by the core as the service worker's fetch
// event has them answered in Chromium: the answer goes back as status, headers and bytes.
browser.runtime.onMessage.addListener((message, sender) => {
  const m = message && message.webkeepApi;
  if (!m || sender.id !== browser.runtime.id || !String(sender.url).startsWith(location.origin)) return undefined;
  return ready.then(async (c) => {
    const url = new URL(m.url, location.origin);
    if (url.origin !== location.origin || !url.pathname.startsWith("/api/")) throw new Error(`not an API request: ${m.url}`);
    // Firefox's Request has no body stream (Request.body), which the core reads a body
    // from: it is handed a request with a Response's.
    const body = m.body && m.body.length ? new Response(m.body).body : null;
    // A request that changes something (stopping a recording) sees every event; one
    // that only looks may be a moment behind.
    if (m.method !== "GET") {
      finishNow();
      pacer.flush();
    }
    answering++;
    keepRecording();
    try {
      const res = await c.handle({ url: url.href, method: m.method, headers: new Headers(m.headers), body });
      return { status: res.status, statusText: res.statusText, headers: [...res.headers], body: new Uint8Array(await res.arrayBuffer()) };
    } finally {
      answering--;
      keepRecording();
    }
  });
});

const go = new Go();
WebAssembly.instantiateStreaming(fetch("core.wasm"), go.importObject)
  .then((result) => go.run(result.instance))
  .catch((e) => console.error("webkeep: the core did not start:", e));
