//! kubectl and `lab`: the command language of the console, lessons, embeds and transcripts.
//!
//! - [`console`]: the session ([`Console::execute`]), which dispatches each command line.
//! - [`cmd`]: what every command shares: its context, what it prints ([`Output`]), its errors.
//! - [`continuation`]: what kubectl keeps doing after a command ([`Continuation`]: watches,
//!   waiting deletes) and the world resumes as it advances.
//! - [`shell`], [`flags`], [`resources`]: from a typed line to kinds, names and flag values.
//! - [`commands`]: the one table of kubectl's verbs (name, help, flags, what each runs), which
//!   the console dispatches from and [`help`] and [`complete`] read.
//! - [`get`], [`describe`], [`events`], [`mutate`], [`rollout`], [`wait`]: the verbs.
//! - [`printers`], [`table`], [`jsonpath`], [`gojson`], [`manifest`]: kubectl's output formats.
//! - [`apply_patch`]: client-side apply's three-way merge.
//! - [`transcript`]: the Markdown transcript runner used by `cargo test` and `reconcile-lab check`.
//! - [`cluster`]: what kubectl talks to ([`World`](crate::engine::world::World) or a bare
//!   [`ApiServer`](crate::engine::apiserver::ApiServer)); [`lab`]: the simulation commands.
//!
//! Using it from the page (or any embedder):
//! ```
//! use reconcile_lab::engine::world::World;
//! use reconcile_lab::kubectl::Console;
//!
//! let mut world = World::new(1);
//! let mut console = Console::new();
//! console.set_file("web.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
//! let out = console.execute(&mut world, "kubectl apply -f web.yaml");
//! assert_eq!(out.stdout(), "configmap/web created\n");
//! assert_eq!(out.exit_code, 0);
//! // After the page steps the world itself, it lets running watches and waits print:
//! let _more = console.resume(&mut world);
//! ```

pub mod apply_patch;
pub mod cluster;
pub mod cmd;
pub mod commands;
pub mod complete;
pub mod console;
pub mod continuation;
pub mod describe;
pub mod events;
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
pub mod wait;

pub use cmd::{EditSession, Output, Stream};
pub use console::Console;
pub use continuation::Continuation;
