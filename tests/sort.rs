//! `reconcile_lab::sort`, the crate's one compiled copy of a stable sort, agrees with the standard
//! library's stable sorts on every input, including the order of equal elements.
#![allow(clippy::disallowed_methods, reason = "compares against the standard library's sorts")]

use proptest::prelude::*;
use reconcile_lab::sort;
use std::cmp::Ordering;

/// Orders pairs by their first field only, so pairs with equal first fields compare equal.
fn by_first(a: &(u8, usize), b: &(u8, usize)) -> Ordering {
    a.0.cmp(&b.0)
}

proptest! {
    // Pairs sorted by their first field only: equal keys must keep their input order, which the
    // second field (the input position) makes visible.
    #[test]
    fn sort_by_is_stable_like_std(keys in proptest::collection::vec(0u8..6, 0..200)) {
        let items: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
        let mut ours = items.clone();
        let mut std = items;
        sort::sort_by(&mut ours, by_first);
        std.sort_by(by_first);
        prop_assert_eq!(ours, std);
    }

    #[test]
    fn sort_by_key_matches_std(keys in proptest::collection::vec(-50i32..50, 0..200)) {
        let items: Vec<(i32, usize)> = keys.iter().copied().zip(0..).collect();
        let mut ours = items.clone();
        let mut std = items;
        sort::sort_by_key(&mut ours, |a| a.0.abs());
        std.sort_by_key(|a| a.0.abs());
        prop_assert_eq!(ours, std);
    }

    #[test]
    fn sort_matches_std(words in proptest::collection::vec("[a-c]{0,3}", 0..100)) {
        let mut ours = words.clone();
        let mut std = words;
        sort::sort(&mut ours);
        std.sort();
        prop_assert_eq!(ours, std);
    }
}

#[test]
fn a_reversed_list_and_a_single_element() {
    let mut v: Vec<u32> = (0..10).rev().collect();
    sort::sort(&mut v);
    assert_eq!(v, (0..10).collect::<Vec<_>>());
    let mut one = vec!["x".to_string()];
    sort::sort_by(&mut one, |a, b| b.cmp(a));
    assert_eq!(one, ["x"]);
}
