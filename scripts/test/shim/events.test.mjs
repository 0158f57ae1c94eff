// The shim's choice of which urgent events may wait (extension/events.js
// newQueuedRequests), run in node: all of a request's events wait when its first hop
// sends no body and is of no streamed type; the others', and the page's own, do not.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const newQueuedRequests = new Function(`${readFileSync(new URL("../../../extension/events.js", import.meta.url), "utf8")}\nreturn newQueuedRequests;`)();
const tab = { tabId: 3 };
const sent = (requestId, type, request = {}) => ["Network.requestWillBeSent", { requestId, type, request: { url: "http://example.org/", method: "GET", ...request } }];

test("a request's events wait as its first hop decides, until it ends", () => {
  const queues = newQueuedRequests(new Set(["Document", "Fetch", "XHR"]));
  const cases = [
    [tab, ...sent("1", "Image"), true],
    [tab, "Network.requestWillBeSentExtraInfo", { requestId: "1" }, true],
    [tab, "Network.responseReceivedExtraInfo", { requestId: "1" }, true],
    // A redirect's next hop follows its first, whatever it says.
    [tab, ...sent("1", "Image", { method: "POST", hasPostData: true }), true],
    [tab, ...sent("2", "Document"), false],
    [tab, "Network.requestWillBeSentExtraInfo", { requestId: "2" }, false],
    [tab, ...sent("3", "Image", { method: "POST", hasPostData: true }), false],
    [tab, ...sent("4", "Ping", { method: "POST", postData: "" }), false],
    [tab, ...sent("5", "Other", { method: "POST", postDataEntries: [{ bytes: "eA==" }] }), false],
    // The same id in a worker's session is another request.
    [{ tabId: 3, sessionId: "W" }, "Network.requestWillBeSentExtraInfo", { requestId: "1" }, false],
    // Extra info before any hop, and the page's own events, go at once.
    [tab, "Network.requestWillBeSentExtraInfo", { requestId: "9" }, false],
    [tab, "Page.loadEventFired", {}, false],
    [tab, "Page.frameStoppedLoading", { frameId: "F" }, false],
    [tab, "Network.loadingFinished", { requestId: "1" }, true],
    // Once it ended, its id is forgotten: a new request under it decides again.
    [tab, "Network.requestWillBeSentExtraInfo", { requestId: "1" }, false],
    [tab, ...sent("1", "Fetch"), false],
  ];
  for (const [i, [source, method, params, want]] of cases.entries()) {
    assert.equal(queues(source, method, params), want, `case ${i}: ${method} ${JSON.stringify(params)}`);
  }
});
