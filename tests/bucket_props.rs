//! A property test of the Bucket controller and the cloud: random creates, spec edits, deletes,
//! hand-removed finalizers, cloud failures and hangs, operator restarts and steps in between.
//! After the faults end and the world settles:
//! - every Bucket object is Ready (unless a leaked bucket holds its name: then NameTaken), with `observedGeneration` equal to its generation, and its
//!   external bucket exists, is tagged with its uid and has the versioning its spec asks for;
//! - no external bucket is leaked, except those whose finalizer someone removed by hand.

mod common;

use std::collections::BTreeSet;

use common::*;
use proptest::prelude::*;
use reconcile_lab::engine::apiserver::{DeleteOptions, Patch};
use reconcile_lab::engine::cloud::{CloudBucketState, CloudFault};
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{Settled, World, BUCKET_OPERATOR};
use serde_json::{json, Value};

#[derive(Clone, Debug)]
enum Op {
    Create(usize, bool),
    SetVersioning(usize, bool),
    Delete(usize),
    RemoveFinalizer(usize),
    Steps(u8),
    Cloud(Option<CloudFault>),
    RestartOperator,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0usize..4, any::<bool>()).prop_map(|(i, v)| Op::Create(i, v)),
        2 => (0usize..4, any::<bool>()).prop_map(|(i, v)| Op::SetVersioning(i, v)),
        2 => (0usize..4).prop_map(Op::Delete),
        1 => (0usize..4).prop_map(Op::RemoveFinalizer),
        3 => (1u8..30).prop_map(Op::Steps),
        1 => prop_oneof![Just(None), Just(Some(CloudFault::Failing)), Just(Some(CloudFault::Hanging))].prop_map(Op::Cloud),
        1 => Just(Op::RestartOperator),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn buckets_converge_and_leak_only_by_hand(ops in proptest::collection::vec(op(), 1..14), seed in 0u64..1000) {
        let mut w = World::new(seed);
        let mut by_hand: BTreeSet<String> = BTreeSet::new();
        let name = |i: usize| format!("b{i}");
        for op in ops {
            match op {
                Op::Create(i, v) => {
                    let _ = w.create(json!({"apiVersion": "example.com/v1", "kind": "Bucket",
                        "metadata": {"name": name(i), "namespace": "default"},
                        "spec": {"region": "eu-west-1", "versioning": v}}));
                }
                Op::SetVersioning(i, v) => {
                    let _ = w.patch(kind("Bucket"), Some("default"), &name(i), Patch::Merge(json!({"spec": {"versioning": v}})));
                }
                Op::Delete(i) => {
                    let _ = w.delete(kind("Bucket"), Some("default"), &name(i), DeleteOptions::default());
                }
                Op::RemoveFinalizer(i) => {
                    if let Ok(b) = w.api().get(kind("Bucket"), Some("default"), &name(i)) {
                        let patch = Patch::Merge(json!({"metadata": {"finalizers": null}}));
                        // From a live object too: deleted before the controller adds it back,
                        // the object goes at once and its bucket leaks.
                        if w.patch(kind("Bucket"), Some("default"), &name(i), patch).is_ok()
                            && b.has_finalizer("example.com/bucket")
                        {
                            by_hand.insert(b.uid().to_string());
                        }
                    }
                }
                Op::Steps(n) => {
                    for _ in 0..n {
                        w.step();
                    }
                }
                Op::Cloud(f) => {
                    w.cloud_fault(f).unwrap();
                }
                Op::RestartOperator => {
                    w.restart_process(BUCKET_OPERATOR).unwrap();
                }
            }
        }
        w.cloud_fault(None).unwrap();
        let settled = w.run_until_idle(50_000);
        // A leaked bucket keeps its name: a new Bucket object of the same name cannot get it and
        // retries for ever (NameTaken), which is the one way this world does not settle.
        let blocked: BTreeSet<String> = w.leaked_buckets().into_iter().map(|b| b.name).collect();
        prop_assert!(matches!(settled, Settled::Idle { .. }) || !blocked.is_empty(), "{:?}", settled);
        let now = w.now();
        let live: Vec<Value> = w.api().list(kind("Bucket"), None, &Selector::everything()).unwrap().items;
        for b in &live {
            prop_assert!(!b.is_deleting(), "{} still Terminating", b.name());
            if blocked.contains(&format!("default-{}", b.name())) {
                prop_assert_eq!(condition(b, "Ready").map(|c| c["reason"].clone()), Some(json!("NameTaken")));
                continue;
            }
            prop_assert_eq!(condition(b, "Ready").map(|c| c["status"].clone()), Some(json!("True")), "{}", b);
            prop_assert_eq!(b["status"]["observedGeneration"].as_i64(), Some(b.generation()));
            let ext = w.cloud().bucket(&format!("default-{}", b.name()), now);
            let ext = ext.expect("external bucket exists");
            prop_assert_eq!(ext.state, CloudBucketState::Ready);
            prop_assert_eq!(ext.owner_uid.as_str(), b.uid());
            prop_assert_eq!(Some(ext.versioning), b.pointer("/spec/versioning").and_then(Value::as_bool));
        }
        for leaked in w.leaked_buckets() {
            prop_assert!(by_hand.contains(&leaked.owner_uid), "{} leaked without a hand-removed finalizer", leaked.name);
        }
        prop_assert!(w.cloud().check_invariants().is_ok());
    }
}
