//! View models of the machinery: plain data computed from the [`World`] by pure functions, one
//! module per panel of the page (issue 6, "Views of the machinery"). The Leptos components in
//! `web::views` only render these values; everything a panel decides (what is stale, which key
//! collapsed a burst, who won a 409, where a graph node sits) is decided here and tested natively.
//!
//! - [`watch`]: "Watch events": per informer, the events delivered and those still in flight.
//! - [`caches`]: "Informer caches": each process's cache next to the API server's truth.
//! - [`queues`]: "Work queues": waiting, processing, dirty and delayed keys per controller.
//! - [`conflicts`]: the Conflicts view: every 409, its two writers and what the loser did next.
//! - [`graph`]: "Owner graph": nodes, ownerReference edges, deletion states, a layered layout.
//! - [`objects`]: "Objects": everything stored, and one object's YAML with its key fields marked.
//! - [`leases`]: "Leases": the Lease records and which controller-manager replica acts.
//! - [`cloud`]: "Cloud": the external buckets and which ones leaked.
//! - [`map`]: "Control plane": the whole control plane as one picture, laid out here, with what
//!   the last step moved; selecting one of its parts filters the panels above to it.
//!
//! Long lists are capped ([`Capped`]) and say so ("showing 200 of 1,000"), so that a step with
//! thousands of pods still renders within a frame. The views that cover every object (the owner
//! graph, the caches' truth, the object list) read the API server's metadata listing
//! (`ApiServer::list_metadata`), which decodes nothing; `cargo bench --bench page` prints what
//! each model costs per step at 100, 1,000 and 5,000 pods.
//!
//! [`World`]: crate::engine::world::World

pub mod caches;
pub mod cloud;
pub mod conflicts;
pub mod graph;
pub mod leases;
pub mod map;
pub mod objects;
pub mod queues;
pub mod watch;

use std::hash::Hasher;

use crate::engine::object::meta_namespace_key;
use crate::engine::world::record::StepRecord;

/// FNV-1a, for the views' hash maps that are looked up thousands of times a step at scale (the
/// owner graph's uids, the caches' object addresses): the standard library's SipHash is keyed
/// against hostile input, which a learner's own cluster is not, and cost several times as much.
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// How many of the latest step records the views scan for history (delivered events, handler
/// adds, conflicts). Bounds the cost of a view per step however long the session runs.
pub const HISTORY_WINDOW: usize = 500;

/// A list cut to at most a cap, remembering how long it was.
///
/// Invariant: `items.len() <= total`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Capped<T> {
    /// The items shown, at most the cap.
    pub items: Vec<T>,
    /// How many there were before the cut.
    pub total: usize,
}

impl<T> Capped<T> {
    /// Keeps the first `cap` items of `all`.
    pub fn new(mut all: Vec<T>, cap: usize) -> Capped<T> {
        let total = all.len();
        all.truncate(cap);
        Capped { items: all, total }
    }

    /// `Some("showing 200 of 1,000")` when items were left out.
    pub fn note(&self) -> Option<String> {
        (self.items.len() < self.total)
            .then(|| format!("showing {} of {}", thousands(self.items.len()), thousands(self.total)))
    }
}

impl<T> Default for Capped<T> {
    fn default() -> Self {
        Capped { items: Vec::new(), total: 0 }
    }
}

/// `1000` -> `"1,000"`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The `namespace/name` key of an object (`name` alone for a cluster-scoped one, whose namespace
/// is ""), as `ObjectExt::key` makes it, from a metadata listing.
pub fn object_key(namespace: &str, name: &str) -> String {
    meta_namespace_key((!namespace.is_empty()).then_some(namespace), name)
}

/// The latest [`HISTORY_WINDOW`] records, oldest first.
pub fn recent(history: &[StepRecord]) -> &[StepRecord] {
    &history[history.len().saturating_sub(HISTORY_WINDOW)..]
}

/// The `(kind, key)` pairs the last step touched, for the panels' "changed at this step" marks.
pub fn touched_by_last_step(history: &[StepRecord]) -> Vec<(String, String)> {
    history.last().map(|r| r.objects.iter().map(|o| (o.kind.clone(), o.key.clone())).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn capped_says_what_it_left_out() {
        let c = Capped::new((0..1000).collect::<Vec<_>>(), 200);
        assert_eq!(c.items.len(), 200);
        assert_eq!(c.note().as_deref(), Some("showing 200 of 1,000"));
        assert_eq!(Capped::new(vec![1, 2], 5).note(), None);
    }
}
