// The start both shims share (extension/boot.js), run in node: what the browser sends
// before the core runs waits, and reaches it in order once it is ready, after the
// shim has read what it needs of the core; the keyboard shortcut toggles the tab's
// recording through the core's API.
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
const source = ["pacing.js", "boot.js"].map((f) => readFileSync(new URL(`../../../extension/${f}`, import.meta.url), "utf8")).join("\n");

// started loads boot.js as a shim does, with a fake self and commands API, and calls
// startShim with onReady.
const started = (onReady) => {
  const self = {};
  const commands = [];
  const chrome = { commands: { onCommand: { addListener: (f) => commands.push(f) } } };
  const startShim = new Function("self", "chrome", "location", "MessageChannel", `${source}\nreturn startShim;`)(
    self, chrome, { origin: "chrome-extension://webkeep" }, TaskChannel);
  return { self, commands, ...startShim(onReady) };
};

// fakeCore is a core that notes what it is handed.
const fakeCore = (got) => ({
  pacing: { quietMs: 5, lateMs: 20, heldMax: 1 << 20 },
  event: (name) => got.push(name),
  handle: async (req) => {
    got.push(`${req.method} ${new URL(req.url).pathname}${new URL(req.url).search}`);
    return new Response(JSON.stringify({ id: "s1" }), { status: 200 });
  },
});

test("what comes before the core runs waits, and reaches it in order after onReady", async () => {
  const got = [];
  const { self, pacer, ready } = started((c) => got.push(c === self.webkeepCore ? "onReady" : "onReady: another core"));
  pacer.urgent((c) => c.event("first"));
  pacer.add((c) => c.event("second"));
  pacer.urgent((c) => c.event("third"));
  assert.deepEqual(got, [], "handed over before the core was ready");
  self.webkeepCore = fakeCore(got);
  self.webkeepCoreReady();
  assert.equal(await ready, self.webkeepCore);
  assert.deepEqual(got, ["onReady", "first", "third"], "the urgent ones at once, after onReady");
  pacer.flush();
  assert.deepEqual(got, ["onReady", "first", "third", "second"]);
  pacer.urgent((c) => c.event("fourth"));
  assert.deepEqual(got.at(-1), "fourth", "once ready, an urgent event goes at once");
});

test("the shortcut toggles the recording of its tab, every event handed over first", async () => {
  for (const [command, tab, want] of [
    ["toggle-recording", { id: 7 }, ["waiting", "POST /api/record/toggle?tab=7"]],
    ["toggle-recording", undefined, []],
    ["another-command", { id: 7 }, []],
  ]) {
    const got = [];
    const { self, commands, pacer } = started();
    self.webkeepCore = fakeCore(got);
    self.webkeepCoreReady();
    pacer.add((c) => c.event("waiting"));
    assert.equal(commands.length, 1, "one listener of the commands");
    commands[0](command, tab);
    await new Promise((r) => setImmediate(r));
    // A toggle flushes the events waiting, then asks the core; nothing else does
    // either before the pacer's quiet time.
    assert.deepEqual(got, want, `${command} of ${JSON.stringify(tab)}`);
  }
});
