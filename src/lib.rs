//! Reconcile Lab: a miniature Kubernetes API server, client machinery and controllers that run
//! one step at a time, plus the kubectl-like console that drives them and the page that shows them.
//!
//! The folder tree is the architecture:
//! - [`engine`]: plain Rust, deterministic, tested natively (no web APIs inside).
//! - [`kubectl`]: the console's command language (kubectl and `lab`), over the engine.
//! - [`yaml`]: manifests in, `-o yaml` out.
//! - `web` (wasm32 only): the Leptos page, thin components over the engine.

pub mod embed;
pub mod engine;
pub mod kubectl;
pub mod lessons;
pub mod session;
pub mod site;
pub mod sort;
pub mod views;
pub mod yaml;

#[cfg(target_arch = "wasm32")]
pub mod web;
