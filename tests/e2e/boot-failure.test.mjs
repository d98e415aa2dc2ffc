// When the app cannot start (here: the host lost its WebAssembly file), the page says so in its
// alert, in words a learner understands (which file, and the HTTP status), with Retry, instead of
// staying blank. tests/e2e/progress.test.mjs tries Retry and the other failures.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, serveDist } from "./harness.mjs";

let server;
let browser;

before(async () => {
  server = await serveDist({ missing: /\.wasm$/ });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("a missing WebAssembly file shows a friendly error in the page's alert", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // The home page is plain HTML and needs no wasm; a lesson or the sandbox does.
  await page.goto(`${server.origin}/#/sandbox`);
  const alert = page.getByRole("alert");
  await alert.waitFor({ timeout: 10_000 });
  assert.match(await alert.innerText(), /^Reconcile Lab could not start: downloading reconcile-lab-[0-9a-f]+_bg\.wasm failed: HTTP 404 Not Found\./);
  await alert.getByRole("button", { name: "Retry" }).waitFor();
  assert.equal(await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).count(), 0);
  assert.equal(await page.getByRole("status").filter({ hasText: "Starting" }).count(), 0, "no loading state left behind");
  await context.close();
});

test("without the WebAssembly file the home page still lists the lessons, and a lesson link says why it cannot start", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.origin}/`);
  await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).waitFor();
  assert.equal(await page.getByRole("main").getByRole("listitem").getByRole("link").count(), 10);
  assert.equal(await page.getByRole("alert").count(), 0, "nothing failed: nothing was loaded");
  await page.getByRole("link", { name: "Conflicts" }).click();
  await page.getByRole("alert").waitFor({ timeout: 10_000 });
  assert.match(await page.getByRole("alert").innerText(), /^Reconcile Lab could not start: downloading reconcile-lab-[0-9a-f]+_bg\.wasm failed: HTTP 404 Not Found\./);
  await context.close();
});
