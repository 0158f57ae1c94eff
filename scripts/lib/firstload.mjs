// First loads timed in a browser no harness instruments (a bare DevTools pipe,
// scripts/lib/pipebrowser.mjs). Playwright attaches itself to every tab the browser
// makes and sets each up while it loads (its Network, Runtime and Page domains on): a
// replay's tab too, which the replay bar makes and navigates at once, while a live tab
// Playwright makes is set up before it is navigated. Here a client attaches to a tab
// only to navigate it (and detaches) and again once its load is over, to read its
// navigation timing: the load is the page's and the extension's alone.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** How long a load is given before its tab is read (ms): the demo's pages load in 25-200. */
export const loadWait = 800;

// The navigation timing of a tab's document, and when each resource was asked for:
// evaluated in the tab once its load is over.
const timing = `(() => {
  const n = performance.getEntriesByType("navigation")[0];
  if (!n || !(n.loadEventStart > 0)) return null;
  return {
    ms: n.loadEventStart - n.startTime, origin: performance.timeOrigin + n.startTime,
    responseEnd: n.responseEnd - n.startTime, dcl: n.domContentLoadedEventStart - n.startTime,
    asked: Object.fromEntries(performance.getEntriesByType("resource").map((r) => [r.name, r.startTime - n.startTime])),
  };
})()`;

/** Evaluates expression in the target of sessionId; resolves to its value. */
export async function evaluate(b, sessionId, expression) {
  const { result, exceptionDetails } = await b.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId);
  if (exceptionDetails) throw new Error(exceptionDetails.text);
  return result.value;
}

/** The ids of the tabs (page targets) open in b. */
export async function tabIds(b) {
  return new Set((await b.send("Target.getTargets")).targetInfos.filter((t) => t.type === "page").map((t) => t.targetId));
}

/**
 * Waits for a tab of b at url that is not among except (a set of target ids), gives
 * its load loadWait ms, then reads its first load: resolves to { ms (the navigation's
 * start to the load event), origin (the start, ms since the epoch), responseEnd, dcl
 * (DOMContentLoaded), asked (each resource's asking, ms from the start), targetId }. A
 * load not over by then (a machine far busier than the demo's pages need) is read
 * again every 200 ms, the client attached meanwhile; one not over in 30 s is an error
 * that names it.
 */
export async function loadedTab(b, url, except) {
  let target;
  for (const until = performance.now() + 60000; !target; await sleep(20)) {
    if (performance.now() > until) throw new Error(`no tab at ${url} in 60 s`);
    target = (await b.send("Target.getTargets")).targetInfos.find((t) => t.type === "page" && t.url === url && !except.has(t.targetId));
  }
  await sleep(loadWait);
  const { sessionId } = await b.send("Target.attachToTarget", { targetId: target.targetId, flatten: true });
  let t = await evaluate(b, sessionId, timing);
  for (const until = performance.now() + 30000; !t; t = await evaluate(b, sessionId, timing)) {
    if (performance.now() > until) throw new Error(`${url}: not loaded 30 s after its tab appeared`);
    await sleep(200);
  }
  return { ...t, targetId: target.targetId };
}

/** A live first load of url in a new tab made at its URL, as a link opened in a new tab is. */
export async function liveNewTab(b, url) {
  const before = await tabIds(b);
  await b.send("Target.createTarget", { url });
  const t = await loadedTab(b, url, before);
  await b.send("Target.closeTarget", { targetId: t.targetId });
  return t;
}

/**
 * A live first load of url in a blank tab navigated wait ms after it was made (at once
 * unless told) by a client attached to it with nothing enabled: the tab a replay's bar
 * makes and navigates, with nothing of the replay in it.
 */
export async function liveBlankTab(b, url, wait = 0) {
  const before = await tabIds(b);
  const { targetId } = await b.send("Target.createTarget", { url: "about:blank" });
  if (wait) await sleep(wait);
  const { sessionId } = await b.send("Target.attachToTarget", { targetId, flatten: true });
  await b.send("Page.navigate", { url }, sessionId);
  await b.send("Target.detachFromTarget", { sessionId });
  const t = await loadedTab(b, url, before);
  await b.send("Target.closeTarget", { targetId });
  return t;
}

/**
 * Returns load(url): a first load of url in a blank tab navigated at once by a client
 * that answers every request of the tab itself, from memory, through the Fetch domain
 * (each paused, then fulfilled): the floor of any replay through that domain, with no
 * extension, no archive and no lookup in it. An answer is the live site's, fetched once
 * from Node the first time its method and URL are asked (so a page's first load this
 * way is not timed: the benchmark's first load of each kind is not counted); a request
 * with a body is fetched live each time. Resolves to loadedTab's figures.
 */
export function fetchFloor(b) {
  const answers = new Map(); // method and URL -> { responseCode, responseHeaders, body }
  const tabs = new Set(); // the sessions of the tabs loading
  b.on("Fetch.requestPaused", async (p, sessionId) => {
    if (!tabs.has(sessionId)) return;
    const { method, url, headers, postData } = p.request;
    const key = `${method} ${url}`;
    let a = answers.get(key);
    if (!a) {
      try {
        const res = await fetch(url, { method, headers, body: postData, redirect: "manual" });
        a = {
          responseCode: res.status,
          responseHeaders: [...res.headers].filter(([k]) => !/^(content-encoding|content-length|transfer-encoding)$/.test(k)).map(([name, value]) => ({ name, value })),
          body: Buffer.from(await res.arrayBuffer()).toString("base64"),
        };
      } catch (e) { // the page gets a network error, and its load is timed as it goes on
        console.error(`the floor's answer to ${method} ${url}: ${e.message}`);
        await b.send("Fetch.failRequest", { requestId: p.requestId, errorReason: "Failed" }, sessionId).catch(() => {});
        return;
      }
      if (postData === undefined) answers.set(key, a);
    }
    await b.send("Fetch.fulfillRequest", { requestId: p.requestId, ...a }, sessionId).catch(() => {});
  });
  return async (url) => {
    const before = await tabIds(b);
    const { targetId } = await b.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await b.send("Target.attachToTarget", { targetId, flatten: true });
    tabs.add(sessionId);
    try {
      await b.send("Fetch.enable", { patterns: [{ urlPattern: "*" }] }, sessionId);
      await b.send("Page.navigate", { url }, sessionId);
      return await loadedTab(b, url, before);
    } finally {
      tabs.delete(sessionId);
      await b.send("Target.closeTarget", { targetId });
    }
  };
}

/**
 * A first load of url in a new replay: the bar (replay.html?QUERY&url=URL of the
 * extension whose host is ext) opened in a new tab, which makes the replay's tab.
 * Resolves to loadedTab's figures and bar: the bar's timeline (extension/replay.js),
 * with opened, the bar's time origin.
 */
export async function replayTab(b, ext, query, url) {
  const before = await tabIds(b);
  const bar = await b.send("Target.createTarget", { url: `chrome-extension://${ext}/replay.html?${query}&url=${encodeURIComponent(url)}` });
  try {
    const t = await loadedTab(b, url, before);
    const { sessionId } = await b.send("Target.attachToTarget", { targetId: bar.targetId, flatten: true });
    const tl = await evaluate(b, sessionId, "({ ...timeline, opened: performance.timeOrigin, error: document.querySelector('#error')?.hidden === false ? document.querySelector('#error').textContent : '' })");
    if (tl.error) throw new Error(`${url}: the replay's bar says ${tl.error}`);
    await b.send("Target.closeTarget", { targetId: t.targetId });
    return { ...t, bar: tl };
  } finally {
    await b.send("Target.closeTarget", { targetId: bar.targetId }).catch(() => {});
  }
}

/**
 * Returns stop(): it stops the extension's service worker (DevTools
 * ServiceWorker.stopAllWorkers, from the tab b opened with) and resolves once the
 * worker that ran has gone, as after the browser let it sleep: the core it runs, and
 * all it kept, gone. The next request or event wakes a new one (an event of the tabs
 * just closed may have woken it already).
 */
export async function workerStopper(b) {
  const blank = (await b.send("Target.getTargets")).targetInfos.find((t) => t.type === "page");
  if (!blank) throw new Error("no tab to stop the service workers from");
  const { sessionId } = await b.send("Target.attachToTarget", { targetId: blank.targetId, flatten: true });
  await b.send("ServiceWorker.enable", {}, sessionId);
  const workers = async () => new Set((await b.send("Target.getTargets")).targetInfos
    .filter((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://")).map((t) => t.targetId));
  return async () => {
    const ran = await workers();
    await b.send("ServiceWorker.stopAllWorkers", {}, sessionId);
    for (const until = performance.now() + 10000; [...await workers()].some((id) => ran.has(id)); await sleep(20)) {
      if (performance.now() > until) throw new Error("the extension's service worker still runs 10 s after it was stopped");
    }
  };
}
