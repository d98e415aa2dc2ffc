//! The page (wasm32 only): Leptos components over the engine.
//!
//! Components stay thin: they render a view of the engine's state and send the learner's intents
//! to it; they never decide what the cluster does (see `/work/shared/STYLE.md`).
//!
//! - [`shell`]: the header and the labelled regions every later view fills.
//! - [`layout`]: which group of regions is shown on a narrow screen (a real ARIA tablist).
//! - [`panel`]: one labelled region (`role="region"` plus its accessible name).
//! - [`panic`]: a panic becomes a visible, friendly message in the page's `role="alert"` element.
//! - [`state`]: the reactive wiring around the [`crate::session::Session`].
//! - [`storage`]: local storage for saved progress, where every call may throw.
//! - [`recovery`]: the state kept outside the instance after every intent, for the crash panel.
//! - [`shortcuts`]: the keyboard shortcuts' dialog, and where a key press is a shortcut.
//! - [`copy`]: Copy buttons (the Clipboard API, "Copied", and words when it is refused).
//!
//! ## How panels get their data (read this before writing a panel)
//! The page talks to exactly one object, [`crate::session::Session`] (plain Rust, tested
//! natively in `src/session/`). The shell creates it once and wraps it in a [`state::Lab`]
//! (a `StoredValue` holding the session plus one version signal per [`state::Part`]), provided as
//! context: `let lab = state::use_lab();`.
//! - **Intents**: `lab.act(|s| s.step())`. After the closure, `act` compares the session's
//!   [`crate::session::Changes`] counters and bumps only the signals of the parts that moved.
//! - **Reads**: `lab.read(Part::Cluster, |s| ...)` subscribes to that part only. A panel builds a
//!   small owned, `PartialEq` view model in a `Memo` (`Memo::new(move |_| lab.read(Part::Cluster,
//!   |s| rows(s.world())))`): when a step leaves the panel's rows equal, the memo stops the change
//!   and nothing re-renders.
//! - **Lists** render with `<For each=... key=...>` keyed by a stable identity (object uid or
//!   `kind/ns/name`, watch event resourceVersion, queue key), so a step re-renders only the rows
//!   that changed. Long lists (the Timeline) are virtualised: only the rows in view exist.
//! - **Highlight**: `lab.read(Part::Cluster, |s| s.narration())` gives the current step's
//!   touched panels ([`crate::session::PanelId`]); the shell marks those regions (an outline and
//!   a visible "changed in this step" marker, not colour alone).
//! - Never call `act` inside `read` (the session is borrowed there); components never decide
//!   what the cluster does.

mod console;
mod copy;
mod editor;
pub mod embed;
mod layout;
mod lessons;
mod next;
mod panel;
mod panic;
mod recovery;
mod regions;
mod share;
mod shell;
mod shortcuts;
pub mod state;
mod stepping;
mod storage;
mod timeline;
pub mod views;

/// Mounts the page into its `<div id="app">` (index.html; public/boot.js calls this only when a
/// route needs the app): installs the panic hooks first, so that even a panic while mounting is
/// shown.
pub fn start() {
    use leptos::mount::{mount_to, mount_to_body};
    use wasm_bindgen::JsCast;
    panic::install();
    let target =
        leptos::prelude::document().get_element_by_id("app").and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    match (target, embed::is_embed()) {
        (Some(t), true) => mount_to(t, embed::Embed).forget(),
        (Some(t), false) => mount_to(t, lessons::App).forget(),
        (None, true) => mount_to_body(embed::Embed),
        (None, false) => mount_to_body(lessons::App),
    }
}
