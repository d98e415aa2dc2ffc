//! kubectl and `lab`: the command language of the console, lessons, embeds and transcripts.
//!
//! - [`console`]: the session ([`Console::execute`]) and what a command prints ([`Output`]),
//!   with the [`Continuation`]s (watches, waiting deletes) the world resumes as it advances.
//! - [`shell`], [`flags`], [`resources`]: from a typed line to kinds, names and flag values.
//! - [`get`], [`describe`], [`mutate`], [`rollout`], [`help`]: the verbs.
//! - [`printers`], [`table`], [`jsonpath`], [`gojson`], [`manifest`]: kubectl's output formats.
//! - [`apply_patch`]: client-side apply's three-way merge.
//! - [`transcript`]: the Markdown transcript runner used by `cargo test` and `reconcile-lab check`.

pub mod apply_patch;
pub mod cluster;
pub mod console;
pub mod describe;
pub mod flags;
pub mod get;
pub mod gojson;
pub mod help;
pub mod jsonpath;
pub mod lab;
pub mod manifest;
pub mod mutate;
pub mod printers;
pub mod resources;
pub mod rollout;
pub mod shell;
pub mod table;
pub mod transcript;

pub use console::{Console, Continuation, EditSession, Output};
