// webkeep's store for the background shims (extension/sw.js in Chromium,
// extension-firefox/background.js in Firefox): IndexedDB, and the streamed bodies the
// core routes into it. Loaded before the shim, which passes idbStore and bodyRoutes to
// the core as its host's store and body functions.
"use strict";
// IndexedDB: one object store of byte values under string keys.
const db = new Promise((resolve, reject) => {
  const open = indexedDB.open("webkeep", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("kv");
  open.onsuccess = () => resolve(open.result);
  open.onerror = () => reject(open.error);
});
const tx = (mode, fn, options) => db.then((d) => new Promise((resolve, reject) => {
  const t = d.transaction("kv", mode, options);
  const req = fn(t.objectStore("kv"));
  t.oncomplete = () => resolve(req && req.result);
  t.onerror = () => reject(t.error);
  t.onabort = () => reject(t.error || new Error("IndexedDB transaction aborted"));
}));
const utf8 = new TextEncoder();
// packed puts values (byte arrays, Blobs, or null) in one array for the core to copy
// at once, with their lengths (-1 for null) as little-endian int32s: a copy per value
// costs the core more than reading it.
const packed = async (values) => {
  values = await Promise.all(values.map((v) => (v instanceof Blob ? v.arrayBuffer().then((b) => new Uint8Array(b)) : v)));
  const lengths = new Int32Array(values.length);
  let n = 0;
  values.forEach((v, i) => { lengths[i] = v ? v.length : -1; n += v ? v.length : 0; });
  const bytes = new Uint8Array(n);
  let at = 0;
  for (const v of values) if (v) { bytes.set(v, at); at += v.length; }
  return { bytes, lengths: new Uint8Array(lengths.buffer) };
};
const range = (prefix) => IDBKeyRange.bound(prefix, prefix + "\uffff");
const blobMin = 64 << 10;

// How a large value (blobMin bytes or more: a streamed body's chunk, a piece of a WARC)
// goes into IndexedDB. In Chromium's worker (blobs true, the default) it is a Blob,
// which IndexedDB stores as it is, where a typed array would be serialized, and
// compressed, on the worker's thread. Firefox's background page sets blobs to false
// (background.js): there a Blob's bytes stay in the page's process while IndexedDB
// reads them, and after, until a garbage collection frees the Blob, which comes seldom
// while a large body arrives (a 500 MB body's Blobs took most of the 840 MB the
// process grew by, BENCHMARKS.md); a typed array is copied into the put request as it
// is made and leaves the process with it, so the value's own copy is released at once
// (released). The same for a value read back: copied into the core's array, released.
const storeOptions = { blobs: true };
// released frees a typed array's memory now, not at the next garbage collection: its
// buffer is detached (transfer(0)). The array must not be used again. Firefox's only:
// in Chromium a detached buffer's memory waits for a collection all the same, which
// then comes later (scripts/probe/streamrelease.mjs).
const released = (a) => {
  if (!storeOptions.blobs && a.buffer.transfer) a.buffer.transfer(0);
};
// stored is the copy of bytes (a view the caller reuses) that goes into IndexedDB.
const stored = (bytes) => (storeOptions.blobs ? new Blob([bytes]) : bytes.slice());
// putValues puts each value under its key, in store s, and releases the copies that
// are typed arrays (IndexedDB copied them).
const putValues = (s, keys, values) => {
  keys.forEach((k, i) => {
    s.put(values[i], k);
    if (!(values[i] instanceof Blob)) released(values[i]);
  });
};

// Streamed bodies: the core names a request whose body it streams (body.route), and the
// data of its Network.dataReceived events goes from here into IndexedDB, decoded into
// one reused buffer and stored per chunk (stored) under the key prefix the core chose.
// The bytes never cross into Go, whose memory never shrinks, nor wait for it: a body
// can arrive faster than the core would take it in. body.end says how much came.
const routes = new Map(); // tabId + " " + requestId -> route
const routeChunk = 1 << 20;
// routeWrites is how many chunks of a body read from a stream (body.read) may wait to
// be put before the next read.
const routeWrites = 4;
const routeKey = (tabId, requestId) => tabId + " " + requestId;
const routeFlush = (r) => {
  if (r.len === 0) return;
  // The value is a copy: the buffer is reused.
  const value = stored(r.buf.subarray(0, r.len));
  const key = r.prefix + String(r.seq++).padStart(10, "0");
  r.len = 0;
  // A spool does not outlive the worker (the core clears spools when it starts): its
  // chunks need not be flushed to disk one by one.
  const put = tx("readwrite", (s) => putValues(s, [key], [value]), { durability: "relaxed" })
    .catch((e) => { r.error = r.error || e; })
    .finally(() => r.writes.delete(put));
  r.writes.add(put);
};
const newRoute = (prefix, limit) => ({
  // A negative limit keeps nothing: the body will not be kept (it missed its start).
  prefix, limit, size: 0, cut: limit < 0, seq: 0, buf: new Uint8Array(routeChunk), len: 0, writes: new Set(), error: null,
});
// routeBytes is routeData for bytes that came as text (an IO stream's, not base64).
const routeBytes = (r, bytes) => {
  for (let at = 0; at < bytes.length && !r.cut;) {
    if (r.len === r.buf.length) routeFlush(r);
    let n = Math.min(bytes.length - at, r.buf.length - r.len);
    if (r.limit > 0 && r.size + n > r.limit) {
      n = r.limit - r.size;
      r.cut = true;
    }
    r.buf.set(bytes.subarray(at, at + n), r.len);
    r.size += n;
    r.len += n;
    at += n;
  }
};
const routeData = (r, base64) => {
  while (base64.length > 0 && !r.cut) {
    // Room for less than a base64 quantum (3 bytes) would decode nothing.
    if (r.buf.length - r.len < 3) routeFlush(r);
    const { read, written } = r.buf.subarray(r.len).setFromBase64(base64);
    let n = written;
    if (r.limit > 0 && r.size + n > r.limit) {
      n = r.limit - r.size;
      r.cut = true;
    }
    r.size += n;
    r.len += n;
    base64 = base64.slice(read);
  }
};

const idbStore = {
  put: (key, bytes) => idbStore.putAll([key], [bytes]),
  // Values put together, in one transaction. They are views of the core's scratch
  // array, reused once putAll returns: each is copied at once, a large one as
  // storeOptions says (stored).
  putAll: (keys, values) => {
    const copies = values.map((v) => (v.length >= blobMin ? stored(v) : v.slice()));
    return tx("readwrite", (s) => putValues(s, keys, copies));
  },
  // Large values, such as a streamed body's chunks, are read into the core's array
  // into when they fit, so that reading a body back makes no garbage: a Blob through a
  // reader (that array's buffer is transferred: the result is over it), a typed array
  // copied, and released.
  get: (key, into) => tx("readonly", (s) => s.get(key)).then(async (v) => {
    if (v instanceof Uint8Array && into && v.length >= blobMin && v.length <= into.length) {
      const n = v.length;
      into.set(v);
      released(v);
      return into.subarray(0, n);
    }
    if (!(v instanceof Blob)) return v ?? null;
    if (!into || v.size > into.length) return new Uint8Array(await v.arrayBuffer());
    const reader = v.stream().getReader({ mode: "byob" });
    let buffer = into.buffer, n = 0;
    while (n < v.size) {
      const { value, done } = await reader.read(new Uint8Array(buffer, n, v.size - n));
      if (done) break;
      buffer = value.buffer;
      n += value.length;
    }
    return new Uint8Array(buffer, 0, n);
  }),
  keys: (prefix) => tx("readonly", (s) => s.getAllKeys(range(prefix))),
  // The values under keys, read in one transaction, packed (packed): a key not there
  // has length -1.
  getMany: (keys) => tx("readonly", (s) => {
    const reqs = keys.map((k) => s.get(k));
    return { get result() { return reqs.map((r) => r.result ?? null); } };
  }).then(packed),
  // The keys with the prefix and their values, read in one transaction, packed
  // (packed): the keys (UTF-8) first, then the values.
  scan: (prefix) => tx("readonly", (s) => {
    const keys = s.getAllKeys(range(prefix)), values = s.getAll(range(prefix));
    return { get result() { return [...keys.result.map((k) => utf8.encode(k)), ...values.result]; } };
  }).then(packed),
  delete: (prefix) => tx("readwrite", (s) => s.delete(range(prefix))),
};

// The core's body.route and body.end (body.read, of a DevTools stream, is Chromium's).
const bodyRoutes = {
  route: (tabId, requestId, prefix, limit) => {
    routes.set(routeKey(tabId, requestId), newRoute(prefix, limit));
  },
  end: async (prefix) => {
    let r = null;
    for (const [k, v] of routes) if (v.prefix === prefix) { r = v; routes.delete(k); }
    if (!r) return { size: 0, cut: false };
    routeFlush(r);
    while (r.writes.size) await Promise.all([...r.writes]);
    if (r.error) throw r.error;
    return { size: r.size, cut: r.cut };
  },
};
