// webkeep's pacing of browser events for the shims (sw.js in Chromium, Firefox's
// background.js, which hands nothing over as urgent): the events queued
// for the Go core and handed over one per task of this thread, so that what arrives
// meanwhile is not kept waiting behind a burst of them (handling one costs the core a
// millisecond or so). The policy is the core's (recorder.Pacing, given as core.pacing):
// while the browser is busy sending events (a page is loading) they wait, since the
// core's work would take processor time from the page, and go once none has come for
// quietMs, or lateMs after the oldest came, or when they hold more than heldMax bytes
// of body data. Until the core has started (start), they only wait.
"use strict";

// newPacer returns the queue of events for deliver(fn), which hands fn the core.
const newPacer = (deliver) => {
  let pacing = null; // the core's { quietMs, lateMs, heldMax }, once it has started
  const backlog = []; // { fn, at, size }
  let held = 0; // bytes of body data in the backlog
  let lastEvent = 0;
  let waiting = null; // the timer of a wait for quiet
  let hurried = 0; // requests of the user's under way that see every event (during)
  const turns = new MessageChannel();
  const next = () => {
    const { fn, size } = backlog.shift();
    held -= size;
    deliver(fn);
  };
  const pump = () => {
    waiting = null;
    if (!backlog.length || !pacing) return;
    const now = performance.now();
    const wait = Math.min(pacing.quietMs - (now - lastEvent), pacing.lateMs - (now - backlog[0].at));
    if (wait > 0 && held < pacing.heldMax) {
      waiting = setTimeout(pump, wait);
      return;
    }
    if (backlog.length > 1) turns.port2.postMessage(null);
    next();
  };
  turns.port1.onmessage = pump;
  return {
    // add queues an event's fn; size is the bytes of body data it holds.
    add: (fn, size = 0) => {
      const at = performance.now();
      lastEvent = at;
      if (hurried && pacing && !backlog.length) return deliver(fn);
      backlog.push({ fn, at, size });
      held += size;
      if (backlog.length === 1 && !waiting && pacing) waiting = setTimeout(pump, pacing.quietMs);
    },
    // urgent hands an event's fn over at once (core.urgent: see recorder.UrgentEvents).
    urgent: (fn) => {
      lastEvent = performance.now();
      deliver(fn);
    },
    // queued counts the events waiting.
    queued: () => backlog.length,
    // starting lists the URLs of the requests whose first event is waiting (an fn
    // given a url: sw.js marks a Network.requestWillBeSent so), in the order they came:
    // a core stopped now would never see them begin.
    starting: () => backlog.flatMap((e) => (e.fn.url ? [e.fn.url] : [])),
    // heldMax is the bytes of body data the events may hold before they go; Infinity
    // until the core has started.
    heldMax: () => (pacing ? pacing.heldMax : Infinity),
    // flush hands the core every event still waiting, before it answers a request of
    // the user's (stopping a recording must see all that was recorded).
    flush: () => {
      while (backlog.length) next();
    },
    // during hands the core every event waiting, and each that comes, until the
    // promise answer(), called then, has settled; it returns that promise. Stopping a
    // recording waits for the events the browser is still sending about what the page
    // did before: they must not wait here meanwhile.
    during: (answer) => {
      while (backlog.length) next();
      hurried++;
      const p = Promise.resolve().then(answer);
      p.finally(() => hurried--).catch(() => {});
      return p;
    },
    // start begins handing events over, paced as the core says.
    start: (p) => {
      pacing = p;
      if (backlog.length && !waiting) waiting = setTimeout(pump, pacing.quietMs);
    },
  };
};
