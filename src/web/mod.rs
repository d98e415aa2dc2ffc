//! The page (wasm32 only): Leptos components over the engine.
//!
//! Components stay thin: they render a view of the engine's state and send the learner's intents
//! to it; they never decide what the cluster does (see `/work/shared/STYLE.md`).
//!
//! - [`shell`]: the header and the labelled regions every later view fills.
//! - [`layout`]: which group of regions is shown on a narrow screen (a real ARIA tablist).
//! - [`panel`]: one labelled region (`role="region"` plus its accessible name).
//! - [`panic`]: a panic becomes a visible, friendly message in the page's `role="alert"` element.

mod layout;
mod panel;
mod panic;
mod shell;
pub mod views;

/// Mounts the page: installs the panic hooks first, so that even a panic while mounting is shown.
pub fn start() {
    panic::install();
    leptos::mount::mount_to_body(shell::Shell);
}
