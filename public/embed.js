// Reconcile Lab for documentation pages. Include once, from where Reconcile Lab is hosted:
//
//   <script src="https://example.org/reconcile-lab/embed.js" defer></script>
//
// - Each <div data-reconcile-lab> becomes a playground: an iframe of embed.html (next to this
//   script, so it works under any sub-path), loaded lazily (when it nears the viewport, or when a
//   Run button needs it), that sizes itself to its content. Its data-lesson, data-step,
//   data-state, data-panels, data-theme, data-readonly, data-load and data-autoplay attributes
//   become embed.html's query parameters.
// - Each <pre data-reconcile-lab-run> gets a "Run" button: its lines run in the playground named
//   by the attribute's value (an element id), or else the nearest playground before it (or the
//   first one after it), and the console's output appears under the block.
// - window.ReconcileLab.send(playground, message) sends any request of the protocol (run, step,
//   reset, load) and resolves with its result. docs/embed.md documents the protocol.
// - window.ReconcileLab.scan() looks again: for a single-page site whose pages change without a
//   reload (docs/embed.md shows it with Docusaurus), it makes the new playgrounds and Run buttons
//   and forgets the playgrounds that left the page.
// - A playground first shows a start view ("Start the playground"): the app loads when the reader
//   presses it, or when this script has a request for it (it sends `start`, then the request once
//   the embed says `ready`).
// - Nothing waits forever: an embed that cannot start says `error` (with why), and one that says
//   nothing at all (a wrong address, a host that refuses framing, a connection that died) is given
//   up after a while; every request waiting for it is answered `ok: false` with the reason, and
//   the Run buttons show it. The next request tries again.
//
// User text only ever goes into textContent, never into markup.
(() => {
  "use strict";
  if (window.ReconcileLab) return;

  const SOURCE = "reconcile-lab";
  const script = document.currentScript;
  const embedUrl = new URL("embed.html", script && script.src ? script.src : document.baseURI);
  const ATTRIBUTES = ["lesson", "step", "state", "panels", "theme", "readonly", "load", "autoplay"];
  // A frame whose page has loaded but which has said nothing for this long is not a playground
  // (the embed posts `standby` or `loading` as soon as its page is parsed).
  const SILENT_AFTER_LOAD_MS = 10_000;
  // A playground that is starting says how its download goes several times a second, and gives up
  // by itself after 30 seconds without data: this long without a word means it is gone.
  const SILENT_WHILE_STARTING_MS = 60_000;

  /** Every playground on the page. */
  const playgrounds = [];
  /** The elements already made into playgrounds or given a Run button. */
  const made = new WeakSet();
  let nextId = 1;

  function makePlayground(div) {
    made.add(div);
    const url = new URL(embedUrl);
    for (const name of ATTRIBUTES) {
      const value = div.getAttribute("data-" + name);
      if (value !== null) url.searchParams.set(name, value);
    }
    const iframe = document.createElement("iframe");
    // Before src: a playground far down the page costs nothing until the reader nears it.
    iframe.loading = "lazy";
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
    const p = {
      div,
      iframe,
      heard: false, // the frame has said anything at all
      loaded: false, // the frame's page has loaded
      ready: false,
      standby: false,
      started: false,
      broken: false, // gave up on it: the next request reloads the frame
      crashed: null, // the embed's app stopped (its crash panel shows): why
      queue: [],
      pending: new Map(),
      progress: null, // the last `loading`: {loaded, total}
      watchers: new Set(), // Run buttons showing the start's progress
      timer: 0,
    };
    iframe.addEventListener("load", () => {
      p.loaded = true;
      watch(p);
    });
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
    p.iframe.contentWindow?.postMessage(message, embedUrl.origin);
  }

  /** Answers every request waiting for `p` with `ok: false` and why. */
  function failAll(p, why) {
    clearTimeout(p.timer);
    p.queue = [];
    for (const resolve of p.pending.values()) resolve({ ok: false, output: `error: ${why}\n` });
    p.pending.clear();
  }

  /** While requests wait for `p` to start, gives up when it stays silent too long. */
  function watch(p) {
    clearTimeout(p.timer);
    if (p.ready || p.pending.size === 0) return;
    if (!p.heard && !p.loaded) {
      // Not loaded yet (a slow network, or a lazy frame): its load event arms the shorter wait.
      p.timer = setTimeout(() => giveUp(p, "the playground did not load"), SILENT_WHILE_STARTING_MS);
      return;
    }
    const wait = p.heard ? SILENT_WHILE_STARTING_MS : SILENT_AFTER_LOAD_MS;
    p.timer = setTimeout(() => {
      giveUp(
        p,
        p.heard
          ? `the playground stopped answering while it started (nothing for ${wait / 1000} seconds)`
          : `the playground did not answer: is ${embedUrl.href} there, and may this page frame it?`,
      );
    }, wait);
  }

  function giveUp(p, why) {
    p.broken = true;
    failAll(p, why);
    for (const w of p.watchers) w();
  }

  /** Asks an embed that shows its start view to load the app (once per attempt); `ready` follows. */
  function startIfWaiting(p) {
    if (p.standby && !p.started && !p.ready) {
      p.started = true;
      post(p, { source: SOURCE, version: 1, type: "start" });
    }
  }

  /** Gets `p` going for a request: loads a lazy frame now, reloads one given up on, starts it. */
  function wake(p) {
    // A lazy frame out of view would never load: a request needs it now.
    if (p.iframe.loading === "lazy") p.iframe.loading = "eager";
    if (p.broken) {
      Object.assign(p, { broken: false, heard: false, loaded: false, standby: false, started: false, progress: null });
      p.iframe.src = p.iframe.src;
    }
    startIfWaiting(p);
  }

  /** Sends a request; resolves with the result ({ok, output}). */
  function send(target, request) {
    const p = playgroundOf(target);
    if (!p) return Promise.reject(new Error("not a Reconcile Lab playground"));
    if (p.crashed) return Promise.resolve({ ok: false, output: `error: ${p.crashed}\n` });
    const id = "r" + nextId++;
    const message = Object.assign({}, request, { source: SOURCE, version: 1, id });
    return new Promise((resolve) => {
      p.pending.set(id, resolve);
      if (p.ready) post(p, message);
      else {
        p.queue.push(message);
        wake(p);
        watch(p);
      }
    });
  }

  window.addEventListener("message", (event) => {
    if (event.origin !== embedUrl.origin) return;
    const p = playgrounds.find((x) => x.iframe.contentWindow === event.source);
    const data = event.data;
    if (!p || !data || typeof data !== "object" || data.source !== SOURCE) return;
    p.heard = true;
    switch (data.type) {
      case "standby":
        // The start view is up; start it now if a request is already waiting.
        p.standby = true;
        if (p.queue.length > 0) startIfWaiting(p);
        break;
      case "loading":
        p.progress = {
          loaded: Number(data.loaded) || 0,
          total: Number.isFinite(data.total) && data.total > 0 ? data.total : null,
        };
        for (const w of p.watchers) w();
        break;
      case "ready":
        p.ready = true;
        p.crashed = null;
        for (const m of p.queue.splice(0)) post(p, m);
        break;
      case "error": {
        const why = String(data.message ?? "the playground could not start");
        p.ready = false;
        p.started = false;
        if (data.retry === false) {
          // Its app stopped: the embed shows its crash panel, whose Reload starts it again.
          p.crashed = why;
        } else {
          // Its start view shows the error and Retry: the next request sends `start` again.
          p.standby = true;
        }
        failAll(p, why);
        for (const w of p.watchers) w();
        break;
      }
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
    watch(p);
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
    made.add(pre);
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
      output.classList.remove("reconcile-lab-output--failed");
      if (!p) {
        output.textContent = "There is no Reconcile Lab playground on this page to run this in.";
        return;
      }
      button.disabled = true;
      // Until the playground runs: how its start goes, from its `loading` messages.
      const waiting = () => {
        if (p.ready) output.textContent = "Running…";
        else if (p.progress?.total) {
          const pct = Math.min(100, Math.floor((p.progress.loaded * 100) / p.progress.total));
          output.textContent = `Starting the playground… ${pct}%`;
        } else output.textContent = "Starting the playground…";
      };
      waiting();
      p.watchers.add(waiting);
      const result = await send(p.div, { type: "run", command: commandsOf(pre) });
      p.watchers.delete(waiting);
      output.textContent = result.output === "" ? "(no output)" : result.output;
      output.classList.toggle("reconcile-lab-output--failed", !result.ok);
      button.disabled = false;
    });
    bar.append(button);
    pre.after(bar, output);
  }

  /** `root` itself when it matches `selector`, then its descendants that do. */
  function within(root, selector) {
    const self = root instanceof Element && root.matches(selector) ? [root] : [];
    return self.concat([...root.querySelectorAll(selector)]);
  }

  /**
   * Makes the playgrounds and Run buttons not made yet, in `root` (default: the whole page), and
   * forgets the playgrounds that are no longer in the page (their waiting requests are answered).
   * Returns how many of each it made. Safe to call as often as the page changes.
   */
  function scan(root = document) {
    for (let i = playgrounds.length - 1; i >= 0; i--) {
      const p = playgrounds[i];
      if (p.div.isConnected && p.div.contains(p.iframe)) continue;
      failAll(p, "the playground was removed from the page");
      playgrounds.splice(i, 1);
    }
    const found = { playgrounds: 0, snippets: 0 };
    for (const div of within(root, "div[data-reconcile-lab]")) {
      if (made.has(div)) continue;
      makePlayground(div);
      found.playgrounds += 1;
    }
    for (const pre of within(root, "pre[data-reconcile-lab-run]")) {
      if (made.has(pre)) continue;
      makeRunButton(pre);
      found.snippets += 1;
    }
    return found;
  }

  window.ReconcileLab = { send, scan, embedUrl: embedUrl.href };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => scan());
  else scan();
})();
