//! Storage: every object of every kind in one ordered map, and the one global resourceVersion
//! (kubernetes-semantics.md §3.1: one etcd revision counter across all kinds).
//!
//! Keys sort as etcd's do (`/registry/<resource>/<namespace>/<name>`): by kind, then namespace,
//! then name, so a LIST of one kind in one namespace is a contiguous range and costs time
//! proportional to its result; a GET or a write is O(log n). Objects sit behind `Arc` so that
//! cloning the whole server (the world's "step back" snapshots) copies pointers, not objects.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::engine::kinds::{Kind, KINDS};

/// Where an object lives: its kind's index in [`KINDS`], its namespace ("" for cluster-scoped
/// kinds) and its name.
pub type Key = (usize, String, String);

/// The index of a kind in [`KINDS`] (kinds compare by group and kind name, so a copied `Kind`
/// value still finds its slot).
pub fn kind_index(kind: &Kind) -> usize {
    KINDS.iter().position(|k| k.kind == kind.kind && k.group == kind.group).unwrap_or(0)
}

/// The objects and the global revision.
///
/// Invariants: every stored object's `metadata.resourceVersion` is the decimal revision of the
/// write that produced it, and is at most `revision`; `counts[k]` is the number of stored
/// objects of kind `k`.
#[derive(Clone, Debug, Default)]
pub struct Store {
    objects: BTreeMap<Key, Arc<Value>>,
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

    /// One object.
    pub fn get(&self, key: &Key) -> Option<&Arc<Value>> {
        self.objects.get(key)
    }

    /// Stores (or replaces) an object.
    pub fn put(&mut self, key: Key, obj: Arc<Value>) {
        let k = key.0;
        if self.objects.insert(key, obj).is_none() {
            self.counts[k] += 1;
        }
    }

    /// Removes an object.
    pub fn remove(&mut self, key: &Key) -> Option<Arc<Value>> {
        let removed = self.objects.remove(key);
        if removed.is_some() {
            self.counts[key.0] -= 1;
        }
        removed
    }

    /// How many objects of a kind are stored.
    pub fn count(&self, kind_idx: usize) -> usize {
        self.counts.get(kind_idx).copied().unwrap_or(0)
    }

    /// The objects of one kind, in one namespace or all, in key order.
    pub fn range<'a>(&'a self, kind_idx: usize, ns: Option<&'a str>) -> impl Iterator<Item = &'a Arc<Value>> + 'a {
        let start: Key = (kind_idx, ns.unwrap_or("").to_string(), String::new());
        self.objects
            .range(start..)
            .take_while(move |((k, n, _), _)| *k == kind_idx && ns.is_none_or(|ns| n == ns))
            .map(|(_, v)| v)
    }

    /// Every stored object (all kinds), in key order.
    pub fn all(&self) -> impl Iterator<Item = (&Key, &Arc<Value>)> {
        self.objects.iter()
    }
}
