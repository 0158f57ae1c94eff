// Starts the pages' Go code (ui.wasm); everything else happens there.
"use strict";
const go = new Go();
WebAssembly.instantiateStreaming(fetch("ui.wasm"), go.importObject)
  .then((result) => go.run(result.instance))
  .catch((e) => {
    const box = document.getElementById("error");
    if (box) {
      box.textContent = `webkeep could not start this page (${e}): reload it; if that does not help, reload the extension in chrome://extensions.`;
      box.hidden = false;
    }
  });
