// The service worker: Reconcile Lab keeps working offline after a first visit (a classroom on bad
// Wi-Fi). Registered by public/boot.js from the site's pages, once they have loaded.
//
// - Scope: the directory sw.js is served from (the site's own, at a root or under a sub-path);
//   every URL below is relative to it. It never touches another page of the host.
// - What it keeps: one cache per build, named after the scope and this build's version, holding
//   exactly this build's files (BUILD below, written by scripts/sw-build.sh from the files Trunk
//   just built: the pages, the stylesheet, boot.js, embed.js, the icons, lesson figures).
//   - On install: every file but the app (the wasm and its JS glue). A first visit to the home
//     page downloads no app for it: the home is plain HTML (docs/size.md).
//   - The app: once it has run (boot.js asks with "keep-app": it came before the worker
//     controlled the page, so it is taken from the HTTP cache, not downloaded again), or when a
//     page this worker controls fetches it. A visitor who had the app gets the new build's app
//     at install, so that an update never leaves a page without its app offline.
// - How it answers: the pages and the files whose names carry no content hash (boot.js,
//   embed.js) from the network first, then from the cache when the network fails or is slow; the
//   content-hashed files from the cache first. What comes from the network is never written
//   into the cache: the cache holds one build, as installed, so an HTML page from it never names
//   files that are not beside it. Anything not in this build passes through untouched.
// - A new build: its sw.js differs (BUILD changes), so the browser installs it beside the old
//   one, which keeps serving the pages it controls until they close (its cache is complete and
//   consistent); on activation the new worker deletes the old build's cache (same scope only:
//   another deployment on the same origin keeps its own).
// - Content-Security-Policy: a same-origin script (worker-src falls back to script-src 'self').
// No page text is ever evaluated here; a message is acted on only by its type.
"use strict";

// Replaced by scripts/sw-build.sh in dist/ (the line must stay one line).
const BUILD = { version: "development", shell: [], app: [] };

const SOURCE = "reconcile-lab";
const SCOPE = self.registration.scope;
const PREFIX = `${SOURCE} ${SCOPE} `;
const CACHE = PREFIX + BUILD.version;
const at = (path) => new URL(path, SCOPE).href;
const SHELL = BUILD.shell.map(at);
const APP = BUILD.app.map(at);
// The pages that start the app: each must name this build's app (its glue), or it belongs to
// another build (the host changed under the install) and the install fails, to be tried again.
const PAGES = ["index.html", "embed.html"].map(at);
// Trunk's content-hashed names (`site-ce73a493c0893784.css`, `reconcile-lab-9c0f..._bg.wasm`).
const HASHED = /-[0-9a-f]{12,}(_bg)?\.[a-z0-9]+$/;
// How long a page waits for the network before the cached copy is used instead.
const NETWORK_WAIT_MS = 4000;

/** The URL without its query and fragment: the cache's key. */
function keyOf(url) {
  const u = new URL(url);
  u.search = "";
  u.hash = "";
  // The site's directory is its index.html.
  return u.href === SCOPE ? at("index.html") : u.href;
}

async function fetchChecked(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  // A host that redirects (index.html to its directory) gives a redirected response, which a
  // navigation refuses to be answered with: keep the body and headers only.
  if (response.redirected) {
    return new Response(await response.blob(), { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  return response;
}

async function keepApp(cache) {
  for (const url of APP) {
    if (await cache.match(url)) continue;
    // The page fetched it moments ago: the HTTP cache has it, fresh or not.
    await cache.put(url, await fetchChecked(url, { cache: "force-cache" }));
  }
}

/** Whether an older build's cache of this scope holds an app: this visitor uses the app. */
async function hadApp() {
  for (const name of await caches.keys()) {
    if (!name.startsWith(PREFIX) || name === CACHE) continue;
    const old = await caches.open(name);
    if ((await old.keys()).some((r) => r.url.endsWith("_bg.wasm"))) return true;
  }
  return false;
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const glue = BUILD.app.find((f) => f.endsWith(".js"));
      await Promise.all(
        SHELL.map(async (url) => {
          // Revalidated, so that an HTTP-cached copy of an older build is not taken.
          const response = await fetchChecked(url, { cache: HASHED.test(url) ? "default" : "no-cache" });
          if (glue && PAGES.includes(url) && !(await response.clone().text()).includes(glue)) {
            throw new Error(`${url} is not this build's page`);
          }
          await cache.put(url, response);
        }),
      );
      if (await hadApp()) {
        for (const url of APP) await cache.put(url, await fetchChecked(url));
      }
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
    })(),
  );
});

self.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || typeof data !== "object" || data.source !== SOURCE || data.type !== "keep-app") return;
  event.waitUntil(caches.open(CACHE).then(keepApp).catch(() => {}));
});

/** The network's answer, or the cache's when the network fails or takes too long. */
async function networkFirst(request, key) {
  const cached = caches.open(CACHE).then((cache) => cache.match(key));
  const network = fetch(request);
  // Answered from the cache, the network's late failure is nobody's business.
  network.catch(() => {});
  let timer = 0;
  const slow = new Promise((resolve) => {
    timer = setTimeout(resolve, NETWORK_WAIT_MS);
  });
  try {
    const first = await Promise.race([network, slow]);
    if (first) return first;
    // The network is slow: the cached copy if there is one, else keep waiting.
    return (await cached) ?? (await network);
  } catch (err) {
    const copy = await cached;
    if (copy) return copy;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The cached copy; else the network's, kept when it is one of this build's files. */
async function cacheFirst(request, key) {
  const cache = await caches.open(CACHE);
  const copy = await cache.match(key);
  if (copy) return copy;
  const response = await fetch(request);
  if (response.ok && (APP.includes(key) || SHELL.includes(key))) {
    await cache.put(key, response.clone()).catch(() => {});
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE)) return;
  const key = keyOf(request.url);
  if (request.mode === "navigate" || (!HASHED.test(key) && SHELL.includes(key))) {
    event.respondWith(networkFirst(request, key));
  } else if (APP.includes(key) || SHELL.includes(key)) {
    event.respondWith(cacheFirst(request, key));
  }
});
