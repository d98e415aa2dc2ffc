//! One stable sort for the whole crate, compiled once.
//!
//! `slice::sort_by` is generic over the element and the comparator, so every call site with its
//! own closure gets its own copy of the standard library's driftsort, quicksort and small-sort
//! (about 3 KiB of wasm each; 33 copies were about 95 KiB, docs/size.md). These functions sort a
//! list of indices instead, with one `&mut dyn FnMut` comparator, so that copy exists once; each
//! call site keeps only a few bytes of glue. They are stable, like `slice::sort_by`: elements that
//! compare equal keep their order (the engine's output depends on it, e.g. pods of equal rank).
//!
//! The price is one `Vec<usize>` per sort and an indirect call per comparison, small beside the
//! comparisons themselves (most compare strings or JSON fields) on lists that are short: a
//! Deployment's ReplicaSets, an object's events or labels, a view's rows.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sorts `v` stably by `cmp`, as `v.sort_by(cmp)` would.
#[inline]
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = stable_order(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    permute(order, &mut |a, b| v.swap(a, b));
}

/// Sorts `v` stably by its order, as `v.sort()` would.
#[inline]
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts `v` stably by `key`, as `v.sort_by_key(key)` would.
#[inline]
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// A map of `items`, as `items.collect::<BTreeMap<_, _>>()` would make it (the last value of a
/// repeated key wins), but by inserting each item: `collect` first sorts the items with the
/// standard stable sort, another copy of it per key and value type.
pub fn btree_map<K: Ord, V>(items: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(items);
    map
}

/// A set of `items`, as `items.collect::<BTreeSet<_>>()` would make it, by inserting each item
/// (see [`btree_map`]).
pub fn btree_set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}

/// The indices `0..len` in the order `cmp` gives them, stably: the only copy of the sort.
fn stable_order(len: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    #[expect(clippy::disallowed_methods, reason = "the one monomorphization of the slice sort (clippy.toml)")]
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Rearranges a slice, through `swap`, so that position `i` holds what was at `order[i]`: each
/// cycle of the permutation is walked once, swapping the travelling element along it.
fn permute(mut order: Vec<usize>, swap: &mut dyn FnMut(usize, usize)) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            // Marks `at` as placed; `order` is only read at positions not yet placed.
            order[at] = at;
            if from == start {
                break;
            }
            swap(at, from);
            at = from;
        }
    }
}
