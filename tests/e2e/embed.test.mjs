// embed.html inside a host page served from another origin (two local servers on different
// ports), driven through the message protocol the way a documentation page drives it: it sizes
// itself, `run` answers exactly what typing in the console prints, `step` and `reset` work,
// messages from a window that is not its parent are ignored, malformed ones get an error result.
// Also: the query parameters, "Open in Reconcile Lab", and embed.js's Run buttons on the demo page.
// The embed first shows a start view (tests/e2e/firstload.test.mjs tests it); a host starts it
// with the protocol's `start` once the start view says `standby` (docs/embed.md), as openHost does.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { openPage, recordProblems, SUB_PATH, typeInConsole, useSiteAndBrowser, WIDE } from "./harness.mjs";


let site;
let browser;
useSiteAndBrowser((s, b) => {
  site = s;
  browser = b;
});

// The host: a documentation site on another origin. Its page frames the embed named in its own
// query (?embed=URL) and records every message the frame posts.
const HOST_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Host</title></head>
<body>
<h1>Host page</h1>
<iframe id="lab" name="lab" title="Reconcile Lab playground"></iframe>
<iframe id="other" name="other" title="Another frame" src="/other.html"></iframe>
<script src="/host.js"></script>
</body></html>`;

const HOST_JS = `
window.received = [];
const lab = document.getElementById("lab");
lab.style.width = "900px";
lab.style.border = "0";
window.addEventListener("message", (e) => {
  if (e.source !== lab.contentWindow) return;
  received.push({ origin: e.origin, data: e.data });
  if (e.data && e.data.type === "resize") lab.style.height = e.data.height + "px";
});
lab.src = new URLSearchParams(location.search).get("embed");
window.embedOrigin = new URL(lab.src).origin;
window.send = (msg) => lab.contentWindow.postMessage(msg, embedOrigin);
window.request = (msg) => new Promise((resolve) => {
  const seen = () => received.find((m) => m.data && m.data.type === "result" && m.data.id === msg.id);
  const t = setInterval(() => { const r = seen(); if (r) { clearInterval(t); resolve(r); } }, 10);
  send(msg);
});
`;

let host;
before(async () => {
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://127.0.0.1").pathname;
    if (path === "/favicon.ico") return res.writeHead(204).end();
    const body = { "/host.html": HOST_HTML, "/host.js": HOST_JS, "/other.html": "<!doctype html><title>Other</title><p>other</p>" }[path];
    if (body === undefined) return res.writeHead(404).end();
    const type = path.endsWith(".js") ? "text/javascript" : "text/html";
    res.writeHead(200, { "content-type": `${type}; charset=utf-8` }).end(body);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  host = { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok)) };
});
after(async () => host?.close());

/**
 * Opens the host page with an embed of `query`; resolves once the embed said "ready". The embed
 * shows its start view first (unless autoplay=1): the host starts it with `start`, as documented.
 */
async function openHost(query = "", { path = "/" } = {}) {
  const context = await browser.newContext(WIDE);
  const page = await context.newPage();
  const problems = recordProblems(page);
  const embed = `${site.origin}${path}embed.html${query}`;
  await page.goto(`${host.origin}/host.html?embed=${encodeURIComponent(embed)}`);
  await page.waitForFunction(() => window.received.some((m) => ["standby", "ready"].includes(m.data.type)), null, { timeout: 20_000 });
  if (await page.evaluate(() => !window.received.some((m) => m.data.type === "ready"))) {
    await page.evaluate(() => window.send({ source: "reconcile-lab", version: 1, type: "start" }));
  }
  await page.waitForFunction(() => window.received.some((m) => m.data.type === "ready"), null, { timeout: 20_000 });
  const frame = page.frameLocator("#lab");
  return { context, page, frame, problems };
}

const request = (page, msg) => page.evaluate((m) => window.request(m), { source: "reconcile-lab", ...msg });
const results = (page) => page.evaluate(() => window.received.filter((m) => m.data.type === "result").map((m) => m.data));
const narration = (frame) => frame.getByRole("status", { name: "Narration" }).locator(".narration__line").innerText();

test("the embed says ready, sizes itself, and answers to the host's origin only", async () => {
  const { context, page, frame, problems } = await openHost("?panels=console,graph");
  const ready = await page.evaluate(() => window.received.find((m) => m.data.type === "ready"));
  assert.equal(ready.origin, site.origin);
  assert.deepEqual(ready.data, { source: "reconcile-lab", type: "ready", version: 1 });
  await page.waitForFunction(() => window.received.some((m) => m.data.type === "resize"));
  const lab = page.locator("#lab");
  const first = (await lab.boundingBox()).height;
  assert.ok(first > 200, `the frame grew from the default 150px to its content (${first}px)`);
  // The content grows with the console's output: the frame follows.
  await request(page, { type: "run", id: 1, command: "kubectl create deployment web --image=nginx --replicas=3\nlab settle\nkubectl get pods" });
  await page.waitForFunction((h) => document.getElementById("lab").getBoundingClientRect().height > h, first);
  const posted = await page.evaluate(() => window.received.filter((m) => m.data.type === "resize").at(-1).data.height);
  const shown = await frame.locator("body").evaluate((b) => Math.ceil(b.getBoundingClientRect().height));
  assert.equal(posted, shown, "the last height posted is the content's height");
  assert.equal((await lab.boundingBox()).height, posted);
  // Only the panels asked for, and no site chrome.
  assert.equal(await frame.getByRole("region").count(), 2);
  await frame.getByRole("region", { name: "Console" }).waitFor();
  await frame.getByRole("region", { name: "Owner graph" }).waitFor();
  assert.equal(await frame.getByRole("navigation", { name: "Site" }).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("run answers exactly what typing the same lines in the console prints", async () => {
  const { context, page, frame } = await openHost("?panels=console");
  const lines = [
    "kubectl create deployment web --image=nginx --replicas=2",
    "lab step 12",
    "kubectl get deploy,rs",
    "kubectl get pods -o wide",
    "kubectl get nope",
  ];
  const typed = await openPage(browser, `${site.origin}/#/sandbox`, WIDE);
  for (const [i, command] of lines.entries()) {
    const r = await request(page, { type: "run", id: `run-${i}`, command });
    assert.equal(r.origin, site.origin);
    const before = await typed.page.locator("[role=log] .console__block").count();
    await typeInConsole(typed.page, command);
    await typed.page.waitForFunction((n) => document.querySelectorAll("[role=log] .console__block").length > n, before);
    const printed = await typed.page.locator("[role=log] .console__block").last().locator(".console__output").textContent();
    assert.equal(r.data.output, printed, command);
    assert.equal(r.data.ok, command !== "kubectl get nope", command);
    // And the embed's own console shows it too.
    const inFrame = await frame.locator("[role=log] .console__block").last().locator(".console__output").textContent();
    assert.equal(inFrame, printed, command);
  }
  assert.equal(await narration(frame), await narration(typed.page));
  await typed.context.close();
  await context.close();
});

test("step takes steps and reset returns to the start", async () => {
  const { context, page, frame } = await openHost("?panels=console,timeline");
  await request(page, { type: "run", id: "c", command: "kubectl create deployment web --image=nginx" });
  const stepped = await request(page, { type: "step", id: "s", count: 3 });
  assert.equal(stepped.data.ok, true);
  const lines = stepped.data.output.trimEnd().split("\n");
  assert.equal(lines.length, 3, stepped.data.output);
  const last = lines[2].match(/^Step (\d+) · /);
  assert.ok(last, lines[2]);
  assert.match(await narration(frame), new RegExp(`^Step ${last[1]}\\b`));
  const reset = await request(page, { type: "reset", id: "r" });
  assert.deepEqual(reset.data, { source: "reconcile-lab", type: "result", version: 1, id: "r", ok: true, output: "" });
  await frame.getByText("No step yet. Run a command in the console, then Step.").waitFor();
  const gone = await request(page, { type: "run", id: "g", command: "kubectl get deploy web" });
  assert.equal(gone.data.output, 'Error from server (NotFound): deployments.apps "web" not found\n');
  const loaded = await request(page, {
    type: "load",
    id: "l",
    manifests: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: two\n",
  });
  assert.deepEqual([loaded.data.ok, loaded.data.output], [true, "configmap/one created\nnamespace/two created\n"]);
  await context.close();
});

test("messages from a window that is not the parent are ignored", async () => {
  const { context, page, frame } = await openHost("?panels=console");
  const attack = { source: "reconcile-lab", type: "run", id: "evil", command: "kubectl create ns evil" };
  // A sibling frame of the host, and the embed posting to itself: neither is its parent.
  await page.frame({ name: "other" }).evaluate((m) => parent.frames["lab"].postMessage(m, "*"), attack);
  await page.frame({ name: "lab" }).evaluate((m) => window.postMessage(m, "*"), { ...attack, id: "self" });
  // A request from the parent after them is answered; the others never are.
  const probe = await request(page, { type: "run", id: "probe", command: "kubectl get ns evil" });
  assert.equal(probe.data.output, 'Error from server (NotFound): namespaces "evil" not found\n');
  await page.waitForTimeout(200);
  assert.deepEqual((await results(page)).map((r) => r.id), ["probe"]);
  assert.equal(await frame.locator("[role=log] .console__block").count(), 1, "only the probe ran");
  await context.close();
});

test("malformed messages get an error result and change nothing", async () => {
  const { context, page, frame, problems } = await openHost("?panels=console");
  await request(page, { type: "run", id: 0, command: "kubectl create ns kept" });
  const before = await frame.locator("[role=log]").innerText();
  const cases = [
    [{ type: "step", id: "m1", count: "lots" }, "error: count must be a whole number from 1 to 1000\n"],
    [{ type: "step", id: "m2", count: 1e9 }, "error: count must be a whole number from 1 to 1000\n"],
    [{ type: "explode", id: "m3" }, 'error: unknown message type "explode"\n'],
    [{ type: "run", id: "m4" }, "error: command is missing\n"],
    [{ type: "run", id: "m5", command: { toString: null } }, "error: command must be a string\n"],
    [{ type: "run", id: "m6", command: "x".repeat(70_000) }, "error: command is 70000 bytes long; the most is 65536\n"],
    [{ type: "load", id: "m7", manifests: ["kind: Pod"] }, "error: manifests must be a string\n"],
    [{ type: "run", id: "m8", command: "kubectl get ns", version: 99 }, "error: this embed speaks version 1 of the protocol\n"],
  ];
  for (const [msg, output] of cases) {
    const r = await request(page, msg);
    assert.deepEqual(r.data, { source: "reconcile-lab", type: "result", version: 1, id: msg.id, ok: false, output }, JSON.stringify(msg).slice(0, 80));
  }
  // Not ours, or not even an object: ignored without an answer.
  await page.evaluate(() => {
    send("run kubectl delete ns kept");
    send(42);
    send(null);
    send({ type: "run", id: "nosource", command: "kubectl delete ns kept" });
    send({ source: "reconcile-lab", type: "result", id: "echo", ok: true, output: "" });
  });
  const after = await request(page, { type: "run", id: "after", command: "kubectl get ns kept -o name" });
  assert.equal(after.data.output, "namespace/kept\n");
  const ids = (await results(page)).map((r) => r.id);
  assert.ok(!ids.includes("nosource") && !ids.includes("echo"), ids.join(","));
  assert.ok((await frame.locator("[role=log]").innerText()).startsWith(before.trimEnd()));
  assert.deepEqual(problems, []);
  await context.close();
});

test("query parameters: unknown or malformed ones are ignored with a visible notice", async () => {
  const { context, frame } = await openHost("?panels=graph,bogus&theme=pink&readonly=1&colour=%3Cb%3Ered%3C/b%3E");
  const notices = frame.getByRole("status", { name: "Embed notices" });
  await notices.waitFor();
  const text = await notices.innerText();
  assert.match(text, /Ignored the panel "bogus"/);
  assert.match(text, /Ignored theme="pink": use light, dark or auto\./);
  assert.match(text, /Ignored the unknown parameter "colour"\./);
  assert.equal(await frame.locator(".embed__notices b").count(), 0, "user text is text, never markup");
  await frame.getByRole("region", { name: "Owner graph" }).waitFor();
  assert.equal(await frame.getByRole("region").count(), 1);
  await context.close();
});

test("a lesson at a step, read-only and dark, still steps; Open in Reconcile Lab keeps the state", async () => {
  const { context, page, frame } = await openHost("?lesson=reconcile-loop&step=3&panels=console,editor&theme=dark&readonly=1");
  assert.equal(await frame.locator("html").getAttribute("data-theme"), "dark");
  assert.equal(await frame.getByRole("textbox", { name: "Console input" }).isDisabled(), true);
  assert.equal(await frame.getByRole("textbox", { name: "Manifest editor" }).isEditable(), false);
  assert.equal(await frame.getByRole("button", { name: "Apply" }).isDisabled(), true);
  const at = await narration(frame);
  await frame.getByRole("button", { name: "Step", exact: true }).click();
  await page.frame({ name: "lab" }).waitForFunction(
    (before) => document.querySelector(".narration__line")?.innerText !== before,
    at,
  );
  const stepNow = await narration(frame);
  const href = await frame.getByRole("link", { name: "Open in Reconcile Lab" }).getAttribute("href");
  assert.match(href, new RegExp(`^${site.origin}/#/lessons/reconcile-loop\\?state=1\\.`));
  const full = await openPage(browser, href, WIDE);
  assert.equal(await narration(full.page), stepNow);
  await full.context.close();
  await context.close();
});

test("a goal met in an embedded lesson is posted to the host", async () => {
  const { context, page } = await openHost("?lesson=reconcile-loop&panels=console");
  const names = await request(page, { type: "run", id: "n", command: "kubectl get pods -o name" });
  const pod = names.data.output.split("\n")[0];
  await request(page, { type: "run", id: "d", command: `kubectl delete ${pod}` });
  await page.waitForFunction(() => window.received.some((m) => m.data.type === "goal"));
  const goal = await page.evaluate(() => window.received.find((m) => m.data.type === "goal").data);
  assert.deepEqual(goal, { source: "reconcile-lab", type: "goal", version: 1, lesson: "reconcile-loop", goal: "pod-deleted" });
  await context.close();
});

test("embed.js on the demo page: playgrounds size themselves and Run buttons run in them, under a sub-path", async () => {
  const context = await browser.newContext(WIDE);
  const page = await context.newPage();
  const problems = recordProblems(page);
  await page.goto(`${site.origin}${SUB_PATH}docs-demo.html`);
  const frames = page.locator("iframe.reconcile-lab-frame");
  assert.equal(await frames.count(), 2);
  assert.equal(await frames.first().getAttribute("title"), "Playground: watching a Deployment");
  assert.ok((await frames.first().getAttribute("src")).startsWith(`${site.origin}${SUB_PATH}embed.html?`));
  const first = page.frameLocator("#watching iframe");
  // Each playground shows its start view until a Run button (or the reader) starts it.
  await first.getByRole("button", { name: /^Start the playground/ }).waitFor({ timeout: 20_000 });
  assert.equal(await first.getByRole("region", { name: "Console" }).count(), 0);
  const runs = page.getByRole("button", { name: "Run", exact: true });
  assert.ok((await runs.count()) >= 5);
  await runs.first().click();
  const out = page.locator(".reconcile-lab-output").first();
  await page.waitForFunction(() => document.querySelector(".reconcile-lab-output")?.textContent.includes("created"));
  assert.equal(await out.textContent(), "deployment.apps/web created\n");
  await first.locator("[role=log]").getByText("kubectl create deployment web --image=nginx --replicas=2").waitFor();
  // The second playground is named by its snippets: they run there, not in the first.
  const second = page.frameLocator("#namespaces iframe");
  await second.getByRole("button", { name: /^Start the playground/ }).waitFor({ timeout: 20_000 });
  await runs.nth(6).click();
  const nsOut = page.locator(".reconcile-lab-output").nth(6);
  await page.waitForFunction(() => document.querySelectorAll(".reconcile-lab-output")[6]?.textContent.includes("Terminating"));
  await second.getByRole("region", { name: "Console" }).waitFor();
  assert.match(await nsOut.textContent(), /^namespace\/old created\nnamespace "old" deleted\nNAME\s+STATUS\s+AGE\nold\s+Terminating/);
  assert.equal(await first.locator("[role=log]").getByText("kubectl create ns old").count(), 0);
  // Sized: taller than an iframe's default 150px, and as tall as its content.
  const h = (await frames.first().boundingBox()).height;
  assert.ok(h > 300, `${h}`);
  // Nothing was fetched outside the sub-path.
  assert.deepEqual(problems, []);
  await context.close();
});

test("autoplay=1 starts playing at once", async () => {
  const { context, page, frame } = await openHost("?autoplay=1&panels=timeline");
  await frame.getByRole("button", { name: "Pause", exact: true }).waitFor();
  await page.frame({ name: "lab" }).waitForFunction(() => /^Step \d+/.test(document.querySelector(".narration__line")?.innerText ?? ""));
  await context.close();
});

test("theme=light and theme=dark outrank the system's colour scheme; without them the embed follows it", async () => {
  const background = async (query, colorScheme) => {
    const context = await browser.newContext({ ...WIDE, colorScheme });
    const page = await context.newPage();
    await page.goto(`${site.origin}/embed.html?autoplay=1${query}`);
    await page.getByRole("button", { name: "Step", exact: true }).waitFor();
    const color = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await context.close();
    return color;
  };
  const [light, dark] = [await background("", "light"), await background("", "dark")];
  assert.notEqual(light, dark);
  assert.equal(await background("&theme=light", "dark"), light);
  assert.equal(await background("&theme=dark", "light"), dark);
});
