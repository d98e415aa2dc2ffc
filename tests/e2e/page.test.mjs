// The page's core, driven as a learner drives it, by role and accessible name only: create a
// Deployment in the console and step through it (narration, timeline), run until idle and see
// three Running pods, get the real 409 from a stale editor apply and recover, step back and
// branch, step with the keyboard, use the page at 360 px, and a rough step-latency figure.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { NARROW, openPage, typeInConsole as run, useSiteAndBrowser, WIDE } from "./harness.mjs";


let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const consoleLog = (page) => page.getByRole("log", { name: "Console output" });
const timelineSteps = (page) => page.getByRole("region", { name: "Timeline" }).getByRole("list", { name: "Steps" }).getByRole("listitem");

describe("stepping through a Deployment", () => {
  test("a console create is narrated step by step and the timeline grows", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=3");
    await consoleLog(page).getByText("deployment.apps/web created").waitFor();
    const narration = page.getByRole("status", { name: "Narration" });
    assert.match(await narration.innerText(), /Step 1/);
    const next = page.getByRole("region", { name: "What happens next" });
    assert.ok((await next.getByRole("button", { name: "Run this next" }).count()) > 0);
    const before = await timelineSteps(page).count();
    await page.getByRole("button", { name: "Step", exact: true }).click();
    await page.getByRole("button", { name: "Step", exact: true }).click();
    await narration.getByText("Step 3").waitFor();
    assert.equal(await timelineSteps(page).count(), before + 2);
    assert.ok((await page.getByText("changed in this step").count()) > 0, "touched regions are marked in words");
    await page.getByRole("button", { name: "Run until idle" }).click();
    await page.getByText(/Settled after \d+ steps/).waitFor();
    await run(page, "kubectl get pods");
    await page.waitForFunction(() => (document.querySelector("[role=log]")?.innerText.match(/Running/g) ?? []).length >= 3);
    const text = await consoleLog(page).innerText();
    assert.equal(text.match(/web-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running/g)?.length, 3, text);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a stale editor apply gets the real 409, and Reload and re-apply recovers", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=3");
    await page.getByRole("button", { name: "Run until idle" }).click();
    await run(page, "kubectl edit deployment web");
    const editor = page.getByRole("textbox", { name: "Manifest editor" });
    await page.waitForFunction(() => document.querySelector("textarea")?.value.includes("kind: Deployment"));
    await run(page, "kubectl label deployment web tier=front");
    const text = await editor.inputValue();
    await editor.fill(text.replace("replicas: 3", "replicas: 2"));
    await page.getByRole("button", { name: "Apply" }).click();
    await consoleLog(page).getByText(/the object has been modified; please apply your changes to the latest version and try again/).waitFor();
    await page.getByRole("button", { name: "Reload and re-apply" }).click();
    await consoleLog(page).getByText("deployment.apps/web edited").waitFor();
    await run(page, "kubectl get deploy web -o jsonpath={.spec.replicas}");
    await page.waitForFunction(() => /\n2\s*$/.test(document.querySelector("[role=log]")?.innerText ?? ""));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a parse error is shown at its line and column", async () => {
    const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    const editor = page.getByRole("textbox", { name: "Manifest editor" });
    await editor.fill("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n");
    await page.getByText(/^Line \d+, column \d+: /).waitFor();
    await context.close();
  });

  test("step back, then acting starts a new branch, said in words", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=3");
    for (let i = 0; i < 4; i++) await page.getByRole("button", { name: "Step", exact: true }).click();
    const total = await timelineSteps(page).count();
    await page.getByRole("button", { name: "Step back" }).click();
    await page.getByRole("button", { name: "Step back" }).click();
    await page.getByText(`At step ${total - 2} of ${total}`).waitFor();
    await run(page, "kubectl scale deployment web --replicas=1");
    await page.getByText(/New branch: you acted at step \d+, so the 2 later steps of the old branch were dropped\./).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the stepping buttons stay put while the narration above them changes height", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=3");
    const narration = page.getByRole("status", { name: "Narration" });
    const step = page.getByRole("button", { name: "Step", exact: true });
    const heights = new Set();
    const tops = new Set();
    for (let i = 0; i < 12; i++) {
      await step.click();
      await narration.getByText(`Step ${i + 2}`, { exact: false }).first().waitFor();
      heights.add(Math.round((await narration.boundingBox()).height));
      tops.add(Math.round((await step.boundingBox()).y));
    }
    assert.ok(heights.size > 1, `the narration changed height across the steps (${[...heights]})`);
    assert.deepEqual([...tops], [[...tops][0]], "Step stayed at one place on the screen");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("keyboard: Right steps, Left steps back, Space plays and pauses", async () => {
    const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=3");
    await page.getByRole("heading", { level: 1 }).click();
    const count = () => timelineSteps(page).count();
    const start = await count();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    assert.equal(await count(), start + 2);
    await page.keyboard.press("ArrowLeft");
    await page.getByText(`At step ${start + 1} of ${start + 2}`).waitFor();
    await page.keyboard.press(" ");
    await page.getByRole("button", { name: "Pause" }).waitFor();
    await page.keyboard.press(" ");
    await page.getByRole("button", { name: "Play" }).waitFor();
    // Typing in the console is typing, not stepping.
    const input = page.getByRole("textbox", { name: "Console input" });
    await input.fill("kubectl get");
    const before = await count();
    await input.press("ArrowLeft");
    assert.equal(await count(), before);
    await context.close();
  });
});

describe("at 360 px", () => {
  test("the controls, console and editor are usable", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, NARROW);
    await page.getByRole("tab", { name: "Commands" }).click();
    await run(page, "kubectl create deployment web --image=nginx --replicas=1");
    await consoleLog(page).getByText("deployment.apps/web created").waitFor();
    await page.getByRole("button", { name: "Step", exact: true }).click();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `no horizontal page scroll (scrollWidth ${width})`);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("performance (a figure, not an assertion)", () => {
  // A measurement, not a check: it converges 1,000 pods in the page (minutes on 2 cores), so it
  // runs only when asked for (REPORT_PERF=1), as part of the benchmark figures.
  test("step latency with 1,000 pods", { timeout: 1_200_000, skip: !process.env.REPORT_PERF && "a measurement: set REPORT_PERF=1 to run it" }, async () => {
    const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment big --image=nginx --replicas=1000");
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) {
      await page.getByRole("button", { name: "Run until idle" }).click();
      // Sliced: the page answers input meanwhile; wait for the outcome of this run.
      await page.getByRole("button", { name: "Play" }).waitFor({ timeout: 600_000 });
      if ((await page.getByText(/Settled after \d+ steps/).count()) > 0) break;
    }
    console.log(`converging 1,000 pods in the page: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await run(page, "kubectl scale deployment big --replicas=999");
    const times = [];
    for (let i = 0; i < 15; i++) {
      const ms = await page.evaluate(
        () =>
          new Promise((done) => {
            const button = [...document.querySelectorAll("button")].find((b) => b.textContent === "Step");
            const t0 = performance.now();
            button.click();
            requestAnimationFrame(() => done(performance.now() - t0));
          }),
      );
      times.push(ms);
    }
    times.sort((a, b) => a - b);
    console.log(`step latency at 1,000 pods: median ${times[7].toFixed(1)} ms, max ${times[14].toFixed(1)} ms`);
    await context.close();
  });
});
