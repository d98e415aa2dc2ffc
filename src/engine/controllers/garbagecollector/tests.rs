//! Unit tests of the garbage collector (its parent module).

use super::*;
use crate::engine::object::share;

fn obj(kind: &str, ns: &str, name: &str, uid: &str, owners: Value) -> Value {
    let api = if kind == "ReplicaSet" || kind == "Deployment" { "apps/v1" } else { "v1" };
    json!({"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns, "uid": uid,
        "resourceVersion": "1", "ownerReferences": owners}})
}

fn oref(kind: &str, name: &str, uid: &str, block: bool) -> Value {
    let api = if kind == "ReplicaSet" || kind == "Deployment" { "apps/v1" } else { "v1" };
    json!({"apiVersion": api, "kind": kind, "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": block})
}

fn keys(e: Vec<Enqueue>) -> Vec<String> {
    e.into_iter()
        .map(|e| match e {
            Enqueue::Now(k) | Enqueue::After(k, _) => k,
        })
        .collect()
}

fn kind(k: &str) -> &'static Kind {
    Kind::by_kind(k).unwrap()
}

fn add(gc: &mut GarbageCollector, o: &Value) -> Vec<String> {
    keys(gc.handle(kind(o.kind()), &ResourceEvent::Add(share(o)), &Caches::default(), Time::START))
}

fn update(gc: &mut GarbageCollector, old: &Value, new: &Value) -> Vec<String> {
    let n = ResourceEvent::Update(share(old), share(new));
    keys(gc.handle(kind(new.kind()), &n, &Caches::default(), Time::START))
}

fn deleting(o: &Value, finalizer: &str) -> Value {
    let mut o = o.clone();
    o["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    o["metadata"]["finalizers"] = json!([finalizer]);
    o
}

#[test]
fn dependent_first_makes_a_virtual_owner_that_is_verified() {
    let mut gc = GarbageCollector::new();
    let pod = obj("Pod", "d", "p", "u-pod", json!([oref("ReplicaSet", "rs", "u-rs", true)]));
    assert_eq!(add(&mut gc, &pod), vec!["attemptToDelete ReplicaSet d/rs u-rs"]);
    let n = gc.graph().node("u-rs").unwrap();
    assert!(n.is_virtual && n.dependents.contains("u-pod"));
    gc.graph().check_invariants().unwrap();
    let rs = obj("ReplicaSet", "d", "rs", "u-rs", json!([]));
    assert!(add(&mut gc, &rs).is_empty(), "observed with the coordinates its dependent gave");
    assert!(!gc.graph().node("u-rs").unwrap().is_virtual);
    assert_eq!(QueueName::parse("attemptToDelete ReplicaSet d/rs u-rs"), Some((QueueName::AttemptToDelete, "u-rs")));
    gc.graph().check_invariants().unwrap();
}

#[test]
fn foreground_and_orphan_transitions_queue_the_right_work() {
    let mut gc = GarbageCollector::new();
    let rs = obj("ReplicaSet", "d", "rs", "u-rs", json!([]));
    let pod = obj("Pod", "d", "p", "u-pod", json!([oref("ReplicaSet", "rs", "u-rs", true)]));
    add(&mut gc, &rs);
    add(&mut gc, &pod);
    let fg = deleting(&rs, FINALIZER_FOREGROUND);
    assert_eq!(
        update(&mut gc, &rs, &fg),
        vec!["attemptToDelete Pod d/p u-pod", "attemptToDelete ReplicaSet d/rs u-rs"]
    );
    assert!(gc.graph().node("u-rs").unwrap().deleting_dependents);
    assert!(update(&mut gc, &fg, &fg).is_empty(), "the transition fires once");
    // The blocking dependent goes away: the waiting owner is queued again.
    let gone = keys(gc.handle(
        kind("Pod"),
        &ResourceEvent::Delete { obj: share(&pod), final_state_unknown: false },
        &Caches::default(),
        Time::START,
    ));
    assert_eq!(gone, vec!["attemptToDelete ReplicaSet d/rs u-rs"]);
    assert!(gc.graph().blocking_dependents("u-rs").is_empty());

    let mut gc = GarbageCollector::new();
    add(&mut gc, &rs);
    add(&mut gc, &pod);
    assert_eq!(update(&mut gc, &rs, &deleting(&rs, FINALIZER_ORPHAN)), vec!["attemptToOrphan ReplicaSet d/rs u-rs"]);
    gc.graph().check_invariants().unwrap();
}

#[test]
fn unblocking_a_reference_requeues_a_waiting_owner() {
    let mut gc = GarbageCollector::new();
    let rs = obj("ReplicaSet", "d", "rs", "u-rs", json!([]));
    let pod = obj("Pod", "d", "p", "u-pod", json!([oref("ReplicaSet", "rs", "u-rs", true)]));
    add(&mut gc, &rs);
    add(&mut gc, &pod);
    update(&mut gc, &rs, &deleting(&rs, FINALIZER_FOREGROUND));
    let unblocked = obj("Pod", "d", "p", "u-pod", json!([oref("ReplicaSet", "rs", "u-rs", false)]));
    assert_eq!(update(&mut gc, &pod, &unblocked), vec!["attemptToDelete ReplicaSet d/rs u-rs"]);
    assert!(gc.graph().blocking_dependents("u-rs").is_empty());
    let released = obj("Pod", "d", "p", "u-pod", json!([]));
    update(&mut gc, &unblocked, &released);
    assert!(gc.graph().node("u-rs").unwrap().dependents.is_empty());
    gc.graph().check_invariants().unwrap();
}

#[test]
fn blocking_dependents_follow_each_change_without_a_scan() {
    let mut gc = GarbageCollector::new();
    let rs = obj("ReplicaSet", "d", "rs", "u-rs", json!([]));
    let pods: Vec<Value> = ["a", "b", "c"]
        .iter()
        .map(|p| obj("Pod", "d", p, &format!("u-{p}"), json!([oref("ReplicaSet", "rs", "u-rs", *p != "c")])))
        .collect();
    // One dependent arrives before its owner (a virtual owner first).
    add(&mut gc, &pods[0]);
    add(&mut gc, &rs);
    add(&mut gc, &pods[1]);
    add(&mut gc, &pods[2]);
    let sets = |gc: &GarbageCollector| {
        gc.graph().check_invariants().unwrap();
        let n = gc.graph().node("u-rs").unwrap();
        let names = |s: &BTreeSet<Arc<str>>| s.iter().map(|u| u.to_string()).collect::<Vec<_>>();
        (names(&n.blocking), names(&n.blocking_idle))
    };
    assert_eq!(sets(&gc), (vec!["u-a".into(), "u-b".into()], vec!["u-a".into(), "u-b".into()]));
    let mut a_deleting = pods[0].clone();
    a_deleting["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    update(&mut gc, &pods[0], &a_deleting);
    assert_eq!(sets(&gc), (vec!["u-a".into(), "u-b".into()], vec!["u-b".into()]), "a is being deleted");
    let c_blocking = obj("Pod", "d", "c", "u-c", json!([oref("ReplicaSet", "rs", "u-rs", true)]));
    update(&mut gc, &pods[2], &c_blocking);
    assert_eq!(sets(&gc).1, vec!["u-b".to_string(), "u-c".into()], "c now blocks");
    gc.handle(
        kind("Pod"),
        &ResourceEvent::Delete { obj: share(&a_deleting), final_state_unknown: false },
        &Caches::default(),
        Time::START,
    );
    update(&mut gc, &pods[1], &obj("Pod", "d", "b", "u-b", json!([])));
    assert_eq!(sets(&gc), (vec!["u-c".into()], vec!["u-c".into()]), "a gone, b released");
    assert_eq!(gc.graph().blocking_dependents("u-rs"), vec!["u-c".to_string()]);
}

#[test]
fn an_owner_in_another_namespace_is_reported_and_its_dependent_checked() {
    let mut gc = GarbageCollector::new();
    let owner = obj("ConfigMap", "a", "owner", "u-o", json!([]));
    add(&mut gc, &owner);
    let dep = obj("ConfigMap", "b", "dep", "u-d", json!([oref("ConfigMap", "owner", "u-o", false)]));
    assert_eq!(add(&mut gc, &dep), vec!["attemptToDelete ConfigMap b/dep u-d"]);
    assert_eq!(gc.pending_events.len(), 1);
    assert_eq!(
        gc.pending_events[0].1,
        "ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: u-o] does not exist in namespace \"b\""
    );
}

#[test]
fn tree_draws_owners_above_dependents() {
    let mut gc = GarbageCollector::new();
    let d = obj("Deployment", "d", "web", "u-d", json!([]));
    let rs = obj("ReplicaSet", "d", "web-1", "u-rs", json!([oref("Deployment", "web", "u-d", true)]));
    let p1 = obj("Pod", "d", "web-1-a", "u-p1", json!([oref("ReplicaSet", "web-1", "u-rs", true)]));
    let p2 = obj("Pod", "d", "web-1-b", "u-p2", json!([oref("ReplicaSet", "web-1", "u-rs", false)]));
    let orphan = obj("Pod", "d", "lonely", "u-p3", json!([oref("ReplicaSet", "ghost", "u-ghost", true)]));
    for o in [&p2, &p1, &rs, &d, &orphan] {
        add(&mut gc, o);
    }
    update(&mut gc, &rs, &deleting(&rs, FINALIZER_FOREGROUND));
    let expected = [
        "Deployment d/web",
        "└─ ReplicaSet d/web-1 [being deleted, deletingDependents] (blockOwnerDeletion)",
        "   ├─ Pod d/web-1-a (blockOwnerDeletion)",
        "   └─ Pod d/web-1-b",
        "ReplicaSet d/ghost [virtual]",
        "└─ Pod d/lonely (blockOwnerDeletion)",
    ];
    assert_eq!(gc.graph().tree(), expected.map(|l| format!("{l}\n")).concat());
}

#[test]
fn reference_diffs_split_added_removed_changed() {
    let r = |uid: &str, block: bool| OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: uid.into(),
        uid: uid.into(),
        controller: None,
        block_owner_deletion: Some(block),
    };
    let (added, removed, changed) = reference_diffs(&[r("a", true), r("b", true)], &[r("b", false), r("c", true)]);
    assert_eq!(added, vec![r("c", true)]);
    assert_eq!(removed, vec![r("a", true)]);
    assert_eq!(changed, vec![(r("b", true), r("b", false))]);
}
