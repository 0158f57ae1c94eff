package replay

import (
	"encoding/json"
	"mime"
	"slices"
	"strings"

	"github.com/webkeep/webkeep/shared/httpmsg"
)

// A script a page runs (<script src>, a worker's importScripts()) whose body is too
// large for one answer gets, in its place, a small script of webkeep's: the loader
// (loaderScript). The browser runs it where it would have run the page's script, in
// the same order (a parser-blocking script still blocks), and the loader reads the
// script's bytes from the replay with synchronous XMLHttpRequests, LoaderChunk bytes
// at a time by Range (each answered as any Range request, ranges.go), decodes them as
// the browser decodes a script (its byte order mark, the charset of its Content-Type,
// the document's) and runs the text before it returns:
//   - in a document, as an inline <script> of the same nonce, which the browser runs
//     as it runs a classic script (its declarations global, let and const too), with
//     document.currentScript the page's own <script> while it runs; where the page's
//     Content-Security-Policy refuses inline scripts, by an indirect eval() (then a
//     top-level let or const stays the script's own);
//   - in a dedicated worker, by importScripts() of a Blob of its bytes.
// What it cannot run (a module script, a service worker's, one whose policy refuses
// both, bytes the archive does not give) it says to the replay bar, which lists the
// script as not replayed with why, and throws an error that says so.
//
// A script of another origin is read by Range too: its reads carry LoaderAccept,
// which the replay answers with Access-Control-Allow-Origin for the page's origin
// (loaderRead), as the browser lets a page run such a script but not read it.

// LoaderChunk is the most bytes the loader asks for in one Range request. A 100 MiB
// script was read in 14.5-16.9 s at 512 KiB, 19.2-19.6 s at 1 MiB, 19.9-20.4 s at
// 2 MiB and 16.2-19.4 s at 256 KiB (2026-12-07, node scripts/probe/replay-script.mjs):
// each answer is one DevTools message, whose copies cost the browser most over about
// 1 MB (likeliest, mapped afresh, each page a fault), and each request a trip through
// the bar.
const LoaderChunk = 512 << 10

// LoaderAccept is the Accept header of the loader's Range requests (a value the
// browser lets a page send to another origin without asking it first).
const LoaderAccept = "application/x-webkeep-loader"

// loads reports whether r, the request of a script the page runs, gets the loader for
// resp, a body too large to carry: a GET with no body of a capture found exactly, of
// a known length, of a type the browser runs (not an image, audio, video or a table,
// and a JavaScript type when the capture says nosniff).
func loads(r *Request, a Answer, resp *Response) bool {
	if !r.ScriptElement || r.Method != "GET" || len(r.Body) != 0 || a.Approximate || resp.Size <= 0 || resp.Status != httpmsg.StatusOK {
		return false
	}
	t := resp.mediaType()
	if strings.EqualFold(strings.TrimSpace(resp.Header.Get("X-Content-Type-Options")), "nosniff") {
		return javaScriptType(t)
	}
	return !strings.HasPrefix(t, "image/") && !strings.HasPrefix(t, "audio/") && !strings.HasPrefix(t, "video/") && t != "text/csv"
}

// javaScriptType reports whether t is a JavaScript MIME type essence (the MIME
// Sniffing standard's list).
func javaScriptType(t string) bool {
	switch t {
	case "text/javascript", "text/ecmascript", "text/jscript", "text/livescript", "text/x-ecmascript", "text/x-javascript",
		"text/javascript1.0", "text/javascript1.1", "text/javascript1.2", "text/javascript1.3", "text/javascript1.4", "text/javascript1.5":
		return true
	}
	return scriptTypes[t]
}

// charset is the charset parameter of the capture's Content-Type ("" for none).
func (resp *Response) charset() string {
	_, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return params["charset"]
}

// loaderHeaders is the loader's header: a script, not to be cached, with the
// capture's CORS answer (a script asked for with crossorigin checks it).
func loaderHeaders(h httpmsg.Header) []HeaderField {
	fs := []HeaderField{{"Cache-Control", "no-store"}, {"Content-Type", "text/javascript; charset=utf-8"}}
	for _, name := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials"} {
		if v := h.Get(name); v != "" {
			fs = append(fs, HeaderField{name, v})
		}
	}
	return fs
}

// loaderRead lets the loader read a script of another origin: the header fs of the
// answer to r, a Range request, with Access-Control-Allow-Origin for r's Origin when
// r carries LoaderAccept and an Origin (fs as it is otherwise).
func loaderRead(r *Request, fs []HeaderField) []HeaderField {
	origin := r.Header.Get("Origin")
	if r.Header.Get("Accept") != LoaderAccept || origin == "" {
		return fs
	}
	fs = slices.DeleteFunc(slices.Clone(fs), func(f HeaderField) bool {
		return strings.EqualFold(f.Name, "Access-Control-Allow-Credentials")
	})
	return withField(fs, "Access-Control-Allow-Origin", origin)
}

// loaderScript is the loader for the script at url of the capture of timestamp,
// size bytes long, read chunk bytes at a time, its Content-Type's charset
// ("" for none).
func loaderScript(url, timestamp string, size, chunk int64, charset string) string {
	args, _ := json.Marshal([]any{url, timestamp, size, chunk, charset, LoaderAccept})
	return "(" + loaderSource + ")(..." + string(args) + ");\n"
}

// loaderSource is the loader's function.
const loaderSource = `(url, timestamp, size, chunk, charset, accept) => {
  "use strict";
  const inDocument = typeof document !== "undefined";
  const script = inDocument ? document.currentScript : null;
  const notRun = (why) => {
    globalThis[Symbol.for("webkeep.replayStream.notRun")]?.(url, timestamp, why);
    throw new Error("webkeep: the script " + url + " was not run: " + why);
  };
  if (inDocument && !script) notRun("a module script too large for one answer is not run (webkeep's loader runs classic scripts only)");
  if (typeof XMLHttpRequest !== "function") notRun("a service worker's script too large for one answer is not run (a service worker has no synchronous request to read it with)");
  const bytes = new Uint8Array(size);
  for (let at = 0; at < size; at += chunk) {
    const last = Math.min(size, at + chunk) - 1;
    const x = new XMLHttpRequest();
    x.open("GET", url, false);
    x.overrideMimeType("text/plain; charset=x-user-defined"); // each byte one character
    x.setRequestHeader("Range", "bytes=" + at + "-" + last);
    x.setRequestHeader("Accept", accept);
    try {
      x.send();
    } catch (e) {
      notRun("its bytes " + at + "-" + last + " could not be read from the archive: " + e.message);
    }
    const t = x.responseText;
    if (x.status !== 206 || t.length !== last - at + 1) notRun("the archive answered " + x.status + " with " + t.length + " bytes for its bytes " + at + "-" + last);
    for (let i = 0; i < t.length; i++) bytes[at + i] = t.charCodeAt(i); // the low byte: U+F780-U+F7FF for 0x80-0xFF
  }
  if (!inDocument) {
    importScripts(URL.createObjectURL(new Blob([bytes], { type: "text/javascript" })));
    return;
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? "utf-8" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : "";
  let decoder;
  for (const label of [bom, charset, document.characterSet, "utf-8"]) {
    try {
      if (label) decoder = new TextDecoder(label);
    } catch {} // a label the browser does not know is passed over
    if (decoder) break;
  }
  const source = decoder.decode(bytes) + "\n//# sourceURL=" + url;
  const insert = (text) => {
    const s = document.createElement("script");
    if (script.nonce) s.nonce = script.nonce;
    s.text = text;
    (document.head || document.documentElement).append(s);
    s.remove();
  };
  // Whether the page's policy lets an inline script of that nonce run: one that
  // says so is run first.
  const ran = Symbol.for("webkeep.replayLoader.ran");
  globalThis[ran] = false;
  try {
    insert("globalThis[Symbol.for('webkeep.replayLoader.ran')] = true");
  } catch {}
  const inline = globalThis[ran] === true;
  delete globalThis[ran];
  if (inline) {
    Object.defineProperty(document, "currentScript", { configurable: true, get: () => script });
    try {
      insert(source);
    } finally {
      delete document.currentScript;
    }
    return;
  }
  try {
    (0, eval)(source);
  } catch (e) {
    if (e instanceof EvalError) notRun("the page's Content-Security-Policy lets neither an inline script nor eval() run it");
    throw e;
  }
}`
