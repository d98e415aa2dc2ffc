// Where a step's time goes in the browser: brings the sandbox to N pods (as scripts/bench-page.mjs
// does), records a Chromium trace while "Step" is pressed 20 times, and prints the main thread's
// time per trace event (script, style, layout, paint, garbage collection), summed over the steps.
// A tool for finding what to make cheaper; the figures for the budgets come from bench-page.mjs.
//
// Usage: node scripts/bench-profile.mjs [pods]   (default 1000; needs a release dist/)

import { launchBrowser, serveDist, typeInConsole } from "../tests/e2e/harness.mjs";

const pods = Number(process.argv[2] ?? 1000);
const STEPS = 20;
// Inclusive durations of these events on the renderer's main thread.
const SHOWN = [
  "EventDispatch",
  "FunctionCall",
  "RunMicrotasks",
  "v8.callFunction",
  "UpdateLayoutTree",
  "Layout",
  "PrePaint",
  "Paint",
  "Layerize",
  "MinorGC",
  "MajorGC",
  "V8.GC_SCAVENGER",
  "V8.GC_MARK_COMPACTOR",
  "HitTest",
];

// DIST=/path serves another build (for example one with a name section, for readable profiles).
const server = await serveDist(process.env.DIST ? { root: process.env.DIST } : {});
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.origin}/#/sandbox`);
  await page.getByRole("button", { name: "Step", exact: true }).waitFor();
  const settle = async () => {
    for (let i = 0; i < 400; i++) {
      const before = (await page.getByRole("region", { name: /^Console/ }).innerText()).split("Settled after").length;
      await typeInConsole(page, "lab settle");
      const after = (await page.getByRole("region", { name: /^Console/ }).innerText()).split("Settled after").length;
      if (after > before) return;
    }
  };
  await typeInConsole(page, `kubectl create deployment web --image=nginx --replicas=${pods}`);
  await settle();
  await typeInConsole(page, `kubectl scale deployment web --replicas=${pods + 20}`);
  // One handle, clicked in the page: resolving a role locator per click would profile
  // Playwright's accessibility queries too.
  const button = await page.getByRole("button", { name: "Step", exact: true }).elementHandle();
  const step = { click: () => button.evaluate((b) => b.click()) };
  // A CPU profile first: self time by where the code lives (the app's wasm, its JS glue, which is
  // mostly DOM calls, the browser itself), and the functions with the most self time.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
  for (let i = 0; i < STEPS; i++) {
    await step.click();
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0))));
  }
  const { profile } = await cdp.send("Profiler.stop");
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  const byPlace = new Map();
  const byFn = new Map();
  for (const node of profile.nodes) {
    const t = dt.get(node.id) ?? 0;
    const { functionName: fn, url } = node.callFrame;
    const place = url.endsWith(".wasm") || /^\$|wasm-function/.test(fn) ? "wasm" : url.includes("reconcile-lab") ? "JS glue (DOM calls)" : url ? "other JS" : fn || "(anonymous)";
    byPlace.set(place, (byPlace.get(place) ?? 0) + t);
    const label = `${fn || "(anonymous)"} ${url ? url.split("/").pop() : ""}`;
    byFn.set(label, (byFn.get(label) ?? 0) + t);
  }
  console.log(`${pods} pods, ${STEPS} presses of Step: CPU self time per step (ms)`);
  for (const [p, t] of [...byPlace].sort((a, b) => b[1] - a[1])) console.log(`${p.padEnd(40)} ${(t / STEPS).toFixed(2).padStart(8)}`);
  console.log("-- functions --");
  for (const [f, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${f.slice(0, 60).padEnd(60)} ${(t / STEPS).toFixed(2).padStart(8)}`);
  await browser.startTracing(page, {
    categories: ["devtools.timeline", "v8", "disabled-by-default-devtools.timeline", "blink"],
  });
  for (let i = 0; i < STEPS; i++) {
    await step.click();
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0))));
  }
  const trace = JSON.parse((await browser.stopTracing()).toString());
  const events = trace.traceEvents ?? trace;
  const names = new Map();
  for (const e of events) {
    if (e.ph === "M" && e.name === "thread_name") names.set(`${e.pid}:${e.tid}`, e.args.name);
  }
  // How much each layout had to do (Chromium records dirty and total layout objects).
  const layouts = events.filter((e) => e.name === "Layout" && e.ph === "X" && e.args?.beginData);
  if (layouts.length) {
    const l = layouts[Math.floor(layouts.length / 2)];
    console.log(`a typical layout: ${l.args.beginData.dirtyObjects} dirty of ${l.args.beginData.totalObjects} objects, ${(l.dur / 1000).toFixed(1)} ms (${layouts.length} layouts)`);
  }
  const totals = new Map();
  for (const e of events) {
    if (e.ph !== "X" || names.get(`${e.pid}:${e.tid}`) !== "CrRendererMain") continue;
    totals.set(e.name, (totals.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
  }
  console.log(`${pods} pods, ${STEPS} presses of Step: main-thread time per step (inclusive, ms)`);
  for (const name of SHOWN) {
    if (totals.has(name)) console.log(`${name.padEnd(24)} ${(totals.get(name) / STEPS).toFixed(2).padStart(8)}`);
  }
  const others = [...totals].filter(([n]) => !SHOWN.includes(n)).sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log("-- the largest others --");
  for (const [n, t] of others) console.log(`${n.padEnd(40)} ${(t / STEPS).toFixed(2).padStart(8)}`);
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
