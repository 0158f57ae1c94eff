// webkeep: run by the recorder in the main world of every recorded page, before the
// page's own scripts (Page.addScriptToEvaluateOnNewDocument). The browser never shows
// DevTools the bytes of a File or Blob that a page sends (with fetch(), XHR or a form
// with <input type=file>), so this script copies them as the page hands them over and
// gives them to the recorder through a DevTools binding, which it takes out of the
// page's reach first. The recorder matches a copy to its request by method and URL and
// keeps it only when its length is the one sent (see shared/recorder/upload.go). The
// script also tells the names of the page's password fields as it sends (passwords).
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
  const pushBytes = 1 << 20; // files up to this size are handed over through the binding
  const chunkBytes = 192 << 10; // bytes read and handed over at a time
  // Larger files are held here for the recorder, which reads them itself (IO.resolveBlob
  // and IO.read, much faster than the binding), by copy id, for a minute.
  const held = new Map();
  Object.defineProperty(globalThis, Symbol.for("webkeep.copies"), { value: held });
  const holdMs = 60000;
  let last = 0;
  const post = (message) => {
    try {
      link.send(JSON.stringify(message));
    } catch {}
  };
  const base64 = (blob) =>
    new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result.slice(reader.result.indexOf(",") + 1));
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(blob);
    });
  const absolute = (url) => {
    const u = new URL(url, document.baseURI);
    u.hash = "";
    return u.href;
  };
  // The parts of a body whose bytes the browser hides: a Blob, or a FormData holding one.
  const partsOf = (body) => {
    if (body instanceof Blob) return { kind: "blob", entries: [{ blob: body }] };
    if (!(body instanceof FormData)) return null;
    const entries = [];
    let files = false;
    for (const [name, value] of body) {
      if (typeof value === "string") {
        entries.push({ name, value });
        continue;
      }
      files = true;
      entries.push({ name, blob: value, filename: value.name ?? "blob", type: value.type });
    }
    return files ? { kind: "form", entries } : null;
  };
  // The bytes of the files chosen in a file input, read as they are chosen (each up to
  // pushBytes): a form sent by navigation may take its page away before a read begun as
  // it is sent has ended, while bytes already read go to the recorder at once.
  // A document reads at most chosenMax bytes so (a file input may take hundreds).
  const chosen = new WeakMap(); // File -> Uint8Array
  const chosenMax = 16 << 20;
  let chosenBytes = 0;
  addEventListener("change", (e) => {
    const input = e.target;
    if (!(input instanceof HTMLInputElement) || input.type !== "file" || !input.files) return;
    for (const f of input.files) {
      if (f.size > pushBytes || chosen.has(f) || chosenBytes + f.size > chosenMax) continue;
      chosenBytes += f.size;
      f.arrayBuffer().then((b) => chosen.set(f, new Uint8Array(b)), () => {});
    }
  }, true);
  const base64Of = (bytes) => {
    if (bytes.toBase64) return bytes.toBase64();
    let s = "";
    for (let at = 0; at < bytes.length; at += 8192) s += String.fromCharCode.apply(null, bytes.subarray(at, at + 8192));
    return btoa(s);
  };

  // copy hands the recorder a copy of body, a request's; leaving says the request is a
  // form's sent by navigation, which takes the page away.
  const copy = (method, url, body, leaving) => {
    let parts;
    try {
      parts = partsOf(body);
      url = absolute(url);
    } catch {
      return;
    }
    if (!parts) return;
    const id = ++last;
    const size = parts.entries.reduce((n, e) => n + (e.blob ? e.blob.size : 0), 0);
    const pull = size > pushBytes;
    if (pull) {
      held.set(id, parts.entries.map((e) => e.blob ?? null));
      setTimeout(() => held.delete(id), holdMs);
    }
    post({
      op: "begin", id, method: String(method || "GET").toUpperCase(), url, kind: parts.kind, size, pull,
      entries: parts.entries.map((e) =>
        e.blob ? { name: e.name, file: true, filename: e.filename, type: e.type, size: e.blob.size } : { name: e.name, value: e.value },
      ),
    });
    if (pull) return;
    if (leaving && parts.entries.every((e) => !e.blob || chosen.has(e.blob))) { // read already: sent now
      for (const [i, e] of parts.entries.entries()) {
        if (!e.blob) continue;
        const bytes = chosen.get(e.blob);
        for (let at = 0; at < bytes.length; at += chunkBytes) {
          post({ op: "data", id, entry: i, data: base64Of(bytes.subarray(at, at + chunkBytes)) });
        }
      }
      post({ op: "end", id });
      return;
    }
    (async () => {
      try {
        for (const [i, e] of parts.entries.entries()) {
          if (!e.blob) continue;
          for (let at = 0; at < e.blob.size; at += chunkBytes) {
            post({ op: "data", id, entry: i, data: await base64(e.blob.slice(at, at + chunkBytes)) });
          }
        }
        post({ op: "end", id });
      } catch (err) {
        post({ op: "fail", id, why: `reading its files failed: ${err}` });
      }
    })();
  };

  // The names of the page's fields of type password, told as the page sends a form or
  // a body, before its request starts: the recorder redacts them from the archive when
  // the user asks it to (shared/recorder/passwords.go).
  const passwords = () => {
    try {
      const names = new Set();
      for (const e of document.querySelectorAll("input[type=password]")) if (e.name) names.add(e.name);
      if (names.size > 0) post({ op: "passwords", names: [...names] });
    } catch {}
  };

  const fetch = globalThis.fetch;
  if (typeof fetch === "function") {
    globalThis.fetch = function (input, init) {
      try {
        if (init && init.body != null) {
          passwords();
          const request = input instanceof Request;
          copy(init.method ?? (request ? input.method : "GET"), request ? input.url : String(input), init.body);
        }
      } catch {}
      return fetch.apply(this, arguments);
    };
  }

  const xhr = globalThis.XMLHttpRequest?.prototype;
  if (xhr) {
    const opened = new WeakMap();
    const open = xhr.open;
    const sendBody = xhr.send;
    xhr.open = function (method, url) {
      opened.set(this, [method, url]);
      return open.apply(this, arguments);
    };
    xhr.send = function (body) {
      const o = opened.get(this);
      if (o && body != null) {
        passwords();
        copy(o[0], o[1], body);
      }
      return sendBody.apply(this, arguments);
    };
  }

  // A form sent by navigation: its entry list is the formdata event's, which fires
  // once the submit event was not cancelled (or at once for form.submit()). The
  // listener is on the window, bubbling: it runs after the page's own.
  const form = globalThis.HTMLFormElement?.prototype;
  if (form) {
    const submitting = new WeakMap(); // form → its submitter, or null
    addEventListener("submit", (e) => {
      submitting.set(e.target, e.submitter ?? null);
      passwords();
    }, true);
    const submit = form.submit;
    form.submit = function () {
      submitting.set(this, null);
      passwords();
      return submit.apply(this, arguments);
    };
    addEventListener("formdata", (e) => {
      const f = e.target;
      if (!submitting.has(f)) return;
      const by = submitting.get(f);
      submitting.delete(f);
      const method = by?.hasAttribute("formmethod") ? by.formMethod : f.method;
      const enctype = by?.hasAttribute("formenctype") ? by.formEnctype : f.enctype;
      if (method !== "post" || enctype !== "multipart/form-data") return;
      copy("POST", by?.hasAttribute("formaction") ? by.formAction : f.action, e.formData, true);
    });
  }
})();
