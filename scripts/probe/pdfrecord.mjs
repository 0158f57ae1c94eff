// What an extension's debugger on a tab sees of a PDF the tab navigates to, and
// whether it can attach again: a server on 127.0.0.1 serves /doc.pdf (a one-page PDF)
// and HTML elsewhere; webkeep's service worker attaches chrome.debugger to a tab of its
// own, navigates it to the PDF and logs, with milliseconds, the Network and Page events,
// the detach, the body asked for each way, then attaches again on the PDF (fetching it
// once more with Network.loadNetworkResource) and follows the tab to /after.
//
//   node scripts/probe/pdfrecord.mjs [net|stream|fetch]
//
// net: Network.getResponseBody as the body ends; stream: Network.streamResourceContent
// from the request on (durable messages, as the recorder does for documents); fetch:
// the Fetch domain pausing documents at their response, Fetch.getResponseBody there.
// In Chromium 156 (2026-12-06): the debugger is taken off (target_closed) some 10 ms
// after the body ends, before getResponseBody or the stream answer; the Fetch domain
// gets it; attaching again on the PDF works and stays, fetching it again gives it whole,
// and the next page's requests are all seen (shared/recorder/takenoff.go).
import { createServer } from "node:http";
import { launch, waitFor } from "../lib/browser.mjs";

const pdf = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");
const server = createServer((req, res) => {
  if (req.url.startsWith("/doc.pdf")) { res.writeHead(200, { "Content-Type": "application/pdf", "Content-Length": pdf.length }); return res.end(pdf); }
  res.writeHead(200, { "Content-Type": "text/html" }); res.end(`<p>page ${req.url}</p><a href="/doc.pdf">pdf</a>`);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await launch();
const mode = process.argv[2] || "fetch";
try {
  const out = await browser.sw.evaluate(async ({ base, mode }) => {
    const log = [];
    const t0 = performance.now();
    const L = (...a) => log.push(`${Math.round(performance.now() - t0)} ${a.join(" ")}`);
    const tab = await chrome.tabs.create({ url: `${base}/start` });
    await new Promise((r) => setTimeout(r, 500));
    const target = { tabId: tab.id };
    const send = (m, p) => chrome.debugger.sendCommand(target, m, p);
    chrome.debugger.onDetach.addListener((s, reason) => L("detach", s.tabId, reason));
    chrome.debugger.onEvent.addListener(async (s, method, p) => {
      if (s.tabId !== tab.id) return;
      if (method === "Fetch.requestPaused") {
        L("paused", p.resourceType, p.request.url, p.responseStatusCode, JSON.stringify(p.responseHeaders?.find((h) => /content-type/i.test(h.name))));
        if (p.responseStatusCode) {
          try {
            const b = await send("Fetch.getResponseBody", { requestId: p.requestId });
            L("fetch body", b.base64Encoded, b.body.length);
          } catch (e) { L("fetch body err", e.message); }
        }
        send(p.responseStatusCode ? "Fetch.continueResponse" : "Fetch.continueRequest", { requestId: p.requestId }).catch((e) => L("continue err", e.message));
        return;
      }
      if (method.startsWith("Network.")) L(method, p.type || "", p.request?.url || p.response?.url || "", p.requestId, p.dataLength ?? "", p.data ? `data ${p.data.length}` : "");
      if (method === "Network.requestWillBeSent" && mode === "stream" && p.type === "Document") {
        send("Network.streamResourceContent", { requestId: p.requestId }).then((r) => L("streaming", r.bufferedData.length), (e) => L("stream err", e.message));
      }
      if (method === "Network.loadingFinished") {
        try { const b = await send("Network.getResponseBody", { requestId: p.requestId }); L("net body", b.body.length); } catch (e) { L("net body err", e.message); }
      }
      if (method === "Page.frameNavigated") L("frameNavigated", p.frame.url, p.frame.mimeType);
    });
    await chrome.debugger.attach(target, "1.3");
    if (mode === "stream") await send("Network.configureDurableMessages", { maxTotalBufferSize: 100 << 20, maxResourceBufferSize: 50 << 20 });
    await send("Network.enable", {});
    await send("Page.enable", {});
    if (mode === "fetch") await send("Fetch.enable", { patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Response" }] });
    L("navigating");
    await chrome.tabs.update(tab.id, { url: `${base}/doc.pdf` });
    await new Promise((r) => setTimeout(r, 2000));
    L("tab", JSON.stringify(await chrome.tabs.get(tab.id).then((t) => t.url)));
    try {
      await chrome.debugger.attach(target, "1.3"); L("reattach on pdf ok");
      await send("Network.enable", {}); await send("Page.enable", {});
      const tree = await send("Page.getFrameTree", {});
      L("frame", tree.frameTree.frame.id, tree.frameTree.frame.url, tree.frameTree.frame.mimeType, "children", (tree.frameTree.childFrames || []).length);
      const r = await send("Network.loadNetworkResource", { frameId: tree.frameTree.frame.id, url: `${base}/doc.pdf`, options: { disableCache: false, includeCredentials: true } });
      L("loadNetworkResource", JSON.stringify(r.resource).slice(0, 200));
      if (r.resource.stream) { const d = await send("IO.read", { handle: r.resource.stream, size: 1 << 20 }); L("read", d.base64Encoded, d.data.length, d.eof); }
      await new Promise((r) => setTimeout(r, 1000));
      L("still attached after 1 s on the pdf");
    } catch (e) { L("reattach on pdf err", e.message); }
    await chrome.tabs.update(tab.id, { url: `${base}/after` });
    await new Promise((r) => setTimeout(r, 1000));
    return log;
  }, { base, mode });
  console.log(out.join("\n"));
} finally {
  await browser.context.close();
  server.close();
}
