//! Each fault the world can inject: while it lasts things go wrong in the way they do on a real
//! cluster; after it ends and the world settles, the level-triggered controllers converge.

mod common;

use std::time::Duration;

use common::*;
use reconcile_lab::engine::apiserver::Patch;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{ActionKind, Settled, World, CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B};
use serde_json::json;

fn settle(w: &mut World) {
    let s = w.run_until_idle(50_000);
    assert!(matches!(s, Settled::Idle { .. }), "{s:?}");
}

/// Creates `web` with 3 replicas and takes `n` steps.
fn started(seed: u64, n: usize) -> World {
    let mut w = World::new(seed);
    w.create(deployment("web", 3, "nginx")).unwrap();
    for _ in 0..n {
        w.step();
    }
    w
}

/// A watch that broke before it delivered anything, under a second after it started, is an error
/// to client-go ("very short watch", reflector.go `handleAnyWatch`): the reflector backs off and
/// relists.
#[test]
fn broken_watch_loses_in_flight_events_then_catches_up() {
    let mut w = started(21, 40);
    let r = w.break_watch(CONTROLLER_MANAGER_A, "Pod").unwrap();
    assert!(r.sentence.contains("broke"), "{}", r.sentence);
    settle(&mut w);
    let h = w.history();
    assert!(h.iter().any(|r| r.sentence.contains("very short watch")));
    assert!(h.iter().any(|r| r.action == ActionKind::List
        && r.sentence.starts_with("The Pod informer of kube-controller-manager-a relisted")));
    assert_converged(&w, "web", 3);
    assert_caches_match(&w);
}

/// A watch that had delivered events and breaks is resumed at once from the last resourceVersion
/// (reflector.go `watch`: the stream ends, `w = nil`, the loop watches again, no back-off, no
/// relist); the API server replays what was lost from its history.
#[test]
fn broken_watch_is_resumed_at_once_and_replayed() {
    let mut w = World::new(21);
    w.create(deployment("web", 3, "nginx")).unwrap();
    settle(&mut w);
    let pod = list(&w, "Pod").first().map(|p| p.name().to_string()).expect("a pod");
    let broke = w.break_watch(CONTROLLER_MANAGER_A, "Pod").unwrap();
    w.delete(kind("Pod"), Some("default"), &pod, Default::default()).unwrap();
    settle(&mut w);
    let h = w.history();
    let rewatch = h
        .iter()
        .find(|r| {
            r.number > broke.number
                && r.sentence.starts_with(
                    "The Pod informer of kube-controller-manager-a watches pods again from resourceVersion",
                )
        })
        .expect("the reflector watched again");
    assert_eq!(rewatch.action, ActionKind::Rewatch);
    assert_eq!(rewatch.time, broke.time, "at once, without a back-off");
    assert!(!h.iter().any(|r| r.number > broke.number && r.action == ActionKind::List), "no relist");
    assert_converged(&w, "web", 3);
    assert_caches_match(&w);
}

#[test]
fn expired_history_forces_a_relist() {
    let mut w = started(22, 40);
    w.break_watch(CONTROLLER_MANAGER_A, "ReplicaSet").unwrap();
    // Changes happen while the watch is down, then the history is compacted.
    w.patch(kind("Deployment"), Some("default"), "web", Patch::Merge(json!({"spec": {"replicas": 4}}))).unwrap();
    w.expire_history().unwrap();
    settle(&mut w);
    let h = w.history();
    assert!(h.iter().any(|r| r.sentence.contains("got an ERROR event (410: too old resource version")), "410 seen");
    assert!(h.iter().any(|r| r.action == ActionKind::List && r.sentence.contains("relisted")), "relist seen");
    assert_converged(&w, "web", 4);
}

#[test]
fn restarted_controller_manager_loses_its_memory_and_recovers() {
    let mut w = started(23, 60);
    w.restart_process(CONTROLLER_MANAGER_A).unwrap();
    let a = w.process(CONTROLLER_MANAGER_A).unwrap();
    assert!(!a.leading() && a.caches.is_empty() && a.slots.iter().all(|s| s.queue.is_empty()));
    settle(&mut w);
    // The old identity's lease had to expire before anyone could lead again.
    let leaders = w.processes().iter().filter(|p| p.leading()).count();
    assert_eq!(leaders, 1);
    assert_converged(&w, "web", 3);
}

#[test]
fn stopped_controller_manager_nothing_happens_until_started() {
    let mut w = World::new(24);
    w.run_until_idle(1000);
    w.stop_process(CONTROLLER_MANAGER_A).unwrap();
    w.stop_process(CONTROLLER_MANAGER_B).unwrap();
    w.create(deployment("web", 2, "nginx")).unwrap();
    settle(&mut w);
    assert!(list(&w, "ReplicaSet").is_empty(), "no controller runs");
    w.start_process(CONTROLLER_MANAGER_B).unwrap();
    settle(&mut w);
    assert!(w.process(CONTROLLER_MANAGER_B).unwrap().leading());
    assert_converged(&w, "web", 2);
}

#[test]
fn failing_api_calls_are_retried_with_back_off() {
    let mut w = World::new(25);
    w.run_until_idle(1000);
    w.fail_api(CONTROLLER_MANAGER_A, Duration::from_secs(30)).unwrap();
    w.create(deployment("web", 3, "nginx")).unwrap();
    settle(&mut w);
    let failures: Vec<_> = w.history().iter().filter(|r| r.sentence.contains("will retry in")).collect();
    assert!(!failures.is_empty(), "reconciles failed and were requeued with back-off");
    assert!(w.history().iter().any(|r| r.calls.iter().any(|c| c.code == 500)));
    assert_converged(&w, "web", 3);
}

#[test]
fn a_conflicting_write_gets_409_and_the_controller_retries() {
    let mut w = World::new(26);
    w.run_until_idle(1000);
    w.create(deployment("web", 3, "nginx")).unwrap();
    w.conflict_next_write(CONTROLLER_MANAGER_A).unwrap();
    settle(&mut w);
    let conflict = w.history().iter().find(|r| r.calls.iter().any(|c| c.code == 409)).expect("a 409 in the records");
    assert!(conflict.calls.iter().any(|c| c.verb == "PATCH (another client)"));
    let lost = conflict.calls.iter().find(|c| c.code == 409).unwrap();
    assert!(lost.sent_resource_version > 0 && lost.stored_resource_version > lost.sent_resource_version, "{lost:?}");
    let msg = lost.error.clone().unwrap();
    assert!(
        msg.contains("the object has been modified; please apply your changes to the latest version and try again"),
        "{msg}"
    );
    assert_converged(&w, "web", 3);
}

#[test]
fn partitioned_leader_is_replaced_and_heals() {
    let mut w = started(27, 30);
    w.partition(CONTROLLER_MANAGER_A).unwrap();
    w.advance(Duration::from_secs(30));
    assert!(!w.process(CONTROLLER_MANAGER_A).unwrap().leading());
    assert!(w.process(CONTROLLER_MANAGER_B).unwrap().leading());
    w.heal(CONTROLLER_MANAGER_A).unwrap();
    settle(&mut w);
    assert_eq!(w.processes().iter().filter(|p| p.leading()).count(), 1);
    assert_converged(&w, "web", 3);
}

#[test]
fn paused_kubelets_keep_pods_pending() {
    let mut w = World::new(28);
    w.run_until_idle(1000);
    w.pause_kubelets().unwrap();
    w.create(deployment("web", 2, "nginx")).unwrap();
    settle(&mut w);
    let pods = list(&w, "Pod");
    assert_eq!(pods.len(), 2);
    assert!(pods.iter().all(|p| p["status"]["phase"] == "Pending"));
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    assert_eq!(condition(&d, "Available").unwrap()["status"], "False");
    w.resume_kubelets().unwrap();
    settle(&mut w);
    assert_converged(&w, "web", 2);
}

#[test]
fn slow_kubelets_take_longer() {
    let time_to_converge = |factor| {
        let mut w = World::new(29);
        w.run_until_idle(1000);
        w.slow_kubelets(factor).unwrap();
        let t0 = w.now();
        w.create(deployment("web", 2, "nginx")).unwrap();
        settle(&mut w);
        assert_converged(&w, "web", 2);
        let ready_at =
            w.history().iter().rev().find(|r| r.sentence.contains("kubelet reconciled")).map(|r| r.time).unwrap();
        ready_at.since(t0)
    };
    assert!(time_to_converge(5) >= time_to_converge(1) * 4);
}

#[test]
fn clock_jump_lets_expectations_and_deadlines_expire() {
    let mut w = started(30, 25);
    w.clock_jump(Duration::from_secs(3600)).unwrap();
    settle(&mut w);
    assert_converged(&w, "web", 3);
}

#[test]
fn failing_image_never_becomes_ready_then_recovers() {
    let mut w = World::new(31);
    w.run_until_idle(1000);
    w.fail_image("nginx:broken").unwrap();
    w.create(deployment("web", 2, "nginx:broken")).unwrap();
    settle(&mut w);
    let pods = list(&w, "Pod");
    let reasons: Vec<String> =
        pods.iter().map(|p| s(&p["status"]["containerStatuses"][0]["state"]["waiting"]["reason"])).collect();
    assert_eq!(reasons, vec!["ImagePullBackOff", "ImagePullBackOff"]);
    // The progress deadline (600 s) passes.
    w.advance(Duration::from_secs(660));
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    let p = condition(&d, "Progressing").unwrap();
    assert_eq!((s(&p["status"]), s(&p["reason"])), ("False".into(), "ProgressDeadlineExceeded".into()));
    let rs = &list(&w, "ReplicaSet")[0];
    assert_eq!(s(&p["message"]), format!("ReplicaSet \"{}\" has timed out progressing.", rs.name()));
    // Fixing the image: the kubelet's next pull succeeds.
    w.fix_image("nginx:broken").unwrap();
    w.advance(Duration::from_secs(30));
    settle(&mut w);
    assert_converged(&w, "web", 2);
    // A missed deadline is a report, not a verdict: syncRolloutStatus re-evaluates it, so the
    // recovered rollout is Progressing True NewReplicaSetAvailable again (progress.go).
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    let p = condition(&d, "Progressing").unwrap();
    assert_eq!((s(&p["status"]), s(&p["reason"])), ("True".into(), "NewReplicaSetAvailable".into()));
    assert_eq!(s(&p["message"]), format!("ReplicaSet \"{}\" has successfully progressed.", rs.name()));
}

/// Regression (found by the property test): with the ReplicaSet watch broken, the Deployment
/// controller's create of an existing ReplicaSet gets 409 AlreadyExists; since its cache does not
/// show the ReplicaSet yet, that is an error to retry, not a hash collision (no new hash, no
/// second ReplicaSet).
#[test]
fn already_exists_without_cache_entry_is_not_a_collision() {
    let mut w = World::new(32);
    w.run_until_idle(1000);
    w.break_watch(CONTROLLER_MANAGER_A, "ReplicaSet").unwrap();
    w.create(deployment("api", 2, "nginx")).unwrap();
    settle(&mut w);
    assert_eq!(list(&w, "ReplicaSet").len(), 1);
    let d = w.api().get(kind("Deployment"), Some("default"), "api").unwrap();
    assert!(d.pointer("/status/collisionCount").is_none());
    assert_converged(&w, "api", 2);
}

/// Bug 12 (docs/reliability.md): after a broken ReplicaSet watch, the ReplicaSet controller's
/// cache still held a ReplicaSet the user deleted, so it re-created each pod the garbage
/// collector deleted as dangling, at one virtual instant, while the reflector's re-watch waited
/// for its back-off. client-go does not wait: a stream that ends is watched again at once, so
/// the deletion reaches the cache in the next informer step and the world settles with no pod
/// left. (Work still takes time, `WORK_STEP`, for every other timer.)
#[test]
fn immediate_work_does_not_starve_the_reflectors_rewatch() {
    let mut w = World::new(345_728);
    w.create(deployment("web", 1, "nginx:1.27")).unwrap();
    for _ in 0..46 {
        w.step();
    }
    w.advance(Duration::from_secs(2));
    let rs = list(&w, "ReplicaSet").first().map(|r| r.name().to_string()).expect("a ReplicaSet");
    w.delete(kind("ReplicaSet"), Some("default"), &rs, Default::default()).unwrap();
    let background = reconcile_lab::engine::apiserver::DeleteOptions {
        propagation_policy: Some(reconcile_lab::engine::apiserver::Propagation::Background),
        ..Default::default()
    };
    w.delete(kind("Deployment"), Some("default"), "web", background).unwrap();
    let broke_at = w.now();
    w.break_watch(CONTROLLER_MANAGER_A, "ReplicaSet").unwrap();
    let s = w.run_until_idle(5_000);
    assert!(matches!(s, Settled::Idle { .. }), "{s:?}");
    let rewatch = w
        .history()
        .iter()
        .find(|r| {
            r.sentence.starts_with("The ReplicaSet informer of kube-controller-manager-a watches replicasets again")
        })
        .expect("the reflector watched again");
    assert_eq!(rewatch.time, broke_at, "at once");
    assert!(list(&w, "Pod").is_empty(), "{:?}", list(&w, "Pod").iter().map(|p| p.key()).collect::<Vec<_>>());
    assert_caches_match(&w);
}

/// client-go's leader election does not guarantee a single acting leader: there is no fencing
/// (tools/leaderelection/leaderelection.go, package doc). A leader frozen past its Lease's expiry,
/// its monotonic clock standing still, comes back believing it still leads; its controllers act
/// beside the new leader's, and the API server accepts their writes, until its next renewal fails
/// for the renew deadline. Then it exits and comes back as a new candidate.
#[test]
fn a_thawed_leader_acts_beside_the_new_one_until_its_renewal_fails() {
    let mut w = World::new(9);
    w.create(deployment("web", 2, "nginx")).unwrap();
    settle(&mut w);
    let a = |w: &World| w.process(CONTROLLER_MANAGER_A).unwrap().leading();
    let b = |w: &World| w.process(CONTROLLER_MANAGER_B).unwrap().leading();
    assert!(a(&w));
    w.freeze(CONTROLLER_MANAGER_A).unwrap();
    w.advance(Duration::from_secs(20));
    assert!(b(&w), "the standby took over once the Lease went unrenewed for 15 s");
    let thawed = w.thaw(CONTROLLER_MANAGER_A).unwrap();
    assert!(thawed.sentence.contains("it still believes it leads"), "{}", thawed.sentence);
    assert!(a(&w) && b(&w), "two replicas lead at once");

    let patch = Patch::Merge(json!({"spec": {"replicas": 4}}));
    w.patch(kind("Deployment"), Some("default"), "web", patch).unwrap();
    let from = w.position();
    let mut old_leader_wrote = None;
    for _ in 0..200 {
        let r = w.step().unwrap();
        let by_a = matches!(&r.actor, reconcile_lab::engine::world::Actor::Controller { process, .. } if process == CONTROLLER_MANAGER_A);
        if by_a && r.action == ActionKind::Reconcile && r.calls.iter().any(|c| c.verb != "GET" && c.code < 300) {
            old_leader_wrote = Some(r);
            break;
        }
    }
    let wrote = old_leader_wrote.expect("the old leader's controllers wrote, and the writes landed");
    assert!(wrote.sentence.contains(" of kube-controller-manager-a reconciled "), "{}", wrote.sentence);
    assert!(b(&w));

    w.advance(Duration::from_secs(15));
    let lost = "kube-controller-manager-a did not renew its Lease within the 10s renew deadline and stopped leading; \
                the process exits and restarts as a candidate with empty caches.";
    assert!(w.history().iter().any(|r| r.number as usize > from && r.sentence == lost), "no record says: {lost}");
    assert!(!a(&w) && b(&w));
    settle(&mut w);
    assert_converged(&w, "web", 4);
}
