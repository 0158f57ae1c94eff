// The shim's routing of events to the pacer (extension/events.js newRequestRouter), run
// in node: all of a request's events wait when its first hop sends no body and is of no
// streamed type; the others' urgent events, and the page's own, go at once; wire
// headers that come before their request wait for it, then go its way, ahead of it; a
// piece of a file's copy goes after all the pacer holds.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const newRequestRouter = new Function(`${readFileSync(new URL("../../../extension/events.js", import.meta.url), "utf8")}\nreturn newRequestRouter;`)();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tab = { tabId: 3 };
const sent = (requestId, type, request = {}) => ["Network.requestWillBeSent", { requestId, type, request: { url: "http://example.org/", method: "GET", ...request } }];
const urgentMethods = new Set(["Network.requestWillBeSent", "Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo", "Page.loadEventFired", "Runtime.bindingCalled"]);

// routed returns hand(source, method, params) and the log of what reached the pacer:
// "urgent <name>" or "queued <name>", name being the method's last part and the id.
const routed = (holdMs = 500) => {
  const log = [];
  const pacer = { urgent: (fn) => log.push("urgent " + fn()), add: (fn) => log.push("queued " + fn()), flush: () => log.push("flush") };
  const route = newRequestRouter(pacer, new Set(["Document", "Fetch", "XHR"]), new Set(["Runtime.bindingCalled"]), holdMs);
  const hand = (source, method, params) => route(source, method, params, () => `${method.split(".")[1]} ${params.requestId || ""}`.trim(), 0, urgentMethods.has(method));
  return { hand, log };
};

test("a request's events wait as its first hop decides, until it ends", () => {
  const { hand, log } = routed();
  const cases = [
    [tab, ...sent("1", "Image"), "queued requestWillBeSent 1"],
    [tab, "Network.requestWillBeSentExtraInfo", { requestId: "1" }, "queued requestWillBeSentExtraInfo 1"],
    [tab, "Network.responseReceivedExtraInfo", { requestId: "1" }, "queued responseReceivedExtraInfo 1"],
    // A redirect's next hop follows its first, whatever it says.
    [tab, ...sent("1", "Image", { method: "POST", hasPostData: true }), "queued requestWillBeSent 1"],
    [tab, ...sent("2", "Document"), "urgent requestWillBeSent 2"],
    [tab, "Network.requestWillBeSentExtraInfo", { requestId: "2" }, "urgent requestWillBeSentExtraInfo 2"],
    [tab, "Network.responseReceived", { requestId: "2" }, "queued responseReceived 2"],
    [tab, ...sent("3", "Image", { method: "POST", hasPostData: true }), "urgent requestWillBeSent 3"],
    [tab, ...sent("4", "Ping", { method: "POST", postData: "" }), "urgent requestWillBeSent 4"],
    [tab, ...sent("5", "Other", { method: "POST", postDataEntries: [{ bytes: "eA==" }] }), "urgent requestWillBeSent 5"],
    // A worker's request has its wire headers on the page's session.
    [{ tabId: 3, sessionId: "W" }, ...sent("6", "Script"), "queued requestWillBeSent 6"],
    [tab, "Network.requestWillBeSentExtraInfo", { requestId: "6" }, "queued requestWillBeSentExtraInfo 6"],
    [tab, "Page.loadEventFired", {}, "urgent loadEventFired"],
    [tab, "Network.loadingFinished", { requestId: "1" }, "queued loadingFinished 1"],
    // Once it ended, its id is forgotten: a new request under it decides again.
    [tab, ...sent("1", "Fetch"), "urgent requestWillBeSent 1"],
  ];
  for (const [i, [source, method, params, want]] of cases.entries()) {
    hand(source, method, params);
    assert.equal(log.at(-1), want, `case ${i}: ${method} ${JSON.stringify(params)}`);
    assert.equal(log.length, i + 1, `case ${i}: one event handed`);
  }
});

test("wire headers before their request wait for it and go its way, ahead of it", () => {
  const { hand, log } = routed();
  hand(tab, "Network.requestWillBeSentExtraInfo", { requestId: "7" });
  hand(tab, "Network.requestWillBeSentExtraInfo", { requestId: "8" });
  hand(tab, "Network.responseReceivedExtraInfo", { requestId: "8" });
  assert.deepEqual(log, []);
  hand(tab, ...sent("8", "Document"));
  hand(tab, ...sent("7", "Image"));
  assert.deepEqual(log, [
    "urgent requestWillBeSentExtraInfo 8", "urgent responseReceivedExtraInfo 8", "urgent requestWillBeSent 8",
    "queued requestWillBeSentExtraInfo 7", "queued requestWillBeSent 7",
  ]);
});

test("wire headers whose request never comes go at once after the hold", async () => {
  const { hand, log } = routed(50);
  hand(tab, "Network.requestWillBeSentExtraInfo", { requestId: "9" });
  await sleep(10);
  assert.deepEqual(log, []);
  await sleep(100);
  assert.deepEqual(log, ["urgent requestWillBeSentExtraInfo 9"]);
  // Its request, coming after all, decides for what follows.
  hand(tab, ...sent("9", "Image"));
  hand(tab, "Network.responseReceivedExtraInfo", { requestId: "9" });
  assert.deepEqual(log.slice(1), ["queued requestWillBeSent 9", "queued responseReceivedExtraInfo 9"]);
});

test("a piece of a file's copy goes after every event the pacer holds", () => {
  const { hand, log } = routed();
  hand(tab, ...sent("1", "Image"));
  hand(tab, "Runtime.executionContextsCleared", {});
  hand(tab, "Runtime.bindingCalled", {});
  hand(tab, "Page.loadEventFired", {});
  assert.deepEqual(log, ["queued requestWillBeSent 1", "queued executionContextsCleared", "flush", "urgent bindingCalled", "urgent loadEventFired"]);
});

test("a body still arriving is passed on once each arrivalMs per request, every one before the core started", () => {
  const newArrivals = new Function(`${readFileSync(new URL("../../../extension/events.js", import.meta.url), "utf8")}\nreturn newArrivals;`)();
  let arrivalMs = 0;
  const shows = newArrivals(() => arrivalMs);
  const arriving = (requestId) => shows(tab, "Network.dataReceived", { requestId, dataLength: 10 });
  assert.deepEqual([arriving("1"), arriving("1")], [true, true], "before the core started");
  arrivalMs = 60000;
  assert.deepEqual([arriving("2"), arriving("2"), arriving("3")], [true, false, true]);
  assert.equal(shows(tab, "Network.dataReceived", { requestId: "2", data: "eA==" }), true, "an event with data always goes");
  assert.equal(shows(tab, "Network.loadingFinished", { requestId: "2" }), true);
  assert.equal(arriving("2"), true, "a request id seen again after its end starts afresh");
  arrivalMs = 0;
  assert.deepEqual([arriving("3"), arriving("3")], [true, true]);
});
