//! The embed (`embed.html`): a compact Reconcile Lab inside someone else's documentation page,
//! driven by that page through `postMessage`. Plain Rust, tested natively; the page side
//! (`src/web/embed.rs`) only reads the location, listens, and posts what this module returns.
//!
//! - [`params`]: the query parameters (`lesson`, `step`, `state`, `panels`, `theme`, `readonly`,
//!   `autoplay`), every malformed one ignored with a notice.
//! - [`protocol`]: the messages, validated as untrusted JSON, and what each request does to a
//!   [`crate::session::Session`].
//!
//! The protocol is documented for authors in `docs/embed.md`.

pub mod params;
pub mod protocol;

pub use params::{EmbedConfig, Theme};
pub use protocol::{Incoming, Request};
