// The replay's guard (extension/replay-guard.js, guardScript), run in node in a context
// that stands for a page: the page's beforeunload tells the bar (through its binding
// once the bar has added it, before that by a request to the bar's secret path, which
// leaveSaid reads), and waits for it to fail what is waiting only while a fetch(), an
// XMLHttpRequest or an image of the page is under way or the page has not loaded, the
// longer the more (saying "busy" while images are); the binding leaves the page's
// reach; what the page sends once it may be leaving is held, its timers too, and a page
// that stays says so.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const { guardScript, leaveBinding, leaveWaitMs, leavePath, leaveSaid } = new Function(
  `${readFileSync(new URL("../../../extension/replay-guard.js", import.meta.url), "utf8")}\nreturn { guardScript, leaveBinding, leaveWaitMs, leavePath, leaveSaid };`,
)();

// page makes a context with the browser's pieces the guard wraps: the page's listeners
// (called as the browser calls them, trusted), a fetch() whose answers the test gives,
// XMLHttpRequest, sendBeacon, a document loaded or still loading its images (and more
// images of a loaded one: { complete, loading, at: [top, bottom], checkVisibility }), a screen 800
// pixels high, and a clock that moves a millisecond each time it is read.
function page({ binding = false, frame = false, loading = 0, images = [] } = {}) {
  const listeners = [];
  const fetches = [];
  const sent = [];
  const told = [];
  const toldAt = []; // how much the page had sent when the bar was told
  const asked = []; // what fetch() was given
  let now = 0;
  class XMLHttpRequest {
    #loadend = [];
    open(method, url) { this.url = url; }
    send() { sent.push(`xhr ${this.url}`); }
    addEventListener(type, fn) { if (type === "loadend") this.#loadend.push(fn); }
    end() { for (const fn of this.#loadend.splice(0)) fn(); } // its listeners are once
    abort() { sent.push(`xhr abort ${this.url}`); this.end(); }
  }
  class Navigator {
    sendBeacon(url) { sent.push(`beacon ${url}`); return true; }
  }
  // A document's open(), and a write() that opens it anew (once it has loaded), take
  // every listener off the window, as the browser's do.
  class Document {
    open() { listeners.length = 0; }
    write() { if (this.loaded) listeners.length = 0; }
    writeln() { if (this.loaded) listeners.length = 0; }
  }
  const g = {
    // A listener added again (the same function, for the same type) is not added twice.
    addEventListener: (type, fn) => { if (!listeners.some(([t, f]) => t === type && f === fn)) listeners.push([type, fn]); },
    Document,
    // An absolute URL comes as a Request with the guard's signal (a relative one, which
    // no document resolves here, as the page gave it).
    fetch: (input, init) => {
      asked.push(init ? [input, init] : input);
      sent.push(`fetch ${typeof input === "string" ? input : input.url}`);
      return new Promise((resolve, reject) => {
        fetches.push(resolve);
        input.signal?.addEventListener("abort", () => { sent.push(`fetch aborted ${input.url}`); reject(input.signal.reason); });
      });
    },
    Request, AbortController, AbortSignal,
    XMLHttpRequest, Navigator, navigator: new Navigator(),
    performance: { now: () => now++ },
    // loading: how many images are still loading (any: the load event is still to come).
    document: {
      readyState: loading ? "interactive" : "complete",
      images: [{ complete: true }, ...Array.from({ length: loading }, () => ({ complete: false })), ...images.map(({ at = [0, 10], ...i }) => ({ ...i, getBoundingClientRect: () => ({ top: at[0], bottom: at[1] }) }))],
    },
    innerHeight: 800,
    location: { href: "http://site.test/page?a=1" },
    URL,
    setTimeout, clearTimeout, setInterval, clearInterval,
    reportError: (e) => sent.push(`error ${e.message}`),
  };
  const tell = (payload) => { told.push(payload); toldAt.push(sent.length); };
  if (binding) g[leaveBinding] = tell;
  vm.createContext(g);
  vm.runInContext(frame ? "globalThis.top = {}" : "globalThis.top = globalThis", g);
  vm.runInContext(guardScript, g);
  return {
    g, sent, told, toldAt, fetches, asked,
    clock: () => now,
    fire: (type, more = {}) => { for (const [t, fn] of listeners) if (t === type) fn({ isTrusted: true, ...more }); },
    addBinding: () => {
      g[leaveBinding] = tell;
      vm.runInContext(`globalThis[Symbol.for("webkeep.replayGuard")]()`, g);
    },
    run: (code) => vm.runInContext(code, g),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test("the binding is taken out of the page's reach, at the start or when the bar adds it", () => {
  const p = page({ binding: true });
  assert.equal(p.g[leaveBinding], undefined);
  const q = page();
  q.addBinding();
  assert.equal(q.g[leaveBinding], undefined);
  q.fire("beforeunload");
  assert.deepEqual(q.told, [""], "the bar is told through the binding taken");
});

test("beforeunload tells the bar, and waits for it only while a request of the page is under way", async () => {
  const p = page({ binding: true });
  p.fire("beforeunload");
  assert.deepEqual(p.told, [""]);
  assert.equal(p.clock(), 0, "nothing under way: no wait");

  const q = page({ binding: true });
  q.run(`fetch("/tick")`);
  const before = q.clock();
  q.fire("beforeunload");
  assert.equal(q.told.length, 1);
  const one = leaveWaitMs.first + leaveWaitMs.each;
  assert.ok(q.clock() - before >= one, `a fetch() under way: waited ${q.clock() - before} of ${one} ms`);

  // Settled, it is no longer under way.
  q.fetches[0](new Response("ok"));
  await tick();
  const settled = q.clock();
  q.fire("beforeunload");
  assert.equal(q.clock(), settled, "the fetch() settled: no wait");

  const x = page({ binding: true });
  x.run(`globalThis.xhr = new XMLHttpRequest(); xhr.open("POST", "/save"); xhr.send("a")`);
  let at = x.clock();
  x.fire("beforeunload");
  assert.ok(x.clock() - at >= one, "an XMLHttpRequest under way: waited");
  x.run(`xhr.end()`);
  at = x.clock();
  x.fire("beforeunload");
  assert.equal(x.clock(), at, "the XMLHttpRequest ended: no wait");
});

test("document.open(), and a write() that opens the document anew, take the window's listeners: the guard adds its own again", () => {
  for (const call of ["new Document().open()", "Object.assign(new Document(), { loaded: true }).write('<p>')", "Object.assign(new Document(), { loaded: true }).writeln('<p>')"]) {
    const p = page({ binding: true });
    p.run(call);
    p.fire("beforeunload");
    assert.deepEqual(p.told, [""], `${call}: beforeunload still tells the bar`);
    p.run(`fetch("http://site.test/held")`);
    assert.ok(!p.sent.includes("fetch http://site.test/held"), `${call}: what the page sends as it may be leaving is held`);
  }
});

test("the wait grows with what the page has under way, to two seconds at most", () => {
  for (const [n, least, most] of [
    [10, leaveWaitMs.first + 10 * leaveWaitMs.each, leaveWaitMs.first + 10 * leaveWaitMs.each + 5],
    [2000, leaveWaitMs.most, leaveWaitMs.most + 5],
  ]) {
    const p = page({ binding: true });
    p.run(`for (let i = 0; i < ${n}; i++) fetch("/tick")`);
    const before = p.clock();
    p.fire("beforeunload");
    const waited = p.clock() - before;
    assert.ok(waited >= least && waited <= most, `${n} under way: waited ${waited} ms, not within ${least}-${most}`);
  }
  assert.equal(leaveWaitMs.most, 2000);
});

test("a loaded page with images on their way says so, and waits for each but a lazy one far from the screen", () => {
  const p = page({ binding: true, images: [
    { complete: false }, { complete: false, at: [5000, 5010] }, // not lazy: asked for wherever it lies
    { complete: false, loading: "lazy", at: [900, 910] }, // lazy, near the screen: asked for
    { complete: false, loading: "lazy", at: [-2000, -1990] },
    { complete: false, loading: "lazy", at: [50000, 50010] }, // lazy, far: not asked for yet
    { complete: false, loading: "lazy", at: [-5000, -4990] },
    { complete: false, loading: "lazy", at: [0, 0], checkVisibility: () => false }, // lazy, in a hidden part: not asked for
    { complete: true, loading: "lazy", at: [50000, 50010] },
  ] });
  p.fire("beforeunload");
  assert.deepEqual(p.told, ["busy"]);
  const least = leaveWaitMs.first + 4 * leaveWaitMs.each;
  assert.ok(p.clock() >= least && p.clock() <= least + 5, `4 images on their way: waited ${p.clock()} ms, not ${least}`);

  // Only lazy images far from the screen: nothing on its way, no wait.
  const q = page({ binding: true, images: [{ complete: false, loading: "lazy", at: [9000, 9010] }] });
  q.fire("beforeunload");
  assert.deepEqual([q.told, q.clock()], [[""], 0]);
});

test("a page that stays tells the bar, and sends what it held: a second after its leaving, or as it is shown again", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const p = page({ binding: true });
  p.run(`fetch("/tick")`);
  p.fire("beforeunload");
  p.run(`fetch("/held")`);
  t.mock.timers.tick(999);
  await Promise.resolve();
  assert.deepEqual([p.told, p.sent], [[""], ["fetch /tick"]], "still leaving");
  t.mock.timers.tick(1);
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.deepEqual([p.told, p.sent], [["", "stayed"], ["fetch /tick", "fetch /held"]], "stayed");

  const q = page({ binding: true });
  q.fire("pagehide");
  q.run(`fetch("/held")`);
  q.fire("pageshow", { persisted: true });
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.deepEqual([q.told, q.sent], [["stayed"], ["fetch /held"]], "shown again from the back-forward cache");
});

test("the page's timers are held as it may be leaving: a timeout due then runs once it stays, an interval's turns are skipped", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  const p = page({ binding: true });
  p.run(`globalThis.ran = []; setTimeout((a) => ran.push(a), 100, "timeout"); setInterval(() => ran.push("tick"), 300); setTimeout(() => { throw new Error("thrown"); }, 50)`);
  p.fire("beforeunload");
  t.mock.timers.tick(999);
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.equal(p.run("ran.join()"), "", "nothing of the page's ran while it may be leaving");
  t.mock.timers.tick(1); // the page stayed
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.equal(p.run("ran.join()"), "timeout", "the timeout due ran once it stayed; the interval's three turns were skipped");
  assert.deepEqual(p.sent, ["error thrown"], "a held timeout's error is reported as a timer's");
  t.mock.timers.tick(200);
  assert.equal(p.run("ran.join()"), "timeout,tick", "the interval goes on");
  p.fire("pagehide");
  t.mock.timers.tick(600);
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.equal(p.run("ran.join()"), "timeout,tick", "a page gone runs nothing");

  const q = page({ binding: true });
  q.run(`globalThis.ran = []; setTimeout((a) => ran.push(a), 10, "as set"); globalThis.id = setTimeout(() => ran.push("cleared"), 20); clearTimeout(id)`);
  t.mock.timers.tick(30);
  assert.equal(q.run("ran.join()"), "as set", "a page not leaving: as it set them");
});

test("beforeunload aborts the page's fetch() and XMLHttpRequest calls under way, in the top document and in a frame, after telling the bar", async () => {
  for (const frame of [false, true]) {
    const p = page({ binding: true, frame });
    p.run(`globalThis.got = fetch("http://site.test/tick", { method: "POST", body: "a", headers: { "X-A": "1" } }).catch((e) => e.name);
      globalThis.xhr = new XMLHttpRequest(); xhr.open("POST", "/save"); xhr.send("a")`);
    p.fire("beforeunload");
    assert.deepEqual(p.sent, ["fetch http://site.test/tick", "xhr /save", "fetch aborted http://site.test/tick", "xhr abort /save"], frame ? "a frame" : "the top document");
    // The top document tells the bar before it aborts (hundreds, on a page asking all
    // the time), so that the bar starts failing what is paused sooner; a frame does not.
    assert.deepEqual(p.toldAt, frame ? [] : [2], "told when the calls were sent and before they were aborted");
    assert.equal(await p.run("got"), "AbortError", "the page's fetch() fails as aborted");
    p.fire("beforeunload");
    assert.equal(p.sent.length, 4, "each is aborted once");
  }
  // The request goes as the page made it, the page's own signal kept.
  const q = page();
  q.run(`globalThis.ctl = new AbortController(); globalThis.got = fetch("http://site.test/x", { method: "PUT", body: "b", headers: { "X-A": "1" }, signal: ctl.signal }).catch((e) => e.name)`);
  assert.deepEqual(q.sent, ["fetch http://site.test/x"]);
  const [r] = q.asked;
  assert.deepEqual([r.method, r.headers.get("x-a"), await r.text()], ["PUT", "1", "b"]);
  q.run(`ctl.abort()`);
  assert.equal(await q.run("got"), "AbortError", "the page aborts its own fetch()");
});

test("a frame's beforeunload does not tell the bar: the tab's top document does", () => {
  const f = page({ binding: true, frame: true });
  assert.equal(f.g[leaveBinding], undefined, "taken out of the frame's reach too");
  f.run(`fetch("/tick")`);
  f.fire("beforeunload");
  assert.deepEqual(f.told, []);
  assert.equal(f.clock(), 0, "no wait");
});

// Before the load event the bar has not added its binding: the page tells it by a
// request to the bar's path on the document's own host, which leaveSaid reads.
const signal = (said) => `fetch http://site.test${leavePath}?${said}`;

test("without the binding (the page not loaded yet), beforeunload tells the bar by a request, waits for each image still loading, and holds what the page sends", async () => {
  const p = page({ loading: 30 });
  p.run(`fetch("/tick")`);
  const before = p.clock();
  p.fire("beforeunload");
  assert.deepEqual(p.sent, ["fetch /tick", signal("busy")], "the bar is told, and that images are on their way");
  assert.equal(leaveSaid(p.sent[1].slice("fetch ".length)), "busy");
  const [, [url, init]] = p.asked;
  assert.deepEqual([url, init.method, init.keepalive, init.priority, init.credentials, init.referrerPolicy], [`http://site.test${leavePath}?busy`, "POST", true, "high", "omit", "no-referrer"], "ahead of the page's images, with nothing of the page's");
  const least = leaveWaitMs.first + 31 * leaveWaitMs.each;
  const waited = p.clock() - before;
  assert.ok(waited >= least && waited <= least + 5, `a fetch() and 30 images waiting: waited ${waited} ms, not ${least}`);
  p.run(`fetch("/leaving"); navigator.sendBeacon("/beacon")`);
  await tick();
  assert.equal(p.sent.length, 2, "what the page sends as it may be leaving is held");

  // Loaded with nothing under way, and no binding yet (the bar adds it after the load
  // event): told, no wait.
  const q = page();
  q.fire("beforeunload");
  assert.deepEqual([q.sent, q.clock()], [[signal("")], 0]);
  // Not loaded, nothing under way, no image waiting (a script may be): the first wait.
  const r = page({ loading: 0 });
  r.g.document.readyState = "loading";
  r.fire("beforeunload");
  assert.ok(r.clock() >= leaveWaitMs.first, `waited ${r.clock()} ms`);
  // A frame's is its own.
  const f = page({ frame: true, loading: 3 });
  f.fire("beforeunload");
  assert.deepEqual([f.sent, f.clock()], [[], 0]);
});

test("without the binding, a page that stays tells the bar by a request", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const p = page({ loading: 2 });
  p.fire("beforeunload");
  t.mock.timers.tick(1000);
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.deepEqual(p.sent, [signal("busy"), signal("stayed")]);
  assert.equal(leaveSaid(p.sent[1].slice("fetch ".length)), "stayed");
});

test("leaveSaid reads the bar's own path only, on any host", () => {
  for (const [url, said] of [
    [`http://site.test${leavePath}?`, ""],
    [`https://other.test:8443${leavePath}?stayed`, "stayed"],
    [`http://site.test${leavePath}`, ""],
    [`http://site.test/x${leavePath}?`, undefined],
    [`http://site.test/?u=${leavePath}`, undefined],
    [`http://site.test/${crypto.randomUUID()}?`, undefined],
    ["not a URL", undefined],
  ]) assert.equal(leaveSaid(url), said, url);
});

// The bar stops the tab's scripts while the page may be leaving: a timer of the page's
// due then is lost, the guard's own among them, so the bar says when the page stayed.
test("the bar's word that the page stayed sends what was held, and nothing once it was sent", async () => {
  const p = page({ binding: true });
  const barSays = () => p.run(`globalThis[Symbol.for("webkeep.replayGuard.stayed")]()`);
  barSays();
  assert.deepEqual([p.told, p.sent], [[], []], "nothing held: nothing said");
  p.fire("beforeunload");
  p.run(`fetch("/held")`);
  await tick();
  assert.deepEqual(p.sent, [], "held");
  barSays();
  for (let i = 0; i < 3; i++) await Promise.resolve();
  assert.deepEqual([p.told, p.sent], [["", "stayed"], ["fetch /held"]]);
  barSays();
  assert.deepEqual(p.told, ["", "stayed"], "said once");
});
