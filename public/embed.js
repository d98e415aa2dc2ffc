// Reconcile Lab for documentation pages. Include once, from where Reconcile Lab is hosted:
//
//   <script src="https://example.org/reconcile-lab/embed.js" defer></script>
//
// - Each <div data-reconcile-lab> becomes a playground: an iframe of embed.html (next to this
//   script, so it works under any sub-path) that sizes itself to its content. Its data-lesson,
//   data-step, data-state, data-panels, data-theme, data-readonly and data-autoplay attributes
//   become embed.html's query parameters.
// - Each <pre data-reconcile-lab-run> gets a "Run" button: its lines run in the playground named
//   by the attribute's value (an element id), or else the nearest playground before it (or the
//   first one after it), and the console's output appears under the block.
// - window.ReconcileLab.send(playground, message) sends any request of the protocol (run, step,
//   reset, load) and resolves with its result. docs/embed.md documents the protocol.
// - A playground first shows a start view ("Start the playground"): the app loads when the reader
//   presses it, or when this script has a request for it (it sends `start`, then the request once
//   the embed says `ready`).
//
// User text only ever goes into textContent, never into markup.
(() => {
  "use strict";
  if (window.ReconcileLab) return;

  const SOURCE = "reconcile-lab";
  const script = document.currentScript;
  const embedUrl = new URL("embed.html", script && script.src ? script.src : document.baseURI);
  const ATTRIBUTES = ["lesson", "step", "state", "panels", "theme", "readonly", "autoplay"];

  /** Every playground on the page: { div, iframe, ready, standby, started, queue, pending } */
  const playgrounds = [];
  let nextId = 1;

  function makePlayground(div) {
    const url = new URL(embedUrl);
    for (const name of ATTRIBUTES) {
      const value = div.getAttribute("data-" + name);
      if (value !== null) url.searchParams.set(name, value);
    }
    const iframe = document.createElement("iframe");
    iframe.src = url.href;
    iframe.title = div.getAttribute("data-title") || "Reconcile Lab playground";
    iframe.className = "reconcile-lab-frame";
    // The embed's Share button copies a link (it says so, and shows the link, if not allowed).
    iframe.allow = "clipboard-write";
    // Set through the CSSOM, which a strict style-src allows (a style attribute it would not).
    iframe.style.width = "100%";
    iframe.style.height = "480px";
    iframe.style.border = "0";
    iframe.style.display = "block";
    div.replaceChildren(iframe);
    const p = { div, iframe, ready: false, standby: false, started: false, queue: [], pending: new Map() };
    playgrounds.push(p);
    return p;
  }

  function playgroundOf(target) {
    if (target instanceof Element) {
      return playgrounds.find((p) => p.div === target || p.iframe === target);
    }
    return undefined;
  }

  function post(p, message) {
    // Only to the embed's own origin: nothing else can read what the page sends.
    p.iframe.contentWindow.postMessage(message, embedUrl.origin);
  }

  /** Asks an embed that shows its start view to load the app (once); `ready` follows. */
  function startIfWaiting(p) {
    if (p.standby && !p.started && !p.ready) {
      p.started = true;
      post(p, { source: SOURCE, version: 1, type: "start" });
    }
  }

  /** Sends a request; resolves with the result ({ok, output}). */
  function send(target, request) {
    const p = playgroundOf(target);
    if (!p) return Promise.reject(new Error("not a Reconcile Lab playground"));
    const id = "r" + nextId++;
    const message = Object.assign({}, request, { source: SOURCE, version: 1, id });
    return new Promise((resolve) => {
      p.pending.set(id, resolve);
      if (p.ready) post(p, message);
      else {
        p.queue.push(message);
        startIfWaiting(p);
      }
    });
  }

  window.addEventListener("message", (event) => {
    if (event.origin !== embedUrl.origin) return;
    const p = playgrounds.find((x) => x.iframe.contentWindow === event.source);
    const data = event.data;
    if (!p || !data || typeof data !== "object" || data.source !== SOURCE) return;
    switch (data.type) {
      case "standby":
        // The start view is up; start it now if a request is already waiting.
        p.standby = true;
        if (p.queue.length > 0) startIfWaiting(p);
        break;
      case "ready":
        p.ready = true;
        for (const m of p.queue.splice(0)) post(p, m);
        break;
      case "resize":
        if (Number.isFinite(data.height) && data.height > 0) {
          p.iframe.style.height = Math.min(Math.ceil(data.height), 20000) + "px";
        }
        break;
      case "result": {
        const resolve = p.pending.get(data.id);
        if (resolve) {
          p.pending.delete(data.id);
          resolve({ ok: data.ok === true, output: String(data.output ?? "") });
        }
        break;
      }
      case "goal":
        p.div.dispatchEvent(
          new CustomEvent("reconcile-lab-goal", { detail: { lesson: data.lesson, goal: data.goal } }),
        );
        break;
    }
  });

  /** The playground a snippet runs in: named by id, else the nearest before it, else after. */
  function playgroundFor(pre) {
    const named = pre.getAttribute("data-reconcile-lab-run");
    if (named) {
      const el = document.getElementById(named);
      const p = el && playgroundOf(el);
      if (p) return p;
    }
    let before;
    for (const p of playgrounds) {
      const position = pre.compareDocumentPosition(p.div);
      if (position & Node.DOCUMENT_POSITION_PRECEDING) before = p;
      else if (!before) return p;
    }
    return before;
  }

  /** The snippet's commands: its text, with a leading "$ " prompt taken off each line. */
  function commandsOf(pre) {
    return pre.textContent
      .split("\n")
      .map((line) => line.replace(/^\$ /, ""))
      .join("\n")
      .trim();
  }

  let snippetCount = 0;
  function makeRunButton(pre) {
    if (!pre.id) pre.id = "reconcile-lab-snippet-" + ++snippetCount;
    const bar = document.createElement("div");
    bar.className = "reconcile-lab-run";
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Run";
    button.setAttribute("aria-describedby", pre.id);
    const output = document.createElement("pre");
    output.className = "reconcile-lab-output";
    output.setAttribute("role", "status");
    output.setAttribute("aria-live", "polite");
    output.hidden = true;
    button.addEventListener("click", async () => {
      const p = playgroundFor(pre);
      output.hidden = false;
      if (!p) {
        output.textContent = "There is no Reconcile Lab playground on this page to run this in.";
        return;
      }
      button.disabled = true;
      output.textContent = "Running…";
      const result = await send(p.div, { type: "run", command: commandsOf(pre) });
      output.textContent = result.output === "" ? "(no output)" : result.output;
      output.classList.toggle("reconcile-lab-output--failed", !result.ok);
      button.disabled = false;
    });
    bar.append(button);
    pre.after(bar, output);
  }

  function start() {
    for (const div of document.querySelectorAll("div[data-reconcile-lab]")) makePlayground(div);
    for (const pre of document.querySelectorAll("pre[data-reconcile-lab-run]")) makeRunButton(pre);
  }

  window.ReconcileLab = { send, embedUrl: embedUrl.href };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
