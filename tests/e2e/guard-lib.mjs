// Helpers for the guard tests (injection, saved data, panic path): open a page with a script that
// runs before the app (to seed or break storage, and to listen for Content-Security-Policy
// violations), and check the DOM for anything injected.
//
// Not a test file itself (node --test runs *.test.mjs only).

import assert from "node:assert/strict";
import { recordProblems } from "./harness.mjs";

/** Counts every injected handler that runs: each payload calls this, so a count above 0 is a hit. */
export const MARK = "window.__pwned=(window.__pwned||0)+1";

/**
 * Strings that would run MARK if any of them reached the DOM as markup or a URL: a script element,
 * an image with an error handler, markup that closes an attribute and opens an SVG, a string that
 * breaks out of a single-quoted attribute, and a `javascript:` URL.
 */
export const PAYLOADS = [
  `<script>${MARK}</script>`,
  `<img src=x onerror="${MARK}">`,
  `"><svg onload="${MARK}">`,
  `' onfocus='${MARK}' autofocus='`,
  `javascript:${MARK}`,
];

/** Quotes `s` for the console's shell-like tokenizer (single quotes; `'` as `'\''`). */
export const shq = (s) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Opens `url` in a fresh context. `init` (a function, serialised into the page) runs before any of
 * the page's own scripts, on every load, with `arg`. Records what openPage records (console errors,
 * uncaught exceptions, failed requests, HTTP errors), plus dialogs and CSP violations, which the
 * page reports into `window.__csp` from the first script on.
 */
export async function openGuarded(browser, url, { contextOptions = {}, init = null, arg = null, waitForApp = true } = {}) {
  const context = await browser.newContext(contextOptions);
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample ?? ""}`.trim()),
    );
  });
  if (init) await context.addInitScript(init, arg);
  const page = await context.newPage();
  const problems = recordProblems(page);
  const dialogs = [];
  page.on("dialog", async (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  await page.goto(url, { waitUntil: "load" });
  if (waitForApp) {
    // Any page of the site shows a level-1 heading once the app has mounted.
    await page.getByRole("heading", { level: 1 }).first().waitFor({ timeout: 15_000 });
  }
  return { context, page, problems, dialogs };
}

/**
 * Fails if anything injected is in the DOM or ran: a script element other than the boot script, an
 * image, frame or object, an attribute whose name starts with "on", autofocus, a `javascript:` URL
 * in any attribute, an SVG that is not the owner graph or the Control plane map, a dialog, a CSP violation, or MARK having
 * run. `what` names the case in the failure message.
 */
export async function assertNothingInjected(page, dialogs, what) {
  const found = await page.evaluate(() => {
    const URL_ATTRIBUTES = new Set(["href", "xlink:href", "src", "srcdoc", "action", "formaction", "data", "poster", "ping"]);
    const bad = [];
    for (const s of document.scripts) if (!s.hasAttribute("data-wasm")) bad.push(`script: ${s.outerHTML.slice(0, 80)}`);
    for (const el of document.querySelectorAll("img, iframe, frame, object, embed, [autofocus]")) {
      // A lesson's figure: an image of the site's own lessons/figures/ (src/lessons/markdown.rs).
      const figure = el.matches("figure.lesson__figure > img.lesson__figure-img")
        && new URL(el.getAttribute("src") ?? "", location.href).pathname.includes("/lessons/figures/")
        && new URL(el.getAttribute("src") ?? "", location.href).origin === location.origin;
      if (!figure) bad.push(`element: ${el.outerHTML.slice(0, 80)}`);
    }
    for (const svg of document.querySelectorAll("svg")) {
      // The page draws two pictures of its own: the owner graph and the Control plane map.
      if (!svg.classList.contains("graph") && !svg.classList.contains("map__svg")) {
        bad.push(`svg: ${svg.outerHTML.slice(0, 80)}`);
      }
    }
    for (const el of document.querySelectorAll("*")) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) bad.push(`handler attribute ${a.name} on <${el.localName}>`);
        if (URL_ATTRIBUTES.has(a.name.toLowerCase()) && /^\s*javascript:/i.test(a.value)) {
          bad.push(`javascript: URL in ${a.name} on <${el.localName}>`);
        }
      }
    }
    return { bad, pwned: window.__pwned ?? 0, csp: window.__csp ?? ["(no listener)"] };
  });
  assert.deepEqual(found.bad, [], `${what}: injected markup in the DOM`);
  assert.equal(found.pwned, 0, `${what}: an injected handler ran`);
  assert.deepEqual(found.csp, [], `${what}: Content-Security-Policy violations`);
  assert.deepEqual(dialogs, [], `${what}: a dialog opened`);
}
