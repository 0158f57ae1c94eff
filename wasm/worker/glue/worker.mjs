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
import "./wasm_exec.js";
import mod from "./app.wasm";

// The merged index's stores (Durable Objects): a class the runtime instantiates.
export { IndexStore } from "./store.mjs";

async function start(env, ctx) {
  const go = new Go();
  const binding = {};
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: { ready: () => ready() },
  });
  globalThis.context = { env, ctx, binding };
  let exited;
  try {
    exited = go.run(instance);
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
