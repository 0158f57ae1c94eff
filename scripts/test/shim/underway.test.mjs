// What a stop of the service worker would lose (extension/underway.js), run in node:
// while the core has requests under way, or the pacer holds events, the session's
// storage says what they are, and nothing once they are done; a worker started after a
// stop hands its core what the one before left, and keeps nothing before that.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const newUnderwayWatch = new Function(`${readFileSync(new URL("../../../extension/underway.js", import.meta.url), "utf8")}\nreturn newUnderwayWatch;`)();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const timing = { firstMs: 10, everyMs: 30 };

// fakeStorage is chrome.storage.session's get, set and remove over a Map, counting
// the writes.
const fakeStorage = (items = {}) => {
  const m = new Map(Object.entries(items));
  const s = {
    m,
    writes: 0,
    get: async (key) => (m.has(key) ? { [key]: m.get(key) } : {}),
    set: async (o) => { s.writes++; for (const [k, v] of Object.entries(o)) m.set(k, v); },
    remove: async (key) => { s.writes++; m.delete(key); },
  };
  return s;
};

// fakePacer holds events (queued) of which those in starting begin requests.
const fakePacer = (queued = 0, starting = []) => ({ queued: () => queued, starting: () => starting });

// fakeCore says under way what now holds ("" while nothing is recorded), and notes
// what it is handed of a stopped core.
const fakeCore = () => {
  const core = { now: "", asked: 0, stopped: [], maxLostNotes: 3, archivedPrefixes: ["http://", "https://"] };
  core.underway = async () => { core.asked++; return core.now; }; // a promise, as the core answers
  core.stoppedUnderway = (json) => core.stopped.push(JSON.parse(json));
  return core;
};

// done ends a test's recording, so that its watch's checks stop (they would keep the
// test's process alive).
const done = async (core) => {
  core.now = "";
  await sleep(40);
};

test("while requests are under way the storage names them, and nothing once they are done", async () => {
  const storage = fakeStorage();
  const core = fakeCore();
  let queued = 0;
  const poke = newUnderwayWatch(storage, Promise.resolve(core), { queued: () => queued, starting: () => [] }, timing);
  core.now = JSON.stringify({ session: "s1", urls: ["http://example.org/a.png"] });
  queued = 3;
  poke();
  poke(); // a second poke while one check is due starts no other
  await sleep(25);
  assert.deepEqual(JSON.parse(storage.m.get("underway")), { session: "s1", urls: ["http://example.org/a.png"], events: 3 });
  assert.equal(storage.writes, 2, "the first worker's removal, then one write");
  // Unchanged: not written again.
  await sleep(40);
  assert.equal(storage.writes, 2);
  core.now = JSON.stringify({ session: "s1", urls: [] });
  queued = 0;
  await sleep(40);
  assert.equal(storage.m.has("underway"), false);
  // Nothing under way: the checks stop until the next poke.
  const asked = core.asked;
  await sleep(80);
  assert.equal(core.asked, asked);
  poke();
  await sleep(25);
  assert.equal(core.asked, asked + 1);
});

test("a request begun while the next check is far off is kept within firstMs of its events", async () => {
  const storage = fakeStorage();
  const core = fakeCore();
  const poke = newUnderwayWatch(storage, Promise.resolve(core), fakePacer(0), { firstMs: 10, everyMs: 400 });
  core.now = JSON.stringify({ session: "s5", urls: ["http://example.org/a"] });
  poke();
  await sleep(30);
  assert.deepEqual(JSON.parse(storage.m.get("underway")).urls, ["http://example.org/a"]);
  // The next check is 400 ms away; a new request's events bring it to 10 ms.
  core.now = JSON.stringify({ session: "s5", urls: ["http://example.org/a", "http://example.org/b"] });
  poke();
  await sleep(40);
  assert.deepEqual(JSON.parse(storage.m.get("underway")).urls, ["http://example.org/a", "http://example.org/b"]);
  // A poke during a check asks for another one after it.
  let release;
  const asked = core.asked;
  core.underway = () => { core.asked++; return new Promise((r) => { release = () => r(core.now); }); };
  poke(); // due in 400 ms: brought to 10
  await sleep(30);
  assert.equal(core.asked, asked + 1, "one check under way");
  core.now = JSON.stringify({ session: "s5", urls: ["http://example.org/c"] });
  poke();
  release();
  await sleep(30);
  assert.equal(core.asked, asked + 2, "checked again after the poke that came during the first");
  release();
  await sleep(5);
  assert.deepEqual(JSON.parse(storage.m.get("underway")).urls, ["http://example.org/c"]);
  core.underway = async () => { core.asked++; return core.now; };
  core.now = "";
  poke();
  await sleep(40);
  assert.equal(storage.m.has("underway"), false);
});

test("events the pacer holds alone are kept, with the recording's session", async () => {
  const storage = fakeStorage();
  const core = fakeCore();
  const poke = newUnderwayWatch(storage, Promise.resolve(core), fakePacer(7), timing);
  core.now = JSON.stringify({ session: "s2", urls: [] });
  poke();
  await sleep(25);
  assert.deepEqual(JSON.parse(storage.m.get("underway")), { session: "s2", urls: [], events: 7 });
  await done(core);
});

test("the count of requests the core left out of its list is kept with it", async () => {
  const storage = fakeStorage();
  const core = fakeCore();
  const poke = newUnderwayWatch(storage, Promise.resolve(core), fakePacer(0), timing);
  core.now = JSON.stringify({ session: "s4", urls: ["http://example.org/0"], more: 12 });
  poke();
  await sleep(25);
  assert.deepEqual(JSON.parse(storage.m.get("underway")), { session: "s4", urls: ["http://example.org/0"], more: 12, events: 0 });
  await done(core);
});

test("requests whose first events the pacer holds are kept after the core's, those it records, up to the number it archives", async () => {
  const storage = fakeStorage();
  const core = fakeCore(); // maxLostNotes: 3
  const poke = newUnderwayWatch(storage, Promise.resolve(core), fakePacer(5, ["http://example.org/b", "data:image/png;base64,iVBO", "https://example.org/c", "blob:http://example.org/1", "http://example.org/d"]), timing);
  core.now = JSON.stringify({ session: "s6", urls: ["http://example.org/a"] });
  poke();
  await sleep(25);
  assert.deepEqual(JSON.parse(storage.m.get("underway")), {
    session: "s6", urls: ["http://example.org/a", "http://example.org/b", "https://example.org/c"], more: 1, events: 5,
  });
  await done(core);
});

test("nothing is kept while nothing is recorded", async () => {
  const storage = fakeStorage();
  const core = fakeCore();
  const poke = newUnderwayWatch(storage, Promise.resolve(core), fakePacer(5), timing);
  poke();
  await sleep(25);
  assert.equal(storage.m.has("underway"), false);
  assert.equal(storage.writes, 1, "only the first worker's removal");
});

test("a worker started after a stop hands its core what the one before left, before keeping its own", async () => {
  const left = JSON.stringify({ session: "s3", urls: ["http://example.org/"], events: 2 });
  const storage = fakeStorage({ underway: left });
  const core = fakeCore();
  let start;
  const ready = new Promise((r) => { start = () => r(core); });
  const poke = newUnderwayWatch(storage, ready, fakePacer(0), timing);
  core.now = JSON.stringify({ session: "s3", urls: ["http://example.org/new.js"] });
  poke();
  await sleep(25);
  // The core has not started: what was left stays, and nothing is handed or kept.
  assert.equal(storage.m.get("underway"), left);
  assert.deepEqual(core.stopped, []);
  start();
  await sleep(25);
  assert.deepEqual(core.stopped, [{ session: "s3", urls: ["http://example.org/"], events: 2 }]);
  assert.deepEqual(JSON.parse(storage.m.get("underway")), { session: "s3", urls: ["http://example.org/new.js"], events: 0 });
  await done(core);
});
