//! What each controller the lab runs does with a key whose sync keeps failing, as its upstream
//! `handleErr` (or worker loop) does it. Only the Deployment controller gives up: after 15 retries
//! it drops the key (`maxRetries`, pkg/controller/deployment/deployment_controller.go), and it
//! forgets a key at once when the namespace is being terminated. Everything else retries for ever,
//! each with its own back-off.

mod common;

use std::time::Duration;

use common::*;
use reconcile_lab::engine::apiserver::{DeleteOptions, Patch};
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::cloud::CloudFault;
use reconcile_lab::engine::world::{ActionKind, Actor, Settled, StepRecord, World};
use serde_json::json;

/// The reconciles of `key` by `controller` (any process) since record `from`.
fn reconciles<'a>(w: &'a World, controller: &str, key: &str, from: usize) -> Vec<&'a StepRecord> {
    w.history()
        .iter()
        .filter(|r| r.number as usize > from)
        .filter(|r| r.action == ActionKind::Reconcile && r.worked_key() == Some(key))
        .filter(|r| matches!(&r.actor, Actor::Controller { controller: c, .. } if c == controller))
        .collect()
}

/// The back-off each failed reconcile announced ("will retry in 5ms").
fn retry_delays(records: &[&StepRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| r.sentence.split("will retry in ").nth(1))
        .map(|rest| rest.split(' ').next().unwrap_or("").to_string())
        .collect()
}

/// Steps until `done` holds (at most `cap` steps).
fn step_until(w: &mut World, cap: usize, done: impl Fn(&World) -> bool) {
    for _ in 0..cap {
        if done(w) {
            return;
        }
        w.step().expect("something can happen");
    }
    assert!(done(w), "not reached in {cap} steps");
}

fn scale(w: &mut World, ns: &str, name: &str, replicas: i64) {
    let patch = Patch::Merge(json!({"spec": {"replicas": replicas}}));
    w.patch(kind("Deployment"), Some(ns), name, patch).expect("scaled");
}

fn web_in(ns: &str, replicas: i64) -> serde_json::Value {
    let mut d = deployment("web", replicas, "nginx");
    d["metadata"]["namespace"] = json!(ns);
    d
}

const MS: [&str; 15] = [
    "5ms", "10ms", "20ms", "40ms", "80ms", "160ms", "320ms", "640ms", "1.28s", "2.56s", "5.12s", "10.24s", "20.48s",
    "40.96s", "1m21s",
];

/// `handleErr` with `maxRetries = 15`: the first sync and 15 retries (5 ms doubling to 81.92 s)
/// fail, then the key is dropped. Nothing retries it, not even the cause going away; the next
/// event for the Deployment brings it back.
#[test]
fn deployment_controller_drops_a_key_after_15_retries() {
    let mut w = World::new(4);
    w.create(deployment("web", 2, "nginx")).unwrap();
    w.run_until_idle(5000);
    let from = w.position();
    w.revoke("deployment-controller").unwrap();
    scale(&mut w, "default", "web", 3);
    assert!(matches!(w.run_until_idle(5000), Settled::Idle { .. }));

    let syncs = reconciles(&w, "deployment-controller", "default/web", from);
    assert_eq!(syncs.len(), 16, "the first sync and 15 retries");
    assert!(syncs.iter().all(|r| r
        .sentence
        .contains("is forbidden: User \"system:serviceaccount:kube-system:deployment-controller\"")));
    assert_eq!(retry_delays(&syncs), MS);
    let last = &syncs[15].sentence;
    assert!(
        last.ends_with("after 15 retries, so it drops default/web out of the queue (Forget): nothing retries it until an event adds it again."),
        "{last}"
    );
    let leader = w.processes().iter().find(|p| p.leading()).unwrap();
    let slot = leader.slots.iter().find(|s| s.controller.name() == "deployment-controller").unwrap();
    assert!(!slot.queue.contains(&"default/web".to_string()));
    assert!(slot.queue.delayed_keys().is_empty());
    assert_eq!(slot.queue.num_requeues(&"default/web".to_string()), 0, "a dropped key is forgotten");

    // The permissions come back: nothing happens, the key was dropped.
    w.grant("deployment-controller").unwrap();
    w.advance(Duration::from_secs(600));
    assert_eq!(reconciles(&w, "deployment-controller", "default/web", from).len(), 16);
    let rs = list(&w, "ReplicaSet");
    assert_eq!(rs[0]["spec"]["replicas"], 2, "the scale was never carried out");

    // Any event for the Deployment brings the key back.
    let touch = Patch::Merge(json!({"metadata": {"annotations": {"touched": "yes"}}}));
    w.patch(kind("Deployment"), Some("default"), "web", touch).unwrap();
    w.run_until_idle(5000);
    assert_converged(&w, "web", 3);
}

/// The namespace is being terminated: creating the new ReplicaSet is refused with a
/// `NamespaceTerminating` cause, and `handleErr` forgets the key instead of retrying.
#[test]
fn deployment_controller_forgets_a_key_when_the_namespace_terminates() {
    let mut w = World::new(4);
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "old"}})).unwrap();
    w.create(web_in("old", 1)).unwrap();
    w.run_until_idle(5000);
    // Nobody deletes the namespace's content: it stays Terminating with the Deployment in it.
    w.revoke("namespace-controller").unwrap();
    w.delete(kind("Namespace"), None, "old", DeleteOptions::default()).unwrap();
    let from = w.position();
    let image =
        Patch::Merge(json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}));
    w.patch(kind("Deployment"), Some("old"), "web", image).unwrap();
    w.run_until_idle(5000);

    let syncs = reconciles(&w, "deployment-controller", "old/web", from);
    let refused =
        syncs.iter().find(|r| r.calls.iter().any(|c| c.verb == "CREATE" && c.code == 403)).expect("a refused create");
    assert!(refused.sentence.contains("because it is being terminated"), "{}", refused.sentence);
    assert!(
        refused.sentence.ends_with("and does not retry: the namespace is being terminated, so it forgets old/web."),
        "{}",
        refused.sentence
    );
    assert!(retry_delays(&syncs).is_empty(), "no back-off: {:?}", retry_delays(&syncs));
}

/// `processNextWorkItem` (pkg/controller/replicaset/replica_set.go): every failure is retried with
/// back-off, however many there were.
#[test]
fn replicaset_controller_retries_for_ever() {
    let mut w = World::new(4);
    w.create(deployment("web", 1, "nginx")).unwrap();
    w.run_until_idle(5000);
    let from = w.position();
    w.revoke("replicaset-controller").unwrap();
    scale(&mut w, "default", "web", 2);
    let rs = list(&w, "ReplicaSet")[0].key();
    step_until(&mut w, 20_000, |w| reconciles(w, "replicaset-controller", &rs, from).len() >= 18);
    let syncs = reconciles(&w, "replicaset-controller", &rs, from);
    let delays = retry_delays(&syncs);
    assert_eq!(delays.len(), syncs.len(), "every failure is retried: {:?}", syncs.last().map(|r| &r.sentence));
    assert_eq!(delays[..15], MS);
    assert_eq!(delays[16], "5m27s", "still doubling after 16 retries (327.68 s)");
}

/// `attemptToDeleteWorker` (pkg/controller/garbagecollector/garbagecollector.go): a failed delete
/// is requeued with back-off, for ever.
#[test]
fn garbage_collector_retries_for_ever() {
    let mut w = World::new(4);
    w.create(deployment("web", 1, "nginx")).unwrap();
    w.run_until_idle(5000);
    let rs = list(&w, "ReplicaSet")[0].clone();
    let from = w.position();
    w.revoke("garbage-collector-controller").unwrap();
    w.delete(kind("Deployment"), Some("default"), "web", DeleteOptions::default()).unwrap();
    let failures = |w: &World| {
        w.history()
            .iter()
            .filter(|r| r.number as usize > from && r.action == ActionKind::Reconcile)
            .filter(|r| matches!(&r.actor, Actor::Controller { controller, .. } if controller == "garbage-collector-controller"))
            .filter(|r| r.worked_key().is_some_and(|k| k.contains(&rs.key())) && r.calls.iter().any(|c| c.code == 403))
            .map(|r| r.sentence.clone())
            .collect::<Vec<_>>()
    };
    step_until(&mut w, 20_000, |w| failures(w).len() >= 17);
    assert!(failures(&w).iter().all(|s| s.contains("will retry in")), "{:?}", failures(&w).last());
    assert!(failures(&w)[0].contains("system:serviceaccount:kube-system:generic-garbage-collector"));
    assert!(w.api().get(kind("ReplicaSet"), Some("default"), rs.name()).is_ok(), "still there, still retried");
}

/// The namespace controller's `worker` (pkg/controller/namespace/namespace_controller.go): an
/// error other than content still remaining is requeued with its own back-off (5 ms to 60 s), for
/// ever.
#[test]
fn namespace_controller_retries_for_ever() {
    let mut w = World::new(4);
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "old"}})).unwrap();
    w.run_until_idle(5000);
    let from = w.position();
    w.revoke("namespace-controller").unwrap();
    w.delete(kind("Namespace"), None, "old", DeleteOptions::default()).unwrap();
    step_until(&mut w, 20_000, |w| reconciles(w, "namespace-controller", "old", from).len() >= 18);
    let syncs = reconciles(&w, "namespace-controller", "old", from);
    let delays = retry_delays(&syncs);
    assert_eq!(delays.len(), syncs.len(), "every failure is retried");
    assert_eq!(delays[17], "1m0s", "capped at a minute");
    assert_eq!(w.api().get(kind("Namespace"), None, "old").unwrap()["status"]["phase"], "Terminating");
}

/// A ReplicaSet in a namespace being terminated: its pod creates are refused, which
/// `manageReplicas` treats as done ("any creation will fail", replica_set.go), with no
/// FailedCreate event (controller_utils.go) and no retry.
#[test]
fn replicaset_controller_ignores_creates_refused_by_a_terminating_namespace() {
    let mut w = World::new(4);
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "old"}})).unwrap();
    w.create(web_in("old", 1)).unwrap();
    w.run_until_idle(5000);
    w.revoke("namespace-controller").unwrap();
    w.delete(kind("Namespace"), None, "old", DeleteOptions::default()).unwrap();
    let pods = w.api().list(kind("Pod"), Some("old"), &Default::default()).unwrap().items;
    let from = w.position();
    let force = DeleteOptions { grace_period_seconds: Some(0), ..Default::default() };
    w.delete(kind("Pod"), Some("old"), pods[0].name(), force).unwrap();
    w.run_until_idle(5000);

    let rs = w.api().list(kind("ReplicaSet"), Some("old"), &Default::default()).unwrap().items[0].key();
    let syncs = reconciles(&w, "replicaset-controller", &rs, from);
    let refused =
        syncs.iter().find(|r| r.calls.iter().any(|c| c.verb == "CREATE" && c.code == 403)).expect("a refused create");
    assert!(!refused.sentence.contains("failed"), "{}", refused.sentence);
    assert!(retry_delays(&syncs).is_empty(), "no back-off: {:?}", retry_delays(&syncs));
    assert!(events(&w, "FailedCreate").is_empty(), "{:?}", events(&w, "FailedCreate"));
}

/// kube-scheduler never drops a pod. One whose binding failed is retried after its back-off,
/// 1 s doubling to 10 s (`DefaultPodInitialBackoffDuration`, `DefaultPodMaxBackoffDuration`,
/// pkg/scheduler/backend/queue/scheduling_queue.go).
#[test]
fn scheduler_backs_off_from_one_to_ten_seconds() {
    let mut w = World::new(4);
    w.run_until_idle(5000);
    w.fail_api("kube-scheduler", Duration::from_secs(60)).unwrap();
    let from = w.position();
    w.create(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
        .unwrap();
    w.run_until_idle(5000);
    let syncs = reconciles(&w, "default-scheduler", "default/p", from);
    let delays = retry_delays(&syncs);
    assert_eq!(delays[..7], ["1s", "2s", "4s", "8s", "10s", "10s", "10s"]);
    let p = w.api().get(kind("Pod"), Some("default"), "p").unwrap();
    assert!(!p["spec"]["nodeName"].as_str().unwrap_or("").is_empty(), "bound once the API answered again");
}

/// A pod that fits no node waits among the unschedulable pods: for a Node event, or at the latest
/// `DefaultPodMaxInUnschedulablePodsDuration` (5 minutes). It is not a hot loop.
#[test]
fn scheduler_parks_an_unschedulable_pod_until_a_node_event() {
    let mut w = World::new(4);
    w.run_until_idle(5000);
    for n in ["node-1", "node-2", "node-3"] {
        w.patch(kind("Node"), None, n, Patch::Merge(json!({"spec": {"unschedulable": true}}))).unwrap();
    }
    w.run_until_idle(5000);
    let from = w.position();
    w.create(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
        .unwrap();
    assert!(matches!(w.run_until_idle(5000), Settled::Idle { .. }));
    let syncs = reconciles(&w, "default-scheduler", "default/p", from);
    assert_eq!(syncs.len(), 1, "tried once, then parked");
    assert!(syncs[0].sentence.ends_with("It looks again in 5m0s."), "{}", syncs[0].sentence);
    w.patch(kind("Node"), None, "node-2", Patch::Merge(json!({"spec": {"unschedulable": null}}))).unwrap();
    w.run_until_idle(5000);
    assert_eq!(w.api().get(kind("Pod"), Some("default"), "p").unwrap()["spec"]["nodeName"], "node-2");
}

/// The kubelet's pod worker retries a failed sync after `backOffPeriod` (10 s,
/// pkg/kubelet/pod_workers.go `completeWork`), again and again.
#[test]
fn kubelet_retries_every_ten_seconds() {
    let mut w = World::new(4);
    w.create(deployment("web", 1, "nginx")).unwrap();
    w.run_until_idle(5000);
    w.fail_api("kubelet", Duration::from_secs(45)).unwrap();
    let from = w.position();
    scale(&mut w, "default", "web", 2);
    w.run_until_idle(5000);
    let delays: Vec<String> = w
        .history()
        .iter()
        .filter(|r| r.number as usize > from && r.action == ActionKind::Reconcile)
        .filter(|r| matches!(&r.actor, Actor::Controller { controller, .. } if controller == "kubelet"))
        .filter_map(|r| {
            r.sentence.split("will retry in ").nth(1).map(|s| s.split(' ').next().unwrap_or("").to_string())
        })
        .collect();
    assert!(delays.len() >= 4, "{delays:?}");
    assert!(delays.iter().all(|d| d == "10s"), "{delays:?}");
    assert_converged(&w, "web", 2);
}

/// controller-runtime's `reconcileHandler` requeues every error with `AddRateLimited` and never
/// drops a request: the Bucket operator keeps retrying while the cloud fails.
#[test]
fn bucket_operator_retries_for_ever() {
    let mut w = World::new(4);
    w.run_until_idle(5000);
    w.cloud_fault(Some(CloudFault::Failing)).unwrap();
    let from = w.position();
    w.create(json!({"apiVersion": "example.com/v1", "kind": "Bucket",
                    "metadata": {"name": "photos", "namespace": "default"},
                    "spec": {"region": "eu-west-1", "versioning": true}}))
        .unwrap();
    step_until(&mut w, 20_000, |w| reconciles(w, "bucket-controller", "default/photos", from).len() >= 18);
    let syncs = reconciles(&w, "bucket-controller", "default/photos", from);
    let delays = retry_delays(&syncs);
    assert!(delays.len() >= 17, "{:?}", syncs.last().map(|r| &r.sentence));
    assert_eq!(delays[16], "5m27s");
}
