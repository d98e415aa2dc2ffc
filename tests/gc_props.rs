//! A property test of the garbage collector through the world: random owner graphs of
//! ConfigMaps, random deletions with random propagation policies, steps in between, and faults
//! (broken watches, an expired history, a leader crash). After the world settles:
//! - every surviving object's owner references name live owners with the same uid (dangling
//!   owners are collected or their references removed; orphaning removes the reference);
//! - nothing is left half-deleted (no deletionTimestamp: only GC finalizers were used);
//! - an object all of whose owners were deleted with a cascading policy (background, foreground,
//!   or the kind's default) is gone;
//! - the owner graph's invariants hold and the caches equal the server.

mod common;

use std::collections::BTreeMap;

use common::*;
use proptest::prelude::*;
use reconcile_lab::engine::apiserver::{DeleteOptions, Propagation};
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{Settled, World, CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B};
use serde_json::{json, Value};

#[derive(Clone, Debug)]
enum Op {
    Delete { target: usize, policy: Option<Propagation> },
    Steps(u8),
    BreakWatch,
    ExpireHistory,
    CrashLeader,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..8, prop_oneof![
            Just(None),
            Just(Some(Propagation::Background)),
            Just(Some(Propagation::Foreground)),
            Just(Some(Propagation::Orphan)),
        ])
            .prop_map(|(target, policy)| Op::Delete { target, policy }),
        3 => (1u8..40).prop_map(Op::Steps),
        1 => Just(Op::BreakWatch),
        1 => Just(Op::ExpireHistory),
        1 => Just(Op::CrashLeader),
    ]
}

/// For each of 8 ConfigMaps, which earlier ones own it (and whether the reference blocks).
fn graph() -> impl Strategy<Value = Vec<Vec<(usize, bool)>>> {
    (0..8usize)
        .map(|i| {
            if i == 0 {
                Just(Vec::new()).boxed()
            } else {
                proptest::collection::vec((0..i, any::<bool>()), 0..3).boxed()
            }
        })
        .collect::<Vec<_>>()
}

fn leader(w: &World) -> Option<&'static str> {
    [CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B].into_iter().find(|p| w.process(p).is_some_and(|p| p.leading()))
}

fn settle(w: &mut World) {
    match w.run_until_idle(50_000) {
        Settled::Idle { .. } => {}
        other => panic!("did not settle: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn garbage_collection_converges(owners in graph(), ops in proptest::collection::vec(op(), 1..8), seed in 0u64..1000) {
        let mut w = World::new(seed);
        settle(&mut w);
        let mut objs: Vec<Value> = Vec::new();
        for (i, os) in owners.iter().enumerate() {
            let mut refs: Vec<Value> = Vec::new();
            for (o, block) in os {
                let owner: &Value = &objs[*o];
                if refs.iter().any(|r| r["uid"] == owner.uid()) {
                    continue;
                }
                refs.push(json!({"apiVersion": "v1", "kind": "ConfigMap", "name": owner.name(), "uid": owner.uid(),
                    "blockOwnerDeletion": block}));
            }
            let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": format!("cm-{i}"), "namespace": "default", "ownerReferences": refs}});
            objs.push(w.create(cm).unwrap());
        }
        settle(&mut w);
        // uid -> the policies of every DELETE it got (a second DELETE may change the GC
        // finalizer: apiserver `store.go`, `updateForGracefulDeletionAndFinalizers`), for the
        // dependents' rule.
        let mut deleted: BTreeMap<String, Vec<Option<Propagation>>> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Delete { target, policy } => {
                    let name = format!("cm-{target}");
                    let opts = DeleteOptions { propagation_policy: policy, ..DeleteOptions::default() };
                    if let Ok(live) = w.api().get(kind("ConfigMap"), Some("default"), &name) {
                        deleted.entry(live.uid().to_string()).or_default().push(policy);
                    }
                    let _ = w.delete(kind("ConfigMap"), Some("default"), &name, opts);
                }
                Op::Steps(n) => {
                    for _ in 0..n {
                        w.step();
                    }
                }
                Op::BreakWatch => {
                    if let Some(l) = leader(&w) {
                        let _ = w.break_watch(l, "ConfigMap");
                    }
                }
                Op::ExpireHistory => {
                    let _ = w.expire_history();
                }
                Op::CrashLeader => {
                    if let Some(l) = leader(&w) {
                        w.kill_process(l).unwrap();
                        w.start_process(l).unwrap();
                    }
                }
            }
        }
        settle(&mut w);
        let live: Vec<Value> = w.api().list(kind("ConfigMap"), Some("default"), &Selector::everything()).unwrap().items;
        let live_uids: BTreeMap<String, &Value> = live.iter().map(|o| (o.uid().to_string(), o)).collect();
        for o in &live {
            prop_assert!(!o.is_deleting(), "{} left half-deleted: {}", o.name(), o);
            for r in o.owner_references() {
                prop_assert!(live_uids.contains_key(&r.uid), "{} still names a gone owner {}", o.name(), r.name);
            }
        }
        for o in &objs {
            if !live_uids.contains_key(o.uid()) {
                continue;
            }
            // An object all of whose owners were deleted with a cascading policy is gone. (One
            // with an orphaned owner may survive either way, as in Kubernetes: it depends on
            // whether the orphaning or the collection of its other owner's dependents ran first.)
            let refs = o.owner_references();
            let cascading = |r: &reconcile_lab::engine::object::OwnerReference| {
                deleted.get(&r.uid).is_some_and(|ps| {
                    ps.iter().all(|p| matches!(p, Some(Propagation::Background | Propagation::Foreground) | None))
                })
            };
            let all_cascaded = !refs.is_empty() && refs.iter().all(cascading);
            prop_assert!(!all_cascaded, "{} survived the cascading deletion of all its owners", o.name());
        }
        let gc = w.garbage_collector().expect("a leader runs the garbage collector");
        prop_assert!(gc.graph().check_invariants().is_ok(), "{:?}", gc.graph().check_invariants());
        assert_caches_match(&w);
    }
}
