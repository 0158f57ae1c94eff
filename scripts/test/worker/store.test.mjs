// The merged index's store (wasm/worker/glue/store.mjs, the Durable Object class
// IndexStore) alone in workerd (miniflare 4, SQLite storage): the semantics of a
// mergedindex.Batch as shared/mergedindex's MemStore gives them, over both of its
// calls (POST of the JSON, and the RPC batch the Worker's Go uses). It tests the built
// copy in dist/worker (`make build` or scripts/build-worker.sh first).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { dist, root } from "./harness.mjs";

// The test Worker: POST /fetch/<name> forwards the request to the store <name>,
// POST /rpc/<name> calls its batch (a rejection answered 400 {"error"}).
const entry = `
import { IndexStore } from "./store.mjs";
export { IndexStore };
export default {
  async fetch(request, env) {
    const [, via, name] = new URL(request.url).pathname.split("/");
    const stub = env.INDEX.get(env.INDEX.idFromName(decodeURIComponent(name)));
    if (via === "fetch") return stub.fetch(request);
    try {
      return new Response(await stub.batch(await request.text()));
    } catch (err) {
      return new Response(JSON.stringify({ error: err.message }), { status: 400 });
    }
  },
};`;

function startStore(persistTo) {
  const built = join(dist, "store.mjs");
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`make build\` (or scripts/build-worker.sh) first`);
  if (readFileSync(built, "utf8") !== readFileSync(join(root, "wasm", "worker", "glue", "store.mjs"), "utf8")) {
    throw new Error(`${built} is older than wasm/worker/glue/store.mjs: run scripts/build-worker.sh`);
  }
  return new Miniflare({
    modules: [
      { type: "ESModule", path: join(dist, "store-test-entry.mjs"), contents: entry },
      { type: "ESModule", path: built },
    ],
    modulesRoot: dist,
    compatibilityDate: "2025-06-01",
    durableObjects: { INDEX: { className: "IndexStore", useSQLite: true } },
    ...(persistTo ? { durableObjectsPersist: persistTo } : {}),
  });
}

// post sends a raw body to a store; do sends a Batch and returns its Result.
async function post(mf, name, body, via = "fetch", method = "POST") {
  const res = await mf.dispatchFetch(`http://store.test/${via}/${encodeURIComponent(name)}`, { method, body });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

async function run(mf, name, batch, via = "fetch") {
  const r = await post(mf, name, JSON.stringify(batch), via);
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text);
}

const E = (...pairs) => pairs.map(([key, value]) => ({ key, value }));
const scan = (...pairs) => ({ entries: E(...pairs), count: pairs.length });
const none = { entries: [], count: 0 };

// Go's order of strings: by their UTF-8 bytes.
const goOrder = (a, b) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

for (const via of ["fetch", "rpc"]) {
  describe(`IndexStore over ${via}`, () => {
    let mf;
    before(async () => {
      mf = startStore();
      await mf.ready;
    });
    after(() => mf?.dispose());
    const s = (name) => `${via}-${name}`;

    test("an empty store, an empty batch", async () => {
      assert.deepEqual(await run(mf, s("empty"), {}), { applied: true, scans: [] });
      assert.deepEqual(await run(mf, s("empty"), { scans: [{ start: "" }, { start: "", count: true }] }), {
        applied: true,
        scans: [none, none],
      });
    });

    test("ops in order, then scans of start, end, limit, reverse and count", async () => {
      const r = await run(mf, s("scans"), {
        ops: [
          { key: "a", value: "1" },
          { key: "b", value: "2" },
          { key: "c", value: "3" },
          { key: "d", value: "4" },
          { key: "x", value: "gone" },
          { key: "x", delete: true },
          { key: "d", value: "four" },
          { key: "e" }, // value "" as Go omits it
          { key: "missing", delete: true },
        ],
        scans: [
          { start: "" },
          { start: "b" },
          { start: "b", end: "d" },
          { start: "a", limit: 2 },
          { start: "", limit: 2, reverse: true },
          { start: "b", end: "d", reverse: true },
          { start: "bb", end: "dd", limit: 1, reverse: true },
          { start: "", count: true },
          { start: "b", end: "e", count: true, limit: 1 },
          { start: "d", end: "b" },
          { start: "f" },
          { start: "", limit: -1 },
        ],
      });
      const all = [["a", "1"], ["b", "2"], ["c", "3"], ["d", "four"], ["e", ""]];
      assert.deepEqual(r, {
        applied: true,
        scans: [
          scan(...all),
          scan(["b", "2"], ["c", "3"], ["d", "four"], ["e", ""]),
          scan(["b", "2"], ["c", "3"]),
          scan(["a", "1"], ["b", "2"]),
          scan(["e", ""], ["d", "four"]),
          scan(["c", "3"], ["b", "2"]),
          scan(["d", "four"]),
          { entries: [], count: 5 },
          { entries: [], count: 3 },
          none,
          none,
          scan(...all),
        ],
      });
    });

    test("conditions: applied or not as a whole; the scans run either way", async () => {
      const name = s("conds");
      await run(mf, name, { ops: [{ key: "k1", value: "v1" }, { key: "empty", value: "" }] });

      // One failing condition of three: no op is applied, the scans see the old state.
      let r = await run(mf, name, {
        if: [{ key: "k1", value: "v1" }, { key: "new", absent: true }, { key: "k1", value: "other" }],
        ops: [{ key: "new", value: "n" }, { key: "k1", delete: true }],
        scans: [{ start: "" }],
      });
      assert.deepEqual(r, { applied: false, scans: [scan(["empty", ""], ["k1", "v1"])] });

      // Absent fails on a key that holds "", a value condition fails on a missing key.
      r = await run(mf, name, { if: [{ key: "empty", absent: true }], ops: [{ key: "new", value: "n" }], scans: [{ start: "new", count: true }] });
      assert.deepEqual(r, { applied: false, scans: [none] });
      r = await run(mf, name, { if: [{ key: "nothing" }], ops: [{ key: "new", value: "n" }], scans: [{ start: "new", count: true }] });
      assert.deepEqual(r, { applied: false, scans: [none] });

      // All hold (a value, "" as Go omits it, an absence): applied in order.
      r = await run(mf, name, {
        if: [{ key: "k1", value: "v1" }, { key: "empty" }, { key: "new", absent: true }],
        ops: [{ key: "new", value: "n" }, { key: "k1", delete: true }, { key: "k2", value: "v2" }],
        scans: [{ start: "" }],
      });
      assert.deepEqual(r, { applied: true, scans: [scan(["empty", ""], ["k2", "v2"], ["new", "n"])] });

      // The same batch again: its conditions no longer hold, nothing changes.
      r = await run(mf, name, { if: [{ key: "k1", value: "v1" }], ops: [{ key: "k3", value: "v3" }], scans: [{ start: "k" }] });
      assert.deepEqual(r, { applied: false, scans: [scan(["k2", "v2"], ["new", "n"])] });
    });

    test("keys order by their UTF-8 bytes, as Go's strings", async () => {
      const keys = ["", "A", "a", "a\u0000", "a\u0000b", "a\u0000a", "ab", "~", "\u007f", "\u0080", "\u00e9", "\u00e9t\u00e9", "\uE000", "\uFFFD", "\u{1F600}", "z"];
      const want = [...keys].sort(goOrder);
      // Concrete: NUL sorts first, then ASCII, é (C3 A9) before U+E000 (EE 80 80), U+FFFD
      // (EF BF BD) before U+1F600 (F0 9F 98 80) though JavaScript's UTF-16 order has them
      // the other way round.
      assert.deepEqual(want, ["", "A", "a", "a\u0000", "a\u0000a", "a\u0000b", "ab", "z", "~", "\u007f", "\u0080", "\u00e9", "\u00e9t\u00e9", "\uE000", "\uFFFD", "\u{1F600}"]);
      assert.ok("\u{1F600}" < "\uFFFD");

      const name = s("order");
      await run(mf, name, { ops: keys.map((k) => ({ key: k, value: `<${k}>` })) });
      let r = await run(mf, name, {
        scans: [
          { start: "" },
          { start: "", reverse: true },
          { start: "a\u0000", end: "a\u0000b" },
          { start: "a", end: "ab", count: true },
          { start: "\u00e9", end: "\u{1F600}" },
          { start: "\uFFFD" },
        ],
      });
      const pairs = (ks) => ks.map((k) => [k, `<${k}>`]);
      assert.deepEqual(r.scans, [
        scan(...pairs(want)),
        scan(...pairs([...want].reverse())),
        scan(...pairs(["a\u0000", "a\u0000a"])),
        { entries: [], count: 4 },
        scan(...pairs(["\u00e9", "\u00e9t\u00e9", "\uE000", "\uFFFD"])),
        scan(...pairs(["\uFFFD", "\u{1F600}"])),
      ]);

      // A key and its prefix before a NUL are two keys; values keep their NULs.
      r = await run(mf, name, {
        if: [{ key: "a\u0000", value: "<a\u0000>" }, { key: "a\u0000c", absent: true }],
        ops: [{ key: "a", value: "v\u0000w" }, { key: "a\u0000b", delete: true }],
        scans: [{ start: "a", end: "ab" }],
      });
      assert.deepEqual(r, { applied: true, scans: [scan(["a", "v\u0000w"], ["a\u0000", "<a\u0000>"], ["a\u0000a", "<a\u0000a>"])] });
    });

    test("stores are apart and keep their entries between calls", async () => {
      await run(mf, s("one"), { ops: [{ key: "k", value: "one" }] });
      await run(mf, s("two"), { ops: [{ key: "k", value: "two" }] });
      assert.deepEqual(await run(mf, s("one"), { scans: [{ start: "" }] }), { applied: true, scans: [scan(["k", "one"])] });
      assert.deepEqual(await run(mf, s("two"), { scans: [{ start: "" }] }), { applied: true, scans: [scan(["k", "two"])] });
    });

    test("a body that is no Batch is refused and changes nothing", async () => {
      const name = s("bad");
      await run(mf, name, { ops: [{ key: "k", value: "v" }] });
      for (const body of [
        "not json",
        "",
        "[]",
        "null",
        '{"ops":{"key":"x"}}',
        '{"ops":[{"value":"x"}]}',
        '{"ops":[{"key":"x","value":1}]}',
        '{"ops":[{"key":"x","value":"y"},{"key":"y","delete":"yes"}]}',
        '{"if":[{"key":"k","absent":1}],"ops":[{"key":"x"}]}',
        '{"ops":[{"key":"x"}],"scans":[{"start":"a","limit":"2"}]}',
        '{"ops":[{"key":"x"}],"scans":[{"start":"a","limit":1.5}]}',
        '{"ops":[{"key":"x"}],"scans":[{"start":3}]}',
      ]) {
        const r = await post(mf, name, body, via);
        assert.equal(r.status, 400, `${body}: ${r.text}`);
        assert.equal(typeof JSON.parse(r.text).error, "string", body);
      }
      if (via === "fetch") {
        const r = await post(mf, name, undefined, via, "GET");
        assert.equal(r.status, 405, r.text);
        assert.ok(JSON.parse(r.text).error);
        const ok = await post(mf, name, JSON.stringify({ scans: [{ start: "" }] }), via);
        assert.equal(ok.type, "application/json");
      }
      assert.deepEqual(await run(mf, name, { scans: [{ start: "" }] }), { applied: true, scans: [scan(["k", "v"])] });
    });

    // Random batches against a model of MemStore (shared/mergedindex/store.go).
    test("random batches answer as MemStore does", async () => {
      const alphabet = ["a", "b", "\u0000", "\u00e9", "~", "\uFFFD", "\u{1F600}"];
      let seed = via === "rpc" ? 7 : 3;
      const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
      const key = () => Array.from({ length: rand(3) }, () => alphabet[rand(alphabet.length)]).join("");
      const model = new Map();
      const name = s("random");
      for (let i = 0; i < 120; i++) {
        const b = {};
        const conds = Array.from({ length: rand(3) }, () => {
          const k = key();
          if (rand(2)) return { key: k, absent: true };
          return model.has(k) && rand(3) ? { key: k, value: model.get(k) } : { key: k, value: String(rand(3)) };
        });
        const ops = Array.from({ length: rand(5) }, () => (rand(3) ? { key: key(), value: String(rand(3)) } : { key: key(), delete: true }));
        const scans = Array.from({ length: rand(3) }, () => ({ start: key(), end: rand(2) ? key() : undefined, limit: rand(3), reverse: !!rand(2), count: !rand(4) }));
        if (conds.length) b.if = conds;
        if (ops.length) b.ops = ops;
        if (scans.length) b.scans = scans;

        const applied = conds.every((c) => (c.absent ? !model.has(c.key) : model.get(c.key) === c.value));
        if (applied) for (const o of ops) o.delete ? model.delete(o.key) : model.set(o.key, o.value);
        const sorted = [...model.keys()].sort(goOrder);
        const want = scans.map((sc) => {
          let ks = sorted.filter((k) => goOrder(k, sc.start) >= 0 && (!sc.end || goOrder(k, sc.end) < 0));
          if (sc.count) return { entries: [], count: ks.length };
          if (sc.reverse) ks.reverse();
          if (sc.limit > 0) ks = ks.slice(0, sc.limit);
          return scan(...ks.map((k) => [k, model.get(k)]));
        });
        assert.deepEqual(await run(mf, name, b), { applied, scans: want }, JSON.stringify(b));
      }
    });
  });
}

test("a store keeps its entries when the Worker starts again", async () => {
  const dir = mkdtempSync(join(tmpdir(), "webkeep-store-"));
  try {
    let mf = startStore(dir);
    await run(mf, "kept", { ops: [{ key: "a", value: "1" }, { key: "b", value: "2" }] });
    await mf.dispose();
    mf = startStore(dir);
    try {
      assert.deepEqual(await run(mf, "kept", { if: [{ key: "a", value: "1" }], ops: [{ key: "c", value: "3" }], scans: [{ start: "" }] }), {
        applied: true,
        scans: [scan(["a", "1"], ["b", "2"], ["c", "3"])],
      });
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
