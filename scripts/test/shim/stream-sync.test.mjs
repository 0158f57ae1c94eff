// The replay's stream script (extension/replay-stream.js, streamScript) and a
// synchronous XMLHttpRequest of a body too large for one answer: the script reads it
// by Range before send() returns and tells the bar how the read ended ("read", or
// "not read" with what the archive answered), which is when the bar logs it (given,
// or withheld with why). Each case runs the script in a context of its own, as in a
// dedicated worker (no element), whose XMLHttpRequest is a small synchronous stand-in
// answered by a table of ranges.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const { streamScript, streamBinding, syncChunk } = new Function(
  `${readFileSync(new URL("../../../extension/replay-stream.js", import.meta.url), "utf8")}\nreturn { streamScript, streamBinding, syncChunk };`,
)();
const b64 = (s) => Buffer.from(s).toString("base64");

// The body archived, and the stream's name in the "not replayed" answer.
const body = "0123456789".repeat(700_000); // 7,000,000 bytes: several Range reads
// The first byte of each Range read up to and including from's.
const readsTo = (from) => Array.from({ length: Math.floor(from / syncChunk) + 1 }, (_, i) => i * syncChunk);
const named = `s1 ${b64(JSON.stringify({ status: 200, reason: "OK", size: body.length, headers: [{ name: "Content-Type", value: "application/octet-stream" }] }))}`;

// thread runs the script in a new context whose XMLHttpRequest answers synchronously:
// the body's URL with the "not replayed" page naming the stream, and its Range reads
// with 206 and those bytes, or with failAt's status for a read from that byte.
function thread({ failAt = -1 } = {}) {
  const reads = [];
  class Request extends EventTarget {
    static UNSENT = 0;
    static OPENED = 1;
    static HEADERS_RECEIVED = 2;
    static LOADING = 3;
    static DONE = 4;
    readyState = 0;
    status = 0;
    responseText = "";
    responseURL = "";
    responseType = "";
    #asked = {};
    #head = {};
    open(method, url) {
      this.url = url;
      this.readyState = 1;
      this.dispatchEvent(new Event("readystatechange"));
    }
    setRequestHeader(name, value) { this.#asked[name.toLowerCase()] = value; }
    overrideMimeType() {}
    getResponseHeader(name) { return this.#head[name.toLowerCase()] ?? null; }
    send() {
      const range = /^bytes=(\d+)-(\d+)$/.exec(this.#asked.range ?? "");
      if (range) {
        const [from, to] = [Number(range[1]), Number(range[2])];
        reads.push(from);
        [this.status, this.responseText] = from === failAt ? [503, ""] : [206, body.slice(from, to + 1)];
      } else [this.status, this.responseText, this.#head] = [404, "Not replayed", { "x-webkeep-stream": named }];
      this.responseURL = this.url;
      this.readyState = 4;
      for (const type of ["readystatechange", "load", "loadend"]) this.dispatchEvent(new Event(type));
    }
  }
  class ProgressEvent extends Event {
    constructor(type, init = {}) {
      super(type);
      Object.assign(this, init);
    }
  }
  const asked = [];
  const g = vm.createContext({
    XMLHttpRequest: Request, Event, ProgressEvent, EventTarget, DOMException, Response, ReadableStream,
    TextDecoder, URL, Blob, setTimeout, clearTimeout, atob, performance,
    location: { href: "http://site.example/", origin: "http://site.example" },
  });
  // Node 20 has no Uint8Array.fromBase64, which the browsers the script runs in have.
  vm.runInContext("Uint8Array.fromBase64 ??= (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0))", g);
  g[streamBinding] = (payload) => asked.push(JSON.parse(payload));
  vm.runInContext(streamScript, g);
  const get = () => vm.runInContext(`(() => {
    const x = new XMLHttpRequest();
    x.open("GET", "http://site.example/big.bin", false);
    x.send();
    return { status: x.status, text: x.responseText, named: x.getResponseHeader("X-Webkeep-Stream") };
  })()`, g);
  return { get, asked, reads };
}

test("a body read whole by Range is told to the bar as read, once, after its last read", () => {
  const t = thread();
  const got = t.get();
  assert.equal(got.status, 200);
  assert.equal(got.named, null, "the stream's header is not the page's");
  assert.ok(got.text === body, `the body whole (${got.text.length} of ${body.length} bytes)`);
  assert.deepEqual(t.reads, readsTo(body.length - 1), `read in ranges of ${syncChunk} bytes`);
  assert.deepEqual(t.asked, [{ name: "s1", want: "read" }]);
});

test("a Range read that fails is told to the bar as not read, with what the archive answered", () => {
  const failAt = 8 * syncChunk;
  assert.ok(failAt < body.length);
  const t = thread({ failAt });
  const got = t.get();
  assert.equal(got.status, 404, "the \"not replayed\" page, as the browser gave it");
  assert.deepEqual(t.reads, readsTo(failAt), "no read after the one that failed");
  assert.deepEqual(t.asked, [{ name: "s1", want: "not read", why: `the archive answered 503 (0 bytes) for its bytes from ${failAt}` }]);
});
