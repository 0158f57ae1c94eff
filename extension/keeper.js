// The compiled core's keeper. Chromium stops the extension's service worker after 30 s
// idle, and each start compiled the core (14 MB) anew, then each function again at its
// first call, and again, optimized, once it had run a while: most of a start, and the
// optimizing went on while the first page a replay loaded after it. V8 shares a
// compiled module between everything in one process that compiles the same bytes while
// one of them still holds it, with the code compiled for its functions so far. So the
// service worker opens this offscreen document (sw.js keepCompiled) once it has kept the
// core in Cache Storage, naming it (keeper.html?core=URL), and the document starts a
// dedicated worker (this file again: the offscreen reason is WORKERS) that compiles the
// kept core and holds the module: a service worker started later finds the functions
// the earlier ones ran compiled, optimized too. The keeper runs nothing of the core and
// holds nothing else. Each start of the service worker tells it ({ keepCore: true }),
// and it answers what its worker holds (the core's URL, or null while it compiles: the
// tests ask too); it closes if its worker could not compile the core, and 30 minutes
// after the last start, and the extension's process, which it kept (about 65 MB,
// docs/limits.md), can go. The service worker closes it when the user unticks "Keep the
// compiled core between starts" in the options (the setting releaseCompiledCore).
"use strict";
const keepFor = 30 * 60 * 1000;
if (typeof document !== "undefined") {
  let kept = null;
  new Worker("keeper.js" + location.search).onmessage = (e) => {
    kept = e.data;
    // Holding nothing, it would keep the process for nothing: the next start opens another.
    if (kept.startsWith("none")) window.close();
  };
  let closing = setTimeout(() => window.close(), keepFor);
  chrome.runtime.onMessage.addListener((message, sender, reply) => {
    if (!message?.keepCore) return;
    clearTimeout(closing);
    closing = setTimeout(() => window.close(), keepFor);
    reply({ kept });
  });
} else {
  const core = new URLSearchParams(location.search).get("core");
  // The compiled core is held by the worker's global object, for as long as the document
  // is open. A variable of this block would not hold it: once the promise below has
  // settled nothing refers to the block, and the worker's first garbage collection took
  // the module (within about 30 s idle), so a start after the usual 30 s compiled the
  // core anew (scripts/test/e2e/keeper.test.mjs).
  self.keptCore = null;
  caches.match(core)
    .then((kept) => {
      if (!kept) throw new Error(`${core} is not in Cache Storage`);
      return kept.blob();
    })
    .then((blob) => blob.arrayBuffer())
    .then((bytes) => WebAssembly.compile(bytes))
    .then((m) => {
      self.keptCore = m;
      postMessage(core);
    }, (e) => postMessage(`none: ${e.message}`));
}
