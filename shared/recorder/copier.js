// webkeep's copier of the files a page sends: the browser never shows an extension the
// bytes of a File or Blob that a page sends (with fetch(), XHR or a form with <input
// type=file>), so the copier copies them as the page hands them over, in messages the
// recorder reads (see shared/recorder/upload.go), and tells the names of the page's
// password fields as it sends a form or a body (op "passwords"). Chromium's recorder
// runs it in the page's main world (upload.js, which hands it a DevTools binding);
// Firefox's content script runs it in its own world and reaches the page's functions
// through Firefox's Xray wrappers (extension-firefox/content.js).
//
// newCopier({ post, page, hook, active, hold, chunkBytes }) installs it:
//   post(message)        hands the recorder one message (an object)
//   page                 the page's global object, whose fetch, XMLHttpRequest and
//                        HTMLFormElement it wraps
//   hook(obj, name, wrap) replaces the function obj[name] with wrap(the original)
//   active()             whether the page's tab is recorded: nothing is read or
//                        posted while it is not
//   hold(id, blobs)      keeps large files for the recorder to read itself (Chromium);
//                        without it (Firefox), every file is read here and posted,
//                        and files chosen are read ahead up to chosenMax
//   chunkBytes           bytes read and posted at a time: 192 KB by default (as
//                        Chromium's binding is given them); Firefox's runtime
//                        messages carry 1 MiB faster (BENCHMARKS.md)
// It returns { passwordNames, passwords }: the names of the page's fields of type
// password, and a function that tells them to the recorder now and returns them.
const newCopier = ({ post, page, hook, active = () => true, hold = null, chunkBytes = 192 << 10 }) => {
  // Files up to pushBytes are read as they are chosen; larger ones are held, when a
  // hold is offered.
  const pushBytes = 1 << 20;
  // Copy ids are unique in a tab: a document's begin where another document's ended.
  let last = Math.floor(Math.random() * 2 ** 30);
  const reading = new Set(); // the ids of the copies being read and posted
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
  // readAhead), as the base64 of each chunk to post: a form sent by navigation may take
  // its page away before a read begun as it is sent has ended, while bytes already read
  // are posted at once. (Strings, not arrays: in Firefox the bytes of a page's file
  // are the page's, which this world may not slice.)
  // A document reads at most chosenMax bytes so (a file input may take hundreds).
  const chosen = new WeakMap(); // File -> [base64 of each chunk]
  const chosenMax = 16 << 20;
  const readAhead = hold ? pushBytes : chosenMax;
  let chosenBytes = 0;
  // readChunks reads blob chunkBytes at a time, handing take the base64 of each for as
  // long as take returns true.
  const readChunks = async (blob, take) => {
    for (let at = 0; at < blob.size; at += chunkBytes) {
      if (!take(await base64(blob.slice(at, at + chunkBytes)))) return;
    }
  };
  const chunksOf = async (blob) => {
    const chunks = [];
    await readChunks(blob, (data) => chunks.push(data) > 0);
    return chunks;
  };
  addEventListener("change", (e) => {
    const input = e.target;
    if (!active() || !(input instanceof HTMLInputElement) || input.type !== "file" || !input.files) return;
    for (const f of input.files) {
      if (f.size > readAhead || chosen.has(f) || chosenBytes + f.size > chosenMax) continue;
      chosenBytes += f.size;
      chunksOf(f).then((chunks) => chosen.set(f, chunks), () => {});
    }
  }, true);

  // copy hands the recorder a copy of body, a request's; leaving says the request is a
  // form's sent by navigation, which takes the page away.
  const copy = (method, url, body, leaving) => {
    if (!active()) return;
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
    const pull = hold !== null && size > pushBytes;
    if (pull) hold(id, parts.entries.map((e) => e.blob ?? null));
    post({
      op: "begin", id, method: String(method || "GET").toUpperCase(), url, kind: parts.kind, size, pull,
      entries: parts.entries.map((e) =>
        e.blob ? { name: e.name, file: true, filename: e.filename, type: e.type, size: e.blob.size } : { name: e.name, value: e.value },
      ),
    });
    if (pull) return;
    if (leaving && parts.entries.every((e) => !e.blob || chosen.has(e.blob))) { // read already: posted now
      for (const [i, e] of parts.entries.entries()) {
        if (!e.blob) continue;
        for (const data of chosen.get(e.blob)) post({ op: "data", id, entry: i, data });
      }
      post({ op: "end", id });
      return;
    }
    reading.add(id);
    (async () => {
      try {
        for (const [i, e] of parts.entries.entries()) {
          if (!e.blob) continue;
          await readChunks(e.blob, (data) => {
            if (reading.has(id)) post({ op: "data", id, entry: i, data });
            return reading.has(id); // not once its page is left
          });
        }
        if (reading.has(id)) post({ op: "end", id });
      } catch (err) {
        post({ op: "fail", id, why: `reading its files failed: ${err}` });
      }
      reading.delete(id);
    })();
  };
  // The copies still being read when the page is left for good fail at once, saying
  // so (the recorder's words, WhyPageLeftMidCopy), where the recorder would otherwise
  // wait for bytes that no longer come. A page kept in the back/forward cache goes on
  // reading when it is shown again.
  addEventListener("pagehide", (e) => {
    if (e.persisted) return;
    for (const id of reading) post({ op: "fail", id, why: "the page was left before it had read its files" });
    reading.clear();
  });

  // The names of the page's fields of type password, told as the page sends a form or
  // a body, before its request starts: the recorder redacts them from the archive when
  // the user asks it to (shared/recorder/passwords.go).
  const passwordNames = () => {
    const names = new Set();
    for (const e of document.querySelectorAll("input[type=password]")) if (e.name) names.add(e.name);
    return [...names];
  };
  const passwords = () => {
    if (!active()) return [];
    try {
      const names = passwordNames();
      if (names.length > 0) post({ op: "passwords", names });
      return names;
    } catch {
      return [];
    }
  };

  // The wrappers hand the page's functions their arguments one by one: in Firefox a
  // page's function may not read this world's arguments object.
  if (typeof page.fetch === "function") {
    hook(page, "fetch", (fetch) => function (...args) {
      const [input, init] = args;
      try {
        if (init && init.body != null) {
          passwords();
          const request = input instanceof Request;
          copy(init.method ?? (request ? input.method : "GET"), request ? input.url : String(input), init.body);
        }
      } catch {}
      return fetch.call(this, ...args);
    });
  }

  const xhr = page.XMLHttpRequest?.prototype;
  if (xhr) {
    const opened = new WeakMap();
    hook(xhr, "open", (open) => function (...args) {
      opened.set(this, args.slice(0, 2));
      return open.call(this, ...args);
    });
    hook(xhr, "send", (send) => function (...args) {
      const [body] = args;
      const o = opened.get(this);
      if (o && body != null) {
        passwords();
        copy(o[0], o[1], body);
      }
      return send.call(this, ...args);
    });
  }

  // A form sent by navigation: its entry list is the formdata event's, which fires
  // once the submit event was not cancelled (or at once for form.submit()). The
  // listener is on the window, bubbling: it runs after the page's own.
  const form = page.HTMLFormElement?.prototype;
  if (form) {
    const submitting = new WeakMap(); // form → its submitter, or null
    addEventListener("submit", (e) => {
      submitting.set(e.target, e.submitter ?? null);
      passwords();
    }, true);
    hook(form, "submit", (submit) => function (...args) {
      submitting.set(this, null);
      passwords();
      return submit.call(this, ...args);
    });
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
  return { passwordNames, passwords };
};
