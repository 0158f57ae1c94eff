package main

// The demo site's fixed content.

const indexHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>webkeep demo site</title>
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script></head>
<body>
<h1><img src="/static/logo.svg" alt="" width="32" height="32"> webkeep demo site</h1>
<p>A small site that does what real sites do, for recording with webkeep.</p>
<ul>
<li><a href="/forms" id="to-forms">Forms and API calls</a></li>
<li><a href="/gallery" id="to-gallery">Gallery</a></li>
<li><a href="/redirect/start" id="to-redirect">A redirect chain (301, 302, 200)</a></li>
<li><a href="/missing" id="to-missing">A page that does not exist</a></li>
<li><a href="/data.txt">data.txt</a> and <a href="/robots.txt">robots.txt</a></li>
</ul>
<p><button id="load-big" type="button">Load the large file</button> <output id="big-result"></output></p>
<img src="/static/pixel.png" alt="pixel">
</body></html>
`

const galleryHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gallery</title>
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script></head>
<body data-worker="true"><h1>Gallery</h1>
<p id="worker-status">A worker is fetching data…</p>
<img src="/static/logo.svg" alt="logo" width="64">
<img src="/static/pixel.png" alt="pixel" width="64">
<img src="/static/noise.bin" alt="noise" width="64">
<p><a href="/">Home</a></p>
</body></html>
`

const formsHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Forms and API calls</title>
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script></head>
<body><h1>Forms and API calls</h1>
<form id="form-urlencoded" method="post" action="/submit/form">
  <label>Name <input name="name" value="Ada Lovelace"></label>
  <label>Note <input name="note" value="x=1&amp;y=2 café"></label>
  <button type="submit">Send form</button>
</form>
<form id="form-multipart" method="post" action="/submit/upload" enctype="multipart/form-data">
  <label>Title <input name="title" value="upload test"></label>
  <label>File <input type="file" name="file"></label>
  <button type="submit">Upload</button>
</form>
<p>
<button id="post-json" type="button">fetch() POST JSON</button>
<button id="post-text" type="button">POST text/plain</button>
<button id="post-binary" type="button">POST binary</button>
<button id="post-multipart" type="button">POST FormData with a file</button>
<button id="put-item" type="button">PUT</button>
<button id="delete-item" type="button">DELETE</button>
<button id="search-first" type="button">Search "first"</button>
<button id="search-second" type="button">Search "second"</button>
</p>
<pre id="out"></pre>
<p><a href="/">Home</a></p>
</body></html>
`

const redirectEndHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Redirected</title></head>
<body><h1>End of the redirect chain</h1><p><a href="/">Home</a></p></body></html>
`

const loginHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body><h1>Sign in</h1>
<form id="login" method="post" action="/login">
<label>User <input name="user" value="zoë"></label>
<label>Password <input type="password" name="secret" id="pw"></label>
<button>Sign in</button>
</form>
<p><a href="/">Home</a></p>
</body></html>
`

const loggedInHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signed in</title></head>
<body><h1>Signed in</h1><p><a id="account" href="/account">Your account</a>
<a id="open-hang" href="/hang" target="_blank">A page that never ends, in a new tab</a></p></body></html>
`

const loginFailedHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in failed</title></head>
<body><h1>Give a user and a password</h1><p><a href="/login">Again</a></p></body></html>
`

const accountHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Account</title></head>
<body><h1>Account</h1><p id="session">session: {session}</p></body></html>
`

const notFoundHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>404 Not Found</title></head>
<body><h1>404: no such page</h1><p><a href="/">Home</a></p></body></html>
`

const styleCSS = `body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 48rem; }
h1 img { vertical-align: middle; }
form { border: 1px solid #ccc; padding: 1rem; margin: 1rem 0; }
pre { background: #f4f4f4; padding: 0.5rem; min-height: 3rem; }
`

// appJS performs the site's script-driven requests. Every call writes its result to
// #out, and sets data-done on the button, so a driver can wait for it.
const appJS = `"use strict";
const out = (text) => { const el = document.getElementById("out"); if (el) el.textContent += text + "\n"; };
async function call(id, method, url, body, headers) {
  const res = await fetch(url, { method, body, headers });
  const text = await res.text();
  out(method + " " + url + " -> " + res.status + " " + text.trim());
  document.getElementById(id).dataset.done = String(res.status);
}
const binary = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0x0d, 0x0a, 0x1f, 0x8b, 0xa0, 0xa1]);
const actions = {
  "post-json": (id) => call(id, "POST", "/api/json",
    JSON.stringify({ query: "telescope", page: 2, ratio: 0.5, big: 1e21, ok: true, none: null, tags: ["a", "b"], nested: { query: "again" } }),
    { "Content-Type": "application/json" }),
  "post-text": (id) => call(id, "POST", "/api/text", "plain text body\nsecond line, unicode: \u00e9\u4e2d", { "Content-Type": "text/plain;charset=UTF-8" }),
  "post-binary": (id) => call(id, "POST", "/api/binary", binary, { "Content-Type": "application/octet-stream" }),
  "post-multipart": (id) => {
    const fd = new FormData();
    fd.append("title", "blob upload");
    fd.append("file", new Blob(["file bytes \u00e9\n", binary], { type: "application/octet-stream" }), "data.bin");
    return call(id, "POST", "/submit/upload", fd);
  },
  "put-item": (id) => call(id, "PUT", "/api/item/42", JSON.stringify({ name: "item 42", count: 3 }), { "Content-Type": "application/json" }),
  "delete-item": (id) => call(id, "DELETE", "/api/item/42"),
  // One endpoint POSTed twice with different bodies, answering each differently.
  "search-first": (id) => call(id, "POST", "/api/search", JSON.stringify({ q: "first" }), { "Content-Type": "application/json" }),
  "search-second": (id) => call(id, "POST", "/api/search", JSON.stringify({ q: "second" }), { "Content-Type": "application/json" }),
};
for (const [id, action] of Object.entries(actions)) {
  const button = document.getElementById(id);
  if (button) button.addEventListener("click", () => action(id).catch((e) => out(id + " failed: " + e)));
}
// A dedicated worker makes its own requests: recorders must see those too.
if (document.body && document.body.dataset.worker) {
  const worker = new Worker("/static/worker.js");
  worker.onmessage = (e) => {
    const status = document.getElementById("worker-status");
    status.textContent = "The worker says: " + e.data;
    status.dataset.done = "true";
  };
}
const big = document.getElementById("load-big");
if (big) big.addEventListener("click", async () => {
  const res = await fetch("/big");
  const buf = await res.arrayBuffer();
  const digest = await crypto.subtle.digest("SHA-256", buf);
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  document.getElementById("big-result").textContent = buf.byteLength + " bytes, sha256 " + hex;
  big.dataset.done = String(res.status);
});
`

const workerJS = `"use strict";
fetch("/api/worker", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "sent from a worker" })
  .then((r) => r.json())
  .then((j) => postMessage(j.length + " bytes received"), (e) => postMessage("failed: " + e));
`

const logoSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="#2a6"/><path d="M9 16l5 5 9-10" stroke="#fff" stroke-width="3" fill="none"/></svg>
`

// pixelPNG is a 1x1 PNG.
var pixelPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x60, 0xf8, 0x0f,
	0x00, 0x01, 0x04, 0x01, 0x00, 0x5f, 0xe5, 0xc3, 0x4b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
	0x44, 0xae, 0x42, 0x60, 0x82,
}

const dataTXT = `# Datasets published by the webkeep demo site
User-agent: *
Disallow: /private/
Allow: /

User-agent: webkeep
Disallow: /big
`

const robotsTXT = `User-agent: *
Disallow: /private/
`

// videoHTML shows the video of -video (see site.addVideo).
const videoHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Video</title><link rel="stylesheet" href="/static/style.css"></head>
<body><h1>A video</h1>
<video id="video" src="/media/video.webm" controls muted preload="auto" width="320" height="240"></video>
</body></html>
`
