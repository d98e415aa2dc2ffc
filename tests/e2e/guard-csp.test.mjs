// Every page of the built site (dist/*.html: the page, and the embed and demo pages once they
// exist) carries a strict Content-Security-Policy, and Chromium enforces it: no 'unsafe-inline'
// or 'unsafe-eval'; script-src only 'self' and 'wasm-unsafe-eval'; an inline script added to the
// page does not run, nor does a string timer (eval), and each refusal is reported as a
// violation. The same rules on the sources: tests/guard_csp.rs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { DIST, useSiteAndBrowser } from "./harness.mjs";
import { openGuarded } from "./guard-lib.mjs";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const pages = (await readdir(DIST)).filter((f) => f.endsWith(".html")).sort();

test("dist/ has the page", () => {
  assert.ok(pages.includes("index.html"), pages.join(", "));
});

for (const file of pages) {
  test(`${file}: a strict Content-Security-Policy, enforced`, async () => {
    const { context, page } = await openGuarded(browser, `${server.origin}/${file}`, { waitForApp: false });
    const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy" i]')?.content ?? null);
    assert.ok(csp, `${file} has a CSP meta element`);
    const directives = new Map(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...sources]) => [name.toLowerCase(), sources]),
    );
    assert.doesNotMatch(csp, /'unsafe-(inline|eval|hashes)'/, csp);
    const scripts = directives.get("script-src") ?? directives.get("default-src");
    assert.ok(scripts, `${file}: script-src`);
    for (const s of scripts) assert.ok(["'self'", "'wasm-unsafe-eval'"].includes(s), `${file}: script-src allows ${s}`);
    assert.deepEqual(directives.get("object-src"), ["'none'"], csp);

    // Enforced: an inline script does not run, eval is refused, both are reported.
    const outcome = await page.evaluate(async () => {
      const s = document.createElement("script");
      s.textContent = "window.__inlineRan = true";
      document.body.append(s);
      // A string timer is eval; (eval itself, called from here, would be the test driver's own
      // code, which Chromium lets through).
      setTimeout("window.__evalRan = true", 0);
      await new Promise((ok) => setTimeout(ok, 200));
      return { inlineRan: window.__inlineRan === true, evalRan: window.__evalRan === true, violations: window.__csp.length };
    });
    assert.deepEqual(outcome, { inlineRan: false, evalRan: false, violations: 2 });
    await context.close();
  });
}
