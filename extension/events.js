// webkeep's thinning of DevTools events for the Chromium shim (sw.js): what of the
// browser's events crosses into Go, where decoding JSON is dear, and the request
// bodies asked for ahead of the core.
"use strict";

// project keeps of v the fields in tree (core.fields, from recorder.EventFields): a
// name maps to true (the whole value) or to the fields kept inside it.
const project = (v, tree) => {
  if (tree === true || v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const out = {};
  for (const k in tree) if (v[k] !== undefined) out[k] = project(v[k], tree[k]);
  return out;
};

// newArrivals returns showsArrival(source, method, params), which says whether to pass
// an event on: Network.dataReceived without data only shows that a body is still
// arriving (the core waits for such bodies when recording stops), and one each
// arrivalMs() per request is enough (core.pacing.arrivalMs, recorder.Pacing's Arrival;
// 0 until the core has started: every one is passed on).
const newArrivals = (arrivalMs) => {
  const arriving = new Map(); // tab, session and request id -> when the last one was passed on
  return (source, method, params) => {
    const key = source.tabId + " " + (source.sessionId || "") + " " + params.requestId;
    if (method !== "Network.dataReceived") {
      if (method === "Network.loadingFinished" || method === "Network.loadingFailed") arriving.delete(key);
      return true;
    }
    if (params.data) return true;
    const now = performance.now();
    if (now - (arriving.get(key) ?? -Infinity) < arrivalMs()) return false;
    arriving.set(key, now);
    return true;
  };
};

// newRequestRouter returns hand(source, method, params, event, size, urgent), which
// hands an event's fn to pacer (pacing.js): urgent ones at once, but for every event of
// a request that sends no body and whose type is none of streamed
// (core.streamedTypes), as its first hop tells (recorder.QueuedRequest), which all
// wait with the others: a page's images, scripts and style sheets then cost it no
// processor time in the core as it loads. The browser often reports a request's wire
// headers (its ExtraInfo events) before the request: those are held until it comes,
// then go its way, ahead of it; at holdMs (the core's pacing.holdMs, recorder.Pacing's
// Hold, which the core counts on) they go as urgent as they are. Request ids
// are the browser's, one for a request whichever session reports it (a worker's
// request has its ExtraInfo on the page's). An event of afterQueued
// (core.afterQueued) goes only after every event the pacer holds.
const newRequestRouter = (pacer, streamed, afterQueued, holdMs) => {
  const waiting = new Map(); // tab and request id -> whether its events wait
  const held = new Map(); // tab and request id -> { events: [[fn, size]], timer }
  const release = (key, waits) => {
    const h = held.get(key);
    if (!h) return;
    held.delete(key);
    clearTimeout(h.timer);
    for (const [fn, size] of h.events) waits ? pacer.add(fn, size) : pacer.urgent(fn);
  };
  return (source, method, params, event, size, urgent) => {
    if (afterQueued.has(method)) pacer.flush();
    const id = params && params.requestId;
    if (!id || !method.startsWith("Network.")) return urgent ? pacer.urgent(event) : pacer.add(event, size);
    const key = source.tabId + " " + id;
    if (method === "Network.requestWillBeSent" && !waiting.has(key)) {
      const r = params.request || {};
      // Requests that never finished are forgotten; what comes of them then goes at once.
      if (waiting.size >= 10000) waiting.clear();
      const waits = !streamed.has(params.type) && !r.hasPostData && r.postData === undefined && !r.postDataEntries;
      waiting.set(key, waits);
      release(key, waits);
    }
    if (urgent && !waiting.has(key) && method.endsWith("ExtraInfo")) {
      if (!held.has(key)) held.set(key, { events: [], timer: setTimeout(() => release(key, false), holdMs) });
      held.get(key).events.push([event, size]);
      return;
    }
    const waits = waiting.get(key) === true;
    if (method === "Network.loadingFinished" || method === "Network.loadingFailed") waiting.delete(key);
    return waits || !urgent ? pacer.add(event, size) : pacer.urgent(event);
  };
};

// A request body the browser did not put in its requestWillBeSent event (a Blob in a
// FormData, a large body) can be asked for only while the browser still holds the
// request: asked for as soon as the event arrives (earlyBodies.ask), the answer waits
// for the core's own Network.getRequestPostData (earlyBodies.take), which the core,
// behind its queue of events, might send too late (the page gone, the request
// forgotten).
const earlyBodies = (() => {
  const answers = new Map(); // tab, session and request id -> the answer's promise
  const key = (tabId, sessionId, requestId) => tabId + " " + (sessionId || "") + " " + requestId;
  const hidden = (r) => r && r.hasPostData && !(r.postDataEntries && r.postDataEntries.every((e) => typeof e.bytes === "string"));
  return {
    // ask asks for the body of a Network.requestWillBeSent event's request, if the
    // event left it out.
    ask: (source, params) => {
      if (!hidden(params.request)) return;
      const k = key(source.tabId, source.sessionId, params.requestId);
      const answer = chrome.debugger.sendCommand(source, "Network.getRequestPostData", { requestId: params.requestId });
      answer.catch(() => {});
      answers.set(k, answer);
      setTimeout(() => answers.delete(k), 120000); // never asked for: forgotten
    },
    // take returns the answer asked for early, once, or undefined.
    take: (tabId, sessionId, requestId) => {
      const k = key(tabId, sessionId, requestId);
      const answer = answers.get(k);
      answers.delete(k);
      return answer;
    },
  };
})();
