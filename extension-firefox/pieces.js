// Request bodies that Firefox's pages send in pieces (api.js), for the core to read as a
// stream (background.js). A piece's message is answered once the core takes it
// ({taken: true}), or when the core answered the request without reading the rest
// ({taken: false}), so that the page sends the next only then: an upload of any size
// holds one piece in memory at a time.
//
// newPieceBodies(waitMs) returns:
// - stream(id, tabId): the body's stream, for the request that sends it (its claim);
// - piece(id, message, tabId): a piece message ({blob} or {end} or {abort}) taken in,
//   resolving to its answer;
// - finish(id): the body's request is answered: pieces sent since are not taken;
// - tabClosed(tabId): the bodies a closed tab was sending fail;
// - size(): how many bodies are held.
// A body with no piece for waitMs (its page went elsewhere) fails, so the core's request
// never waits for good; pieces no request claims within waitMs (one sent after its
// request was answered and forgotten) are answered not taken, and forgotten.
"use strict";
function newPieceBodies(waitMs) {
  const bodies = new Map();
  const forget = (id, b) => {
    clearTimeout(b.unclaimed);
    if (bodies.get(id) === b) bodies.delete(id);
  };
  const body = (id) => {
    let b = bodies.get(id);
    if (b) return b;
    b = { pieces: [], ended: false, aborted: null, done: false, claimed: false, wake: () => {}, last: null, tabId: null };
    const wait = () => new Promise((resolve) => {
      const timer = setTimeout(() => {
        b.aborted = b.aborted || `no piece of the upload came in ${waitMs / 1000} s: the page sending it went away (send it again, and keep its page open until it is done)`;
        resolve();
      }, waitMs);
      b.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    b.stream = new ReadableStream({
      // Called when the core reads, once it has copied the piece before: that piece's
      // memory is freed now (detached), not at the next collection, which comes seldom
      // while a large file is read (a 1 GB import grew the process by 600 MB so).
      async pull(ctrl) {
        if (b.last && b.last.buffer.transfer) b.last.buffer.transfer(0);
        b.last = null;
        while (!b.pieces.length && !b.ended && !b.aborted) await wait();
        if (b.aborted) return ctrl.error(new Error(b.aborted));
        if (!b.pieces.length) return ctrl.close();
        const p = b.pieces.shift();
        // A piece is a slice of the page's file (a Blob), read only now.
        b.last = new Uint8Array(await p.blob.arrayBuffer());
        ctrl.enqueue(b.last);
        p.taken({ taken: true });
      },
    }, { highWaterMark: 0 });
    // Made by a piece that came before its request (or long after it): if no request
    // claims it, its pieces are not taken.
    b.unclaimed = setTimeout(() => {
      if (b.claimed) return;
      b.done = true;
      for (const p of b.pieces.splice(0)) p.taken({ taken: false });
      forget(id, b);
    }, waitMs);
    bodies.set(id, b);
    return b;
  };
  return {
    stream(id, tabId) {
      const b = body(id);
      b.claimed = true;
      clearTimeout(b.unclaimed);
      if (tabId !== undefined && tabId !== null) b.tabId = tabId;
      return b.stream;
    },
    piece(id, m, tabId) {
      const b = body(id);
      if (tabId !== undefined && tabId !== null) b.tabId = tabId;
      if (b.done) return Promise.resolve({ taken: false });
      if (m.end || m.abort) {
        b.ended = b.ended || Boolean(m.end);
        b.aborted = b.aborted || (m.abort ? "the upload was cancelled" : null);
        b.wake();
        return Promise.resolve({ taken: true });
      }
      return new Promise((taken) => {
        b.pieces.push({ blob: m.blob, taken });
        b.wake();
      });
    },
    // A body is kept a while after its request was answered, so that a piece still on
    // its way is answered not taken rather than making a body of its own.
    finish(id) {
      const b = body(id);
      b.claimed = true;
      b.done = true;
      for (const p of b.pieces.splice(0)) p.taken({ taken: false });
      setTimeout(() => forget(id, b), waitMs);
    },
    tabClosed(tabId) {
      for (const b of bodies.values()) {
        if (b.tabId === tabId && !b.ended) {
          b.aborted = b.aborted || "the page sending the upload was closed";
          b.wake();
        }
      }
    },
    size: () => bodies.size,
  };
}
