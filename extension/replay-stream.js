// webkeep replay: bodies too large for one DevTools message, given to a page's fetch()
// and XMLHttpRequest as a stream (shared/replay/large.go). The core answers such a
// request with its "not replayed" page and the capture's head (Answer.stream); the bar
// names a stream in the answer's X-Webkeep-Stream header. A script run in every
// document of the replay tab before the page's own (streamScript) wraps fetch() and
// XMLHttpRequest: an answer that names a stream becomes one of the capture's head whose
// body the bar reads from the archive (GET .../file, streamed by the core) a chunk at a
// time, a few chunks ahead of the page's reading, and hands over through DevTools (a
// binding one way, Runtime.callFunctionOn the other). Nothing holds the whole body but
// the page, if it keeps it (an XMLHttpRequest does).
"use strict";

// The binding the page's script asks for chunks through, taken out of the page's reach
// as that script starts.
const streamBinding = "__webkeepReplayStream";
// The bytes handed over at a time: one DevTools message each. Chunks of 256 KiB read
// 100 MiB at 10.1 MB/s where chunks of 1 MiB read at 6.1, on machines where page
// faults are dear, as the browser's copies of a larger message likeliest are
// (docs/replay.md, "Speed and memory").
const streamChunk = 1 << 18;
// The chunks the page's script asks for before it has read those it has: while one is
// read from the archive, others are on their way through the browser and one is taken
// in by the page, each in a process of its own (eight were fastest of four to sixteen).
const streamAhead = 8;
// The bytes a synchronous XMLHttpRequest's body too large for one answer is read by
// Range at a time, as webkeep's loader reads a large script (LoaderChunk in
// shared/replay/loader.go, which says why 512 KiB).
const syncChunk = 512 << 10;
// The Accept of those reads, and of the loader's (LoaderAccept in
// shared/replay/loader.go): the bar takes a stream as the first comes (readByRange).
const loaderAccept = "application/x-webkeep-loader";
// How long the bar waits for the stream's binding to be on before it answers an
// image's request whose body it offers as a stream, so that the image's error finds it
// on (a fetch() or XHR waits for it in the page, as long as streamTakenMs).
const channelWaitMs = 1000;
// How long a stream taken waits for the page to ask for more before the bar lets it go
// (the page was left, or dropped the response unread).
const streamIdleMs = 60000;
// How long a stream offered waits for the page's script to take it before the bar
// lists its body as not replayed (a shared or service worker's fetch(), which the
// script does not take: the Fetch domain does not tell them from a page's; a
// synchronous XMLHttpRequest of a body of no known length).
const streamTakenMs = 10000;

// streamScript runs in the page's main world, and in its dedicated workers (fetch()
// and XMLHttpRequest; no element); its source is injected.
// The binding is added only once a stream is offered (streamChannel): until then the
// replay tab runs without the Runtime domain, which a first load pays for. The script
// takes it out of the page's reach as soon as it sees it: as it starts (a document made
// after the binding was added) or as a stream is offered to it.
const streamScript = `(${function (binding, ahead, syncChunk, loaderAccept, waitMs) {
  "use strict";
  const given = Symbol.for("webkeep.replayStream");
  if (globalThis[given]) return;
  let channel = null;
  const take = () => {
    if (!channel && typeof globalThis[binding] === "function") {
      channel = globalThis[binding];
      delete globalThis[binding];
    }
    return channel;
  };
  take();
  // The timers, as the script started: a page's own setTimeout (its scripts run
  // after this one) never sees the script's calls.
  const { setTimeout, clearTimeout } = globalThis;
  // ask sends the bar a message through the binding. The bar may answer a request
  // with a stream before the binding is on (it waits for it only so long: a thread
  // held by a synchronous request turns it on only once answered): the messages wait,
  // in their order, for at most waitMs; then the streams waiting fail.
  const waiting = [];
  const ask = (message) => {
    if (take()) return channel(message);
    waiting.push(message);
    if (waiting.length === 1) poll(Date.now());
    return undefined;
  };
  const poll = (since) => {
    if (take()) {
      for (const message of waiting.splice(0)) channel(message);
    } else if (Date.now() - since < waitMs) {
      setTimeout(poll, 10, since);
    } else {
      waiting.length = 0;
      for (const [name, s] of streams) settle(s, name, "", `the replay's channel was not on after ${waitMs / 1000} s`);
    }
  };
  // stream name -> { controller, pulled: resolve of the pull waiting, asked: chunks
  // asked for and not yet given, next: the number of the chunk due, early: chunks
  // given before it, by number }
  const streams = new Map();
  const settle = (s, name, chunk, error) => {
    if (error) {
      streams.delete(name);
      s.controller.error(new TypeError(`network error: ${error}`));
    } else if (chunk === "") {
      streams.delete(name);
      s.controller.close();
    } else s.controller.enqueue(Uint8Array.fromBase64(chunk));
  };
  Object.defineProperty(globalThis, given, {
    value: (name, n, chunk, error) => {
      const s = streams.get(name);
      if (!s) return;
      s.early.set(n, [chunk, error]);
      for (let c; streams.has(name) && (c = s.early.get(s.next)); s.next++) {
        s.early.delete(s.next);
        s.asked--;
        settle(s, name, ...c);
      }
      const pulled = s.pulled;
      s.pulled = null;
      if (pulled) pulled();
    },
  });
  // What a cross-origin response shows a script of its header, as fetch() shows it.
  const safelisted = new Set(["cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma"]);
  // headOf reads the stream a "not replayed" answer names (its X-Webkeep-Stream
  // header's value named): its name, the capture's head as the init of a Response
  // (a cross-origin one, cors, shows what fetch() shows of it) and its body's size
  // (-1 when not known).
  const headOf = (named, cors) => {
    const [name, head64] = named.split(" ");
    const head = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(head64)));
    let headers = head.headers.map((h) => [h.name, h.value]);
    if (cors) {
      const exposed = new Set(headers.filter(([k]) => k.toLowerCase() === "access-control-expose-headers")
        .flatMap(([, v]) => v.split(",").map((s) => s.trim().toLowerCase())));
      headers = headers.filter(([k]) => safelisted.has(k.toLowerCase()) || exposed.has(k.toLowerCase()) || exposed.has("*"));
    }
    return { name, init: { status: head.status, statusText: head.reason || "", headers }, size: head.size };
  };
  // streamed is the response of the stream named: the capture's head, its body read
  // from the bar as the page reads it.
  const streamed = (named, cors) => {
    const { name, init, size } = headOf(named, cors);
    const body = new ReadableStream({
      start(controller) { streams.set(name, { controller, pulled: null, asked: 0, next: 0, early: new Map() }); },
      pull() {
        const s = streams.get(name);
        if (!s) return undefined;
        return new Promise((resolve) => {
          s.pulled = resolve;
          for (; s.asked < ahead; s.asked++) ask(JSON.stringify({ name, want: "next" }));
        });
      },
      cancel() {
        streams.delete(name);
        ask(JSON.stringify({ name, want: "cancel" }));
      },
    });
    return { res: new Response(body, init), size };
  };
  // webkeep's loader of a script too large for one answer (shared/replay/loader.go)
  // says through it why it could not run the script: the bar lists it as not replayed.
  Object.defineProperty(globalThis, Symbol.for("webkeep.replayStream.notRun"), {
    value: (url, timestamp, why) => ask(JSON.stringify({ want: "not run", url: String(url), timestamp: String(timestamp), why: String(why) })),
  });
  // webkeep's page that shows the tab's PDF too large for one answer (viewerPage in
  // shared/replay/large.go) asks the bar to hold the tab before it shows the PDF in
  // Chromium's viewer, which takes the debugger off the tab; resolved once it is held.
  const holds = new Map(); // the number of an ask -> its resolve
  let holdAsks = 0;
  Object.defineProperty(globalThis, Symbol.for("webkeep.replayStream.holdForPDF"), {
    value: () => new Promise((resolve) => {
      if (!take()) return resolve(false);
      holds.set(++holdAsks, resolve);
      ask(JSON.stringify({ want: "pdf", n: holdAsks }));
    }),
  });
  Object.defineProperty(globalThis, Symbol.for("webkeep.replayStream.held"), {
    value: (n) => {
      holds.get(n)?.(true);
      holds.delete(n);
    },
  });
  const original = globalThis.fetch;
  globalThis.fetch = {
    fetch(...args) {
      return Reflect.apply(original, this, args).then((r) => {
        const named = r.headers.get("X-Webkeep-Stream");
        if (!named) return r;
        r.body?.cancel().catch(() => {});
        const { res } = streamed(named, r.type === "cors");
        Object.defineProperties(res, { url: { value: r.url }, redirected: { value: r.redirected }, type: { value: r.type } });
        return res;
      });
    },
  }.fetch;
  if (typeof globalThis.XMLHttpRequest !== "function") return; // a global without it: fetch() alone

  // A page's image too large for one answer fails on the "not replayed" page; the
  // bar offers its body as a stream. As an <img> fails, the script asks the bar for
  // the stream of its URL (only once the bar has offered one: the binding is there)
  // and shows the image from it, as a Blob: an image of the same URL shown already is
  // shown again (its stream, if the bar offered one more, cancelled).
  const images = new Map(); // the number of an ask -> [the <img>, its URL]
  const blobs = new Map(); // URL -> a promise of its Blob's URL
  const shownFrom = new WeakMap(); // <img> -> the URL it was shown from a Blob for
  let asks = 0;
  // A <picture>'s <source> that gave the URL is given the Blob's in its place, as it
  // would be picked again over the <img>'s own.
  const show = (img, url, blobURL) => {
    if (!blobURL || img.currentSrc.replace(/#.*/, "") !== url) return; // given another since
    shownFrom.set(img, url);
    if (img.parentElement?.localName === "picture") {
      for (const source of img.parentElement.querySelectorAll(":scope > source[srcset]")) {
        const srcset = replaced(source.getAttribute("srcset"), url, blobURL);
        if (srcset !== null) source.srcset = srcset;
      }
    }
    if (img.hasAttribute("srcset")) img.srcset = blobURL;
    img.src = blobURL;
  };
  // replaced is srcset with each candidate of url given blobURL instead, its
  // descriptors kept (null if none is url): candidates split as the HTML standard
  // splits them, a URL running to the next white space, or to a comma ending it.
  const replaced = (srcset, url, blobURL) => {
    const out = [];
    let found = false;
    for (let i = 0; i < srcset.length;) {
      while (i < srcset.length && /[\s,]/.test(srcset[i])) i++;
      if (i >= srcset.length) break;
      let end = i;
      while (end < srcset.length && !/\s/.test(srcset[end])) end++;
      let candidate = srcset.slice(i, end), descriptors = "";
      if (/,$/.test(candidate)) candidate = candidate.replace(/,+$/, "");
      else {
        const comma = srcset.indexOf(",", end);
        descriptors = srcset.slice(end, comma < 0 ? srcset.length : comma).trim();
        end = comma < 0 ? srcset.length : comma + 1;
      }
      i = end;
      let resolved = "";
      try { resolved = new URL(candidate, document.baseURI).href.replace(/#.*/, ""); } catch {}
      if (resolved === url) {
        candidate = blobURL;
        found = true;
      }
      out.push(descriptors ? candidate + " " + descriptors : candidate);
    }
    return found ? out.join(", ") : null;
  };
  Object.defineProperty(globalThis, Symbol.for("webkeep.replayStream.image"), {
    value: (n, named) => {
      const [img, url] = images.get(n) ?? [];
      images.delete(n);
      if (!img) return;
      if (named && blobs.has(url)) ask(JSON.stringify({ name: named.split(" ")[0], want: "cancel" }));
      else if (named) blobs.set(url, streamed(named, false).res.blob().then((b) => URL.createObjectURL(b), () => null));
      blobs.get(url)?.then((blobURL) => show(img, url, blobURL));
    },
  });
  const failed = (e) => {
    const img = e.target;
    // A script given webkeep's loader in its place fails if it names its digest
    // (integrity): the bar lists it, if it gave that URL a loader.
    if (e.isTrusted && img instanceof HTMLScriptElement && img.integrity && /^https?:/.test(img.src) && take()) {
      ask(JSON.stringify({ want: "script failed", url: img.src.replace(/#.*/, "") }));
      return;
    }
    if (!e.isTrusted || !(img instanceof HTMLImageElement) || !take()) return;
    const url = img.currentSrc.replace(/#.*/, "");
    if (!/^https?:/.test(url) || shownFrom.get(img) === url) return; // shown once already: not again
    images.set(++asks, [img, url]);
    ask(JSON.stringify({ want: "image", url, n: asks }));
  };
  // On the window, in its capture phase (an image's error does not bubble), added
  // again after document.open() (replay-guard.js) as the guard's are.
  // In a document only: a dedicated worker has XMLHttpRequest too, but no element.
  const listen = () => addEventListener("error", failed, true);
  const alsoListen = globalThis[Symbol.for("webkeep.replayGuard.alsoListen")];
  if (typeof HTMLElement === "function") {
    if (alsoListen) alsoListen(listen);
    else listen();
  }

  // An XMLHttpRequest whose answer names a stream is taken over as its header comes
  // (readyState 2): the real request's events stop reaching the page, and the page
  // gets the capture's instead, its body read whole as an XMLHttpRequest reads it,
  // with the events a live one fires. A synchronous one, which cannot wait for a
  // stream, is taken over as it is done (readyState 4, still in its send()): the
  // body is read by Range with synchronous requests of the script's own, as
  // webkeep's loader reads a large script (shared/replay/loader.go), when it is a
  // GET's of a known length; else the page has the answer as it is.
  const ours = new WeakSet(); // the events fired here, which pass
  // Each request's state: its send's count, and whether that send's answer is taken
  // over (its properties then the capture's, defined on it until it is sent again).
  const watched = new WeakMap();
  const own = ["readyState", "status", "statusText", "response", "responseText", "responseXML", "getResponseHeader", "getAllResponseHeaders", "abort"];
  // watch listens to a request's events before the page can (as it is made): they
  // stop reaching the page once its answer is taken over.
  const watch = (xhr) => {
    const w = { sent: 0, taken: false, at: 0, sync: false, method: "", override: "" };
    watched.set(xhr, w);
    const stop = (e) => { if (w.taken && !ours.has(e)) e.stopImmediatePropagation(); };
    xhr.addEventListener("readystatechange", (e) => {
      const sync = w.sync && xhr.readyState === Native.DONE;
      if (w.taken || (!sync && xhr.readyState !== Native.HEADERS_RECEIVED)) return;
      const named = xhr.getResponseHeader("X-Webkeep-Stream");
      if (!named) return;
      const cors = new URL(xhr.responseURL, location.href).origin !== location.origin;
      if (sync) {
        const head = headOf(named, cors);
        const bytes = readWhole(xhr, w, head);
        if (!bytes) return;
        w.taken = true;
        e.stopImmediatePropagation();
        const res = new Response(null, head.init);
        const got = { state: Native.DONE, status: res.status, ...bodyOf(xhr, w, res, bytes) };
        got.abort = () => { got.state = Native.UNSENT; };
        present(xhr, res, got);
        fire(xhr, "readystatechange");
        fire(xhr, "load", bytes.length, bytes.length);
        fire(xhr, "loadend", bytes.length, bytes.length);
        return;
      }
      w.taken = true;
      e.stopImmediatePropagation();
      takeOver(xhr, w, streamed(named, cors));
    });
    for (const type of ["readystatechange", "progress", "load", "loadend", "error", "abort", "timeout"]) xhr.addEventListener(type, stop);
  };
  const Native = globalThis.XMLHttpRequest;
  globalThis.XMLHttpRequest = {
    XMLHttpRequest: class extends Native {
      constructor(...args) {
        super(...args);
        watch(this);
      }
    },
  }.XMLHttpRequest;
  // A request opened or sent again is the browser's once more; its timeout counts
  // from its send.
  const release = (xhr) => {
    const w = watched.get(xhr);
    if (!w) return;
    w.sent++;
    w.at = performance.now();
    if (w.taken) {
      w.taken = false;
      for (const k of own) delete xhr[k];
    }
  };
  for (const name of ["open", "send"]) {
    const native = Native.prototype[name];
    Native.prototype[name] = {
      [name](...args) {
        release(this);
        const w = watched.get(this);
        if (w && name === "open") {
          w.method = String(args[0]).toUpperCase();
          w.sync = args.length > 2 && !args[2];
          w.override = "";
        }
        return Reflect.apply(native, this, args);
      },
    }[name];
  }
  const overrideMimeType = Native.prototype.overrideMimeType;
  Native.prototype.overrideMimeType = {
    overrideMimeType(mime) {
      Reflect.apply(overrideMimeType, this, [mime]);
      const w = watched.get(this);
      if (w) w.override = String(mime);
    },
  }.overrideMimeType;
  // readWhole reads the body of a synchronous request's stream (head, from headOf)
  // by Range, syncChunk bytes at a time, with synchronous requests of its own (the
  // bar takes the stream as the first is asked: readByRange), and tells the bar it
  // read it whole; null if it cannot (not a GET's, of no known length: the page then
  // has the "not replayed" page, which the bar lists), or could not (it tells the bar
  // why, which lists it).
  const readWhole = (xhr, w, { name, size }) => {
    if (w.method !== "GET" || size < 0) return null;
    const bytes = new Uint8Array(size);
    try {
      for (let at = 0; at < size;) {
        const r = new Native();
        r.open("GET", xhr.responseURL, false);
        r.overrideMimeType("text/plain; charset=x-user-defined");
        r.setRequestHeader("Range", `bytes=${at}-${Math.min(at + syncChunk, size) - 1}`);
        r.setRequestHeader("Accept", loaderAccept);
        r.send();
        const part = r.responseText;
        if (r.status !== 206 || !part.length || at + part.length > size) throw new Error(`the archive answered ${r.status} (${part.length} bytes) for its bytes from ${at}`);
        for (let i = 0; i < part.length; i++) bytes[at + i] = part.charCodeAt(i);
        at += part.length;
      }
    } catch (e) {
      ask(JSON.stringify({ name, want: "not read", why: String(e && e.message || e) }));
      return null;
    }
    ask(JSON.stringify({ name, want: "read" }));
    return bytes;
  };
  const fire = (xhr, type, loaded = 0, total = 0) => {
    const e = type === "readystatechange" ? new Event(type) : new ProgressEvent(type, { loaded, total, lengthComputable: total > 0 });
    ours.add(e);
    xhr.dispatchEvent(e);
  };
  const define = (xhr, props) => Object.defineProperties(xhr, Object.fromEntries(Object.entries(props).map(([k, v]) => [k, { ...v, configurable: true }])));
  // present defines on xhr the properties of an answer taken over: res's head, and
  // got's state, status (0 once ended as a failure), text or response, documentOf
  // (its body as a document) and abort.
  const present = (xhr, res, got) => define(xhr, {
    readyState: { get: () => got.state },
    status: { get: () => got.status },
    statusText: { get: () => (got.status ? res.statusText : "") },
    response: { get: () => (xhr.responseType === "" || xhr.responseType === "text" ? got.text : got.response) },
    responseText: {
      get: () => {
        if (xhr.responseType !== "" && xhr.responseType !== "text") throw new DOMException("The value is only accessible if the object's 'responseType' is '' or 'text'.", "InvalidStateError");
        return got.text;
      },
    },
    getResponseHeader: { value: (name) => (got.status ? res.headers.get(name) : null) },
    getAllResponseHeaders: { value: () => (got.status ? [...res.headers].map(([k, v]) => `${k}: ${v}\r\n`).join("") : "") },
    responseXML: {
      get: () => {
        if (xhr.responseType !== "" && xhr.responseType !== "document") throw new DOMException("The value is only accessible if the object's 'responseType' is '' or 'document'.", "InvalidStateError");
        return xhr.responseType === "document" ? got.response : got.documentOf(false);
      },
    },
    abort: { value: () => got.abort() },
  });
  // charsetOf is the encoding a MIME type's charset names ("" for none, or one the
  // browser does not know).
  const charsetOf = (mime) => {
    const label = /;\s*charset\s*=\s*["']?([^;"'\s]+)/i.exec(mime)?.[1];
    try { return label ? new TextDecoder(label).encoding : ""; } catch { return ""; }
  };
  // bodyOf is what xhr (w its state) is given of bytes, the body of res, as its
  // responseType asks: { text, response, documentOf }. Text is decoded in the
  // charset its overrideMimeType() named, else its Content-Type's, else UTF-8.
  const bodyOf = (xhr, w, res, bytes) => {
    const type = res.headers.get("Content-Type") || "";
    const decoded = (label = "utf-8") => new TextDecoder(label).decode(bytes);
    // The body as a document, as an XMLHttpRequest parses one: an XML type's, or
    // with html (responseType "document") an HTML one's; null for any other, XML
    // that does not parse, or in a worker.
    let parsed;
    const documentOf = (html) => {
      const mime = type.split(";")[0].trim().toLowerCase();
      const kind = mime === "text/html" ? (html ? mime : "") : /^(text|application)\/xml$|\+xml$/.test(mime) ? mime : "";
      if (!kind || typeof DOMParser !== "function") return null;
      if (parsed === undefined) {
        const doc = new DOMParser().parseFromString(decoded(), kind === "text/html" ? kind : "application/xml");
        parsed = kind !== "text/html" && doc.getElementsByTagName("parsererror").length ? null : doc;
      }
      return parsed;
    };
    const got = { text: "", response: null, documentOf };
    switch (xhr.responseType) {
      case "arraybuffer": got.response = bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer; break;
      case "blob": got.response = new Blob([bytes], { type }); break;
      case "json": try { got.response = JSON.parse(decoded()); } catch { got.response = null; } break;
      case "document": got.response = documentOf(true); break;
      default: got.text = decoded(charsetOf(w.override) || charsetOf(type) || "utf-8");
    }
    return got;
  };
  const takeOver = async (xhr, w, { res, size }) => {
    const sent = w.sent;
    const current = () => w.sent === sent; // not sent again since
    const got = { state: Native.HEADERS_RECEIVED, status: res.status, text: "", response: null, documentOf: () => null };
    let ended = false;
    const reader = res.body.getReader();
    // Ends the request as the browser ends one that fails (error), is aborted or
    // times out.
    const end = (type) => {
      ended = true;
      clearTimeout(timer);
      reader.cancel().catch(() => {});
      got.status = 0;
      got.state = Native.DONE;
      fire(xhr, "readystatechange");
      fire(xhr, type);
      fire(xhr, "loadend");
    };
    got.abort = () => {
      if (ended) return;
      end("abort");
      got.state = Native.UNSENT;
    };
    // The page's timeout, counted from its send, as the browser counts it.
    const timer = xhr.timeout > 0 && setTimeout(() => {
      if (!ended && current()) end("timeout");
    }, Math.max(0, w.at + xhr.timeout - performance.now()));
    present(xhr, res, got);
    fire(xhr, "readystatechange");
    // The body is kept in one buffer of its size when it is known, else in its parts.
    const whole = size >= 0 ? new Uint8Array(size) : null;
    const parts = [];
    let n = 0;
    let filled = 0; // of whole
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (ended) return;
        if (!current()) {
          reader.cancel().catch(() => {});
          return;
        }
        if (done) break;
        if (whole && !parts.length && n + value.length <= size) {
          whole.set(value, n);
          filled += value.length;
        } else parts.push(value);
        n += value.length;
        if (got.state !== Native.LOADING) {
          got.state = Native.LOADING;
          fire(xhr, "readystatechange");
        }
        fire(xhr, "progress", n, Math.max(size, 0));
      }
    } catch {
      if (ended || !current()) return;
      end("error");
      return;
    }
    ended = true;
    clearTimeout(timer);
    const kept = whole ? whole.subarray(0, filled) : null;
    const bytes = kept && !parts.length ? kept : new Uint8Array(await new Blob(kept ? [kept, ...parts] : parts).arrayBuffer());
    parts.length = 0;
    Object.assign(got, bodyOf(xhr, w, res, bytes));
    if (!current()) return;
    got.state = Native.DONE;
    fire(xhr, "readystatechange");
    fire(xhr, "load", n, n);
    fire(xhr, "loadend", n, n);
  };
}})(${JSON.stringify(streamBinding)}, ${streamAhead}, ${syncChunk}, ${JSON.stringify(loaderAccept)}, ${streamTakenMs})`;

// streamChannel turns on, once for each target (the tab, a frame of its own, a
// dedicated worker), what the page's script asks for chunks through: the Runtime
// domain and the binding, which it adds to the target's documents (these and those
// made later) or to the worker.
const channels = new Map(); // target's session ("" for the tab) -> the commands' promise
function streamChannel(target) {
  const key = target.sessionId || "";
  if (!channels.has(key)) {
    channels.set(key, Promise.all([
      chrome.debugger.sendCommand(target, "Runtime.enable"),
      chrome.debugger.sendCommand(target, "Runtime.addBinding", { name: streamBinding }),
    ]));
  }
  return channels.get(key);
}

// The scripts given webkeep's loader in their place (Answer.loader), by URL: the
// answer, for a page's script to say the browser refused it.
const loaderGiven = new Map();

// The streams offered and not yet ended: name -> { a (the answer), file (its URL),
// reader, next (the next chunk, being read), got (bytes given), taken, timer (until it
// is listed as not taken, or let go as idle) }. A stream is named by its request's id,
// which the Fetch domain makes unique in the browser.
const pageStreams = new Map();
// The streams a synchronous XMLHttpRequest read by Range instead (readByRange): name
// -> what pageStreams held, for the page's script to say how its read ended.
const readsWhole = new Map();

// readByRange takes the stream offered for request's URL, if one is, as the page's
// synchronous XMLHttpRequest reads its body by Range (readWhole, in the page's
// script), which cannot wait for a stream: logged as the page's script says how its
// read ended ("read" or "not read"). Its reads carry the loader's Accept
// (LoaderAccept in shared/replay/loader.go).
function readByRange(request) {
  if (headerValue(request.headers, "accept") !== loaderAccept) return;
  for (const [name, s] of pageStreams) {
    if (s.image || s.taken || s.a.url !== request.url.replace(/#.*/, "")) continue;
    clearTimeout(s.timer);
    pageStreams.delete(name);
    readsWhole.set(name, s);
    if (readsWhole.size > 64) readsWhole.delete(readsWhole.keys().next().value);
    return;
  }
}

// streamOffered names a stream for answer a of the request of id name (an image's
// if image) and returns the header line that tells the page's script; onLog(answer)
// logs it as the page took it, or as not replayed if the page's script did not take
// it in time.
function streamOffered(name, a, file, onLog, image = false) {
  const { url, timestamp, why } = a;
  const s = { a, file, reader: null, got: 0, given: 0, taken: false, onLog, image, claimed: false };
  s.timer = setTimeout(() => {
    pageStreams.delete(name);
    const untaken = image ? "an image of the page's CSS, or one an <img> did not show, gets" : "a shared or service worker's fetch(), or a synchronous XMLHttpRequest of a body of no known length, gets";
    onLog({ url, archived: true, timestamp, withheld: true, why: `${why}; it was offered to the page as a stream, which nothing in the page took (${untaken} the "not replayed" page)` });
  }, streamTakenMs);
  pageStreams.set(name, s);
  const head = new TextEncoder().encode(JSON.stringify(a.stream)).toBase64();
  s.named = `${name} ${head}`;
  return { name: "X-Webkeep-Stream", value: s.named };
}

// readChunk reads the next streamChunk bytes of stream s from the archive (fewer at
// its end; none after it).
async function readChunk(s) {
  if (!s.reader) {
    const res = await fetch(s.file);
    if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || `the archive answered ${res.status}`);
    s.reader = res.body.getReader();
  }
  const parts = [];
  let n = 0;
  while (n < streamChunk) {
    const { done, value } = await s.reader.read();
    if (done) break;
    parts.push(value);
    n += value.length;
  }
  const chunk = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    chunk.set(p, at);
    at += p.length;
  }
  return chunk;
}

// streamAsked answers the page's script's call of the binding (Runtime.bindingCalled
// in target): the next chunk of a stream, or its end. The page asks for several ahead
// (streamAhead); each is read in turn and sent numbered without waiting for the page
// to take the one before, so that the archive, the browser and the page work at once.
async function streamAsked(target, { payload, executionContextId }) {
  let asked;
  try {
    asked = JSON.parse(payload);
  } catch {
    return; // not the script's
  }
  if (asked.want === "image") {
    // An <img> failed: the stream of its URL offered to an image, if there is one
    // nothing has claimed (the page's script then reads it as a fetch() would).
    const s = [...pageStreams.values()].find((s) => s.image && !s.claimed && s.a.url === asked.url);
    if (s) s.claimed = true;
    await chrome.debugger.sendCommand(target, "Runtime.callFunctionOn", {
      functionDeclaration: "function (n, named) { globalThis[Symbol.for('webkeep.replayStream.image')]?.(n, named); }",
      executionContextId, arguments: [{ value: asked.n }, { value: s?.named ?? "" }],
    }).catch(() => {}); // the document that asked is gone: nothing to show it in (the offer is listed as not taken)
    return;
  }
  if (asked.want === "script failed") {
    const a = loaderGiven.get(asked.url);
    if (a) logStream({ url: a.url, archived: true, timestamp: a.timestamp, withheld: true, why: `a script too large for one answer, whose <script> names its digest (integrity), which webkeep's loader run in its place does not have: the browser refused it; "Save the file" saves it` });
    return;
  }
  if (asked.want === "pdf") {
    // The tab's page of a large PDF is about to show it (replay.js: takeBack); no
    // other page may have the tab held.
    if (!pdfPage || target.sessionId) return;
    viewerShown = true;
    await holdTab();
    await chrome.debugger.sendCommand(target, "Runtime.callFunctionOn", {
      functionDeclaration: "function (n) { globalThis[Symbol.for('webkeep.replayStream.held')]?.(n); }",
      executionContextId, arguments: [{ value: asked.n }],
    }).catch(() => {}); // the page is gone
    return;
  }
  if (asked.want === "not run") {
    const { url, timestamp, why } = asked;
    logStream({ url, archived: true, timestamp, withheld: true, why: `a script too large for one answer, which webkeep's loader (run in its place) could not run: ${why}; "Save the file" saves it` });
    return;
  }
  if (asked.want === "read" || asked.want === "not read") {
    // A synchronous XMLHttpRequest read the body by Range (readByRange), or could not.
    const s = readsWhole.get(asked.name);
    if (!s) return;
    readsWhole.delete(asked.name);
    const { url, timestamp, why } = s.a;
    if (asked.want === "read") s.onLog({ url, archived: true, timestamp });
    else s.onLog({ url, archived: true, timestamp, withheld: true, why: `${why}; the page's synchronous XMLHttpRequest, which cannot wait for a stream, could not read it by Range (${asked.why}); "Save the file" saves it` });
    return;
  }
  const s = pageStreams.get(asked.name);
  if (!s) return;
  if (!s.taken) {
    s.taken = true;
    const { url, timestamp } = s.a;
    s.onLog({ url, archived: true, timestamp });
  }
  clearTimeout(s.timer);
  const end = () => {
    clearTimeout(s.timer);
    pageStreams.delete(asked.name);
  };
  s.timer = setTimeout(() => {
    end();
    s.reader?.cancel().catch(() => {});
  }, streamIdleMs);
  if (asked.want === "cancel") {
    end();
    await s.reader?.cancel();
    return;
  }
  const give = (chunk, error = "") => chrome.debugger.sendCommand(target, "Runtime.callFunctionOn", {
    functionDeclaration: "function (n, i, c, e) { globalThis[Symbol.for('webkeep.replayStream')]?.(n, i, c, e); }",
    executionContextId, arguments: [{ value: asked.name }, { value: s.given++ }, { value: chunk }, { value: error }],
  });
  const stopped = (e) => {
    end();
    s.reader?.cancel().catch(() => {});
    return new Error(`${s.a.url}: its body stopped after ${s.got} bytes: ${e && e.message || e}`);
  };
  s.turn = (s.turn ?? Promise.resolve()).then(async () => {
    if (pageStreams.get(asked.name) !== s) return; // ended, cancelled or failed
    let chunk;
    try {
      // The next chunk is read from the archive while this one goes to the page.
      chunk = await (s.next ?? readChunk(s));
      s.next = chunk.length ? readChunk(s) : null;
      s.next?.catch(() => {}); // its error is thrown when it is asked for
      s.got += chunk.length;
      if (chunk.length === 0 && s.a.stream.size >= 0 && s.got !== s.a.stream.size) throw new Error(`the archive gave ${s.got} of its ${s.a.stream.size} bytes`);
    } catch (e) {
      give("", String(e && e.message || e)).catch(() => {});
      throw stopped(e);
    }
    if (chunk.length === 0) end();
    // Not waited for here: the next turn reads on while this chunk goes.
    return { sent: give(chunk.length ? chunk.toBase64() : "") };
  });
  const turn = s.turn;
  s.turn = turn.catch(() => {}); // a failed turn ends the stream; the next finds it ended
  const { sent } = (await turn) ?? {};
  try {
    await sent;
  } catch (e) {
    if (pageStreams.get(asked.name) === s) throw stopped(e);
  }
}
