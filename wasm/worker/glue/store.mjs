// webkeep team archive: the merged index's store, a Durable Object with SQLite
// storage (IndexStore, binding INDEX). A generic sorted key-value store: its one
// call, batch, runs a mergedindex.Batch (JSON, shared/mergedindex/store.go) in one
// transaction: the conditions, then the operations if every condition holds, then the
// scans. It makes no decision of the index's own; the Worker's Go does.
//
// Keys are stored as BLOBs of their UTF-8 bytes, so that SQLite orders them by
// memcmp, as Go orders strings.
import { DurableObject } from "cloudflare:workers";

const utf8 = new TextEncoder();
const text = new TextDecoder();
const key = (s) => utf8.encode(s);

export class IndexStore extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID");
  }

  // batch answers a JSON mergedindex.Batch with a JSON mergedindex.Result.
  batch(body) {
    const b = JSON.parse(body);
    const result = this.ctx.storage.transactionSync(() => {
      const applied = (b.if ?? []).every((c) => {
        const row = this.sql.exec("SELECT v FROM kv WHERE k = ?", key(c.key)).toArray()[0];
        return c.absent ? row === undefined : row !== undefined && row.v === (c.value ?? "");
      });
      if (applied) {
        for (const op of b.ops ?? []) {
          if (op.delete) this.sql.exec("DELETE FROM kv WHERE k = ?", key(op.key));
          else this.sql.exec("INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", key(op.key), op.value ?? "");
        }
      }
      const scans = (b.scans ?? []).map((s) => this.scan(s));
      return { applied, scans };
    });
    return JSON.stringify(result);
  }

  scan(s) {
    const args = [key(s.start ?? "")];
    let where = "k >= ?";
    if (s.end) {
      where += " AND k < ?";
      args.push(key(s.end));
    }
    if (s.count) {
      const n = this.sql.exec(`SELECT count(*) AS n FROM kv WHERE ${where}`, ...args).one().n;
      return { entries: [], count: n };
    }
    let q = `SELECT k, v FROM kv WHERE ${where} ORDER BY k ${s.reverse ? "DESC" : "ASC"}`;
    if (s.limit > 0) {
      q += " LIMIT ?";
      args.push(s.limit);
    }
    const entries = this.sql.exec(q, ...args).toArray().map((r) => ({ key: text.decode(r.k), value: r.v }));
    return { entries, count: entries.length };
  }
}
