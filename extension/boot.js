// The start both shims share (extension/sw.js in Chromium, the Firefox build's
// background.js): what the browser sends before the Go core runs waits in a queue, and
// everything then reaches the core at the pace pacing.js sets; and the keyboard shortcut
// that starts or stops recording a tab. pacing.js is loaded before it.
"use strict";

// startShim returns the pacer every event goes through (pacing.js) and a promise of the
// core. onReady(core) runs once the core has published its API (webkeepCoreReady),
// before the events that waited are handed to it.
function startShim(onReady = () => {}) {
  const pending = [];
  let core = null;
  const deliver = (fn) => (core ? fn(core) : pending.push(fn));
  const pacer = newPacer(deliver);
  const ready = new Promise((resolve) => {
    self.webkeepCoreReady = () => {
      performance.mark("webkeep: ready");
      core = self.webkeepCore;
      onReady(core);
      for (const fn of pending.splice(0)) fn(core);
      pacer.start(core.pacing);
      resolve(core);
    };
  });
  // The keyboard shortcut: start or stop recording the tab. Named, so tests can call it
  // (shortcuts cannot be pressed in a headless browser).
  self.webkeepToggle = async (tab) => {
    const c = await ready;
    pacer.flush();
    const res = await c.handle(new Request(new URL("/api/record/toggle?tab=" + tab.id, location.origin), { method: "POST" }));
    if (!res.ok) console.warn("webkeep: toggle:", await res.text());
    return res.json();
  };
  (globalThis.browser || chrome).commands.onCommand.addListener((command, tab) => {
    if (command === "toggle-recording" && tab) self.webkeepToggle(tab);
  });
  return { pacer, ready };
}
