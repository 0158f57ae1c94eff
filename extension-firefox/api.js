// webkeep's pages in Firefox: their requests for /api/... go to the background page as
// runtime messages, where the core answers them (background.js), for Firefox's
// extensions have no service worker to answer a fetch. Loaded before the pages' code,
// which calls fetch as it does in Chromium. Other requests go to the network as ever.
// A link to a download of the API is fetched so too, and saved from a blob URL; an
// image of the API is fetched and shown from one.
"use strict";
(() => {
  const fetchFromNetwork = globalThis.fetch.bind(globalThis);
  const isAPI = (url) => url.origin === location.origin && url.pathname.startsWith("/api/");
  // A message sent while Firefox suspends the background page finds nothing to answer
  // it ("Receiving end does not exist"), and nothing was done: it is sent again, which
  // starts the page again.
  const send = async (message) => {
    for (let tries = 1; ; tries++) {
      try {
        return await browser.runtime.sendMessage(message);
      } catch (e) {
        if (tries >= 5 || !/Receiving end does not exist/.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 200 * tries));
      }
    }
  };
  // A body goes to the background page with the request, as bytes; but a Blob (an
  // imported file) larger than a piece goes in pieces, slices of the Blob (which a
  // message carries as a reference to the file, not its bytes), each sent once the core
  // has taken the one before (pieces.js, newPieceBodies): an upload of any size holds
  // a piece in memory at a time.
  // A request aborted (an upload cancelled) rejects at once; the background page still
  // answers it, its body's stream failed.
  const piece = 4 << 20;
  const sendPieces = async (blob, id, signal) => {
    for (let at = 0; at < blob.size; at += piece) {
      if (signal.aborted) return send({ webkeepBody: { id, abort: true } });
      // Not taken: the core answered without reading the rest.
      if (!(await send({ webkeepBody: { id, blob: blob.slice(at, at + piece) } })).taken) return undefined;
    }
    return send({ webkeepBody: { id, end: true } });
  };
  globalThis.fetch = async (input, init) => {
    const req = new Request(input, init);
    if (!isAPI(new URL(req.url))) return fetchFromNetwork(input, init);
    const aborted = new Promise((_, reject) => {
      if (req.signal.aborted) reject(req.signal.reason);
      req.signal.addEventListener("abort", () => reject(req.signal.reason));
    });
    const blob = init && init.body instanceof Blob && init.body.size > piece ? init.body : null;
    const bodyId = blob ? crypto.randomUUID() : undefined;
    const body = blob || req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(await req.arrayBuffer());
    const answer = send({ webkeepApi: { url: req.url, method: req.method, headers: [...req.headers], body, bodyId } });
    if (blob) sendPieces(blob, bodyId, req.signal).catch((e) => console.error("webkeep: sending a body:", e));
    const a = await Promise.race([answer, aborted]);
    const empty = a.status === 204 || a.status === 304 || req.method === "HEAD";
    return new Response(empty ? null : a.body, { status: a.status, statusText: a.statusText, headers: a.headers });
  };

  // The name a download is saved under: its Content-Disposition's, else the URL's last part.
  const fileName = (res, url) => {
    const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(res.headers.get("Content-Disposition") || "");
    return m ? decodeURIComponent(m[1]) : decodeURIComponent(url.pathname.split("/").pop());
  };
  // An image of the API (a page's picture) is fetched so too, and shown from a blob
  // URL: the images the pages add, or point elsewhere, are watched for.
  const shown = async (img) => {
    const url = new URL(img.getAttribute("src"), location.href);
    if (!isAPI(url)) return;
    img.dataset.apiSrc = url.href;
    const res = await globalThis.fetch(url);
    if (!res.ok || img.dataset.apiSrc !== url.href) return;
    const old = img.src;
    img.src = URL.createObjectURL(await res.blob());
    if (old.startsWith("blob:")) URL.revokeObjectURL(old);
  };
  const watch = (node) => {
    if (node instanceof HTMLImageElement && node.getAttribute("src")) shown(node).catch((e) => console.error("webkeep:", e));
    if (node instanceof Element) for (const img of node.querySelectorAll("img[src]")) watch(img);
  };
  new MutationObserver((changes) => {
    for (const c of changes) {
      if (c.type === "attributes") watch(c.target);
      else c.addedNodes.forEach(watch);
    }
  }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["src"] });
  document.addEventListener("click", async (e) => {
    const link = e.target instanceof Element && e.target.closest("a[href]");
    if (!link || e.defaultPrevented || e.button !== 0) return;
    const url = new URL(link.href);
    if (url.origin !== location.origin || !url.pathname.startsWith("/api/")) return;
    e.preventDefault();
    const res = await globalThis.fetch(url);
    if (!res.ok) {
      console.error(`webkeep: ${url.pathname}: ${res.status} ${await res.text()}`);
      return;
    }
    const save = document.createElement("a");
    save.href = URL.createObjectURL(await res.blob());
    save.download = fileName(res, url);
    save.click();
    setTimeout(() => URL.revokeObjectURL(save.href), 60000);
  });
})();
