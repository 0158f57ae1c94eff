// The shim's pacing of browser events (extension/pacing.js), run in node: events wait
// while others keep coming and go once none has come for quietMs, or lateMs after the
// oldest came, or once they hold heldMax bytes; urgent ones go at once.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

// A task per message, as a browser's MessageChannel gives (node's would keep the test's
// process alive).
class TaskChannel {
  constructor() {
    this.port1 = { onmessage: null };
    this.port2 = { postMessage: () => setImmediate(() => this.port1.onmessage?.({ data: null })) };
  }
}
const newPacer = new Function("MessageChannel", `${readFileSync(new URL("../../../extension/pacing.js", import.meta.url), "utf8")}\nreturn newPacer;`)(TaskChannel);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pacing = { quietMs: 200, lateMs: 600, heldMax: 1 << 20 };

// started returns a pacer that has started (with p), and the names of the events it
// delivered.
const started = (p = pacing) => {
  const got = [];
  const pacer = newPacer((fn) => fn(got));
  pacer.start(p);
  const event = (name) => (g) => g.push(name);
  return { pacer, got, event };
};

test("events wait while others come and go once none has come for quietMs", async () => {
  const { pacer, got, event } = started();
  for (const n of ["a", "b", "c"]) pacer.add(event(n));
  await sleep(50);
  assert.deepEqual(got, []);
  await sleep(300);
  assert.deepEqual(got, ["a", "b", "c"]);
});

test("urgent events go at once, ahead of those waiting", async () => {
  const { pacer, got, event } = started();
  pacer.add(event("a"));
  pacer.urgent(event("u"));
  assert.deepEqual(got, ["u"]);
  await sleep(50);
  assert.deepEqual(got, ["u"], "the others still wait for quiet");
  await sleep(300);
  assert.deepEqual(got, ["u", "a"]);
});

test("flush hands over every event waiting at once", async () => {
  const { pacer, got, event } = started();
  assert.equal(pacer.heldMax(), pacing.heldMax);
  for (const n of ["a", "b"]) pacer.add(event(n));
  pacer.flush();
  assert.deepEqual(got, ["a", "b"]);
  await sleep(300);
  assert.deepEqual(got, ["a", "b"], "nothing is handed over twice");
});

test("before the core has started, events only wait", async () => {
  const got = [];
  const pacer = newPacer((fn) => fn(got));
  assert.equal(pacer.heldMax(), Infinity);
  pacer.add((g) => g.push("a"));
  pacer.urgent((g) => g.push("navigating"));
  await sleep(300);
  assert.deepEqual(got, ["navigating"]);
  pacer.start(pacing);
  await sleep(300);
  assert.deepEqual(got, ["navigating", "a"]);
});

test("events that keep coming wait no longer than lateMs after the oldest", async () => {
  const { pacer, got, event } = started();
  const t0 = performance.now();
  let n = 0;
  while (got.length === 0 && performance.now() - t0 < 3000) {
    pacer.add(event(String(n++)));
    await sleep(20); // never quiet for quietMs
  }
  // Without lateMs nothing would go while events keep coming (the loop gives up at 3 s).
  assert.ok(got.length > 0, "nothing was handed over while events kept coming");
  assert.equal(got[0], "0", "the oldest goes first");
});

test("events holding heldMax bytes go at the next turn, though others keep coming", async () => {
  const late = { ...pacing, lateMs: 10000 }; // the byte bound, not lateMs, lets them go
  const { pacer, got, event } = started(late);
  const t0 = performance.now();
  pacer.add(event("large"), pacing.heldMax);
  while (got.length === 0 && performance.now() - t0 < 3000) {
    await sleep(20); // never quiet for quietMs
    pacer.add(event("small"));
  }
  const waited = performance.now() - t0;
  assert.equal(got[0], "large");
  assert.ok(got.length > 0 && waited < 3000, `handed over after ${waited} ms: the bytes held did not let it go`);
});

test("during a user's request events waiting go first, and each that comes goes at once", async () => {
  const { pacer, got, event } = started();
  pacer.add(event("a"));
  let finish;
  const answered = pacer.during(() => {
    got.push("request");
    return new Promise((r) => (finish = r));
  });
  await sleep(0);
  assert.deepEqual(got, ["a", "request"]);
  pacer.add(event("b"));
  assert.deepEqual(got, ["a", "request", "b"], "an event that came during the request waited");
  finish("answer");
  assert.equal(await answered, "answer");
  pacer.add(event("c"));
  await sleep(50);
  assert.deepEqual(got, ["a", "request", "b"], "after the request, events wait for quiet again");
  await sleep(300);
  assert.deepEqual(got, ["a", "request", "b", "c"]);
});

test("during a request that fails, events go at once, and wait again after", async () => {
  const { pacer, got, event } = started();
  await assert.rejects(pacer.during(() => Promise.reject(new Error("no"))), /no/);
  pacer.add(event("a"));
  await sleep(50);
  assert.deepEqual(got, [], "the failed request left the pacer hurrying");
});

test("starting lists the URLs of the waiting events that begin a request, until they go", async () => {
  const { pacer, event } = started();
  const begins = (url) => Object.assign(event(url), { url });
  pacer.add(begins("http://example.org/a"));
  pacer.add(event("dataReceived"));
  pacer.add(begins("http://example.org/b"));
  assert.equal(pacer.queued(), 3);
  assert.deepEqual(pacer.starting(), ["http://example.org/a", "http://example.org/b"]);
  pacer.flush();
  assert.deepEqual(pacer.starting(), []);
});
