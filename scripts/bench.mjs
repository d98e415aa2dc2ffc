// Every measurement of issue 9 in one table: `make bench` (which builds the release site first).
//
// Usage: node scripts/bench.mjs [--quick] [--write BENCHMARKS.md]
//   --quick   fewer samples, no 10,000-replica engine run and no 10,000-pod page run (their
//             budgets then read "n/a")
//   --write   also writes the report, with the machine it ran on, to that file
//
// Sections: the summary against the budgets, first-load size per file (scripts/size-report.mjs),
// the page (scripts/bench-page.mjs: start-up, step latency, Play, memory), and the engine natively
// (`cargo bench --bench world` and `--bench apiserver`, printed as they print). Figures only: the
// budgets are shown next to them, nothing here fails on a slow machine.

import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const writeTo = args.includes("--write") ? args[args.indexOf("--write") + 1] : null;
const log = (...a) => console.error("bench:", ...a);

/** Runs a command, streaming its stderr, and returns its stdout; throws on failure. */
function run(cmd, argv, options = {}) {
  log(`$ ${cmd} ${argv.join(" ")}`);
  const r = spawnSync(cmd, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 << 20, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(" ")} exited with ${r.status ?? r.signal}`);
  return r.stdout;
}

function machine() {
  const sh = (c, a) => {
    try {
      return execFileSync(c, a, { encoding: "utf8" }).trim();
    } catch {
      return "unknown";
    }
  };
  return {
    nproc: sh("nproc", []),
    cpu: cpus()[0]?.model ?? "unknown",
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    chromium: sh(CHROMIUM, ["--version"]),
    rustc: sh("rustc", ["--version"]),
    node: process.version,
    load: sh("cat", ["/proc/loadavg"]).split(" ").slice(0, 3).join(" "),
  };
}

const ms = (x) => (x == null ? "n/a" : `${x.toFixed(1)} ms`);
const mib = (b) => (b == null ? "n/a" : `${(b / 2 ** 20).toFixed(1)} MiB`);
const verdict = (ok) => (ok == null ? "n/a" : ok ? "within" : "OVER");

// 1. First load: the size report as it prints, and each page's first interactive view (its
// section (a)) and the app as a first lesson or sandbox visit loads it (section (b)).
const sizeText = run("node", ["scripts/size-report.mjs", "dist"]).trimEnd();
const sizeSection = (marker) => {
  const lines = sizeText.split("\n");
  const from = lines.findIndex((l) => l.startsWith(marker));
  const rows = [];
  for (const l of lines.slice(from + 1)) {
    const m = /^(\S+\.html) \((\d+) files\)\s+[\d.]+\s+([\d.]+)$/.exec(l.trim());
    if (m) rows.push({ page: m[1], files: Number(m[2]), gzipKiB: Number(m[3]) });
    else if (l.startsWith("(")) break;
  }
  return from < 0 ? [] : rows;
};
const firstViews = sizeSection("(a)");
const appLoads = sizeSection("(b)");

// 2. The page.
const page = JSON.parse(run("node", ["scripts/bench-page.mjs", ...(quick ? ["--quick"] : [])]));

// 3. The engine, natively, with the load average before and after (a busy machine slows it).
const loadNow = () => machine().load;
const worldLoadBefore = loadNow();
const world = run("cargo", ["bench", "--bench", "world", "--", ...(quick ? ["--quick"] : [])]).trimEnd();
const worldLoad = `${worldLoadBefore} → ${loadNow()}`;
/** A row of the world bench's table: its step count and wall seconds. */
const worldRow = (scenario) => {
  const line = world.split("\n").find((l) => l.startsWith(`| ${scenario} `));
  const m = line && /^\|[^|]+\|\s*(\d+)\s*\|\s*([\d.]+) s/.exec(line);
  return m ? { steps: Number(m[1]), seconds: Number(m[2]) } : null;
};
const apiserver = run("cargo", ["bench", "--bench", "apiserver"]).trimEnd();

// 4. Issue 17's scale budgets: in the page and natively, each with the load beside it.
const secs = (x) => (x == null ? "n/a" : `${x.toFixed(2)} s`);
const pageRun = (pods) => page.runUntilIdle?.find((r) => r.pods === pods);
const scaleRows = [
  ...[
    [1000, 2],
    [10_000, 15],
  ].map(([pods, budget]) => {
    const r = pageRun(pods);
    return [
      `In the page: ${pods.toLocaleString("en")} pods, from the create to "Settled" (one press of Run until idle)${r ? `; load ${r.loadBefore} → ${r.loadAfter}` : ""}`,
      r ? `${secs(r.seconds)}${r.settled ? "" : ` (${r.outcome})`}` : "n/a (not run)",
      `${budget} s`,
      r ? r.settled && r.seconds <= budget : null,
    ];
  }),
  ...[
    ["converge 10000 replicas", "Natively: converging 10,000 replicas", 4],
    ["delete 10000, Background", "Natively: deleting them (background)", 3],
  ].map(([scenario, what, budget]) => {
    const r = worldRow(scenario);
    return [
      `${what}${r ? ` (${r.steps.toLocaleString("en")} steps)` : ""}; load ${worldLoad}`,
      r ? secs(r.seconds) : "n/a (not run)",
      `${budget} s`,
      r ? r.seconds <= budget : null,
    ];
  }),
];


const home = page.startup.find((s) => s.route === "");
const step1000 = page.steps.find((s) => s.pods === 1000);
const memTotal = page.memory ? page.memory.wasmBytes + page.memory.jsHeapBytes : null;

const rows = [
  ...scaleRows,
  ...firstViews.map((v) => [
    `First interactive view of ${v.page} (${v.files} files, gzip -9)`,
    `${v.gzipKiB} KiB`,
    "250 KB",
    v.gzipKiB * 1024 <= 250_000,
  ]),
  ...appLoads.map((v) => [
    `The app on a first lesson or sandbox visit from ${v.page} (${v.files} files, gzip -9; loaded lazily)`,
    `${v.gzipKiB} KiB`,
    "",
    null,
  ]),
  ...page.startup.map((s) => [
    `Start-up ${s.route || "home"}: ${s.route.startsWith("home,") ? "click" : "navigation"} to ${s.what.replace(/^link "[^"]*" to /, "")} (median of ${s.n})`,
    `${ms(s.median)} (p95 ${ms(s.p95)})`,
    "300 ms",
    s.median < 300,
  ]),
  ...page.steps.map((s) => [
    `Step latency, ${s.pods.toLocaleString("en")} pods (${s.n} steps, the Control plane map on screen)`,
    `median ${ms(s.median)}, p95 ${ms(s.p95)}; main-thread CPU ${ms(s.cpuMs)} a step`,
    s.pods === 1000 ? "16 ms median" : "",
    s.pods === 1000 ? s.median < 16 : null,
  ]),
  page.play && [
    `Play at full speed, ${page.play.pods.toLocaleString("en")} pods: key to next frame (${page.play.toFrame.n} keys, ${page.play.steps} steps)`,
    `median ${ms(page.play.toFrame.median)}, p95 ${ms(page.play.toFrame.p95)}`,
    "100 ms",
    page.play.toFrame.p95 < 100,
  ],
  page.memory && [
    `Memory after converging ${page.memory.pods.toLocaleString("en")} pods (wasm linear memory + JS heap)${pageRun(page.memory.pods) ? `; load ${pageRun(page.memory.pods).loadAfter}` : ""}`,
    `${mib(page.memory.wasmBytes)} + ${mib(page.memory.jsHeapBytes)}`,
    "200 MB",
    memTotal < 200e6,
  ],
].filter(Boolean);

const m = machine();
const report = [
  `| measurement | value | budget | |`,
  `|---|---|---|---|`,
  ...rows.map(([what, value, budget, ok]) => `| ${what} | ${value} | ${budget} | ${budget ? verdict(ok) : ""} |`),
  ``,
  `Machine: ${m.nproc} cores (${m.cpu}), ${m.memory} memory, ${m.chromium}, ${m.rustc}, Node ${m.node}; load average at the end ${m.load}.`,
  page.memory ? `Converging ${page.memory.pods.toLocaleString("en")} pods in the page took ${page.memory.convergeWallSeconds.toFixed(0)} s of wall time.` : "",
  page.problems ? `\nThe page reported problems during the run:\n\n${page.problems.map((p) => `- ${p}`).join("\n")}` : "",
  ``,
  `### First load, per file`,
  "```",
  sizeText,
  "```",
  ``,
  `### Start-up (ms from navigation start, or from the click; to the control named)`,
  ``,
  `| route | first control | median | p95 | max |`,
  `|---|---|---|---|---|`,
  ...page.startup.map((s) => `| ${s.route || "home"} | ${s.what} | ${ms(s.median)} | ${ms(s.p95)} | ${ms(s.max)} |`),
  ``,
  `### Step latency (press Step to the page showing the step; DOM updated and laid out; the Control plane map on screen and redrawn every step)`,
  ``,
  `| pods | steps | median | p95 | max | main-thread CPU per step (trace, paint included) |`,
  `|---|---|---|---|---|---|`,
  ...page.steps.map((s) => `| ${s.pods.toLocaleString("en")} | ${s.n} | ${ms(s.median)} | ${ms(s.p95)} | ${ms(s.max)} | ${ms(s.cpuMs)} |`),
  ``,
  page.play
    ? [
        `### Play at full speed (${page.play.pods.toLocaleString("en")} pods)`,
        ``,
        `| keys | steps played | key event to handler (median, p95) | key event to next frame (median, p95) |`,
        `|---|---|---|---|`,
        `| ${page.play.toFrame.n} | ${page.play.steps} | ${ms(page.play.toHandler.median)}, ${ms(page.play.toHandler.p95)} | ${ms(page.play.toFrame.median)}, ${ms(page.play.toFrame.p95)} |`,
        ``,
      ].join("\n")
    : "",
  `### Engine, natively: \`cargo bench --bench world\``,
  ``,
  world,
  ``,
  `### API server, natively: \`cargo bench --bench apiserver\``,
  "```",
  apiserver,
  "```",
].join("\n");

console.log(report);

if (writeTo) {
  const previous = (() => {
    try {
      return readFileSync(writeTo, "utf8");
    } catch {
      return "";
    }
  })();
  const marker = "<!-- bench:start -->";
  const end = "<!-- bench:end -->";
  const stamped = `${marker}\nLatest run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC${quick ? " (--quick)" : ""}.\n\n${report}\n${end}`;
  const text =
    previous.includes(marker) && previous.includes(end)
      ? previous.slice(0, previous.indexOf(marker)) + stamped + previous.slice(previous.indexOf(end) + end.length)
      : `${previous}${previous ? "\n" : ""}${stamped}\n`;
  writeFileSync(writeTo, text);
  log(`wrote ${writeTo}`);
}
