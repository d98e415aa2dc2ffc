// The first load (issue 9, docs/size.md): the home page is plain HTML that works without
// WebAssembly and fetches none on a first visit; the app starts when a lesson or the sandbox
// needs it (public/boot.js), says so while it loads, and hands the home back on #/ with the
// progress it keeps; embed.html shows a start view until the reader, autoplay=1 or the host page
// starts it.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openPage, recordProblems, SUB_PATH, useSiteAndBrowser, PROGRESS_KEY, WIDE } from "./harness.mjs";


let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** The app's files (the wasm and its JS glue) among the requests a page made. */
const appRequests = (urls) => urls.filter((u) => /\.wasm$|\/reconcile-lab-[0-9a-f]+\.js$/.test(new URL(u).pathname));

/** A fresh page that records every URL it requests. */
async function freshPage(options = WIDE) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const problems = recordProblems(page);
  const urls = [];
  page.on("request", (r) => urls.push(r.url()));
  return { context, page, problems, urls };
}

const lessonLinks = (page) => page.getByRole("main").getByRole("listitem").getByRole("link");
const nav = (page) => page.getByRole("navigation", { name: "Site" });
const current = (page) => nav(page).locator("[aria-current=page]");

describe("the home page is plain HTML", () => {
  test("a first visit lists the lessons and the sandbox, and fetches no WebAssembly", async () => {
    const { context, page, problems, urls } = await freshPage();
    await page.goto(`${server.origin}${SUB_PATH}`, { waitUntil: "load" });
    await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).waitFor();
    assert.equal(await lessonLinks(page).count(), 10);
    assert.equal(await lessonLinks(page).first().innerText(), "The reconcile loop");
    assert.equal(await lessonLinks(page).first().getAttribute("href"), "#/lessons/reconcile-loop");
    assert.equal(await page.getByText(/^0 of \d+ goals$/).count(), 10);
    await page.getByRole("link", { name: "Open the sandbox" }).waitFor();
    assert.equal(await current(page).innerText(), "Lessons");
    // Time for anything the page would start on its own.
    await page.waitForTimeout(500);
    assert.deepEqual(appRequests(urls), [], "no wasm or JS glue requested");
    assert.equal(await page.locator("#app").innerHTML(), "", "the app did not start");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("with WebAssembly disabled or its file blocked, the home still lists the lessons", async () => {
    const { context, page, problems } = await freshPage();
    await context.addInitScript(() => {
      delete window.WebAssembly;
    });
    await page.route(/\.wasm$/, (route) => route.abort());
    await page.goto(`${server.origin}/`, { waitUntil: "load" });
    assert.equal(await lessonLinks(page).count(), 10);
    assert.ok(await page.getByRole("link", { name: "Conflicts" }).isVisible());
    assert.ok(await nav(page).getByRole("link", { name: "Sandbox" }).isVisible());
    assert.equal(await page.getByRole("alert").count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("without JavaScript at all, the home is still readable and its links are there", async () => {
    const { context, page } = await freshPage({ ...WIDE, javaScriptEnabled: false });
    await page.goto(`${server.origin}/`, { waitUntil: "load" });
    assert.equal(await lessonLinks(page).count(), 10);
    assert.ok(await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).isVisible());
    await context.close();
  });
});

describe("the app starts when a route needs it", () => {
  test("a click on a lesson shows a loading state, then the lesson; back home shows the progress", async () => {
    const { context, page, problems, urls } = await freshPage();
    // A slow wasm download, so that the loading state can be seen.
    await page.route(/_bg\.wasm$/, async (route) => {
      await new Promise((ok) => setTimeout(ok, 700));
      await route.continue();
    });
    await page.goto(`${server.origin}/`, { waitUntil: "load" });
    assert.deepEqual(appRequests(urls), []);
    await page.getByRole("link", { name: "The reconcile loop" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Starting Reconcile Lab…" }).waitFor();
    const title = page.getByRole("heading", { level: 1, name: "The reconcile loop" });
    await title.waitFor({ timeout: 20_000 });
    assert.equal(await page.getByRole("status").filter({ hasText: "Starting Reconcile Lab…" }).count(), 0);
    assert.equal(await page.getByRole("link", { name: "Open the sandbox" }).count(), 0, "the static home is hidden");
    assert.equal(await current(page).count(), 0, "no navigation link is the current page on a lesson");
    // Focus moved from the link the home hid to the lesson.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "The reconcile loop");
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), "H1");
    assert.equal(appRequests(urls).length, 2, "the wasm and its glue, once");

    // Meet the first step's goals, then go back to the home page.
    await page.getByRole("button", { name: "Show me" }).click();
    await page.getByRole("heading", { name: /^Step 2: / }).waitFor({ timeout: 60_000 });
    await page.getByRole("link", { name: "All lessons" }).click();
    const item = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "The reconcile loop" }) });
    await item.getByText("2 of 6 goals").waitFor();
    assert.equal(await current(page).innerText(), "Lessons");
    assert.equal(await page.getByRole("heading", { level: 1 }).count(), 1, "one home, the static one");
    assert.equal(await page.getByRole("button", { name: "Step", exact: true }).count(), 0, "the lesson is gone");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "The reconcile loop", "focus is on the lesson left");

    // The sandbox from the navigation: it is the current page there.
    await nav(page).getByRole("link", { name: "Sandbox" }).click();
    await page.getByRole("textbox", { name: "Console input" }).waitFor();
    assert.equal(await current(page).innerText(), "Sandbox");
    assert.ok(await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).isVisible());
    assert.equal(appRequests(urls).length, 2, "started once");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a direct load of #/sandbox shows the app, never the home", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}${SUB_PATH}#/sandbox`, WIDE);
    await page.getByRole("button", { name: "Step", exact: true }).waitFor();
    assert.equal(await page.getByRole("link", { name: "Open the sandbox" }).count(), 0);
    assert.equal(await current(page).innerText(), "Sandbox");
    assert.equal(await page.getByRole("heading", { level: 1 }).count(), 1);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a returning visitor gets the app on the home page: its progress lines and notices", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/lessons/reconcile-loop`, WIDE);
    await page.getByRole("button", { name: "Show me" }).click();
    await page.getByRole("heading", { name: /^Step 2: / }).waitFor({ timeout: 60_000 });
    assert.ok(await page.evaluate((k) => localStorage.getItem(k), PROGRESS_KEY));
    const again = await context.newPage();
    const urls = [];
    again.on("request", (r) => urls.push(r.url()));
    await again.goto(`${server.origin}/`, { waitUntil: "load" });
    const item = again.getByRole("listitem").filter({ has: again.getByRole("link", { name: "The reconcile loop" }) });
    await item.getByText("2 of 6 goals").waitFor({ timeout: 20_000 });
    assert.equal(appRequests(urls).length, 2, "the app started for the progress");
    assert.equal(await again.getByText(/^0 of \d+ goals$/).count(), 9);
    assert.deepEqual(problems, []);
    await context.close();

    // Unreadable saved progress: the notice shows on the home page.
    const fresh = await freshPage();
    await fresh.context.addInitScript((k) => localStorage.setItem(k, "{not json"), PROGRESS_KEY);
    await fresh.page.goto(`${server.origin}/`);
    await fresh.page.getByText("Saved progress could not be read; starting fresh.").waitFor({ timeout: 20_000 });
    assert.equal(await lessonLinks(fresh.page).count(), 10);
    await fresh.context.close();
  });

  test("the pointer reaching a lesson link starts the download; the click finds the app running", async () => {
    const { context, page, problems, urls } = await freshPage();
    await page.goto(`${server.origin}/`, { waitUntil: "load" });
    const wasm = page.waitForRequest(/_bg\.wasm$/);
    await page.getByRole("link", { name: "Finalizers" }).hover();
    await wasm;
    assert.equal(await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).isVisible(), true, "still the home");
    await page.getByRole("link", { name: "Finalizers" }).click();
    await page.getByRole("heading", { level: 1, name: "Finalizers" }).waitFor({ timeout: 20_000 });
    assert.equal(appRequests(urls).length, 2);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("embed.html's start view", () => {
  const startButton = (page) => page.getByRole("button", { name: /^Start the playground \(downloads \d+ KB\)$/ });

  test("names the lesson, says what it is and what starting downloads, and starts on the button", async () => {
    const { context, page, problems, urls } = await freshPage();
    await page.goto(`${server.origin}/embed.html?lesson=conflicts&panels=console`, { waitUntil: "load" });
    await page.getByRole("heading", { name: "Conflicts" }).waitFor();
    await page.getByText("Every write carries a resourceVersion; a stale one gets 409 Conflict").waitFor();
    await startButton(page).waitFor();
    assert.equal(await page.getByRole("navigation").count(), 0, "no site navigation in the embed");
    await page.waitForTimeout(300);
    assert.deepEqual(appRequests(urls), [], "nothing loaded before the reader asks");
    await startButton(page).click();
    await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 20_000 });
    await page.getByRole("region", { name: "Console" }).waitFor();
    assert.equal(await startButton(page).count(), 0, "the start view is gone");
    assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), "BODY", "focus went into the playground");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("without a lesson it is the sandbox; autoplay=1 starts at once", async () => {
    const { context, page, problems } = await freshPage();
    await page.goto(`${server.origin}${SUB_PATH}embed.html`, { waitUntil: "load" });
    await page.getByRole("heading", { name: "Sandbox" }).waitFor();
    await startButton(page).waitFor();
    await page.goto(`${server.origin}${SUB_PATH}embed.html?autoplay=1&panels=timeline`, { waitUntil: "load" });
    await page.getByRole("button", { name: "Pause", exact: true }).waitFor({ timeout: 20_000 });
    assert.equal(await startButton(page).count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a start message counts only from the parent window; the start view posts standby and its size", async () => {
    const { context, page } = await freshPage();
    // The site itself frames the embed here (same origin); a second frame is its sibling.
    await page.goto(`${server.origin}/docs-demo.html`, { waitUntil: "load" });
    const frame = page.frameLocator("iframe.reconcile-lab-frame").first();
    // The frames load lazily: not before the page's load event, as soon as they are near the view.
    await frame.getByRole("button", { name: /^Start the playground/ }).waitFor({ timeout: 20_000 });
    const playground = page.frame({ url: /embed\.html\?/ });
    assert.ok(playground, "the demo page frames the embed");
    // Sized to the start view: embed.js follows its resize message.
    const height = (await page.locator("iframe.reconcile-lab-frame").first().boundingBox()).height;
    const content = await frame.locator("body").evaluate((b) => Math.ceil(b.getBoundingClientRect().height));
    assert.equal(Math.round(height), content, "the frame fits the start view");
    // The embed posting `start` to itself is not its parent: nothing starts.
    await playground.evaluate(() => window.postMessage({ source: "reconcile-lab", version: 1, type: "start" }, "*"));
    await page.waitForTimeout(300);
    assert.equal(await frame.getByRole("button", { name: /^Start the playground/ }).count(), 1);
    // Its parent (the demo page) may: it starts.
    await page.evaluate(() => {
      const f = document.querySelector("iframe.reconcile-lab-frame");
      f.contentWindow.postMessage({ source: "reconcile-lab", version: 1, type: "start" }, new URL(f.src).origin);
    });
    await frame.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 20_000 });
    await context.close();
  });
});
