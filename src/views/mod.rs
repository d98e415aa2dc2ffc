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
//!
//! Long lists are capped ([`Capped`]) and say so ("showing 200 of 1,000"), so that a step with
//! thousands of pods still renders within a frame.
//!
//! [`World`]: crate::engine::world::World

pub mod caches;
pub mod cloud;
pub mod conflicts;
pub mod graph;
pub mod leases;
pub mod objects;
pub mod queues;
pub mod watch;

use crate::engine::world::record::StepRecord;

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

/// The cost of every view model at scale: `cargo test --release --lib views::scale -- --ignored --nocapture`.
///
/// Known to fail today (about 170 ms natively): `ApiServer::list` decodes each stored object from
/// its JSON text (about 50 µs a pod), and the caches, graph and objects views each list the pods.
/// The fix is a cheap metadata listing in the API server (key, resourceVersion, uid, owners,
/// deletion state) or one decoded listing per world version shared by the three views.
#[cfg(test)]
mod scale {
    use std::time::Instant;

    use crate::engine::world::World;

    #[test]
    #[ignore = "timing: run with --release --ignored"]
    fn every_view_of_a_thousand_pods_fits_a_frame() {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        // 1,000 pods created at once (their events still in flight to every informer: the
        // largest lists the views handle).
        for i in 0..1000 {
            let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("p-{i:04}"), "namespace": "default", "labels": {"app": "p"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
            w.create(pod).unwrap();
        }
        let pods = w
            .api()
            .list(
                crate::engine::kinds::Kind::by_kind("Pod").unwrap(),
                None,
                &crate::engine::labels::Selector::everything(),
            )
            .unwrap()
            .items
            .len();
        assert_eq!(pods, 1000);
        w.step();
        let t = Instant::now();
        let touched = super::touched_by_last_step(w.history());
        let timings = [
            ("watch", time(|| super::watch::watch_streams(&w).len())),
            ("caches", time(|| super::caches::process_caches(&w).len())),
            ("queues", time(|| super::queues::queue_views(&w).len())),
            ("conflicts", time(|| super::conflicts::conflicts(&w).len())),
            ("graph", time(|| super::graph::owner_graph(&w, &touched).nodes.items.len())),
            ("objects", time(|| super::objects::object_groups(&w, &touched).len())),
            ("leases", time(|| super::leases::leases(&w).len())),
            ("cloud", time(|| super::cloud::cloud_buckets(&w).len())),
        ];
        let total = t.elapsed();
        for (name, ms) in timings {
            eprintln!("{name:>10}: {ms:.2} ms");
        }
        eprintln!("{:>10}: {:.2} ms", "all", total.as_secs_f64() * 1000.0);
        assert!(total.as_millis() < 16, "every view model of 1,000 pods within one frame natively");
    }

    fn time(f: impl FnOnce() -> usize) -> f64 {
        let t = Instant::now();
        std::hint::black_box(f());
        t.elapsed().as_secs_f64() * 1000.0
    }
}
