//! Storage: every object of every kind in one ordered map, and the one global resourceVersion
//! (kubernetes-semantics.md §3.1: one etcd revision counter across all kinds).
//!
//! Keys sort as etcd's do (`/registry/<resource>/<namespace>/<name>`): by kind, then namespace,
//! then name, so a LIST of one kind in one namespace is a contiguous range and costs time
//! proportional to its result; a GET or a write is O(log n).
//!
//! Objects are kept as their compact JSON encoding (`Arc<str>`), as etcd keeps bytes: about
//! 1.6 KB for a defaulted pod where a `serde_json::Value` with ordered maps takes about 28 KB,
//! so 20,000 pods fit in tens of megabytes, and cloning the server (the world's "step back"
//! snapshots) copies pointers. Reads decode; a write whose encoding is byte-identical to the
//! stored one is a no-op, exactly etcd3 store's "short-circuiting a write" (§3.1).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::engine::kinds::{Kind, KINDS};
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;

/// Where an object lives: its kind's index in [`KINDS`], its namespace ("" for cluster-scoped
/// kinds) and its name.
pub type Key = (usize, String, String);

/// The index of a kind in [`KINDS`] (kinds compare by group and kind name, so a copied `Kind`
/// value still finds its slot).
pub fn kind_index(kind: &Kind) -> usize {
    KINDS.iter().position(|k| k.kind == kind.kind && k.group == kind.group).unwrap_or(0)
}

/// One stored object: its encoding, and its labels kept decoded so that a LIST with a label
/// selector decodes only the objects it returns.
#[derive(Clone, Debug)]
struct Entry {
    text: Arc<str>,
    labels: Option<Arc<Map<String, Value>>>,
}

impl Entry {
    fn new(obj: &Value) -> Entry {
        Entry { text: encode(obj), labels: obj.labels().filter(|l| !l.is_empty()).map(|l| Arc::new(l.clone())) }
    }
}

/// The objects and the global revision.
///
/// Invariants: every stored text is the compact JSON of an object whose
/// `metadata.resourceVersion` is the decimal revision of the write that produced it, at most
/// `revision`; `counts[k]` is the number of stored objects of kind `k`.
#[derive(Clone, Debug, Default)]
pub struct Store {
    objects: BTreeMap<Key, Entry>,
    counts: Vec<usize>,
    revision: u64,
}

impl Store {
    /// An empty store at revision 0.
    pub fn new() -> Store {
        Store { objects: BTreeMap::new(), counts: vec![0; KINDS.len()], revision: 0 }
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
        self.objects.get(key).map(|e| Arc::new(decode(&e.text)))
    }

    /// Whether an object exists (no decoding).
    pub fn contains(&self, key: &Key) -> bool {
        self.objects.contains_key(key)
    }

    /// The stored encoding of an object.
    pub fn raw(&self, key: &Key) -> Option<&str> {
        self.objects.get(key).map(|e| &*e.text)
    }

    /// Stores (or replaces) an object.
    pub fn put(&mut self, key: Key, obj: &Value) {
        let k = key.0;
        if self.objects.insert(key, Entry::new(obj)).is_none() {
            self.counts[k] += 1;
        }
    }

    /// Removes an object.
    pub fn remove(&mut self, key: &Key) -> bool {
        let removed = self.objects.remove(key).is_some();
        if removed {
            self.counts[key.0] -= 1;
        }
        removed
    }

    /// How many objects of a kind are stored.
    pub fn count(&self, kind_idx: usize) -> usize {
        self.counts.get(kind_idx).copied().unwrap_or(0)
    }

    /// The objects of one kind, in one namespace or all, whose labels `sel` matches, in key
    /// order, decoded. Costs the number of objects in the range plus the decoding of the result.
    pub fn range<'a>(
        &'a self,
        kind_idx: usize,
        ns: Option<&'a str>,
        sel: &'a Selector,
    ) -> impl Iterator<Item = Value> + 'a {
        let start: Key = (kind_idx, ns.unwrap_or("").to_string(), String::new());
        self.objects
            .range(start..)
            .take_while(move |((k, n, _), _)| *k == kind_idx && ns.is_none_or(|ns| n == ns))
            .filter(move |(_, e)| sel.matches(e.labels.as_deref()))
            .map(|(_, e)| decode(&e.text))
    }

    /// The total length of the stored encodings.
    pub fn bytes(&self) -> usize {
        self.objects.values().map(|e| e.text.len()).sum()
    }

    /// Every stored object (all kinds), in key order, decoded.
    pub fn all(&self) -> impl Iterator<Item = Value> + '_ {
        self.objects.values().map(|e| decode(&e.text))
    }
}

/// The compact JSON encoding of an object (keys in the order they are in).
pub fn encode(obj: &Value) -> Arc<str> {
    Arc::from(serde_json::to_string(obj).unwrap_or_default())
}

/// Decodes a stored encoding. The store only holds what [`encode`] wrote, so this cannot fail;
/// were it ever to, the result is `null` rather than a panic.
pub fn decode(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}
