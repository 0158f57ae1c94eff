#!/bin/sh
# Benchmarks of the service worker's core (wasm/core): the size of core.wasm, and its
# cold start under node (median of 7): compiling the module, and from instantiating it
# to its first /api/status answer, with a stub host in place of the shim's (an empty
# store, no tabs), each in a node process of its own. The cold start in the browser
# is in the Chromium section.
set -e
cd "$(dirname "$0")/../../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$tmp/core.wasm" ./wasm/core
raw=$(wc -c < "$tmp/core.wasm")
gz=$(gzip -9 -c "$tmp/core.wasm" | wc -c)

# One node process per sample: a core started before would still run beside the next.
for i in 1 2 3 4 5 6 7; do
node --input-type=module -e '
import { readFileSync } from "node:fs";
const [execJS, wasmFile] = process.argv.slice(1);
(0, eval)(readFileSync(execJS, "utf8"));
const bytes = readFileSync(wasmFile);
const store = new Map();
globalThis.webkeepHost = {
  send: async () => "{}", attach: async () => {}, detach: async () => {}, badge: () => {},
  tabs: async () => JSON.stringify({ tabs: [], targets: [] }),
  body: { route: () => {}, read: async () => false, end: async () => ({ size: 0, cut: false }) },
  store: {
    putAll: async (keys, values) => keys.forEach((k, j) => store.set(k, values[j].slice())),
    get: async (key) => store.get(key) ?? null,
    keys: async (prefix) => [...store.keys()].filter((k) => k.startsWith(prefix)),
    delete: async (prefix) => [...store.keys()].filter((k) => k.startsWith(prefix)).forEach((k) => store.delete(k)),
  },
};
const t0 = performance.now();
const module = await WebAssembly.compile(bytes);
const t1 = performance.now();
const go = new Go();
const started = new Promise((resolve) => { globalThis.webkeepCoreReady = resolve; });
go.run(await WebAssembly.instantiate(module, go.importObject));
await started;
const answer = await globalThis.webkeepCore.handle(new Request("chrome-extension://webkeep/api/status"));
if (answer.status !== 200) throw new Error("/api/status answered " + answer.status);
await answer.text();
console.log((t1 - t0).toFixed(1), (performance.now() - t1).toFixed(1));
process.exit(0);
' "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$tmp/core.wasm"
done > "$tmp/times"
median() { sort -n | sed -n 4p; }
set -- "$(cut -d' ' -f1 < "$tmp/times" | median)" "$(cut -d' ' -f2 < "$tmp/times" | median)"

echo "## Service-worker core (wasm/core)"
echo
echo "\`GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' ./wasm/core\`: core.wasm is $raw bytes, $gz gzipped. Its own HTTP requests go through the browser's fetch (wasm/jsfetch) and its API is served with shared/httpmsg, so it links none of net/http, nor the TLS, X.509 and HTTP/2 code net/http's initialisers keep."
echo
echo "Cold start under node $(node --version) (median of 7, a stub host with an empty store): compiling the module $1 ms; instantiating it to its first /api/status answer $2 ms."
