// webkeep replay: a thin shim. It opens a tab, attaches the debugger to it with the
// Fetch domain, and hands every paused request to the core (POST /api/replay/ID/answer),
// which decides the answer from the archive; the shim gives that answer to the browser
// (Fetch.fulfillRequest) and shows the core's log. Nothing reaches the network.
"use strict";
const params = new URLSearchParams(location.search);
const session = params.get("session") || "";
const pageURL = params.get("url") || "";
const ts = params.get("ts") || "";
const api = (p, init) => fetch(`/api/replay/${encodeURIComponent(session)}${p}`, init);
const $ = (id) => document.getElementById(id);
const fail = (e) => { $("error").textContent = String(e && e.message || e); $("error").hidden = false; };
let tabId = null;

const decodeAnswer = (h) => JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(h || "")));
const list = (ul, items) => {
  ul.replaceChildren(...items.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
};
let logTimer = null;
const showLog = () => {
  if (logTimer) return;
  logTimer = setTimeout(async () => {
    logTimer = null;
    const log = await (await api("/log")).json();
    $("replay-answered").textContent = String(log.answered);
    $("replay-missed-count").textContent = String(log.missed.length);
    list($("replay-missed"), log.missed);
    $("replay-approx-count").textContent = String(log.approximate.length);
    list($("replay-approx"), log.approximate.map((a) => `${a.url} (captured ${a.timestamp}: ${a.why})`));
  }, 100);
};

// answer hands one paused request to the core and its answer to the browser.
async function answer(target, { requestId, request }) {
  try {
    const res = await api(`/answer?ts=${encodeURIComponent(ts)}`, {
      method: "POST",
      body: JSON.stringify({ method: request.method, url: request.url, headers: request.headers, postDataEntries: request.postDataEntries }),
    });
    if (!res.ok) throw new Error(`${request.url}: ${(await res.json()).error}`);
    const a = decodeAnswer(res.headers.get("X-Webkeep-Answer"));
    const body = new Uint8Array(await res.arrayBuffer());
    await chrome.debugger.sendCommand(target, "Fetch.fulfillRequest", {
      requestId, responseCode: a.status, responseHeaders: a.headers, body: body.toBase64(),
      ...(a.reason ? { responsePhrase: a.reason } : {}),
    });
    if (request.url === pageURL && a.timestamp && !$("replay-time").textContent) {
      $("replay-time").textContent = a.timestamp.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, "$1-$2-$3 $4:$5:$6");
    }
  } catch (e) {
    fail(e);
    chrome.debugger.sendCommand(target, "Fetch.failRequest", { requestId, errorReason: "Failed" }).catch(() => {});
  }
  showLog();
}

// Workers and frames of the replayed tab are attached too, paused until their
// requests are answered as the page's are.
const intercept = (target) => Promise.all([
  chrome.debugger.sendCommand(target, "Fetch.enable", { patterns: [{ urlPattern: "*" }] }),
  chrome.debugger.sendCommand(target, "Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
]);

chrome.debugger.onEvent.addListener((source, method, p) => {
  if (source.tabId !== tabId) return;
  const target = source.sessionId ? { tabId, sessionId: source.sessionId } : { tabId };
  if (method === "Fetch.requestPaused") answer(target, p);
  else if (method === "Inspector.targetCrashed" && !source.sessionId) {
    fail(new Error("The replayed page crashed in the browser: Replay again loads it anew."));
  } else if (method === "Target.attachedToTarget") {
    const child = { tabId, sessionId: p.sessionId };
    intercept(child).catch(() => {}).finally(() => chrome.debugger.sendCommand(child, "Runtime.runIfWaitingForDebugger").catch(() => {}));
  }
});
chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId !== tabId) return;
  tabId = null;
  $("state").dataset.state = "ended";
  $("state").textContent = `The replay has ended (${reason}).`;
  $("replay-again").hidden = true;
});
addEventListener("pagehide", () => {
  if (tabId !== null) chrome.debugger.detach({ tabId }).catch(() => {});
  chrome.privacy.network.networkPredictionEnabled.clear({}).catch(() => {});
});

async function start() {
  if (!session) throw new Error("replay.html needs ?session=ID&url=URL");
  const res = await api("/start", { method: "POST" });
  const info = await res.json();
  if (!res.ok) throw new Error(info.error);
  $("replay-session").textContent = `${info.session.name} (${info.captures} captures)`;
  if (!pageURL) {
    // No page named: the session's pages, each a replay link.
    list($("replay-pages"), []);
    for (const p of info.pages) {
      const a = Object.assign(document.createElement("a"), { href: p.replay, textContent: `${p.ts} ${p.url}` });
      const li = document.createElement("li");
      li.append(a);
      $("replay-pages").append(li);
    }
    $("replay-pages-box").hidden = false;
    $("state").dataset.state = "choose";
    $("state").textContent = "Choose a page to replay.";
    return;
  }
  $("replay-url").textContent = pageURL;
  // The browser would otherwise open connections ahead of the page's requests
  // (preconnect, prefetch) to the hosts it remembers: network prediction is off while
  // a replay runs, and back to the user's choice when it ends.
  await chrome.privacy.network.networkPredictionEnabled.set({ value: false });
  const tab = await chrome.tabs.create({ url: "about:blank", active: false });
  tabId = tab.id;
  await chrome.debugger.attach({ tabId }, "1.3");
  await intercept({ tabId });
  // With the Page domain off, the tab's first navigation was sometimes left with no
  // renderer (the tab "unloaded", about:blank for good): Page and Inspector are enabled
  // first, and a crash of the replayed page is said in the bar.
  await chrome.debugger.sendCommand({ tabId }, "Page.enable");
  await chrome.debugger.sendCommand({ tabId }, "Inspector.enable");
  await navigate();
  document.body.dataset.replayTab = String(tabId);
  $("state").dataset.state = "replaying";
  $("state").textContent = "Replaying in its own tab.";
  $("replay-again").hidden = false;
}
// navigate loads the replayed page in its tab; a navigation the browser refuses is an
// error in the bar.
async function navigate() {
  $("error").hidden = true;
  const nav = await chrome.debugger.sendCommand({ tabId }, "Page.navigate", { url: pageURL });
  if (nav.errorText) throw new Error(`${pageURL}: ${nav.errorText}`);
}
$("replay-again").addEventListener("click", () => {
  if (tabId !== null) navigate().catch(fail);
});
start().catch((e) => { $("state").dataset.state = "error"; fail(e); });
