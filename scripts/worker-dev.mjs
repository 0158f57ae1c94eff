// `make worker-dev`: the team archive Worker (dist/worker, built by `make build`) in
// workerd on http://127.0.0.1:8787, with a local R2 persisted under
// .wrangler/state/webkeep-archive and one token, taken from WEBKEEP_TOKEN.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { root, workerModules } from "./test/worker/harness.mjs";

const token = process.env.WEBKEEP_TOKEN;
if (!token) {
  console.error("worker-dev: set WEBKEEP_TOKEN, e.g. WEBKEEP_TOKEN=$(openssl rand -hex 16) make worker-dev");
  process.exit(2);
}
const state = join(root, ".wrangler", "state", "webkeep-archive");
mkdirSync(state, { recursive: true });
const port = Number(process.env.PORT || 8787);
const mf = new Miniflare({
  ...workerModules(),
  host: "127.0.0.1",
  port,
  r2Buckets: ["ARCHIVE"],
  r2Persist: join(state, "r2"),
  bindings: {
    WEBKEEP_TOKENS: `dev:${token}`,
    WEBKEEP_PUBLIC_READS: process.env.WEBKEEP_PUBLIC_READS || "0",
  },
});
const url = await mf.ready;
console.log(`webkeep team archive on ${url} (R2 in ${state}); Ctrl-C stops it`);
const stop = async () => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
