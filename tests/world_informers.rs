//! The World's informers are client-go's (`engine::client::Informer`): what a relist, a resync,
//! a refused re-watch and a process's caches look like in the World's steps.

mod common;

use std::time::Duration;

use common::*;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{ActionKind, Settled, StepRecord, World, CONTROLLER_MANAGER_A, SCHEDULER};

fn settle(w: &mut World) {
    let s = w.run_until_idle(50_000);
    assert!(matches!(s, Settled::Idle { .. }), "{s:?}");
}

fn settled_web(seed: u64, replicas: i64) -> World {
    let mut w = World::new(seed);
    w.create(deployment("web", replicas, "nginx")).unwrap();
    settle(&mut w);
    w
}

fn handler_runs<'a>(h: &'a [StepRecord], after: u64, controller: &'a str) -> impl Iterator<Item = &'a StepRecord> {
    h.iter().filter(move |r| {
        r.number > after && r.action == ActionKind::RunHandler && r.actor.to_string().starts_with(controller)
    })
}

/// A relist hands every listener each unchanged object as `OnUpdate(x, x)` (controller.go
/// `processDeltas` marks a `Replaced` delta with the cached resourceVersion a sync;
/// shared_informer.go `distribute` gives syncs to the listeners in the syncing set, which every
/// listener of kube-controller-manager's factory is): the ReplicaSet controller's handler runs
/// for each pod, though none changed, and ignores it (`updatePod`: same resourceVersion).
#[test]
fn a_relist_sends_unchanged_objects_as_sync_updates() {
    let mut w = settled_web(41, 3);
    w.break_watch(CONTROLLER_MANAGER_A, "Pod").unwrap();
    w.expire_history().unwrap();
    let before = w.history().last().map_or(0, |r| r.number);
    settle(&mut w);
    let h = w.history();
    let relist = h.iter().find(|r| r.number > before && r.action == ActionKind::List).expect("a relist after the 410");
    assert!(
        relist.sentence.contains("relisted 3 pods") && relist.sentence.contains("3 unchanged"),
        "{}",
        relist.sentence
    );
    let pods: Vec<String> = list(&w, "Pod").iter().map(|p| p.key()).collect();
    for key in &pods {
        let run = handler_runs(h, relist.number, "replicaset-controller")
            .find(|r| r.sentence.contains(&format!("OnUpdate for Pod {key}")))
            .unwrap_or_else(|| panic!("the ReplicaSet controller heard of {key} again"));
        assert!(run.sentence.ends_with("queued nothing."), "{}", run.sentence);
        assert!(
            handler_runs(h, relist.number, "garbage-collector-controller")
                .any(|r| r.sentence.contains(&format!("OnUpdate for Pod {key}"))),
            "every handler of the informer hears it"
        );
    }
    assert_converged(&w, "web", 3);
    assert_caches_match(&w);
}

/// kube-controller-manager's factory resyncs every `ResyncPeriod`: 12 h times a random factor in
/// [1, 2) (controllermanager.go), drawn from the seeded world, so the same seed resyncs at the
/// same instant. A resync sends every cached object to every handler; the Deployment
/// controller's `updateDeployment` enqueues on any update, so it reconciles web again.
#[test]
fn controller_manager_informers_resync_between_12_and_24_hours() {
    let mut w = settled_web(42, 2);
    let leader_at =
        w.history().iter().find(|r| r.sentence.contains("acquired the Lease")).map(|r| r.time).expect("a leader");
    let due = |w: &World, process: &str| -> Vec<_> {
        w.process(process).unwrap().informers().iter().map(|i| i.next_resync_at()).collect()
    };
    for at in due(&w, CONTROLLER_MANAGER_A) {
        let after = at.expect("every informer resyncs").since(leader_at);
        assert!(after >= Duration::from_secs(12 * 3600) && after < Duration::from_secs(24 * 3600), "{after:?}");
    }
    // The scheduler's factory has no resync.
    assert!(due(&w, SCHEDULER).iter().all(Option::is_none));
    // Same seed, same period.
    assert_eq!(due(&w, CONTROLLER_MANAGER_A), due(&settled_web(42, 2), CONTROLLER_MANAGER_A));

    // Run the Deployment informer's resync, then the Deployment controller's handler call.
    let id = |w: &World, action: ActionKind, text: &str| {
        w.pending().into_iter().find(|p| p.action == action && p.description.contains(text)).map(|p| p.id)
    };
    let resync = w.run(id(&w, ActionKind::Resync, "resync deployments").expect("a pending resync")).unwrap();
    assert!(resync.sentence.contains("for each of its 1 cached object"), "{}", resync.sentence);
    let handler = id(&w, ActionKind::RunHandler, "OnUpdate Deployment default/web").expect("a queued handler call");
    let run = w.run(handler).unwrap();
    assert!(run.actor.to_string().starts_with("deployment-controller"), "{}", run.actor);
    assert!(run.sentence.ends_with("OnUpdate for Deployment default/web and queued default/web."), "{}", run.sentence);
}

/// A partition refuses the connection: client-go's `isWatchErrorRetriable` says back off and
/// watch again, without relisting. When it heals, the watch resumes from the last
/// resourceVersion and the server replays what happened meanwhile.
#[test]
fn a_refused_rewatch_backs_off_and_resumes_without_relisting() {
    let mut w = settled_web(43, 2);
    w.advance(Duration::from_secs(5));
    let cut = w.partition(SCHEDULER).unwrap();
    w.advance(Duration::from_secs(3));
    let h = w.history();
    let refused = h
        .iter()
        .find(|r| r.number > cut.number && r.sentence.contains("connection refused"))
        .expect("a refused re-watch");
    assert_eq!(refused.action, ActionKind::Rewatch);
    assert!(refused.sentence.contains("without relisting"), "{}", refused.sentence);
    w.patch(
        kind("Deployment"),
        Some("default"),
        "web",
        reconcile_lab::engine::apiserver::Patch::Merge(serde_json::json!({"spec": {"replicas": 3}})),
    )
    .unwrap();
    w.heal(SCHEDULER).unwrap();
    settle(&mut w);
    let h = w.history();
    let scheduler_lists = h
        .iter()
        .filter(|r| r.number > cut.number && r.action == ActionKind::List && r.actor.to_string().contains(SCHEDULER));
    assert_eq!(scheduler_lists.count(), 0, "no relist");
    assert!(h.iter().any(|r| r.number > cut.number
        && r.sentence.starts_with("The Pod informer of kube-scheduler watches pods again from resourceVersion")));
    assert_converged(&w, "web", 3);
    assert_caches_match(&w);
}

/// A process's caches are its informers' indexers: the objects it holds are the very objects its
/// informers hold, shared with the other processes' caches (one copy per object version).
#[test]
fn caches_are_the_informers_indexers_and_share_objects() {
    let w = settled_web(44, 3);
    let a = w.process(CONTROLLER_MANAGER_A).unwrap();
    let sched = w.process(SCHEDULER).unwrap();
    let pods_a = a.caches.store("Pod").expect("pods cached");
    let pods_s = sched.caches.store("Pod").expect("pods cached");
    assert_eq!(pods_a.len(), 3);
    for (key, obj) in pods_a {
        let inf = a.informers().iter().find(|i| i.kind().kind == "Pod").expect("a pod informer");
        assert!(std::ptr::eq(&**obj, &**inf.indexer().get(key).expect("in the indexer")), "the same object");
        if let Some(other) = pods_s.get(key) {
            if other.resource_version() == obj.resource_version() {
                assert!(std::sync::Arc::ptr_eq(obj, other), "{key}: one copy across processes");
            }
        }
    }
}
