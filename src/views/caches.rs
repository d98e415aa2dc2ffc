//! "Informer caches": each process's informer stores next to the API server's truth
//! (client-go `tools/cache/reflector.go`, `watchHandler`: a cache lags the server by the events
//! still in flight; a lister read from it may be stale, which is why writes carry a
//! resourceVersion).

use std::cmp::Ordering;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use crate::engine::client::store::Items;
use crate::engine::object::Shared;

use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::world::World;

use super::{object_key, Capped, Fnv};

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

/// The resourceVersions of the cached objects the last [`process_caches_with`] read, by the
/// address of their shared allocation (an informer cache holds the object its watch delivered, as
/// an `Arc`, until the next event for it replaces it).
///
/// Reading an object's resourceVersion walks its JSON (the top-level map, then `metadata`, then the
/// string), several scattered memory reads; doing it for every cached object of every process on
/// every step was most of this view's cost in the page at 1,000 pods. With the memo, only objects
/// that arrived since the previous call are read.
///
/// Invariant: every entry holds a clone of the `Arc` it is keyed by, so that allocation cannot be
/// freed and its address reused by another object while the entry exists; each call keeps only
/// the entries of objects still cached (at most one older version of an object is held a while).
#[derive(Default)]
pub struct RvMemo {
    /// By address: the object, its resourceVersion, and the pass that last read it.
    by_address: HashMap<usize, (Shared, u64, u64), BuildHasherDefault<Fnv>>,
    /// The number of the current [`process_caches_with`] call.
    pass: u64,
}

impl RvMemo {
    /// `object`'s resourceVersion, from `self` if it was read before; marks it read in this pass.
    fn read(&mut self, object: &Shared) -> u64 {
        let pass = self.pass;
        match self.by_address.entry(Arc::as_ptr(object) as usize) {
            Entry::Occupied(mut e) => {
                e.get_mut().2 = pass;
                e.get().1
            }
            Entry::Vacant(e) => {
                let rv = object.resource_version();
                e.insert((object.clone(), rv, pass));
                rv
            }
        }
    }

    /// Starts a pass: the entries it does not read are dropped by [`RvMemo::end_pass`].
    fn begin_pass(&mut self) {
        self.pass += 1;
    }

    /// Drops the entries of objects no longer cached (and so their `Arc`s).
    fn end_pass(&mut self) {
        let pass = self.pass;
        self.by_address.retain(|_, e| e.2 == pass);
    }
}

/// Compares the cache key `key` with `namespace/name` (`name` if cluster-scoped) as strings,
/// without building the second one.
fn cmp_key(key: &str, ns: &str, name: &str) -> Ordering {
    if ns.is_empty() {
        return key.cmp(name);
    }
    let (key, ns) = (key.as_bytes(), ns.as_bytes());
    let n = key.len().min(ns.len());
    match key[..n].cmp(&ns[..n]) {
        Ordering::Equal if key.len() <= ns.len() => Ordering::Less,
        Ordering::Equal => match key[n].cmp(&b'/') {
            Ordering::Equal => key[n + 1..].cmp(name.as_bytes()),
            other => other,
        },
        other => other,
    }
}

/// One object on the server: namespace ("" if cluster-scoped), name, resourceVersion.
type ServerEntry<'a> = (&'a str, &'a str, u64);

/// The bytes of the cache key `namespace/name` (or `name`), without building the string.
fn key_bytes<'a>(ns: &'a str, name: &'a str) -> impl Iterator<Item = u8> + 'a {
    let sep: &[u8] = if ns.is_empty() { b"" } else { b"/" };
    ns.bytes().chain(sep.iter().copied()).chain(name.bytes())
}

/// The server's objects of one kind, sorted the way the caches sort their keys (as the strings
/// `namespace/name`: `a-b/x` sorts before `a/x`, unlike the server's namespace-then-name order).
/// Read from the metadata listing; nothing is decoded or copied.
fn server_entries<'a>(world: &'a World, kind_name: &str) -> Vec<ServerEntry<'a>> {
    let Some(kind) = Kind::by_kind(kind_name) else { return Vec::new() };
    let mut entries: Vec<ServerEntry<'a>> =
        world.api().list_metadata(kind, None).map(|(ns, name, m)| (ns, name, m.resource_version)).collect();
    crate::sort::sort_by(&mut entries, |a, b| {
        // Within a namespace (nearly every comparison), the names decide.
        if a.0 == b.0 {
            a.1.cmp(b.1)
        } else {
            key_bytes(a.0, a.1).cmp(key_bytes(b.0, b.1))
        }
    });
    entries
}

/// One process's comparison, building rows only for what is shown: every out-of-date entry is
/// counted, and rows are made for them and for the first [`ROWS_SHOWN`] current ones. The same
/// rows as [`compare`] over every kind, sorted by freshness, kind and key, then cut.
fn process_rows<'a>(
    stores: impl Iterator<Item = (&'a str, &'a Items, &'a [ServerEntry<'a>])>,
    rvs: &mut RvMemo,
) -> (usize, Capped<CacheRow>) {
    let mut out_of_date = Vec::new();
    let mut current = Vec::new();
    let mut total = 0;
    for (kind, cached, server) in stores {
        let mut c = cached.iter().peekable();
        let mut s = server.iter().peekable();
        loop {
            // Both sides are sorted by key: one merge pass. `from_cache` is the entry's key when
            // the cache holds it (else it is built from the server's namespace and name).
            let order = match (c.peek(), s.peek()) {
                (None, None) => break,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some((ck, _)), Some((ns, name, _))) => cmp_key(ck, ns, name),
            };
            let (from_cache, c_rv, s_entry) = match order {
                Ordering::Equal => {
                    let (ck, cv) = c.next().expect("peeked");
                    (Some(ck), Some(rvs.read(cv)), s.next())
                }
                Ordering::Less => {
                    let (ck, cv) = c.next().expect("peeked");
                    (Some(ck), Some(rvs.read(cv)), None)
                }
                Ordering::Greater => (None, None, s.next()),
            };
            let s_rv = s_entry.map(|e| e.2);
            total += 1;
            let freshness = match (c_rv, s_rv) {
                (Some(c), Some(s)) if c < s => Freshness::Stale,
                (Some(_), Some(_)) => Freshness::Current,
                (None, _) => Freshness::NotYetSeen,
                (Some(_), None) => Freshness::Deleted,
            };
            let shown = freshness != Freshness::Current || current.len() < ROWS_SHOWN;
            if !shown {
                continue;
            }
            let key = match (from_cache, s_entry) {
                (Some(k), _) => k.to_string(),
                (None, Some((ns, name, _))) => object_key(ns, name),
                (None, None) => continue,
            };
            let row = CacheRow { kind: kind.to_string(), key, cached_rv: c_rv, server_rv: s_rv, freshness };
            if freshness == Freshness::Current {
                current.push(row);
            } else {
                out_of_date.push(row);
            }
        }
    }
    let count = out_of_date.len();
    crate::sort::sort_by(&mut out_of_date, |a, b| (a.freshness, &a.kind, &a.key).cmp(&(b.freshness, &b.kind, &b.key)));
    out_of_date.truncate(ROWS_SHOWN);
    let room = ROWS_SHOWN - out_of_date.len();
    out_of_date.extend(current.into_iter().take(room));
    (count, Capped { items: out_of_date, total })
}

/// The caches of every process that holds any, with the server's view of the same kinds.
///
/// Cost: one metadata listing per kind (nothing decoded), then one merge pass per process and
/// kind; rows are built only for the entries shown.
pub fn process_caches(world: &World) -> Vec<ProcessCache> {
    process_caches_with(world, &mut RvMemo::default())
}

/// [`process_caches`], reading the resourceVersions of objects already seen by an earlier call
/// from `rvs` (the page keeps one across steps).
pub fn process_caches_with(world: &World, rvs: &mut RvMemo) -> Vec<ProcessCache> {
    rvs.begin_pass();
    let mut server: BTreeMap<&'static str, Vec<ServerEntry<'_>>> = BTreeMap::new();
    for p in world.processes() {
        for (kind_name, _) in p.caches.stores() {
            server.entry(kind_name).or_insert_with(|| server_entries(world, kind_name));
        }
    }
    let out = world
        .processes()
        .iter()
        .filter(|p| !p.caches.is_empty())
        .map(|p| {
            let all = p.caches.stores();
            let stores = all
                .iter()
                .map(|(kind, store)| (*kind, *store, server.get(kind).map(Vec::as_slice).unwrap_or_default()));
            let (out_of_date, rows) = process_rows(stores, rvs);
            ProcessCache { process: p.name.clone(), out_of_date, rows }
        })
        .collect::<Vec<_>>();
    rvs.end_pass();
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

    /// What `process_caches` computes, the plain way: every row through [`compare`], sorted, cut.
    fn naive(world: &World) -> Vec<ProcessCache> {
        let mut out = Vec::new();
        for p in world.processes().iter().filter(|p| !p.caches.is_empty()) {
            let mut rows = Vec::new();
            for (kind, store) in &p.caches.stores() {
                let server: BTreeMap<String, u64> =
                    server_entries(world, kind).into_iter().map(|(ns, n, rv)| (object_key(ns, n), rv)).collect();
                let cached: BTreeMap<String, u64> =
                    store.iter().map(|(k, o)| (k.to_string(), o.resource_version())).collect();
                rows.extend(compare(kind, &cached, &server));
            }
            crate::sort::sort_by(&mut rows, |a, b| (a.freshness, &a.kind, &a.key).cmp(&(b.freshness, &b.kind, &b.key)));
            let out_of_date = rows.iter().filter(|r| r.freshness != Freshness::Current).count();
            out.push(ProcessCache { process: p.name.clone(), out_of_date, rows: Capped::new(rows, ROWS_SHOWN) });
        }
        out
    }

    #[test]
    fn cmp_key_orders_like_the_joined_string() {
        let keys = ["", "a", "a/", "a/b", "a-b/x", "a/x", "ab/x", "b", "default/web", "default-b/web", "default/"];
        let parts = [
            ("", "a"),
            ("a", ""),
            ("a", "b"),
            ("a", "x"),
            ("a-b", "x"),
            ("ab", "x"),
            ("default", "web"),
            ("default-b", "web"),
            ("", "default"),
        ];
        for key in keys {
            for (ns, name) in parts {
                let joined = object_key(ns, name);
                assert_eq!(cmp_key(key, ns, name), key.cmp(joined.as_str()), "{key:?} vs {joined:?}");
            }
        }
    }

    #[test]
    fn the_memo_forgets_objects_no_longer_cached() {
        let mut w = crate::engine::world::World::new(5);
        w.run_until_idle(2000);
        let mut rvs = RvMemo::default();
        process_caches_with(&w, &mut rvs);
        let cached: usize =
            w.processes().iter().flat_map(|p| p.caches.stores().into_iter().map(|(_, s)| s)).map(BTreeMap::len).sum();
        assert!(rvs.by_address.len() <= cached && !rvs.by_address.is_empty(), "{} of {cached}", rvs.by_address.len());
        w.create(super::super::watch::tests::deployment("web", 3)).unwrap();
        w.run_until_idle(5000);
        process_caches_with(&w, &mut rvs);
        let live: std::collections::HashSet<usize> = w
            .processes()
            .iter()
            .flat_map(|p| p.caches.stores().into_iter().map(|(_, s)| s))
            .flat_map(|s| s.values().map(|o| Arc::as_ptr(o) as usize))
            .collect();
        assert!(rvs.by_address.keys().all(|a| live.contains(a)), "only objects still cached are held");
        assert_eq!(rvs.by_address.len(), live.len());
    }

    #[test]
    fn the_merge_gives_the_rows_of_compare_at_every_step() {
        let mut w = crate::engine::world::World::new(3);
        w.run_until_idle(2000);
        // Two namespaces whose keys sort differently as strings and as (namespace, name).
        w.create(serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default-b"}}))
            .unwrap();
        let mut d = super::super::watch::tests::deployment("web", 40);
        w.create(d.clone()).unwrap();
        d["metadata"]["namespace"] = "default-b".into();
        w.create(d).unwrap();
        let mut checked = 0;
        // The page keeps one memo across steps: what it reads from there must be what is cached.
        let mut rvs = RvMemo::default();
        for _ in 0..1500 {
            if w.step().is_none() {
                break;
            }
            let plain = naive(&w);
            assert_eq!(process_caches(&w), plain, "at step {}", w.history().len());
            assert_eq!(process_caches_with(&w, &mut rvs), plain, "memo, at step {}", w.history().len());
            checked += 1;
        }
        assert!(checked > 500, "{checked}");
        assert!(process_caches(&w).iter().any(|c| c.rows.total > ROWS_SHOWN), "the cut was exercised");
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
