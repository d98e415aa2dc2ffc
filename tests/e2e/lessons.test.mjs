// Guided lessons, driven as a learner drives them, by role and accessible name: each lesson is
// completed by doing what its own steps say (the commands of each step's solution typed into
// "Console input", its edits typed into the editor, its applies pressed on Apply), until the page
// announces "Lesson complete". Also: a wrong action meets no goal, progress survives a reload,
// corrupt saved progress shows the notice and the page still works, the home page and routes.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { NARROW, consoleBlocks as blocks, openPage, runInConsole as run, useSiteAndBrowser, PROGRESS_KEY, WIDE } from "./harness.mjs";

const LESSONS = resolve(fileURLToPath(import.meta.url), "../../../lessons");

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** A lesson file's steps: `{ title, puzzle, solution: [line or {edit, text}] }`. */
async function lessonSteps(slug) {
  const text = await readFile(`${LESSONS}/${slug}.md`, "utf8");
  const lines = text.split("\n");
  const steps = [];
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i].match(/^## (Step|Puzzle): (.*)$/);
    if (head) steps.push({ title: head[2], puzzle: head[1] === "Puzzle", solution: [] });
    if (lines[i].trim() === "```solution" && steps.length) {
      const step = steps[steps.length - 1];
      for (i++; i < lines.length && lines[i].trim() !== "```"; i++) {
        const line = lines[i];
        const edit = line.match(/^edit (\S+) <<EOF$/);
        if (edit) {
          const body = [];
          for (i++; i < lines.length && lines[i] !== "EOF"; i++) body.push(lines[i]);
          step.solution.push({ edit: edit[1], text: body.join("\n") + "\n" });
        } else if (line.trim() !== "") {
          step.solution.push(line);
        }
      }
    }
  }
  return steps;
}

const consoleLog = (page) => page.getByRole("log", { name: "Console output" });

/** What the last command printed. */
async function lastOutput(page) {
  return (await blocks(page).last().locator(".console__output").innerText()).trim();
}

/** Does one solution line the way a learner would through the page. */
async function act(page, action) {
  if (typeof action === "object") {
    await page.getByRole("group", { name: "Open files" }).getByRole("button", { name: action.edit }).click();
    await page.getByRole("textbox", { name: "Manifest editor" }).fill(action.text);
    return;
  }
  let line = action.replace(/\s+# expect failure$/, "");
  const apply = line.match(/^apply (\S+)$/);
  if (apply) {
    const before = await blocks(page).count();
    await page.getByRole("group", { name: "Open files" }).getByRole("button", { name: apply[1] }).click();
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.waitForFunction((n) => document.querySelectorAll("[role=log] .console__block").length > n, before);
    return;
  }
  // `$(cmd)`: the learner runs cmd first and copies what it prints.
  for (let m = line.match(/\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)/); m; m = line.match(/\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)/)) {
    await run(page, m[1]);
    line = line.replace(m[0], await lastOutput(page));
  }
  await run(page, line);
}

async function openLesson(slug, options = WIDE) {
  const { context, page, problems } = await openPage(browser, `${server.origin}/#/lessons/${slug}`, options);
  await page.getByRole("button", { name: "Show me" }).waitFor();
  return { context, page, problems };
}

async function complete(page, slug) {
  const steps = await lessonSteps(slug);
  assert.ok(steps.length > 0, `${slug} has steps`);
  for (const step of steps) {
    // A puzzle's solution starts from the puzzle's own starting state: the learner presses Reset.
    if (step.puzzle) await page.getByRole("button", { name: "Reset", exact: true }).click();
    for (const action of step.solution) await act(page, action);
  }
  await page.getByRole("status").filter({ hasText: "Lesson complete" }).waitFor({ timeout: 60_000 });
}

const PRIORITY = ["reconcile-loop", "conflicts", "generation", "finalizers"];
const OTHERS = ["list-and-watch", "missed-events", "work-queue", "garbage-collection", "leader-election", "challenges"];

describe("completing lessons as a learner", () => {
  for (const slug of [...PRIORITY, ...OTHERS]) {
    test(`${slug}: following the lesson's own steps completes it`, async () => {
      const { context, page, problems } = await openLesson(slug);
      await complete(page, slug);
      assert.ok((await page.getByText("Not met yet:").count()) === 0, "every goal says Met");
      assert.ok((await page.getByRole("link", { name: /^(Next lesson: |Back to all lessons)/ }).count()) === 1);
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
});

describe("work-queue: a key added while processing", () => {
  test("following the step, Work queues shows the key processing, then dirty, and it runs once more", async () => {
    const { context, page, problems } = await openLesson("work-queue");
    const steps = await lessonSteps("work-queue");
    const step = steps.find((s) => s.title === "A key added while processing runs once more");
    assert.ok(step, "the lesson has the dirty-while-processing step");
    for (const action of steps[0].solution) await act(page, action);
    await page.getByRole("heading", { name: /^Step 2: / }).waitFor();

    const queue = page
      .getByRole("region", { name: "Work queues" })
      .getByRole("group", { name: /^deployment-controller queue/ });
    const processing = queue.getByRole("list", { name: "Processing" }).getByRole("listitem");
    const dirty = queue.getByRole("list", { name: "Dirty while processing" }).getByRole("listitem");
    const waiting = queue.getByRole("list", { name: "Waiting" }).getByRole("listitem");
    const upTo = (prefix) => step.solution.findIndex((l) => typeof l === "string" && l.startsWith(prefix));
    const lines = step.solution;
    const secondEdit = upTo("kubectl scale deployment web --replicas=7");
    // Take the key: it is processing, not waiting, not dirty.
    for (const action of lines.slice(0, secondEdit)) await act(page, action);
    await processing.filter({ hasText: /^default\/web/ }).waitFor();
    assert.equal(await dirty.count(), 0);
    assert.equal(await waiting.filter({ hasText: /^default\/web/ }).count(), 0);
    // Edit while it is held: the handler's add only marks it dirty.
    const reconcile = lines.findIndex((l, i) => i > secondEdit && l === "lab step");
    for (const action of lines.slice(secondEdit, reconcile)) await act(page, action);
    await dirty.filter({ hasText: "default/web" }).waitFor();
    assert.equal(await waiting.filter({ hasText: /^default\/web/ }).count(), 0, "a held key is never waiting too");
    const goal = page.getByRole("listitem").filter({ hasText: "was added while a worker held it" });
    assert.match(await goal.innerText(), /Not met yet:/);
    // Its reconcile calls Done: the key is back in the queue, once, and the goal is met.
    await act(page, lines[reconcile]);
    await waiting.filter({ hasText: /^default\/web/ }).waitFor();
    assert.equal(await waiting.filter({ hasText: /^default\/web/ }).count(), 1);
    assert.equal(await dirty.count(), 0);
    await goal.filter({ hasText: "Met:" }).filter({ hasNotText: "Not met yet:" }).waitFor();
    for (const action of lines.slice(reconcile + 1)) await act(page, action);
    // Both goals met: the lesson moves on to the next step; the finished one says so.
    await page.getByRole("heading", { name: /^Step 3: / }).waitFor();
    await page.getByRole("button", { name: `${step.title} (done)` }).click();
    const again = page.getByRole("listitem").filter({ hasText: "The key ran once more after" });
    assert.match(await again.innerText(), /Met: The key ran once more/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("lesson text: lists, links and figures", () => {
  test("a bullet list is a list, a link opens outside the lesson safely, a figure has its alt text and caption", async () => {
    const { context, page, problems } = await openLesson("garbage-collection");
    await page.getByText("Introduction", { exact: true }).click();
    const policies = page.getByRole("list").filter({ hasText: "kubectl's default" });
    const items = policies.getByRole("listitem");
    assert.equal(await items.count(), 3);
    assert.match(await items.nth(0).innerText(), /^background \(kubectl's default\): the owner is deleted at once;/);
    assert.match(await items.nth(2).innerText(), /^orphan: /);
    assert.equal(await page.getByText(/(^|\s)- (background|foreground|orphan)/).count(), 0, "no literal list markers");
    const link = page.getByRole("link", { name: "Garbage Collection (opens in a new tab)" });
    assert.equal(await link.getAttribute("href"), "https://kubernetes.io/docs/concepts/architecture/garbage-collection/");
    assert.equal(await link.getAttribute("target"), "_blank");
    assert.equal(await link.getAttribute("rel"), "noopener noreferrer");
    await context.close();

    const opened = await openLesson("reconcile-loop", NARROW);
    const figure = opened.page.getByRole("figure", { name: /^One turn of a controller's loop\./ });
    const img = figure.getByRole("img", { name: /^The controller loop: 1, a watch event goes from the API server to an informer/ });
    await img.waitFor();
    await img.evaluate((el) => el.decode());
    const { width, fits } = await img.evaluate((el) => ({ width: el.naturalWidth, fits: el.getBoundingClientRect().right <= document.documentElement.clientWidth }));
    assert.ok(width > 0, "the figure's SVG loaded");
    assert.ok(fits, "the figure fits a 360 px screen");
    assert.deepEqual(problems, []);
    assert.deepEqual(opened.problems, []);
    await opened.context.close();
  });
});

describe("goals, progress and routes", () => {
  test("a successful apply does not meet the 409 goal", async () => {
    const { context, page, problems } = await openLesson("conflicts");
    const text = await page.getByRole("textbox", { name: "Manifest editor" }).inputValue();
    await act(page, { edit: "web.yaml", text: text.replace(/\n\s*resourceVersion: "2"/, "") });
    await act(page, "apply web.yaml");
    await consoleLog(page).getByText("deployment.apps/web configured").waitFor();
    await page.getByRole("button", { name: "Run until idle" }).click();
    await page.getByText(/Settled after \d+ steps/).waitFor();
    await page.getByText("Not met yet:").first().waitFor();
    const goal = page.getByRole("listitem").filter({ hasText: "Your write was refused with 409 Conflict." });
    assert.match(await goal.innerText(), /Not met yet:/);
    assert.equal(await page.getByText("Lesson complete").count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("progress survives a reload and shows on the home page", async () => {
    const { context, page, problems } = await openLesson("reconcile-loop");
    const [first] = await lessonSteps("reconcile-loop");
    for (const action of first.solution) await act(page, action);
    const met = page.getByRole("listitem").filter({ hasText: "You deleted a Pod of web." });
    await page.getByRole("heading", { name: /^Step 2: / }).waitFor();
    await page.reload();
    await page.getByRole("textbox", { name: "Console input" }).waitFor();
    // The step shown is the first unfinished one; the first step's goals are still met.
    await page.getByRole("heading", { name: /^Step 2: / }).waitFor();
    await page.getByRole("button", { name: /^Delete a Pod and watch it come back \(done\)$/ }).click();
    assert.match(await met.innerText(), /Met:/);
    await page.getByRole("link", { name: "Lessons", exact: true }).click();
    const item = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "The reconcile loop" }) });
    await item.getByText("2 of 6 goals").waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  for (const corrupt of ["{not json", "x".repeat(70_000), JSON.stringify({ version: 999, lessons: {} })]) {
    test(`corrupt saved progress (${corrupt.slice(0, 12)}…) shows the notice and the page works`, async () => {
      const context = await browser.newContext(WIDE);
      await context.addInitScript(
        ([key, value]) => {
          if (!sessionStorage.getItem("seeded")) {
            localStorage.setItem(key, value);
            sessionStorage.setItem("seeded", "1");
          }
        },
        [PROGRESS_KEY, corrupt],
      );
      const page = await context.newPage();
      const problems = [];
      page.on("pageerror", (err) => problems.push(err.message));
      await page.goto(`${server.origin}/#/lessons/generation`);
      await page.getByText("Saved progress could not be read; starting fresh.").waitFor();
      await complete(page, "generation");
      const saved = await page.evaluate((key) => localStorage.getItem(key), PROGRESS_KEY);
      assert.ok(saved && saved !== corrupt && saved.includes("generation"), saved?.slice(0, 80));
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test("home lists every lesson with progress and links to the sandbox, under a sub-path", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/reconcile-lab/#/`, WIDE);
    const links = page.getByRole("main").getByRole("listitem").getByRole("link");
    assert.equal(await links.count(), 10);
    assert.ok((await page.getByText(/^0 of \d+ goals$/).count()) === 10);
    await page.getByRole("link", { name: "Open the sandbox" }).click();
    await page.getByRole("textbox", { name: "Console input" }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Show me" }).count(), 0, "the sandbox has no lesson");
    await page.goBack();
    await links.first().click();
    await page.getByRole("heading", { level: 1, name: "The reconcile loop" }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("Hint reveals hints one at a time; Show me plays the step; Open in sandbox keeps the state", async () => {
    const { context, page, problems } = await openLesson("reconcile-loop");
    await page.getByRole("button", { name: "Hint" }).click();
    await page.getByRole("list", { name: "Hints" }).getByRole("listitem").first().waitFor();
    assert.equal(await page.getByRole("list", { name: "Hints" }).getByRole("listitem").count(), 1);
    await page.getByRole("button", { name: "Show me" }).click();
    await page.getByRole("heading", { name: /^Step 2: / }).waitFor({ timeout: 60_000 });
    const log = await consoleLog(page).innerText();
    assert.match(log, /pod "web-[a-z0-9]+-[a-z0-9]{5}" deleted/);
    await page.getByRole("button", { name: "Open in sandbox" }).click();
    await page.waitForURL(/#\/sandbox$/);
    await run(page, "kubectl get pods");
    assert.match(await lastOutput(page), /web-/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a lesson works at 360 px", async () => {
    const { context, page, problems } = await openLesson("generation", NARROW);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `no horizontal scroll (scrollWidth ${width})`);
    await page.getByRole("button", { name: "Hint" }).click();
    await page.getByRole("button", { name: "Reset", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("The lesson's cluster starts over; the goals you met stay met.").waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});
