// Prints the raw and gzip size of every file in a built site (default: dist/) and the totals.
// Usage: node scripts/size-report.mjs [dir]
// It reports; it does not judge. Budgets come later (issue 9).

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";

const root = process.argv[2] ?? "dist";

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

try {
  statSync(join(root, "index.html"));
} catch {
  console.error(`size report: ${root}/index.html is missing; build the site first (make dist)`);
  process.exit(1);
}

const rows = files(root)
  .map((path) => {
    const body = readFileSync(path);
    return { name: relative(root, path), raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
  })
  .sort((a, b) => b.gzip - a.gzip || a.name.localeCompare(b.name));

const kb = (n) => (n / 1024).toFixed(1);
const total = rows.reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip }), { raw: 0, gzip: 0 });
const width = Math.max(5, ...rows.map((r) => r.name.length));
const line = (name, raw, gzip) => `${name.padEnd(width)}  ${raw.padStart(10)}  ${gzip.padStart(10)}`;

console.log(`Size of ${root}/ (KiB; gzip -9)`);
console.log(line("file", "raw", "gzip"));
for (const r of rows) console.log(line(r.name, kb(r.raw), kb(r.gzip)));
console.log(line(`total (${rows.length} files)`, kb(total.raw), kb(total.gzip)));
