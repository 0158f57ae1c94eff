// The page-load benchmark's reference (scripts/bench/extension.mjs): a tab instrumented
// as webkeep's recorder instruments it (shared/recorder/commands.go, Recorder.Enable), by an
// extension that reads no body and writes nothing. What recording costs beyond this is
// webkeep's own. The settings below must follow the recorder's.
"use strict";
const network = { maxTotalBufferSize: 256 << 20, maxResourceBufferSize: 64 << 20, maxPostDataSize: 64 << 20 };
const durable = { maxTotalBufferSize: 256 << 20, maxResourceBufferSize: 64 << 20 };
const setUp = async (target, page) => {
  if (page) await chrome.debugger.sendCommand(target, "Page.enable");
  await chrome.debugger.sendCommand(target, "Network.enable", network);
  await chrome.debugger.sendCommand(target, "Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  if (page) await chrome.debugger.sendCommand(target, "Network.configureDurableMessages", durable);
};
chrome.debugger.onEvent.addListener((source, method, params) => {
  if (method !== "Target.attachedToTarget") return;
  const child = { ...source, sessionId: params.sessionId };
  const page = params.targetInfo.type === "iframe";
  setUp(child, page).catch(() => {}).finally(() => chrome.debugger.sendCommand(child, "Runtime.runIfWaitingForDebugger").catch(() => {}));
});
// The benchmark asks for a tab, from webkeep's popup: a message wakes this worker,
// which the browser stops when it is idle.
chrome.runtime.onMessageExternal.addListener((message, sender, reply) => {
  if (message && message.leave) {
    // Gone, with its process: the memory benchmark then measures webkeep's alone.
    chrome.management.uninstallSelf();
    return false;
  }
  const tabId = message && message.instrument;
  chrome.debugger.attach({ tabId }, "1.3").then(() => setUp({ tabId }, true))
    .then(() => reply({ ok: true }), (e) => reply({ error: String(e && e.message) }));
  return true;
});
