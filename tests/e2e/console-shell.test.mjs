// The console as a small shell, as a learner types into it (issue 20, points 1 and 2): a pipe into
// grep prints the matching line only, && stops after a grep that matched nothing, $(...) runs in
// the console (the reconcile-loop lesson's own solution line, typed, not played by "Show me"),
// commands it does not run say what it does run, and kubectl's verbs the lab does not model answer
// in words. Elements are found by role and accessible name only.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { consoleBlocks, openPage, runInConsole as run, typeInConsole, useSiteAndBrowser, WIDE } from "./harness.mjs";

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

describe("the console's shell", () => {
  test("pipes, && and ;, an unsupported filter, and kubectl verbs the lab does not model", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await page.getByRole("textbox", { name: "Console input" }).waitFor();
    assert.match(await run(page, "kubectl get ns | grep default"), /^default\s+Active\s+\S+$/);
    assert.equal(await run(page, 'kubectl get ns | grep nothing && echo found; echo "status $?"'), "status 1");
    assert.equal(
      await run(page, "kubectl get ns | xargs echo"),
      "xargs: not supported in this console; supported after a pipe: grep, head, tail, wc, sort, awk '{print $N}', cut",
    );
    assert.match(await run(page, "kubectl logs web"), /^error: kubectl logs: pods in Reconcile Lab run no processes/);
    assert.match(await run(page, "kubectl explain deploy.spec.replicas"), /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: replicas <integer>\n/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the reconcile-loop lesson's solution, typed into the console, deletes a pod of web and meets the goal", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/lessons/reconcile-loop`, WIDE);
    await page.getByRole("button", { name: "Show me" }).waitFor();
    const line = "kubectl delete pod $(kubectl get pods -l app=web -o jsonpath='{.items[0].metadata.name}')";
    // kubectl delete waits for the pod to be gone (the world steps on): wait for its line.
    await typeInConsole(page, line);
    const deleted = /^pod "web-[a-z0-9]+-[a-z0-9]+" deleted from default namespace$/;
    await consoleBlocks(page).last().locator(".console__output").filter({ hasText: /deleted from default namespace/ }).waitFor();
    assert.match((await consoleBlocks(page).last().locator(".console__output").innerText()).trim(), deleted);
    await page.getByRole("listitem").filter({ hasText: "You deleted a Pod of web." }).getByText("Met:").waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });
});
