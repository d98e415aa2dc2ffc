// The "Control plane" map (issue 16), driven the way a learner drives it: kubectl lines in the
// console, Step, Step back, the keyboard. Parts of the picture are found by role and accessible
// name (each is a button named by what it shows); the few visual checks (a token travelling, the
// dashed outline with reduced motion) read computed styles, since motion has no role.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { NARROW, openPage, REGIONS, runInConsole, runUntilIdle, typeInConsole as run, useSiteAndBrowser } from "./harness.mjs";

const WIDE = { viewport: { width: 1440, height: 900 } };
const LESSONS = readdirSync(new URL("../../lessons/", import.meta.url)).filter((f) => f.endsWith(".md")).map((f) => f.slice(0, -3));

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const map = (page) => page.getByRole("region", { name: "Control plane", exact: true });
const part = (page, name) => map(page).getByRole("button", { name });
const stepButton = (page) => page.getByRole("button", { name: "Step", exact: true });
const narration = (page) => page.getByRole("status", { name: "Narration" });
// The caption over the picture: what the last step moved.
const caption = (page, text) => map(page).locator(".map__caption").filter({ hasText: text });

/** Presses Step until `done()` holds (at most `max` times). */
async function stepUntil(page, what, done, max = 300) {
  for (let i = 0; i < max; i++) {
    if (await done()) return i;
    await stepButton(page).click();
  }
  assert.fail(`after ${max} steps: ${what}`);
}

/** The sandbox, settled (informers listed, a leader elected), with a Deployment of `replicas`. */
async function sandboxWith(options, replicas = 1) {
  const opened = await openPage(browser, `${server.origin}/#/sandbox`, options);
  // On a narrow screen the console is on the Commands tab.
  if ((await opened.page.getByRole("tab").count()) > 0) await opened.page.getByRole("tab", { name: "Commands" }).click();
  await runUntilIdle(opened.page);
  await runInConsole(opened.page, `kubectl create deployment web --image=nginx --replicas=${replicas}`);
  await runUntilIdle(opened.page);
  return opened;
}

/** The leader's name, read from the picture. */
async function leader(page) {
  const a = await part(page, /^kube-controller-manager-a: leader/).count();
  return a ? "kube-controller-manager-a" : "kube-controller-manager-b";
}

describe("the Control plane region", () => {
  test("names the API server and every process, each with its state in words", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await runUntilIdle(page);
    assert.equal(await map(page).count(), 1);
    assert.equal(await map(page).getByRole("group", { name: "Control plane map" }).count(), 1);
    assert.match(await part(page, /^API server: /).getAttribute("aria-label"), /^API server: \d+ objects, resourceVersion \d+; watch history: last 100 events per kind/);
    for (const name of ["kube-controller-manager-a", "kube-controller-manager-b", "kube-scheduler", "kubelet", "bucket-operator", "pod-counters"]) {
      assert.equal(await part(page, new RegExp(`^${name}: `)).count(), 1, `the picture names ${name}`);
    }
    assert.equal(await part(page, /^kube-controller-manager-[ab]: leader, acting · holds the Lease, [\d.]+s left/).count(), 1);
    assert.equal(await part(page, /^kube-controller-manager-[ab]: standby/).count(), 1);
    assert.equal(await part(page, /^pod-counters: stopped/).count(), 1);
    assert.equal(await part(page, /^kubelet: running nodes: node-1, node-2, node-3/).count(), 1);
    assert.equal(await part(page, /^External cloud/).count(), 1);
    // Inside the leader: informers and queues, each its own part.
    assert.equal(await part(page, /^Pod informer of kube-scheduler: \d+ cached, last resourceVersion \d+, watching from resourceVersion \d+\.$/).count(), 1);
    assert.equal(await part(page, /^deployment-controller work queue \(deployment in kube-controller-manager-[ab]\): 0 waiting/).count(), 1);
    // The words are on the picture too, not only in accessible names.
    const drawn = await map(page).getByRole("group", { name: "Control plane map" }).evaluate((el) => el.textContent);
    for (const word of ["API server", "kubectl", "standby", "stopped", "kube-controller-manager-a", "kubelet"]) {
      assert.ok(drawn.includes(word), `the picture says "${word}"`);
    }
    // The text equivalent says the same.
    await map(page).getByText("Control plane as text").click();
    const text = await map(page).getByRole("listitem").allInnerTexts();
    assert.ok(text.some((t) => /^kube-scheduler: running/.test(t)), text.join("\n"));
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a step moves something: the event reaches the informer and its cache count changes", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await runUntilIdle(page);
    const tile = part(page, /^Deployment informer of kube-controller-manager-[ab]: /);
    assert.match(await tile.getAttribute("aria-label"), /: 0 cached/);
    await run(page, "kubectl create deployment web --image=nginx --replicas=1");
    // The user's call went to the API server: the caption says so, and the ADDED event is in flight.
    await caption(page, /called the API server: CREATE Deployment default\/web → 201/).waitFor();
    assert.match(await tile.getAttribute("aria-label"), /1 event in flight/);
    await stepButton(page).click();
    await caption(page, /Watch event ADDED Deployment default\/web \(rv \d+\) travelled from the API server to the Deployment informer/).waitFor();
    assert.match(await tile.getAttribute("aria-label"), /: 1 cached, last resourceVersion \d+/);
    // A token travels along the stream (CSS animation) while the new state is already drawn.
    const token = map(page).locator(".map__token").first();
    assert.equal(await token.evaluate((el) => getComputedStyle(el).animationName), "map-travel");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("every step's tokens travel from the start, not only the first step's", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=3");
    const tokens = map(page).locator(".map__token");
    let withTokens = 0;
    for (let i = 0; i < 6; i++) {
      // Let the last step's tokens arrive (a token's travel takes 600 ms, a reply's twice that).
      await page.waitForTimeout(1300);
      await stepButton(page).click();
      await narration(page).getByText(`Step ${i + 2}`).waitFor();
      // Each token of this step is travelling or about to leave: its animation is running and
      // not at its end (a token kept from an earlier step would sit at its end, invisible).
      const states = await tokens.evaluateAll((ts) => ts.map((t) => t.getAnimations().map((a) => `${a.playState} ${Math.round(a.currentTime)}`)[0] ?? "none"));
      if (states.length > 0) withTokens++;
      for (const s of states) {
        const m = /^running (\d+)$/.exec(s);
        assert.ok(m && Number(m[1]) < 600, `step ${i + 2}: ${states.join(", ")}`);
      }
    }
    assert.ok(withTokens >= 4, `${withTokens} of 6 steps moved tokens`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("three scales with no step between: the key merges into one waiting entry, and the count shows it", async () => {
    const { context, page, problems } = await sandboxWith(WIDE);
    for (const n of [2, 3, 4]) await runInConsole(page, `kubectl scale deployment web --replicas=${n}`);
    const queue = part(page, /^deployment-controller work queue/);
    await stepUntil(page, "three adds merged into default/web", async () => /default\/web \(waiting, 3 adds merged into one\)/.test(await queue.getAttribute("aria-label")));
    assert.ok(await queue.getByText("web ×3").isVisible(), "the chip shows the count");
    await caption(page, /default\/web was already waiting: the queue merged the add into it \(3 adds, one entry\)/).waitFor();
    // The worker takes it once.
    await stepUntil(page, "the worker takes default/web", async () => (await queue.getByText("▶ web").count()) === 1);
    assert.equal(await queue.getByText("web ×3").count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a 409 says 409 and shows both writers and both resourceVersions", async () => {
    const { context, page, problems } = await sandboxWith(WIDE);
    await runInConsole(page, `lab conflict ${await leader(page)}`);
    await runInConsole(page, "kubectl scale deployment web --replicas=2");
    const api = part(page, /^API server: /);
    await stepUntil(page, "a 409 on the picture", async () => /409 Conflict on/.test(await api.getAttribute("aria-label")));
    const said = await api.getAttribute("aria-label");
    // The first write of the leader after `lab conflict` meets the injected writer: the
    // Deployment's status or its ReplicaSet's scale.
    assert.match(said, /409 Conflict on \w+ default\/web(-\w+)?: .+ \(kube-controller-manager-[ab]\) sent rv (\d+); stored rv (\d+) was written by another client at step \d+\./);
    const [, sent, stored] = said.match(/sent rv (\d+); stored rv (\d+)/);
    assert.ok(Number(stored) > Number(sent), `stored ${stored} is newer than sent ${sent}`);
    // Drawn, in words, on the API server.
    assert.ok(await map(page).getByText(/^409 Conflict on \w+ default\/web/).first().isVisible());
    // Whole, not cut off: both resourceVersions and the winner are read on the picture.
    const writers = new RegExp(`sent rv ${sent}; stored rv ${stored} was written by another client at step \\d+\\.$`);
    assert.ok(await map(page).locator("svg text").filter({ hasText: writers }).first().isVisible());
    await caption(page, new RegExp(`→ 409 Conflict \\(sent rv ${sent}, stored rv ${stored}\\)`)).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("with reduced motion nothing travels: what changed is outlined instead", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await page.emulateMedia({ reducedMotion: "reduce" });
    await runUntilIdle(page);
    await run(page, "kubectl create deployment web --image=nginx --replicas=1");
    await stepButton(page).click();
    await caption(page, /travelled from the API server to the Deployment informer/).waitFor();
    const tokens = map(page).locator(".map__token");
    assert.ok((await tokens.count()) > 0, "the step has tokens");
    for (const t of await tokens.all()) assert.equal(await t.isVisible(), false, "no token is drawn");
    const tile = part(page, /^Deployment informer of /);
    const outline = await tile.locator(".map__box").evaluate((el) => getComputedStyle(el).strokeDasharray);
    assert.notEqual(outline, "none", "the changed informer is outlined (dashed)");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the keyboard reaches every part; Enter selects and the panels show its details", async () => {
    const { context, page, problems } = await sandboxWith(WIDE);
    const before = await narration(page).innerText();
    const api = part(page, /^API server: /);
    await api.focus();
    assert.equal(await api.getAttribute("tabindex"), "0", "one tab stop");
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
    // Arrow keys walk the parts in reading order (and do not step the cluster).
    const seen = [];
    for (let i = 0; i < 60; i++) {
      seen.push(await focused());
      if (/^Pod informer of kube-scheduler/.test(seen.at(-1))) break;
      await page.keyboard.press("ArrowRight");
    }
    assert.match(seen.at(-1), /^Pod informer of kube-scheduler/, seen.join("\n"));
    assert.ok(seen.some((s) => /^deployment-controller work queue/.test(s)), "queues are reachable");
    assert.equal(await narration(page).innerText(), before, "the arrow keys moved in the picture, not the cluster");
    await page.keyboard.press("Enter");
    const tile = part(page, /^Pod informer of kube-scheduler/);
    assert.equal(await tile.getAttribute("aria-pressed"), "true");
    assert.match(await map(page).locator("p", { hasText: /^Selected: / }).innerText(), /Selected: Pod informer of kube-scheduler: \d+ cached/);
    // Its details: the Watch events and Informer caches panels, filtered to it.
    const watch = page.getByRole("region", { name: /^Watch events/ });
    assert.ok(await watch.getByText("Showing Pod informer of kube-scheduler only (selected on the map).").isVisible());
    assert.equal(await watch.getByRole("group", { name: /informer \(kube-controller-manager/ }).count(), 0, "other informers are left out");
    await map(page).getByRole("button", { name: "Informer caches", exact: true }).click();
    const caches = page.getByRole("region", { name: /^Informer caches/ });
    assert.equal(await caches.evaluate((el) => el === document.activeElement), true, "the details button moves focus to the panel");
    assert.deepEqual(await caches.getByRole("group").evaluateAll((gs) => gs.map((g) => g.getAttribute("aria-label"))), ["Cache of kube-scheduler"]);
    // Escape on the picture clears the selection.
    await tile.focus();
    await page.keyboard.press("Escape");
    assert.equal(await tile.getAttribute("aria-pressed"), "false");
    assert.equal(await watch.getByText(/selected on the map/).count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("Step back shows the earlier picture", async () => {
    const { context, page, problems } = await sandboxWith(WIDE);
    await run(page, "kubectl scale deployment web --replicas=3");
    await stepButton(page).click();
    const described = () => map(page).locator(".map__text-list").textContent();
    const earlier = await described();
    await stepButton(page).click();
    await stepButton(page).click();
    assert.notEqual(await described(), earlier);
    await page.getByRole("button", { name: "Step back" }).click();
    await page.getByRole("button", { name: "Step back" }).click();
    assert.equal(await described(), earlier);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("the layout", () => {
  // The map is in the first view, above the bar stuck to the bottom of the window, in the
  // sandbox and every lesson (the lesson text beside the lab).
  for (const viewport of [{ width: 1440, height: 900 }, { width: 1280, height: 720 }]) {
    test(`the map is in the first view at ${viewport.width}x${viewport.height} in the sandbox and in every lesson`, async () => {
      for (const route of ["#/sandbox", ...LESSONS.map((l) => `#/lessons/${l}`)]) {
        const { context, page, problems } = await openPage(browser, `${server.origin}/${route}`, { viewport });
        const box = await map(page).boundingBox();
        const bar = await page.getByRole("toolbar", { name: "Stepping" }).boundingBox();
        assert.ok(box && bar, route);
        assert.ok(box.y >= 0 && box.y + box.height <= bar.y + 1, `${route}: the map (${box.y}..${box.y + box.height}) ends above the stepping bar (${bar.y})`);
        assert.ok(box.width >= 500, `${route}: the map has room (${box.width} px)`);
        assert.deepEqual(problems, [], route);
        await context.close();
      }
    });
  }

  test("on a phone, a step taken by hand scrolls the Map tab to what it changed when that is out of view", async () => {
    const { context, page, problems } = await sandboxWith(NARROW, 1);
    await runInConsole(page, "kubectl scale deployment web --replicas=2");
    await page.getByRole("tab", { name: "Map" }).click();
    // Where the changed parts are, against the room above the stepping bar; and the scroll.
    const seen = () =>
      page.evaluate(() => {
        const bar = document.querySelector(".stepper-bar").getBoundingClientRect().top;
        const rects = [...document.querySelectorAll(".map__part--changed")]
          .map((e) => e.getBoundingClientRect())
          .filter((r) => r.height > 0);
        const lowest = rects.reduce((a, r) => (a && a.bottom >= r.bottom ? a : r), null);
        return { scrolled: window.scrollY, lowest: lowest && { top: lowest.top, bottom: lowest.bottom }, bar };
      });
    let moved = 0;
    for (let i = 0; i < 40 && moved < 2; i++) {
      await page.evaluate(() => window.scrollTo(0, 0));
      // Steps taken by hand, slower than the motion (faster ones do not scroll the page).
      await page.waitForTimeout(700);
      await stepButton(page).click();
      await page.waitForTimeout(150);
      const { scrolled, lowest, bar } = await seen();
      if (!lowest) continue;
      assert.ok(lowest.bottom <= bar + 1 && lowest.top >= -1, `step ${i + 1}: the lowest changed part (${lowest.top} to ${lowest.bottom}) is in view above the stepping bar (${bar})`);
      if (scrolled > 0) moved++;
    }
    assert.equal(moved, 2, "two steps changed a part below the fold, and the page scrolled to it");
    assert.deepEqual(problems, []);
    await context.close();
  });

  for (const width of [1440, 1280, 1024, 768, 360]) {
    test(`no region overflows its box at ${width} px`, async () => {
      const options = width === 360 ? NARROW : { viewport: { width, height: 900 } };
      const { context, page, problems } = await sandboxWith(options, 3);
      await stepButton(page).click();
      const tabs = width === 360 ? await page.getByRole("tab").all() : [null];
      let checked = 0;
      for (const tab of tabs) {
        if (tab) await tab.click();
        for (const name of REGIONS) {
          const region = page.getByRole("region", { name: new RegExp(`^${name}( · changed in this step)?$`) });
          if ((await region.count()) === 0 || !(await region.isVisible())) continue;
          const [scroll, client] = await region.evaluate((el) => [el.scrollWidth, el.clientWidth]);
          assert.ok(scroll <= client + 1, `"${name}" overflows at ${width} px: scrollWidth ${scroll} > clientWidth ${client}`);
          checked++;
        }
      }
      assert.equal(checked, REGIONS.length, "every region was checked");
      const page_overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(page_overflow <= 0, `no sideways scroll (${page_overflow} px)`);
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
});
