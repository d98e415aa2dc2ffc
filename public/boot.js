// Starts Reconcile Lab.
//
// Trunk would start the app with an inline <script type="module">; this file replaces it (see
// `pattern_script` in Trunk.toml) so that the Content-Security-Policy allows scripts from 'self'
// only, with no 'unsafe-inline' and no hash to keep in step with every build. Trunk writes the
// content-hashed file names into this script tag's data attributes; they are relative to the page,
// so the site works from any path (for example https://example.org/reconcile-lab/).
const tag = document.querySelector("script[data-wasm]");
try {
  const { default: init } = await import(new URL(tag.dataset.js, document.baseURI).href);
  await init({ module_or_path: new URL(tag.dataset.wasm, document.baseURI) });
} catch (err) {
  // A panic has already put its own message in the alert; keep it, it says more.
  const alert = document.getElementById("fatal-error");
  if (alert && alert.hidden) {
    alert.textContent =
      "Reconcile Lab could not start in this browser. It needs a browser with WebAssembly " +
      "support; reloading the page may help. Details: " + err;
    alert.hidden = false;
  }
  throw err;
}
