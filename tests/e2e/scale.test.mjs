// Run until idle at scale, driven by role and accessible name: one press converges 1,000 pods
// (no step cap, no hot-loop verdict on a cluster that is making progress) while the narration
// shows how far it got, and Pause stops it at once.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openPage, typeInConsole as run, useSiteAndBrowser, WIDE } from "./harness.mjs";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const consoleLog = (page) => page.getByRole("log", { name: "Console output" });
const narration = (page) => page.getByRole("status", { name: "Narration" });
const stepNumber = async (page) => Number((/Step (\d+)/.exec(await narration(page).innerText()) ?? [0, -1])[1]);

describe("Run until idle at scale", () => {
  test("one press reaches 1000/1000, showing progress, with no hot-loop verdict", { timeout: 900_000 }, async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=1000");
    await page.getByRole("button", { name: "Run until idle" }).click();
    // Progress while it runs: steps so far and what remains.
    await narration(page).getByText(/^Running until idle: [\d,]+ steps so far · pods [\d,]+ of [\d,]+ running/).waitFor({ timeout: 120_000 });
    await narration(page).getByText(/^Settled after \d+ steps\.$/).waitFor({ timeout: 840_000 });
    assert.doesNotMatch(await narration(page).innerText(), /Hot loop/);
    await page.getByRole("button", { name: "Play", exact: true }).waitFor();
    await run(page, "kubectl get deploy web");
    await consoleLog(page).getByText(/web\s+1000\/1000\s+1000\s+1000/).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  // 10,000 replicas, so that the run lasts long enough to use the console and pause it (1,000
  // converge in well under a minute).
  test("Pause during it stops it at once, and the console stays usable", { timeout: 300_000 }, async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=10000");
    await page.getByRole("button", { name: "Run until idle" }).click();
    await narration(page).getByText(/^Running until idle: /).waitFor({ timeout: 120_000 });
    // The console answers while it runs.
    await run(page, "kubectl get deploy web -o jsonpath={.spec.replicas}");
    await consoleLog(page).getByText("10000", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await narration(page).getByText("Paused.").waitFor();
    await page.getByRole("button", { name: "Play", exact: true }).waitFor();
    const paused = await stepNumber(page);
    assert.ok(paused > 0, "a step number in the narration");
    await page.waitForTimeout(1500);
    assert.equal(await stepNumber(page), paused, "no step after Pause");
    assert.doesNotMatch(await narration(page).innerText(), /Settled after|Hot loop/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
