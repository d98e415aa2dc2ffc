//! The namespace controller through the world: TV-30 and TV-31 (kubernetes-semantics.md §5, §9),
//! and convergence after faults.

mod common;

use common::*;
use reconcile_lab::engine::apiserver::{DeleteOptions, Patch, WatchFrom};
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{
    Fault, Settled, World, BUCKET_OPERATOR, CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B,
};
use serde_json::{json, Value};

fn settle(w: &mut World) {
    match w.run_until_idle(20_000) {
        Settled::Idle { .. } => {}
        other => panic!("did not settle: {other:?}"),
    }
}

fn ns(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
}

/// (type, status, reason, message) of each condition, in order.
fn conditions(obj: &Value) -> Vec<(String, String, String, String)> {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| cs.iter().map(|c| (s(&c["type"]), s(&c["status"]), s(&c["reason"]), s(&c["message"]))).collect())
        .unwrap_or_default()
}

fn ok_conditions() -> Vec<(String, String, String, String)> {
    [
        ("NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"),
        (
            "NamespaceDeletionGroupVersionParsingFailure",
            "ParsedGroupVersions",
            "All legacy kube types successfully parsed",
        ),
        (
            "NamespaceDeletionContentFailure",
            "ContentDeleted",
            "All content successfully deleted, may be waiting on finalization",
        ),
        ("NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"),
        ("NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"),
    ]
    .iter()
    .map(|(t, r, m)| (t.to_string(), "False".to_string(), r.to_string(), m.to_string()))
    .collect()
}

/// TV-30: an empty namespace goes in three events: Terminating, the five OK conditions, DELETED.
#[test]
fn tv30_empty_namespace_deletion() {
    let mut w = World::new(2);
    settle(&mut w);
    let created = w.create(ns("demo")).unwrap();
    assert_eq!(created["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(created["status"]["phase"], "Active");
    let rv = w.api().resource_version();
    let watch = w.api_mut().watch(kind("Namespace"), None, Selector::everything(), WatchFrom::Exact(rv));
    w.delete(kind("Namespace"), None, "demo", DeleteOptions::default()).unwrap();
    settle(&mut w);
    let mut evs = Vec::new();
    while let Some(e) = w.api_mut().next_event(watch) {
        evs.push((e.event_type.as_str().to_string(), e.object));
    }
    let types: Vec<&str> = evs.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(types, vec!["MODIFIED", "MODIFIED", "DELETED"], "{evs:?}");
    assert!(evs[0].1.is_deleting());
    assert_eq!(evs[0].1["status"]["phase"], "Terminating");
    assert_eq!(conditions(&evs[1].1), ok_conditions());
    for c in evs[1].1["status"]["conditions"].as_array().unwrap() {
        assert!(c["lastTransitionTime"].is_string());
    }
    assert!(w.api().get(kind("Namespace"), None, "demo").is_err());
}

/// Deleting a namespace deletes its content (Background), waits for pods to terminate, and only
/// then finalizes it.
#[test]
fn namespace_content_is_deleted_first() {
    let mut w = World::new(4);
    w.create(ns("shop")).unwrap();
    let mut d = deployment("web", 2, "nginx");
    d["metadata"]["namespace"] = json!("shop");
    w.create(d).unwrap();
    w.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "conf", "namespace": "shop"}}))
        .unwrap();
    settle(&mut w);
    assert_eq!(w.api().list(kind("Pod"), Some("shop"), &Selector::everything()).unwrap().items.len(), 2);
    w.delete(kind("Namespace"), None, "shop", DeleteOptions::default()).unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("Namespace"), None, "shop").is_err(), "namespace gone");
    for k in ["Pod", "ReplicaSet", "Deployment", "ConfigMap"] {
        assert!(w.api().list(kind(k), Some("shop"), &Selector::everything()).unwrap().items.is_empty(), "{k} left");
    }
    // While pods terminated, the controller reported them and waited estimate/2 + 1 = 16 s.
    let waited = w
        .history()
        .iter()
        .any(|r| r.sentence.contains("namespace-controller reconciled shop") && r.sentence.contains("in 16s"));
    assert!(waited, "the controller requeued after 16 s while pods terminated");
    assert_caches_match(&w);
}

/// A namespace stuck on pods that do not go (their kubelet is stopped): once the pods' grace
/// period has passed since the namespace's deletion the controller stops estimating, reports
/// `NamespaceDeletionContentFailure True ContentDeletionFailed` with "unexpected items still
/// remain", and retries with the queue's back-off (namespaced_resources_deleter.go
/// `estimateGracefulTermination`, `deleteAllContentForGroupVersionResource`).
#[test]
fn a_namespace_stuck_on_pods_reports_it() {
    let mut w = World::new(6);
    w.create(ns("slow")).unwrap();
    let mut d = deployment("web", 2, "nginx");
    d["metadata"]["namespace"] = json!("slow");
    w.create(d).unwrap();
    settle(&mut w);
    w.fault(Fault::StopProcess("kubelet".into())).unwrap();
    w.delete(kind("Namespace"), None, "slow", DeleteOptions::default()).unwrap();
    w.advance(std::time::Duration::from_secs(20));
    let n = w.api().get(kind("Namespace"), None, "slow").unwrap();
    let c = conditions(&n);
    assert_eq!((c[2].1.as_str(), c[3].1.as_str()), ("False", "True"), "within the grace period: remaining {c:?}");
    w.advance(std::time::Duration::from_secs(40));
    let n = w.api().get(kind("Namespace"), None, "slow").unwrap();
    let c = conditions(&n);
    assert_eq!(
        c[2],
        (
            "NamespaceDeletionContentFailure".to_string(),
            "True".to_string(),
            "ContentDeletionFailed".to_string(),
            "Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: slow for gvr: /v1, Resource=pods".to_string()
        )
    );
    // Back-off retries, not the estimate's polls.
    let failures = w
        .history()
        .iter()
        .filter(|r| r.sentence.contains("namespace-controller") && r.sentence.contains("unexpected items"))
        .count();
    assert!(failures >= 2, "retried with back-off: {failures}");
    w.fault(Fault::StartProcess("kubelet".into())).unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("Namespace"), None, "slow").is_err(), "namespace gone once the pods are");
}

/// TV-31: a namespace stuck on a finalizer; its conditions say which; new content is refused;
/// removing the finalizer lets it go.
#[test]
fn tv31_namespace_stuck_on_a_finalizer() {
    let mut w = World::new(9);
    w.stop_process(BUCKET_OPERATOR).unwrap();
    w.create(ns("demo")).unwrap();
    w.create(json!({"apiVersion": "example.com/v1", "kind": "Bucket",
        "metadata": {"name": "b1", "namespace": "demo", "finalizers": ["example.com/bucket"]},
        "spec": {"region": "eu-west-1", "versioning": false}}))
        .unwrap();
    settle(&mut w);
    w.delete(kind("Namespace"), None, "demo", DeleteOptions::default()).unwrap();
    // A stuck namespace never settles (its controller looks again every 8 s): advance instead.
    w.advance(std::time::Duration::from_secs(7));
    let b1 = w.api().get(kind("Bucket"), Some("demo"), "b1").unwrap();
    assert!(b1.is_deleting(), "b1 got a deletionTimestamp");
    let demo = w.api().get(kind("Namespace"), None, "demo").unwrap();
    let c = conditions(&demo);
    assert_eq!(c.len(), 5);
    assert_eq!(c[2], ok_conditions()[2], "NamespaceDeletionContentFailure stays False ContentDeleted");
    assert_eq!(
        c[3],
        (
            "NamespaceContentRemaining".into(),
            "True".into(),
            "SomeResourcesRemain".into(),
            "Some resources are remaining: buckets.example.com has 1 resource instances".into()
        )
    );
    assert_eq!(
        c[4],
        (
            "NamespaceFinalizersRemaining".into(),
            "True".into(),
            "SomeFinalizersRemain".into(),
            "Some content in the namespace has finalizers remaining: example.com/bucket in 1 resource instances".into()
        )
    );
    let ltt = demo["status"]["conditions"][3]["lastTransitionTime"].clone();
    // It retries every 8 s; the conditions' times do not move while nothing flips.
    let before = w.history().len();
    w.advance(std::time::Duration::from_secs(20));
    let retries = w.history()[before..]
        .iter()
        .filter(|r| r.sentence.starts_with("namespace-controller reconciled demo") && r.sentence.contains("in 8s"))
        .count();
    assert!(retries >= 2, "retries every 8 s: {retries}");
    let demo = w.api().get(kind("Namespace"), None, "demo").unwrap();
    assert_eq!(demo["status"]["conditions"][3]["lastTransitionTime"], ltt);
    // New content is refused.
    let e = w
        .create(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "demo"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
        .unwrap_err();
    assert_eq!(e.code(), 403);
    assert_eq!(
        e.message,
        "pods \"p\" is forbidden: unable to create new content in namespace demo because it is being terminated"
    );
    // Remove the finalizer by hand: b1 goes, then the namespace.
    w.patch(kind("Bucket"), Some("demo"), "b1", Patch::Merge(json!({"metadata": {"finalizers": null}}))).unwrap();
    let rv = w.api().resource_version();
    let watch = w.api_mut().watch(kind("Namespace"), None, Selector::everything(), WatchFrom::Exact(rv));
    settle(&mut w);
    let mut evs = Vec::new();
    while let Some(e) = w.api_mut().next_event(watch) {
        evs.push((e.event_type.as_str().to_string(), e.object));
    }
    let types: Vec<&str> = evs.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(types, vec!["MODIFIED", "DELETED"], "{evs:?}");
    assert_eq!(conditions(&evs[0].1), ok_conditions());
    assert_ne!(evs[0].1["status"]["conditions"][3]["lastTransitionTime"], ltt, "flipped, so the time moved");
}

/// The namespace controller's process restarts in the middle: the new leader picks the
/// namespace up from its informer's relist and finishes.
#[test]
fn namespace_deletion_survives_a_controller_restart() {
    let mut w = World::new(12);
    w.create(ns("tmp")).unwrap();
    for i in 0..3 {
        w.create(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("c{i}"), "namespace": "tmp"}}),
        )
        .unwrap();
    }
    settle(&mut w);
    let leader =
        if w.process(CONTROLLER_MANAGER_A).unwrap().leading() { CONTROLLER_MANAGER_A } else { CONTROLLER_MANAGER_B };
    w.delete(kind("Namespace"), None, "tmp", DeleteOptions::default()).unwrap();
    w.kill_process(leader).unwrap();
    settle(&mut w);
    w.start_process(leader).unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("Namespace"), None, "tmp").is_err());
    assert!(w.api().list(kind("ConfigMap"), Some("tmp"), &Selector::everything()).unwrap().items.is_empty());
}
