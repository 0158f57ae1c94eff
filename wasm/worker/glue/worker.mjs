// webkeep team archive: the Worker's entry module. It only moves requests into the
// Go program (app.wasm, built from wasm/worker) and its responses back; every
// decision is Go's, behind an http.Handler (shared/teamarchive).
//
// As github.com/syumai/workers' own glue does, each request gets a fresh Go instance
// (its Serve blocks until the response is done, then the program exits); the compiled
// module is shared. wasm_exec.js is the Go toolchain's, unmodified: syumai/workers
// reads its per-request context from globalThis.context, and it reads it exactly once,
// in package initialisers that run synchronously inside go.run() before go.run first
// yields. Setting the global just around that call is therefore safe even though
// requests run concurrently in one isolate.
//
// Each instance's linear memory is one an earlier instance has finished with, cleared,
// where there is one (app.wasm imports its memory: scripts/tools/importmemory). A new
// memory for every request cost more than the rest of a lookup: the program's 4.9 MB
// of data copied into pages never touched before, and a dead memory for the isolate's
// collector, whose pauses grew with the requests served (docs/limits.md).
import "./wasm_exec.js";
import mod from "./app.wasm";
import { memoryPages } from "./memory.mjs";

// The merged index's stores (Durable Objects): a class the runtime instantiates.
export { IndexStore } from "./store.mjs";

// The memories of instances that have exited, to be used again: at most keptMemories,
// each at most keptBytes (one an upload grew is left to the collector), so that the
// isolate keeps little it is not using.
const keptMemories = 2;
const keptBytes = 16 << 20;
const memories = [];

// memory gives an instance its memory: a kept one, cleared (Go's runtime takes the
// memory past its data to be zero, as a new one is), or a new one.
function memory() {
  const kept = memories.pop();
  if (!kept) return new WebAssembly.Memory({ initial: memoryPages });
  new Uint8Array(kept.buffer).fill(0);
  return kept;
}

// keep takes back the memory of an instance that has exited. Nothing writes to it
// after that: wasm_exec.js refuses to call into an instance that has exited.
function keep(mem) {
  if (memories.length < keptMemories && mem.buffer.byteLength <= keptBytes) memories.push(mem);
}

async function start(env, ctx) {
  const go = new Go();
  const mem = memory();
  const binding = {};
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: { ready: () => ready() },
    webkeep: { memory: mem },
  });
  globalThis.context = { env, ctx, binding };
  let exited;
  try {
    exited = go.run(instance);
    exited.then(() => keep(mem));
  } finally {
    delete globalThis.context;
  }
  // A Go program that exits (a panic) never answers: turn that into an error.
  const died = exited.then(() => {
    throw new Error(`webkeep worker: Go exited with code ${go.exitCode ?? "?"}`);
  });
  await Promise.race([isReady, died]);
  return { binding, died };
}

async function fetch(request, env, ctx) {
  try {
    const { binding, died } = await start(env, ctx);
    const response = await Promise.race([binding.handleRequest(request), died]);
    if (response.body === null) {
      // A bodiless answer (204, 304): Go learns a request is done from its body's
      // end, which this one has not (wasm/worker/main.go).
      binding.finish();
      return response;
    }
    if (request.method === "HEAD" && response.body) {
      // The Go side announces Content-Length and writes nothing; a body stream of
      // that announced length would fail short.
      response.body.cancel().catch(() => {});
      return new Response(null, response);
    }
    return response;
  } catch (err) {
    console.error(err);
    return new Response(JSON.stringify({ error: "internal error" }) + "\n", {
      status: 500,
      headers: { "Content-Type": "application/json" },
    });
  }
}

// queue consumes the compaction queue: Go's consumer (queues.ConsumeNonBlock in
// main.go) compacts each shard named.
async function queue(batch, env, ctx) {
  const { binding, died } = await start(env, ctx);
  await Promise.race([binding.handleQueueMessageBatch(batch), died]);
}

export default { fetch, queue };
