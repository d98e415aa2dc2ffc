//! The world as a learner drives it: Deployments, ReplicaSets and leader election seen through
//! steps, determinism, going back and branching.

mod common;

use std::time::Duration;

use common::*;
use reconcile_lab::engine::apiserver::Patch;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::time::Time;
use reconcile_lab::engine::world::{ActionKind, Settled, Verb, World, CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B};
use serde_json::{json, Value};

/// `sync.go` `getNewReplicaSet`: a fresh Deployment of 3.
#[test]
fn tv32_fresh_deployment() {
    let mut w = World::new(1);
    w.create(deployment("web", 3, "nginx")).unwrap();
    // Step until the ReplicaSet exists and look at the Deployment before any pod is available.
    let mut saw_unavailable = false;
    for _ in 0..2000 {
        if w.step().is_none() {
            break;
        }
        if let Ok(d) = w.api().get(kind("Deployment"), Some("default"), "web") {
            if condition(&d, "Available").is_some_and(|c| c["reason"] == "MinimumReplicasUnavailable") {
                saw_unavailable = true;
                assert_eq!(condition(&d, "Available").unwrap()["status"], "False");
            }
            if d.pointer("/status/availableReplicas").is_some() {
                break;
            }
        }
    }
    assert!(saw_unavailable, "Available False MinimumReplicasUnavailable before the pods are available");
    assert!(matches!(w.run_until_idle(5000), Settled::Idle { .. }));
    let rss = list(&w, "ReplicaSet");
    assert_eq!(rss.len(), 1);
    let rs = &rss[0];
    let hash = rs.label("pod-template-hash").unwrap().to_string();
    assert!(!hash.is_empty() && hash.len() <= 10 && hash.bytes().all(|c| b"456789bcdf".contains(&c)), "{hash}");
    assert_eq!(rs.name(), format!("web-{hash}"));
    assert_eq!(rs["spec"]["replicas"], 3);
    assert_eq!(rs.label("app"), Some("web"));
    assert_eq!(rs.annotation("deployment.kubernetes.io/revision"), Some("1"));
    assert_eq!(rs.annotation("deployment.kubernetes.io/desired-replicas"), Some("3"));
    assert_eq!(rs.annotation("deployment.kubernetes.io/max-replicas"), Some("4"));
    let pods = list(&w, "Pod");
    assert_eq!(pods.len(), 3);
    for p in &pods {
        let suffix = p.name().strip_prefix(&format!("web-{hash}-")).unwrap();
        assert_eq!(suffix.len(), 5);
        assert!(suffix.bytes().all(|c| b"bcdfghjklmnpqrstvwxz2456789".contains(&c)));
        assert_eq!(p["status"]["phase"], "Running");
    }
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    assert_eq!(d.annotation("deployment.kubernetes.io/revision"), Some("1"));
    assert_eq!(d.generation(), 1);
    let st = &d["status"];
    assert_eq!(
        (
            &st["observedGeneration"],
            &st["replicas"],
            &st["updatedReplicas"],
            &st["readyReplicas"],
            &st["availableReplicas"]
        ),
        (&json!(1), &json!(3), &json!(3), &json!(3), &json!(3))
    );
    let conds: Vec<(String, String, String)> = st["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (s(&c["type"]), s(&c["status"]), s(&c["reason"])))
        .collect();
    assert_eq!(
        conds,
        vec![
            ("Available".into(), "True".into(), "MinimumReplicasAvailable".into()),
            ("Progressing".into(), "True".into(), "NewReplicaSetAvailable".into())
        ]
    );
    assert_eq!(events(&w, "ScalingReplicaSet"), vec![format!("Scaled up replica set web-{hash} from 0 to 3")]);
    let created: Vec<String> = events(&w, "SuccessfulCreate");
    assert_eq!(created.len(), 3);
    assert!(created.iter().all(|m| m.starts_with(&format!("Created pod: web-{hash}-"))));
    assert_eq!(events(&w, "Scheduled").len(), 3);
    assert_converged(&w, "web", 3);
}

/// `rolling.go` `rolloutRolling`: a rolling update of 3 replicas with 25%/25% (surge 1, unavailable
/// 0): the exact sequence of sizes, never more than 4 pods wanted, never fewer than 3 available.
#[test]
fn tv33_rolling_update_sequence() {
    let mut w = World::new(2);
    w.create(deployment("web", 3, "nginx")).unwrap();
    w.run_until_idle(5000);
    let old = list(&w, "ReplicaSet")[0].name().to_string();
    w.patch(
        kind("Deployment"),
        Some("default"),
        "web",
        Patch::Merge(json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})),
    )
    .unwrap();
    for _ in 0..20_000 {
        if w.step().is_none() {
            break;
        }
        let rss = list(&w, "ReplicaSet");
        let wanted: i64 = rss.iter().map(|r| r["spec"]["replicas"].as_i64().unwrap_or(0)).sum();
        let available: i64 =
            rss.iter().map(|r| r.pointer("/status/availableReplicas").and_then(Value::as_i64).unwrap_or(0)).sum();
        assert!(wanted <= 4, "at most replicas + maxSurge pods wanted, got {wanted}");
        assert!(available >= 3, "never fewer than replicas - maxUnavailable available, got {available}");
        if matches!(w.pending().first(), Some(p) if p.action == ActionKind::LeaseTick) && rollout_done(&w) {
            break;
        }
    }
    assert!(matches!(w.run_until_idle(20_000), Settled::Idle { .. }));
    let new = list(&w, "ReplicaSet").into_iter().find(|r| r.name() != old).unwrap();
    let n = new.name().to_string();
    assert_eq!(
        events(&w, "ScalingReplicaSet")[1..],
        [
            format!("Scaled up replica set {n} from 0 to 1"),
            format!("Scaled down replica set {old} from 3 to 2"),
            format!("Scaled up replica set {n} from 1 to 2"),
            format!("Scaled down replica set {old} from 2 to 1"),
            format!("Scaled up replica set {n} from 2 to 3"),
            format!("Scaled down replica set {old} from 1 to 0"),
        ]
    );
    let old_rs = w.api().get(kind("ReplicaSet"), Some("default"), &old).unwrap();
    assert_eq!(old_rs["spec"]["replicas"], 0);
    assert_eq!(old_rs.annotation("deployment.kubernetes.io/revision"), Some("1"));
    assert_eq!(new.annotation("deployment.kubernetes.io/revision"), Some("2"));
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    assert_eq!(d.annotation("deployment.kubernetes.io/revision"), Some("2"));
    assert_eq!(d.generation(), 2);
    assert_converged(&w, "web", 3);
}

fn rollout_done(w: &World) -> bool {
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    d.pointer("/status/updatedReplicas") == Some(&json!(3)) && d.pointer("/status/replicas") == Some(&json!(3))
}

/// `sync.go` `isScalingEvent`: scaling resizes the same ReplicaSet, with new replica annotations.
#[test]
fn tv34_scaling_is_not_a_rollout() {
    let mut w = World::new(3);
    w.create(deployment("web", 3, "nginx")).unwrap();
    w.run_until_idle(5000);
    let before = list(&w, "ReplicaSet")[0].name().to_string();
    w.patch(kind("Deployment"), Some("default"), "web", Patch::Merge(json!({"spec": {"replicas": 5}}))).unwrap();
    let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
    assert_eq!(d.generation(), 2);
    assert_eq!(d["status"]["observedGeneration"], 1, "kubectl scale does not run the controller");
    w.run_until_idle(5000);
    let rss = list(&w, "ReplicaSet");
    assert_eq!(rss.len(), 1);
    assert_eq!(rss[0].name(), before);
    assert_eq!(rss[0]["spec"]["replicas"], 5);
    assert_eq!(rss[0].annotation("deployment.kubernetes.io/desired-replicas"), Some("5"));
    assert_eq!(rss[0].annotation("deployment.kubernetes.io/max-replicas"), Some("7"));
    assert_eq!(events(&w, "ScalingReplicaSet").last().unwrap(), &format!("Scaled up replica set {before} from 3 to 5"));
    assert_converged(&w, "web", 5);
}

/// `controller_utils.go` `FilterActivePods`: a terminating pod is replaced before it disappears.
#[test]
fn tv36_terminating_pod_is_replaced() {
    let mut w = World::new(4);
    w.create(deployment("web", 3, "nginx")).unwrap();
    w.run_until_idle(5000);
    let victim = list(&w, "Pod")[0].name().to_string();
    let r = w.delete(kind("Pod"), Some("default"), &victim, Default::default()).unwrap();
    assert!(matches!(r, reconcile_lab::engine::apiserver::Deleted::Pending(_)), "a running pod is deleted gracefully");
    let mut max_pods = 0;
    let mut saw_status_2 = false;
    for _ in 0..5000 {
        if w.step().is_none() {
            break;
        }
        max_pods = max_pods.max(list(&w, "Pod").len());
        let rs = &list(&w, "ReplicaSet")[0];
        if rs.pointer("/status/replicas") == Some(&json!(2)) {
            saw_status_2 = true;
        }
        if w.api().get(kind("Pod"), Some("default"), &victim).is_err() {
            break;
        }
    }
    assert!(saw_status_2, "status.replicas drops to 2 while the pod terminates");
    assert_eq!(max_pods, 4, "the replacement exists before the old pod is gone");
    w.run_until_idle(5000);
    assert_converged(&w, "web", 3);
}

/// client-go `leaderelection.go` `tryAcquireOrRenew` (first acquisition): the first acquisition
/// creates the Lease.
#[test]
fn tv39_first_acquisition() {
    let mut w = World::new(5);
    assert!(w.api().get(kind("Lease"), Some("kube-system"), "kube-controller-manager").is_err(), "no lease yet");
    let r = loop {
        let r = w.step().unwrap();
        if r.action == ActionKind::LeaseTick {
            break r;
        }
    };
    assert_eq!(
        r.calls.iter().map(|c| (c.verb.as_str(), c.code)).collect::<Vec<_>>()[..2],
        [("GET", 404), ("CREATE", 201)]
    );
    let lease = w.api().get(kind("Lease"), Some("kube-system"), "kube-controller-manager").unwrap();
    let spec = &lease["spec"];
    let holder = spec["holderIdentity"].as_str().unwrap();
    assert!(holder.starts_with("control-plane-a_"), "{holder}");
    assert_eq!(holder.len(), "control-plane-a_".len() + 36);
    assert_eq!(spec["leaseDurationSeconds"], 15);
    assert_eq!(spec["acquireTime"], spec["renewTime"]);
    assert_eq!(spec["acquireTime"], "2026-01-01T00:00:00.000000Z");
    assert_eq!(spec["leaseTransitions"], 0);
    assert!(w.process(CONTROLLER_MANAGER_A).unwrap().leading());
    assert_eq!(events(&w, "LeaderElection"), vec![format!("{holder} became leader")]);
}

/// The replicas run client-go's elector (`engine::client::leaderelection`): the new leader's
/// renew loop starts at once (`wait.Until` runs its function immediately, at the same instant as
/// the acquisition), then renews every `RetryPeriod` without jitter; the follower tries every
/// `RetryPeriod` plus up to 1.2 × `RetryPeriod` of jitter (2 s to 4.4 s).
#[test]
fn controller_manager_replicas_elect_with_client_go_timings() {
    let mut w = World::new(3);
    w.advance(Duration::from_secs(30));
    let ticks = |p: &str| -> Vec<Duration> {
        let times: Vec<_> = w
            .history()
            .iter()
            .filter(|r| r.action == ActionKind::LeaseTick && r.actor.to_string().contains(p))
            .map(|r| r.time)
            .collect();
        times.windows(2).map(|t| t[1].since(t[0])).collect()
    };
    let a = ticks(CONTROLLER_MANAGER_A);
    assert_eq!(a[0], Duration::ZERO, "the renew loop starts at once after acquiring: {a:?}");
    assert!(a[1..].iter().all(|d| *d == Duration::from_secs(2)), "renewals every 2 s: {a:?}");
    let b = ticks(CONTROLLER_MANAGER_B);
    assert!(b.len() >= 5, "{b:?}");
    assert!(b.iter().all(|d| *d >= Duration::from_secs(2) && *d < Duration::from_millis(4_400)), "{b:?}");
    assert!(b.windows(2).any(|d| d[0] != d[1]), "jittered: {b:?}");
}

/// client-go `leaderelection.go` `renew`: renewals every 2 s; after the leader is killed the other
/// replica takes over after a full lease duration without change, on its own clock.
#[test]
fn tv40_renew_and_takeover() {
    let mut w = World::new(6);
    w.advance(Duration::from_secs(10));
    let l1 = w.api().get(kind("Lease"), Some("kube-system"), "kube-controller-manager").unwrap();
    assert_eq!(l1["spec"]["leaseTransitions"], 0);
    assert_ne!(l1["spec"]["acquireTime"], l1["spec"]["renewTime"]);
    assert_eq!(l1["spec"]["renewTime"], "2026-01-01T00:00:10.000000Z");
    let killed_at = w.now();
    w.kill_process(CONTROLLER_MANAGER_A).unwrap();
    let last_change = killed_at; // the last renewal was at 10 s, when B may have seen it last
    let mut took_over = None;
    for _ in 0..10_000 {
        w.step();
        if w.process(CONTROLLER_MANAGER_B).unwrap().leading() {
            took_over = Some(w.now());
            break;
        }
    }
    let t = took_over.expect("B takes over");
    let waited = t.since(last_change);
    assert!(waited >= Duration::from_secs(15) && waited < Duration::from_millis(19_400), "{waited:?}");
    let l2 = w.api().get(kind("Lease"), Some("kube-system"), "kube-controller-manager").unwrap();
    assert!(l2["spec"]["holderIdentity"].as_str().unwrap().starts_with("control-plane-b_"));
    assert_eq!(l2["spec"]["leaseTransitions"], 1);
    assert_eq!(l2["spec"]["acquireTime"], l2["spec"]["renewTime"]);
    // The new leader runs the controllers: a Deployment converges.
    w.create(deployment("web", 2, "nginx")).unwrap();
    w.run_until_idle(5000);
    assert_converged(&w, "web", 2);
}

/// client-go `leaderelection.go` `renew`: a leader that cannot write stops leading by itself before
/// anyone else can take over; at no instant do two replicas lead.
#[test]
fn tv40_partitioned_leader_steps_down() {
    let mut w = World::new(7);
    w.advance(Duration::from_secs(4));
    w.partition(CONTROLLER_MANAGER_A).unwrap();
    let t0 = w.now();
    let mut stepped_down = None;
    for _ in 0..10_000 {
        w.step();
        let a = w.process(CONTROLLER_MANAGER_A).unwrap().leading();
        let b = w.process(CONTROLLER_MANAGER_B).unwrap().leading();
        assert!(!(a && b), "two leaders at {}", w.now());
        if !a && stepped_down.is_none() {
            stepped_down = Some(w.now());
        }
        if b {
            break;
        }
    }
    let down = stepped_down.expect("A stops leading").since(t0);
    assert!(down <= Duration::from_secs(12), "{down:?}");
    // Cut off, it could not release the Lease on its way out.
    let lost = "kube-controller-manager-a did not renew its Lease within the 10s renew deadline and stopped leading; \
                the process exits and restarts as a candidate with empty caches.";
    assert!(w.history().iter().any(|r| r.sentence == lost), "no record says: {lost}");
    assert!(w.process(CONTROLLER_MANAGER_B).unwrap().leading());
}

/// A clean stop of kube-controller-manager keeps its Lease: its leader election has no
/// `ReleaseOnCancel` (cmd/kube-controller-manager/app/controllermanager.go, `leaderElectAndRun`),
/// so the standby takes over only once the Lease has gone unrenewed for `leaseDurationSeconds`
/// on its own clock. (client-go's release itself, as kube-scheduler uses it, is tested in
/// tests/client_leaderelection.rs.)
#[test]
fn controller_manager_keeps_its_lease_on_a_clean_stop() {
    let mut w = World::new(8);
    w.advance(Duration::from_secs(6));
    let before = w.api().get(kind("Lease"), Some("kube-system"), "kube-controller-manager").unwrap();
    let stop = w.stop_process(CONTROLLER_MANAGER_A).unwrap();
    assert_eq!(
        stop.sentence,
        "kube-controller-manager-a stopped cleanly; its caches and queues are gone. It leaves its Lease held \
         (kube-controller-manager does not release it on the way out), so another replica can take over only once \
         the Lease expires."
    );
    assert!(stop.calls.is_empty(), "no write on the way out: {:?}", stop.calls);
    let kept = w.api().get(kind("Lease"), Some("kube-system"), "kube-controller-manager").unwrap();
    assert_eq!(kept["spec"], before["spec"], "the Lease is left as the last renewal wrote it");
    assert!(kept["spec"]["holderIdentity"].as_str().unwrap().starts_with("control-plane-a_"));
    assert_eq!(kept["spec"]["leaseDurationSeconds"], 15);
    let renewed = Time::parse_rfc3339(kept["spec"]["renewTime"].as_str().unwrap()).unwrap();
    while !w.process(CONTROLLER_MANAGER_B).unwrap().leading() {
        w.step().unwrap();
    }
    // B sees the last renewal at one of its tries (every 2 s to 4.4 s), counts 15 s from there on
    // its own clock, and takes over at its first try after that.
    let waited = w.now().since(renewed);
    assert!(waited >= Duration::from_secs(15) && waited <= Duration::from_millis(23_800), "{waited:?}");
    let lease = w.api().get(kind("Lease"), Some("kube-system"), "kube-controller-manager").unwrap();
    assert_eq!(lease["spec"]["leaseTransitions"], 1);
}

/// Same seed, same inputs: the same records, step by step.
#[test]
fn same_seed_same_run() {
    let run = |seed| {
        let mut w = World::new(seed);
        w.create(deployment("web", 4, "nginx")).unwrap();
        w.run_until_idle(5000);
        w.delete(kind("Pod"), Some("default"), list(&w, "Pod")[1].name(), Default::default()).unwrap();
        w.advance(Duration::from_secs(40));
        w.history().iter().map(|r| format!("{} {} {:?} {}", r.time, r.actor, r.calls, r.sentence)).collect::<Vec<_>>()
    };
    let a = run(11);
    assert_eq!(a, run(11));
    assert_ne!(a, run(12));
}

/// Going back restores the exact earlier state; acting from there starts a new branch.
#[test]
fn step_back_and_branch() {
    let mut w = World::new(9);
    w.set_snapshot_every(25);
    w.create(deployment("web", 3, "nginx")).unwrap();
    for _ in 0..60 {
        w.step();
    }
    let at60 = (snapshot_objects(&w), w.now(), w.history().to_vec(), w.pending());
    w.run_until_idle(5000);
    let later = w.history().len();
    assert!(later > 60);
    w.goto(61);
    assert_eq!(w.history().len(), 61);
    assert_eq!((snapshot_objects(&w), w.now(), w.history().to_vec(), w.pending()), at60);
    assert!(w.step_back());
    assert_eq!(w.history().len(), 60);
    // A new branch: scale to 1 instead of letting it run.
    w.patch(kind("Deployment"), Some("default"), "web", Patch::Merge(json!({"spec": {"replicas": 1}}))).unwrap();
    w.run_until_idle(5000);
    assert_converged(&w, "web", 1);
    // Going back and forward again along the new branch gives the same state.
    let end = (snapshot_objects(&w), w.history().len());
    w.goto(10);
    assert_eq!(w.history().len(), 10);
    assert_eq!(w.branch_len(), end.1);
    w.goto(end.1);
    assert_eq!((snapshot_objects(&w), w.history().len()), end);
}

/// A large cluster's snapshots are spaced by its size (a snapshot copies maps of every object:
/// at a fixed spacing their cost per step grew with the cluster), small ones keep the spacing
/// they were given; going back between snapshots replays to the same state either way.
#[test]
fn snapshots_are_spaced_by_the_cluster_size() {
    let mut w = World::new(9);
    w.set_snapshot_every(10);
    for i in 0..600 {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("cm-{i}"), "namespace": "default"}});
        w.create(cm).unwrap();
    }
    let steps = w.snapshot_steps();
    assert!(steps.iter().all(|s| s % 10 == 0), "{steps:?}");
    // While the cluster had under 100 objects, one every 10 inputs; with 600, one every 60 or more.
    assert!(steps.windows(2).take(3).all(|g| g[1] - g[0] == 10), "{steps:?}");
    let last_gaps: Vec<usize> = steps.windows(2).rev().take(2).map(|g| g[1] - g[0]).collect();
    assert!(last_gaps.iter().all(|g| *g >= 50), "{steps:?}");
    assert!(steps.len() < 30, "{} snapshots: {steps:?}", steps.len());
    let at = steps[steps.len() - 1] - 7;
    let end = (snapshot_objects(&w), w.history().len());
    w.goto(at);
    assert_eq!(w.history().len(), at);
    assert_eq!(w.api().count(kind("ConfigMap")), at, "one ConfigMap an input");
    w.goto(end.1);
    assert_eq!((snapshot_objects(&w), w.history().len()), end);
}

/// Any pending action may run next: choosing them in a scrambled order still delivers every
/// watch stream in order and converges.
#[test]
fn running_pending_actions_in_any_order_converges() {
    let mut w = World::new(10);
    w.create(deployment("web", 3, "nginx")).unwrap();
    let mut rng = reconcile_lab::engine::rand::Rng::new(99);
    for _ in 0..3000 {
        let pending = w.pending();
        if pending.iter().all(|p| p.action.is_periodic()) && w.processes().iter().any(|p| p.leading()) {
            break;
        }
        // Prefer actions that can happen now, in a random order.
        let now: Vec<_> = pending.iter().filter(|p| p.at <= w.now()).collect();
        let pick = if now.is_empty() { pending[0].id } else { now[rng.below(now.len() as u64) as usize].id };
        let r = w.run(pick).unwrap();
        if r.action == ActionKind::DeliverEvent {
            // The delivered event is the oldest of its stream: the informer's view only moves forward.
            assert!(r.objects.iter().all(|o| o.resource_version > 0));
        }
    }
    assert!(matches!(w.run_until_idle(10_000), Settled::Idle { .. }));
    assert_converged(&w, "web", 3);
    assert!(w.run(10_000).is_err(), "an unknown action id is refused");
}

/// `checkPausedConditions` (sync.go): a paused Deployment reports `Progressing Unknown
/// DeploymentPaused`, and its template change waits (no new ReplicaSet); once resumed, the first
/// Progressing the controller writes is `Unknown DeploymentResumed`, and only then does the rollout
/// go on and complete.
#[test]
fn a_resumed_deployment_says_so_before_it_rolls_out() {
    let mut w = World::new(14);
    w.create(deployment("web", 2, "nginx")).unwrap();
    assert!(matches!(w.run_until_idle(10_000), Settled::Idle { .. }));
    let progressing = |w: &World| {
        let d = w.api().get(kind("Deployment"), Some("default"), "web").unwrap();
        let p = condition(&d, "Progressing").cloned().unwrap_or(Value::Null);
        (s(&p["status"]), s(&p["reason"]), s(&p["message"]))
    };
    let paused =
        json!({"spec": {"paused": true, "template": {"spec": {"containers": [{"name": "web", "image": "httpd"}]}}}});
    w.patch(kind("Deployment"), Some("default"), "web", Patch::Merge(paused)).unwrap();
    assert!(matches!(w.run_until_idle(10_000), Settled::Idle { .. }));
    assert_eq!(progressing(&w), ("Unknown".into(), "DeploymentPaused".into(), "Deployment is paused".into()));
    assert_eq!(list(&w, "ReplicaSet").len(), 1, "a paused Deployment starts no rollout");
    w.patch(kind("Deployment"), Some("default"), "web", Patch::Merge(json!({"spec": {"paused": null}}))).unwrap();
    let mut reasons = vec![progressing(&w)];
    for _ in 0..20_000 {
        if w.step().is_none() {
            break;
        }
        let now = progressing(&w);
        if reasons.last() != Some(&now) {
            reasons.push(now);
        }
    }
    assert_eq!(
        reasons[1],
        ("Unknown".into(), "DeploymentResumed".into(), "Deployment is resumed".into()),
        "{reasons:?}"
    );
    assert_eq!(reasons.last().map(|r| r.1.as_str()), Some("NewReplicaSetAvailable"), "{reasons:?}");
    assert_eq!(list(&w, "ReplicaSet").len(), 2);
    assert_converged(&w, "web", 2);
}

/// The Recreate strategy: old pods are all gone before the new ReplicaSet scales up.
#[test]
fn recreate_strategy_waits_for_old_pods() {
    let mut w = World::new(12);
    let mut d = deployment("web", 2, "nginx");
    d["spec"]["strategy"] = json!({"type": "Recreate"});
    w.create(d).unwrap();
    w.run_until_idle(5000);
    let old = list(&w, "ReplicaSet")[0].name().to_string();
    w.patch(
        kind("Deployment"),
        Some("default"),
        "web",
        Patch::Merge(json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "httpd"}]}}}})),
    )
    .unwrap();
    for _ in 0..20_000 {
        if w.step().is_none() {
            break;
        }
        let pods = list(&w, "Pod");
        let old_pods = pods.iter().filter(|p| p.name().starts_with(&format!("{old}-"))).count();
        let new_pods = pods.len() - old_pods;
        assert!(old_pods == 0 || new_pods == 0, "old and new pods at once: {old_pods} + {new_pods}");
        if new_pods == 2 {
            break;
        }
    }
    w.run_until_idle(20_000);
    let scaled = events(&w, "ScalingReplicaSet");
    assert_eq!(scaled[1], format!("Scaled down replica set {old} from 2 to 0"));
    assert!(scaled[2].starts_with("Scaled up replica set web-") && scaled[2].ends_with("from 0 to 2"), "{scaled:?}");
    assert_converged(&w, "web", 2);
}

/// `controller_utils.go` `SatisfiedExpectations` through the world: the ReplicaSet controller
/// issued 3 creates; while its Pod informer has not delivered the 3 ADDs, another sync of the same
/// ReplicaSet (woken by an unrelated change) creates nothing, even though its cache still shows no
/// pods.
#[test]
fn tv38_expectations_hold_until_the_informer_catches_up() {
    let mut w = World::new(13);
    w.run_until_idle(1000);
    let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "front", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "front"}},
                 "template": {"metadata": {"labels": {"app": "front"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    w.create(rs).unwrap();
    let pod_informer = |p: &reconcile_lab::engine::world::PendingAction| {
        p.action == ActionKind::DeliverEvent && p.actor.to_string() == format!("Pod informer ({CONTROLLER_MANAGER_A})")
    };
    // Run everything except the controller-manager's pod deliveries until the 3 creates happen.
    let mut creates = 0;
    for _ in 0..500 {
        let p = w.pending().into_iter().find(|p| !pod_informer(p) && p.at <= w.now()).expect("work to do");
        let r = w.run(p.id).unwrap();
        creates += r.calls.iter().filter(|c| c.verb == Verb::Create && c.target.kind() == Some("Pod")).count();
        if creates == 3 {
            break;
        }
    }
    assert_eq!(creates, 3);
    // Something else changes the ReplicaSet: the controller syncs it again.
    w.patch(kind("ReplicaSet"), Some("default"), "front", Patch::Merge(json!({"metadata": {"labels": {"team": "a"}}})))
        .unwrap();
    let mut resynced = false;
    for _ in 0..500 {
        let Some(p) = w.pending().into_iter().find(|p| !pod_informer(p) && p.at <= w.now()) else { break };
        let r = w.run(p.id).unwrap();
        if r.action == ActionKind::Reconcile && r.sentence.starts_with("replicaset-controller reconciled default/front")
        {
            resynced = true;
            assert!(
                r.calls.iter().all(|c| c.verb != Verb::Create || c.target.kind() != Some("Pod")),
                "no double creation: {}",
                r.sentence
            );
        }
    }
    assert!(resynced, "the ReplicaSet was synced again before the pod ADDs arrived");
    let a = w.process(CONTROLLER_MANAGER_A).unwrap();
    assert_eq!(a.caches.list(kind("Pod"), "default").count(), 0, "the cache still shows no pods");
    // Once the informer delivers the ADDs, everything settles with exactly 3 pods.
    w.run_until_idle(5000);
    assert_eq!(list(&w, "Pod").len(), 3);
}

/// With a bounded history the oldest records are forgotten, yet going back to them still works
/// (by replay) and gives the same state as a world that kept everything.
#[test]
fn bounded_history_still_goes_back() {
    let run = |limit: Option<usize>| {
        let mut w = World::new(14);
        w.set_history_limit(limit);
        w.set_snapshot_every(40);
        w.create(deployment("web", 3, "nginx")).unwrap();
        for _ in 0..300 {
            w.step();
        }
        w
    };
    let mut full = run(None);
    let mut small = run(Some(50));
    assert_eq!(small.history().len(), 50);
    assert_eq!(small.position(), 301);
    assert_eq!(small.history()[0].number, 252);
    assert_eq!(small.history().last(), full.history().last());
    small.goto(100);
    full.goto(100);
    assert_eq!(small.position(), 100);
    assert_eq!(snapshot_objects(&small), snapshot_objects(&full));
    assert_eq!(small.history().last(), full.history().last());
    small.goto(10);
    assert_eq!(small.history().len(), 10, "records before the limit come back by replay");
}

/// A reconcile is two steps, as a client-go worker runs it: `Get` (the key moves from the queue
/// to the processing set), then the reconcile, which calls `Done`. Stepping in order, each take
/// is followed at once by its reconcile.
#[test]
fn a_reconcile_is_a_take_then_a_reconcile() {
    let mut w = World::new(21);
    w.run_until_idle(2000);
    let from = w.history().len();
    w.create(deployment("web", 2, "nginx")).unwrap();
    w.run_until_idle(5000);
    let recs = &w.history()[from..];
    let mut takes = 0;
    for (i, r) in recs.iter().enumerate() {
        match r.action {
            ActionKind::TakeKey => {
                takes += 1;
                let next = &recs[i + 1];
                assert_eq!(next.action, ActionKind::Reconcile, "{}", next.sentence);
                assert_eq!((next.actor.clone(), next.worked_key()), (r.actor.clone(), r.worked_key()));
                assert!(r.calls.is_empty(), "Get makes no API call");
            }
            ActionKind::Reconcile => {
                assert_eq!(recs[i - 1].action, ActionKind::TakeKey, "every reconcile follows a take: {}", r.sentence)
            }
            _ => {}
        }
    }
    assert!(takes >= 6, "deployment, replicaset, scheduler and kubelet work: {takes}");
    assert_converged(&w, "web", 2);
}

/// Several workers hold different keys at once; the same key is never handed to two workers,
/// and what happens next offers a take only while a worker is free.
#[test]
fn workers_hold_different_keys_never_the_same_one() {
    let mut w = World::new(22);
    w.run_until_idle(2000);
    for name in ["a", "b", "c"] {
        w.create(deployment(name, 1, "nginx")).unwrap();
    }
    // Deliver and handle everything, then let deployment-controller workers take all three keys.
    let is_dc =
        |p: &reconcile_lab::engine::world::PendingAction| p.actor.to_string().starts_with("deployment-controller");
    loop {
        let next = w.pending();
        let Some(p) = next
            .iter()
            .find(|p| matches!(p.action, ActionKind::DeliverEvent | ActionKind::RunHandler | ActionKind::List))
            .or_else(|| next.iter().find(|p| p.action == ActionKind::TakeKey && is_dc(p)))
        else {
            break;
        };
        w.run(p.id).unwrap();
    }
    let cm = w.process(CONTROLLER_MANAGER_A).filter(|p| p.leading()).or(w.process(CONTROLLER_MANAGER_B)).unwrap();
    let slot = cm.slots.iter().find(|s| s.controller.name() == "deployment-controller").unwrap();
    let held: Vec<&str> = slot.held().iter().map(|h| h.1.as_str()).collect();
    assert_eq!(held, vec!["default/a", "default/b", "default/c"]);
    assert_eq!(slot.queue().processing_keys().count(), 3);
    assert!(slot.queue().check_invariants().is_ok());
    let reconciles = w.pending().into_iter().filter(|p| p.action == ActionKind::Reconcile && is_dc(p)).count();
    assert_eq!(reconciles, 3, "one pending reconcile per held key");
    w.run_until_idle(5000);
    for name in ["a", "b", "c"] {
        assert_converged(&w, name, 1);
    }
}

/// A namespace held by a finalizer is polled by the namespace controller (`AddAfter`, 8 s with
/// only finalizers left) for as long as it takes, as in Kubernetes: `run_until_idle` calls that
/// idle, not a hot loop. Once the finalizer goes, the next poll finishes the deletion.
#[test]
fn a_namespace_held_by_a_finalizer_is_idle_polling_not_a_hot_loop() {
    let mut w = World::new(23);
    w.run_until_idle(2000);
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "old"}})).unwrap();
    w.create(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "held", "namespace": "old", "finalizers": ["example.com/keep"]}}))
        .unwrap();
    w.run_until_idle(2000);
    w.delete(kind("Namespace"), None, "old", Default::default()).unwrap();
    let settled = w.run_until_idle(5000);
    let Settled::Idle { steps } = settled else { panic!("polling a stuck namespace is not a hot loop: {settled:?}") };
    assert!(steps < 200, "{steps}");
    let ns = w.api().get(kind("Namespace"), None, "old").unwrap();
    assert_eq!(ns["status"]["phase"], "Terminating");
    let cond = condition(&ns, "NamespaceFinalizersRemaining").unwrap();
    assert_eq!(cond["status"], "True");
    // Still idle a minute later: the polls change nothing.
    w.advance(Duration::from_secs(60));
    assert!(matches!(w.run_until_idle(5000), Settled::Idle { .. }));
    // The learner removes the finalizer: the namespace goes.
    w.patch(kind("ConfigMap"), Some("old"), "held", Patch::Merge(json!({"metadata": {"finalizers": null}}))).unwrap();
    assert!(matches!(w.run_until_idle(5000), Settled::Idle { .. }));
    assert!(w.api().get(kind("Namespace"), None, "old").is_err(), "the namespace is gone");
}

/// Lease renewals are one step each: the garbage collector's Lease informer takes a renewal
/// (which changes no owner reference) inside the renewal's step, its cache kept current.
#[test]
fn lease_renewals_do_not_add_steps() {
    let mut w = World::new(24);
    w.run_until_idle(2000);
    let from = w.history().len();
    w.advance(Duration::from_secs(20));
    let recs = &w.history()[from..];
    assert!(recs.len() >= 10, "{}", recs.len());
    for r in recs {
        assert!(matches!(r.action, ActionKind::LeaseTick | ActionKind::Clock), "{}: {}", r.actor, r.sentence);
    }
    assert_caches_match(&w);
}

/// `lab start` of a running leader changes nothing: same identity, still leading (it used to make
/// a new candidate that waited for its own old Lease: tests/regressions/fault-188341-721.faults).
#[test]
fn starting_a_running_leader_changes_nothing() {
    let mut w = World::new(25);
    w.advance(Duration::from_secs(8));
    let before = w.process(CONTROLLER_MANAGER_A).unwrap().elector.clone().unwrap();
    assert!(before.is_leading());
    let r = w.start_process(CONTROLLER_MANAGER_A).unwrap();
    assert_eq!(r.sentence, "kube-controller-manager-a is already running; nothing changes.");
    let after = w.process(CONTROLLER_MANAGER_A).unwrap().elector.clone().unwrap();
    assert_eq!(after.identity(), before.identity());
    assert!(w.process(CONTROLLER_MANAGER_A).unwrap().leading());
}

/// The scheduler binds through `pods/binding`, as kube-scheduler does: one write that sets
/// `spec.nodeName` and `PodScheduled`, shown in its step record.
#[test]
fn the_scheduler_binds_through_pods_binding() {
    let mut w = World::new(26);
    w.run_until_idle(2000);
    let from = w.history().len();
    w.create(deployment("web", 2, "nginx")).unwrap();
    w.run_until_idle(5000);
    let binds: Vec<_> = w.history()[from..]
        .iter()
        .filter(|r| r.action == ActionKind::Reconcile && r.actor.to_string().starts_with("default-scheduler"))
        .flat_map(|r| r.calls.iter().filter(|c| c.verb != Verb::Get && !c.target.is_event()))
        .collect();
    assert_eq!(binds.len(), 2, "{binds:?}");
    for c in binds {
        assert_eq!((c.verb.as_str(), c.code), ("CREATE /binding", 201), "{c}");
        assert!(c.target.to_string().starts_with("Pod default/web-"), "{c}");
    }
    for p in list(&w, "Pod") {
        assert!(p["spec"]["nodeName"].as_str().is_some_and(|n| n.starts_with("node-")));
        assert_eq!(condition(&p, "PodScheduled").unwrap()["status"], "True");
    }
}

/// A ReplicaSet that can never create its pods past the object quota fails the same way again
/// and again: the verdict names the controller, the key and the failure (the pod names it quotes
/// differ each time: still the same failure), not the Lease ticks around it.
#[test]
fn a_key_failing_the_same_way_again_and_again_is_named() {
    let mut w = World::new(27);
    w.set_snapshot_every(0);
    w.api_mut().set_object_limit(30);
    w.run_until_idle(2000);
    w.create(deployment("big", 100, "nginx")).unwrap();
    let Settled::HotLoop { explanation, steps } = w.run_until_idle(5000) else { panic!("the verdict stops it") };
    assert!(steps < 5000, "{steps}");
    assert!(
        explanation.starts_with("Hot loop: replicaset-controller (kube-controller-manager-a) reconciled default/big-"),
        "{explanation}"
    );
    assert!(
        explanation.contains(" 20 times in a row, and every time it failed the same way (pods \"big-"),
        "{explanation}"
    );
    assert!(explanation.contains("exceeded quota: object-count"), "{explanation}");
    assert!(!explanation.contains("Lease"), "{explanation}");
}

/// Going back between a take and its reconcile restores the held key; replay takes it again.
#[test]
fn step_back_over_a_take_returns_the_key_to_the_queue() {
    let mut w = World::new(28);
    w.set_snapshot_every(7);
    w.run_until_idle(2000);
    w.create(deployment("web", 1, "nginx")).unwrap();
    let taken = loop {
        let r = w.step().unwrap();
        if r.action == ActionKind::TakeKey {
            break r;
        }
    };
    let key = taken.worked_key().unwrap().to_string();
    let at = w.position();
    let held = |w: &World| {
        w.processes()
            .iter()
            .flat_map(|p| &p.slots)
            .flat_map(|s| s.held().iter().map(|h| h.1.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(held(&w), vec![key.clone()]);
    assert!(w.step_back());
    assert!(held(&w).is_empty(), "the key is waiting again");
    w.goto(at);
    assert_eq!(held(&w), vec![key.clone()], "replay takes it again");
    let r = w.step().unwrap();
    assert_eq!((r.action, r.worked_key()), (ActionKind::Reconcile, Some(key.as_str())));
}

/// `WaitForNamedCacheSync`: a controller's workers start only once every informer it reads has
/// listed. A learner who runs the Deployment informer's list and the handler first sees the key
/// wait in the queue, with no take offered, until the ReplicaSet and Pod informers have listed.
#[test]
fn workers_wait_for_their_informers_to_sync() {
    use reconcile_lab::engine::world::Actor;
    let mut w = World::new(2);
    w.create(deployment("web", 1, "nginx")).unwrap();
    // Until kube-controller-manager-a leads and its informers are about to list.
    while !w.process(CONTROLLER_MANAGER_A).unwrap().leading() {
        w.step();
    }
    let is = |p: &reconcile_lab::engine::world::PendingAction, action: ActionKind, who: &str| {
        p.action == action
            && match &p.actor {
                Actor::Informer { process, kind } => process == CONTROLLER_MANAGER_A && kind == who,
                Actor::Controller { process, controller } => process == CONTROLLER_MANAGER_A && controller == who,
                _ => false,
            }
    };
    let run = |w: &mut World, action: ActionKind, who: &str| {
        let id = w.pending().iter().find(|p| is(p, action, who)).map(|p| p.id).expect("offered");
        w.run(id).unwrap();
    };
    run(&mut w, ActionKind::List, "Deployment");
    run(&mut w, ActionKind::RunHandler, "deployment-controller");
    let dc =
        w.process(CONTROLLER_MANAGER_A).unwrap().slots.iter().find(|s| s.controller.name() == "deployment-controller");
    assert!(!dc.unwrap().queue().is_empty(), "the handler queued default/web");
    assert!(!w.pending().iter().any(|p| is(p, ActionKind::TakeKey, "deployment-controller")));
    run(&mut w, ActionKind::List, "ReplicaSet");
    assert!(!w.pending().iter().any(|p| is(p, ActionKind::TakeKey, "deployment-controller")));
    run(&mut w, ActionKind::List, "Pod");
    assert!(w.pending().iter().any(|p| is(p, ActionKind::TakeKey, "deployment-controller")));
}

/// A leader's renew ticks keep their own times while its controllers are busy: converging a
/// large Deployment takes thousands of steps at each instant and moves the clock more than the
/// 10 s renew deadline, and the leader must renew through it. (Found by the 10,000-pod memory
/// measurement: the renew loop's first tick, due at the instant of acquiring, waited behind
/// immediate work while later timers moved the clock on, until the leader stepped down and
/// restarted with a second copy of every cached object.)
#[test]
fn a_busy_leader_keeps_renewing_its_lease() {
    let mut w = World::new(1);
    w.run_until_idle(1000);
    let leader =
        |w: &World| [CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B].into_iter().find(|p| w.process(p).unwrap().leading());
    let before = leader(&w);
    assert!(before.is_some());
    w.create(deployment("web", 1000, "nginx")).unwrap();
    assert!(matches!(w.run_until_idle(200_000), Settled::Idle { .. }));
    let took = w.now().since(reconcile_lab::engine::time::Time::START);
    assert!(took > Duration::from_secs(10), "the run spans more than the renew deadline: {took:?}");
    let stepped_down: Vec<_> =
        w.history().iter().filter(|r| r.sentence.contains("stopped leading")).map(|r| r.sentence.clone()).collect();
    assert!(stepped_down.is_empty(), "{stepped_down:?}");
    let renewals = w.history().iter().filter(|r| r.action == ActionKind::LeaseTick).count();
    assert!(renewals >= 5, "the leader renewed while its controllers worked: {renewals} lease ticks");
    assert_eq!(leader(&w), before);
}
