// Starts Reconcile Lab, and shows the crash panel if it ever dies.
//
// Trunk would start the app with an inline <script type="module">; this file replaces it (see
// `pattern_script` in Trunk.toml) so that the Content-Security-Policy allows scripts from 'self'
// only, with no 'unsafe-inline' and no hash to keep in step with every build. Trunk writes the
// content-hashed file names into this script tag's data attributes; they are relative to the page,
// so the site works from any path (for example https://example.org/reconcile-lab/).
//
// The crash panel (issue 10, panic safety): a panic aborts the WebAssembly instance (the Rust hook
// in src/web/panic.rs first writes what happened into the alert). Nothing can be asked of it
// afterwards, so the panel is plain JavaScript over what src/web/recovery.rs kept in session
// storage after the last intent that succeeded: the route, the share code, the console lines and
// the step log. Every text goes in through textContent, never as markup.

const ALERT_ID = "fatal-error";
const HEAD_KEY = "reconcile-lab.recovery";
const CHUNK_PREFIX = "reconcile-lab.recovery.log.";

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

const tag = document.querySelector("script[data-wasm]");
try {
  const { default: init } = await import(new URL(tag.dataset.js, document.baseURI).href);
  await init({ module_or_path: new URL(tag.dataset.wasm, document.baseURI) });
} catch (err) {
  const alert = document.getElementById(ALERT_ID);
  if (alert && !alert.hidden) {
    // A panic while starting: its hook already put its message in the alert.
    showCrash(String(err));
  } else if (alert) {
    alert.textContent =
      "Reconcile Lab could not start in this browser. It needs a browser with WebAssembly " +
      "support; reloading the page may help. Details: " + err;
    alert.hidden = false;
  }
  throw err;
}
