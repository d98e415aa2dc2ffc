// Where a step's time goes in the browser: brings the sandbox to N pods (as scripts/bench-page.mjs
// does), records a Chromium trace while "Step" is pressed 20 times, and prints the main thread's
// time per trace event (script, style, layout, paint, garbage collection), summed over the steps.
// A tool for finding what to make cheaper; the figures for the budgets come from bench-page.mjs.
//
// Also: DOM mutations per step by region (a MutationObserver), how many objects each layout had
// dirty and how many elements each style recalculation covered, the painted layers, and the main
// thread's self time per trace event.
//
// Usage: node scripts/bench-profile.mjs [pods]   (default 1000; needs a release dist/)
// Switches (environment variables), to find where the time goes:
//   DIST=dir        serve another build (one with readable wasm names: see BENCHMARKS.md)
//   HIDE="A,B"      leave those regions' bodies out of style, layout and paint (they still update)
//   CSS="..."       add a style sheet (to try a rule before writing it into style/)
//   INCL="f,g"      inclusive CPU time per step of the functions whose names contain f, g
//   CALLERS="f"     the callers of the functions whose names contain f
//   TOP=n           how many functions to list (15); PAINTS=1 lists the paint events; SHOT=x.png

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
  // (bypassCSP: the page's policy would refuse the styles HIDE and CSS add.)
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: Boolean(process.env.HIDE || process.env.CSS) });
  const page = await context.newPage();
  await page.goto(`${server.origin}/#/sandbox`);
  // HIDE="Owner graph,Objects" leaves those regions' bodies out of style, layout and paint (the
  // page still updates their DOM): what is left of a step's cost is the other regions'.
  for (const title of (process.env.HIDE ?? "").split(",").filter(Boolean)) {
    const id = `panel-${title.replace(/[^A-Za-z0-9]/g, "-").toLowerCase()}`;
    await page.addStyleTag({ content: `[aria-labelledby="${id}"] > .panel__body { display: none; }` });
  }
  // CSS="..." adds a style sheet (to try a rule before putting it in style/).
  if (process.env.CSS) await page.addStyleTag({ content: process.env.CSS });
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
  // DOM mutations per step, by the region they fall in: a cheap, telling count of what the page
  // rebuilds (a step should change a few rows, not whole panels).
  await page.evaluate(() => {
    window.__mutations = new Map();
    const where = (node) => {
      const el = node.nodeType === 1 ? node : node.parentElement;
      const region = el?.closest('[role="region"], [role="toolbar"], [role="status"]');
      if (!region) return "(outside regions)";
      const id = region.getAttribute("aria-labelledby");
      return (id && document.getElementById(id)?.firstChild?.textContent) || region.getAttribute("aria-label") || region.tagName;
    };
    const count = (place, what, n = 1) => {
      const row = window.__mutations.get(place) ?? { added: 0, removed: 0, attributes: 0, text: 0 };
      row[what] += n;
      window.__mutations.set(place, row);
    };
    new MutationObserver((records) => {
      for (const r of records) {
        const place = where(r.target);
        if (r.type === "attributes") count(place, "attributes");
        else if (r.type === "characterData") count(place, "text");
        else {
          // A node with its whole subtree: replacing a block of a hundred rows is not one change.
          const size = (nodes) => [...nodes].reduce((t, n) => t + 1 + (n.querySelectorAll?.("*").length ?? 0), 0);
          count(place, "added", size(r.addedNodes));
          count(place, "removed", size(r.removedNodes));
        }
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  for (let i = 0; i < STEPS; i++) {
    await step.click();
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0))));
  }
  const mutations = await page.evaluate(() => [...window.__mutations].map(([place, row]) => ({ place, ...row })));
  console.log(`${pods} pods, ${STEPS} presses of Step: DOM mutations per step, by region (nodes added, removed, each with its subtree's elements; attributes set; texts changed)`);
  mutations.sort((a, b) => b.added + b.removed + b.attributes + b.text - (a.added + a.removed + a.attributes + a.text));
  for (const m of mutations) {
    const per = (n) => (n / STEPS).toFixed(1).padStart(8);
    console.log(`${m.place.slice(0, 30).padEnd(30)} ${per(m.added)} ${per(m.removed)} ${per(m.attributes)} ${per(m.text)}`);
  }
  const all = mutations.reduce((t, m) => t + m.added + m.removed + m.attributes + m.text, 0);
  console.log(`${"total".padEnd(30)} ${(all / STEPS).toFixed(1).padStart(8)} nodes added or removed and changes a step`);
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
  for (const [f, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 15))) console.log(`${f.slice(0, 60).padEnd(60)} ${(t / STEPS).toFixed(2).padStart(8)}`);
  // INCL="owner_graph,process_caches": total time (self plus callees) of the functions whose
  // names contain each text, per step (an outer call's time is not counted twice).
  for (const want of (process.env.INCL ?? "").split(",").filter(Boolean)) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const total = (node, inside) => {
      const match = !inside && node.callFrame.functionName.includes(want);
      let t = match || inside ? dt.get(node.id) ?? 0 : 0;
      for (const c of node.children ?? []) t += total(byId.get(c), inside || match);
      return t;
    };
    console.log(`${want.padEnd(40)} ${(total(profile.nodes[0], false) / STEPS).toFixed(2).padStart(8)} ms a step, inclusive`);
  }
  // CALLERS="get_index_of": who calls the functions whose name contains that text (self time by
  // the chain of their three nearest callers).
  if (process.env.CALLERS) {
    const parent = new Map();
    for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node);
    const chains = new Map();
    for (const node of profile.nodes) {
      if (!node.callFrame.functionName.includes(process.env.CALLERS)) continue;
      const names = [];
      for (let p = parent.get(node.id); p && names.length < 3; p = parent.get(p.id)) names.push(p.callFrame.functionName.replace(/::h[0-9a-f]{16}$/, "").slice(-70));
      const chain = names.join("  <-  ");
      chains.set(chain, (chains.get(chain) ?? 0) + (dt.get(node.id) ?? 0));
    }
    console.log(`-- callers of ${process.env.CALLERS} --`);
    for (const [c, t] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${(t / STEPS).toFixed(2).padStart(8)}  ${c}`);
  }
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
  // How much each layout had to do (Chromium records dirty and total layout objects), and how
  // many elements each style recalculation covered.
  const layouts = events.filter((e) => e.name === "Layout" && e.ph === "X" && e.args?.beginData);
  if (layouts.length) {
    const l = layouts[Math.floor(layouts.length / 2)];
    const dirty = layouts.reduce((t, e) => t + (e.args.beginData.dirtyObjects ?? 0), 0);
    console.log(`a typical layout: ${l.args.beginData.dirtyObjects} dirty of ${l.args.beginData.totalObjects} objects, ${(l.dur / 1000).toFixed(1)} ms (${layouts.length} layouts; ${(dirty / STEPS).toFixed(0)} dirty objects a step)`);
  }
  // How much was repainted: the clip quads of the Paint events (one per invalidated layer).
  const paints = events.filter((e) => e.name === "Paint" && e.ph === "X" && Array.isArray(e.args?.data?.clip));
  if (paints.length) {
    const area = paints.reduce((t, e) => {
      const [x1, y1, x2, , , y3] = e.args.data.clip;
      return t + Math.abs((x2 - x1) * (y3 - y1));
    }, 0);
    if (process.env.PAINTS) for (const e of paints.slice(0, 12)) console.log(JSON.stringify({ dur: e.dur, ...e.args.data }));
    console.log(`paint: ${(area / STEPS / 1e3).toFixed(0)} thousand px² a step in ${(paints.length / STEPS).toFixed(1)} paints (the viewport is 1,260 thousand)`);
  }
  const styles = events.filter((e) => e.name === "UpdateLayoutTree" && e.ph === "X" && e.args?.elementCount !== undefined);
  if (styles.length) {
    const elements = styles.reduce((t, e) => t + e.args.elementCount, 0);
    console.log(`style recalculation: ${(elements / STEPS).toFixed(0)} elements a step (${styles.length} recalculations)`);
  }
  const totals = new Map();
  // Thread time beside wall time: on a machine shared with other work the wall time of an event
  // includes the time the thread was not running; its thread time (CPU) does not.
  const cpu = new Map();
  for (const e of events) {
    if (e.ph !== "X" || names.get(`${e.pid}:${e.tid}`) !== "CrRendererMain") continue;
    totals.set(e.name, (totals.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    cpu.set(e.name, (cpu.get(e.name) ?? 0) + (e.tdur ?? e.dur ?? 0) / 1000);
  }
  console.log(`${pods} pods, ${STEPS} presses of Step: main-thread time per step (inclusive, ms): wall, then thread time`);
  for (const name of SHOWN) {
    if (totals.has(name)) console.log(`${name.padEnd(24)} ${(totals.get(name) / STEPS).toFixed(2).padStart(8)} ${(cpu.get(name) / STEPS).toFixed(2).padStart(8)}`);
  }
  const others = [...totals].filter(([n]) => !SHOWN.includes(n)).sort((a, b) => b[1] - a[1]).slice(0, 12);
  // Self time (inclusive minus nested events) by name: where the main thread's time really goes.
  const mainEvents = events
    .filter((e) => e.ph === "X" && names.get(`${e.pid}:${e.tid}`) === "CrRendererMain" && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = new Map();
  const stack = [];
  for (const e of mainEvents) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
    const top = stack[stack.length - 1];
    if (top) self.set(top.name, (self.get(top.name) ?? 0) - e.dur / 1000);
    self.set(e.name, (self.get(e.name) ?? 0) + e.dur / 1000);
    stack.push(e);
  }
  console.log("-- self time per step, the largest --");
  for (const [n, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`${n.padEnd(40)} ${(t / STEPS).toFixed(2).padStart(8)}`);
  console.log("-- the largest others --");
  for (const [n, t] of others) console.log(`${n.padEnd(40)} ${(t / STEPS).toFixed(2).padStart(8)}`);
  // SHOT=file.png: what the page looked like after the steps.
  if (process.env.SHOT) await page.screenshot({ path: process.env.SHOT });
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
