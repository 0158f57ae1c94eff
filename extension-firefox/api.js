// webkeep's pages in Firefox: their requests for /api/... go to the background page as
// runtime messages, where the core answers them (background.js), for Firefox's
// extensions have no service worker to answer a fetch. Loaded before the pages' code,
// which calls fetch as it does in Chromium. Other requests are fetched as ever.
"use strict";
(() => {
  const fetchFromNetwork = globalThis.fetch.bind(globalThis);
  globalThis.fetch = async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.origin !== location.origin || !url.pathname.startsWith("/api/")) return fetchFromNetwork(input, init);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(await req.arrayBuffer());
    const a = await browser.runtime.sendMessage({ webkeepApi: { url: req.url, method: req.method, headers: [...req.headers], body } });
    const empty = a.status === 204 || a.status === 304 || req.method === "HEAD";
    return new Response(empty ? null : a.body, { status: a.status, statusText: a.statusText, headers: a.headers });
  };
})();
