// webkeep's pages in Firefox: their requests for /api/... go to the background page as
// runtime messages, where the core answers them (background.js), for Firefox's
// extensions have no service worker to answer a fetch. Loaded before the pages' code,
// which calls fetch as it does in Chromium. Other requests are fetched as ever. A link
// to a download of the API is fetched so too, and saved from a blob URL.
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

  // The name a download is saved under: its Content-Disposition's, else the URL's last part.
  const fileName = (res, url) => {
    const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(res.headers.get("Content-Disposition") || "");
    return m ? decodeURIComponent(m[1]) : decodeURIComponent(url.pathname.split("/").pop());
  };
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
