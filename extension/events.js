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
// arriving (the core waits for such bodies when recording stops), and one a second per
// request is enough.
const newArrivals = () => {
  const arriving = new Map(); // tab, session and request id -> when the last one was passed on
  return (source, method, params) => {
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
};

// newQueuedRequests returns queues(source, method, params), which says whether an
// event the core counts urgent may wait in the queue with the others: every event of a
// request that sends no body and whose type is none of streamed (core.streamedTypes),
// as its first hop tells (recorder.QueuedRequest). A page's images, scripts and style
// sheets then cost it no processor time in the core as it loads.
const newQueuedRequests = (streamed) => {
  const queued = new Map(); // tab, session and request id -> whether its events wait
  return (source, method, params) => {
    const id = params && params.requestId;
    if (!id || !method.startsWith("Network.")) return false;
    const key = source.tabId + " " + (source.sessionId || "") + " " + id;
    if (method === "Network.requestWillBeSent" && !queued.has(key)) {
      const r = params.request || {};
      // Requests that never finished are forgotten; what comes of them then goes at once.
      if (queued.size >= 10000) queued.clear();
      queued.set(key, !streamed.has(params.type) && !r.hasPostData && r.postData === undefined && !r.postDataEntries);
    }
    const waits = queued.get(key) === true;
    if (method === "Network.loadingFinished" || method === "Network.loadingFailed") queued.delete(key);
    return waits;
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
