// webkeep: run by the recorder in the main world of every recorded page, before the
// page's own scripts (Page.addScriptToEvaluateOnNewDocument), after copier.js, which
// copies the files the page sends (see there). It hands the copier a DevTools binding,
// which it takes out of the page's reach first, and holds files larger than the copier
// posts for the recorder to read itself (IO.resolveBlob and IO.read, much faster than
// the binding).
//
// It runs in each new document, and once in the document a tab shows when recording
// begins: in a document it ran in before (recording stopped and began again), it only
// takes the new binding.
(() => {
  const binding = "__webkeepUpload";
  const send = globalThis[binding];
  if (typeof send !== "function") return;
  delete globalThis[binding];
  const installed = Symbol.for("webkeep.recorder");
  if (globalThis[installed]) {
    globalThis[installed].send = send;
    return;
  }
  const link = { send };
  Object.defineProperty(globalThis, installed, { value: link });
  // Larger files are held here for the recorder, by copy id, for a minute.
  const held = new Map();
  Object.defineProperty(globalThis, Symbol.for("webkeep.copies"), { value: held });
  const holdMs = 60000;
  newCopier({
    post: (message) => {
      try {
        link.send(JSON.stringify(message));
      } catch {}
    },
    page: globalThis,
    hook: (obj, name, wrap) => {
      obj[name] = wrap(obj[name]);
    },
    hold: (id, blobs) => {
      held.set(id, blobs);
      setTimeout(() => held.delete(id), holdMs);
    },
  });
})();
