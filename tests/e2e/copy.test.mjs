// Copy (issue 20, point 5; src/web/copy.rs): a Copy button on each console output block, on an
// object's YAML and on the editor's manifest puts the text on the clipboard and says "Copied", or
// says what to do when the browser refuses; a lesson's commands are buttons that put the command
// into the console input (without running it).

import { test } from "node:test";
import assert from "node:assert/strict";
import { consoleBlocks, NARROW, openPage, runInConsole, useSiteAndBrowser, WIDE } from "./harness.mjs";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** A context allowed to use the clipboard (as a browser asks the learner). */
const CLIPBOARD = { ...WIDE, permissions: ["clipboard-read", "clipboard-write"] };
const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

test("each console block's Copy copies what the command printed and says Copied", async () => {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, CLIPBOARD);
  await runInConsole(page, "kubectl create deployment web --image=nginx --replicas=2");
  const printed = await runInConsole(page, "kubectl get deployments,replicasets");
  const block = consoleBlocks(page).last();
  const copy = block.getByRole("button", { name: "Copy the output of kubectl get deployments,replicasets" });
  assert.equal(await copy.innerText(), "Copy");
  await copy.click();
  await block.getByRole("status").filter({ hasText: "Copied" }).waitFor();
  assert.equal((await clipboard(page)).trim(), printed);
  assert.equal(await clipboard(page), await block.locator(".console__output").textContent(), "exactly the block's output");
  // The first block has its own button, which copies its own output.
  await consoleBlocks(page).first().getByRole("button", { name: /^Copy the output of kubectl create deployment web/ }).click();
  assert.equal(await clipboard(page), "deployment.apps/web created\n");
  // "Copied" does not stay.
  await block.getByRole("status").filter({ hasText: "Copied" }).waitFor({ state: "detached", timeout: 6000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test("Copy YAML copies the selected object as -o yaml prints it; the editor's Copy copies the manifest", async () => {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, CLIPBOARD);
  await runInConsole(page, "kubectl create configmap settings --from-literal=colour=blue");
  const yaml = await runInConsole(page, "kubectl get configmap settings -o yaml");
  const objects = page.getByRole("region", { name: /^Objects/ });
  await objects.getByRole("button", { name: /^ConfigMap default\/settings/ }).click();
  const copy = objects.getByRole("button", { name: "Copy YAML of ConfigMap default/settings" });
  assert.equal(await copy.innerText(), "Copy YAML");
  await copy.click();
  await objects.getByRole("status").filter({ hasText: "Copied" }).waitFor();
  assert.equal((await clipboard(page)).trim(), yaml);

  const editor = page.getByRole("textbox", { name: "Manifest editor" });
  await editor.fill("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: copied\n");
  await page.getByRole("button", { name: "Copy the manifest" }).click();
  await page.getByRole("region", { name: /^Editor/ }).getByRole("status").filter({ hasText: "Copied" }).waitFor();
  assert.equal(await clipboard(page), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: copied\n");
  assert.deepEqual(problems, []);
  await context.close();
});

test("when the browser refuses the clipboard, the page says how to copy instead", async () => {
  const context = await browser.newContext(WIDE);
  // What the browser answers when the learner (or a policy) refuses: writeText rejects.
  await context.addInitScript(() => {
    navigator.clipboard.writeText = () => Promise.reject(new DOMException("Write permission denied.", "NotAllowedError"));
  });
  const page = await context.newPage();
  await page.goto(`${server.origin}/#/sandbox`);
  await page.getByRole("textbox", { name: "Console input" }).waitFor();
  await runInConsole(page, "kubectl get namespaces");
  const block = consoleBlocks(page).last();
  await block.getByRole("button", { name: "Copy the output of kubectl get namespaces" }).click();
  await block.getByRole("status").filter({ hasText: "The browser did not allow copying: select the text and copy it with Ctrl+C." }).waitFor();
  await context.close();
});

test("a lesson's command is a button that puts it into the console input, without running it", async () => {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/lessons/reconcile-loop`, WIDE);
  const lesson = page.getByRole("complementary");
  const command = lesson.getByRole("button", { name: /^Put kubectl .+ in the console$/ }).first();
  const name = await command.getAttribute("aria-label");
  const line = name.replace(/^Put /, "").replace(/ in the console$/, "");
  assert.equal(await command.innerText(), line, "it shows the command itself");
  const blocksBefore = await consoleBlocks(page).count();
  await command.click();
  const input = page.getByRole("textbox", { name: "Console input" });
  assert.equal(await input.inputValue(), line);
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Console input");
  assert.equal(await input.evaluate((i) => i.selectionStart === i.value.length), true, "the cursor at the end");
  assert.equal(await consoleBlocks(page).count(), blocksBefore, "nothing ran");
  // Enter runs it, as typed.
  await input.press("Enter");
  await page.waitForFunction((n) => document.querySelectorAll("[role=log] .console__block").length > n, blocksBefore);
  assert.match(await consoleBlocks(page).last().locator(".console__command").innerText(), new RegExp(`${line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
  assert.deepEqual(problems, []);
  await context.close();
});

test("on a phone, putting a command in the console shows the console's section", async () => {
  const { context, page } = await openPage(browser, `${server.origin}/#/lessons/reconcile-loop`, NARROW);
  const command = page.getByRole("button", { name: /^Put kubectl .+ in the console$/ }).first();
  await command.click();
  const input = page.getByRole("textbox", { name: "Console input" });
  await input.waitFor({ state: "visible" });
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Console input");
  assert.match(await input.inputValue(), /^kubectl /);
  await context.close();
});
