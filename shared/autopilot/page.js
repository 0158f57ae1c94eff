// webkeep autopilot: the page script. It reports what the page holds and carries out
// one action at a time; every decision is the core's (shared/autopilot, Pilot.Next).
// Chromium's core runs it in the recorded page (Runtime.evaluate); Firefox's content
// script runs it in every page (extension-firefox/manifest.json) and calls it when the
// background page asks (extension-firefox/content.js).
//
// It defines globalThis[Symbol.for("webkeep.autopilot")](message), once per document:
//   {op: "report"}                 resolves to a Report (shared/autopilot)
//   {op: "act", action: Action}    carries the action out, resolves to {}
(() => {
  const key = Symbol.for("webkeep.autopilot");
  if (typeof globalThis[key] === "function") return;
  const ids = new WeakMap();
  const elements = new Map(); // id -> WeakRef of the element
  let next = 1;
  const idOf = (el) => {
    let id = ids.get(el);
    if (!id) {
      id = next++;
      ids.set(el, id);
      elements.set(id, new WeakRef(el));
    }
    return id;
  };
  const element = (id) => {
    const el = elements.get(id)?.deref();
    return el && el.isConnected ? el : null;
  };
  // The last time a resource finished loading, or the document changed.
  let busy = performance.now();
  const touch = () => { busy = performance.now(); };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) busy = Math.max(busy, e.responseEnd || e.startTime);
    }).observe({ type: "resource", buffered: true });
  } catch {}
  const watch = () => new MutationObserver(touch).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["src", "srcset", "open"] });
  if (document) watch();
  const short = (s, n) => String(s ?? "").replace(/\s+/g, " ").trim().slice(0, n);
  const shown = (el) => el.getClientRects().length > 0;
  const maxButtons = 300;
  const report = () => {
    const doc = document.documentElement;
    const buttons = [];
    for (const el of document.querySelectorAll("button, input[type=button], input[type=submit], input[type=image], [role=button], a[href]")) {
      if (buttons.length >= maxButtons) break;
      if (!shown(el)) continue;
      const text = short(el.innerText ?? el.textContent, 80);
      if (el.localName === "a" && text.length > 40) continue; // a link of prose, not a control
      buttons.push({
        id: idOf(el),
        tag: el.localName,
        type: (el.getAttribute("type") || "").toLowerCase(),
        text,
        label: short(el.getAttribute("aria-label") || el.getAttribute("title") || (el.localName === "input" ? el.value : ""), 80),
        href: el.localName === "a" ? el.getAttribute("href") || "" : "",
        target: el.getAttribute("target") || "",
        inForm: Boolean(el.closest("form") || el.form || el.hasAttribute("form")),
        disabled: Boolean(el.disabled || el.getAttribute("aria-disabled") === "true"),
      });
    }
    const media = [...document.querySelectorAll("video, audio")].map((m) => ({
      id: idOf(m),
      tag: m.localName,
      src: m.currentSrc || m.src || "",
      paused: m.paused,
      ended: m.ended,
      failed: Boolean(m.error) || (!m.currentSrc && !m.src && !m.querySelector("source[src]")),
      time: m.currentTime || 0,
      duration: Number.isFinite(m.duration) ? m.duration : 0,
    }));
    const srcsets = [...document.querySelectorAll("img[srcset], picture source[srcset]")].slice(0, 1000)
      .map((e) => ({ srcset: e.getAttribute("srcset"), base: document.baseURI }));
    return {
      url: location.href,
      ready: document.readyState === "complete",
      hidden: document.visibilityState === "hidden",
      height: Math.max(doc.scrollHeight, document.body ? document.body.scrollHeight : 0),
      scrollY: Math.round(scrollY),
      viewport: innerHeight,
      items: document.querySelectorAll("article, li, [role=article], [role=listitem], tr").length,
      buttons,
      media,
      srcsets,
      closedDetails: document.querySelectorAll("details:not([open])").length,
      quietMs: Math.round(performance.now() - busy),
    };
  };
  const fetchTimeout = 15000;
  const load = (url) => new Promise((resolve) => {
    const img = new Image();
    const timer = setTimeout(resolve, fetchTimeout);
    img.onload = img.onerror = () => { clearTimeout(timer); resolve(); };
    img.src = url;
  });
  const act = async (a) => {
    switch (a.kind) {
      case "scroll":
        scrollTo(0, Math.min(a.y || Infinity, document.documentElement.scrollHeight));
        break;
      case "click": {
        const el = element(a.target);
        if (!el) break;
        el.scrollIntoView({ block: "center" });
        el.click();
        touch();
        break;
      }
      case "open":
        for (const d of document.querySelectorAll("details:not([open])")) d.open = true;
        touch();
        break;
      case "play": {
        const m = element(a.target);
        if (!m) break;
        m.muted = true;
        try { m.playbackRate = 16; } catch { try { m.playbackRate = 4; } catch {} }
        m.scrollIntoView({ block: "center" });
        await m.play().catch(() => {});
        break;
      }
      case "fetch":
        await Promise.all((a.urls || []).map(load));
        break;
    }
    return {};
  };
  Object.defineProperty(globalThis, key, {
    value: (m) => (m && m.op === "act" ? act(m.action || {}) : Promise.resolve(report())),
  });
})();
