// End to end, in real Chromium: the compiled core held between the service worker's
// starts (extension/keeper.js) outlives a garbage collection of the keeper's worker, as
// after the 30 s idle that comes before a real wake. The browser is driven through a
// bare DevTools pipe (scripts/lib/pipebrowser.mjs), which reaches the keeper's worker:
// once the keeper holds the core, the test collects its worker's garbage, stops the
// service worker and wakes it, tracing V8. A start that finds the module held compiles
// no function lazily (V8 shares the module's code); one that does not compiles about a
// thousand (scripts/bench/coldstart.mjs --compiled).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { extensionDir, waitFor } from "../../lib/browser.mjs";
import { workerStopper } from "../../lib/firstload.mjs";
import { pipeBrowser } from "../../lib/pipebrowser.mjs";
import { traced } from "../../lib/wasmtrace.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "webkeep-keeper-"));
let b, ext, page;

before(async () => {
  b = pipeBrowser(path.join(dir, "profile"), [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`]);
  const sw = await waitFor(async () => (await b.send("Target.getTargets")).targetInfos
    .find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://")), "the extension's service worker", 60000);
  ext = new URL(sw.url).host;
  const { targetId } = await b.send("Target.createTarget", { url: `chrome-extension://${ext}/style.css` });
  ({ sessionId: page } = await b.send("Target.attachToTarget", { targetId, flatten: true }));
  await waitFor(() => evaluate(`location.protocol === "chrome-extension:" && document.readyState === "complete"`), "the extension's page", 30000);
});

after(async () => {
  await b?.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

// evaluate resolves to the value of expression (a promise's, once settled) in the
// extension's page.
async function evaluate(expression) {
  const { result, exceptionDetails } = await b.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, page);
  if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description || exceptionDetails.text}`);
  return result.value;
}

// What V8 did with wasm while wake ran: the modules it instantiated, and the functions
// it compiled lazily (at their first call).
async function wasmWork(wake) {
  const [, events] = await traced(b, wake, ["v8.wasm", "disabled-by-default-v8.wasm.detailed"]);
  const count = (re) => events.filter((e) => re.test(e.name)).length;
  return { instantiated: count(/^wasm\.(Sync|Async)Instantiate$/), lazy: count(/^wasm\.CompileBaseline$/) };
}

test("a start after the keeper's worker collected its garbage compiles none of the core's functions again", async () => {
  const status = () => evaluate(`fetch(location.origin + "/api/status").then((r) => r.status)`);
  // The page made as the extension installs may come before its worker controls pages.
  await waitFor(() => status().then((s) => s === 200, () => false), "the core's answer to an extension page", 30000);
  await waitFor(() => evaluate(`Promise.race([
    chrome.runtime.sendMessage({ keepCore: true }).then((r) => r?.kept, () => null),
    new Promise((r) => setTimeout(() => r(null), 1000)), // asked before any keeper: no answer
  ])`), "the keeper's worker to compile the kept core", 30000);
  // The keeper's worker, reached through its document (auto-attach).
  const doc = (await b.send("Target.getTargets")).targetInfos.find((t) => new URL(t.url || "about:blank").pathname === "/keeper.html");
  assert.ok(doc, "the keeper's document is open");
  const { sessionId: docSession } = await b.send("Target.attachToTarget", { targetId: doc.targetId, flatten: true });
  const worker = new Promise((resolve) => b.on("Target.attachedToTarget", (p, parent) => {
    if (parent === docSession && p.targetInfo.type === "worker") resolve(p.sessionId);
  }));
  await b.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, docSession);
  const keeper = await worker;
  await b.send("HeapProfiler.collectGarbage", {}, keeper);
  await b.send("HeapProfiler.collectGarbage", {}, keeper);
  await b.send("Target.detachFromTarget", { sessionId: docSession });

  const stop = await workerStopper(b);
  await stop();
  const { instantiated, lazy } = await wasmWork(async () => assert.equal(await status(), 200));
  // The wake itself was traced (a worker woken before the trace began would compile
  // nothing in it).
  assert.ok(instantiated >= 1, "the core was instantiated while traced");
  assert.ok(lazy < 50, `the woken worker compiled ${lazy} wasm functions lazily: the keeper no longer held the compiled core`);
});
