// A copy of the Chromium build that notes where its service worker's time goes, for
// scripts/probe/loadphases.mjs: each entry into the Go core (wasm_exec.js resume: what
// it was for, an event's method, a timer or a promise's answer, and how long), each
// debugger event's handling by the shim, and each command the core sends. The notes
// are kept in globalThis.__goTime and __jsTime ([at, ms, what]) of the worker.
//
// With --names, its core is built again from this tree with the functions' names kept
// (without -ldflags='-s -w'), for loadphases.mjs --profile.
//
//   node scripts/probe/timedbuild.mjs [--names] [SRC] DEST    (SRC: dist/extension)
//   WEBKEEP_EXTENSION=DEST node scripts/probe/loadphases.mjs
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

const args = process.argv.slice(2);
const names = args[0] === "--names" && args.shift();
const [src, dest] = args.length > 1 ? args : ["dist/extension", args[0]];
if (!dest) throw new Error("usage: node scripts/probe/timedbuild.mjs [--names] [SRC] DEST");
rmSync(dest, { recursive: true, force: true });
cpSync(src, dest, { recursive: true });
if (names) {
  const wasm = path.join(dest, "core.wasm");
  execFileSync("go", ["build", "-trimpath", "-o", wasm, "./wasm/core"], { env: { ...process.env, GOOS: "js", GOARCH: "wasm" }, stdio: "inherit" });
  writeFileSync(path.join(dest, "core.wasm.gz"), gzipSync(readFileSync(wasm)));
  rmSync(wasm);
  writeFileSync(path.join(dest, "core-id.js"), `self.webkeepCoreID = "names-${Date.now()}";\n`);
}
const patch = (file, edits) => {
  const p = path.join(dest, file);
  let s = readFileSync(p, "utf8");
  for (const [from, to] of edits) {
    if (!s.includes(from)) throw new Error(`${file}: no ${JSON.stringify(from.slice(0, 60))}: the probe follows an older build`);
    s = s.replace(from, to);
  }
  writeFileSync(p, s);
};
const note = (list, what) => `(globalThis.${list} ||= []).push([performance.timeOrigin + t0, performance.now() - t0, ${what}]);`;
patch("wasm_exec.js", [
  ["\t\t\tthis._inst.exports.resume();", `\t\t\tconst t0 = performance.now();\n\t\t\tthis._inst.exports.resume();\n\t\t\t${note("__goTime", 'globalThis.__goWhat || ""')}`],
  ["\t\t\t\t\t\t\t() => {\n\t\t\t\t\t\t\t\tthis._resume();", "\t\t\t\t\t\t\t() => {\n\t\t\t\t\t\t\t\tglobalThis.__goWhat = \"timer\";\n\t\t\t\t\t\t\t\tthis._resume();\n\t\t\t\t\t\t\t\tglobalThis.__goWhat = \"\";"],
  ["\t\t\t\tgo._pendingEvent = event;\n\t\t\t\tgo._resume();", "\t\t\t\tgo._pendingEvent = event;\n\t\t\t\tconst outer = globalThis.__goWhat;\n\t\t\t\tif (!outer) globalThis.__goWhat = \"promise or callback\";\n\t\t\t\tgo._resume();\n\t\t\t\tglobalThis.__goWhat = outer;"],
]);
patch("sw.js", [
  ["chrome.debugger.onEvent.addListener((source, method, params) => {\n", `chrome.debugger.onEvent.addListener((source, method, params) => {\n  const t0 = performance.now();\n  try { return onEvent(source, method, params); } finally { ${note("__jsTime", "method")} }\n});\nfunction onEvent(source, method, params) {\n`],
  ["  const event = (c) => c.event(", "  const event = (c) => { globalThis.__goWhat = method; try { return c.event("],
  [", bytes);\n  // The request's URL", ', bytes); } finally { globalThis.__goWhat = ""; } };\n  // The request\'s URL'],
  ["  else pacer.add(event, bytes ? bytes.length : 0);\n});", "  else pacer.add(event, bytes ? bytes.length : 0);\n}"],
  ["  send: (tabId, sessionId, method, params) => {\n", `  send: (tabId, sessionId, method, params) => {\n    { const t0 = performance.now(); ${note("__jsTime", '"send " + method')} }\n`],
]);
console.log(`${dest}: the build of ${src}, timed`);
