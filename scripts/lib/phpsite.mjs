// A PHP web application for the tests and benchmarks, served by PHP's own server on
// 127.0.0.1 behind scripts/tools/wireproxy, which logs every exchange on the wire: what
// scripts/lib/dokuwiki.mjs and scripts/lib/mediawiki.mjs start.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { root, waitFor } from "./browser.mjs";

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
  s.on("error", reject);
});

/**
 * Serves the PHP application in docroot, with prepend (a PHP file) run before each of
 * its scripts, behind the logging proxy; dir is the application's temporary folder
 * (its configuration and data, and the proxy's log), removed by stop(). Resolves, once
 * the application answers ready (a path), to { url (the proxy's, the only way the
 * browser reaches the application), wiki (PHP's own address), dir, wire() (the proxy's
 * log so far: one object per exchange, see scripts/tools/wireproxy), stop() }.
 */
export async function servePHP({ docroot, prepend, dir, ready }) {
  const port = await freePort();
  // In a process group of its own: PHP's workers are its children, which stop() ends
  // with it (killing PHP alone leaves them running).
  const php = spawn("php", ["-S", `127.0.0.1:${port}`, "-t", docroot, "-d", `auto_prepend_file=${prepend}`], {
    env: { ...process.env, PHP_CLI_SERVER_WORKERS: "6" },
    stdio: ["ignore", "ignore", "ignore"],
    detached: true,
  });
  const wiki = `http://127.0.0.1:${port}/`;
  const wireLog = path.join(dir, "wire.jsonl");
  const proxy = spawn(path.join(root, "bin/wireproxy"), ["-target", wiki, "-log", wireLog], { stdio: ["ignore", "pipe", "inherit"] });
  const stop = () => {
    proxy.kill();
    try {
      process.kill(-php.pid);
    } catch {
      php.kill();
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise((resolve, reject) => {
      proxy.on("error", reject);
      proxy.on("exit", (code) => reject(new Error(`wireproxy exited (${code})`)));
      proxy.stdout.once("data", (b) => resolve(b.toString().split("\n")[0].trim()));
    });
    await waitFor(async () => (await fetch(new URL(ready, wiki))).ok, `${ready} to answer`, 30000);
    const wire = () => {
      if (!existsSync(wireLog)) return [];
      return readFileSync(wireLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    };
    return { url, wiki, dir, wire, stop };
  } catch (e) {
    stop();
    throw e;
  }
}
