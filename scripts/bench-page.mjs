// The page's measurements (issue 9), on the release build in dist/ served from 127.0.0.1 and driven
// in headless Chromium by visible labels, like the browser tests. It prints figures; it does not
// judge (scripts/bench.mjs puts them next to the budgets).
//
// Usage: node scripts/bench-page.mjs [--json FILE] [--quick | --memory-only | --startup-only | --steps-only]
//   --quick         fewer loads and samples, no 10,000-pod memory run (for trying the script out)
//   --memory-only   only the 10,000-pod memory run
//   --startup-only  only the start-up measurements
//   --steps-only    only step latency at each size and Play (to compare two builds)
//   --runs-only     only Run until idle (1,000 pods; with 10,000 and the memory unless --quick)
//
// What is measured, and how:
// - start-up, median of 10 fresh loads each (a new browser context, so nothing is cached; time
//   origin = navigation start, so fetching, compiling the wasm and mounting are all inside):
//   the home page to its first control (a link of the static page: the home needs no wasm);
//   #/sandbox and embed.html?autoplay=1 to the app's first control, the "Step" button (the
//   static links of the page do not count there); and the home page's first lesson link clicked
//   once the page has loaded, from the click to the lesson's "Step" button (the pointer reaching
//   the link starts the app's download, as it does for a learner: public/boot.js);
// - step latency with 100, 1,000 and 5,000 pods: the cluster is brought to N pods the way a
//   learner would (`kubectl create deployment web --image=nginx --replicas=N`, then `lab settle`
//   until it reports "Settled"), then scaled by 20 so that steps do real work, and "Step" is
//   pressed repeatedly, with the Control plane map in view (it is redrawn at every step; its
//   tokens' CSS animation runs after the sample ends, as it does for a learner). One sample:
//   from just before the click to the narration showing the new
//   step number, after every task the click queued has run and the layout is computed (paint
//   itself is not included: headless Chromium paints on its own schedule). Beside these wall
//   times, the main thread's CPU time per step (top-level tasks' thread time in a trace, paint
//   included), which a machine busy with other work does not inflate;
// - Play at full speed (the Speed slider at its maximum) with 1,000 pods and work queued: keys are
//   pressed in the console input every 50 ms; one sample is the time from the key event's
//   timestamp to the next animation frame after its handler ran (what a learner waits for);
// - Run until idle at scale: in a fresh sandbox, `kubectl create deployment web --image=nginx
//   --replicas=N` typed, then "Run until idle" pressed once; the wall time from the create to the
//   page's "Settled after" (1,000 pods, and 10,000 unless --quick), with the machine's load
//   average (/proc/loadavg) before and after beside it, since a busy machine slows it down;
// - memory after converging 10,000 pods (that same run): the wasm linear memory's size (it never
//   shrinks, so it is the peak) and the JS heap after a garbage collection (DevTools protocol).

import { readFileSync, writeFileSync } from "node:fs";
import { launchBrowser, serveDist, typeInConsole } from "../tests/e2e/harness.mjs";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const memoryOnly = args.includes("--memory-only");
const startupOnly = args.includes("--startup-only");
const stepsOnly = args.includes("--steps-only");
const runsOnly = args.includes("--runs-only");
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : null;

const WIDE = { viewport: { width: 1400, height: 900 } };
const LOADS = quick ? 3 : 10;
const STEP_SAMPLES = quick ? 10 : 40;
const PLAY_KEYS = quick ? 30 : 100;
const POD_COUNTS = quick ? [100, 1000] : [100, 1000, 5000];
const MEMORY_PODS = 10_000;

const log = (...a) => console.error("bench-page:", ...a);

/** Median and 95th percentile (nearest rank) of a list of numbers. */
export function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const rank = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return { n: s.length, median: rank(50), p95: rank(95), max: s[s.length - 1] };
}

// Records, from navigation start, when the page first shows an interactive control (any link,
// button or text field: the static home's come with the HTML) and when the app shows its "Step"
// button (the app has mounted, with its handlers attached).
const FIRST_CONTROL = () => {
  const seek = () => {
    if (window.__firstControl === undefined) {
      const el = document.querySelector("a[href], button, input, textarea, select");
      if (el) {
        window.__firstControl = { at: performance.now(), what: `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 40)}"` };
      }
    }
    if (window.__stepButton === undefined) {
      // The button's own words, without its key cap (<kbd>→</kbd>, hidden from its name).
      const words = (b) => [...b.childNodes].filter((n) => n.nodeName !== "KBD").map((n) => n.textContent).join("").trim();
      const step = [...document.querySelectorAll("#app button")].find((b) => words(b) === "Step");
      if (step) window.__stepButton = { at: performance.now(), what: 'button "Step"' };
    }
    return window.__firstControl !== undefined && window.__stepButton !== undefined;
  };
  new MutationObserver((_, obs) => seek() && obs.disconnect()).observe(document, { childList: true, subtree: true });
  document.addEventListener("click", () => { window.__clickAt ??= performance.now(); }, { capture: true });
};

// Keeps a handle on the app's wasm memory (wasm-bindgen instantiates the module through one of
// these; nothing in the page changes).
const CAPTURE_MEMORY = () => {
  const keep = (result) => {
    const instance = result.instance ?? result;
    const memory = Object.values(instance.exports ?? {}).find((e) => e instanceof WebAssembly.Memory);
    if (memory) window.__wasmMemory = memory;
    return result;
  };
  for (const name of ["instantiateStreaming", "instantiate"]) {
    const original = WebAssembly[name];
    WebAssembly[name] = (...a) => original.apply(WebAssembly, a).then(keep);
  }
};

/** `route` loaded in a fresh browser context (an empty cache), watching for the first controls. */
async function freshLoad(browser, origin, route) {
  const context = await browser.newContext(WIDE);
  const page = await context.newPage();
  await page.addInitScript(FIRST_CONTROL);
  await page.goto(`${origin}/${route}`, { waitUntil: "load" });
  return { context, page };
}

/** `route` loaded LOADS times, each in a fresh context, to `control` ("__firstControl" or "__stepButton"). */
async function startup(browser, origin, route, control) {
  const times = [];
  let what = "";
  for (let i = 0; i < LOADS; i++) {
    const { context, page } = await freshLoad(browser, origin, route);
    await page.waitForFunction((c) => window[c] !== undefined, control, { timeout: 30_000 });
    const first = await page.evaluate((c) => window[c], control);
    times.push(first.at);
    what = first.what;
    await context.close();
  }
  return { route, what, ...summary(times) };
}

/** The home page loaded, then its first lesson link clicked: from the click to the lesson's "Step". */
async function homeToLesson(browser, origin) {
  const times = [];
  let what = "";
  for (let i = 0; i < LOADS; i++) {
    const { context, page } = await freshLoad(browser, origin, "");
    const link = page.getByRole("main").getByRole("link").first();
    what = `link "${(await link.innerText()).trim()}" to button "Step"`;
    await link.click();
    await page.waitForFunction(() => window.__stepButton !== undefined, null, { timeout: 30_000 });
    times.push(await page.evaluate(() => window.__stepButton.at - window.__clickAt));
    await context.close();
  }
  return { route: "home, then a click on the first lesson", what, ...summary(times) };
}

async function openSandbox(browser, origin) {
  const context = await browser.newContext(WIDE);
  const page = await context.newPage();
  await page.addInitScript(CAPTURE_MEMORY);
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  page.on("console", (msg) => msg.type() === "error" && problems.push(msg.text()));
  await page.goto(`${origin}/#/sandbox`, { waitUntil: "load" });
  await page.getByRole("button", { name: "Step", exact: true }).waitFor({ timeout: 30_000 });
  return { context, page, problems };
}

/** The 1-, 5- and 15-minute load averages, as /proc/loadavg gives them. */
export function loadavg() {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

/**
 * In a fresh sandbox: creates a Deployment of `pods` replicas, presses "Run until idle" once and
 * waits for its outcome (the page's "Settled after ..." or a hot-loop verdict). Returns the wall
 * time from the create to the outcome, the outcome, and the load average before and after.
 */
async function runUntilIdleFromCreate(browser, origin, pods) {
  const sandbox = await openSandbox(browser, origin);
  const { page } = sandbox;
  const loadBefore = loadavg();
  const t0 = Date.now();
  await typeInConsole(page, `kubectl create deployment web --image=nginx --replicas=${pods}`);
  await page.getByRole("button", { name: "Run until idle" }).click();
  // Looked for in the narration, where the outcome shows: Playwright polls a locator every frame,
  // and a search of the whole page's text cost the run about a second of main-thread time at
  // 1,000 pods.
  const outcome = page.getByRole("status", { name: "Narration" }).getByText(/^Settled after \d+ steps\.$|^Hot loop: /).first();
  await outcome.waitFor({ timeout: 1_800_000 });
  const seconds = (Date.now() - t0) / 1000;
  const text = (await outcome.innerText()).trim();
  const result = { pods, seconds, settled: text.startsWith("Settled"), outcome: text, loadBefore, loadAfter: loadavg() };
  log(`Run until idle, ${pods} pods: ${text} ${seconds.toFixed(1)} s from the create (load ${loadBefore} → ${result.loadAfter})`);
  return { ...sandbox, result };
}

/** How often the console transcript says `text`. */
async function countInConsole(page, text) {
  const all = await page.getByRole("region", { name: /^Console/ }).innerText();
  return all.split(text).length - 1;
}

/** `lab settle` until the console reports "Settled after" (one call runs to idle at any size; the
 * loop stays for a hot-loop verdict, which would throw below). */
async function settle(page) {
  const before = await countInConsole(page, "Settled after");
  for (let i = 0; i < 400; i++) {
    await typeInConsole(page, "lab settle");
    if ((await countInConsole(page, "Settled after")) > before) return i + 1;
  }
  throw new Error("the cluster did not settle after 400 × lab settle");
}

/** Creates the Deployment (or scales it) to `pods` replicas and settles; returns the wall time. */
async function bringTo(page, pods, created) {
  const t0 = Date.now();
  await typeInConsole(
    page,
    created ? `kubectl scale deployment web --replicas=${pods}` : `kubectl create deployment web --image=nginx --replicas=${pods}`,
  );
  const calls = await settle(page);
  const out = await page.getByRole("region", { name: /^Console/ }).innerText();
  const last = out.slice(out.lastIndexOf("Settled after")).split("\n")[0];
  log(`${pods} pods: ${last} (${calls} × lab settle, ${((Date.now() - t0) / 1000).toFixed(1)} s wall)`);
  return (Date.now() - t0) / 1000;
}

/** Milliseconds of thread time of the top-level tasks on the renderer's main thread in a trace. */
function mainThreadCpu(trace) {
  const events = trace.traceEvents ?? trace;
  const main = new Set(
    events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`),
  );
  return events
    .filter((e) => e.ph === "X" && /RunTask$/.test(e.name) && main.has(`${e.pid}:${e.tid}`))
    .reduce((t, e) => t + (e.tdur ?? e.dur ?? 0) / 1000, 0);
}

/** One press of "Step", timed in the page (see the header). Resolves to milliseconds. */
function timeOneStep(page) {
  return page.evaluate(async () => {
    const words = (b) => [...b.childNodes].filter((n) => n.nodeName !== "KBD").map((n) => n.textContent).join("").trim();
    const step = [...document.querySelectorAll("button")].find((b) => words(b) === "Step");
    const narration = document.querySelector('[role="status"][aria-label="Narration"]');
    const number = (t) => Number((/Step (\d+)/.exec(t) ?? [0, 0])[1]);
    const before = number(narration.textContent);
    const macrotask = () => new Promise((ok) => { const c = new MessageChannel(); c.port1.onmessage = ok; c.port2.postMessage(0); });
    const t0 = performance.now();
    step.click();
    // Leptos runs its effects as microtasks after the click handler; a macrotask comes after all of them.
    await macrotask();
    void document.body.offsetHeight; // style and layout of what changed
    const t1 = performance.now();
    const after = number(narration.textContent);
    // Let the frame paint before the next sample.
    await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
    return { ms: t1 - t0, advanced: after > before };
  });
}

async function stepLatency(page, pods) {
  await typeInConsole(page, `kubectl scale deployment web --replicas=${pods + 20}`);
  const samples = [];
  let idle = 0;
  // A trace of the renderer's top-level tasks meanwhile: their thread time (CPU, not wall) per
  // step, which other work on a shared machine does not inflate.
  const browser = page.context().browser();
  await browser.startTracing(page, { categories: ["toplevel"] });
  for (let i = 0; i < STEP_SAMPLES; i++) {
    const { ms, advanced } = await timeOneStep(page);
    if (!advanced) idle++;
    samples.push(ms);
  }
  const cpuMs = mainThreadCpu(JSON.parse((await browser.stopTracing()).toString())) / STEP_SAMPLES;
  if (idle > 0) log(`${pods} pods: ${idle} of ${STEP_SAMPLES} presses of Step did not take a step`);
  await settle(page);
  return { pods, cpuMs, ...summary(samples) };
}

async function playResponsiveness(page, pods) {
  await typeInConsole(page, `kubectl scale deployment web --replicas=${pods + 200}`);
  const speed = page.getByRole("slider", { name: "Speed" });
  await speed.focus();
  await speed.press("End");
  const input = page.getByRole("textbox", { name: "Console input" });
  await page.evaluate(() => {
    window.__keyLatency = [];
    window.__keyDelay = [];
    document.addEventListener(
      "keydown",
      (e) => {
        const start = performance.now();
        window.__keyDelay.push(start - e.timeStamp);
        requestAnimationFrame(() => window.__keyLatency.push(performance.now() - e.timeStamp));
      },
      { capture: true },
    );
  });
  await page.getByRole("button", { name: "Play", exact: true }).click();
  const stepsBefore = await page.evaluate(() => document.querySelector('[aria-label="Narration"]').textContent);
  for (let i = 0; i < PLAY_KEYS; i++) {
    await input.press("x", { delay: 0 });
    await page.waitForTimeout(50);
  }
  const still = await page.getByRole("button", { name: "Pause", exact: true }).isVisible();
  if (still) await page.getByRole("button", { name: "Pause", exact: true }).click();
  const stepsAfter = await page.evaluate(() => document.querySelector('[aria-label="Narration"]').textContent);
  const { latency, delay } = await page.evaluate(() => ({ latency: window.__keyLatency, delay: window.__keyDelay }));
  const stepped = (t) => Number((/Step (\d+)/.exec(t) ?? [0, 0])[1]);
  await input.fill("");
  return {
    pods,
    playing: still,
    steps: stepped(stepsAfter) - stepped(stepsBefore),
    toFrame: summary(latency),
    toHandler: summary(delay),
  };
}

async function memory(page, cdp) {
  await cdp.send("HeapProfiler.collectGarbage");
  const heap = await cdp.send("Runtime.getHeapUsage");
  const wasm = await page.evaluate(() => window.__wasmMemory?.buffer.byteLength ?? null);
  return { wasmBytes: wasm, jsHeapBytes: heap.usedSize };
}

async function main() {
  const server = await serveDist();
  const browser = await launchBrowser();
  const out = { chromium: browser.version(), startup: [], steps: [], play: null, memory: null, runUntilIdle: [] };
  try {
    const routes = [
      ["", "__firstControl"],
      ["#/sandbox", "__stepButton"],
      ["embed.html?autoplay=1", "__stepButton"],
    ];
    for (const [route, control] of memoryOnly || stepsOnly || runsOnly ? [] : routes) {
      const s = await startup(browser, server.origin, route, control);
      log(`start-up ${route || "home"}: median ${s.median.toFixed(0)} ms (${s.what})`);
      out.startup.push(s);
    }
    if (!memoryOnly && !stepsOnly && !runsOnly) {
      const s = await homeToLesson(browser, server.origin);
      log(`start-up ${s.route}: median ${s.median.toFixed(0)} ms (${s.what})`);
      out.startup.push(s);
    }

    const { context, page, problems } = startupOnly || runsOnly ? { problems: [] } : await openSandbox(browser, server.origin);
    let created = false;
    for (const pods of memoryOnly || startupOnly || runsOnly ? [] : POD_COUNTS) {
      await bringTo(page, pods, created);
      created = true;
      const s = await stepLatency(page, pods);
      log(`step with ${pods} pods: median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, main-thread CPU ${s.cpuMs.toFixed(1)} ms a step`);
      out.steps.push(s);
      if (pods === 1000) {
        out.play = await playResponsiveness(page, pods);
        log(`play with ${pods} pods: ${out.play.steps} steps; key to frame median ${out.play.toFrame.median.toFixed(1)} ms, p95 ${out.play.toFrame.p95.toFixed(1)} ms`);
        // Back to 1,000 + 20 for the next size's scale.
        await settle(page);
      }
    }
    await context?.close();

    if (!memoryOnly && !startupOnly && !stepsOnly) {
      const r = await runUntilIdleFromCreate(browser, server.origin, 1000);
      out.runUntilIdle.push(r.result);
      problems.push(...r.problems);
      await r.context.close();
    }

    if (!quick && !startupOnly && !stepsOnly) {
      // 10,000 pods by Run until idle: its time, then the memory it left.
      const m = await runUntilIdleFromCreate(browser, server.origin, MEMORY_PODS);
      out.runUntilIdle.push(m.result);
      const cdp = await m.context.newCDPSession(m.page);
      out.memory = { pods: MEMORY_PODS, convergeWallSeconds: m.result.seconds, ...(await memory(m.page, cdp)) };
      log(`memory at ${MEMORY_PODS} pods: wasm ${(out.memory.wasmBytes / 2 ** 20).toFixed(0)} MiB, JS heap ${(out.memory.jsHeapBytes / 2 ** 20).toFixed(1)} MiB`);
      problems.push(...m.problems);
      await m.context.close();
    }
    if (problems.length) {
      out.problems = problems;
      log(`the page reported problems:\n${problems.join("\n")}`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const text = JSON.stringify(out, null, 2);
  if (jsonOut) writeFileSync(jsonOut, text);
  console.log(text);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
