// webkeep team archive: the Worker's entry module. It only moves requests into the
// Go program (app.wasm, built from wasm/worker) and its responses back; every
// decision is Go's, behind an http.Handler (shared/teamarchive).
//
// One Go instance serves every request and queue batch of the isolate: it is
// started by the first and kept (github.com/syumai/workers' own glue starts one per
// request, which in workerd costs each request about 7 ms more, and each of the
// requests served at once an instance of its own). An instance that exits (a panic
// outside a handler) fails what it was serving, and the next request starts another.
// wasm_exec.js is the Go toolchain's, unmodified: syumai/workers reads the context
// (env) from globalThis.context exactly once, in package initialisers that run
// synchronously inside go.run() before go.run first yields, so setting the global
// just around that call is safe. The Go side keeps only the bindings from it, which
// serve every request of the isolate alike.
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

// The isolate's Go instance: a promise of its binding, started by the first request.
let instance = null;

function kept(env, ctx) {
  if (!instance) {
    const started = start(env, ctx);
    instance = started;
    const forget = () => { if (instance === started) instance = null; };
    started.then(({ died }) => died.catch(forget), forget);
  }
  return instance;
}

async function fetch(request, env, ctx) {
  try {
    const { binding, died } = await kept(env, ctx);
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
  const { binding, died } = await kept(env, ctx);
  await Promise.race([binding.handleQueueMessageBatch(batch), died]);
}

export default { fetch, queue };
