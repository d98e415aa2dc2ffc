// Where the wasm's bytes are: bytes per crate and per module of our own crate, the largest
// monomorphised generics (twiggy monos) and unreachable items (twiggy garbage).
//
// Usage: node scripts/size-crates.mjs [--wasm FILE] [--no-opt] [--top N]
//   make size-detail   builds dist/ first, then runs this.
//
// It reads the wasm-bindgen output of the last release build (target/wasm-bindgen/release/*_bg.wasm),
// which still has its "name" section, and by default runs wasm-opt over it with the flags Trunk uses
// (-Oz --low-memory-unused, see index.html) plus -g, so the names survive: the figures are those
// of the shipped functions, after inlining and dead-code removal, not of rustc's output.
// --no-opt reads the file as it is.
// Generic code is counted under the crate that defines it (core::slice::sort for every sort_by, even
// when the closure is ours): twiggy names a monomorphised function by its generic's path.
// The figures are raw bytes of the code and data sections; gzip shrinks them unevenly, so the
// per-crate gzip share is an estimate (the file's gzip ratio applied evenly); the size report
// (scripts/size-report.mjs) gives the real gzip size of each file.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
};
const top = Number(option("--top", "25"));
const optimise = !args.includes("--no-opt");

function defaultWasm() {
  const dir = "target/wasm-bindgen/release";
  const found = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith("_bg.wasm")) : [];
  return found.length === 1 ? join(dir, found[0]) : null;
}

const input = option("--wasm", defaultWasm());
if (!input || !existsSync(input)) {
  console.error("size-crates: no wasm-bindgen output found; build the release site first (make dist), or pass --wasm FILE");
  process.exit(1);
}

try {
  execFileSync("twiggy", ["--version"], { stdio: "ignore" });
} catch {
  console.error("size-crates: twiggy is not on PATH; install it with `cargo install twiggy --locked`");
  process.exit(1);
}

const run = (cmd, argv) => execFileSync(cmd, argv, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });

const scratch = mkdtempSync(join(tmpdir(), "size-crates-"));

// One CSV line of twiggy's output: "name",shallow,percent,retained,percent (names may hold commas).
function parseCsv(text) {
  const rows = [];
  for (const line of text.split("\n").slice(1)) {
    if (!line) continue;
    let name;
    let rest;
    if (line.startsWith('"')) {
      let i = 1;
      name = "";
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') {
          name += '"';
          i += 2;
        } else if (line[i] === '"') {
          break;
        } else {
          name += line[i++];
        }
      }
      rest = line.slice(i + 2);
    } else {
      const comma = line.indexOf(",");
      name = line.slice(0, comma);
      rest = line.slice(comma + 1);
    }
    rows.push({ name, bytes: Number(rest.split(",")[0]) });
  }
  return rows;
}

// The path of the item a function belongs to: "<A as B>::f" is A's, "core[hash]::x" is core::x.
function path(name) {
  let n = name.replace(/::h[0-9a-f]{16}$/, "").replace(/\[[0-9a-f]{16}\]/g, "");
  for (;;) {
    const before = n;
    n = n.replace(/^(<|&|\(|\*const |\*mut |mut |dyn |impl )/, "");
    if (n === before) break;
  }
  const own = n.split(/<|>| as /)[0].split("::").filter(Boolean);
  // "<T as alloc::string::ToString>::to_string", "<str as core::fmt::Display>::fmt": a blanket or
  // primitive impl belongs to the trait's crate.
  const primitive = /^([A-Z]|[A-Z,]+\)|str|char|bool|[iuf](8|16|32|64|128|size)|\[.*)$/;
  if (own.length === 1 && primitive.test(own[0]) && n.includes(" as ")) {
    return n.split(" as ")[1].split(/<|>/)[0].split("::").filter(Boolean);
  }
  return own;
}

// Sections that are not shipped code: names (the dist build has none) and wasm-bindgen's own data.
const notShipped = (name) =>
  name.includes('"function names" subsection') ||
  name.startsWith("custom section '__wasm_bindgen") ||
  name.includes("names\" subsection") ||
  name === "custom section 'name'";

function group(rows, key) {
  const sums = new Map();
  for (const r of rows) sums.set(key(r), (sums.get(key(r)) ?? 0) + r.bytes);
  return [...sums].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

function report(file) {
  const rows = parseCsv(run("twiggy", ["top", "-f", "csv", "-n", "100000000", file])).filter((r) => !notShipped(r.name));
  const total = rows.reduce((t, r) => t + r.bytes, 0);
  const shipped = readFileSync(file);
  // Without the name section the file is what the site ships; gzip it as the size report does.
  const stripped = join(scratch, "stripped.wasm");
  run("wasm-opt", [file, "--strip-debug", "--strip-producers", "-o", stripped]);
  const gz = gzipSync(readFileSync(stripped), { level: 9 }).length;
  const ratio = gz / total;
  const kb = (n) => (n / 1024).toFixed(1);
  const pct = (n) => ((100 * n) / total).toFixed(1);

  const kind = (r) => {
    if (r.name.startsWith("data segment") || r.name.startsWith("data[")) return "(data segments: strings, tables, lesson text)";
    if (/^(type|table|memory|global|elem|export|import|code section|wasm magic|custom section)/.test(r.name) || r.name.includes("section headers"))
      return "(wasm structure: types, imports, exports, tables, headers)";
    const p = path(r.name);
    return p.length ? p[0] : r.name;
  };

  console.log(`Wasm by crate: ${input}${optimise ? " after wasm-opt -Oz --low-memory-unused" : " as built"} (KiB raw; gzip share estimated)`);
  console.log(`  ${kb(shipped.length)} KiB with names; ${kb(total)} KiB of code and data; ${kb(gz)} KiB gzipped without names`);
  const line = (name, bytes) =>
    `${name.slice(0, 70).padEnd(70)} ${kb(bytes).padStart(8)} ${pct(bytes).padStart(5)}% ${kb(bytes * ratio).padStart(7)}`;
  console.log(`${"crate".padEnd(70)} ${"raw".padStart(8)} ${"share".padStart(6)} ${"~gzip".padStart(7)}`);
  const crates = group(rows, kind);
  for (const c of crates.slice(0, top)) console.log(line(c.name, c.bytes));
  const others = crates.slice(top);
  if (others.length) console.log(line(`(${others.length} more crates)`, others.reduce((t, c) => t + c.bytes, 0)));

  const sub = (depth) => (r) => path(r.name).slice(0, depth).join("::");
  console.log(`\nOur crate by module (reconcile_lab::<module>, engine and web one level deeper)`);
  const ours = rows.filter((r) => path(r.name)[0] === "reconcile_lab");
  const modules = group(ours, (r) => {
    const p = path(r.name);
    return p.slice(0, p[1] === "engine" || p[1] === "web" ? 3 : 2).join("::");
  });
  for (const m of modules.slice(0, top)) console.log(line(m.name, m.bytes));

  console.log(`\nLibrary modules (crate::module), largest ${top}`);
  const libs = group(
    rows.filter((r) => kind(r) !== "reconcile_lab" && !kind(r).startsWith("(")),
    sub(2),
  );
  for (const m of libs.slice(0, top)) console.log(line(m.name, m.bytes));

  console.log(`\ntwiggy monos (generic functions by number of copies), largest 12`);
  // twiggy's JSON output of monos stops after the first generic; its CSV lists them all:
  // Generic,BloatBytes,BloatPercent,TotalSize,TotalSizePercent,"copies".
  const monos = run("twiggy", ["monos", "-f", "csv", "-n", "12", file]).split("\n").slice(1);
  for (const row of monos) {
    const m = row.match(/^("(?:[^"]|"")*"|[^,]*),(\d+),[^,]*,(\d+),/);
    if (!m || m[1].startsWith("...") || m[1].startsWith("Σ")) continue;
    const name = m[1].replace(/^"|"$/g, "").replace(/""/g, '"').replace(/\[[0-9a-f]{16}\]/g, "");
    console.log(`${line(name, Number(m[3]))}  (${kb(Number(m[2]))} KiB in extra copies)`);
  }
  const garbage = JSON.parse(run("twiggy", ["garbage", "-f", "json", "-n", "100000", file])).filter(
    // Data segments twiggy cannot trace references into (it says "potential false-positive").
    (r) => !notShipped(r.name) && !r.name.includes("false-positive") && !/^(Σ|\.\.\.)/.test(r.name),
  );
  const waste = garbage.reduce((t, r) => t + r.bytes, 0);
  console.log(`\ntwiggy garbage: ${garbage.length} unreachable items, ${kb(waste)} KiB (names and wasm-bindgen sections excluded)`);
}

let wasm = input;
try {
  if (optimise) {
    wasm = join(scratch, "opt.wasm");
    run("wasm-opt", ["-Oz", "--low-memory-unused", "-g", input, "-o", wasm]);
  }
  report(wasm);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
