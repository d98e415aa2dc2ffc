// Shortcuts a learner can find (issue 20, point 4; src/web/shortcuts.rs, src/web/stepping.rs):
// `?` or the "Keyboard shortcuts" button opens a modal dialog listing them, Escape closes it and
// focus returns; the step controls show their keys; the shortcuts keep working after a click on
// Step (which keeps focus), but not while typing in the console or the editor.

import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, runInConsole, useSiteAndBrowser, WIDE } from "./harness.mjs";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const narration = (page) => page.getByRole("status", { name: "Narration" }).locator(".narration__line").innerText();
const stepNumber = async (page) => Number((await narration(page)).match(/^Step (\d+)/)?.[1] ?? 0);
const focusedKeys = (page) => page.evaluate(() => document.activeElement?.getAttribute("aria-keyshortcuts"));

test("? opens the list of every shortcut in a modal dialog; Escape closes it and focus returns", async () => {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
  const step = page.getByRole("button", { name: "Step", exact: true });
  await step.focus();
  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await dialog.waitFor();
  assert.equal(await dialog.evaluate((d) => d.matches(":modal")), true, "a modal dialog");
  assert.equal(await dialog.evaluate((d) => d.contains(document.activeElement)), true, "focus moved into it");
  // Every shortcut the page handles, by where it works.
  const text = await dialog.innerText();
  for (const line of [
    /→\s+Step\b/,
    /←\s+Step back/,
    /Space\s+Play or Pause/,
    /\?\s+Show these shortcuts/,
    /In the console input/,
    /Ctrl\+L\s+Clear the console/,
    /Ctrl\+C\s+Stop a command/,
    /↑ or ↓\s+Earlier or later lines/,
    /In the manifest editor/,
    /Escape, then Tab\s+Leave the editor/,
    /Escape\s+Close it/,
  ]) {
    assert.match(text, line);
  }
  // The page behind is inert: an arrow key does not step while the dialog is open.
  const before = await stepNumber(page);
  await page.keyboard.press("ArrowRight");
  assert.equal(await stepNumber(page), before);
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });
  assert.equal(await focusedKeys(page), "ArrowRight", "focus back on Step");

  // The button opens it too, and Close returns focus to the button.
  const open = page.getByRole("button", { name: "Keyboard shortcuts" });
  assert.equal(await open.getAttribute("aria-keyshortcuts"), "?");
  await open.click();
  await dialog.waitFor();
  await dialog.getByRole("button", { name: "Close" }).click();
  await dialog.waitFor({ state: "hidden" });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-haspopup")), "dialog", "focus back on the button");
  assert.deepEqual(problems, []);
  await context.close();
});

test("the step controls show their keys: a visible key cap, a tooltip and aria-keyshortcuts", async () => {
  const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
  for (const [name, key, cap] of [
    ["Step", "ArrowRight", "→"],
    ["Play", "Space", "Space"],
    ["Step back", "ArrowLeft", "←"],
  ]) {
    const button = page.getByRole("button", { name, exact: true });
    assert.equal(await button.getAttribute("aria-keyshortcuts"), key, name);
    assert.match(await button.getAttribute("title"), new RegExp(`^${name} \\(`), name);
    const hint = button.locator("kbd");
    assert.equal(await hint.innerText(), cap, name);
    assert.ok(await hint.isVisible(), `${name}'s key cap is visible`);
  }
  await context.close();
});

test("after a click on Step the arrows and Space still work; in the console and the editor they type", async () => {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
  await runInConsole(page, "kubectl create deployment web --image=nginx --replicas=2");
  const step = page.getByRole("button", { name: "Step", exact: true });
  await step.click();
  const afterClick = await stepNumber(page);
  assert.ok(afterClick >= 1, await narration(page));
  // Focus is still on Step: the arrow steps, the other arrow steps back.
  assert.equal(await focusedKeys(page), "ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction((n) => Number(document.querySelector(".narration__line")?.innerText.match(/^Step (\d+)/)?.[1]) === n + 1, afterClick);
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction((n) => Number(document.querySelector(".narration__line")?.innerText.match(/^Step (\d+)/)?.[1]) === n, afterClick);
  // Space after a click means Play (not a second press of Step), and again Pause.
  await page.keyboard.press(" ");
  await page.getByRole("button", { name: "Pause", exact: true }).waitFor();
  await page.keyboard.press(" ");
  await page.getByRole("button", { name: "Play", exact: true }).waitFor();

  // Typing in the console: arrows move the cursor, ? and Space are characters.
  const input = page.getByRole("textbox", { name: "Console input" });
  await input.click();
  await input.pressSequentially("kubectl get pods ?");
  const at = await stepNumber(page);
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowRight");
  assert.equal(await input.inputValue(), "kubectl get pods ?");
  assert.equal(await page.getByRole("dialog").count(), 0, "no dialog");
  assert.equal(await stepNumber(page), at, "no step while typing");
  assert.equal(await page.getByRole("button", { name: "Play", exact: true }).count(), 1, "still paused");
  // Same in the editor.
  const editor = page.getByRole("textbox", { name: "Manifest editor" });
  await editor.click();
  await page.keyboard.type("a: b ?");
  await page.keyboard.press("ArrowLeft");
  assert.equal(await stepNumber(page), at);
  assert.equal(await editor.inputValue(), "a: b ?");
  assert.equal(await page.getByRole("dialog").count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("Space on a button reached with the keyboard presses that button, as everywhere", async () => {
  const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
  await runInConsole(page, "kubectl create namespace keys");
  const before = await stepNumber(page);
  // The keyboard moves focus (Tab), then lands on Step.
  await page.getByRole("textbox", { name: "Console input" }).focus();
  await page.keyboard.press("Shift+Tab");
  await page.getByRole("button", { name: "Step", exact: true }).focus();
  await page.keyboard.press("Space");
  await page.waitForFunction((n) => Number(document.querySelector(".narration__line")?.innerText.match(/^Step (\d+)/)?.[1] ?? 0) > n, before);
  assert.equal(await page.getByRole("button", { name: "Play", exact: true }).count(), 1, "it stepped, it did not play");
  await context.close();
});
