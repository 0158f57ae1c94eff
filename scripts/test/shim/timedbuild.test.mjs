// scripts/probe/timedbuild.mjs patches the shim and wasm_exec.js of a build by their
// text: it must still find every line it patches in today's build (dist/extension,
// made by make build), and leave scripts that parse.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

const root = new URL("../../../", import.meta.url).pathname;
const build = path.join(root, "dist/extension");

test("the timed build applies to today's build", { skip: !existsSync(build) && "no dist/extension: run make build" }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "webkeep-timed-"));
  try {
    const dest = path.join(dir, "ext");
    execFileSync("node", [path.join(root, "scripts/probe/timedbuild.mjs"), build, dest], { cwd: root, stdio: "pipe" });
    for (const f of ["sw.js", "wasm_exec.js"]) {
      execFileSync("node", ["--check", path.join(dest, f)]);
    }
    const sw = readFileSync(path.join(dest, "sw.js"), "utf8");
    assert.match(sw, /globalThis\.__goWhat = method/);
    assert.match(sw, /__jsTime/);
    assert.match(readFileSync(path.join(dest, "wasm_exec.js"), "utf8"), /__goTime/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
