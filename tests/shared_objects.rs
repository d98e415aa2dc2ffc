//! One tree per object version, system-wide (issue #9): the API server hands every watch, list
//! and GET of a version the same `object::Shared` (the one it stores), and the World's informers
//! keep it, so processes caching the same pod hold one copy, also after a controller-manager
//! failover relists.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use reconcile_lab::engine::apiserver::{ApiServer, EventType, WatchFrom};
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::{ObjectExt, Shared};
use reconcile_lab::engine::world::{Settled, World, CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B, KUBELET, SCHEDULER};
use serde_json::json;

fn pod(name: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"app": "a"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

#[test]
fn watches_lists_and_gets_share_one_tree_per_version() {
    let mut s = ApiServer::new(3);
    let pods = kind("Pod");
    let w1 = s.watch(pods, None, Selector::everything(), WatchFrom::Exact(s.resource_version()));
    let w2 = s.watch(pods, Some("default"), Selector::parse("app=a").unwrap(), WatchFrom::Exact(s.resource_version()));
    s.create(pod("p")).unwrap();
    let e1 = s.next_shared_event(w1).unwrap();
    let e2 = s.next_shared_event(w2).unwrap();
    assert_eq!((e1.event_type, e2.event_type), (EventType::Added, EventType::Added));
    assert!(Arc::ptr_eq(&e1.object, &e2.object), "two watches, one tree");
    let (listed, _) = s.list_shared(pods, None, &Selector::everything());
    assert!(Arc::ptr_eq(&listed[0], &e1.object), "a list hands out the watched tree");
    assert!(Arc::ptr_eq(&s.get_shared(pods, Some("default"), "p").unwrap(), &e1.object));
    // The tree is the stored object, read the same way as a decoded `Value`.
    let stored = s.get(pods, Some("default"), "p").unwrap();
    assert!(*e1.object == stored);
    assert_eq!(e1.object.resource_version(), stored.resource_version());

    // A new version is a new tree, shared again.
    let mut changed = stored.clone();
    changed["metadata"]["labels"]["tier"] = json!("web");
    s.update(changed).unwrap();
    let m1 = s.next_shared_event(w1).unwrap();
    let m2 = s.next_shared_event(w2).unwrap();
    assert!(Arc::ptr_eq(&m1.object, &m2.object));
    assert!(!Arc::ptr_eq(&m1.object, &e1.object));
    assert_eq!(m1.object.label("tier"), Some("web"));

    // The store holds the current version's tree itself: the same `Arc` once every watcher and
    // list let go of it (nothing is decoded again); an old version is freed once nothing (events,
    // lists, the watch history) holds it.
    let current: Shared = Arc::clone(&m1.object);
    let old = Arc::downgrade(&e1.object);
    drop((e1, e2, listed, m1, m2));
    s.set_history_limit(1);
    s.create(pod("q")).unwrap();
    assert!(old.upgrade().is_none(), "nothing holds the old version's tree");
    let again = s.get_shared(pods, Some("default"), "p").unwrap();
    assert!(Arc::ptr_eq(&again, &current), "the stored tree, not a copy");
    assert_eq!(again.label("tier"), Some("web"));
    assert!(Arc::ptr_eq(&again, &s.list_shared(pods, Some("default"), &Selector::everything()).0[0]));
}

/// Every process caching a pod holds the same tree, and so does a controller manager that took
/// over and relisted (it used to decode a second copy of every pod).
#[test]
fn caches_share_objects_across_processes_and_after_a_failover() {
    let mut w = World::new(7);
    w.create(deployment("web", 5, "nginx")).unwrap();
    assert!(matches!(w.run_until_idle(20_000), Settled::Idle { .. }));
    let shared_with = |w: &World, a: &str, b: &str| -> usize {
        let (pa, pb) = (w.process(a).unwrap(), w.process(b).unwrap());
        let (Some(sa), Some(sb)) = (pa.caches.store("Pod"), pb.caches.store("Pod")) else { return 0 };
        sa.iter().filter(|(k, o)| sb.get(*k).is_some_and(|x| Arc::ptr_eq(o, x))).count()
    };
    let pods = list(&w, "Pod").len();
    assert_eq!(pods, 5);
    assert_eq!(shared_with(&w, CONTROLLER_MANAGER_A, KUBELET), pods);
    assert_eq!(shared_with(&w, SCHEDULER, KUBELET), pods);
    assert_eq!(shared_with(&w, CONTROLLER_MANAGER_B, KUBELET), 0, "the standby caches nothing");

    w.kill_process(CONTROLLER_MANAGER_A).unwrap();
    let mut listed = false;
    for _ in 0..200 {
        w.advance(Duration::from_secs(1));
        if w.process(CONTROLLER_MANAGER_B).is_some_and(|p| p.caches.store("Pod").is_some_and(|s| s.len() == pods)) {
            listed = true;
            break;
        }
    }
    assert!(listed, "the standby took over and listed the pods");
    assert_eq!(shared_with(&w, CONTROLLER_MANAGER_B, KUBELET), pods, "the relist shares the cached trees");
    assert_caches_match(&w);
}
