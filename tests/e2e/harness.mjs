// Test harness: serves the release dist/ on 127.0.0.1 and drives Debian's Chromium with
// playwright-core. Used by every *.test.mjs file in this folder.
//
// The server answers at "/" and under SUB_PATH, like a project page on a static host; it has no
// logic beyond mapping paths to files, so what passes here works on any static host.

import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";
import { chromium } from "playwright-core";

export const DIST = resolve(fileURLToPath(import.meta.url), "../../../dist");
export const SUB_PATH = "/reconcile-lab/";
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".yaml": "text/plain; charset=utf-8",
};

/** Maps a URL path to a file in `root`, or null when it falls outside `root`. */
function fileFor(root, urlPath) {
  let path = decodeURIComponent(urlPath);
  if (path.startsWith(SUB_PATH)) path = "/" + path.slice(SUB_PATH.length);
  if (path.endsWith("/")) path += "index.html";
  const file = normalize(join(root, path));
  return file === root || file.startsWith(root + sep) ? file : null;
}

/**
 * Starts the static server on 127.0.0.1 with a free port. Resolves to { origin, close(), requests }
 * where `requests` lists every path asked for (tests check that nothing escapes the sub-path).
 * Like a static host, it sends Content-Length. Options, to test how the page copes with a host:
 * - `missing`: files whose path matches answer 404 (a broken host);
 * - `gzip`: files whose path matches are sent compressed (Content-Encoding: gzip, no length of
 *   the decompressed body), as many hosts send the wasm;
 * - `stall`: files whose path matches send their headers and the first 64 KiB, then nothing more.
 * The returned `set({missing, gzip, stall, root, down})` changes them while the server runs (the
 * origin, and so the service worker and caches of a browser context, stay the same); `down: true`
 * drops every connection, as an unreachable host.
 */
export async function serveDist({ root = DIST, missing = null, gzip = null, stall = null } = {}) {
  await stat(join(root, "index.html")).catch(() => {
    throw new Error(`${root}/index.html is missing: build the site first (make dist)`);
  });
  const opts = { root, missing, gzip, stall, down: false };
  const requests = [];
  const stalled = new Set();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    requests.push(url.pathname);
    if (opts.down) {
      req.socket.destroy();
      return;
    }
    if (url.pathname === SUB_PATH.slice(0, -1)) {
      res.writeHead(301, { location: SUB_PATH }).end();
      return;
    }
    const file = fileFor(opts.root, url.pathname);
    try {
      if (file === null) throw new Error("outside root");
      if (opts.missing?.test(url.pathname)) throw new Error("hidden by the test");
      let body = await readFile(file);
      const headers = { "content-type": TYPES[extname(file)] ?? "application/octet-stream" };
      if (opts.gzip?.test(url.pathname)) {
        body = gzipSync(body);
        headers["content-encoding"] = "gzip";
      }
      headers["content-length"] = String(body.length);
      res.writeHead(200, headers);
      if (req.method === "HEAD") {
        res.end();
      } else if (opts.stall?.test(url.pathname)) {
        res.write(body.subarray(0, 64 * 1024));
        stalled.add(res);
      } else {
        res.end(body);
      }
    } catch {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    set: (changes) => Object.assign(opts, changes),
    close: () => {
      for (const res of stalled) res.destroy();
      server.closeAllConnections?.();
      return new Promise((ok) => server.close(ok));
    },
  };
}

/** Launches headless Chromium with the flags that keep it off the network (see toolchain.md). */
export function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Records every problem a learner would hit on `page` from now on: console errors (a
 * Content-Security-Policy violation is one), uncaught exceptions, failed requests and HTTP errors.
 * Returns the list it fills.
 */
export function recordProblems(page) {
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`uncaught exception: ${err.message}`));
  page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  page.on("response", (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return problems;
}

/**
 * Opens `url` in a fresh context and records every problem a learner would hit: console errors
 * (a Content-Security-Policy violation is one), uncaught exceptions, failed requests and HTTP
 * errors. Resolves once the page shows its top-level heading: on a lesson or sandbox route, once the
 * app has mounted (the static home is hidden there); on #/, at once (the home is plain HTML, and
 * the app does not start for a first-time visitor: docs/size.md).
 */
export async function openPage(browser, url, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const problems = recordProblems(page);
  await page.goto(url, { waitUntil: "load" });
  // Either the app mounts (its heading appears) or the page shows its error alert: fail fast then,
  // with everything the page reported.
  const heading = page.getByRole("heading", { level: 1, name: "Reconcile Lab" });
  const alert = page.getByRole("alert");
  try {
    await heading.or(alert).first().waitFor({ timeout: 10_000 });
  } catch (err) {
    throw new Error(`the app did not mount: ${err.message}\n${problems.join("\n")}`);
  }
  if (await alert.isVisible()) {
    throw new Error(`the page shows an error: ${await alert.innerText()}\n${problems.join("\n")}`);
  }
  return { context, page, problems };
}

/** The regions every page shows, by accessible name (the contract in src/web/shell.rs). */
export const REGIONS = [
  "Control plane",
  "What happens next",
  "Timeline",
  "Watch events",
  "Informer caches",
  "Work queues",
  "Owner graph",
  "Objects",
  "Leases",
  "Cloud",
  "Editor",
  "Console",
];

/** The wide desktop viewport most page tests use. */
export const WIDE = { viewport: { width: 1400, height: 1000 } };
/** The local storage key of the learner's saved progress (src/web/storage.rs). */
export const PROGRESS_KEY = "reconcile-lab.progress";
/** A phone-sized viewport (360 px wide), the narrowest the page supports. */
export const NARROW = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };

/**
 * Registers a test file's hooks: the release dist/ served on 127.0.0.1 and one headless Chromium,
 * both closed after the file's tests; `ready(server, browser)` is called once both are up.
 */
export function useSiteAndBrowser(ready) {
  let server;
  let browser;
  before(async () => {
    server = await serveDist();
    browser = await launchBrowser();
    ready(server, browser);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
}

/** Types one line into the "Console input" text box and presses Enter. */
export async function typeInConsole(page, line) {
  const input = page.getByRole("textbox", { name: "Console input" });
  await input.fill(line);
  await input.press("Enter");
}

/** The console's output blocks (one per command), oldest first. */
export const consoleBlocks = (page) => page.getByRole("log", { name: "Console output" }).locator(".console__block");

/**
 * Types one line into "Console input", waits until its output block appears, and returns what the
 * command printed (trimmed).
 */
export async function runInConsole(page, line, timeout = 60_000) {
  const before = await consoleBlocks(page).count();
  await typeInConsole(page, line);
  await page.waitForFunction(
    (n) => document.querySelectorAll("[role=log] .console__block").length > n,
    before,
    { timeout },
  );
  return (await consoleBlocks(page).last().locator(".console__output").innerText()).trim();
}

/**
 * Presses "Run until idle" and waits until it has finished: it runs in slices on a timer, showing
 * "Pause" meanwhile, and "Play" again once the cluster is idle.
 */
export async function runUntilIdle(page, timeout = 120_000) {
  await page.getByRole("button", { name: "Run until idle" }).click();
  await page.getByRole("button", { name: "Play", exact: true }).waitFor({ timeout });
}
