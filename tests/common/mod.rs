//! Helpers shared by the world tests.
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]
#![allow(dead_code)]

use reconcile_lab::engine::controllers::util::{is_pod_active, is_pod_ready};
use reconcile_lab::engine::kinds::{Kind, KINDS};
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::world::World;
use serde_json::{json, Value};

pub fn kind(k: &str) -> &'static Kind {
    Kind::by_kind(k).expect("kind")
}

pub fn s(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}

pub fn deployment(name: &str, replicas: i64, image: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "web", "image": image}]}}}})
}

pub fn list(w: &World, k: &str) -> Vec<Value> {
    w.api().list(kind(k), Some("default"), &Selector::everything()).map(|l| l.items).unwrap_or_default()
}

pub fn condition<'a>(obj: &'a Value, t: &str) -> Option<&'a Value> {
    obj.pointer("/status/conditions").and_then(Value::as_array).and_then(|cs| cs.iter().find(|c| c["type"] == t))
}

/// Messages of the Events with this reason, oldest first.
pub fn events(w: &World, reason: &str) -> Vec<String> {
    let mut evs: Vec<Value> = w
        .api()
        .list(kind("Event"), None, &Selector::everything())
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e["reason"] == reason)
        .collect();
    evs.sort_by_key(|e| e.resource_version());
    evs.iter().map(|e| s(&e["message"])).collect()
}

/// Every object's key and resourceVersion, for comparing states.
pub fn snapshot_objects(w: &World) -> Vec<(String, String, u64)> {
    let mut out = Vec::new();
    for k in KINDS {
        for o in w.api().list(k, None, &Selector::everything()).map(|l| l.items).unwrap_or_default() {
            out.push((k.kind.to_string(), o.key(), o.resource_version()));
        }
    }
    out
}

/// The acceptance invariants for a Deployment after settling: status complete, exactly
/// `replicas` active ready pods owned by its newest ReplicaSet, and every active process's caches
/// equal to the server (same keys, same resourceVersions).
pub fn assert_converged(w: &World, name: &str, replicas: i64) {
    let d = w.api().get(kind("Deployment"), Some("default"), name).expect("deployment exists");
    let st = &d["status"];
    let n = |f: &str| st.get(f).and_then(Value::as_i64).unwrap_or(0);
    assert_eq!(n("observedGeneration"), d.generation(), "observedGeneration of {name}: {st}");
    for f in ["replicas", "updatedReplicas", "readyReplicas", "availableReplicas"] {
        assert_eq!(n(f), replicas, "{f} of {name}: {st}");
    }
    let rss: Vec<Value> =
        list(w, "ReplicaSet").into_iter().filter(|r| r.controller_ref().is_some_and(|o| o.uid == d.uid())).collect();
    let active: Vec<Value> = list(w, "Pod").into_iter().filter(is_pod_active).collect();
    for rs in &rss {
        let owned = active.iter().filter(|p| p.controller_ref().is_some_and(|o| o.uid == rs.uid())).count() as i64;
        assert_eq!(owned, rs["spec"]["replicas"].as_i64().unwrap_or(0), "pods of {}", rs.name());
    }
    let ready = active.iter().filter(|p| is_pod_ready(*p)).count() as i64;
    assert!(ready >= replicas, "{ready} ready pods");
    assert_caches_match(w);
}

/// Every active process's informer caches equal the server's objects (keys and resourceVersions).
pub fn assert_caches_match(w: &World) {
    for p in w.processes() {
        if !p.active() {
            continue;
        }
        for (k, store) in &p.caches.stores() {
            let server: Vec<(String, u64)> = w
                .api()
                .list(kind(k), None, &Selector::everything())
                .map(|l| l.items)
                .unwrap_or_default()
                .iter()
                .map(|o| (o.key(), o.resource_version()))
                .collect();
            let cache: Vec<(String, u64)> = store.values().map(|o| (o.key(), o.resource_version())).collect();
            assert_eq!(cache, server, "{} cache of {} differs from the server", k, p.name);
        }
    }
}
