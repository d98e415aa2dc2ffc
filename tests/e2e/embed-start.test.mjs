// An embed that never hangs (issue 20, point 7; public/embed.js, public/boot.js, docs/embed.md):
// a start failure or a stalled download reaches the host page as a protocol message (`error`)
// and shows on each Run button, which never stays on "Running…"; Retry (or the next Run) tries
// again; a frame that never answers is given up on; ReconcileLab.scan() finds what a
// single-page site adds later; iframes load lazily; load=1 starts the app without pressing Play.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { DIST, launchBrowser, recordProblems, serveDist, SUB_PATH, WIDE } from "./harness.mjs";

const wasmName = (await readdir(DIST)).find((f) => f.endsWith("_bg.wasm"));
const wasmBytes = (await stat(join(DIST, wasmName))).size;

// A documentation site on another origin: its page includes embed.js from the lab's host (named
// in the query) and holds one playground and one snippet; every message its window receives is
// recorded (an init script, so none is missed).
// With `far`, the snippet comes first and the playground far below it.
const DOCS_HTML = (embedJs, far) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Docs</title></head>
<body>
<main id="content">
<h1>Docs page</h1>
${far ? '<pre data-reconcile-lab-run="lab" id="first">kubectl create namespace docs</pre><div style="height: 20000px"></div>' : ""}
<div data-reconcile-lab id="lab" data-panels="console" data-title="The playground"></div>
${far ? "" : '<pre data-reconcile-lab-run id="first">kubectl create namespace docs</pre>'}
</main>
<script src="${embedJs}"></script>
</body></html>`;

let docs;
before(async () => {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/favicon.ico") return res.writeHead(204).end();
    if (url.pathname !== "/docs.html") return res.writeHead(404).end();
    const embedJs = url.searchParams.get("embedjs") ?? "";
    // Only what the test asked for, quoted as an attribute value.
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(DOCS_HTML(embedJs.replace(/[<>"&]/g, ""), url.searchParams.has("far")));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  docs = { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok)) };
});
after(async () => docs?.close());

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => browser?.close());

/** The docs page with embed.js from `site` (a sub-path of it when `path` says so). */
async function openDocs(site, { path = "/", options = WIDE, far = false } = {}) {
  const context = await browser.newContext(options);
  await context.addInitScript(() => {
    window.received = [];
    window.addEventListener("message", (e) => {
      if (e.data && e.data.source === "reconcile-lab") window.received.push(e.data);
    });
  });
  const page = await context.newPage();
  const problems = recordProblems(page);
  await page.goto(`${docs.origin}/docs.html?embedjs=${encodeURIComponent(`${site.origin}${path}embed.js`)}${far ? "&far" : ""}`);
  return { context, page, problems };
}

const runButtons = (page) => page.getByRole("button", { name: "Run", exact: true });
const outputOf = (page, i = 0) => page.locator(".reconcile-lab-output").nth(i);

describe("a playground whose app cannot start", () => {
  test("the failure reaches the host as `error`, shows on the Run button and in the start view; the next Run retries", async () => {
    const site = await serveDist({ missing: /\.wasm$/ });
    try {
      const { context, page } = await openDocs(site, { path: SUB_PATH });
      const frame = page.frameLocator("#lab iframe");
      await frame.getByRole("button", { name: /^Start the playground/ }).waitFor({ timeout: 20_000 });
      await runButtons(page).first().click();
      const failure = `error: Reconcile Lab could not start: downloading ${wasmName} failed: HTTP 404 Not Found.`;
      await page.waitForFunction((f) => document.querySelector(".reconcile-lab-output")?.textContent.trim() === f, failure, { timeout: 20_000 });
      assert.equal(await runButtons(page).first().isEnabled(), true, "the Run button is usable again");
      assert.match(await outputOf(page).getAttribute("class"), /reconcile-lab-output--failed/);
      const error = await page.evaluate(() => window.received.find((m) => m.type === "error"));
      assert.deepEqual(error, {
        source: "reconcile-lab",
        version: 1,
        type: "error",
        message: `Reconcile Lab could not start: downloading ${wasmName} failed: HTTP 404 Not Found.`,
        retry: true,
      });
      // The reader sees it in the playground too, with Retry.
      await frame.getByRole("alert").filter({ hasText: `downloading ${wasmName} failed: HTTP 404 Not Found` }).waitFor();
      await frame.getByRole("button", { name: "Retry" }).waitFor();
      // The host fixed: the next Run sends `start` again, and runs.
      site.set({ missing: null });
      await runButtons(page).first().click();
      await page.waitForFunction(() => document.querySelector(".reconcile-lab-output")?.textContent === "namespace/docs created\n", null, { timeout: 30_000 });
      await frame.getByRole("region", { name: "Console" }).waitFor();
      await context.close();
    } finally {
      await site.close();
    }
  });

  test("a download that stalls is given up after 30 seconds, and the host hears why", async () => {
    const site = await serveDist({ stall: /\.wasm$/ });
    try {
      const { context, page } = await openDocs(site);
      await page.clock.install();
      const frame = page.frameLocator("#lab iframe");
      await frame.getByRole("button", { name: /^Start the playground/ }).waitFor({ timeout: 20_000 });
      await runButtons(page).first().click();
      // Running on the host's side: it shows how the start goes.
      await page.waitForFunction(() => document.querySelector(".reconcile-lab-output")?.textContent.startsWith("Starting the playground…"));
      await page.waitForFunction(() => window.received.some((m) => m.type === "loading"), null, { timeout: 20_000 });
      await page.clock.runFor(31_000);
      await page.waitForFunction(() => window.received.some((m) => m.type === "error"), null, { timeout: 20_000 });
      const error = await page.evaluate(() => window.received.find((m) => m.type === "error").message);
      assert.equal(error, `Reconcile Lab could not start: downloading ${wasmName} failed: no data arrived for 30 seconds (the connection stalled).`);
      await page.waitForFunction((e) => document.querySelector(".reconcile-lab-output")?.textContent.trim() === `error: ${e}`, error);
      assert.equal(await runButtons(page).first().isEnabled(), true);
      await context.close();
    } finally {
      await site.close();
    }
  });

  test("a frame that never answers (no embed.html there) is given up on, with the address it tried", async () => {
    const site = await serveDist({ missing: /embed\.html$/ });
    try {
      const { context, page } = await openDocs(site);
      await runButtons(page).first().click();
      await page.waitForFunction(
        () => document.querySelector(".reconcile-lab-output")?.textContent.startsWith("error: the playground did not answer"),
        null,
        { timeout: 30_000 },
      );
      assert.equal(
        (await outputOf(page).textContent()).trim(),
        `error: the playground did not answer: is ${site.origin}/embed.html there, and may this page frame it?`,
      );
      assert.equal(await runButtons(page).first().isEnabled(), true);
      await context.close();
    } finally {
      await site.close();
    }
  });
});

describe("embed.js on a page that changes without a reload", () => {
  let site;
  before(async () => {
    site = await serveDist();
  });
  after(async () => site?.close());

  test("frames load lazily; scan() makes what was added later, once, and forgets what left", async () => {
    const { context, page, problems } = await openDocs(site);
    const iframe = page.locator("#lab iframe");
    assert.equal(await iframe.getAttribute("loading"), "lazy");
    assert.equal(await iframe.getAttribute("title"), "The playground");
    // A single-page site moves to another page: new content replaces the old.
    await page.evaluate(() => {
      const main = document.getElementById("content");
      main.replaceChildren();
      const h = document.createElement("h1");
      h.textContent = "Another docs page";
      const div = document.createElement("div");
      div.setAttribute("data-reconcile-lab", "");
      div.setAttribute("data-panels", "console");
      div.id = "second";
      const pre = document.createElement("pre");
      pre.setAttribute("data-reconcile-lab-run", "");
      pre.textContent = "$ kubectl create configmap spa\n$ kubectl get configmap spa -o name";
      main.append(h, div, pre);
    });
    assert.equal(await runButtons(page).count(), 0, "nothing until scan()");
    assert.deepEqual(await page.evaluate(() => window.ReconcileLab.scan()), { playgrounds: 1, snippets: 1 });
    assert.deepEqual(await page.evaluate(() => window.ReconcileLab.scan()), { playgrounds: 0, snippets: 0 }, "once");
    assert.equal(await runButtons(page).count(), 1);
    assert.equal(await page.locator("#second iframe").getAttribute("loading"), "lazy");
    await runButtons(page).click();
    await page.waitForFunction(() => document.querySelector(".reconcile-lab-output")?.textContent === "configmap/spa created\nconfigmap/spa\n", null, { timeout: 30_000 });
    await page.frameLocator("#second iframe").getByRole("region", { name: "Console" }).waitFor();
    // The first playground left the page while its frame may still have been loading: the browser
    // aborts that frame's requests (ERR_ABORTED), as on any single-page site's navigation. The
    // second frame's requests cannot be among them unnoticed: its Console answered above.
    assert.deepEqual(problems.filter((p) => !/\(net::ERR_ABORTED\)$/.test(p)), []);
    await context.close();
  });

  test("a Run button far from its playground loads the lazy frame it needs", async () => {
    const { context, page } = await openDocs(site, { options: { viewport: { width: 900, height: 500 } }, far: true });
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.received.length), 0, "the far frame did not load");
    await runButtons(page).click();
    await page.waitForFunction(() => document.querySelector(".reconcile-lab-output")?.textContent === "namespace/docs created\n", null, { timeout: 30_000 });
    await context.close();
  });
});

describe("a playground on a slow connection", () => {
  test("its start view shows a progress bar of the wasm's bytes, and the host hears the same figures", async () => {
    const site = await serveDist();
    try {
      const { context, page, problems } = await openDocs(site);
      const frame = page.frameLocator("#lab iframe");
      await frame.getByRole("button", { name: /^Start the playground/ }).waitFor({ timeout: 20_000 });
      // Chromium's own throttling, about four seconds for the wasm (the frame is same-site, so the
      // page's session throttles it too).
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      const rate = Math.round(wasmBytes / 4);
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 20, downloadThroughput: rate, uploadThroughput: rate });
      await runButtons(page).first().click();
      const bar = frame.getByRole("progressbar", { name: "Downloading the playground" });
      await bar.waitFor({ timeout: 10_000 });
      await page.waitForFunction(() => window.received.some((m) => m.type === "loading" && m.loaded > 0 && m.loaded < m.total), null, { timeout: 20_000 });
      assert.equal(Number(await bar.getAttribute("aria-valuemax")), wasmBytes, "the total is the wasm's Content-Length");
      const part = Number(await bar.getAttribute("aria-valuenow"));
      assert.ok(part > 0 && part <= wasmBytes, `part-way: ${part}`);
      assert.match(await bar.getAttribute("aria-valuetext"), /^\d+%$/);
      await page.waitForFunction(() => document.querySelector(".reconcile-lab-output")?.textContent === "namespace/docs created\n", null, { timeout: 60_000 });
      assert.equal(await frame.getByRole("progressbar").count(), 0, "gone once the app runs");
      const loading = await page.evaluate(() => window.received.filter((m) => m.type === "loading"));
      // Before the response's headers arrive the size is not known yet (total null, nothing loaded).
      const sized = (m) => m.total === wasmBytes || (m.total === null && m.loaded === 0);
      assert.ok(loading.every((m) => m.version === 1 && sized(m)), JSON.stringify(loading.slice(0, 3)));
      const loaded = loading.map((m) => m.loaded);
      assert.deepEqual(loaded, [...loaded].sort((a, b) => a - b), "it only grows");
      assert.equal(loaded.at(-1), wasmBytes, "the last message says it is complete");
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await site.close();
    }
  });
});

describe("load and autoplay", () => {
  let site;
  before(async () => {
    site = await serveDist();
  });
  after(async () => site?.close());

  test("load=1 starts the app without the start view and without playing", async () => {
    const context = await browser.newContext(WIDE);
    const page = await context.newPage();
    const problems = recordProblems(page);
    await page.goto(`${site.origin}/embed.html?load=1&panels=console,timeline`);
    await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 20_000 });
    assert.equal(await page.getByRole("button", { name: /^Start the playground/ }).count(), 0);
    assert.equal(await page.getByRole("button", { name: "Play", exact: true }).count(), 1, "not playing");
    await page.waitForTimeout(500);
    assert.equal(await page.getByRole("button", { name: "Pause", exact: true }).count(), 0);
    assert.equal(await page.getByRole("status", { name: "Embed notices" }).count(), 0, "load is a known parameter");
    assert.deepEqual(problems, []);
    await context.close();
  });
});
