//! The engine: everything that decides what the cluster does. Plain Rust, deterministic, no web
//! APIs, so that every rule is tested natively with `cargo test`.
//!
//! - [`time`]: the virtual clock's instants and Kubernetes' timestamp formats.
//! - [`rand`]: the one seeded random source (uids, generated names).
//! - [`kinds`]: the resource kinds the miniature serves, with their per-kind rules.
//! - [`object`]: reading and writing `metadata` on JSON objects.
//! - [`labels`]: label selectors (parse, print, match).
//! - [`status`]: `metav1.Status`, the API server's typed errors, with Kubernetes' exact messages.
//!
//! On those, in layers (each uses only the ones before it):
//! - [`apiserver`]: the API server (admission, validation, strategies, the store, watches).
//! - [`cloud`]: the external cloud the Bucket controller manages, outside the API server.
//! - [`client`]: client-go's machinery (work queues, informers, leader election) and the client
//!   interface controllers call ([`client::Api`]).
//! - [`controllers`]: the controllers, the scheduler and the kubelet, on that machinery.
//! - [`world`]: the cluster's processes driven one step at a time, with the clock, the faults
//!   and the records.

pub mod frozen;
pub mod kinds;
pub mod labels;
pub mod object;
pub mod rand;
pub mod status;
pub mod time;

pub mod apiserver;
pub mod client;
pub mod cloud;
pub mod controllers;
pub mod world;
