// Shared set-up of the Worker tests: the built Worker (dist/worker, from `make build`
// or scripts/build-worker.sh) in workerd through miniflare, with an in-memory R2.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const dist = join(root, "dist", "worker");

export const ALICE = "alice-token-0123456789";
export const BOB = "bob-token-9876543210";

// workerModules lists the modules of the built Worker, as wrangler uploads them.
export function workerModules(dir = dist) {
  for (const f of ["worker.mjs", "store.mjs", "memory.mjs", "wasm_exec.js", "app.wasm"]) {
    if (!existsSync(join(dir, f))) {
      throw new Error(`${join(dir, f)} is missing: run \`make build\` (or scripts/build-worker.sh) first`);
    }
  }
  return {
    modules: [
      { type: "ESModule", path: join(dir, "worker.mjs") },
      { type: "ESModule", path: join(dir, "store.mjs") },
      { type: "ESModule", path: join(dir, "memory.mjs") },
      { type: "ESModule", path: join(dir, "wasm_exec.js") },
      { type: "CompiledWasm", path: join(dir, "app.wasm") },
    ],
    modulesRoot: dir,
    compatibilityDate: "2025-06-01",
  };
}

// workerOptions are miniflare's options for the Worker with tokens for alice and bob
// (unless bindings give WEBKEEP_TOKENS) and the given bindings, its R2 bucket, the
// merged index's Durable Objects (SQLite storage) and its compaction queue, as
// wrangler.toml binds them. With persistTo, R2 and the Durable Objects are kept in that
// folder, so a Worker started again finds them.
export function workerOptions(bindings = {}, { persistTo } = {}) {
  return {
    ...workerModules(),
    r2Buckets: ["ARCHIVE"],
    durableObjects: { INDEX: { className: "IndexStore", useSQLite: true } },
    queueProducers: { COMPACT: { queueName: "webkeep-compact" } },
    queueConsumers: { "webkeep-compact": { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 5 } },
    ...(persistTo ? { r2Persist: join(persistTo, "r2"), durableObjectsPersist: join(persistTo, "do") } : {}),
    bindings: { WEBKEEP_TOKENS: `alice:${ALICE},bob:${BOB}`, ...bindings },
  };
}

// startWorker runs the Worker with workerOptions.
export function startWorker(bindings = {}, opts = {}) {
  return new Miniflare(workerOptions(bindings, opts));
}

export function fixture(name) {
  return readFileSync(join(root, "shared", "teamarchive", "testdata", name));
}

// call sends one request; token null sends no Authorization.
export async function call(mf, method, path, { token = ALICE, body, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  const init = { method, headers: h };
  if (body !== undefined) {
    init.body = body;
    if (body instanceof ReadableStream) init.duplex = "half";
  }
  const res = await mf.dispatchFetch(`http://archive.test${path}`, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString("utf8"), json: () => JSON.parse(bytes.toString("utf8")) };
}

// allKeys lists every key of the bucket, to prove nothing was left behind.
export async function allKeys(mf) {
  const bucket = await mf.getR2Bucket("ARCHIVE");
  const keys = [];
  let cursor;
  do {
    const page = await bucket.list({ cursor, limit: 1000 });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

// bigWARC writes an uncompressed WARC/1.0 response record whose payload is n bytes,
// large enough to be streamed to R2 rather than buffered.
export function bigWARC(url, n, date = "2024-09-01T00:00:00Z") {
  const payload = Buffer.alloc(n, "x");
  const http = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${n}\r\n\r\n`), payload]);
  const head = Buffer.from(
    `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: ${url}\r\nWARC-Date: ${date}\r\n` +
      `WARC-Record-ID: <urn:uuid:5e4c2f8a-0000-4000-8000-000000000001>\r\nContent-Type: application/http; msgtype=response\r\n` +
      `Content-Length: ${http.length}\r\n\r\n`,
  );
  return Buffer.concat([head, http, Buffer.from("\r\n\r\n")]);
}
