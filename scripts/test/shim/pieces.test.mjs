// Firefox's bodies sent in pieces (extension-firefox/pieces.js), run in node: the core
// reads the pieces in order, each answered taken once read; pieces the core will not
// read are answered not taken, never left waiting; a body whose pieces stop, or whose
// tab is closed, fails with a reason.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const newPieceBodies = new Function(`${readFileSync(new URL("../../../extension-firefox/pieces.js", import.meta.url), "utf8")}\nreturn newPieceBodies;`)();
const waitMs = 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const blob = (s) => ({ blob: new Blob([s]) });
const read = async (stream) => new TextDecoder().decode(await new Response(stream).arrayBuffer());

test("the pieces are read in order, each answered taken once the core reads it", async () => {
  const bodies = newPieceBodies(waitMs);
  const stream = bodies.stream("a", 7);
  const answers = [bodies.piece("a", blob("one,"), 7), bodies.piece("a", blob("two"), 7)];
  let first = null;
  answers[0].then((a) => { first = a; });
  await sleep(10);
  assert.equal(first, null, "a piece is answered only once the core has read it");
  const body = read(stream);
  assert.deepEqual(await Promise.all(answers), [{ taken: true }, { taken: true }]);
  assert.deepEqual(await bodies.piece("a", { end: true }, 7), { taken: true });
  assert.equal(await body, "one,two");
  bodies.finish("a");
});

test("pieces that come before their request wait for it", async () => {
  const bodies = newPieceBodies(waitMs);
  const answer = bodies.piece("b", blob("early"));
  await sleep(waitMs / 2);
  const body = read(bodies.stream("b"));
  assert.deepEqual(await answer, { taken: true });
  await bodies.piece("b", { end: true });
  assert.equal(await body, "early");
});

test("pieces sent once the request is answered are not taken", async () => {
  const bodies = newPieceBodies(waitMs);
  bodies.stream("c");
  const waiting = bodies.piece("c", blob("unread"));
  bodies.finish("c");
  assert.deepEqual(await waiting, { taken: false });
  assert.deepEqual(await bodies.piece("c", blob("after")), { taken: false });
  // Forgotten a while later: a piece that comes later still makes a body no request
  // claims, which answers it not taken and goes.
  await sleep(waitMs * 1.5);
  assert.equal(bodies.size(), 0);
  const late = bodies.piece("c", blob("late"));
  assert.equal(bodies.size(), 1);
  assert.deepEqual(await late, { taken: false });
  assert.equal(bodies.size(), 0);
});

test("a body whose pieces stop, is cancelled or whose tab is closed fails with why", async () => {
  const bodies = newPieceBodies(waitMs);
  const stopped = bodies.stream("d");
  const piece = bodies.piece("d", blob("x"));
  await assert.rejects(read(stopped), /no piece of the upload came in 0.1 s: the page sending it went away/);
  assert.deepEqual(await piece, { taken: true }, "the piece before was read");

  const cancelled = bodies.stream("e");
  bodies.piece("e", { abort: true });
  await assert.rejects(read(cancelled), /the upload was cancelled/);

  const closed = bodies.stream("f", 9);
  const other = bodies.stream("g", 10);
  bodies.tabClosed(9);
  await assert.rejects(read(closed), /the page sending the upload was closed/);
  bodies.piece("g", { end: true });
  assert.equal(await read(other), "", "another tab's body goes on");
  for (const id of ["d", "e", "f", "g"]) bodies.finish(id);
});
