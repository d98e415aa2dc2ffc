// The app's download (issue 20, point 3; public/boot.js): on a slow connection a lesson or the
// sandbox shows a real progress bar (role=progressbar, bytes received of the wasm's size: the
// response's Content-Length, or the size written at build time when the host compresses it);
// when the download fails, the page says which file and why (the HTTP status, the network error)
// and offers Retry, which works.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { DIST, launchBrowser, recordProblems, serveDist, SUB_PATH, WIDE } from "./harness.mjs";

const files = await readdir(DIST);
const wasmName = files.find((f) => f.endsWith("_bg.wasm"));
const glueName = files.find((f) => /^reconcile-lab-[0-9a-f]+\.js$/.test(f));
const wasmBytes = (await stat(join(DIST, wasmName))).size;

/** A page whose network is throttled to `bytesPerSecond` (Chromium's own emulation, over CDP). */
async function throttledPage(browser, bytesPerSecond) {
  const context = await browser.newContext(WIDE);
  const page = await context.newPage();
  const problems = recordProblems(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 20,
    downloadThroughput: bytesPerSecond,
    uploadThroughput: bytesPerSecond,
  });
  return { context, page, problems };
}

/** Samples the progress bar's aria values until it is gone (the app runs) or `ms` pass. */
async function sampleBar(page, ms = 60_000) {
  const samples = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const s = await page.evaluate(() => {
      const bar = document.querySelector("[role=progressbar]");
      if (!bar) return null;
      return {
        now: Number(bar.getAttribute("aria-valuenow")),
        max: Number(bar.getAttribute("aria-valuemax")),
        text: bar.getAttribute("aria-valuetext"),
        visible: bar.checkVisibility(),
      };
    });
    if (s === null && samples.length > 0) break;
    if (s !== null) samples.push(s);
    await page.waitForTimeout(100);
  }
  return samples;
}

describe("the download's progress", () => {
  test("on a slow connection, #/sandbox shows a labelled progress bar that counts the wasm's bytes", async () => {
    const server = await serveDist();
    const browser = await launchBrowser();
    try {
      // About four seconds for the wasm.
      const { context, page, problems } = await throttledPage(browser, Math.round(wasmBytes / 4));
      await page.goto(`${server.origin}${SUB_PATH}#/sandbox`);
      const bar = page.getByRole("progressbar", { name: "Downloading Reconcile Lab" });
      await bar.waitFor({ timeout: 10_000 });
      const samples = await sampleBar(page);
      const shown = samples.filter((s) => s.visible);
      assert.ok(shown.length >= 3, `the bar was seen ${shown.length} times`);
      for (const s of shown) assert.equal(s.max, wasmBytes, "the total is the wasm's Content-Length");
      const values = shown.map((s) => s.now);
      assert.ok(values.some((v) => v > 0 && v < wasmBytes), `a value part-way: ${values.join(", ")}`);
      assert.deepEqual(values, [...values].sort((a, b) => a - b), "it only grows");
      assert.match(shown.find((s) => s.now > 0).text, /^\d+%$/);
      // A visible label says what it is and how far.
      await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 60_000 });
      assert.equal(await page.getByRole("progressbar").count(), 0, "gone once the app runs");
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await browser.close();
      await server.close();
    }
  });

  test("the visible label shows the percentage; a compressed wasm is measured against its size at build time", async () => {
    const server = await serveDist({ gzip: /\.wasm$/ });
    const browser = await launchBrowser();
    try {
      const { context, page, problems } = await throttledPage(browser, 150_000);
      await page.goto(`${server.origin}/#/lessons/conflicts`);
      const progress = page.locator(".load-progress");
      await progress.waitFor({ timeout: 10_000 });
      await page.waitForFunction(() => Number(document.querySelector("[role=progressbar]")?.getAttribute("aria-valuenow")) > 0);
      const label = await progress.innerText();
      assert.match(label, /^Downloading Reconcile Lab\s+\d+%$/, label);
      const max = Number(await page.getByRole("progressbar").getAttribute("aria-valuemax"));
      assert.equal(max, wasmBytes, "data-wasm-size: the bytes as decompressed, which the page counts");
      await page.screenshot({ path: "/tmp/progress-wide.png" }).catch(() => {});
      await page.getByRole("heading", { level: 1, name: "Conflicts" }).waitFor({ timeout: 90_000 });
      assert.equal(await page.getByRole("progressbar").count(), 0);
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await browser.close();
      await server.close();
    }
  });
});

describe("a download that fails says what failed, and Retry works", () => {
  test("a missing wasm: the file and its HTTP status, then Retry once the host has it again", async () => {
    const server = await serveDist({ missing: /\.wasm$/ });
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext(WIDE);
      const page = await context.newPage();
      await page.goto(`${server.origin}${SUB_PATH}#/sandbox`);
      const alert = page.getByRole("alert");
      await alert.waitFor({ timeout: 10_000 });
      assert.equal(
        (await alert.innerText()).split("\n")[0].trim(),
        `Reconcile Lab could not start: downloading ${wasmName} failed: HTTP 404 Not Found.`,
      );
      assert.equal(await page.getByRole("progressbar").count(), 0, "no progress left behind");
      assert.equal(await page.getByRole("status").filter({ hasText: "Starting" }).count(), 0);
      server.set({ missing: null });
      await alert.getByRole("button", { name: "Retry" }).click();
      await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 30_000 });
      assert.equal(await page.getByRole("alert").count(), 0, "the error is gone");
      await context.close();
    } finally {
      await browser.close();
      await server.close();
    }
  });

  test("a missing JS glue: named with its status; Retry fetches it again (a failed import is not reused)", async () => {
    const server = await serveDist({ missing: /\/reconcile-lab-[0-9a-f]+\.js$/ });
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext(WIDE);
      const page = await context.newPage();
      await page.goto(`${server.origin}/#/lessons/finalizers`);
      const alert = page.getByRole("alert");
      await alert.waitFor({ timeout: 10_000 });
      assert.match(await alert.innerText(), new RegExp(`^Reconcile Lab could not start: downloading ${glueName.replace(".", "\\.")} failed: HTTP 404 Not Found\\.`));
      server.set({ missing: null });
      await alert.getByRole("button", { name: "Retry" }).click();
      await page.getByRole("heading", { level: 1, name: "Finalizers" }).waitFor({ timeout: 30_000 });
      await context.close();
    } finally {
      await browser.close();
      await server.close();
    }
  });

  test("an unreachable host: a network error, and Retry", async () => {
    const server = await serveDist();
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext(WIDE);
      const page = await context.newPage();
      await page.goto(`${server.origin}/`);
      await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).waitFor();
      // The host goes away after the home page loaded; the learner opens the sandbox.
      server.set({ down: true });
      await page.evaluate(() => {
        location.hash = "#/sandbox";
      });
      const alert = page.getByRole("alert");
      await alert.waitFor({ timeout: 20_000 });
      assert.match(await alert.innerText(), /^Reconcile Lab could not start: downloading reconcile-lab-[0-9a-f]+(_bg\.wasm|\.js) failed: a network error \(/);
      server.set({ down: false });
      await alert.getByRole("button", { name: "Retry" }).click();
      await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 30_000 });
      await context.close();
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
