//! The Bucket controller and the external cloud through the world: the finalizer's job, status
//! with observedGeneration, spec changes, deletion, the leak when a finalizer is removed by hand,
//! and convergence after cloud and process faults.

mod common;

use std::time::Duration;

use common::*;
use reconcile_lab::engine::apiserver::{DeleteOptions, Patch, WatchFrom};
use reconcile_lab::engine::cloud::{CloudBucketState, CloudFault};
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{Fault, Settled, Verb, World, BUCKET_OPERATOR};
use serde_json::{json, Value};

fn settle(w: &mut World) {
    match w.run_until_idle(20_000) {
        Settled::Idle { .. } => {}
        other => panic!("did not settle: {other:?}"),
    }
}

fn bucket(name: &str, ns: &str, versioning: bool) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": name, "namespace": ns},
        "spec": {"region": "eu-west-1", "versioning": versioning}})
}

fn get(w: &World, name: &str) -> Option<Value> {
    w.api().get(kind("Bucket"), Some("default"), name).ok()
}

fn ready(b: &Value) -> (String, String, String) {
    let c = condition(b, "Ready").cloned().unwrap_or(Value::Null);
    (s(&c["status"]), s(&c["reason"]), s(&c["message"]))
}

fn assert_cloud_ok(w: &World) {
    w.cloud().check_invariants().unwrap();
    assert!(w.leaked_buckets().is_empty(), "leaked: {:?}", w.leaked_buckets());
}

/// Create: finalizer first, then the external bucket, then status Ready with observedGeneration
/// and url. A spec change reaches the cloud and bumps observedGeneration.
#[test]
fn bucket_lifecycle() {
    let mut w = World::new(21);
    settle(&mut w);
    let rv = w.api().resource_version();
    let watch = w.api_mut().watch(kind("Bucket"), None, Selector::everything(), WatchFrom::Exact(rv));
    w.create(bucket("photos", "default", false)).unwrap();
    settle(&mut w);
    let mut evs = Vec::new();
    while let Some(e) = w.api_mut().next_event(watch) {
        evs.push(e.object);
    }
    assert_eq!(evs[1]["metadata"]["finalizers"], json!(["example.com/bucket"]), "the finalizer comes first");
    assert!(evs[1].get("status").is_none(), "before anything exists outside the cluster");
    assert_eq!(ready(&evs[2]).1, "Creating");
    let b = get(&w, "photos").unwrap();
    assert_eq!(ready(&b), ("True".into(), "Available".into(), "Bucket default-photos is ready in eu-west-1".into()));
    assert_eq!(b["status"]["observedGeneration"], 1);
    assert_eq!(b["status"]["url"], "https://default-photos.eu-west-1.storage.example.com");
    let ext = w.cloud().bucket("default-photos", w.now()).unwrap();
    assert_eq!((ext.state, ext.versioning, ext.owner_uid.as_str()), (CloudBucketState::Ready, false, b.uid()));
    assert_cloud_ok(&w);

    w.patch(kind("Bucket"), Some("default"), "photos", Patch::Merge(json!({"spec": {"versioning": true}}))).unwrap();
    settle(&mut w);
    let b = get(&w, "photos").unwrap();
    assert_eq!(b.generation(), 2);
    assert_eq!(b["status"]["observedGeneration"], 2);
    assert!(w.cloud().bucket("default-photos", w.now()).unwrap().versioning);
    assert_eq!(events(&w, "Updated"), vec!["Versioning of bucket default-photos set to Enabled"]);
}

/// Delete: the object waits (Terminating) while the controller deletes the external bucket, then
/// the finalizer goes and so does the object. Nothing leaks.
#[test]
fn bucket_deletion_cleans_up_the_cloud_first() {
    let mut w = World::new(22);
    w.create(bucket("logs", "default", false)).unwrap();
    settle(&mut w);
    let rv = w.api().resource_version();
    let watch = w.api_mut().watch(kind("Bucket"), None, Selector::everything(), WatchFrom::Exact(rv));
    w.delete(kind("Bucket"), Some("default"), "logs", DeleteOptions::default()).unwrap();
    // While the cloud deletes, the object is still there.
    w.advance(Duration::from_secs(1));
    assert!(get(&w, "logs").is_some_and(|b| b.is_deleting()));
    assert_eq!(w.cloud().bucket("default-logs", w.now()).map(|b| b.state), Some(CloudBucketState::Deleting));
    settle(&mut w);
    assert!(get(&w, "logs").is_none());
    assert!(w.cloud().buckets(w.now()).is_empty());
    let mut types = Vec::new();
    while let Some(e) = w.api_mut().next_event(watch) {
        types.push(e.event_type.as_str());
    }
    assert_eq!(types.last(), Some(&"DELETED"));
    assert_cloud_ok(&w);
}

/// Removing the finalizer by hand deletes the object at once and leaves its bucket behind: the
/// world reports it as leaked.
#[test]
fn removing_the_finalizer_by_hand_leaks_the_bucket() {
    let mut w = World::new(23);
    w.create(bucket("tmp", "default", false)).unwrap();
    settle(&mut w);
    let uid = get(&w, "tmp").unwrap().uid().to_string();
    w.stop_process(BUCKET_OPERATOR).unwrap();
    w.delete(kind("Bucket"), Some("default"), "tmp", DeleteOptions::default()).unwrap();
    settle(&mut w);
    assert!(get(&w, "tmp").is_some_and(|b| b.is_deleting()), "stuck Terminating without its controller");
    w.patch(kind("Bucket"), Some("default"), "tmp", Patch::Merge(json!({"metadata": {"finalizers": null}}))).unwrap();
    w.start_process(BUCKET_OPERATOR).unwrap();
    settle(&mut w);
    assert!(get(&w, "tmp").is_none());
    let leaked = w.leaked_buckets();
    assert_eq!(leaked.len(), 1);
    assert_eq!((leaked[0].name.as_str(), leaked[0].owner_uid.as_str()), ("default-tmp", uid.as_str()));
}

/// A failing cloud: the condition says why, the controller backs off, and it converges once the
/// cloud works again.
#[test]
fn failing_cloud_then_recovery() {
    let mut w = World::new(24);
    settle(&mut w);
    w.cloud_fault(Some(CloudFault::Failing)).unwrap();
    w.create(bucket("data", "default", false)).unwrap();
    w.advance(Duration::from_secs(2));
    let b = get(&w, "data").unwrap();
    assert_eq!(
        ready(&b),
        (
            "False".into(),
            "CloudError".into(),
            "the cloud refused the request: ServiceUnavailable (503): the storage service is temporarily unavailable; retry later"
                .into()
        )
    );
    let failures =
        w.history().iter().flat_map(|r| &r.calls).filter(|c| matches!(c.verb, Verb::Cloud(_)) && c.code == 503).count();
    assert!(failures >= 2, "retried with back-off: {failures}");
    w.cloud_fault(None).unwrap();
    settle(&mut w);
    assert_eq!(ready(&get(&w, "data").unwrap()).0, "True");
    assert_cloud_ok(&w);
}

/// A hanging cloud: the bucket stays Creating however long we wait; once the cloud resumes, it
/// becomes Ready. Deletion during a hang waits too, and completes afterwards without a leak.
#[test]
fn hanging_cloud_then_recovery() {
    let mut w = World::new(25);
    settle(&mut w);
    w.cloud_fault(Some(CloudFault::Hanging)).unwrap();
    w.create(bucket("slow", "default", false)).unwrap();
    w.advance(Duration::from_secs(60));
    assert_eq!(ready(&get(&w, "slow").unwrap()).1, "Creating");
    w.cloud_fault(None).unwrap();
    settle(&mut w);
    assert_eq!(ready(&get(&w, "slow").unwrap()).1, "Available");
    w.cloud_fault(Some(CloudFault::Hanging)).unwrap();
    w.delete(kind("Bucket"), Some("default"), "slow", DeleteOptions::default()).unwrap();
    w.advance(Duration::from_secs(30));
    assert!(get(&w, "slow").is_some_and(|b| b.is_deleting()));
    w.cloud_fault(None).unwrap();
    settle(&mut w);
    assert!(get(&w, "slow").is_none());
    assert!(w.cloud().buckets(w.now()).is_empty());
    assert_cloud_ok(&w);
}

/// The operator restarts in the middle of a creation and of a deletion: it starts over from its
/// informer's relist and converges.
#[test]
fn operator_restart_converges() {
    let mut w = World::new(26);
    settle(&mut w);
    w.create(bucket("a", "default", false)).unwrap();
    w.create(bucket("b", "default", true)).unwrap();
    for _ in 0..8 {
        w.step();
    }
    w.restart_process(BUCKET_OPERATOR).unwrap();
    settle(&mut w);
    for n in ["a", "b"] {
        assert_eq!(ready(&get(&w, n).unwrap()).0, "True", "{n}");
    }
    w.delete(kind("Bucket"), Some("default"), "a", DeleteOptions::default()).unwrap();
    w.advance(Duration::from_millis(500));
    w.restart_process(BUCKET_OPERATOR).unwrap();
    settle(&mut w);
    assert!(get(&w, "a").is_none());
    assert_eq!(w.cloud().buckets(w.now()).len(), 1);
    assert_cloud_ok(&w);
}

/// Deleting a namespace with a Bucket: the namespace waits for the Bucket's finalizer, the
/// operator deletes the external bucket, and the namespace goes. Nothing leaks.
#[test]
fn namespace_with_a_bucket_is_deleted_without_a_leak() {
    let mut w = World::new(27);
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})).unwrap();
    w.create(bucket("assets", "team", false)).unwrap();
    settle(&mut w);
    assert_eq!(w.cloud().buckets(w.now()).len(), 1);
    w.delete(kind("Namespace"), None, "team", DeleteOptions::default()).unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("Namespace"), None, "team").is_err());
    assert!(w.cloud().buckets(w.now()).is_empty());
    assert_cloud_ok(&w);
}

/// A region cannot change: the condition says so until the spec is put back.
#[test]
fn region_is_immutable() {
    let mut w = World::new(28);
    w.create(bucket("eu", "default", false)).unwrap();
    settle(&mut w);
    w.patch(kind("Bucket"), Some("default"), "eu", Patch::Merge(json!({"spec": {"region": "us-east-1"}}))).unwrap();
    settle(&mut w);
    let b = get(&w, "eu").unwrap();
    assert_eq!(
        ready(&b),
        (
            "False".into(),
            "RegionImmutable".into(),
            "spec.region cannot change from eu-west-1 to us-east-1 once the bucket exists".into()
        )
    );
    assert_eq!(b["status"]["observedGeneration"], 2);
    w.patch(kind("Bucket"), Some("default"), "eu", Patch::Merge(json!({"spec": {"region": "eu-west-1"}}))).unwrap();
    settle(&mut w);
    assert_eq!(ready(&get(&w, "eu").unwrap()).0, "True");
}

/// Going back restores the cloud with the cluster, and replaying reproduces it exactly.
#[test]
fn going_back_restores_the_cloud() {
    let mut w = World::new(29);
    settle(&mut w);
    let before = w.history().len();
    w.create(bucket("snap", "default", true)).unwrap();
    settle(&mut w);
    let after = w.history().len();
    let cloud = w.cloud().clone();
    assert_eq!(cloud.buckets(w.now()).len(), 1);
    w.goto(before);
    assert!(w.cloud().buckets(w.now()).is_empty(), "before the Bucket existed, the cloud was empty");
    w.goto(after);
    assert_eq!(w.cloud(), &cloud, "replay rebuilds the same cloud");
    let mut again = World::new(29);
    settle(&mut again);
    again.create(bucket("snap", "default", true)).unwrap();
    settle(&mut again);
    let sentences = |w: &World| w.history().iter().map(|r| r.sentence.clone()).collect::<Vec<_>>();
    assert_eq!(sentences(&again), sentences(&w), "same seed, same inputs, same records");
}

/// A conflicting writer before every status write: the operator gets 409s, retries, converges.
#[test]
fn conflicting_writes_are_retried() {
    let mut w = World::new(30);
    settle(&mut w);
    w.create(bucket("busy", "default", false)).unwrap();
    for _ in 0..30 {
        w.conflict_next_write(BUCKET_OPERATOR).unwrap();
        w.step();
    }
    settle(&mut w);
    let b = get(&w, "busy").unwrap();
    assert_eq!(ready(&b).0, "True");
    assert_eq!(b["status"]["observedGeneration"], b.generation());
    let conflicts = w.history().iter().flat_map(|r| &r.calls).filter(|c| c.code == 409).count();
    assert!(conflicts > 0);
    assert_cloud_ok(&w);
}

/// `lab buggy-operator on` redeploys the operator with the build that records the
/// resourceVersion it reconciled in status: every status write changes what it just recorded,
/// its own watch event queues the Bucket again, and Run until idle names the loop (the
/// controller, the key, the object and the field that changes) within a few thousand steps.
/// The fixed build settles again.
#[test]
fn the_buggy_operator_is_a_hot_loop_named_by_its_evidence() {
    let mut w = World::new(21);
    w.set_snapshot_every(0);
    settle(&mut w);
    w.create(bucket("photos", "default", false)).unwrap();
    settle(&mut w);
    let r = w.fault(Fault::BuggyOperator(true)).unwrap();
    assert!(r.sentence.starts_with("bucket-operator was redeployed with a buggy build"), "{}", r.sentence);
    let settled = w.run_until_idle(5_000);
    let Settled::HotLoop { steps, explanation } = settled else { panic!("a hot loop: {settled:?}") };
    assert!(steps < 5_000, "{steps}");
    assert!(
        explanation.starts_with("Hot loop: bucket-controller (bucket-operator) reconciled default/photos "),
        "{explanation}"
    );
    assert!(
        explanation.contains(
            "and each time wrote Bucket default/photos again (its last 6 writes took it from resourceVersion "
        ),
        "{explanation}"
    );
    assert!(explanation.contains("each write changes only status.observedResourceVersion \""), "{explanation}");
    assert!(
        explanation.contains("a controller that changes the object it watches on every reconcile"),
        "{explanation}"
    );
    // The fixed build: the next run settles.
    w.fault(Fault::BuggyOperator(false)).unwrap();
    settle(&mut w);
    assert_eq!(ready(&get(&w, "photos").unwrap()).0, "True");
}
