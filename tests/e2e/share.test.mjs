// Share links, driven through the page: press "Share", open the link from the "Share link" field
// in a fresh browser context (no saved progress, nothing shared), and see the same objects, step
// and lesson progress. A damaged link shows a notice and the starting state.

import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, runUntilIdle, typeInConsole, useSiteAndBrowser, WIDE } from "./harness.mjs";


let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const blocks = (page) => page.getByRole("log", { name: "Console output" }).locator(".console__block");

/** Types a line and waits for its output block; returns what it printed. */
async function run(page, line) {
  const before = await blocks(page).count();
  await typeInConsole(page, line);
  await page.waitForFunction((n) => document.querySelectorAll("[role=log] .console__block").length > n, before);
  return (await blocks(page).last().locator(".console__output").innerText()).trim();
}

/** Presses Share and returns the link shown in "Share link". */
async function share(page) {
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const field = page.getByRole("textbox", { name: "Share link" });
  await field.waitFor();
  return field.inputValue();
}

const narration = (page) => page.getByRole("status", { name: "Narration" }).locator(".narration__line").innerText();
const objects = (page) => page.getByRole("region", { name: "Objects" }).innerText();
/** The lesson's steps as the step list shows them ("(done)", "(current)") and the goals in view. */
const progress = async (page) =>
  (await page.getByRole("navigation", { name: "Lesson steps" }).innerText()) +
  "\n" +
  (await page.getByRole("list", { name: "Goals" }).innerText());

/** Opens a link in a context of its own (another learner's browser). */
async function openFresh(url) {
  const opened = await openPage(browser, url, WIDE);
  await opened.page.getByRole("button", { name: "Step", exact: true }).waitFor();
  return opened;
}

test("a sandbox share link rebuilds the same objects and step in a fresh browser", async () => {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
  await run(page, "kubectl create deployment web --image=nginx --replicas=2");
  for (let i = 0; i < 9; i++) await page.getByRole("button", { name: "Step", exact: true }).click();
  await page.getByRole("button", { name: "Step back" }).click();
  const url = await share(page);
  assert.match(url, new RegExp(`^${server.origin}/#/sandbox\\?state=1\\.[A-Za-z0-9_-]+$`));
  const step = await narration(page);
  assert.match(step, /^Step \d+/);
  const pods = await run(page, "kubectl get deploy,rs,pods");
  const objs = await objects(page);

  const other = await openFresh(url);
  assert.equal(await narration(other.page), step);
  assert.equal(await objects(other.page), objs);
  assert.equal(await run(other.page, "kubectl get deploy,rs,pods"), pods);
  assert.equal(
    await other.page.evaluate(() => location.hash),
    "#/sandbox",
    "the code is dropped from the address once read, so a reload keeps later work",
  );
  // The transcript came along too: the first command is in the restored console.
  assert.match(await other.page.getByRole("log", { name: "Console output" }).innerText(), /deployment\.apps\/web created/);
  assert.deepEqual(other.problems, []);
  assert.deepEqual(problems, []);
  await other.context.close();
  await context.close();
});

test("a lesson share link carries its progress to a browser that has none", async () => {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/lessons/reconcile-loop`, WIDE);
  const name = (await run(page, "kubectl get pods -o name")).split("\n")[0].replace("pod/", "");
  await run(page, `kubectl delete pod ${name}`);
  await run(page, "lab settle");
  const met = await progress(page);
  assert.match(met, /Delete a Pod and watch it come back \(done\)/, "deleting a pod and settling meets step 1's goals");
  const url = await share(page);
  assert.match(url, /#\/lessons\/reconcile-loop\?state=1\./);
  const lessonStep = await page.locator("#lesson-step-title").innerText();

  const other = await openFresh(url);
  assert.equal(await progress(other.page), met);
  assert.equal(await other.page.locator("#lesson-step-title").innerText(), lessonStep);
  assert.equal(await objects(other.page), await objects(page));
  assert.deepEqual(other.problems, []);
  assert.deepEqual(problems, []);
  await other.context.close();
  await context.close();
});

test("a damaged share link shows a notice and the starting state", async () => {
  const url = await (async () => {
    const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create ns shared");
    const u = await share(page);
    await context.close();
    return u;
  })();
  for (const bad of [url.slice(0, -6), url.replace("state=1.", "state=9."), url + "<script>alert(1)</script>"]) {
    const { context, page, problems } = await openPage(browser, bad, WIDE).catch((e) => {
      throw new Error(`${bad}: ${e.message}`);
    });
    const notice = page.getByRole("status").filter({ hasText: "This share link could not be opened" });
    await notice.waitFor();
    assert.match(await notice.innerText(), /Showing the starting state instead\./);
    assert.match(await narration(page), /^No step yet/);
    assert.equal(await run(page, "kubectl get ns shared"), 'Error from server (NotFound): namespaces "shared" not found');
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test("the Share button is reachable by keyboard and its link opens at the same step", async () => {
  const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
  await run(page, "kubectl create deployment web --image=nginx");
  await runUntilIdle(page);
  const share = page.getByRole("button", { name: "Share", exact: true });
  await share.focus();
  await page.keyboard.press("Enter");
  const url = await page.getByRole("textbox", { name: "Share link" }).inputValue();
  const other = await openFresh(url);
  assert.equal(await narration(other.page), await narration(page));
  await other.context.close();
  await context.close();
});

test("opening a shared lesson link keeps the goals this browser had already met", async () => {
  // Someone shares the lesson untouched.
  const sharer = await openPage(browser, `${server.origin}/#/lessons/reconcile-loop`, WIDE);
  const url = await share(sharer.page);
  await sharer.context.close();
  // This learner had finished step 1 before.
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/lessons/reconcile-loop`, WIDE);
  const name = (await run(page, "kubectl get pods -o name")).split("\n")[0].replace("pod/", "");
  await run(page, `kubectl delete pod ${name}`);
  await run(page, "lab settle");
  assert.match(await progress(page), /\(done\)/);
  await page.goto("about:blank");
  await page.goto(url);
  await page.getByRole("button", { name: "Step", exact: true }).waitFor();
  assert.match(await progress(page), /Delete a Pod and watch it come back \(done\)/, "kept after opening the link");
  await page.reload();
  await page.getByRole("button", { name: "Step", exact: true }).waitFor();
  assert.match(await progress(page), /Delete a Pod and watch it come back \(done\)/, "and still saved");
  assert.deepEqual(problems, []);
  await context.close();
});
