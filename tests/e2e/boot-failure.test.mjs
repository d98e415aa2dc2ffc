// When the app cannot start (here: the host lost its WebAssembly file), the page says so in its
// alert, in words a learner understands, instead of staying blank.

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
  await page.goto(`${server.origin}/`);
  const alert = page.getByRole("alert");
  await alert.waitFor({ timeout: 10_000 });
  assert.match(await alert.innerText(), /^Reconcile Lab could not start in this browser\./);
  assert.equal(await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).count(), 0);
  await context.close();
});
