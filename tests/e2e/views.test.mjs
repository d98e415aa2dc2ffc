// The machinery views, driven the way a learner drives them: a kubectl line in the console, then
// "Step" until each view shows the engine's work. Elements are found by role and accessible name
// only (the names in issue 6 and src/web/views/).

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { NARROW, openPage, runUntilIdle, typeInConsole as run, useSiteAndBrowser } from "./harness.mjs";

const WIDE = { viewport: { width: 1400, height: 900 } };
const MAX_STEPS = 400;

let server;
let browser;
useSiteAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** Presses "Step" until `done()` resolves true; fails after MAX_STEPS presses. Returns the count. */
async function stepUntil(page, what, done) {
  const step = page.getByRole("button", { name: "Step", exact: true });
  for (let i = 0; i < MAX_STEPS; i++) {
    if (await done()) return i;
    await step.click();
  }
  assert.fail(`after ${MAX_STEPS} steps: ${what}`);
}

// A region's name gains " · changed in this step" while the current step touched it.
const region = (page, name) => page.getByRole("region", { name: new RegExp(`^${name}( · changed in this step)?$`) });

const narration = (page) => page.getByRole("status", { name: "Narration" });

/** Opens the page and lets the cluster start (informers list, a leader is elected). */
async function openSettled(options) {
  const opened = await openPage(browser, `${server.origin}/#/sandbox`, options);
  await runUntilIdle(opened.page);
  return opened;
}

describe("the machinery views", () => {
  test("a Deployment's creation: the watch event reaches the informer, its key passes through the queue, its objects appear in the graph", async () => {
    const { context, page, problems } = await openSettled(WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=2");

    const watch = region(page, "Watch events");
    const deployInformer = watch.getByRole("group", { name: /^Deployment informer \(kube-controller-manager-/ });
    const delivered = deployInformer.getByRole("list", { name: "Delivered" }).getByRole("listitem").filter({ hasText: "default/web" });
    await stepUntil(page, "the ADDED event of default/web is delivered", async () => (await delivered.filter({ hasText: "ADDED" }).count()) > 0);
    assert.match(await delivered.filter({ hasText: "ADDED" }).first().innerText(), /delivered\s*ADDED\s*default\/web\s*· rv \d+ · step \d+/);

    const queues = region(page, "Work queues");
    const waitingWeb = queues
      .getByRole("group", { name: /^deployment-controller queue/ })
      .getByRole("list", { name: "Waiting" })
      .getByRole("listitem")
      .filter({ hasText: /^default\/web/ });
    await stepUntil(page, "default/web waits in the deployment queue", async () => (await waitingWeb.count()) > 0);
    await stepUntil(page, "default/web leaves the deployment queue", async () => (await waitingWeb.count()) === 0);

    const graph = region(page, "Owner graph");
    const rs = graph.getByRole("img", { name: /^ReplicaSet web-[a-z0-9]+ in namespace default, owned by Deployment web \(controller\) \(blockOwnerDeletion\)/ });
    const pods = graph.getByRole("img", { name: /^Pod web-[a-z0-9]+-[a-z0-9]{5} in namespace default, owned by ReplicaSet web-/ });
    await stepUntil(page, "the ReplicaSet and both pods are in the owner graph", async () => (await rs.count()) === 1 && (await pods.count()) === 2);
    // Nodes take keyboard focus.
    await rs.focus();
    assert.equal(await rs.evaluate((el) => el === document.activeElement), true);
    // The text alternative says the same.
    await graph.getByText("Owner graph as text").click();
    assert.ok(await graph.getByRole("listitem").filter({ hasText: /^Deployment web in namespace default$/ }).isVisible());
    assert.equal(await graph.getByRole("listitem").filter({ hasText: /^Pod web-/ }).count(), 2);

    // Informer caches: everything settles to up to date.
    const caches = region(page, "Informer caches");
    await stepUntil(page, "the caches match the server", async () => (await caches.getByText("Every entry matches the API server.").count()) > 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the owner graph marks what the step touched (✱): a new ReplicaSet on the step that created it, and not after", async () => {
    const { context, page, problems } = await openSettled(WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=1");
    const graph = region(page, "Owner graph");
    const rs = graph.getByRole("img", { name: /^ReplicaSet web-[a-z0-9]+ in namespace default/ });
    await stepUntil(page, "the ReplicaSet appears in the owner graph", async () => (await rs.count()) === 1);
    // The step that drew it first is the step that created it.
    assert.match(await narration(page).innerText(), /CREATE ReplicaSet default\/web-/);
    assert.match(await rs.textContent(), /^ReplicaSet ✱/);
    await stepUntil(page, "a later step leaves the ReplicaSet untouched", async () => !/✱/.test(await rs.textContent()));
    assert.equal(await rs.count(), 1);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a foreground deletion cascades down the owner graph node by node", async () => {
    const { context, page, problems } = await openSettled(WIDE);
    await run(page, "kubectl create deployment web --image=nginx --replicas=2");
    const graph = region(page, "Owner graph");
    const nodes = graph.getByRole("img");
    await stepUntil(page, "four nodes", async () => (await nodes.count()) === 4);
    await runUntilIdle(page);

    await run(page, "kubectl delete deploy web --cascade=foreground");
    const deploy = graph.getByRole("img", { name: /^Deployment web in namespace default, being deleted \(deletionTimestamp set\), finalizer foregroundDeletion/ });
    await stepUntil(page, "the Deployment is being deleted with foregroundDeletion", async () => (await deploy.count()) === 1);
    const counts = [await nodes.count()];
    await stepUntil(page, "the cascade reaches the Deployment", async () => {
      const n = await nodes.count();
      if (n !== counts[counts.length - 1]) {
        counts.push(n);
        // The owner waits for its dependents: while anything is left, the Deployment is.
        if (n > 0) assert.equal(await graph.getByRole("img", { name: /^Deployment web/ }).count(), 1, `counts ${counts}`);
      }
      return n === 0;
    });
    assert.ok(counts.length >= 3, `several steps removed nodes one by one: ${counts}`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the owner graph shows garbage collection: a foreground owner waiting on its blocking dependents, finalizers, an orphaned ReplicaSet", async () => {
    const { context, page, problems } = await openSettled(WIDE);
    const graph = region(page, "Owner graph");
    const blocks = graph.getByText("blocks", { exact: true });
    await run(page, "kubectl create deployment web --image=nginx --replicas=2");
    await runUntilIdle(page);

    // Foreground: the Deployment waits behind its finalizer for the ReplicaSet, which blocks it.
    await run(page, "kubectl delete deploy web --cascade=foreground");
    const deploy = graph.getByRole("img", {
      name: /^Deployment web in namespace default, being deleted \(deletionTimestamp set\), finalizer foregroundDeletion, waiting for ReplicaSet web-[a-z0-9]+ \(blockOwnerDeletion\)$/,
    });
    await stepUntil(page, "the Deployment waits for its ReplicaSet", async () => (await deploy.count()) === 1);
    const box = await deploy.textContent();
    assert.match(box, /⊘ deletionTimestamp set/);
    assert.match(box, /⚑ foregroundDeletion/);
    assert.match(box, /waits for 1 dependent/);
    assert.equal(await blocks.count(), 1, "the ReplicaSet's reference is labelled: it blocks the Deployment");
    // The garbage collector deletes the ReplicaSet in the foreground too: it waits for both Pods.
    const rs = graph.getByRole("img", { name: /^ReplicaSet web-[a-z0-9]+ in namespace default, .*finalizer foregroundDeletion, waiting for Pod web-[a-z0-9-]+, Pod web-[a-z0-9-]+ \(blockOwnerDeletion\)$/ });
    await stepUntil(page, "the ReplicaSet waits for its Pods", async () => (await rs.count()) === 1);
    assert.equal(await blocks.count(), 3);
    // A deleted object is drawn once more in the step that deletes it, then goes.
    const deleted = graph.getByRole("img", { name: /, deleted in this step$/ });
    await stepUntil(page, "an object is deleted", async () => (await deleted.count()) > 0);
    await runUntilIdle(page);
    assert.equal(await graph.getByRole("img").count(), 0);

    // Orphan: the step that removes the ReplicaSet's reference draws it as removed.
    await run(page, "kubectl create deployment web --image=nginx --replicas=2");
    await runUntilIdle(page);
    await run(page, "kubectl delete deploy web --cascade=orphan");
    await graph.getByRole("img", { name: /^Deployment web in namespace default, being deleted \(deletionTimestamp set\), finalizer orphan$/ }).waitFor();
    const orphaned = graph.getByRole("img", {
      name: /^ReplicaSet web-[a-z0-9]+ in namespace default, orphaned: its ownerReference to Deployment web removed in this step$/,
    });
    await stepUntil(page, "the garbage collector orphans the ReplicaSet", async () => (await orphaned.count()) === 1);
    assert.equal(await graph.getByText("✕ removed", { exact: true }).count(), 1);
    assert.match(await orphaned.textContent(), /✕ orphaned: ref removed/);
    // Deleted in the same step: its last stored state still had the finalizer this step removed.
    const gone = graph.getByRole("img", { name: /^Deployment web in namespace default, deleted in this step, finalizer orphan removed$/ });
    assert.match(await gone.textContent(), /✕ deleted in this step.*⚑ orphan removed/);
    // The text alternative says the same.
    await graph.getByText("Owner graph as text").click();
    assert.equal(await graph.getByRole("listitem").filter({ hasText: "orphaned: its ownerReference to Deployment web removed in this step" }).count(), 1);
    // One step later the ReplicaSet stands alone, owned by nobody, and its Pods still under it.
    await page.getByRole("button", { name: "Step", exact: true }).click();
    await graph.getByRole("img", { name: /^ReplicaSet web-[a-z0-9]+ in namespace default$/ }).waitFor();
    assert.equal(await graph.getByText("✕ removed", { exact: true }).count(), 0);
    assert.equal(await graph.getByRole("img", { name: /^Pod web-[a-z0-9-]+ in namespace default, owned by ReplicaSet web-/ }).count(), 2);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("Objects shows a selected object's YAML with its key fields marked; Leases shows the holder", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, WIDE);
    await run(page, "kubectl create deployment web --image=nginx");
    const objects = region(page, "Objects");
    const row = objects.getByRole("button", { name: /^Deployment default\/web rv \d+/ });
    await row.click();
    assert.equal(await row.getAttribute("aria-pressed"), "true");
    const yaml = objects.getByRole("group", { name: "YAML of Deployment default/web" });
    const text = await yaml.innerText();
    assert.match(text, /resourceVersion: "\d+"/);
    assert.match(text, /generation: 1/);

    const leases = region(page, "Leases");
    await stepUntil(page, "a replica holds the controller-manager lease", async () =>
      (await leases.getByRole("listitem").filter({ hasText: "leader, acting" }).count()) === 1);
    const lease = leases.getByRole("row").filter({ hasText: "kube-system/kube-controller-manager" });
    assert.match(await lease.innerText(), /control-plane-[ab]_[0-9a-f-]+/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a 409 shows its two writers and what the loser did next; Edit loads an object into the editor", async () => {
    const { context, page, problems } = await openSettled(WIDE);
    await run(page, "kubectl create deployment web --image=nginx");
    await runUntilIdle(page);
    await run(page, "lab conflict kube-controller-manager-a");
    await run(page, "kubectl scale deployment web --replicas=2");
    await runUntilIdle(page);
    const conflicts = region(page, "Work queues").getByRole("group", { name: "Conflicts" });
    const item = conflicts.getByRole("listitem").first();
    const text = await item.innerText();
    assert.match(text, /Step \d+: 409 Conflict on \w+ default\/web/);
    assert.match(text, /wrote with resourceVersion \d+\. The stored resourceVersion was \d+, written by .+ at step \d+\./);
    assert.match(text, /Then, step \d+: /);

    const objects = region(page, "Objects");
    await objects.getByRole("button", { name: /^Deployment default\/web rv/ }).click();
    await objects.getByRole("button", { name: "Edit", exact: true }).click();
    const editor = page.getByRole("textbox", { name: "Manifest editor" });
    assert.match(await editor.inputValue(), /name: web/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the views work at 360 px", async () => {
    const { context, page, problems } = await openPage(browser, `${server.origin}/#/sandbox`, NARROW);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal page scroll at 360 px (overflow ${overflow}px)`);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
