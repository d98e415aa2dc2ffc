// Screenshots of the control-plane map for docs/map.md, from the release build in dist/ (build it
// first: `make dist`; this builds nothing). `make screenshots` runs it.
//
// Usage: node scripts/screenshots.mjs [--out docs/images]
//
// Each state is reached the way a learner reaches it (console lines, Step), in headless Chromium
// at 1440 px (light and dark) and 360 px (light and dark) wide. The travelling tokens are frozen
// halfway (every animation paused at the same time), so the pictures are the same from run to run.

import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser, NARROW, runInConsole, runUntilIdle, serveDist } from "../tests/e2e/harness.mjs";

const args = process.argv.slice(2);
const out = args.includes("--out") ? args[args.indexOf("--out") + 1] : "docs/images";
const log = (...a) => console.error("screenshots:", ...a);

const WIDE = { viewport: { width: 1440, height: 900 } };

const map = (page) => page.getByRole("region", { name: "Control plane", exact: true });
const step = (page) => page.getByRole("button", { name: "Step", exact: true }).click();

async function stepUntil(page, done, max = 400) {
  for (let i = 0; i < max; i++) {
    if (await done()) return;
    await step(page);
  }
  throw new Error("the state was not reached");
}

// Read from the DOM even while the map's tab is not the one shown (360 px).
const caption = (page) => page.locator(".map__caption").textContent();

/**
 * Freezes every animation of the step's motion three quarters through one hop (near where it lands) (all at the same clock, so
 * the picture is the same from run to run): the 409's reply when the step got one, else the first
 * hop. Each animation's own duration is read, since Play and stepping fast shorten them.
 */
async function freeze(page) {
  await page.evaluate(() => {
    const all = document.getAnimations();
    const timing = (a) => a.effect.getComputedTiming();
    const error = all.find((a) => a.effect?.target?.classList?.contains("map__token--error"));
    const at = error ? timing(error).delay + timing(error).duration * 0.75 : null;
    for (const a of all) {
      a.pause();
      a.currentTime = at ?? timing(a).duration * 0.75;
    }
  });
}

/** Makes a PNG smaller (a palette of 128 colours) when pngquant is installed; else keeps it. */
function shrink(path) {
  const r = spawnSync("pngquant", ["128", "--force", "--skip-if-larger", "--output", path, path], { stdio: "ignore" });
  // 98: the palette version would be larger; keep the one taken.
  if (r.error || (r.status !== 0 && r.status !== 98)) log(`${path}: kept as taken (no pngquant)`);
}

/** The states to show: each function brings a fresh sandbox there. */
const STATES = {
  // A watch event on its way from the API server to an informer.
  event: async (page) => {
    await runInConsole(page, "kubectl create deployment web --image=nginx --replicas=3");
    await stepUntil(page, async () => /^Step \d+: Watch event ADDED Deployment/.test(await caption(page)));
  },
  // Three scales with no step between: one waiting key that absorbed three adds.
  merge: async (page) => {
    await runInConsole(page, "kubectl create deployment web --image=nginx --replicas=1");
    await runUntilIdle(page);
    for (const n of [2, 3, 4]) await runInConsole(page, `kubectl scale deployment web --replicas=${n}`);
    await stepUntil(page, async () => /merged the add into it \(3 adds/.test(await caption(page)));
  },
  // A 409: the loser, the winner and both resourceVersions.
  conflict: async (page) => {
    await runInConsole(page, "kubectl create deployment web --image=nginx --replicas=1");
    await runUntilIdle(page);
    const leader = (await page.locator('[aria-label^="kube-controller-manager-a: leader"]').count()) ? "a" : "b";
    await runInConsole(page, `lab conflict kube-controller-manager-${leader}`);
    await runInConsole(page, "kubectl scale deployment web --replicas=2");
    await stepUntil(page, async () => /→ 409 Conflict/.test(await caption(page)));
  },
  // A foreground deletion: the garbage collector's queue fills and its DELETEs go out.
  cascade: async (page) => {
    await runInConsole(page, "kubectl create deployment web --image=nginx --replicas=3");
    await runUntilIdle(page);
    await runInConsole(page, "kubectl delete deployment web --cascade=foreground --wait=false");
    await stepUntil(page, async () => /garbage-collector-controller worker reconciled .*DELETE Pod/.test(await caption(page)));
  },
};

/** [file name, viewport options, colour scheme, state, whole page?] At 360 px the shot is the
    first screen a learner sees on a phone (the tabs, the map's top, the stepping bar), since the
    map is taller than the screen there. */
const SHOTS = [
  ["map-first-view-1440-light.png", WIDE, "light", "event", true],
  ["map-event-1440-dark.png", WIDE, "dark", "event", false],
  ["map-merge-1440-light.png", WIDE, "light", "merge", false],
  ["map-conflict-1440-dark.png", WIDE, "dark", "conflict", false],
  ["map-cascade-1440-light.png", WIDE, "light", "cascade", false],
  ["map-event-360-light.png", NARROW, "light", "event", true],
  ["map-conflict-360-dark.png", NARROW, "dark", "conflict", true],
];

async function main() {
  mkdirSync(out, { recursive: true });
  const server = await serveDist();
  const browser = await launchBrowser();
  try {
    for (const [file, options, colorScheme, state, whole] of SHOTS) {
      const context = await browser.newContext({ ...options, colorScheme });
      const page = await context.newPage();
      const problems = [];
      page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
      page.on("pageerror", (e) => problems.push(e.message));
      await page.goto(`${server.origin}/#/sandbox`);
      await page.getByRole("button", { name: "Step", exact: true }).waitFor();
      if (options === NARROW) {
        // The console is on the Commands tab; the map is the first.
        await page.getByRole("tab", { name: "Commands" }).click();
      }
      await runUntilIdle(page);
      await STATES[state](page);
      if (options === NARROW) await page.getByRole("tab", { name: "Map" }).click();
      await page.mouse.move(0, 0);
      await freeze(page);
      const path = join(out, file);
      if (whole) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path });
      } else {
        await map(page).screenshot({ path });
      }
      if (problems.length) throw new Error(`${file}: the page reported ${problems.join("; ")}`);
      shrink(path);
      log(`${path} (${state}, ${colorScheme})`);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
