// Offline after the first visit (issue 20, point 8; public/sw.js, scripts/sw-build.sh): the
// service worker keeps the built site, at the root and under a sub-path; a first visit to the home
// page does not download the app for it, and the app, once it ran, is kept without a second
// download; with the network off, a second visit shows the lessons and runs the app; a new build
// replaces the old one cleanly (its own cache, the old one deleted, no page of one build with the
// files of another).

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST, launchBrowser, recordProblems, runInConsole, serveDist, SUB_PATH, WIDE } from "./harness.mjs";

const files = await readdir(DIST);
const wasmName = files.find((f) => f.endsWith("_bg.wasm"));
const appHash = wasmName.match(/^reconcile-lab-([0-9a-f]+)_bg\.wasm$/)[1];

/** The caches of this origin: { name: [paths] }. */
const cachesOf = (page) =>
  page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      out[name] = (await cache.keys()).map((r) => new URL(r.url).pathname);
    }
    return out;
  });

/** Polls `check(value)` on `read()` until it holds (or fails with the last value). */
async function until(read, check, what, ms = 30_000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await read();
    if (check(last)) return last;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  assert.fail(`${what}: ${JSON.stringify(last, null, 1)}`);
}

const wasmRequests = (server) => server.requests.filter((p) => p.endsWith("_bg.wasm")).length;

describe("offline after the first visit", () => {
  for (const path of ["/", SUB_PATH]) {
    test(`at ${path}: a lesson visited once opens and runs with the network off`, async () => {
      const server = await serveDist();
      const browser = await launchBrowser();
      try {
        const context = await browser.newContext(WIDE);
        const page = await context.newPage();
        const problems = recordProblems(page);
        await page.goto(`${server.origin}${path}#/lessons/conflicts`);
        await page.getByRole("heading", { level: 1, name: "Conflicts" }).waitFor({ timeout: 20_000 });
        // The worker installs after the page loaded, then keeps the app the page already has.
        const kept = await until(
          () => cachesOf(page),
          (c) => Object.values(c).some((paths) => paths.some((p) => p === `${path}${wasmName}`)),
          "the app is kept",
        );
        const names = Object.keys(kept);
        assert.equal(names.length, 1, names.join(", "));
        assert.match(names[0], new RegExp(`^reconcile-lab ${server.origin}${path} [0-9a-f]{16}$`));
        for (const f of ["index.html", "embed.html", "boot.js", "embed.js", wasmName]) {
          assert.ok(kept[names[0]].includes(`${path}${f}`), `${f} kept`);
        }
        assert.ok(kept[names[0]].some((p) => /site-[0-9a-f]+\.css$/.test(p)), "the stylesheet kept");
        assert.equal(wasmRequests(server), 1, "the app was downloaded once, not again for the cache");

        // The network goes away.
        await context.setOffline(true);
        server.set({ down: true });
        await page.reload();
        await page.getByRole("heading", { level: 1, name: "Conflicts" }).waitFor({ timeout: 20_000 });
        assert.equal(await runInConsole(page, "kubectl create namespace offline"), "namespace/offline created");
        // The home page and another route too.
        await page.goto(`${server.origin}${path}`);
        await page.getByRole("link", { name: "Finalizers" }).waitFor();
        await page.getByRole("link", { name: "Finalizers" }).click();
        await page.getByRole("heading", { level: 1, name: "Finalizers" }).waitFor({ timeout: 20_000 });
        assert.deepEqual(problems.filter((p) => !/request failed|ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(p)), []);
        await context.close();
      } finally {
        await browser.close();
        await server.close();
      }
    });
  }

  test("a first visit to the home page installs the worker without downloading the app", async () => {
    const server = await serveDist();
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext(WIDE);
      const page = await context.newPage();
      await page.goto(`${server.origin}/`);
      await page.evaluate(() => navigator.serviceWorker.ready);
      const kept = await until(() => cachesOf(page), (c) => Object.values(c).some((p) => p.includes("/index.html")), "the pages are kept");
      await page.waitForTimeout(500);
      assert.equal(wasmRequests(server), 0, "no wasm downloaded");
      assert.equal(server.requests.filter((p) => /\/reconcile-lab-[0-9a-f]+\.js$/.test(p)).length, 0, "no JS glue");
      assert.ok(!Object.values(kept).flat().some((p) => p.endsWith(".wasm")));
      // Offline, the home page still lists the lessons.
      await context.setOffline(true);
      server.set({ down: true });
      await page.reload();
      await page.getByRole("link", { name: "The reconcile loop" }).waitFor();
      await context.close();
    } finally {
      await browser.close();
      await server.close();
    }
  });
});

/** Turns a copy of dist/ into the next build: new app file names, a changed page, a new sw.js. */
async function nextBuild(dir) {
  const next = appHash.split("").reverse().join("");
  for (const f of await readdir(dir)) {
    if (f.includes(appHash)) await rename(join(dir, f), join(dir, f.replace(appHash, next)));
  }
  for (const f of await readdir(dir)) {
    if (!/\.(html|js)$/.test(f)) continue;
    let text = await readFile(join(dir, f), "utf8");
    text = text.replaceAll(appHash, next);
    if (f === "index.html") text = text.replace("How Kubernetes controllers really work, one event at a time.", "The next build.");
    if (f === "sw.js") text = text.replace(/version: "[0-9a-f]+"/, 'version: "0123456789abcdef"');
    await writeFile(join(dir, f), text);
  }
  return next;
}

test("a new build replaces the old one: its own files offline, the old cache deleted", async () => {
  const dir = await mkdtemp(join(tmpdir(), "reconcile-lab-dist-"));
  await cp(DIST, dir, { recursive: true });
  const server = await serveDist({ root: dir });
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext(WIDE);
    let page = await context.newPage();
    await page.goto(`${server.origin}/#/sandbox`);
    await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 20_000 });
    await until(() => cachesOf(page), (c) => Object.values(c).flat().includes(`/${wasmName}`), "the first build's app is kept");

    // The host deploys the next build; the old app's files are gone from it.
    const next = await nextBuild(dir);
    // Online, the page is the new build at once (pages come from the network first), and its
    // app, not in the old build's cache, comes from the network.
    await page.reload();
    await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 20_000 });
    assert.ok(server.requests.some((p) => p === `/reconcile-lab-${next}_bg.wasm`), "the new app was fetched");
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
    // The new worker waits while a page of the old build is open (its cache stays whole for it);
    // when the last one closes, the new worker takes over and deletes the old cache.
    await page.close();
    await until(
      async () => {
        for (const worker of context.serviceWorkers()) {
          const active = await worker.evaluate(() => self.registration.active === self.serviceWorker && BUILD.version).catch(() => false);
          if (active) return active;
        }
        return null;
      },
      (v) => v === "0123456789abcdef",
      "the new build's worker is active",
    );
    page = await context.newPage();
    await page.goto(`${server.origin}/`);
    const caches = await until(
      () => cachesOf(page),
      (c) => Object.keys(c).length === 1 && Object.keys(c)[0].endsWith(" 0123456789abcdef"),
      "only the new build's cache",
    );
    const kept = Object.values(caches)[0];
    assert.ok(kept.includes(`/reconcile-lab-${next}_bg.wasm`), "the new app, kept at install for a visitor who had the app");
    assert.ok(!kept.some((p) => p.includes(appHash)), "nothing of the old build");

    await context.setOffline(true);
    server.set({ down: true });
    await page.reload();
    await page.getByText("The next build.").waitFor();
    await page.getByRole("link", { name: "Sandbox", exact: true }).click();
    await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 20_000 });
    await context.close();
  } finally {
    await browser.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
