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
//! values changed: every list goes through [`Rows`] (blocks keyed by their id, rows by their
//! value), one compiled keyed list for all of them.
//!
//! Every string reaches the DOM as a text node or an attribute value, never through `inner_html`
//! (issue 10: object names and labels are user text).

mod cloud;
mod graph;
mod leases;
mod map;
mod mount;
mod objects;
mod queues;
mod source;
mod watch;

pub use cloud::Cloud;
pub use graph::OwnerGraph;
pub use leases::Leases;
pub use map::{selection, ControlPlaneMap, MapSelection, Reveal};
pub use mount::{region_body, source};
pub use objects::Objects;
pub use queues::WorkQueues;
pub use source::WorldSource;
pub use watch::{InformerCaches, WatchEvents};

use leptos::prelude::*;

use crate::views::caches::CacheRow;
use crate::views::cloud::CloudBucketView;
use crate::views::conflicts::ConflictView;
use crate::views::leases::{LeaseView, ReplicaView};
use crate::views::objects::ObjectRow;
use crate::views::watch::WatchEventRow;

/// One row of a machinery view's keyed list: every list goes through [`Rows`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Item {
    /// A block's id (a kind, a process, `process/kind`), a queue's key as shown, or one line of
    /// text a block reads from its model (a state, a summary, a note).
    Text(String),
    /// A row of the Objects list.
    Object(ObjectRow),
    /// A row of a process's cache table.
    Cache(CacheRow),
    /// A watch event, delivered or in flight.
    Event(WatchEventRow),
    /// A 409 in the Conflicts list.
    Conflict(ConflictView),
    /// A Lease.
    Lease(LeaseView),
    /// A controller-manager replica.
    Replica(ReplicaView),
    /// An external bucket.
    Bucket(CloudBucketView),
    /// A watch stream of the Control plane map.
    Stream(crate::views::map::Stream),
}

/// The items of a list model, for [`Rows`].
fn items<T: Clone + Send + Sync + 'static>(model: Memo<Vec<T>>, item: fn(T) -> Item) -> Memo<Vec<Item>> {
    Memo::new(move |_| model.with(|m| m.iter().cloned().map(item).collect()))
}

/// A keyed list whose rows are keyed by their whole value: a step rebuilds only the rows whose
/// values changed (the others keep their elements), and the blocks keyed by id stay across steps.
///
/// One component, one item type and a type-erased `render` for every list of these views: each
/// distinct `<For>` compiles its own copy of Leptos' keyed diff into the wasm (a few KB each),
/// and the first load is over its budget already.
#[component]
fn Rows(
    /// The rows, in order.
    items: Memo<Vec<Item>>,
    /// Builds one row's view.
    render: UnsyncCallback<Item, AnyView>,
) -> impl IntoView {
    view! { <For each=move || items.with(|i| numbered(i)) key=Clone::clone children=move |(_, item)| render.run(item) /> }
}

/// Rows paired with how many equal rows came before them, so that keys stay unique even if two
/// rows read the same. The lists are capped (at most a hundred rows), so the quadratic count
/// costs microseconds.
fn numbered(rows: &[Item]) -> Vec<(usize, Item)> {
    rows.iter().enumerate().map(|(i, r)| (rows[..i].iter().filter(|p| *p == r).count(), r.clone())).collect()
}
