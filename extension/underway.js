// What a stop of the service worker would lose of a recording, kept where the worker
// started after it finds it. The browser stops an extension's worker when it likes (or
// the worker crashes), and with it go the requests its core had begun and not yet
// written (core.underway()) and the events the pacer still held: the browser's later
// events of such a request go unheeded by a core that did not see it begin. While any
// are under way, what they are is kept in the session's storage (which outlives the
// worker, not the browser); a worker started again hands what it finds there to its
// core (core.stoppedUnderway), which says in the recording's session what was lost.
// core.underway() answers with a promise, for the lock it takes may be held by the core
// while it waits for the store: a synchronous call would block that wait for ever.
"use strict";

const underwayKey = "underway";

// newUnderwayWatch returns poke(), which the shim calls as the browser's events come:
// from then on, until nothing is under way, storage (chrome.storage.session) holds what
// is, checked firstMs after a poke (so that a request begun is kept within firstMs,
// however long the last check was due to wait) and every everyMs while nothing new
// comes. ready is the promise of the core; pacer (pacing.js) holds events for it: how
// many (queued()) and the URLs of the requests they begin (starting()), which the core
// has not seen: those it would record (core.archivedPrefixes) are kept after its own,
// up to the number it archives (core.maxLostNotes), the rest counted (more).
const newUnderwayWatch = (storage, ready, pacer, { firstMs = 200, everyMs = 1000 } = {}) => {
  let timer = null;
  let due = 0; // when the timer's check runs (Date.now())
  let checking = false; // a check is under way
  let poked = false; // a poke came while it was
  let kept = ""; // what storage holds, as JSON; "" for nothing
  // What the worker before this one left is handed to the core before anything new is
  // kept.
  const found = Promise.all([storage.get(underwayKey), ready])
    .then(([items, core]) => {
      if (items[underwayKey]) core.stoppedUnderway(items[underwayKey]);
    })
    .catch((e) => console.warn("webkeep: what a stopped worker had under way:", e))
    .finally(() => storage.remove(underwayKey).catch(() => {}));
  const checkIn = (ms) => {
    clearTimeout(timer);
    due = Date.now() + ms;
    timer = setTimeout(check, ms);
  };
  const check = async () => {
    timer = null;
    checking = true;
    poked = false;
    let now = "";
    try {
      await found;
      const core = await ready;
      const u = await core.underway(); // a promise: the core may wait for a lock
      const events = pacer.queued();
      if (u) {
        const o = JSON.parse(u); // { session, urls, more? }: the core's
        const archived = (url) => core.archivedPrefixes.some((p) => url.startsWith(p));
        const all = o.urls.concat(pacer.starting().filter(archived));
        const urls = all.slice(0, Math.max(core.maxLostNotes, o.urls.length));
        const more = (o.more || 0) + all.length - urls.length;
        if (urls.length || more || events) now = JSON.stringify({ ...o, urls, ...(more ? { more } : {}), events });
      }
      if (now !== kept) {
        await (now ? storage.set({ [underwayKey]: now }) : storage.remove(underwayKey));
        kept = now;
      }
    } catch (e) {
      console.warn("webkeep: keeping what is under way:", e);
    }
    checking = false;
    if (poked) checkIn(firstMs);
    else if (now) checkIn(everyMs);
  };
  // A poke is one comparison: the browser's events come by the hundred a second.
  return () => {
    if (checking) poked = true;
    else if (timer === null || due - Date.now() > firstMs) checkIn(firstMs);
  };
};
