// A Chromium driven through a bare DevTools pipe (--remote-debugging-pipe, fds 3 and
// 4): no harness attaches itself to the tabs it makes, as Playwright does, so a probe
// can time a tab's load with nothing but the page and the extension acting on it.
import { spawn } from "node:child_process";

/**
 * Starts Chromium (CHROMIUM, or Debian's) headless on profile with args added
 * (CHROMIUM_FLAGS="--flag ..." adds more; CHROMIUM_STDOUT=1 lets its output through,
 * as V8's tracing flags print there): resolves to { send(method, params,
 * sessionId), on(method, listener), once, off, close() }; send resolves to the
 * command's result, on has listener called with each event of that method (its params
 * and sessionId), once for the next one only, off no longer; close resolves to the
 * browser's exit: it asks the browser to close (Browser.close), which ends its other
 * processes before its own, so that none still writes to the profile once close has
 * resolved, and kills it if it has not exited 10 s later.
 */
export function pipeBrowser(profile, args = []) {
  const output = process.env.CHROMIUM_STDOUT ? "inherit" : "ignore";
  const proc = spawn(process.env.CHROMIUM || "/usr/bin/chromium", [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-dev-shm-usage", "--remote-debugging-pipe", `--user-data-dir=${profile}`,
    ...args, ...(process.env.CHROMIUM_FLAGS || "").split(" ").filter(Boolean), "about:blank",
  ], { stdio: ["ignore", output, output, "pipe", "pipe"] });
  let id = 0, buf = "";
  const waiting = new Map();
  const listeners = new Map(); // method -> [listener]
  proc.stdio[4].on("data", (d) => {
    buf += d.toString();
    for (let i; (i = buf.indexOf("\0")) >= 0;) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (m.method) for (const l of listeners.get(m.method) || []) l(m.params, m.sessionId);
      const w = waiting.get(m.id);
      if (!w) continue;
      waiting.delete(m.id);
      m.error ? w.reject(new Error(`${w.method}: ${m.error.message}`)) : w.resolve(m.result);
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    waiting.set(++id, { resolve, reject, method });
    proc.stdio[3].write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + "\0");
  });
  const exited = new Promise((r) => proc.on("exit", r));
  proc.stdio[3].on("error", () => {}); // a command sent as the browser exits: its exit tells
  const on = (method, listener) => listeners.set(method, [...(listeners.get(method) || []), listener]);
  const off = (method, listener) => listeners.set(method, (listeners.get(method) || []).filter((l) => l !== listener));
  const once = (method, listener) => {
    const first = (...args) => { off(method, first); listener(...args); };
    on(method, first);
  };
  const close = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const waited = (ms) => new Promise((r) => setTimeout(r, ms).unref());
    await Promise.race([send("Browser.close").catch(() => {}), exited, waited(10000)]);
    if (await Promise.race([exited.then(() => true), waited(10000).then(() => false)])) return;
    proc.kill("SIGKILL");
    await exited;
  };
  return { send, on, once, off, close };
}
