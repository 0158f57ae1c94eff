// The replay's stream script (extension/replay-stream.js, streamScript) when the bar
// answers with a stream before its binding is on (the bar waits for it only so long:
// a thread held by a synchronous request turns it on only once answered): the page's
// asks wait for the binding, in their order, and reach the bar once it is on; if it
// never comes, the body fails as a network error does, saying why. Each case runs the
// script in a context of its own, as in a page of its own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const { streamScript, streamBinding, streamTakenMs } = new Function(
  `${readFileSync(new URL("../../../extension/replay-stream.js", import.meta.url), "utf8")}\nreturn { streamScript, streamBinding, streamTakenMs };`,
)();
const b64 = (s) => Buffer.from(s).toString("base64");
const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

// page runs the script in a new context whose fetch() answers every request with the
// "not replayed" page that names a stream (as a dedicated worker: fetch() alone).
function page() {
  const g = vm.createContext({ Response, ReadableStream, TextDecoder, setTimeout, clearTimeout });
  // Node 20 has no Uint8Array.fromBase64, which the browsers the script runs in have.
  vm.runInContext("Uint8Array.fromBase64 ??= (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0))", Object.assign(g, { atob }));
  g.fetch = async (url) => {
    const name = new URL(url).pathname.slice(1);
    const head = b64(JSON.stringify({ status: 200, reason: "OK", size: -1, headers: [{ name: "Content-Type", value: "text/plain" }] }));
    return new Response("Not replayed", { status: 404, headers: { "X-Webkeep-Stream": `${name} ${head}` } });
  };
  vm.runInContext(streamScript, g);
  return g;
}

test("asks made before the binding is on reach the bar, in order, once it is", async () => {
  const g = page();
  const res = await g.fetch("http://site.example/late");
  assert.equal(res.status, 200, "the capture's head, not the \"not replayed\" page");
  const body = res.text();
  await tick();
  // A second stream let go before the binding is on: its cancel comes after its asks.
  await (await g.fetch("http://site.example/dropped")).body.cancel();
  const asked = [];
  g[streamBinding] = (payload) => asked.push(JSON.parse(payload));
  await tick();
  assert.equal(g[streamBinding], undefined, "the binding is taken out of the page's reach");
  const ahead = asked.filter((a) => a.name === "late").length;
  assert.ok(ahead >= 1, "the asks made while it was off came");
  assert.deepEqual(asked.map((a) => `${a.name} ${a.want}`), [
    ...Array(ahead).fill("late next"),
    ...Array(asked.length - ahead - 1).fill("dropped next"),
    "dropped cancel",
  ], "in the order they were made");
  const give = g[Symbol.for("webkeep.replayStream")];
  give("late", 0, b64("all of it"), "");
  give("late", 1, "", "");
  assert.equal(await body, "all of it");
});

test("a binding that never comes fails the body as a network error, saying why", async () => {
  const g = page();
  const body = (await g.fetch("http://site.example/never")).arrayBuffer();
  const t0 = Date.now();
  await assert.rejects(body, (e) => e.name === "TypeError" && /network error: the replay's channel was not on after \d+ s/.test(e.message));
  assert.ok(Date.now() - t0 >= streamTakenMs - 100, `failed after ${Date.now() - t0} ms, not ${streamTakenMs}`);
});
