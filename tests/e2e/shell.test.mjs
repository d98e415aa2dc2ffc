// The page shell: loads cleanly (no console error, so no CSP violation; no failed request), shows
// every labelled region, works under a sub-path, and its narrow-screen tabs answer clicks and keys.
// Elements are found by role and accessible name only.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { NARROW, openPage, REGIONS, SUB_PATH, useSiteAndBrowser } from "./harness.mjs";

const WIDE = { viewport: { width: 1280, height: 800 } };

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

describe("at the site root", () => {
  test("loads with no console error, no CSP violation and no failed request", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    assert.equal(await page.title(), "Sandbox · Reconcile Lab");
    await page.waitForLoadState("networkidle");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("shows every labelled region, each saying what will appear in it", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    for (const name of REGIONS) {
      const region = page.getByRole("region", { name, exact: true });
      assert.equal(await region.count(), 1, `one region named "${name}"`);
      assert.ok(await region.isVisible(), `region "${name}" is visible`);
      const text = (await region.innerText()).trim();
      assert.ok(text.length > name.length + 20, `region "${name}" explains itself: ${JSON.stringify(text)}`);
      assert.doesNotMatch(text, /coming soon|lorem ipsum|todo/i, `region "${name}" has no placeholder text`);
    }
    assert.equal(await page.getByRole("region").count(), REGIONS.length, "no unexpected regions");
    assert.equal(await page.getByRole("tablist").count(), 0, "no tabs on a wide screen");
    assert.deepEqual(problems, []);
    await context.close();
  });

  // Beside a lesson's panel the regions have about 26rem less than the viewport: the layout
  // follows its own width (container queries, style/layout.css), so no region covers another.
  for (const [route, width] of [["#/sandbox", 1280], ["#/lessons/conflicts", 1280], ["#/lessons/conflicts", 1700], ["#/lessons/conflicts", 1000]]) {
    test(`no region overlaps another on ${route} at ${width} px`, async () => {
      const { context, page } = await openPage(browser, `${server.origin}/${route}`, { viewport: { width, height: 900 } });
      await page.getByRole("region", { name: "What happens next", exact: true }).waitFor();
      const boxes = [];
      for (const name of REGIONS) {
        const region = page.getByRole("region", { name, exact: true });
        if ((await region.count()) === 0) continue; // a lesson may show fewer regions
        const box = await region.boundingBox();
        assert.ok(box, `region "${name}" is laid out`);
        boxes.push({ name, ...box });
      }
      assert.ok(boxes.length >= 6, `most regions are shown: ${boxes.map((b) => b.name)}`);
      for (const [i, a] of boxes.entries()) {
        for (const b of boxes.slice(i + 1)) {
          const apart = a.x + a.width <= b.x + 0.5 || b.x + b.width <= a.x + 0.5 || a.y + a.height <= b.y + 0.5 || b.y + b.height <= a.y + 0.5;
          assert.ok(apart, `"${a.name}" ${JSON.stringify(a)} and "${b.name}" ${JSON.stringify(b)} overlap`);
        }
      }
      await context.close();
    });
  }

  test("follows the system's dark colour scheme", async () => {
    const background = async (colorScheme) => {
      const { context, page } = await openPage(browser, `${server.origin}/#/sandbox`, { ...WIDE, colorScheme });
      const banner = page.getByRole("banner");
      const color = await banner.evaluate((el) => getComputedStyle(el).backgroundColor);
      await context.close();
      return color;
    };
    assert.notEqual(await background("dark"), await background("light"));
  });
});

describe(`under the sub-path ${SUB_PATH}`, () => {
  test("loads every asset from below the sub-path, with no error", async () => {
    const first = server.requests.length;
    const { context, page, problems } = await openPage(browser, `${server.origin}${SUB_PATH}#/sandbox`, WIDE);
    await page.waitForLoadState("networkidle");
    assert.deepEqual(problems, []);
    for (const name of REGIONS) {
      assert.ok(await page.getByRole("region", { name, exact: true }).isVisible(), `region "${name}"`);
    }
    const outside = server.requests.slice(first).filter((p) => !p.startsWith(SUB_PATH));
    assert.deepEqual(outside, [], "no request left the sub-path");
    await context.close();
  });

  test("redirects the sub-path without its trailing slash", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}${SUB_PATH.slice(0, -1)}`, WIDE);
    assert.equal(new URL(page.url()).pathname, SUB_PATH);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe("on a 360 px wide screen", () => {
  test("groups the regions under tabs that answer clicks", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, NARROW);
    const tablist = page.getByRole("tablist", { name: "Page sections" });
    assert.ok(await tablist.isVisible());
    const tabs = tablist.getByRole("tab");
    assert.deepEqual(await tabs.allInnerTexts(), ["Map", "Steps", "Cluster", "Commands"]);

    // The picture of the control plane is the first tab.
    const map = page.getByRole("tab", { name: "Map" });
    assert.equal(await map.getAttribute("aria-selected"), "true");
    assert.ok(await page.getByRole("region", { name: "Control plane" }).isVisible());
    assert.equal(await page.getByRole("region", { name: "Timeline" }).count(), 0, "hidden panels are hidden");

    const steps = page.getByRole("tab", { name: "Steps" });
    const commands = page.getByRole("tab", { name: "Commands" });
    await steps.click();
    assert.equal(await steps.getAttribute("aria-selected"), "true");
    assert.ok(await page.getByRole("region", { name: "Timeline" }).isVisible());
    assert.equal(await page.getByRole("region", { name: "Console" }).count(), 0, "hidden panels are hidden");

    await commands.click();
    assert.equal(await commands.getAttribute("aria-selected"), "true");
    assert.equal(await steps.getAttribute("aria-selected"), "false");
    assert.ok(await page.getByRole("tabpanel", { name: "Commands" }).isVisible());
    assert.ok(await page.getByRole("region", { name: "Console" }).isVisible());
    assert.ok(await page.getByRole("region", { name: "Editor" }).isVisible());
    assert.equal(await page.getByRole("region", { name: "Timeline" }).count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("moves between tabs with the arrow keys, Home and End", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, NARROW);
    const tab = (name) => page.getByRole("tab", { name });
    const selectedName = async () => (await page.getByRole("tab", { selected: true }).innerText()).trim();
    const focusedName = () => page.evaluate(() => document.activeElement?.textContent?.trim());

    // Focus sits on the selected tab (roving tabindex): the Map, the first.
    await tab("Map").focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await selectedName(), "Steps");
    assert.equal(await focusedName(), "Steps");
    await page.keyboard.press("ArrowRight");
    assert.equal(await selectedName(), "Cluster");
    assert.equal(await focusedName(), "Cluster");
    assert.ok(await page.getByRole("region", { name: "Work queues" }).isVisible());

    await page.keyboard.press("End");
    assert.equal(await selectedName(), "Commands");
    await page.keyboard.press("ArrowRight");
    assert.equal(await selectedName(), "Map", "wraps from the last tab to the first");
    await page.keyboard.press("ArrowLeft");
    assert.equal(await selectedName(), "Commands", "wraps from the first tab to the last");
    await page.keyboard.press("Home");
    assert.equal(await selectedName(), "Map");
    assert.equal(await focusedName(), "Map");

    // Only the selected tab is in the tab sequence; Tab moves on to its panel.
    await page.keyboard.press("Tab");
    const focusedRole = await page.evaluate(() => document.activeElement?.getAttribute("role"));
    assert.equal(focusedRole, "tabpanel");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("shows keyboard focus, and the selected tab by more than colour", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, NARROW);
    // The site navigation (Lessons, Sandbox) comes first; the tabs right after it.
    await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Sandbox" }).focus();
    await page.keyboard.press("Tab");
    const map = page.getByRole("tab", { name: "Map" });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("role")), "tab");
    const ring = await map.evaluate((el) => {
      const style = getComputedStyle(el);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    assert.notEqual(ring.style, "none", "a focused tab has an outline");
    assert.ok(ring.width >= 2, `the outline is at least 2px wide (${ring.width}px)`);
    const weight = (name) => page.getByRole("tab", { name }).evaluate((el) => getComputedStyle(el).fontWeight);
    assert.notEqual(await weight("Map"), await weight("Cluster"), "selected and unselected tabs differ in weight");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("fits the width: nothing scrolls sideways", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, NARROW);
    for (const name of ["Map", "Steps", "Cluster", "Commands"]) {
      await page.getByRole("tab", { name }).click();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `tab "${name}" overflows by ${overflow}px`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("switches between tabs and the full layout when the window is resized", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    assert.equal(await page.getByRole("tablist").count(), 0);
    await page.setViewportSize({ width: 360, height: 740 });
    await page.getByRole("tablist", { name: "Page sections" }).waitFor();
    assert.equal(await page.getByRole("region", { name: "Console" }).count(), 0);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole("tablist").waitFor({ state: "detached" });
    assert.ok(await page.getByRole("region", { name: "Console" }).isVisible());
    assert.deepEqual(problems, []);
    await context.close();
  });
});
