//! The informer's local cache: client-go's `Indexer` (`tools/cache/store.go`, `index.go`,
//! `thread_safe_store.go`).
//!
//! Objects are stored by key (`namespace/name`, or `name` for cluster-scoped objects: client-go's
//! `MetaNamespaceKeyFunc`), never by uid: a delete and re-create of the same name that falls in a
//! gap is seen as one update. Indexes map an index value to the set of keys whose object
//! produces it; the namespace index is always there and others (for example "pods by controller
//! uid") can be added before objects arrive.
//!
//! Iteration is in key order, so that a listing is deterministic (client-go's order is a Go map's,
//! which is unspecified).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::engine::labels::Selector;
use crate::engine::object::{ObjectExt, Shared};

/// An index function: the index values an object files under (client-go `IndexFunc`).
pub type IndexFunc = fn(&Shared) -> Vec<String>;

/// The name of the namespace index (client-go `cache.NamespaceIndex`).
pub const NAMESPACE_INDEX: &str = "namespace";

/// The name of the index by controller uid (`controllerRef.uid`), as controllers that own
/// other objects use it to find their dependents quickly.
pub const CONTROLLER_UID_INDEX: &str = "controllerUID";

/// `MetaNamespaceIndexFunc`: an object's namespace ("" for cluster-scoped objects).
pub fn namespace_index_func(obj: &Shared) -> Vec<String> {
    vec![obj.namespace().unwrap_or("").to_string()]
}

/// The uid of the object's controller reference, if it has one.
pub fn controller_uid_index_func(obj: &Shared) -> Vec<String> {
    obj.controller_uid().map(|uid| vec![uid.to_string()]).unwrap_or_default()
}

/// The objects of a cache by key.
pub type Items = BTreeMap<Arc<str>, Shared>;

/// The entries of `items` in one namespace (the keys starting `namespace/`), in key order: a
/// key range, as the World's caches keep no namespace index ([`Indexer::unindexed`]).
pub fn namespace_range<'a>(items: &'a Items, namespace: &str) -> impl Iterator<Item = (&'a str, &'a Shared)> + 'a {
    let prefix = format!("{namespace}/");
    let from = std::ops::Bound::Included(prefix.as_str());
    items
        .range::<str, _>((from, std::ops::Bound::Unbounded))
        .map(|(k, v)| (&**k, v))
        .take_while(move |(k, _)| k.starts_with(&prefix))
}

/// A keyed, indexed cache of objects.
///
/// Invariant: for every index `n`, every key in `indices[n][v]` is in `items`, and `v` is one of
/// `indexers[n](items[key])`; conversely every stored object is filed under each of its values.
#[derive(Clone, Debug)]
pub struct Indexer {
    /// By key. The keys are shared strings: a world's snapshot copies every process's caches,
    /// and a shared key is copied (and dropped) without an allocation.
    items: Items,
    /// The indexes, by name (a handful at most: a list, not a map).
    indexes: Vec<Index>,
}

/// One index: its name, its function, and value → keys.
#[derive(Clone, Debug)]
struct Index {
    name: &'static str,
    f: IndexFunc,
    keys: BTreeMap<String, BTreeSet<String>>,
}

impl Default for Indexer {
    fn default() -> Self {
        Indexer::new()
    }
}

impl Indexer {
    /// An empty cache with the namespace index.
    pub fn new() -> Indexer {
        let mut ix = Indexer::unindexed();
        ix.add_indexer(NAMESPACE_INDEX, namespace_index_func);
        ix
    }

    /// An empty cache without any index, not even the namespace one: the World's caches, which
    /// list a namespace by the key range `namespace/` instead (client-go always files objects by
    /// namespace; the answer is the same, without a second copy of every key).
    pub fn unindexed() -> Indexer {
        Indexer { items: BTreeMap::new(), indexes: Vec::new() }
    }

    /// Adds an index (or replaces one of the same name). Existing objects are filed under it at
    /// once (client-go refuses to add an indexer to a started informer; here it is simply rebuilt).
    pub fn add_indexer(&mut self, name: &'static str, f: IndexFunc) {
        let mut index = Index { name, f, keys: BTreeMap::new() };
        for (key, obj) in &self.items {
            for v in f(obj) {
                index.keys.entry(v).or_default().insert(key.to_string());
            }
        }
        self.indexes.retain(|i| i.name != name);
        self.indexes.push(index);
    }

    /// Adds or replaces the object under its key; returns the previous object.
    pub fn update(&mut self, obj: Shared) -> Option<Shared> {
        let key = obj.key();
        // An update of a stored key keeps the key it was stored under.
        let old = match self.items.get_mut(key.as_str()) {
            Some(slot) => Some(std::mem::replace(slot, obj)),
            None => self.items.insert(Arc::from(key.as_str()), obj),
        };
        if let Some(old) = &old {
            self.unindex(&key, old);
        }
        if let Some(new) = self.items.get(key.as_str()) {
            for index in &mut self.indexes {
                for v in (index.f)(new) {
                    index.keys.entry(v).or_default().insert(key.clone());
                }
            }
        }
        old
    }

    /// Removes the object stored under `key`, returning it.
    pub fn delete(&mut self, key: &str) -> Option<Shared> {
        let old = self.items.remove(key)?;
        self.unindex(key, &old);
        Some(old)
    }

    fn unindex(&mut self, key: &str, obj: &Shared) {
        for index in &mut self.indexes {
            for v in (index.f)(obj) {
                if let Some(keys) = index.keys.get_mut(&v) {
                    keys.remove(key);
                    if keys.is_empty() {
                        index.keys.remove(&v);
                    }
                }
            }
        }
    }

    /// The object stored under `key` (`GetByKey`).
    pub fn get(&self, key: &str) -> Option<&Shared> {
        self.items.get(key)
    }

    /// Every stored object by key, in key order (the map itself, for readers that range over keys).
    pub fn items(&self) -> &Items {
        &self.items
    }

    /// Every stored key, in order (`ListKeys`).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.items.keys().map(|k| &**k)
    }

    /// Every stored object, in key order (`List`).
    pub fn list(&self) -> impl Iterator<Item = &Shared> {
        self.items.values()
    }

    /// The number of stored objects.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The objects filed under `value` in index `name` (`ByIndex`), in key order. An unknown index
    /// gives nothing.
    pub fn by_index(&self, name: &str, value: &str) -> Vec<&Shared> {
        self.indexes
            .iter()
            .find(|i| i.name == name)
            .and_then(|ix| ix.keys.get(value))
            .map(|keys| keys.iter().filter_map(|k| self.items.get(k.as_str())).collect())
            .unwrap_or_default()
    }

    /// The objects of one namespace (the namespace index; a lister's `List` in a namespace).
    pub fn in_namespace(&self, namespace: &str) -> Vec<&Shared> {
        self.by_index(NAMESPACE_INDEX, namespace)
    }

    /// A lister's `List(selector)` (all namespaces) or `Namespace(ns).List(selector)`: the
    /// objects whose labels match, in key order.
    pub fn list_matching(&self, namespace: Option<&str>, selector: &Selector) -> Vec<&Shared> {
        let candidates: Vec<&Shared> = match namespace {
            Some(ns) => self.in_namespace(ns),
            None => self.items.values().collect(),
        };
        candidates.into_iter().filter(|o| selector.matches_frozen(o.labels())).collect()
    }

    /// Checks the invariant stated on the type; `Err` says which entry is wrong.
    pub fn check_invariants(&self) -> Result<(), String> {
        for Index { name, f, keys: index } in &self.indexes {
            for (v, keys) in index {
                for k in keys {
                    let obj = self
                        .items
                        .get(k.as_str())
                        .ok_or_else(|| format!("index {name}[{v}] names a missing key {k}"))?;
                    if !f(obj).contains(v) {
                        return Err(format!("index {name}[{v}] holds {k}, which no longer files there"));
                    }
                }
            }
            for (k, obj) in &self.items {
                for v in f(obj) {
                    if !index.get(&v).is_some_and(|keys| keys.contains(&**k)) {
                        return Err(format!("{k} is not filed under {name}[{v}]"));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::object::share;
    use serde_json::json;
    use serde_json::Value;

    fn pod(ns: &str, name: &str, owner_uid: Option<&str>) -> Value {
        let mut p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}});
        if let Some(uid) = owner_uid {
            p["metadata"]["ownerReferences"] =
                json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": uid, "controller": true}]);
        }
        p
    }

    #[test]
    fn indexes_follow_updates_and_deletes() {
        let mut ix = Indexer::new();
        ix.add_indexer(CONTROLLER_UID_INDEX, controller_uid_index_func);
        ix.update(share(pod("default", "a", Some("u1"))));
        ix.update(share(pod("default", "b", Some("u1"))));
        ix.update(share(pod("other", "c", None)));
        assert_eq!(ix.by_index(CONTROLLER_UID_INDEX, "u1").len(), 2);
        assert_eq!(ix.in_namespace("other").len(), 1);
        // Re-parent a: it moves from u1 to u2.
        let old = ix.update(share(pod("default", "a", Some("u2"))));
        assert!(old.is_some());
        assert_eq!(ix.by_index(CONTROLLER_UID_INDEX, "u1").len(), 1);
        assert_eq!(ix.by_index(CONTROLLER_UID_INDEX, "u2")[0].key(), "default/a");
        ix.delete("default/b");
        assert!(ix.by_index(CONTROLLER_UID_INDEX, "u1").is_empty());
        assert_eq!(ix.keys().collect::<Vec<_>>(), vec!["default/a", "other/c"]);
        ix.check_invariants().unwrap();
        // A stale entry is caught by the check.
        let ns = ix.indexes.iter_mut().find(|i| i.name == NAMESPACE_INDEX).unwrap();
        ns.keys.entry("ghost".into()).or_default().insert("default/a".into());
        assert!(ix.check_invariants().is_err());
    }

    #[test]
    fn lists_by_namespace_and_selector() {
        let mut ix = Indexer::new();
        let mut web = pod("default", "web-1", None);
        web["metadata"]["labels"] = json!({"app": "web"});
        ix.update(share(web));
        ix.update(share(pod("default", "db-1", None)));
        let mut other = pod("other", "web-2", None);
        other["metadata"]["labels"] = json!({"app": "web"});
        ix.update(share(other));
        let sel = Selector::parse("app=web").unwrap();
        let keys = |v: Vec<&Shared>| v.into_iter().map(|o| o.key()).collect::<Vec<_>>();
        assert_eq!(keys(ix.list_matching(Some("default"), &sel)), vec!["default/web-1"]);
        assert_eq!(keys(ix.list_matching(None, &sel)), vec!["default/web-1", "other/web-2"]);
        assert_eq!(ix.list_matching(Some("default"), &Selector::everything()).len(), 2);
    }

    #[test]
    fn a_namespace_range_holds_that_namespace_only() {
        let mut ix = Indexer::unindexed();
        for (ns, name) in [("a", "x"), ("ab", "y"), ("a", "z"), ("b", "w"), ("", "node-1")] {
            ix.update(share(pod(ns, name, None)));
        }
        let keys =
            |ix: &Indexer, ns: &str| namespace_range(ix.items(), ns).map(|(k, _)| k.to_string()).collect::<Vec<_>>();
        assert_eq!(keys(&ix, "a"), ["a/x", "a/z"], "not ab/y, which sorts between them");
        assert_eq!(keys(&ix, "ab"), ["ab/y"]);
        assert!(keys(&ix, "c").is_empty());
        // A stored object is found under the key it was first stored with, after updates too.
        ix.update(share(pod("a", "x", Some("u1"))));
        assert_eq!(keys(&ix, "a"), ["a/x", "a/z"]);
        assert_eq!(ix.get("a/x").and_then(|o| o.controller_uid().map(str::to_string)).as_deref(), Some("u1"));
    }

    #[test]
    fn index_added_late_sees_existing_objects() {
        let mut ix = Indexer::new();
        ix.update(share(pod("default", "a", Some("u1"))));
        ix.add_indexer(CONTROLLER_UID_INDEX, controller_uid_index_func);
        assert_eq!(ix.by_index(CONTROLLER_UID_INDEX, "u1").len(), 1);
        assert!(ix.by_index("no-such-index", "x").is_empty());
    }
}
