//! Storage: every object of every kind in one ordered map, and the one global resourceVersion
//! (apiserver `pkg/storage/etcd3/store.go`: the resourceVersion is etcd's one revision counter
//! across all kinds).
//!
//! Keys sort as etcd's do (`/registry/<resource>/<namespace>/<name>`): by kind, then namespace,
//! then name, so a LIST of one kind in one namespace is a contiguous range and costs time
//! proportional to its result; a GET or a write is O(log n).
//!
//! Objects are kept as their [`Frozen`] trees (about 5.8 KB for a defaulted, running pod where a
//! `serde_json::Value` with ordered maps takes about 24 KB), the same `Arc` that the write's watch
//! event carries and the informer caches keep, so an object a controller caches costs the store
//! nothing of its own. Their encoding (compact JSON, what etcd keeps: about 2.8 KB a running pod)
//! is made only when something asks for it ([`Store::raw`]); so is its length, per object and in
//! total ([`Store::bytes`], what etcd would hold: the world asks for it when it keeps a
//! snapshot). Until 2026-12 every write also wrote the text and kept the tree only weakly: the
//! text was a second copy of every cached object, and writing it was about a tenth of converging
//! a Deployment (a converged 10,000-pod session held 19 MB less without it). Cloning the store
//! (the world's "step back" snapshots) shares every object with the live one: an entry is one
//! `Arc`, a key's namespace and name are `Arc<str>`, so a snapshot costs the map's nodes (about
//! 50 bytes an object) and no allocation per object (with `String` keys and three `Arc`s an
//! entry, a snapshot of 10,000 pods and their Events took 5.7 MB and 120,000 allocations). A
//! write whose object equals the stored one is a no-op, exactly etcd3 store's "short-circuiting a
//! write" (`GuaranteedUpdate`, k8s.io/apiserver/pkg/storage/etcd3/store.go).
//!
//! Beside each object the store keeps the object's [`ObjectMetadata`] decoded (uid,
//! resourceVersion, deletion state, finalizers, owner references: a few hundred bytes), so that a
//! metadata-only LIST ([`Store::range_metadata`]) decodes nothing. Kubernetes serves the same
//! thing as `PartialObjectMetadataList` (`Accept: application/json;as=PartialObjectMetadataList;
//! g=meta.k8s.io;v=v1`), which the garbage collector's metadata informers use; here the page's
//! views read it (the owner graph, the caches' truth, the object list), at about a microsecond
//! an object instead of tens for a decode.
//!
//! What watch events, `list_shared` and `get_shared` hand out is the stored tree itself
//! ([`Store::get_shared`]): every watcher, list and relist of a version gets the same `Arc`, and
//! nothing is ever decoded: three processes caching 10,000 pods hold 10,000 trees, also after a
//! controller manager relists.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::engine::frozen::Frozen;
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::labels::Selector;
use crate::engine::object::{ObjectExt, OwnerReference, Shared};

/// Where an object lives: its kind's index in [`KINDS`], its namespace ("" for cluster-scoped
/// kinds) and its name (shared, so that copying a key allocates nothing).
pub type Key = (usize, Arc<str>, Arc<str>);

/// The key of an object.
pub fn key(kind_idx: usize, ns: &str, name: &str) -> Key {
    (kind_idx, Arc::from(ns), Arc::from(name))
}

/// The index of a kind in [`KINDS`] (kinds compare by group and kind name, so a copied `Kind`
/// value still finds its slot).
pub fn kind_index(kind: &Kind) -> usize {
    KINDS.iter().position(|k| k.kind == kind.kind && k.group == kind.group).unwrap_or(0)
}

/// The metadata of a stored object that the page's views need, decoded once per write (the
/// fields of `PartialObjectMetadata` they read; see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectMetadata {
    /// `metadata.uid`.
    pub uid: String,
    /// `metadata.resourceVersion`.
    pub resource_version: u64,
    /// Whether `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// `metadata.finalizers`, in order.
    pub finalizers: Vec<String>,
    /// `metadata.ownerReferences`, in order.
    pub owner_references: Vec<OwnerReference>,
    /// `status.phase` (Pods, Namespaces), if set: not metadata, but what a run's progress line
    /// counts (pods running) without decoding every pod.
    pub phase: Option<Box<str>>,
}

impl ObjectMetadata {
    /// Reads the fields from an object's tree.
    pub fn of(obj: &Frozen) -> ObjectMetadata {
        ObjectMetadata {
            uid: obj.uid().to_string(),
            resource_version: obj.resource_version(),
            deleting: obj.is_deleting(),
            finalizers: obj.finalizers().into_iter().map(str::to_string).collect(),
            owner_references: obj.owner_references(),
            phase: obj.get("status").and_then(|s| s.get("phase")).and_then(Frozen::as_str).map(Box::from),
        }
    }
}

/// One stored object: its tree (the [`Shared`] form that watch events, lists and informer caches
/// hand around), its labels kept apart so that a LIST with a label selector reads only the
/// objects it returns, its [`ObjectMetadata`], and the length of its encoding once asked.
/// Immutable once stored (a write stores a new entry), so the store and its snapshots share it.
///
/// The encoding itself is made only when something asks for it ([`Store::raw`]): the tree is
/// the object, and nothing in a run reads the text (every write encoded its object, about a
/// tenth of converging a Deployment). The tree is held, not memoized weakly: the objects a
/// controller caches (pods, ReplicaSets, nodes) are shared with the caches, so the store's own
/// copy of them costs nothing, where their text was a second copy (2.8 KB a running pod).
#[derive(Debug)]
struct Entry {
    tree: Shared,
    /// The length of the object's compact JSON ([`Frozen::json_len`]), counted the first time
    /// it is asked for (most versions are replaced before anyone asks: counting every write's
    /// was about 4% of converging).
    len: OnceLock<usize>,
    /// `metadata.labels` when non-empty, as a compact tree (a few dozen bytes, not a hash map).
    labels: Option<Frozen>,
    meta: ObjectMetadata,
}

impl Entry {
    /// The length of the object's encoding.
    fn len(&self) -> usize {
        *self.len.get_or_init(|| self.tree.json_len())
    }

    /// Everything read from the tree the write made: its labels are a copy of that subtree
    /// (reading them from the written `Value` converted them a second time).
    fn new(tree: &Shared) -> Arc<Entry> {
        Arc::new(Entry {
            tree: Arc::clone(tree),
            len: OnceLock::new(),
            labels: tree
                .get("metadata")
                .and_then(|m| m.get("labels"))
                .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()))
                .cloned(),
            meta: ObjectMetadata::of(tree),
        })
    }
}

/// The objects and the global revision.
///
/// Invariants: every stored tree is an object whose `metadata.resourceVersion` is the decimal
/// revision of the write that produced it, at most `revision`; `counts[k]` is the number of
/// stored objects of kind `k`; `bytes`, once set, is the total length of the stored objects'
/// encodings.
#[derive(Clone, Debug, Default)]
pub struct Store {
    objects: BTreeMap<Key, Arc<Entry>>,
    counts: Vec<usize>,
    revision: u64,
    /// Summed the first time it is asked for in this state of the contents (every put and
    /// remove forgets it): the world asks for it for every snapshot it keeps, each time it takes
    /// one, and a snapshot's store is a clone that keeps its sum (summing every kept snapshot's
    /// entries each time, every 200 steps, was a fifth of a run). Snapshots are spaced by the
    /// cluster's size, so a sum per snapshot costs a few additions a step.
    bytes: OnceLock<usize>,
    /// Per kind, which objects of it exist and how they are owned: renewed by a create, a remove,
    /// and an update that changes an object's uid, `ownerReferences`, `finalizers` or whether
    /// its `deletionTimestamp` is set ([`Store::ownership_stamp`]).
    ownership: Vec<ContentStamp>,
}

/// Names one state of some part of a store's contents within this process (see
/// [`Store::ownership_stamp`]): every change of that part takes a new stamp, never given out
/// before, and a clone keeps its original's (the same contents). Two equal stamps mean the same
/// contents, which a revision cannot promise: after Step back restores an earlier store, the next
/// write reuses the revision number for other contents. The page's views use it to skip
/// recomputing what only those contents decide (`views::graph::GraphCache`). It is
/// not part of what a run records or prints (its `Debug` says nothing), so runs stay identical.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct ContentStamp(u64);

impl ContentStamp {
    fn fresh() -> ContentStamp {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ContentStamp(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl std::fmt::Debug for ContentStamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ContentStamp")
    }
}

impl Store {
    /// An empty store at revision 0.
    pub fn new() -> Store {
        Store {
            objects: BTreeMap::new(),
            counts: vec![0; KINDS.len()],
            revision: 0,
            bytes: OnceLock::new(),
            ownership: (0..KINDS.len()).map(|_| ContentStamp::fresh()).collect(),
        }
    }

    /// Which objects of kind `kind_idx` exist, with which uid, owner references, finalizers and
    /// deletion state: equal stamps, equal in all of those (the other fields may differ). Most
    /// writes at scale change none of them (a binding, a status), and the owner graph, drawn from
    /// nothing else, is not drawn again for them (`views::graph::GraphCache`).
    pub fn ownership_stamp(&self, kind_idx: usize) -> ContentStamp {
        self.ownership.get(kind_idx).copied().unwrap_or_default()
    }

    /// The current global revision.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Takes the next revision (one per successful write).
    pub fn next_revision(&mut self) -> u64 {
        self.revision += 1;
        self.revision
    }

    /// One object, decoded.
    pub fn get(&self, key: &Key) -> Option<Arc<Value>> {
        self.get_value(key).map(Arc::new)
    }

    /// One object, owned: a copy of its tree (the value its encoding decodes to).
    pub fn get_value(&self, key: &Key) -> Option<Value> {
        self.objects.get(key).map(|e| e.tree.to_value())
    }

    /// Whether an object exists (no decoding).
    pub fn contains(&self, key: &Key) -> bool {
        self.objects.contains_key(key)
    }

    /// The encoding of an object (its compact JSON, made now: see [`Entry`]).
    pub fn raw(&self, key: &Key) -> Option<String> {
        self.objects.get(key).map(|e| e.tree.to_json_sized(e.len()))
    }

    /// One object's shared tree: the same `Arc` for a given version to every caller.
    pub fn get_shared(&self, key: &Key) -> Option<Shared> {
        self.objects.get(key).map(|e| Arc::clone(&e.tree))
    }

    /// Stores (or replaces) an object; returns its shared tree (the one its watch event carries).
    pub fn put(&mut self, key: Key, obj: &Value) -> Shared {
        self.put_tree(key, Frozen::from(obj))
    }

    /// [`Store::put`] of an object already in its tree form (built directly, never a `Value`).
    pub fn put_tree(&mut self, key: Key, tree: Frozen) -> Shared {
        let k = key.0;
        let shared = Arc::new(tree);
        let entry = Entry::new(&shared);
        self.bytes = OnceLock::new();
        let same_ownership = |old: &Entry| {
            let (a, b) = (&old.meta, &entry.meta);
            a.uid == b.uid
                && a.deleting == b.deleting
                && a.finalizers == b.finalizers
                && a.owner_references == b.owner_references
        };
        match self.objects.insert(key, Arc::clone(&entry)) {
            Some(old) if same_ownership(&old) => {}
            old => {
                if old.is_none() {
                    self.counts[k] += 1;
                }
                if let Some(stamp) = self.ownership.get_mut(k) {
                    *stamp = ContentStamp::fresh();
                }
            }
        }
        shared
    }

    /// Removes an object.
    pub fn remove(&mut self, key: &Key) -> bool {
        if self.objects.remove(key).is_none() {
            return false;
        }
        if let Some(stamp) = self.ownership.get_mut(key.0) {
            *stamp = ContentStamp::fresh();
        }
        self.counts[key.0] -= 1;
        self.bytes = OnceLock::new();
        true
    }

    /// How many objects of a kind are stored.
    pub fn count(&self, kind_idx: usize) -> usize {
        self.counts.get(kind_idx).copied().unwrap_or(0)
    }

    /// The objects of one kind, in one namespace or all, whose labels `sel` matches, in key
    /// order, owned. Costs the number of objects in the range plus the copying of the result.
    pub fn range<'a>(
        &'a self,
        kind_idx: usize,
        ns: Option<&'a str>,
        sel: &'a Selector,
    ) -> impl Iterator<Item = Value> + 'a {
        self.entries(kind_idx, ns, sel).map(|e| e.tree.to_value())
    }

    /// The entries of one kind, in one namespace or all, whose labels `sel` matches, in key order.
    fn entries<'a>(
        &'a self,
        kind_idx: usize,
        ns: Option<&'a str>,
        sel: &'a Selector,
    ) -> impl Iterator<Item = &'a Entry> {
        let start = key(kind_idx, ns.unwrap_or(""), "");
        self.objects
            .range(start..)
            .take_while(move |((k, n, _), _)| *k == kind_idx && ns.is_none_or(|ns| &**n == ns))
            .filter(move |(_, e)| sel.matches_frozen(e.labels.as_ref().and_then(Frozen::as_object)))
            .map(|(_, e)| &**e)
    }

    /// Like [`Store::range`], yielding each object's shared tree ([`Store::get_shared`]).
    pub fn range_shared<'a>(
        &'a self,
        kind_idx: usize,
        ns: Option<&'a str>,
        sel: &'a Selector,
    ) -> impl Iterator<Item = Shared> + 'a {
        self.entries(kind_idx, ns, sel).map(|e| Arc::clone(&e.tree))
    }

    /// Like [`Store::range`] without a selector, but yielding each object's namespace, name and
    /// [`ObjectMetadata`] in key order, decoding nothing.
    pub fn range_metadata<'a>(
        &'a self,
        kind_idx: usize,
        ns: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a str, &'a str, &'a ObjectMetadata)> + 'a {
        let start = key(kind_idx, ns.unwrap_or(""), "");
        self.objects
            .range(start..)
            .take_while(move |((k, n, _), _)| *k == kind_idx && ns.is_none_or(|ns| &**n == ns))
            .map(|((_, n, name), e)| (&**n, &**name, &e.meta))
    }

    /// The total length of the stored encodings.
    pub fn bytes(&self) -> usize {
        *self.bytes.get_or_init(|| self.objects.values().map(|e| e.len()).sum())
    }

    /// Every stored object (all kinds), in key order, owned.
    pub fn all(&self) -> impl Iterator<Item = Value> + '_ {
        self.objects.values().map(|e| e.tree.to_value())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_ownership_stamp_changes_with_what_ownership_is_made_of() {
        let mut s = Store::new();
        let kinds = |k: &str| kind_index(crate::engine::kinds::Kind::by_kind(k).unwrap());
        let (pods, events) = (kinds("Pod"), kinds("Event"));
        let pod = |rv: u64, meta: Value, status: &str| {
            let mut p = json!({"kind": "Pod", "metadata": {"name": "a", "namespace": "d", "uid": "u-a",
                "resourceVersion": rv.to_string()}, "status": {"phase": status}});
            if let (Some(m), Some(e)) = (p["metadata"].as_object_mut(), meta.as_object()) {
                m.extend(e.clone());
            }
            p
        };
        let mut last = s.ownership_stamp(pods);
        let mut changed = |s: &Store| {
            let now = s.ownership_stamp(pods);
            std::mem::replace(&mut last, now) != now
        };
        s.put(key(pods, "d", "a"), &pod(1, json!({}), "Pending"));
        assert!(changed(&s), "a create");
        s.put(key(pods, "d", "a"), &pod(2, json!({"labels": {"x": "y"}}), "Running"));
        assert!(!changed(&s), "a status and labels are not ownership");
        s.put(
            key(events, "d", "e"),
            &json!({"kind": "Event", "metadata": {"name": "e", "namespace": "d", "uid": "u-e"}}),
        );
        assert!(!changed(&s), "another kind's write");
        let owner = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-rs"}]);
        s.put(key(pods, "d", "a"), &pod(4, json!({"ownerReferences": owner}), "Running"));
        assert!(changed(&s), "an owner reference added");
        s.put(key(pods, "d", "a"), &pod(5, json!({"ownerReferences": owner, "finalizers": ["x/y"]}), "Running"));
        assert!(changed(&s), "a finalizer added");
        let deleting =
            json!({"ownerReferences": owner, "finalizers": ["x/y"], "deletionTimestamp": "2026-01-01T00:00:00Z"});
        s.put(key(pods, "d", "a"), &pod(6, deleting, "Running"));
        assert!(changed(&s), "deletionTimestamp set");
        let before = s.clone();
        assert!(s.remove(&key(pods, "d", "a")));
        assert!(changed(&s), "a removal");
        assert_eq!(before.ownership_stamp(pods), before.clone().ownership_stamp(pods), "a clone keeps its stamp");
    }

    #[test]
    fn the_metadata_listing_follows_every_write() {
        let mut s = Store::new();
        let pod = |name: &str, rv: &str, extra: Value| {
            let mut p = json!({"kind": "Pod", "metadata": {"name": name, "namespace": "d", "uid": format!("u-{name}"),
                "resourceVersion": rv}});
            if let (Some(m), Some(e)) = (p["metadata"].as_object_mut(), extra.as_object()) {
                m.extend(e.clone());
            }
            p
        };
        let k = kind_index(crate::engine::kinds::Kind::by_kind("Pod").unwrap());
        let key = |n: &str| key(k, "d", n);
        let encoded = |s: &Store| s.all().map(|o| o.to_string().len()).sum::<usize>();
        s.put(key("a"), &pod("a", "3", json!({})));
        assert_eq!(s.bytes(), encoded(&s));
        s.put(key("b"), &pod("b", "4", json!({"annotations": {"quote": "\"x\"\n"}})));
        assert_eq!(s.bytes(), encoded(&s), "the total follows every write");
        let owner =
            json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-rs", "controller": true}]);
        s.put(
            key("a"),
            &pod(
                "a",
                "5",
                json!({"deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": ["x/y"], "ownerReferences": owner}),
            ),
        );
        assert_eq!(s.bytes(), encoded(&s));
        let before = s.clone();
        s.remove(&key("b"));
        assert_eq!(s.bytes(), encoded(&s), "and every removal");
        assert_eq!(before.bytes(), encoded(&before), "a clone keeps its own");
        let listed: Vec<(&str, &str, ObjectMetadata)> =
            s.range_metadata(k, None).map(|(ns, n, m)| (ns, n, m.clone())).collect();
        assert_eq!(listed.len(), 1);
        let (ns, name, m) = &listed[0];
        assert_eq!((*ns, *name), ("d", "a"));
        let rs = OwnerReference {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            name: "rs".into(),
            uid: "u-rs".into(),
            controller: Some(true),
            block_owner_deletion: None,
        };
        let whole = ObjectMetadata {
            uid: "u-a".into(),
            resource_version: 5,
            deleting: true,
            finalizers: vec!["x/y".into()],
            owner_references: vec![rs],
            phase: None,
        };
        assert_eq!(*m, whole, "every field, as the object has it");
        assert_eq!((m.uid.as_str(), m.resource_version, m.deleting), ("u-a", 5, true));
        assert_eq!(m.finalizers, vec!["x/y".to_string()]);
        assert_eq!(m.owner_references[0].uid, "u-rs");
        assert_eq!(s.range_metadata(k, Some("other")).count(), 0);
    }
}
