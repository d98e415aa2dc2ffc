//! The machinery views (issue 6): one component per region, each rendering a view model from
//! `crate::views` (computed natively and tested there) and nothing else.
//!
//! Wiring, for the page core:
//! ```ignore
//! let source = WorldSource::new(version.into(), move |f| session.with_value(|s| f(s.world())));
//! view! {
//!     <Panel title="Watch events"><WatchEvents source /></Panel>
//!     <Panel title="Informer caches"><InformerCaches source /></Panel>
//!     <Panel title="Work queues"><WorkQueues source /></Panel>   // includes the Conflicts view
//!     <Panel title="Owner graph"><OwnerGraph source /></Panel>
//!     <Panel title="Objects"><Objects source on_edit /></Panel>
//!     <Panel title="Leases"><Leases source /></Panel>
//!     <Panel title="Cloud"><Cloud source /></Panel>
//! }
//! ```
//! `version` is any signal that changes whenever the world does (a step, a command, step back);
//! each panel recomputes its model in a memo on that signal and re-renders only the rows whose
//! values changed (keyed lists keyed by the row's value).
//!
//! Every string reaches the DOM as a text node or an attribute value, never through `inner_html`
//! (issue 10: object names and labels are user text).

mod cloud;
mod graph;
mod leases;
mod mount;
mod objects;
mod queues;
mod source;
mod watch;

pub use cloud::Cloud;
pub use graph::OwnerGraph;
pub use leases::Leases;
pub use mount::{region_body, source};
pub use objects::Objects;
pub use queues::WorkQueues;
pub use source::WorldSource;
pub use watch::{InformerCaches, WatchEvents};

/// Rows paired with how many equal rows came before them: unique keys for a `<For>` keyed by the
/// whole row, so that a step rebuilds only the rows whose values changed (a row that reads the
/// same keeps its elements) even if two rows happen to read the same. The lists are capped (at
/// most a hundred rows), so the quadratic count costs microseconds.
fn numbered<T: Clone + PartialEq>(rows: &[T]) -> Vec<(usize, T)> {
    rows.iter().enumerate().map(|(i, r)| (rows[..i].iter().filter(|p| *p == r).count(), r.clone())).collect()
}
