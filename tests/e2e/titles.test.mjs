// Titles and previews (issue 20, point 6): each route has its own page title (public/boot.js:
// the lesson's title, "Sandbox", the home's), set before the app has loaded and kept on every
// route change; the home page and the embed carry a description and Open Graph tags.

import { test } from "node:test";
import assert from "node:assert/strict";
import { recordProblems, SUB_PATH, useSiteAndBrowser, WIDE } from "./harness.mjs";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const meta = (page, selector) => page.locator(selector).getAttribute("content");

test("every route has its own title, from the first load and across route changes", async () => {
  const context = await browser.newContext(WIDE);
  const page = await context.newPage();
  const problems = recordProblems(page);
  await page.goto(`${server.origin}${SUB_PATH}`);
  assert.equal(await page.title(), "Reconcile Lab");
  // Before the app has loaded, the static list gives the lesson's title.
  await page.route(/\.wasm$/, () => {});
  await page.goto(`${server.origin}${SUB_PATH}#/lessons/garbage-collection`);
  assert.equal(await page.title(), "Garbage collection · Reconcile Lab");
  await page.unroute(/\.wasm$/);
  await page.goto(`${server.origin}${SUB_PATH}#/lessons/work-queue`);
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "The work queue" }).waitFor({ timeout: 20_000 });
  assert.equal(await page.title(), "The work queue · Reconcile Lab");
  // Route changes: the sandbox, another lesson, back home, a lesson that does not exist, a page
  // that does not exist.
  for (const [hash, title] of [
    ["#/sandbox", "Sandbox · Reconcile Lab"],
    ["#/lessons/conflicts?state=1.x", "Conflicts · Reconcile Lab"],
    ["#/", "Reconcile Lab"],
    ["#/lessons/no-such-lesson", "No such lesson · Reconcile Lab"],
    ["#/nowhere", "No such page · Reconcile Lab"],
  ]) {
    await page.evaluate((h) => {
      location.hash = h;
    }, hash);
    await page.waitForFunction((t) => document.title === t, title, { timeout: 5000 }).catch(async () => {
      assert.equal(await page.title(), title, hash);
    });
  }
  await page.getByRole("heading", { level: 1, name: "No such page" }).waitFor();
  // The wasm held back, and what a reload cut short, aside.
  assert.deepEqual(problems.filter((p) => !p.includes(".wasm") && !p.includes("net::ERR_ABORTED")), []);
  await context.close();
});

test("the home page and the embed describe themselves for link previews", async () => {
  const context = await browser.newContext(WIDE);
  const page = await context.newPage();
  await page.goto(`${server.origin}/`);
  const description = await meta(page, 'meta[name="description"]');
  assert.match(description, /Kubernetes controllers/);
  assert.equal(await meta(page, 'meta[property="og:type"]'), "website");
  assert.equal(await meta(page, 'meta[property="og:site_name"]'), "Reconcile Lab");
  assert.match(await meta(page, 'meta[property="og:title"]'), /^Reconcile Lab/);
  assert.match(await meta(page, 'meta[property="og:description"]'), /one event at a time/);
  // No og:image: it would have to be an absolute URL, and the site does not know its host.
  assert.equal(await page.locator('meta[property="og:image"]').count(), 0);

  await page.goto(`${server.origin}/embed.html?lesson=finalizers`);
  await page.getByRole("heading", { name: "Finalizers" }).waitFor();
  assert.equal(await page.title(), "Finalizers · Reconcile Lab (embedded)");
  assert.equal(await meta(page, 'meta[property="og:title"]'), "Reconcile Lab playground");
  assert.match(await meta(page, 'meta[property="og:description"]'), /^A live, miniature Kubernetes cluster/);
  assert.equal(await meta(page, 'meta[name="description"]'), await meta(page, 'meta[property="og:description"]'));
  await page.goto(`${server.origin}/embed.html`);
  await page.getByRole("heading", { name: "Sandbox" }).waitFor();
  assert.equal(await page.title(), "Reconcile Lab (embedded)");
  await context.close();
});
