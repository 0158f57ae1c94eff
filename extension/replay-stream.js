// webkeep replay: bodies too large for one DevTools message, given to a page's fetch()
// as a stream (shared/replay/large.go). The core answers such a request with its "not
// replayed" page and the capture's head (Answer.stream); the bar names a stream in the
// answer's X-Webkeep-Stream header. A script run in every document of the replay tab
// before the page's own (streamScript) wraps fetch(): a response that names a stream
// becomes one of the capture's head whose body the bar reads from the archive
// (GET .../file, streamed by the core) a chunk at a time, as the page reads it, and
// hands over through DevTools (a binding one way, Runtime.callFunctionOn the other).
// Nothing holds the whole body but the page, if it keeps it.
"use strict";

// The binding the page's script asks for chunks through, taken out of the page's reach
// as that script starts.
const streamBinding = "__webkeepReplayStream";
// The bytes handed over at a time: one DevTools message each.
const streamChunk = 1 << 20;
// How long a stream taken waits for the page to ask for more before the bar lets it go
// (the page was left, or dropped the response unread).
const streamIdleMs = 60000;
// How long a stream offered waits for the page's script to take it before the bar
// lists its body as not replayed (an XMLHttpRequest's or a worker's fetch(), which the
// script does not wrap: the Fetch domain does not tell them from a page's fetch()).
const streamTakenMs = 10000;

// streamScript runs in the page's main world; its source is injected.
// The binding is added only once a stream is offered (streamChannel): until then the
// replay tab runs without the Runtime domain, which a first load pays for. The script
// takes it out of the page's reach as soon as it sees it: as it starts (a document made
// after the binding was added) or as a stream is offered to it.
const streamScript = `(${function (binding) {
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
  const ask = (message) => take()?.(message);
  const streams = new Map(); // stream name -> { controller, pulled: resolve of the pull waiting }
  Object.defineProperty(globalThis, given, {
    value: (name, chunk, error) => {
      const s = streams.get(name);
      if (!s) return;
      const pulled = s.pulled;
      s.pulled = null;
      if (error) {
        streams.delete(name);
        s.controller.error(new TypeError(`network error: ${error}`));
      } else if (chunk === "") {
        streams.delete(name);
        s.controller.close();
      } else s.controller.enqueue(Uint8Array.fromBase64(chunk));
      if (pulled) pulled();
    },
  });
  // What a cross-origin response shows a script of its header, as fetch() shows it.
  const safelisted = new Set(["cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma"]);
  const original = globalThis.fetch;
  globalThis.fetch = {
    fetch(...args) {
      return Reflect.apply(original, this, args).then((r) => {
        const named = r.headers.get("X-Webkeep-Stream");
        if (!named || !take()) return r;
        const [name, head64] = named.split(" ");
        const head = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(head64)));
        let header = head.headers.map((h) => [h.name, h.value]);
        if (r.type === "cors") {
          const exposed = new Set(header.filter(([k]) => k.toLowerCase() === "access-control-expose-headers")
            .flatMap(([, v]) => v.split(",").map((s) => s.trim().toLowerCase())));
          header = header.filter(([k]) => safelisted.has(k.toLowerCase()) || exposed.has(k.toLowerCase()) || exposed.has("*"));
        }
        r.body?.cancel().catch(() => {});
        const body = new ReadableStream({
          start(controller) { streams.set(name, { controller, pulled: null }); },
          pull() {
            const s = streams.get(name);
            if (!s) return undefined;
            return new Promise((resolve) => {
              s.pulled = resolve;
              ask(JSON.stringify({ name, want: "next" }));
            });
          },
          cancel() {
            streams.delete(name);
            ask(JSON.stringify({ name, want: "cancel" }));
          },
        });
        const out = new Response(body, { status: head.status, statusText: head.reason || "", headers: header });
        Object.defineProperties(out, { url: { value: r.url }, redirected: { value: r.redirected }, type: { value: r.type } });
        return out;
      });
    },
  }.fetch;
}})(${JSON.stringify(streamBinding)})`;

// streamChannel turns on, once for each target (the tab, a frame of its own), what the
// page's script asks for chunks through: the Runtime domain and the binding, which it
// adds to the target's documents, these and those made later.
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

// The streams offered and not yet ended: name -> { a (the answer), file (its URL),
// reader, next (the next chunk, being read), got (bytes given), taken, timer (until it
// is listed as not taken, or let go as idle) }. A stream is named by its request's id,
// which the Fetch domain makes unique in the browser.
const pageStreams = new Map();

// streamOffered names a stream for answer a of the request of id name and returns the
// header line that tells the page's script; onLog(answer) logs it as the page took it,
// or as not replayed if the page's script did not take it in time.
function streamOffered(name, a, file, onLog) {
  const { url, timestamp, why } = a;
  const s = { a, file, reader: null, got: 0, taken: false, onLog };
  s.timer = setTimeout(() => {
    pageStreams.delete(name);
    onLog({ url, archived: true, timestamp, withheld: true, why: `${why}; it was offered to the page as a stream, which nothing in the page took (an XMLHttpRequest or a worker's fetch() gets the "not replayed" page)` });
  }, streamTakenMs);
  pageStreams.set(name, s);
  const head = new TextEncoder().encode(JSON.stringify(a.stream)).toBase64();
  return { name: "X-Webkeep-Stream", value: `${name} ${head}` };
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
// in target): the next chunk of a stream, or its end.
async function streamAsked(target, { payload, executionContextId }) {
  let asked;
  try {
    asked = JSON.parse(payload);
  } catch {
    return; // not the script's
  }
  const s = pageStreams.get(asked.name);
  if (!s) return;
  const give = (chunk, error = "") => chrome.debugger.sendCommand(target, "Runtime.callFunctionOn", {
    functionDeclaration: "function (n, c, e) { globalThis[Symbol.for('webkeep.replayStream')]?.(n, c, e); }",
    executionContextId, arguments: [{ value: asked.name }, { value: chunk }, { value: error }],
  });
  if (!s.taken) {
    s.taken = true;
    const { url, timestamp } = s.a;
    s.onLog({ url, archived: true, timestamp });
  }
  clearTimeout(s.timer);
  s.timer = setTimeout(() => {
    pageStreams.delete(asked.name);
    s.reader?.cancel().catch(() => {});
  }, streamIdleMs);
  try {
    if (asked.want === "cancel") {
      clearTimeout(s.timer);
      pageStreams.delete(asked.name);
      await s.reader?.cancel();
      return;
    }
    // The next chunk is read from the archive while this one goes to the page.
    const chunk = await (s.next ?? readChunk(s));
    s.next = chunk.length ? readChunk(s) : null;
    s.next?.catch(() => {}); // its error is thrown when it is asked for
    s.got += chunk.length;
    if (chunk.length === 0) {
      clearTimeout(s.timer);
      pageStreams.delete(asked.name);
      if (s.a.stream.size >= 0 && s.got !== s.a.stream.size) throw new Error(`the archive gave ${s.got} of its ${s.a.stream.size} bytes`);
      await give("");
      return;
    }
    await give(chunk.toBase64());
  } catch (e) {
    clearTimeout(s.timer);
    pageStreams.delete(asked.name);
    s.reader?.cancel().catch(() => {});
    await give("", String(e && e.message || e)).catch(() => {});
    throw new Error(`${s.a.url}: its body stopped after ${s.got} bytes: ${e && e.message || e}`);
  }
}
