//! The garbage collector through the world (k/k `pkg/controller/garbagecollector/
//! garbagecollector.go`): the propagation policies, dangling owners, cross-namespace rules, the
//! owner graph's invariants, and
//! convergence after faults.
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]

mod common;

use std::time::Duration;

use common::*;
use reconcile_lab::engine::apiserver::{DeleteOptions, Deleted, Propagation, WatchFrom, WatchId};
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{Settled, Verb, World, CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B};
use serde_json::{json, Value};

/// One watch event as a test sees it: (type, kind, name, object).
type Seen = (String, String, String, Value);

/// Watches several kinds in every namespace from the current revision, and returns their events
/// merged in resourceVersion order (one global counter, so this is the order they happened in).
struct Recorder {
    watches: Vec<WatchId>,
}

impl Recorder {
    fn start(w: &mut World, kinds: &[&str]) -> Recorder {
        let rv = w.api().resource_version();
        let watches = kinds
            .iter()
            .map(|k| w.api_mut().watch(kind(k), None, Selector::everything(), WatchFrom::Exact(rv)))
            .collect();
        Recorder { watches }
    }

    fn drain(&self, w: &mut World) -> Vec<Seen> {
        let mut out = Vec::new();
        for id in &self.watches {
            while let Some(ev) = w.api_mut().next_event(*id) {
                let o = ev.object;
                out.push((ev.event_type.as_str().to_string(), o.kind().to_string(), o.name().to_string(), o));
            }
        }
        out.sort_by_key(|e| e.3.resource_version());
        out
    }
}

fn settle(w: &mut World) {
    match w.run_until_idle(20_000) {
        Settled::Idle { .. } => {}
        other => panic!("did not settle: {other:?}"),
    }
}

fn opts(p: Propagation) -> DeleteOptions {
    DeleteOptions { propagation_policy: Some(p), ..DeleteOptions::default() }
}

/// Position of the first event matching (type, kind, name prefix).
fn pos(evs: &[Seen], t: &str, k: &str, name: &str) -> usize {
    evs.iter()
        .position(|e| e.0 == t && e.1 == k && e.2.starts_with(name))
        .unwrap_or_else(|| panic!("no {t} {k} {name}* in {:?}", summary(evs)))
}

fn summary(evs: &[Seen]) -> Vec<String> {
    evs.iter().map(|e| format!("{} {} {}", e.0, e.1, e.2)).collect()
}

fn graph_ok(w: &World) {
    let gc = w.garbage_collector().expect("a leader runs the garbage collector");
    gc.graph().check_invariants().unwrap();
}

/// A world with Deployment `web` (3 replicas) converged.
fn web() -> World {
    let mut w = World::new(7);
    w.create(deployment("web", 3, "nginx")).unwrap();
    settle(&mut w);
    assert_converged(&w, "web", 3);
    w
}

fn cm(name: &str, ns: &str, owners: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns, "ownerReferences": owners}})
}

fn owner_ref(o: &Value, block: Option<bool>) -> Value {
    let mut r = json!({"apiVersion": o.api_version(), "kind": o.kind(), "name": o.name(), "uid": o.uid()});
    if let Some(b) = block {
        r["blockOwnerDeletion"] = json!(b);
    }
    r
}

/// `garbagecollector.go` `attemptToDeleteItem` (background): background cascade. The Deployment
/// goes at once, then the GC deletes the ReplicaSet, then its pods (graceful: MODIFIED with a
/// deletionTimestamp, then DELETED by the kubelet).
#[test]
fn tv23_background_cascade() {
    let mut w = web();
    let rec = Recorder::start(&mut w, &["Deployment", "ReplicaSet", "Pod"]);
    let r = w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Background)).unwrap();
    assert!(matches!(r, Deleted::Gone(_)), "background delete removes the owner at once");
    settle(&mut w);
    let evs = rec.drain(&mut w);
    assert_eq!(evs[0].0, "DELETED", "{:?}", summary(&evs));
    assert_eq!(evs[0].1, "Deployment");
    let rs_deleted = pos(&evs, "DELETED", "ReplicaSet", "web-");
    let first_pod = evs.iter().position(|e| e.1 == "Pod").unwrap();
    assert!(rs_deleted < first_pod, "RS DELETED before any pod changes: {:?}", summary(&evs));
    for e in evs.iter().filter(|e| e.1 == "Pod") {
        assert_ne!(e.0, "ADDED", "the ReplicaSet controller must not recreate pods: {:?}", summary(&evs));
    }
    let pod_mods: Vec<&Seen> = evs.iter().filter(|e| e.1 == "Pod" && e.0 == "MODIFIED").collect();
    assert!(pod_mods.iter().any(|e| e.3["metadata"]["deletionGracePeriodSeconds"] == 30));
    assert_eq!(evs.iter().filter(|e| e.1 == "Pod" && e.0 == "DELETED").count(), 3);
    assert!(list(&w, "ReplicaSet").is_empty() && list(&w, "Pod").is_empty());
    graph_ok(&w);
}

/// `garbagecollector.go` `processDeletingDependentsItem` (foreground): foreground cascade. DELETED
/// order: pods < ReplicaSet < Deployment; both owners wait with `foregroundDeletion`,
/// deletionGracePeriodSeconds 0 and generation + 1.
#[test]
fn tv24_foreground_cascade() {
    let mut w = web();
    let gen = w.api().get(kind("Deployment"), Some("default"), "web").unwrap().generation();
    let rs_gen = list(&w, "ReplicaSet")[0].generation();
    let rec = Recorder::start(&mut w, &["Deployment", "ReplicaSet", "Pod"]);
    let r = w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Foreground)).unwrap();
    let Deleted::Pending(d) = r else { panic!("foreground keeps the owner") };
    assert_eq!(d.finalizers(), vec!["foregroundDeletion"]);
    settle(&mut w);
    let evs = rec.drain(&mut w);
    let s = summary(&evs);
    let first = &evs[0];
    assert_eq!((first.0.as_str(), first.1.as_str()), ("MODIFIED", "Deployment"), "{s:?}");
    assert_eq!(first.3["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    assert_eq!(first.3["metadata"]["deletionGracePeriodSeconds"], 0);
    assert!(first.3["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(first.3.generation(), gen + 1);
    let rs_mod = evs
        .iter()
        .find(|e| e.1 == "ReplicaSet" && e.0 == "MODIFIED" && e.3.is_deleting())
        .unwrap_or_else(|| panic!("RS deleted in the foreground: {s:?}"));
    assert_eq!(rs_mod.3["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    assert_eq!(rs_mod.3["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(rs_mod.3.generation(), rs_gen + 1, "generation bumped by the deletion");
    let last_pod = evs.iter().rposition(|e| e.1 == "Pod" && e.0 == "DELETED").unwrap();
    let rs_deleted = pos(&evs, "DELETED", "ReplicaSet", "web-");
    let deploy_deleted = pos(&evs, "DELETED", "Deployment", "web");
    assert!(last_pod < rs_deleted && rs_deleted < deploy_deleted, "pods < RS < deploy: {s:?}");
    assert_eq!(evs.iter().filter(|e| e.1 == "Pod" && e.0 == "DELETED").count(), 3);
    assert_eq!(deploy_deleted, evs.len() - 1, "the Deployment goes last: {s:?}");
    graph_ok(&w);
}

/// `garbagecollector.go` `processDeletingDependentsItem` (blockOwnerDeletion): in foreground
/// deletion every dependent is deleted, but the owner waits only for the ones with
/// blockOwnerDeletion.
#[test]
fn tv25_non_blocking_dependent() {
    let mut w = World::new(3);
    settle(&mut w);
    let owner = w.create(cm("cm-owner", "default", json!([]))).unwrap();
    w.create(cm("cm-a", "default", json!([owner_ref(&owner, Some(true))]))).unwrap();
    let mut b = cm("cm-b", "default", json!([owner_ref(&owner, None)]));
    b["metadata"]["finalizers"] = json!(["example.com/hold"]);
    w.create(b).unwrap();
    settle(&mut w);
    let rec = Recorder::start(&mut w, &["ConfigMap"]);
    w.delete(kind("ConfigMap"), Some("default"), "cm-owner", opts(Propagation::Foreground)).unwrap();
    settle(&mut w);
    let evs = rec.drain(&mut w);
    let s = summary(&evs);
    let a_gone = pos(&evs, "DELETED", "ConfigMap", "cm-a");
    let owner_gone = pos(&evs, "DELETED", "ConfigMap", "cm-owner");
    assert!(a_gone < owner_gone, "{s:?}");
    let b_now = w.api().get(kind("ConfigMap"), Some("default"), "cm-b").expect("cm-b is held by its finalizer");
    assert!(b_now.is_deleting(), "cm-b was deleted too (it only waits for its finalizer)");
    assert!(!evs.iter().any(|e| e.0 == "DELETED" && e.2 == "cm-b"), "{s:?}");
    graph_ok(&w);
}

/// `garbagecollector.go` `orphanDependents`: orphan. The owner waits with `orphan` while the GC
/// removes its reference from the ReplicaSet; the ReplicaSet and its pods stay, the pods keep their
/// reference to it.
#[test]
fn tv26_orphan() {
    let mut w = web();
    let rec = Recorder::start(&mut w, &["Deployment", "ReplicaSet", "Pod"]);
    w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Orphan)).unwrap();
    settle(&mut w);
    let evs = rec.drain(&mut w);
    let s = summary(&evs);
    assert_eq!((evs[0].0.as_str(), evs[0].1.as_str()), ("MODIFIED", "Deployment"), "{s:?}");
    assert_eq!(evs[0].3["metadata"]["finalizers"], json!(["orphan"]));
    let rs_mod = pos(&evs, "MODIFIED", "ReplicaSet", "web-");
    assert!(evs[rs_mod].3["metadata"].get("ownerReferences").is_none(), "{}", evs[rs_mod].3);
    let gone = pos(&evs, "DELETED", "Deployment", "web");
    assert!(rs_mod < gone, "{s:?}");
    assert!(!evs.iter().any(|e| e.1 == "Pod" && e.0 == "DELETED"), "{s:?}");
    let rss = list(&w, "ReplicaSet");
    assert_eq!(rss.len(), 1);
    assert!(rss[0].owner_references().is_empty());
    let pods = list(&w, "Pod");
    assert_eq!(pods.len(), 3);
    assert!(pods.iter().all(|p| p.controller_ref().is_some_and(|r| r.uid == rss[0].uid())));
    graph_ok(&w);
}

/// `garbagecollector.go` `attemptToDeleteItem` (dangling owner): a dangling owner (404 on a live
/// GET) gets its dependent collected; a dependent that also has a live owner only loses the
/// dangling reference.
#[test]
fn tv27_dangling_owner() {
    let mut w = World::new(5);
    settle(&mut w);
    let ghost = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "ghost",
        "uid": "00000000-0000-0000-0000-000000000001"});
    let live = w.create(cm("live", "default", json!([]))).unwrap();
    w.create(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default",
        "ownerReferences": [ghost]}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
        .unwrap();
    w.create(cm("both", "default", json!([ghost, owner_ref(&live, None)]))).unwrap();
    let rec = Recorder::start(&mut w, &["Pod", "ConfigMap"]);
    settle(&mut w);
    assert!(w.api().get(kind("Pod"), Some("default"), "p").is_err(), "p is garbage-collected");
    let both = w.api().get(kind("ConfigMap"), Some("default"), "both").expect("both survives");
    let refs: Vec<String> = both.owner_references().into_iter().map(|r| r.name).collect();
    assert_eq!(refs, vec!["live"]);
    let evs = rec.drain(&mut w);
    assert!(evs.iter().any(|e| e.0 == "MODIFIED" && e.2 == "both"), "{:?}", summary(&evs));
    // The GC verified the ghost with a live GET.
    let gets = w
        .history()
        .iter()
        .flat_map(|r| &r.calls)
        .filter(|c| c.verb == Verb::Get && c.target.is_object("ReplicaSet", Some("default"), "ghost"));
    assert!(gets.clone().count() >= 1 && gets.clone().all(|c| c.code == 404));
    graph_ok(&w);
}

/// `garbagecollector.go` `attemptToDeleteItem` (uid mismatch): a reference whose uid does not match
/// the live owner (deleted and recreated under the same name) is dangling: the dependent is
/// collected.
#[test]
fn tv28_uid_mismatch_is_dangling() {
    let mut w = web();
    let old = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Orphan)).unwrap();
    settle(&mut w);
    let new = w.create(deployment("web", 3, "nginx")).unwrap();
    assert_ne!(new.uid(), old.uid());
    w.create(cm("stale", "default", json!([owner_ref(&old, Some(true))]))).unwrap();
    w.create(cm("fresh", "default", json!([owner_ref(&new, Some(true))]))).unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("ConfigMap"), Some("default"), "stale").is_err(), "stale reference collected");
    assert!(w.api().get(kind("ConfigMap"), Some("default"), "fresh").is_ok(), "solid reference kept");
    // After orphaning (`sync.go` `getReplicaSetsForDeployment` adopts): the recreated Deployment
    // adopts the orphaned ReplicaSet.
    assert_converged(&w, "web", 3);
    graph_ok(&w);
}

/// A namespaced owner is looked up in the dependent's namespace: a reference across namespaces is
/// absent there, so the dependent is collected, with a Warning Event `OwnerRefInvalidNamespace`.
/// A cluster-scoped dependent naming a namespaced owner is never collected.
#[test]
fn cross_namespace_references() {
    let mut w = World::new(11);
    for ns in ["a", "b"] {
        w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})).unwrap();
    }
    let owner = w.create(cm("owner", "a", json!([]))).unwrap();
    settle(&mut w);
    w.create(cm("dep", "b", json!([owner_ref(&owner, None)]))).unwrap();
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "c",
        "ownerReferences": [owner_ref(&owner, None)]}}))
        .unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("ConfigMap"), Some("b"), "dep").is_err(), "dep collected");
    assert!(w.api().get(kind("Namespace"), None, "c").is_ok_and(|n| !n.is_deleting()), "namespace c never collected");
    let warnings = events(&w, "OwnerRefInvalidNamespace");
    let expected = format!(
        "ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: {}] does not exist in namespace \"b\"",
        owner.uid()
    );
    // `events` lists the default namespace's Events; the Warning is in b.
    let in_b: Vec<String> = w
        .api()
        .list(kind("Event"), Some("b"), &Selector::everything())
        .unwrap()
        .items
        .iter()
        .filter(|e| e["reason"] == "OwnerRefInvalidNamespace")
        .map(|e| s(&e["message"]))
        .collect();
    assert!(warnings.is_empty() || warnings.contains(&expected));
    assert_eq!(in_b, vec![expected]);
    graph_ok(&w);
}

/// The graph mirrors ownership while a Deployment is built: Deployment → ReplicaSet → pods.
#[test]
fn owner_graph_mirrors_the_cluster() {
    let w = web();
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    let rs = list(&w, "ReplicaSet").remove(0);
    let pods: Vec<String> = list(&w, "Pod").iter().map(|p| p.uid().to_string()).collect();
    let gc = w.garbage_collector().unwrap();
    let g = gc.graph();
    g.check_invariants().unwrap();
    let dn = g.node(d.uid()).unwrap();
    assert!(!dn.is_virtual && dn.dependents.contains(rs.uid()));
    let rn = g.node(rs.uid()).unwrap();
    let mut deps: Vec<String> = rn.dependents.iter().map(|d| d.to_string()).collect();
    deps.sort();
    let mut pods = pods;
    pods.sort();
    assert_eq!(deps, pods);
    assert_eq!(g.blocking_dependents(rs.uid()).len(), 3);
    let edges = g.edges();
    assert_eq!(edges.len(), 4, "deployment → rs, rs → 3 pods: {edges:?}");
    assert!(edges.contains(&(d.uid(), rs.uid(), true)));
    assert_eq!(edges.iter().filter(|e| e.0 == rs.uid() && e.2).count(), 3);
}

/// Faults during a foreground deletion: the leader crashes mid-cascade and the other replica's
/// fresh garbage collector finishes it from its relisted graph.
#[test]
fn foreground_cascade_survives_a_leader_crash() {
    let mut w = web();
    let leader =
        if w.process(CONTROLLER_MANAGER_A).unwrap().leading() { CONTROLLER_MANAGER_A } else { CONTROLLER_MANAGER_B };
    w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Foreground)).unwrap();
    for _ in 0..25 {
        w.step();
    }
    w.kill_process(leader).unwrap();
    settle(&mut w);
    w.start_process(leader).unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("Deployment"), Some("default"), "web").is_err());
    assert!(list(&w, "ReplicaSet").is_empty() && list(&w, "Pod").is_empty());
    graph_ok(&w);
    assert_caches_match(&w);
}

/// A broken watch and an expired history during a background cascade: the informers relist,
/// the graph catches up, and everything whose owner is gone is collected.
#[test]
fn background_cascade_survives_broken_watches_and_expired_history() {
    let mut w = web();
    let leader =
        if w.process(CONTROLLER_MANAGER_A).unwrap().leading() { CONTROLLER_MANAGER_A } else { CONTROLLER_MANAGER_B };
    w.break_watch(leader, "ReplicaSet").unwrap();
    w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Background)).unwrap();
    for _ in 0..5 {
        w.step();
    }
    w.expire_history().unwrap();
    settle(&mut w);
    assert!(list(&w, "ReplicaSet").is_empty() && list(&w, "Pod").is_empty());
    graph_ok(&w);
    assert_caches_match(&w);
}

/// Failing API calls: the GC's deletes fail with 500 for a while, it retries with back-off, and
/// collects everything once the API answers again.
#[test]
fn collection_retries_through_failing_api_calls() {
    let mut w = web();
    let leader =
        if w.process(CONTROLLER_MANAGER_A).unwrap().leading() { CONTROLLER_MANAGER_A } else { CONTROLLER_MANAGER_B };
    w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Background)).unwrap();
    w.fail_api(leader, Duration::from_secs(5)).unwrap();
    settle(&mut w);
    assert!(list(&w, "ReplicaSet").is_empty() && list(&w, "Pod").is_empty());
    let failed = w.history().iter().flat_map(|r| &r.calls).any(|c| c.code == 500);
    assert!(failed, "some call failed during the fault");
    graph_ok(&w);
}

/// Conflicting writes: another client changes the owner right before the collector's finalizer
/// patch (409 on the resourceVersion precondition); it re-reads and retries within the same
/// run, as `retry.RetryOnConflict` does. A partitioned leader is replaced and the new one
/// finishes the cascade.
#[test]
fn conflicts_and_partitions_during_a_foreground_cascade() {
    let mut w = web();
    let leader =
        if w.process(CONTROLLER_MANAGER_A).unwrap().leading() { CONTROLLER_MANAGER_A } else { CONTROLLER_MANAGER_B };
    w.delete(kind("Deployment"), Some("default"), "web", opts(Propagation::Foreground)).unwrap();
    for _ in 0..40 {
        w.conflict_next_write(leader).unwrap();
        w.step();
    }
    w.partition(leader).unwrap();
    w.advance(Duration::from_secs(30));
    w.heal(leader).unwrap();
    settle(&mut w);
    assert!(w.api().get(kind("Deployment"), Some("default"), "web").is_err());
    assert!(list(&w, "ReplicaSet").is_empty() && list(&w, "Pod").is_empty());
    let conflicts = w.history().iter().flat_map(|r| &r.calls).filter(|c| c.code == 409).count();
    assert!(conflicts > 0, "the injected writes caused conflicts");
    graph_ok(&w);
    assert_caches_match(&w);
}
