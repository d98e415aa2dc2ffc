//! The page (wasm32 only): Leptos components over the engine.

/// Mounts the page.
pub fn start() {}
