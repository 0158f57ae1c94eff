// webkeep team archive: the merged index's store, a Durable Object with SQLite
// storage (IndexStore, binding INDEX). A generic sorted key-value store: a call runs
// one mergedindex.Batch (shared/mergedindex/store.go, whose MemStore is the reference)
// in one transaction: the conditions, then the operations if every condition holds,
// then the scans, either way. It makes no decision of the index's own; the Worker's Go
// does.
//
// Its protocol: POST the Batch as JSON (as Go's encoding/json writes it), answered with
// the mergedindex.Result as JSON; a body that is no Batch answers 400 {"error"}. The
// Worker's Go calls the same by RPC, batch(json) returning the Result's JSON, which
// spares a Request and a Response a call.
//
// Keys are TEXT: SQLite's default BINARY collation compares the UTF-8 bytes with memcmp
// (NULs included), which is Go's order of strings. scripts/test/worker/store.test.mjs checks it.
import { DurableObject } from "cloudflare:workers";

class BadBatch extends Error {}

const isList = (v) => v === undefined || v === null || Array.isArray(v);
const isString = (v, optional) => typeof v === "string" || (optional && v === undefined);
const isFlag = (v) => v === undefined || typeof v === "boolean";
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// parse reads a Batch, or throws BadBatch.
function parse(body) {
  let b;
  try {
    b = JSON.parse(body);
  } catch (err) {
    throw new BadBatch(`not JSON: ${err.message}`);
  }
  const ok =
    isObject(b) && isList(b.if) && isList(b.ops) && isList(b.scans) &&
    (b.if ?? []).every((c) => isObject(c) && isString(c.key) && isString(c.value, true) && isFlag(c.absent)) &&
    (b.ops ?? []).every((o) => isObject(o) && isString(o.key) && isString(o.value, true) && isFlag(o.delete)) &&
    (b.scans ?? []).every((s) => isObject(s) && isString(s.start, true) && isString(s.end, true) &&
      (s.limit === undefined || Number.isSafeInteger(s.limit)) && isFlag(s.reverse) && isFlag(s.count));
  if (!ok) throw new BadBatch("not a mergedindex.Batch");
  return b;
}

const json = (status, v) =>
  new Response(JSON.stringify(v), { status, headers: { "Content-Type": "application/json" } });

export class IndexStore extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID");
  }

  async fetch(request) {
    if (request.method !== "POST") return json(405, { error: "POST a mergedindex.Batch" });
    let b;
    try {
      b = parse(await request.text());
    } catch (err) {
      return json(400, { error: err.message });
    }
    try {
      return json(200, this.run(b));
    } catch (err) {
      console.error(err);
      return json(500, { error: String(err?.message ?? err) });
    }
  }

  // batch is the RPC: a Batch's JSON in, its Result's JSON out.
  batch(body) {
    return JSON.stringify(this.run(parse(body)));
  }

  run(b) {
    return this.ctx.storage.transactionSync(() => {
      const applied = (b.if ?? []).every((c) => {
        const row = this.sql.exec("SELECT v FROM kv WHERE k = ?", c.key).toArray()[0];
        return c.absent ? row === undefined : row !== undefined && row.v === (c.value ?? "");
      });
      if (applied) {
        for (const op of b.ops ?? []) {
          if (op.delete) this.sql.exec("DELETE FROM kv WHERE k = ?", op.key);
          else this.sql.exec("INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", op.key, op.value ?? "");
        }
      }
      return { applied, scans: (b.scans ?? []).map((s) => this.scan(s)) };
    });
  }

  scan(s) {
    const args = [s.start ?? ""];
    let where = "k >= ?";
    if (s.end) {
      where += " AND k < ?";
      args.push(s.end);
    }
    if (s.count) {
      return { entries: [], count: this.sql.exec(`SELECT count(*) AS n FROM kv WHERE ${where}`, ...args).one().n };
    }
    let q = `SELECT k, v FROM kv WHERE ${where} ORDER BY k ${s.reverse ? "DESC" : "ASC"}`;
    if (s.limit > 0) {
      q += " LIMIT ?";
      args.push(s.limit);
    }
    const entries = this.sql.exec(q, ...args).toArray().map((r) => ({ key: r.k, value: r.v }));
    return { entries, count: entries.length };
  }
}
