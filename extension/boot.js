// The start both shims share (extension/sw.js in Chromium, the Firefox build's
// background.js): what the browser sends before the Go core runs waits in a queue, and
// everything then reaches the core at the pace pacing.js sets; the Go program's
// environment; and the keyboard shortcut that starts or stops recording a tab.
// wasm_exec.js and pacing.js are loaded before it.
"use strict";

// newGo returns the Go program (wasm_exec.js) that runs the core, with its environment:
// GODEBUG=gcshrinkstackoff=1 keeps each of the core's goroutines' stacks at the size
// they grew to. Go otherwise halves, at each of its collections (about one a recorded
// page load), the stack of the goroutine that handles events, which the next page's
// events grow again by copying it, and copying a stack costs a wasm program dearly:
// recording the demo gallery cost 1.23-1.29x its load time with it kept, against
// 1.26-1.36x (docs/benchmarks-history.md, "What the core's stacks cost"). The program
// is kept as self.webkeepGo, whose memory (mem.buffer) a probe reads for the core's
// share of the worker's (scripts/probe/bigmemory.mjs).
function newGo() {
  const go = new Go();
  go.env = { GODEBUG: "gcshrinkstackoff=1" };
  self.webkeepGo = go;
  return go;
}

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
    const res = await pacer.during(() => c.handle(new Request(new URL("/api/record/toggle?tab=" + tab.id, location.origin), { method: "POST" })));
    if (!res.ok) console.warn("webkeep: toggle:", await res.text());
    return res.json();
  };
  (globalThis.browser || chrome).commands.onCommand.addListener((command, tab) => {
    if (command === "toggle-recording" && tab) self.webkeepToggle(tab);
  });
  return { pacer, ready };
}
