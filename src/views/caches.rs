//! "Informer caches": each process's informer stores next to the API server's truth
//! (kubernetes-semantics.md §2: a cache lags the server by the events still in flight; a lister
//! read from it may be stale, which is why writes carry a resourceVersion).

use std::collections::BTreeMap;

use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::world::World;

use super::{object_key, Capped};

/// Rows shown per process; stale rows come first, so the cut only drops current ones.
pub const ROWS_SHOWN: usize = 60;

/// How a cached entry compares with the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Freshness {
    /// The cache holds an older resourceVersion than the server.
    Stale,
    /// The server has the object; the cache has not seen it yet.
    NotYetSeen,
    /// The cache still holds an object the server has deleted.
    Deleted,
    /// Same resourceVersion as the server.
    Current,
}

impl Freshness {
    /// The words shown next to the entry (never colour alone).
    pub fn label(self) -> &'static str {
        match self {
            Freshness::Stale => "stale",
            Freshness::NotYetSeen => "not yet seen",
            Freshness::Deleted => "deleted on the server",
            Freshness::Current => "up to date",
        }
    }

    /// A one-character icon shown with the label.
    pub fn icon(self) -> &'static str {
        match self {
            Freshness::Stale => "⚠",
            Freshness::NotYetSeen => "…",
            Freshness::Deleted => "✗",
            Freshness::Current => "✓",
        }
    }
}

/// One entry: a key in the cache, the server, or both.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheRow {
    /// `Pod`.
    pub kind: String,
    /// `default/web-abc12`.
    pub key: String,
    /// The cached resourceVersion, if cached.
    pub cached_rv: Option<u64>,
    /// The server's resourceVersion, if it exists there.
    pub server_rv: Option<u64>,
    /// The comparison.
    pub freshness: Freshness,
}

/// One process's caches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProcessCache {
    /// `kube-controller-manager-a`.
    pub process: String,
    /// Entries that are not [`Freshness::Current`].
    pub out_of_date: usize,
    /// The rows, out-of-date ones first, then by kind and key.
    pub rows: Capped<CacheRow>,
}

/// Compares one store with the server's objects of the same kind (both keyed `namespace/name`
/// with their resourceVersions).
pub fn compare(kind: &str, cached: &BTreeMap<String, u64>, server: &BTreeMap<String, u64>) -> Vec<CacheRow> {
    let mut rows = Vec::with_capacity(server.len().max(cached.len()));
    for (key, &s) in server {
        let c = cached.get(key).copied();
        let freshness = match c {
            None => Freshness::NotYetSeen,
            Some(c) if c < s => Freshness::Stale,
            Some(_) => Freshness::Current,
        };
        rows.push(CacheRow { kind: kind.into(), key: key.clone(), cached_rv: c, server_rv: Some(s), freshness });
    }
    for (key, &c) in cached {
        if !server.contains_key(key) {
            rows.push(CacheRow {
                kind: kind.into(),
                key: key.clone(),
                cached_rv: Some(c),
                server_rv: None,
                freshness: Freshness::Deleted,
            });
        }
    }
    rows
}

/// The caches of every process that holds any, with the server's view of the same kinds.
pub fn process_caches(world: &World) -> Vec<ProcessCache> {
    let mut server: BTreeMap<&'static str, BTreeMap<String, u64>> = BTreeMap::new();
    let mut out = Vec::new();
    for p in world.processes() {
        if p.caches.stores.is_empty() {
            continue;
        }
        let mut rows = Vec::new();
        for (kind_name, store) in &p.caches.stores {
            let truth = server.entry(kind_name).or_insert_with(|| {
                Kind::by_kind(kind_name)
                    .map(|k| {
                        world
                            .api()
                            .list_metadata(k, None)
                            .map(|(ns, name, m)| (object_key(ns, name), m.resource_version))
                            .collect()
                    })
                    .unwrap_or_default()
            });
            let cached: BTreeMap<String, u64> = store.iter().map(|(k, o)| (k.clone(), o.resource_version())).collect();
            rows.extend(compare(kind_name, &cached, truth));
        }
        rows.sort_by(|a, b| (a.freshness, &a.kind, &a.key).cmp(&(b.freshness, &b.kind, &b.key)));
        let out_of_date = rows.iter().filter(|r| r.freshness != Freshness::Current).count();
        out.push(ProcessCache { process: p.name.clone(), out_of_date, rows: Capped::new(rows, ROWS_SHOWN) });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::world::ActionKind;

    #[test]
    fn compare_marks_every_difference() {
        let cached: BTreeMap<String, u64> = [("d/a".into(), 5), ("d/b".into(), 7), ("d/gone".into(), 2)].into();
        let server: BTreeMap<String, u64> = [("d/a".into(), 9), ("d/b".into(), 7), ("d/new".into(), 11)].into();
        let rows = compare("Pod", &cached, &server);
        let got: Vec<(&str, Freshness, Option<u64>, Option<u64>)> =
            rows.iter().map(|r| (r.key.as_str(), r.freshness, r.cached_rv, r.server_rv)).collect();
        assert_eq!(
            got,
            vec![
                ("d/a", Freshness::Stale, Some(5), Some(9)),
                ("d/b", Freshness::Current, Some(7), Some(7)),
                ("d/new", Freshness::NotYetSeen, None, Some(11)),
                ("d/gone", Freshness::Deleted, Some(2), None),
            ]
        );
    }

    #[test]
    fn a_write_makes_the_cache_stale_until_its_event_arrives() {
        let mut w = crate::engine::world::World::new(1);
        w.run_until_idle(2000);
        w.create(super::super::watch::tests::deployment("web", 1)).unwrap();
        w.run_until_idle(5000);
        let caches = process_caches(&w);
        assert!(!caches.is_empty());
        assert!(caches.iter().all(|c| c.out_of_date == 0), "settled caches match the server");
        // Scale by hand: the leader's Deployment entry is now stale.
        let mut d = w.api().get(Kind::by_kind("Deployment").unwrap(), Some("default"), "web").unwrap();
        d["spec"]["replicas"] = 2.into();
        w.update(d).unwrap();
        let caches = process_caches(&w);
        let stale: Vec<&CacheRow> =
            caches.iter().flat_map(|c| c.rows.items.iter()).filter(|r| r.freshness == Freshness::Stale).collect();
        assert!(stale.iter().any(|r| r.kind == "Deployment" && r.key == "default/web"), "{stale:?}");
        assert!(stale.iter().all(|r| r.cached_rv < r.server_rv));
        // Stale rows are listed first.
        assert_ne!(caches.iter().find(|c| c.out_of_date > 0).unwrap().rows.items[0].freshness, Freshness::Current);
        while let Some(r) = w.step() {
            if r.action == ActionKind::DeliverEvent && r.objects.iter().any(|o| o.key == "default/web") {
                break;
            }
        }
        w.run_until_idle(5000);
        assert!(process_caches(&w).iter().all(|c| c.out_of_date == 0));
    }
}
