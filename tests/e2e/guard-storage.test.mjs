// Saved data (issue 10): corrupt, wrong-typed, old-format, newer-format and megabyte-sized saved
// progress, and a storage that throws (disabled, blocked, full), never stop the page. Each case
// seeds or breaks local storage before the page's first script runs, then checks: the page loads;
// a notice says what happened; the lessons start from the default state (or from what could be
// kept); a goal met afterwards is saved (when the storage allows it); and nothing else is lost
// (other keys untouched, the unreadable record kept aside).

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { useSiteAndBrowser, PROGRESS_KEY } from "./harness.mjs";
import { openGuarded } from "./guard-lib.mjs";

const UNREADABLE_KEY = "reconcile-lab.progress.unreadable";
const OTHER_KEY = "another-app.settings";
const FRESH = "Saved progress could not be read; starting fresh.";
const UNAVAILABLE = "This browser does not let Reconcile Lab use its storage";
const NOT_SAVED = "Your progress could not be saved: the browser's storage refused it";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** Seeds local storage once per context (the first load), with `value` under the progress key. */
function seed([progressKey, otherKey, value]) {
  if (sessionStorage.getItem("guard.seeded")) return;
  sessionStorage.setItem("guard.seeded", "1");
  localStorage.setItem(otherKey, "keep me");
  if (value !== null) localStorage.setItem(progressKey, value);
}

const notice = (page, text) => page.getByRole("status").filter({ hasText: text });

/** Meets the first goal of the "generation" lesson the way a learner does. */
async function meetGenTwo(page) {
  await page.goto(`${server.origin}/#/lessons/generation`);
  const input = page.getByRole("textbox", { name: "Console input" });
  await input.fill("kubectl scale deployment web --replicas=3");
  await input.press("Enter");
  // Met: the lesson moves on and marks its first step done.
  await page.getByRole("button", { name: "A spec edit bumps the generation (done)" }).waitFor();
}

const stored = (page, key) => page.evaluate((k) => localStorage.getItem(k), key);

describe("saved progress the page cannot use", () => {
  const cases = [
    ["not JSON", "{not json", "It is not what this page writes"],
    ["an array", "[]", "not a JSON object"],
    ["a string", JSON.stringify("progress"), "not a JSON object"],
    ["null", "null", "not a JSON object"],
    ["a number", "42", "not a JSON object"],
    ["a version that is a string", JSON.stringify({ version: "1", lessons: {} }), "version is not a number"],
    ["lessons that are a list", JSON.stringify({ version: 1, lessons: [] }), "It is not what this page writes"],
    ["no version (an older format)", JSON.stringify({ lessons: { generation: ["gen-two"] } }), "written by an older version"],
    ["version 0", JSON.stringify({ version: 0, lessons: {} }), "written by an older version"],
    ["a newer format", JSON.stringify({ version: 999, lessons: {} }), "written by a newer version of Reconcile Lab (format 999)"],
    ["NUL and other scripts", "\u0000{\u00ff\u4e2d", "It is not what this page writes"],
  ];
  for (const [name, value, why] of cases) {
    test(`${name}: a notice, fresh progress, the record kept aside, new progress saved`, async () => {
      const { context, page, problems, dialogs } = await openGuarded(browser, `${server.origin}/#/`, {
        init: seed,
        arg: [PROGRESS_KEY, OTHER_KEY, value],
      });
      await notice(page, FRESH).filter({ hasText: why }).waitFor();
      assert.equal(await page.getByText(/^0 of \d+ goals$/).count(), 10, "every lesson starts fresh");
      await notice(page, "The unreadable copy is kept in this browser").waitFor();
      assert.equal(await stored(page, UNREADABLE_KEY), value);
      await meetGenTwo(page);
      const saved = JSON.parse(await stored(page, PROGRESS_KEY));
      assert.deepEqual(saved.lessons.generation.goals_met, ["gen-two"]);
      assert.equal(await stored(page, OTHER_KEY), "keep me");
      assert.equal(await stored(page, UNREADABLE_KEY), value, "the copy outlives the save");
      assert.deepEqual(problems, []);
      assert.deepEqual(dialogs, []);
      await context.close();
    });
  }

  for (const [name, value] of [
    ["4 MB of text", "x".repeat(4 << 20)],
    ["4 MB of JSON of the right shape", JSON.stringify({ version: 1, lessons: { generation: { goals_met: ["g".repeat(4 << 20)], current_step: 0 } } })],
  ]) {
    test(`${name}: refused unread, the page loads, new progress replaces it`, async () => {
      const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/`, {
        init: seed,
        arg: [PROGRESS_KEY, OTHER_KEY, value],
      });
      await notice(page, FRESH).filter({ hasText: `It is ${value.length} bytes` }).waitFor();
      assert.equal(await notice(page, "kept in this browser").count(), 0, "megabytes are not ours: not copied");
      await meetGenTwo(page);
      const saved = await stored(page, PROGRESS_KEY);
      assert.ok(saved.length < 1000, `replaced by real progress (${saved.length} bytes)`);
      assert.equal(await stored(page, OTHER_KEY), "keep me");
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test("one broken lesson: dropped, the other lessons' progress kept", async () => {
    const value = JSON.stringify({
      version: 1,
      lessons: {
        generation: { goals_met: ["gen-two"], current_step: 1 },
        conflicts: { goals_met: "every one", current_step: -3 },
      },
    });
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/`, {
      init: seed,
      arg: [PROGRESS_KEY, OTHER_KEY, value],
    });
    await notice(page, "Saved progress of 1 lesson could not be read and was dropped; the progress of the other lesson was kept.").waitFor();
    const item = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Generation and observedGeneration" }) });
    await item.getByText(/^1 of \d+ goals$/).waitFor();
    assert.equal(await stored(page, UNREADABLE_KEY), value);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("a storage that throws", () => {
  test("local storage disabled (reading it throws): a notice, and the lessons work", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/`, {
      init: () => {
        Object.defineProperty(window, "localStorage", {
          get() {
            throw new DOMException("Access is denied for this document.", "SecurityError");
          },
        });
      },
    });
    // The home page is plain HTML and starts nothing for a visitor with nothing saved (docs/size.md):
    // the app, and its notice, come with the first lesson.
    assert.equal(await page.getByRole("main").getByRole("listitem").getByRole("link").count(), 10);
    await meetGenTwo(page);
    await notice(page, UNAVAILABLE).waitFor();
    await page.getByRole("link", { name: "Lessons", exact: true }).click();
    const item = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Generation and observedGeneration" }) });
    await item.getByText(/^1 of \d+ goals$/).waitFor();
    assert.equal(await notice(page, NOT_SAVED).count(), 0, "one notice is enough");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("every storage call throws, session storage too: the page still loads and steps", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/sandbox`, {
      init: () => {
        for (const name of ["getItem", "setItem", "removeItem", "key", "clear"]) {
          Storage.prototype[name] = () => {
            throw new DOMException("The operation is insecure.", "SecurityError");
          };
        }
        Object.defineProperty(Storage.prototype, "length", {
          get() {
            throw new DOMException("The operation is insecure.", "SecurityError");
          },
        });
      },
    });
    await notice(page, UNAVAILABLE).waitFor();
    const input = page.getByRole("textbox", { name: "Console input" });
    await input.fill("kubectl create deployment web --image=nginx");
    await input.press("Enter");
    await page.getByRole("log", { name: "Console output" }).getByText("deployment.apps/web created").waitFor();
    await page.getByRole("button", { name: "Step", exact: true }).click();
    await page.getByRole("status", { name: "Narration" }).getByText(/Step 2/).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a full storage (quota exceeded on save): a notice, progress kept in the page", async () => {
    const { context, page, problems } = await openGuarded(browser, `${server.origin}/#/`, {
      init: () => {
        if (sessionStorage.getItem("guard.filled")) return;
        sessionStorage.setItem("guard.filled", "1");
        // Fill the origin's real quota with another app's data.
        const block = "f".repeat(1 << 20);
        try {
          for (let i = 0; i < 64; i++) localStorage.setItem(`filler.${i}`, block);
        } catch {
          // Full.
        }
        let n = 0;
        for (let size = 1 << 16; size > 0; ) {
          try {
            localStorage.setItem(`filler.small.${n++}`, "f".repeat(size));
          } catch {
            size >>= 1;
          }
        }
      },
    });
    assert.equal(await notice(page, FRESH).count(), 0);
    await meetGenTwo(page);
    await notice(page, NOT_SAVED).waitFor();
    assert.equal(await stored(page, PROGRESS_KEY), null, "really refused by the browser");
    await page.getByRole("link", { name: "Lessons", exact: true }).click();
    const item = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Generation and observedGeneration" }) });
    await item.getByText(/^1 of \d+ goals$/).waitFor();
    assert.ok((await page.evaluate(() => localStorage.getItem("filler.0")))?.length === 1 << 20, "the other data is untouched");
    assert.deepEqual(problems, []);
    await context.close();
  });
});
