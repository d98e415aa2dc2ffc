//! The engine: everything that decides what the cluster does. Plain Rust, deterministic, no web
//! APIs, so that every rule is tested natively with `cargo test`.
//!
//! - [`time`]: the virtual clock's instants and Kubernetes' timestamp formats.
//! - [`rand`]: the one seeded random source (uids, generated names).
//! - [`kinds`]: the resource kinds the miniature serves, with their per-kind rules.
//! - [`object`]: reading and writing `metadata` on JSON objects.
//! - [`labels`]: label selectors (parse, print, match).
//! - [`status`]: `metav1.Status`, the API server's typed errors, with Kubernetes' exact messages.

pub mod frozen;
pub mod kinds;
pub mod labels;
pub mod object;
pub mod rand;
pub mod status;
pub mod time;

pub mod apiserver;
pub mod client;
pub mod controllers;
pub mod world;
