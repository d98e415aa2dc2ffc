// Panic safety (issue 10): when the engine panics, the instance is dead (panic = "abort"), and the
// page must still show what happened, export the state (share code plus step log) and reload from
// the last good step, losing nothing the learner did.
//
// The panic is real: the page's module exports `testOnlyPanicOnNextAction` (src/web/panic.rs), a
// trigger no control or console command reaches, after which the next intent panics inside the
// session, as an engine bug would.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { useSiteAndBrowser } from "./harness.mjs";
import { openGuarded } from "./guard-lib.mjs";

const WIDE = { viewport: { width: 1400, height: 1000 }, acceptDownloads: true };
const PANIC_TEXT = "a deliberate panic requested by testOnlyPanicOnNextAction";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const consoleLog = (page) => page.getByRole("log", { name: "Console output" });
const timelineSteps = (page) =>
  page.getByRole("region", { name: /^Timeline/ }).getByRole("list", { name: "Steps" }).getByRole("listitem");

async function run(page, line, expect) {
  const input = page.getByRole("textbox", { name: "Console input" });
  await input.fill(line);
  await input.press("Enter");
  if (expect) await consoleLog(page).getByText(expect).waitFor();
}

/** Arms the test-only trigger through the page's own module (the instance boot.js started). */
async function armPanic(page) {
  await page.evaluate(async () => {
    const tag = document.querySelector("script[data-wasm]");
    const module = await import(new URL(tag.dataset.js, document.baseURI).href);
    module.testOnlyPanicOnNextAction();
  });
}

/**
 * The problems left once the panic's own are taken out: the panic hook's console messages (the
 * first panic's, and those of calls into the dead instance afterwards), the trap ("unreachable"),
 * and the requests a reload aborts.
 */
function onlyThePanic(problems) {
  return problems.filter(
    (p) =>
      !p.startsWith("console error: panicked at ") &&
      p !== "uncaught exception: unreachable" &&
      !/^request failed: .* \(net::ERR_ABORTED\)$/.test(p),
  );
}

const crashPanel = (page) => page.getByRole("alert").filter({ has: page.getByRole("heading", { name: "Reconcile Lab stopped" }) });

describe("when the engine panics", () => {
  test("the crash panel says what happened; Export state holds the share code and the step log; Reload from last good step restores it", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/sandbox`, { contextOptions: WIDE });
    await run(page, "kubectl create deployment web --image=nginx --replicas=2", "deployment.apps/web created");
    for (let i = 0; i < 6; i++) await page.getByRole("button", { name: "Step", exact: true }).click();
    await run(page, "kubectl label deployment web tier=front", "deployment.apps/web labeled");
    await page.getByRole("button", { name: "Step", exact: true }).click();
    const steps = await timelineSteps(page).count();
    assert.ok(steps >= 8, `${steps} steps`);

    await armPanic(page);
    await page.getByRole("button", { name: "Step", exact: true }).click();

    const panel = crashPanel(page);
    await panel.waitFor();
    const text = await panel.innerText();
    assert.match(text, /Reconcile Lab stopped because of an internal error, not because of anything you did\./);
    assert.ok(text.includes(PANIC_TEXT), text);
    assert.match(text, new RegExp(`Nothing you did is lost\\. Reload from last good step rebuilds the page as it was after step ${steps},`));
    // The dead page behind it is inert: its controls are out of reach.
    const stepInert = await page.getByRole("button", { name: "Step", exact: true }).evaluate((b) => b.closest("[inert]") !== null);
    assert.equal(stepInert, true, "the Step button is inside an inert part of the page");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Export state");

    const [download] = await Promise.all([page.waitForEvent("download"), panel.getByRole("button", { name: "Export state" }).click()]);
    assert.equal(download.suggestedFilename(), "reconcile-lab-state.txt");
    const exported = await readFile(await download.path(), "utf8");
    assert.ok(exported.includes(PANIC_TEXT), exported.slice(0, 400));
    assert.match(exported, new RegExp(`^At step ${steps} of ${steps}$`, "m"));
    assert.match(exported, /^Share code: 1\.[A-Za-z0-9_-]+$/m);
    assert.match(exported, /^Share link: http:\/\/127\.0\.0\.1:\d+\/#\/sandbox\?state=1\.[A-Za-z0-9_-]+$/m);
    assert.match(exported, /^ {2}kubectl create deployment web --image=nginx --replicas=2$/m);
    assert.match(exported, /^ {2}kubectl label deployment web tier=front$/m);
    const logLines = exported.split("\n").filter((l) => /^ *\d+ {2}2026-\d\d-\d\dT/.test(l));
    assert.equal(logLines.length, steps, exported);
    assert.match(logLines[0], /^ {4}1 {2}/);
    // The same text is in the panel, for copying where downloads are blocked.
    await panel.getByText("The exported state as text").click();
    assert.equal(await panel.getByRole("textbox", { name: "Exported state" }).inputValue(), exported);

    await panel.getByRole("button", { name: "Reload from last good step" }).click();
    await page.getByRole("textbox", { name: "Console input" }).waitFor({ timeout: 30_000 });
    assert.equal(await crashPanel(page).count(), 0);
    await page.getByText(`${steps} steps so far.`).waitFor();
    assert.equal(await timelineSteps(page).count(), steps);
    assert.match(page.url(), /#\/sandbox$/, "the link was read and forgotten");
    await run(page, "kubectl get deployment web -o jsonpath={.metadata.labels.tier}", /^\s*front\s*$/);
    // The restored page works: it steps on from there.
    await page.getByRole("button", { name: "Step", exact: true }).click();
    await page.getByRole("status", { name: "Narration" }).getByText(`Step ${steps + 1}`).waitFor();
    assert.deepEqual(onlyThePanic(problems), []);
    assert.ok(problems.some((p) => p.includes(PANIC_TEXT)), "the panic was real");
    await context.close();
  });

  test("an intent that panics right after another, in the same task, finds the other's state kept", async () => {
    // The checkpoint of an intent waits for the page to paint it; the next intent writes it first.
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/sandbox`, { contextOptions: WIDE });
    await run(page, "kubectl create deployment web --image=nginx --replicas=2", "deployment.apps/web created");
    for (let i = 0; i < 3; i++) await page.getByRole("button", { name: "Step", exact: true }).click();
    const steps = await timelineSteps(page).count();
    await page.evaluate(async () => {
      const tag = document.querySelector("script[data-wasm]");
      const module = await import(new URL(tag.dataset.js, document.baseURI).href);
      const words = (b) => [...b.childNodes].filter((n) => n.nodeName !== "KBD").map((n) => n.textContent).join("").trim();
      const step = [...document.querySelectorAll("button")].find((b) => words(b) === "Step");
      step.click();
      module.testOnlyPanicOnNextAction();
      step.click();
    });
    const panel = crashPanel(page);
    await panel.waitFor();
    assert.match(await panel.innerText(), new RegExp(`rebuilds the page as it was after step ${steps + 1},`));
    assert.deepEqual(onlyThePanic(problems), []);
    await context.close();
  });

  test("in a lesson: reload keeps the goals met and the lesson's state", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/lessons/generation`, { contextOptions: WIDE });
    await run(page, "kubectl scale deployment web --replicas=3");
    // The goal met, the lesson moves on and marks its first step done.
    const met = page.getByRole("button", { name: "A spec edit bumps the generation (done)" });
    await met.waitFor();
    await armPanic(page);
    await page.getByRole("button", { name: "Run until idle" }).click();
    await crashPanel(page).waitFor();
    await crashPanel(page).getByRole("button", { name: "Reload from last good step" }).click();
    await page.getByRole("heading", { level: 1, name: "Generation and observedGeneration" }).waitFor({ timeout: 30_000 });
    await met.waitFor();
    await run(page, "kubectl get deploy web -o jsonpath={.spec.replicas}", /^\s*3\s*$/);
    assert.match(page.url(), /#\/lessons\/generation$/);
    assert.deepEqual(onlyThePanic(problems), []);
    await context.close();
  });

  test("without session storage: the panel still shows and exports what it knows", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/sandbox`, {
      contextOptions: WIDE,
      init: () => {
        Object.defineProperty(window, "sessionStorage", {
          get() {
            throw new DOMException("Access is denied for this document.", "SecurityError");
          },
        });
      },
    });
    await run(page, "kubectl create deployment web --image=nginx", "deployment.apps/web created");
    await armPanic(page);
    await page.getByRole("button", { name: "Step", exact: true }).click();
    const panel = crashPanel(page);
    await panel.waitFor();
    assert.match(await panel.innerText(), /This browser kept no copy of the state/);
    await panel.getByText("The exported state as text").click();
    const exported = await panel.getByRole("textbox", { name: "Exported state" }).inputValue();
    assert.ok(exported.includes(PANIC_TEXT));
    assert.match(exported, /^Share code: \(none kept\)$/m);
    await panel.getByRole("button", { name: "Reload from last good step" }).click();
    await page.getByRole("heading", { level: 1, name: "Reconcile Lab" }).waitFor({ timeout: 30_000 });
    assert.deepEqual(onlyThePanic(problems), []);
    await context.close();
  });

  test("in the embed: reload keeps the author's parameters and restores the state", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/embed.html?panels=console,timeline&theme=dark`, {
      contextOptions: WIDE,
      waitForApp: false,
    });
    await page.getByRole("button", { name: /^Start the playground/ }).click();
    await page.getByRole("textbox", { name: "Console input" }).waitFor();
    await run(page, "kubectl create deployment web --image=nginx", "deployment.apps/web created");
    await armPanic(page);
    await run(page, "kubectl get pods");
    await crashPanel(page).waitFor();
    await crashPanel(page).getByRole("button", { name: "Reload from last good step" }).click();
    await page.waitForURL(/embed\.html\?panels=console%2Ctimeline&theme=dark&state=1\./);
    // The learner asked for the playground back: it starts without its start view.
    await page.getByRole("textbox", { name: "Console input" }).waitFor({ timeout: 30_000 });
    await run(page, "kubectl get deploy -o name", /^\s*deployment\.apps\/web\s*$/);
    assert.deepEqual(onlyThePanic(problems), []);
    await context.close();
  });

  test("the trigger is not reachable from the console", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/sandbox`, { contextOptions: WIDE });
    await run(page, "testOnlyPanicOnNextAction", "testOnlyPanicOnNextAction: command not found");
    await run(page, "lab testOnlyPanicOnNextAction", 'error: unknown lab command "testOnlyPanicOnNextAction"; see "lab help"');
    await page.getByRole("button", { name: "Step", exact: true }).click();
    assert.equal(await crashPanel(page).count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("the cost of keeping the state (a figure, not an assertion)", () => {
  // A measurement: step latency with the recovery checkpoint after every intent, and without it
  // (session storage disabled, so the page skips the checkpoint), same build, same steps. Runs
  // only when asked for (REPORT_PERF=1), with the other figures.
  test("step latency with and without the checkpoint", { timeout: 600_000, skip: !process.env.REPORT_PERF && "a measurement: set REPORT_PERF=1 to run it" }, async () => {
    for (const [name, init] of [
      ["with the checkpoint", null],
      [
        "without (no session storage)",
        () =>
          Object.defineProperty(window, "sessionStorage", {
            get() {
              throw new DOMException("denied", "SecurityError");
            },
          }),
      ],
    ]) {
      const { context, page } = await openGuarded(browser, `${server.origin}/#/sandbox`, { contextOptions: WIDE, init });
      await run(page, "kubectl create deployment big --image=nginx --replicas=100", "deployment.apps/big created");
      await run(page, "lab step 1500");
      await page.waitForTimeout(1000);
      const times = [];
      for (let i = 0; i < 60; i++) {
        times.push(
          await page.evaluate(
            () =>
              new Promise((done) => {
                const button = [...document.querySelectorAll("button")].find((b) => b.textContent === "Step");
                const t0 = performance.now();
                button.click();
                requestAnimationFrame(() => done(performance.now() - t0));
              }),
          ),
        );
      }
      times.sort((a, b) => a - b);
      console.log(`step latency ${name}, 100 pods, after 1,500 steps: median ${times[30].toFixed(2)} ms, p95 ${times[57].toFixed(2)} ms`);
      await context.close();
    }
  });
});
