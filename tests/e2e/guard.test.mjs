// Injection (issue 10): script tags, image error handlers, attribute-breaking strings and
// `javascript:` URLs typed into every field a learner (or a link) controls: console lines (unknown
// commands, flags, names echoed by NotFound and validation errors), label and annotation values,
// container images, manifests in the editor (valid ones, and ones refused or unparseable so that
// the error echoes them), lesson routes, the URL fragment and query. After each, the DOM holds no
// injected element, handler or URL, no dialog opened, no Content-Security-Policy violation was
// reported, and the text is shown literally where the page echoes it.

import { createServer } from "node:http";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { consoleBlocks as blocks, runInConsole as run, runUntilIdle, useSiteAndBrowser } from "./harness.mjs";
import { MARK, PAYLOADS, assertNothingInjected, openGuarded, shq } from "./guard-lib.mjs";

const WIDE = { contextOptions: { viewport: { width: 1400, height: 1000 } } };

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** Go's %q of an ASCII string without control characters (what Kubernetes' messages quote with). */
const goQuote = (s) => JSON.stringify(s);

/** `s` as a literal inside a regular expression. */
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A YAML double-quoted scalar holding `s`. */
const yamlQuote = (s) => JSON.stringify(s);

describe("injection: what a learner types is shown as text, never run", () => {
  test("console lines: unknown commands, flags, NotFound and validation errors echo the text literally", async () => {
    const { context, page, problems, dialogs } = await openGuarded(browser, `${server.origin}/#/sandbox`, WIDE);
    assert.equal(await run(page, "kubectl create configmap cfg"), "configmap/cfg created");
    for (const p of PAYLOADS) {
      assert.equal(
        await run(page, shq(p)),
        `${p}: command not found (this console runs kubectl, lab and echo, and after a pipe grep, head, tail, wc, sort, awk '{print $N}', cut)`,
      );
      assert.equal(await run(page, `kubectl ${shq(p)}`), `error: unknown command "${p}" for "kubectl"`);
      assert.equal(await run(page, `lab ${shq(p)}`), `error: unknown lab command "${p}"; see "lab help"`);
      assert.equal(await run(page, `kubectl get pods ${shq(`--${p}`)}`).then((t) => t.split("\n")[1]), "See 'kubectl get --help' for usage.");
      if (!p.includes("/")) {
        assert.equal(
          await run(page, `kubectl get configmap ${shq(p)}`),
          `Error from server (NotFound): configmaps "${p}" not found`,
        );
        assert.match(
          await run(page, `kubectl create configmap ${shq(p)}`),
          new RegExp(`^The ConfigMap "${esc(p)}" is invalid: metadata\\.name: Invalid value: ${esc(goQuote(p))}: a lowercase RFC 1123 subdomain`),
        );
      }
      assert.match(
        await run(page, `kubectl label configmap cfg ${shq(`tier=${p}`)}`),
        new RegExp(`^The ConfigMap "cfg" is invalid: metadata\\.labels: Invalid value: ${esc(goQuote(p))}: a valid label`),
      );
      assert.equal(await run(page, `kubectl annotate --overwrite configmap cfg ${shq(`note=${p}`)}`), "configmap/cfg annotated");
      assert.equal(await run(page, "kubectl get configmap cfg -o jsonpath={.metadata.annotations.note}"), p);
      assert.equal(
        await run(page, `kubectl get deploy -n ${shq(p)}`),
        `No resources found in ${p} namespace.`,
      );
      await assertNothingInjected(page, dialogs, `console, payload ${p}`);
    }
    // The annotation is shown literally in the object's YAML in the Objects region too.
    const objects = page.getByRole("region", { name: /^Objects/ });
    await objects.getByRole("button", { name: /^ConfigMap default\/cfg/ }).click();
    const yaml = objects.getByRole("group", { name: "YAML of ConfigMap default/cfg" });
    assert.ok((await yaml.innerText()).includes(PAYLOADS.at(-1)), await yaml.innerText());
    await assertNothingInjected(page, dialogs, "the Objects region");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("manifests in the editor: refused names and kinds, data, annotations and images are shown literally", async () => {
    const { context, page, problems, dialogs } = await openGuarded(browser, `${server.origin}/#/sandbox`, WIDE);
    const editor = page.getByRole("textbox", { name: "Manifest editor" });
    const apply = page.getByRole("button", { name: "Apply", exact: true });
    const applyText = async (text) => {
      const before = await blocks(page).count();
      await editor.fill(text);
      await apply.click();
      await page.waitForFunction((n) => document.querySelectorAll("[role=log] .console__block").length > n, before);
      return (await blocks(page).last().locator(".console__output").innerText()).trim();
    };
    for (const p of PAYLOADS.filter((p) => !p.includes("/"))) {
      const refused = await applyText(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${yamlQuote(p)}\n`);
      assert.ok(refused.includes(`The ConfigMap "${p}" is invalid`), refused);
    }
    for (const p of PAYLOADS) {
      const unknownKind = await applyText(`apiVersion: v1\nkind: ${yamlQuote(p)}\nmetadata:\n  name: x\n`);
      assert.ok(unknownKind.includes(`no matches for kind "${p}" in version "v1"`), unknownKind);
      // Unparseable: the diagnostic under the editor, at a line and column.
      await editor.fill(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [${p}\n`);
      await page.getByText(/^Line \d+, column \d+: /).waitFor();
      await assertNothingInjected(page, dialogs, `editor, payload ${p}`);
    }
    // Accepted: every payload as a data value, an annotation and an image.
    const data = PAYLOADS.map((p, i) => `  k${i}: ${yamlQuote(p)}`).join("\n");
    const notes = PAYLOADS.map((p, i) => `    note${i}: ${yamlQuote(p)}`).join("\n");
    assert.equal(
      await applyText(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: payloads\n  annotations:\n${notes}\ndata:\n${data}\n`),
      "configmap/payloads created",
    );
    const image = PAYLOADS[1];
    assert.equal(
      await applyText(
        [
          "apiVersion: apps/v1",
          "kind: Deployment",
          "metadata:",
          "  name: img",
          "spec:",
          "  replicas: 1",
          "  selector:",
          "    matchLabels: {app: img}",
          "  template:",
          "    metadata:",
          "      labels: {app: img}",
          "    spec:",
          "      containers:",
          "      - name: c",
          `        image: ${yamlQuote(image)}`,
          "",
        ].join("\n"),
      ),
      "deployment.apps/img created",
    );
    await runUntilIdle(page);
    assert.ok((await run(page, "kubectl get deploy img -o wide")).includes(image));
    const objects = page.getByRole("region", { name: /^Objects/ });
    await objects.getByRole("button", { name: /^ConfigMap default\/payloads/ }).click();
    const yaml = await objects.getByRole("group", { name: "YAML of ConfigMap default/payloads" }).innerText();
    // The YAML printer quotes some of them; every payload's characters are there as text.
    for (const p of PAYLOADS) assert.ok(yaml.includes(p) || yaml.includes(p.replaceAll("'", "''")), `${p} in\n${yaml}`);
    await objects.getByRole("button", { name: /^Deployment default\/img/ }).click();
    assert.ok((await objects.getByRole("group", { name: "YAML of Deployment default/img" }).innerText()).includes(image));
    await assertNothingInjected(page, dialogs, "accepted manifests");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("lesson routes, the URL fragment and the query are never markup", async () => {
    for (const p of PAYLOADS) {
      for (const [url, heading, refusedShare] of [
        [`${server.origin}/#/lessons/${p}`, /^No such (lesson|page)$/],
        [`${server.origin}/#/lessons/${encodeURIComponent(p)}`, /^No such (lesson|page)$/],
        [`${server.origin}/#/${p}`, /^No such page$/],
        [`${server.origin}/?${p}#/sandbox`, /^Reconcile Lab$/],
        [`${server.origin}/?state=${encodeURIComponent(p)}&lesson=${encodeURIComponent(p)}#/`, /^Reconcile Lab$/],
        // Share links: a refused code is named in a notice, as text.
        [`${server.origin}/#/sandbox?state=${p}`, /^Reconcile Lab$/, true],
        [`${server.origin}/#/sandbox?state=1.${encodeURIComponent(p)}`, /^Reconcile Lab$/, true],
        [`${server.origin}/#/lessons/generation?state=${p}&x=${p}`, /^Generation and observedGeneration$/, true],
      ]) {
        const { context, page, problems, dialogs } = await openGuarded(browser, url);
        assert.match(await page.getByRole("heading", { level: 1 }).first().innerText(), heading, url);
        if (refusedShare) {
          const notice = page.getByRole("status").filter({ hasText: "This share link could not be opened: " });
          assert.match(await notice.innerText(), /Showing the starting state instead\./, url);
        }
        // Every link the page shows still points inside the site.
        const hrefs = await page.evaluate(() => [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")));
        for (const h of hrefs) assert.match(h, /^#\//, `${url}: link ${h}`);
        await assertNothingInjected(page, dialogs, url);
        assert.deepEqual(problems, [], url);
        await context.close();
      }
    }
  });

  test("the checks themselves catch an injected element, handler and dialog", async () => {
    // A page where the markup does get in (through innerHTML, on purpose) must fail every check,
    // so the tests above cannot pass by looking in the wrong place.
    const { context, page, dialogs } = await openGuarded(browser, `${server.origin}/#/sandbox`, WIDE);
    await page.evaluate((p) => {
      const div = document.createElement("div");
      div.innerHTML = p;
      document.body.append(div);
    }, PAYLOADS[2]);
    await assert.rejects(assertNothingInjected(page, dialogs, "self-test"), /injected markup in the DOM/);
    await page.evaluate(() => document.querySelector("body > div:last-child").remove());
    await page.evaluate((mark) => {
      const a = document.createElement("a");
      a.href = `javascript:${mark}`;
      document.body.append(a);
    }, MARK);
    await assert.rejects(assertNothingInjected(page, dialogs, "self-test"), /injected markup in the DOM/);
    await page.evaluate(() => document.querySelector("body > a:last-child").remove());
    await page.waitForFunction(() => window.__csp.length > 0, null, { timeout: 5_000 });
    await assert.rejects(assertNothingInjected(page, dialogs, "self-test"), /Content-Security-Policy violations/);
    await page.evaluate(() => {
      window.__csp = [];
      setTimeout(() => alert("injected"), 0);
    });
    await new Promise((ok) => setTimeout(ok, 300));
    await assert.rejects(assertNothingInjected(page, dialogs, "self-test"), /a dialog opened/);
    await context.close();
  });
});

describe("injection through the embed: its query and a host's messages", () => {
  // A host page on another origin (a second local server) frames embed.html.
  const HOST_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head>
<body><h1>Host</h1><iframe id="lab" name="lab" title="Reconcile Lab playground" style="width:900px;height:900px"></iframe>
<script>
window.received = [];
const lab = document.getElementById("lab");
addEventListener("message", (e) => { if (e.source === lab.contentWindow) received.push(e.data); });
lab.src = new URLSearchParams(location.search).get("embed");
window.ask = (msg) => new Promise((done) => {
  const t = setInterval(() => {
    const r = received.find((m) => m && m.type === "result" && m.id === msg.id);
    if (r) { clearInterval(t); done(r); }
  }, 10);
  lab.contentWindow.postMessage(msg, new URL(lab.src).origin);
});
</script></body></html>`;

  test("query parameters and run, load and step messages carrying payloads stay text", async () => {
    const query = new URLSearchParams({
      panels: `console,objects,${PAYLOADS[1]}`,
      lesson: PAYLOADS[0],
      theme: PAYLOADS[2],
      readonly: PAYLOADS[3],
      [PAYLOADS[4]]: "1",
    });
    const embed = `${server.origin}/embed.html?${query}`;
    const hostServer = createServer((req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(HOST_HTML));
    await new Promise((ok) => hostServer.listen(0, "127.0.0.1", ok));
    const host = `http://127.0.0.1:${hostServer.address().port}`;
    let context;
    try {
      const opened = await openGuarded(browser, `${host}/host.html?embed=${encodeURIComponent(embed)}`, { waitForApp: false });
      context = opened.context;
      const { page, dialogs } = opened;
      // The start view first (docs/embed.md): its title and sentence come from the query, as text.
      await page.waitForFunction(() => window.received.some((m) => m && m.type === "standby"), null, { timeout: 20_000 });
      const frame = page.frame({ name: "lab" });
      await assertNothingInjected(frame, dialogs, "the embed's start view");
      await page.evaluate(() => lab.contentWindow.postMessage({ source: "reconcile-lab", type: "start" }, new URL(lab.src).origin));
      await page.waitForFunction(() => window.received.some((m) => m && m.type === "ready"), null, { timeout: 20_000 });
      // Each ignored parameter is named in a notice, as text.
      const notices = await frame.evaluate(() => document.body.innerText);
      for (const p of [PAYLOADS[1], PAYLOADS[2], PAYLOADS[3]]) {
        const shown = p.length > 40 ? p.slice(0, 40) : p;
        assert.ok(notices.includes(JSON.stringify(shown).slice(1, -1).slice(0, 30)) || notices.includes(shown.slice(0, 30)), `${p} in\n${notices.slice(0, 600)}`);
      }
      const ask = (msg) => page.evaluate((m) => window.ask(m), { source: "reconcile-lab", ...msg });
      for (const [i, p] of PAYLOADS.entries()) {
        const r = await ask({ type: "run", id: `run${i}`, command: `kubectl get configmap ${shq(p)}` });
        assert.equal(r.ok, false);
        const manifests = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\n  annotations:\n    note: ${JSON.stringify(p)}\ndata:\n  k: ${JSON.stringify(p)}\n`;
        const a = await ask({ type: "load", id: `load${i}`, manifests });
        assert.equal(a.ok, true, a.output);
        const back = await ask({ type: "run", id: `back${i}`, command: `kubectl get configmap c${i} -o jsonpath={.data.k}` });
        assert.equal(back.output, p);
        const refused = await ask({ type: p, id: `type${i}` });
        assert.equal(refused.ok, false);
        const step = await ask({ type: "step", id: `step${i}`, count: p });
        assert.match(step.output, /^error: count must be a whole number/);
      }
      // The console in the frame shows every payload literally.
      const log = await frame.getByRole("log", { name: "Console output" }).innerText();
      for (const p of PAYLOADS) assert.ok(log.includes(p), p);
      await assertNothingInjected(frame, dialogs, "the embed");
    } finally {
      // Closed even when an assertion fails, so that node --test does not wait on the server.
      await context?.close();
      hostServer.closeAllConnections();
      await new Promise((ok) => hostServer.close(ok));
    }
  });
});
