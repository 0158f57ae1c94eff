// The replay's stream script (extension/replay-stream.js, streamScript), run in node as
// it runs in a page's worker (fetch() alone): a fetch() whose answer names a stream
// resolves to the capture's head with a body the script asks the bar for, a few chunks
// ahead of its reading; chunks the bar sends numbered reach the page in their order
// whatever order they come in; an error fails the body as a network error does.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const { streamScript, streamBinding, streamAhead } = new Function(
  `${readFileSync(new URL("../../../extension/replay-stream.js", import.meta.url), "utf8")}\nreturn { streamScript, streamBinding, streamAhead };`,
)();

// Node 20 has no Uint8Array.fromBase64, which the browsers the script runs in have.
Uint8Array.fromBase64 ??= (s) => new Uint8Array(Buffer.from(s, "base64"));
const b64 = (s) => Buffer.from(s).toString("base64");

// The bar's side: each ask the script makes through the binding, and the page's fetch()
// answering every request with the "not replayed" page that names a stream.
const asked = [];
globalThis[streamBinding] = (payload) => asked.push(JSON.parse(payload));
globalThis.fetch = async (url) => {
  const name = new URL(url).pathname.slice(1);
  const head = b64(JSON.stringify({ status: 200, reason: "OK", size: -1, headers: [{ name: "Content-Type", value: "text/plain" }] }));
  return new Response("Not replayed", { status: 404, headers: { "X-Webkeep-Stream": `${name} ${head}` } });
};
(0, eval)(streamScript);
const give = (name, n, chunk, error = "") => globalThis[Symbol.for("webkeep.replayStream")](name, n, chunk, error);
const asks = (name) => asked.filter((a) => a.name === name && a.want === "next").length;
const tick = () => new Promise((r) => setTimeout(r, 10));

test("the binding is taken out of the page's reach", () => {
  assert.equal(globalThis[streamBinding], undefined);
});

test("a stream's chunks are asked for ahead, and reach the page in order whatever order they come in", async () => {
  const res = await fetch("http://site.example/one");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("Content-Type"), "text/plain");
  assert.equal(res.headers.has("X-Webkeep-Stream"), false);
  const body = res.text();
  await tick();
  assert.ok(streamAhead >= 2, "more than one chunk on its way at a time");
  assert.equal(asks("one"), streamAhead, "the chunks asked for before any came");
  give("one", 2, b64("three,"));
  give("one", 0, b64("one,"));
  await tick();
  give("one", 1, b64("two,"));
  await tick();
  assert.equal(asks("one"), streamAhead + 3, "each chunk taken is asked for again");
  give("one", 3, "");
  assert.equal(await body, "one,two,three,");
});

test("an error after some chunks fails the body as a network error, never ends it short", async () => {
  const body = (await fetch("http://site.example/two")).arrayBuffer();
  await tick();
  give("two", 1, "", "the archive gave 3 of its 9 bytes");
  give("two", 0, b64("abc"));
  await assert.rejects(body, (e) => e instanceof TypeError && /network error: the archive gave 3 of its 9 bytes/.test(e.message));
});

test("a body let go asks the bar to cancel it", async () => {
  const reader = (await fetch("http://site.example/three")).body.getReader();
  await tick();
  give("three", 0, b64("x"));
  assert.deepEqual([...(await reader.read()).value], [120]);
  await reader.cancel();
  assert.ok(asked.some((a) => a.name === "three" && a.want === "cancel"));
});
