// scripts/lib/wire.mjs, the comparison of an archive with the wire that realsite.test.mjs
// and bench-realsite.mjs report: no browser, exchanges written out by hand.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareWire } from "../../lib/wire.mjs";

const wire = (status) => ({
  method: "GET", url: "/lib/images/external-link.svg", status, request_sha256: "empty", decoded_sha256: "svg",
  decoded_size: 3, request_size: 0, headers: [], complete: true,
});
const archived = (status, notes = [], truncated = "") => ({
  method: "GET", url: "/lib/images/external-link.svg", status, head: `HTTP/1.1 ${status} X\r\nContent-Type: image/svg+xml`,
  requestSHA: "empty", bodySHA: truncated ? "part" : "svg", notes, truncated, requestTruncated: false,
});

test("an exchange archived marked with the wire's status is paired with the wire before one with no response", () => {
  // Quick navigation: the page was left while the browser fetched the same image again
  // and again. Three went over the wire; the archive holds one whole, one cut (marked),
  // and two the browser never answered (marked "no response"), in an order that put
  // those two first.
  const left = "the page was left before its body arrived (requested 2s before)";
  const report = compareWire(
    [wire(200), wire(200), wire(200)],
    [archived(0, ["no response: the page was left before its response arrived"]), archived(0, ["no response: the page was left before its response arrived"]),
      archived(200), archived(200, [left], "length")],
    [],
  );
  assert.deepEqual(report.unmarked, []);
  assert.equal(report.exact, 1);
  assert.equal(report.missing.length, 0);
  assert.equal(Object.values(report.marked).reduce((a, b) => a + b, 0), 2);
  assert.equal(report.extra.length, 1, "one record with no response stands for no exchange");
});

test("an exchange archived with a response the wire never carried is an unmarked difference", () => {
  const report = compareWire([wire(200)], [archived(200), archived(200)], []);
  assert.equal(report.unmarked.length, 1, JSON.stringify(report.unmarked));
  assert.match(report.unmarked[0].what, /never on the wire; the wire carried 200 for it/);
});

test("a missing exchange says what the wire, the archive and the plain client hold for its URL; one with a note is exact and counted by it", () => {
  // Three on the wire, one archived whole with a note, one served by the browser's
  // cache (not paired with the wire), the plain client told of one: the two missing
  // are of those the plain client was not told of; told of two, one of them was.
  const noted = "the browser never reported this response, only its head on the wire, which came as its page was left, and gave all 3 bytes of its body that the server declared when asked";
  const report = compareWire(
    [wire(200), wire(200), wire(200)],
    [archived(200, [noted]), archived(200, ["served from the browser's memory cache"])],
    [{ method: "GET", url: "/lib/images/external-link.svg" }],
  );
  assert.equal(report.exact, 1);
  assert.deepEqual(report.exactNoted, { "the browser never reported this response, only its head on the wire, which came as its page was left, and gave all N bytes of its body that the server declared when asked": 1 });
  assert.equal(report.cached, 1);
  assert.equal(report.missing.length, 2);
  assert.deepEqual(report.missing[0], { method: "GET", url: "/lib/images/external-link.svg", status: 200, heardByDevTools: 1, onWire: 3, archived: 1, cached: 1 });
  assert.deepEqual(report.missingHeard, []);
  const told = { method: "GET", url: "/lib/images/external-link.svg" };
  const again = compareWire([wire(200), wire(200), wire(200)], [archived(200, [noted])], [told, told]);
  assert.deepEqual(again.missingHeard.map((m) => m.beyond), [1]);
});
