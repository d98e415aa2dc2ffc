//! The edge-triggered contrast (lesson `missed-events`): two pod counters watch the same pods.
//! After a missed event (a broken watch whose history expired, so the reflector relists and
//! delivers only differences) the edge-triggered one is wrong for good; after a restart it
//! doubles; the level-triggered one is right every time.

mod common;

use common::*;
use reconcile_lab::engine::apiserver::DeleteOptions;
use reconcile_lab::engine::controllers::edgetriggered::PodCounter;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::{Settled, World, POD_COUNTERS};

fn settle(w: &mut World) {
    match w.run_until_idle(20_000) {
        Settled::Idle { .. } => {}
        other => panic!("did not settle: {other:?}"),
    }
}

/// (edge count, level count), from their ConfigMaps.
fn counts(w: &World) -> (Option<i64>, Option<i64>) {
    let get =
        |n: &str| w.api().get(kind("ConfigMap"), Some("default"), n).ok().as_ref().and_then(PodCounter::stored_count);
    (get("pod-counter-edge"), get("pod-counter-level"))
}

#[test]
fn edge_triggered_counter_diverges_level_triggered_converges() {
    let mut w = World::new(31);
    assert!(!w.process(POD_COUNTERS).unwrap().running, "the counters only run when a lesson starts them");
    w.start_process(POD_COUNTERS).unwrap();
    w.create(deployment("web", 3, "nginx")).unwrap();
    settle(&mut w);
    assert_eq!(counts(&w), (Some(3), Some(3)), "with every event seen, both are right");

    // A missed deletion: the counters' pod watch breaks, a pod is deleted at once (its
    // ReplicaSet replaces it), and the history is compacted, so the reflector must relist.
    w.break_watch(POD_COUNTERS, "Pod").unwrap();
    let victim = list(&w, "Pod")[0].name().to_string();
    let force = DeleteOptions { grace_period_seconds: Some(0), ..DeleteOptions::default() };
    w.delete(kind("Pod"), Some("default"), &victim, force).unwrap();
    w.expire_history().unwrap();
    settle(&mut w);
    assert_eq!(list(&w, "Pod").len(), 3);
    let relisted = w.history().iter().any(|r| r.sentence.starts_with("The Pod informer of pod-counters relisted"));
    assert!(relisted, "the reflector relisted after 410");
    assert_eq!(counts(&w), (Some(4), Some(3)), "the tombstone was dropped by the edge-triggered handler");

    // A restart: the informer replays every pod as OnAdd.
    w.restart_process(POD_COUNTERS).unwrap();
    settle(&mut w);
    assert_eq!(counts(&w), (Some(7), Some(3)), "the edge-triggered count is added on top of itself");

    // Someone edits the level counter's ConfigMap: it is put right at once.
    let mut cm = w.api().get(kind("ConfigMap"), Some("default"), "pod-counter-level").unwrap();
    cm["data"]["pods"] = serde_json::json!("42");
    w.update(cm).unwrap();
    settle(&mut w);
    assert_eq!(counts(&w).1, Some(3));
}
