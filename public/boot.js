// Starts Reconcile Lab when a route needs it, and shows the crash panel if it ever dies.
//
// A classic script in index.html's <head> (Trunk writes this tag from `pattern_script` in
// Trunk.toml, with the content-hashed file names in its data attributes, relative to the page so
// the site works from any path). It runs before the body is parsed, so the first paint already
// shows the right view. No inline script anywhere: the Content-Security-Policy allows scripts from
// 'self' only.
//
// When the app starts (docs/size.md, "Lazy start"):
// - index.html's home view is plain HTML (generated from the lessons by src/site.rs). A
//   first-time visitor on #/ downloads no WebAssembly at all.
// - The app starts on a lesson or sandbox route: a first load of #/sandbox or #/lessons/x, or a
//   link from the home page that changes the hash. Until it runs, "Starting Reconcile Lab…" is
//   said in the role=status element and a progress bar counts the wasm's bytes (of its
//   Content-Length, or of its size at build time when the host compresses it). If it fails, the
//   alert says which file and why (the HTTP status, the network error, a download stalled for
//   30 seconds) and offers Retry.
// - A visitor with saved progress (the PROGRESS_KEY below in local storage) gets the app at once
//   on the home page too: it writes the progress lines into the static list and shows the
//   saved-progress notice. They have been here: the wasm is likely in the browser's cache.
// - Warming: when the pointer or keyboard focus reaches a link into the app, the app starts
//   quietly (it renders nothing on the home route), so the click that follows finds it running.
// - This script shows the static home on #/ and hides it on the app's routes (data-view on the
//   root element, style/start.css), keeps aria-current on the site navigation and the page title
//   (the lesson's title, "Sandbox"), and moves focus sensibly when a route change hides what had it.
// - Once the page has loaded, it registers the service worker (public/sw.js): the site works
//   offline after a first visit. It keeps the app only once the app has run.
//
// embed.html (derived from index.html by scripts/embed-build.sh) shows a start view first: the
// lesson's title (or "Sandbox") from the query, one sentence, and "Start the playground" with the
// download size written at build time. The button, `load=1`, `autoplay=1`, or a `start` message
// from the parent window (docs/embed.md) starts the app in place, with the same progress bar; the
// parent hears `loading`, and `error` with the reason if it fails (the button becomes Retry).
//
// The crash panel (issue 10, panic safety): a panic aborts the WebAssembly instance (the Rust hook
// in src/web/panic.rs first writes what happened into the alert). Nothing can be asked of it
// afterwards, so the panel is plain JavaScript over what src/web/recovery.rs kept in session
// storage after the last intent that succeeded: the route, the share code, the console lines and
// the step log. Every text goes in through textContent, never as markup.

(() => {
"use strict";

const ALERT_ID = "fatal-error";
const HEAD_KEY = "reconcile-lab.recovery";
const CHUNK_PREFIX = "reconcile-lab.recovery.log.";
// src/session/lesson.rs's PROGRESS_KEY (tests/home_page.rs checks that the two agree).
const PROGRESS_KEY = "reconcile-lab.progress";
const SOURCE = "reconcile-lab";
// Set by the crash panel's reload in the embed: start without the start view, once.
const START_KEY = "reconcile-lab.start-at-once";

const script = document.currentScript;
const isEmbed = /(^|\/)embed\.html$/.test(location.pathname);
const query = new URLSearchParams(location.search);

/** What src/web/recovery.rs kept, or null when there is nothing usable (or no storage at all). */
function readRecovery() {
  try {
    const head = JSON.parse(sessionStorage.getItem(HEAD_KEY) ?? "null");
    if (head === null || typeof head !== "object" || head.version !== 1) return null;
    const first = Number.isSafeInteger(head.firstChunk) ? head.firstChunk : 0;
    const end = Number.isSafeInteger(head.chunks) ? Math.min(head.chunks, first + 1000) : first;
    const log = [];
    for (let i = first; i < end; i++) {
      const text = sessionStorage.getItem(CHUNK_PREFIX + i);
      if (text !== null) log.push(text);
    }
    return { head, log: log.join("\n"), earlier: first * 100 };
  } catch {
    return null;
  }
}

/** The export: everything a bug report or a later visit needs, as plain text. */
function exportText(message, saved) {
  const head = saved?.head ?? {};
  const lines = [
    "Reconcile Lab: state exported after an internal error",
    `Exported: ${new Date().toISOString()}`,
    `Page: ${location.href}`,
    `What happened: ${message}`,
    `Route: ${head.route ?? "(unknown)"}`,
    `Share code: ${typeof head.share === "string" ? head.share : "(none kept)"}`,
    `Share link: ${typeof head.shareHash === "string" ? new URL(head.shareHash, location.href).href : "(none kept)"}`,
    `Seed: ${head.seed ?? "(unknown)"}; lesson: ${head.lesson ?? "(sandbox)"}`,
    `At step ${head.step ?? "?"} of ${head.steps ?? "?"}`,
    "",
    "Console lines:",
    ...(Array.isArray(head.commands) ? head.commands.map((c) => `  ${c}`) : ["  (none kept)"]),
    "",
    saved?.earlier ? `Step log (the ${saved.earlier} earlier steps were not kept):` : "Step log:",
    saved?.log || "(none kept)",
    "",
  ];
  return lines.join("\n");
}

function button(label, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

/** Turns the alert into the crash panel (once), and makes the dead page behind it inert. */
function showCrash(detail) {
  const alert = document.getElementById(ALERT_ID);
  if (!alert || alert.dataset.crashed) return;
  alert.dataset.crashed = "true";
  // The panic hook's sentence, if it ran; otherwise what the browser reported.
  const message = !alert.hidden && alert.textContent.trim() ? alert.textContent.trim()
    : `Reconcile Lab stopped because of an internal error, not because of anything you did. Details for a bug report: ${detail}`;
  const saved = readRecovery();
  for (const el of document.body.children) if (el !== alert) el.inert = true;

  const heading = document.createElement("h2");
  heading.className = "fatal-error__title";
  heading.textContent = "Reconcile Lab stopped";
  const what = document.createElement("p");
  what.textContent = message;
  const help = document.createElement("p");
  help.textContent = saved
    ? `Nothing you did is lost. Reload from last good step rebuilds the page as it was after step ${saved.head.step ?? 0}, ` +
      "before the action that failed. Export state saves the share code and the step log, for a bug report."
    : "This browser kept no copy of the state (its session storage is unavailable). Export state saves what is known; " +
      "Reload from last good step starts the page again.";

  const text = exportText(message, saved);
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = "The exported state as text";
  const area = document.createElement("textarea");
  area.readOnly = true;
  area.rows = 8;
  area.value = text;
  area.setAttribute("aria-label", "Exported state");
  details.append(summary, area);

  const exportButton = button("Export state", () => {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = "reconcile-lab-state.txt";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  const reloadButton = button("Reload from last good step", () => {
    const share = saved?.head.share;
    if (/\/embed\.html$/.test(location.pathname)) {
      // The embed reads its state from the query (`embed.html?state=CODE&panels=...`): keep
      // the author's other parameters, replace where it starts from.
      const params = new URLSearchParams(location.search);
      params.delete("lesson");
      params.delete("step");
      if (typeof share === "string") params.set("state", share);
      // The learner asked for the playground back: the start view starts it at once.
      try {
        sessionStorage.setItem(START_KEY, "1");
      } catch {
        // Without session storage, the start view asks again.
      }
      history.replaceState(null, "", `?${params}`);
      location.reload();
      return;
    }
    // The share link of the last good state (`#/sandbox?state=CODE`): the page rebuilds it on
    // start (src/web/share.rs). Without one, the route the learner was on.
    const link = [saved?.head.shareHash, saved?.head.route].find((h) => typeof h === "string" && h.startsWith("#/"));
    history.replaceState(null, "", link ?? "#/");
    location.reload();
  });
  const actions = document.createElement("p");
  actions.className = "fatal-error__actions";
  actions.append(exportButton, " ", reloadButton);

  alert.replaceChildren(heading, what, help, actions, details);
  alert.hidden = false;
  exportButton.focus();
  // A host page waiting for an answer (a Run button of embed.js) would wait forever.
  // Its Reload (not a host's `start`) brings the playground back: retry is false.
  if (isEmbed) postToParent({ type: "error", message, retry: false });
}

// A panic ends in a trap (RuntimeError: unreachable); a runaway recursion in a RangeError. Either
// escapes from whatever event or timer called into the instance.
const isCrash = (e) =>
  e instanceof WebAssembly.RuntimeError || (e instanceof RangeError && /call stack/i.test(e.message));
window.addEventListener("error", (ev) => {
  if (isCrash(ev.error)) showCrash(String(ev.error));
});
window.addEventListener("unhandledrejection", (ev) => {
  if (isCrash(ev.reason)) showCrash(String(ev.reason));
});


// ----- Offline: the service worker (public/sw.js) -----

/**
 * Registers sw.js, next to this page (its scope is the directory the site is served from, so a
 * sub-path works). The site only: a documentation page's embed does not install anything. What
 * it caches, and when, is said in sw.js: the small files at once, the app only once it has run.
 */
function registerServiceWorker() {
  try {
    if (!("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register(new URL("sw.js", document.baseURI).href).catch(() => {
      // No service worker (a file: URL, a browser that refuses one): the site works online as before.
    });
  } catch {
    // An opaque origin refuses even the question.
  }
}

/**
 * Once the app runs, asks the service worker to keep it for offline visits. It was fetched
 * before the worker controlled this page, so the worker takes it from the HTTP cache
 * (sw.js, "keep-app"), without a second download.
 */
function keepOffline() {
  try {
    navigator.serviceWorker?.ready
      .then((registration) => registration.active?.postMessage({ source: SOURCE, type: "keep-app" }))
      .catch(() => {});
  } catch {
    // No service worker here.
  }
}

// ----- Starting the app -----

/** The route's path as src/session/lesson.rs's Route::parse reads it: "", "sandbox", "lessons/x". */
function routePath(hash) {
  const path = hash.replace(/^#/, "").split("?")[0];
  return path.replace(/^\/+/, "").replace(/\/+$/, "");
}
const isHome = (hash) => routePath(hash) === "";

/** Why the app could not start, in words for the learner: which file, and what went wrong. */
class StartError extends Error {}

/** A download that brings no byte for this long is given up (and said so): a stalled connection. */
const STALL_MS = 30_000;

/** The last part of a URL's path: the file a message names. */
const fileName = (url) => url.pathname.slice(url.pathname.lastIndexOf("/") + 1);

/** What a failed fetch was, in words: the browser says little more than "Failed to fetch". */
function networkWords(err) {
  if (navigator.onLine === false) return "the browser is offline";
  return `a network error (${err && err.message ? err.message : err})`;
}

/**
 * How far the app's download is: `loaded` bytes of `total` (null while unknown). Whoever shows it
 * (the site's progress bar, the embed's start view, the embed's `loading` message to its host)
 * subscribes with onProgress.
 */
const progress = { loaded: 0, total: null, done: false };
const progressListeners = new Set();
function onProgress(listener) {
  progressListeners.add(listener);
  listener(progress);
  return () => progressListeners.delete(listener);
}
function report(loaded, total, done = false) {
  Object.assign(progress, { loaded, total, done });
  for (const l of progressListeners) l(progress);
}

/**
 * The download's size, for the progress bar: the response's Content-Length when the body comes as
 * sent; when the server compresses it (Content-Encoding) the body is counted after decompression,
 * so the wasm's size measured at build time (data-wasm-size, written by scripts/embed-build.sh)
 * is the total; null when neither is known.
 */
function totalOf(response) {
  const built = Number(script.dataset.wasmSize);
  const length = Number(response.headers.get("content-length"));
  const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
  if (!encoded && Number.isSafeInteger(length) && length > 0) return length;
  return Number.isSafeInteger(built) && built > 0 ? built : null;
}

/**
 * Fetches the wasm, counting its bytes as they arrive. Resolves to a Response that streams the
 * same bytes (so wasm-bindgen still compiles it while it downloads); rejects, or errors the
 * stream, with a StartError naming the file and the HTTP status, the network error or the stall.
 */
function download(url) {
  const name = fileName(url);
  const abort = new AbortController();
  let failure = null;
  let stall = 0;
  const fail = (why) => {
    clearTimeout(stall);
    failure ??= new StartError(`downloading ${name} failed: ${why}`);
    return failure;
  };
  const watch = () => {
    clearTimeout(stall);
    stall = setTimeout(() => {
      fail(`no data arrived for ${STALL_MS / 1000} seconds (the connection stalled)`);
      abort.abort(failure);
    }, STALL_MS);
  };
  watch();
  const response = (async () => {
    let r;
    try {
      r = await fetch(url, { signal: abort.signal });
    } catch (err) {
      throw failure ?? fail(networkWords(err));
    }
    if (!r.ok) throw fail(`HTTP ${r.status}${r.statusText ? " " + r.statusText : ""}`);
    const total = totalOf(r);
    report(0, total);
    if (!r.body) {
      clearTimeout(stall);
      return r;
    }
    const reader = r.body.getReader();
    let loaded = 0;
    const body = new ReadableStream({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            clearTimeout(stall);
            report(loaded, total ?? loaded, true);
            controller.close();
            return;
          }
          loaded += value.byteLength;
          watch();
          report(loaded, total);
          controller.enqueue(value);
        } catch (err) {
          controller.error(failure ?? fail(networkWords(err)));
        }
      },
      cancel(reason) {
        clearTimeout(stall);
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: r.status, statusText: r.statusText, headers: r.headers });
  })();
  return { response, failure: () => failure };
}

/**
 * Why the JS glue could not be imported. A failed import() says only "Failed to fetch
 * dynamically imported module"; asking the server again tells a missing file from a network
 * error (one small request, made only after a failure).
 */
async function glueFailure(url, err) {
  const name = fileName(url);
  try {
    const r = await fetch(url, { method: "HEAD", cache: "no-store" });
    if (!r.ok) return new StartError(`downloading ${name} failed: HTTP ${r.status}${r.statusText ? " " + r.statusText : ""}`);
  } catch (probe) {
    return new StartError(`downloading ${name} failed: ${networkWords(probe)}`);
  }
  return new StartError(`loading ${name} failed: ${err && err.message ? err.message : err}`);
}

let started = null;
let running = false;
let attempts = 0;
let glueFailed = false;
/**
 * Loads the wasm and its JS glue and runs the app (once); resolves when it has mounted. A panic
 * while starting shows the crash panel; any other failure rejects with a StartError for the
 * caller to report, and the next call tries again (a quiet, early start may fail and be tried
 * again when a route needs the app; Retry calls it again).
 */
function start() {
  if (started) return started;
  attempts += 1;
  if (typeof WebAssembly !== "object") {
    started = Promise.reject(new StartError("this browser does not run WebAssembly, which Reconcile Lab needs"));
    started.catch(() => (started = null));
    return started;
  }
  const glue = new URL(script.dataset.js, document.baseURI);
  // A module whose import failed stays failed under its URL for the page's life: another URL
  // (the same file) makes the browser fetch it again.
  if (glueFailed) glue.searchParams.set("retry", String(attempts));
  // The wasm's download starts at once, beside the glue's.
  const wasm = download(new URL(script.dataset.wasm, document.baseURI));
  wasm.response.catch(() => {});
  started = (async () => {
    try {
      let init;
      try {
        ({ default: init } = await import(glue.href));
      } catch (err) {
        glueFailed = true;
        throw await glueFailure(glue, err);
      }
      if (document.readyState === "loading") {
        await new Promise((ok) => document.addEventListener("DOMContentLoaded", ok, { once: true }));
      }
      try {
        await init({ module_or_path: wasm.response });
      } catch (err) {
        // The download's own words when it was the download that failed (a stream that errors
        // mid-way reaches the compiler as a generic error).
        throw wasm.failure() ?? (err instanceof StartError ? err : new StartError(`starting ${fileName(new URL(script.dataset.wasm, document.baseURI))} failed: ${err}`));
      }
      running = true;
      keepOffline();
    } catch (err) {
      const alert = document.getElementById(ALERT_ID);
      // A panic while starting: its hook already put its message in the alert.
      if (alert && !alert.hidden && !alert.dataset.startError) {
        showCrash(String(err));
        throw err;
      }
      started = null;
      throw err instanceof StartError ? err : new StartError(String(err));
    }
  })();
  return started;
}

/** The sentence a learner reads when the app could not start. */
const startFailure = (err) => `Reconcile Lab could not start: ${err instanceof StartError ? err.message : err}.`;

/** The alert when the app is needed and could not start: what failed, and Retry. */
function cannotStart(err) {
  const alert = document.getElementById(ALERT_ID);
  if (!alert || alert.dataset.crashed) return;
  const what = document.createElement("p");
  what.textContent = startFailure(err);
  const retry = button("Retry", () => {
    alert.hidden = true;
    alert.replaceChildren();
    delete alert.dataset.startError;
    startForRoute().then(focusApp, () => {});
  });
  const help = document.createElement("p");
  help.className = "fatal-error__actions";
  help.append(retry);
  alert.replaceChildren(what, help);
  alert.dataset.startError = "true";
  alert.hidden = false;
}

/** Starts the app before it is needed (a returning visitor, a link about to be followed); a failure is not shown. */
function startQuietly() {
  start().catch(() => {});
}

/** Says `text` in the page's role=status element (once the body exists, when it does not yet). */
function say(text) {
  const status = document.getElementById("app-status");
  if (status) status.textContent = text;
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => say(text), { once: true });
}

/**
 * A progress bar for the app's download: a visible label, the percentage, and
 * role=progressbar with aria-valuenow/aria-valuemax in bytes (no value while the size is unknown).
 * It appears only when the download takes a moment, so that a cached app does not flash it.
 */
function progressBar(id, label) {
  const box = document.createElement("div");
  box.className = "load-progress";
  box.hidden = true;
  const head = document.createElement("p");
  head.className = "load-progress__head";
  const name = document.createElement("span");
  name.id = `${id}-label`;
  name.textContent = label;
  const figure = document.createElement("span");
  figure.className = "load-progress__figure";
  figure.setAttribute("aria-hidden", "true");
  head.append(name, " ", figure);
  const track = document.createElement("div");
  track.className = "load-progress__track";
  track.id = id;
  track.setAttribute("role", "progressbar");
  track.setAttribute("aria-labelledby", name.id);
  track.setAttribute("aria-valuemin", "0");
  const bar = document.createElement("div");
  bar.className = "load-progress__bar";
  track.append(bar);
  box.append(head, track);
  const show = setTimeout(() => (box.hidden = false), 250);
  const kb = (n) => `${Math.round(n / 1000).toLocaleString("en")} KB`;
  const stop = onProgress(({ loaded, total, done }) => {
    if (total) {
      const pct = Math.min(100, Math.floor((loaded * 100) / total));
      track.setAttribute("aria-valuemax", String(total));
      track.setAttribute("aria-valuenow", String(Math.min(loaded, total)));
      track.setAttribute("aria-valuetext", `${pct}%`);
      // Through the CSSOM, which the Content-Security-Policy's style-src allows.
      bar.style.width = `${pct}%`;
      figure.textContent = `${pct}%`;
    } else {
      track.removeAttribute("aria-valuemax");
      track.removeAttribute("aria-valuenow");
      track.setAttribute("aria-valuetext", `${kb(loaded)} received`);
      figure.textContent = `${kb(loaded)} received`;
    }
    if (done) name.textContent = "Downloaded; starting…";
  });
  return {
    box,
    remove() {
      clearTimeout(show);
      stop();
      box.remove();
    },
  };
}

/** The site's progress bar while it shows (one, however many routes asked for the app). */
let siteBar = null;

/** Starts the app for a route that needs it, showing its download until it runs, and why not if it cannot. */
function startForRoute() {
  const run = start();
  if (!running) {
    say("Starting Reconcile Lab…");
    const place = () => {
      const status = document.getElementById("app-status");
      if (!status || running || siteBar) return;
      const bar = progressBar("load-progress", "Downloading Reconcile Lab");
      siteBar = bar;
      status.after(bar.box);
      const gone = () => {
        bar.remove();
        siteBar = null;
      };
      run.then(gone, gone);
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", place, { once: true });
    else place();
  }
  run.then(() => say(""), (err) => {
    say("");
    cannotStart(err);
  });
  return run;
}

/** Which view the page shows (before the body exists: the root element's data-view). */
function markView() {
  document.documentElement.dataset.view = isHome(location.hash) ? "home" : "app";
}

/** aria-current="page" on the site navigation's link of the current route, and on no other. */
function markNavigation() {
  const path = routePath(location.hash);
  for (const a of document.querySelectorAll(".site-nav a")) {
    if (routePath(a.getAttribute("href") ?? "") === path) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

/** The site's name, the home page's title and the end of every other route's. */
const SITE_NAME = "Reconcile Lab";

/**
 * The page title of a route, as src/session/lesson.rs's Route::parse reads it: the lesson's title
 * (from the home page's static list, so it is right before the app has loaded), "Sandbox", or
 * what the app shows for a route it does not know.
 */
function titleFor(hash) {
  const path = routePath(hash);
  if (path === "") return SITE_NAME;
  if (path === "sandbox") return `Sandbox · ${SITE_NAME}`;
  const slug = /^lessons\/([^/]+)$/.exec(path)?.[1];
  if (slug === undefined) return `No such page · ${SITE_NAME}`;
  const link = [...document.querySelectorAll("#home a.lessons-home__link")].find(
    (a) => a.getAttribute("href") === `#/lessons/${slug}`,
  );
  return `${link ? link.textContent.trim() : "No such lesson"} · ${SITE_NAME}`;
}

function markTitle() {
  document.title = titleFor(location.hash);
}

/** Focus on the first heading of what the app shows, once it shows it (after a route change). */
function focusApp() {
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (active && active !== document.body) return;
    const heading = document.querySelector("#app h1");
    if (!heading) return;
    if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
    heading.focus();
  });
}

function onHashChange(event) {
  const active = document.activeElement;
  const home = document.getElementById("home");
  const app = document.getElementById("app");
  markView();
  markNavigation();
  markTitle();
  if (isHome(location.hash)) {
    // Back on the static home: focus follows if it was on what the app showed (now gone).
    if (!active || active === document.body || app?.contains(active)) {
      const left = "#/" + routePath(new URL(event.oldURL).hash);
      const link = [...(home?.querySelectorAll("a") ?? [])].find((a) => a.getAttribute("href") === left);
      (link ?? home?.querySelector("h1"))?.focus();
    }
    return;
  }
  const fromHome = !active || active === document.body || home?.contains(active);
  startForRoute().then(() => {
    if (fromHome || app?.contains(active)) focusApp();
  }, () => {});
}

/** A link on the page that leads into the app (a lesson, the sandbox). */
function leadsIntoApp(target) {
  const a = target instanceof Element ? target.closest("a[href^='#/']") : null;
  return a !== null && !isHome(a.getAttribute("href"));
}

function hasSavedProgress() {
  try {
    return localStorage.getItem(PROGRESS_KEY) !== null;
  } catch {
    // Storage refused: nothing saved to show.
    return false;
  }
}

function site() {
  markView();
  window.addEventListener("hashchange", onHashChange);
  const ready = () => {
    markNavigation();
    markTitle();
    const warm = (event) => {
      if (leadsIntoApp(event.target)) startQuietly();
    };
    document.addEventListener("pointerover", warm);
    document.addEventListener("focusin", warm);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready, { once: true });
  else ready();
  if (!isHome(location.hash)) startForRoute().catch(() => {});
  else if (hasSavedProgress()) startQuietly();
  // After the page has loaded, so that it never competes with the first view.
  window.addEventListener("load", registerServiceWorker, { once: true });
}

// ----- embed.html's start view -----

/** The parent window when this page is framed, else null. */
const parentWindow = () => (window.parent && window.parent !== window ? window.parent : null);

function postToParent(message) {
  parentWindow()?.postMessage({ source: SOURCE, version: 1, ...message }, "*");
}

/** Fills the start view's title and sentence from the query (`state`, `lesson`, else the sandbox). */
function describeStart(view) {
  const title = view.querySelector(".embed-start__title");
  const what = view.querySelector(".embed-start__what");
  if (query.has("state")) {
    title.textContent = "Shared cluster";
    what.textContent = "A miniature Kubernetes cluster in the state someone shared, running in your browser: " +
      "step through what its controllers do next, one event at a time.";
    return;
  }
  // The lesson's title and summary, from the home page's list kept in a template (it is inert).
  const slug = query.get("lesson");
  const list = document.getElementById("embed-lessons")?.content;
  const link = slug === null ? undefined
    : [...(list?.querySelectorAll("a.lessons-home__link") ?? [])].find((a) => a.getAttribute("href") === `#/lessons/${slug}`);
  if (link) {
    title.textContent = link.textContent;
    document.title = `${link.textContent} · ${document.title}`;
    const summary = link.nextElementSibling;
    if (summary) what.replaceChildren(...[...summary.childNodes].map((n) => document.importNode(n, true)));
  }
}

function embed() {
  const theme = query.get("theme");
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  document.addEventListener("DOMContentLoaded", () => {
    const view = document.getElementById("embed-start");
    if (!view) {
      start().catch((err) => {
        cannotStart(err);
        postToParent({ type: "error", message: startFailure(err), retry: true });
      });
      return;
    }
    describeStart(view);
    const button = view.querySelector("button");
    const status = view.querySelector("[role=status]");
    // Why it could not start, above the button that retries.
    const problem = document.createElement("p");
    problem.className = "embed-start__error";
    problem.setAttribute("role", "alert");
    problem.hidden = true;
    button.before(problem);
    let observer = null;
    let bar = null;
    let stopTelling = null;
    const begin = (byLearner) => {
      button.disabled = true;
      problem.hidden = true;
      problem.textContent = "";
      status.textContent = "Starting the playground…";
      bar ??= progressBar("embed-progress", "Downloading the playground");
      status.after(bar.box);
      // The host hears how the download goes (embed.js shows it on its Run buttons, and knows
      // the embed is alive): at most four times a second, and when it is complete.
      let told = 0;
      stopTelling ??= onProgress(({ loaded, total, done }) => {
        const now = Date.now();
        if (!done && now - told < 250) return;
        told = now;
        postToParent({ type: "loading", loaded, total });
      });
      start().then(() => {
        stopTelling?.();
        observer?.disconnect();
        view.remove();
        if (byLearner) {
          const first = document.querySelector("#app button, #app a[href], #app input, #app textarea, #app select");
          first?.focus();
        }
      }, (err) => {
        stopTelling?.();
        stopTelling = null;
        bar?.remove();
        bar = null;
        status.textContent = "";
        const message = startFailure(err);
        problem.textContent = message;
        problem.hidden = false;
        button.textContent = "Retry";
        button.disabled = false;
        if (byLearner) button.focus();
        // Whatever waits for this playground (a Run button, a host's request) hears why now.
        postToParent({ type: "error", message, retry: true });
      });
    };
    button.addEventListener("click", () => begin(true));
    // The host page may start it (embed.js does before its first request, and again after a
    // failure): only the parent window is listened to, and a `start` carries nothing to trust.
    window.addEventListener("message", (event) => {
      const parent = parentWindow();
      const data = event.data;
      if (!parent || event.source !== parent || !data || typeof data !== "object") return;
      if (data.source !== SOURCE || data.type !== "start") return;
      if (data.version !== undefined && data.version !== 1) return;
      if (!started && !running) begin(false);
    });
    let again = false;
    try {
      again = sessionStorage.getItem(START_KEY) !== null;
      sessionStorage.removeItem(START_KEY);
    } catch {
      // No session storage: nothing was asked.
    }
    // The host sizes its frame to the start view (its progress and errors included), then to the
    // app (which posts its own resize).
    let last = 0;
    const measure = () => {
      const h = Math.ceil(document.body.getBoundingClientRect().height);
      if (h > 0 && h !== last) {
        last = h;
        postToParent({ type: "resize", height: h });
      }
    };
    observer = new ResizeObserver(measure);
    observer.observe(document.body);
    measure();
    // load=1 starts the app at once; autoplay=1 does too, and then presses Play (src/web/embed.rs).
    const flag = (name) => query.get(name) === "1" || query.get(name) === "true";
    if (again || flag("load") || flag("autoplay")) begin(false);
    else postToParent({ type: "standby" });
  });
}

if (isEmbed) embed();
else site();
})();
