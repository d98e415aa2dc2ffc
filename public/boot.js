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
//   link from the home page that changes the hash (then "Starting Reconcile Lab…" is said in the
//   role=status element until it runs, or the "could not start" alert if it fails).
// - A visitor with saved progress (the PROGRESS_KEY below in local storage) gets the app at once
//   on the home page too: it writes the progress lines into the static list and shows the
//   saved-progress notice. They have been here: the wasm is likely in the browser's cache.
// - Warming: when the pointer or keyboard focus reaches a link into the app, the app starts
//   quietly (it renders nothing on the home route), so the click that follows finds it running.
// - This script shows the static home on #/ and hides it on the app's routes (data-view on the
//   root element, style/start.css), keeps aria-current on the site navigation, and moves focus
//   sensibly when a route change hides what had it.
//
// embed.html (derived from index.html by scripts/embed-build.sh) shows a start view first: the
// lesson's title (or "Sandbox") from the query, one sentence, and "Start the playground" with the
// download size written at build time. The button, `autoplay=1`, or a `start` message from the
// parent window (docs/embed.md) starts the app in place.
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


// ----- Starting the app -----

/** The route's path as src/session/lesson.rs's Route::parse reads it: "", "sandbox", "lessons/x". */
function routePath(hash) {
  const path = hash.replace(/^#/, "").split("?")[0];
  return path.replace(/^\/+/, "").replace(/\/+$/, "");
}
const isHome = (hash) => routePath(hash) === "";

let started = null;
let running = false;
/**
 * Loads the wasm and its JS glue and runs the app (once); resolves when it has mounted. A panic
 * while starting shows the crash panel; any other failure is for the caller to report (a quiet,
 * early start may fail and be tried again when a route needs the app).
 */
function start() {
  if (started) return started;
  // The wasm's download starts at once, beside the glue's.
  const wasm = fetch(new URL(script.dataset.wasm, document.baseURI));
  wasm.catch(() => {});
  started = (async () => {
    try {
      const { default: init } = await import(new URL(script.dataset.js, document.baseURI).href);
      if (document.readyState === "loading") {
        await new Promise((ok) => document.addEventListener("DOMContentLoaded", ok, { once: true }));
      }
      await init({ module_or_path: wasm });
      running = true;
    } catch (err) {
      const alert = document.getElementById(ALERT_ID);
      // A panic while starting: its hook already put its message in the alert.
      if (alert && !alert.hidden) showCrash(String(err));
      throw err;
    }
  })();
  return started;
}

/** The alert when the app is needed and could not start. */
function cannotStart(err) {
  const alert = document.getElementById(ALERT_ID);
  if (!alert || !alert.hidden) return;
  alert.textContent =
    "Reconcile Lab could not start in this browser. It needs a browser with WebAssembly " +
    "support; reloading the page may help. Details: " + err;
  alert.hidden = false;
}

/** Starts the app before it is needed (a returning visitor, a link about to be followed); a failure is not shown. */
function startQuietly() {
  start().catch(() => {
    started = null;
  });
}

/** Says `text` in the page's role=status element (once the body exists, when it does not yet). */
function say(text) {
  const status = document.getElementById("app-status");
  if (status) status.textContent = text;
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => say(text), { once: true });
}

/** Starts the app for a route that needs it, saying so until it runs, and why not if it cannot. */
function startForRoute() {
  if (!running) say("Starting Reconcile Lab…");
  const run = start();
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
      start().catch(cannotStart);
      return;
    }
    describeStart(view);
    const button = view.querySelector("button");
    const status = view.querySelector("[role=status]");
    let observer = null;
    const begin = (byLearner) => {
      button.disabled = true;
      status.textContent = "Starting the playground…";
      start().then(() => {
        observer?.disconnect();
        view.remove();
        if (byLearner) {
          const first = document.querySelector("#app button, #app a[href], #app input, #app textarea, #app select");
          first?.focus();
        }
      }, (err) => {
        status.textContent = "";
        button.disabled = false;
        started = null;
        cannotStart(err);
      });
    };
    button.addEventListener("click", () => begin(true));
    // The host page may start it (embed.js does before its first request): only the parent
    // window is listened to, and a `start` carries nothing to trust.
    window.addEventListener("message", (event) => {
      const parent = parentWindow();
      const data = event.data;
      if (!parent || event.source !== parent || !data || typeof data !== "object") return;
      if (data.source !== SOURCE || data.type !== "start") return;
      if (data.version !== undefined && data.version !== 1) return;
      if (!started) begin(false);
    });
    let again = false;
    try {
      again = sessionStorage.getItem(START_KEY) !== null;
      sessionStorage.removeItem(START_KEY);
    } catch {
      // No session storage: nothing was asked.
    }
    if (again || query.get("autoplay") === "1" || query.get("autoplay") === "true") {
      begin(false);
      return;
    }
    // The host sizes its frame to the start view, then to the app (which posts its own resize).
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
    postToParent({ type: "standby" });
  });
}

if (isEmbed) embed();
else site();
})();
