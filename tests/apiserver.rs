//! The API server's rules (apiserver `pkg/registry/generic/registry/store.go`: `Create`, `Update`,
//! `Delete`; the strategies; watches; namespace admission) with exact codes and messages.

#![allow(clippy::result_large_err)]

use reconcile_lab::engine::apiserver::{
    schema, ApiServer, DeleteOptions, Deleted, EventType, Patch, Propagation, Subresource, WatchEvent, WatchFrom,
    WatchId,
};
use reconcile_lab::engine::client::clientset::with_status;
use reconcile_lab::engine::frozen::Frozen;
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::{ObjectExt, Shared};
use reconcile_lab::engine::status::Reason;
use serde_json::{json, Value};

fn k(name: &str) -> &'static Kind {
    Kind::lookup(name).expect("known kind")
}

fn deployment(name: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}})
}

fn replicaset(name: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

fn pod(name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

fn drain(s: &mut ApiServer, w: WatchId) -> Vec<WatchEvent> {
    let mut out = Vec::new();
    while let Some(e) = s.next_event(w) {
        out.push(e);
    }
    out
}

fn summary(evs: &[WatchEvent]) -> Vec<(EventType, String, u64)> {
    evs.iter().map(|e| (e.event_type, e.object.name().to_string(), e.object.resource_version())).collect()
}

fn merge(s: &mut ApiServer, kind: &str, name: &str, p: Value) -> Result<Value, reconcile_lab::engine::status::Status> {
    s.patch(k(kind), Some("default"), name, &Patch::Merge(p), Subresource::Main)
}

#[test]
fn initial_namespaces_exist_and_are_active() {
    let s = ApiServer::new(1);
    let list = s.list(k("ns"), None, &Selector::everything()).unwrap();
    let names: Vec<&str> = list.items.iter().map(|n| n.name()).collect();
    assert_eq!(names, ["default", "kube-node-lease", "kube-public", "kube-system"]);
    for n in &list.items {
        assert_eq!(n["status"]["phase"], "Active");
        assert_eq!(n["spec"]["finalizers"], json!(["kubernetes"]));
    }
    assert_eq!(list.resource_version, s.resource_version());
}

#[test]
fn tv11_create_generation_labels_annotations() {
    let mut s = ApiServer::new(7);
    let w = s.watch(k("deploy"), Some("default"), Selector::everything(), WatchFrom::Now);
    let d = s.create(deployment("web")).unwrap();
    assert_eq!(d.generation(), 1);
    assert_eq!(d.uid().len(), 36);
    assert_eq!(d["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
    let rv1 = d.resource_version();
    let keys: Vec<&String> = d["metadata"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp"]);
    let top: Vec<&String> = d.as_object().unwrap().keys().collect();
    assert_eq!(top, ["apiVersion", "kind", "metadata", "spec", "status"]);
    // Defaults (k/k `pkg/apis/apps/v1/defaults.go`, `SetDefaults_Deployment`).
    assert_eq!(d["spec"]["replicas"], 1);
    assert_eq!(d["spec"]["revisionHistoryLimit"], 10);
    assert_eq!(d["spec"]["progressDeadlineSeconds"], 600);
    assert_eq!(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
    assert_eq!(d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"], "IfNotPresent");

    let d2 = merge(&mut s, "deploy", "web", json!({"spec": {"replicas": 5}})).unwrap();
    assert_eq!((d2.generation(), d2.resource_version() > rv1), (2, true));
    let d3 = merge(&mut s, "deploy", "web", json!({"metadata": {"labels": {"tier": "fe"}}})).unwrap();
    assert_eq!(d3.generation(), 2);
    let d4 = merge(&mut s, "deploy", "web", json!({"metadata": {"annotations": {"note": "x"}}})).unwrap();
    assert_eq!(d4.generation(), 3);
    let evs = summary(&drain(&mut s, w));
    assert_eq!(
        evs,
        vec![
            (EventType::Added, "web".into(), rv1),
            (EventType::Modified, "web".into(), d2.resource_version()),
            (EventType::Modified, "web".into(), d3.resource_version()),
            (EventType::Modified, "web".into(), d4.resource_version()),
        ]
    );
    assert!(d2.resource_version() < d3.resource_version() && d3.resource_version() < d4.resource_version());

    s.create(replicaset("rs")).unwrap();
    let rs = merge(&mut s, "rs", "rs", json!({"metadata": {"annotations": {"note": "x"}}})).unwrap();
    assert_eq!(rs.generation(), 1);
}

#[test]
fn tv12_no_op_write_changes_nothing() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(d.resource_version()));
    let rv = s.resource_version();
    let back = s.update(d.clone()).unwrap();
    assert_eq!(back, d);
    assert_eq!(s.resource_version(), rv);
    assert!(s.pending_events(w).is_empty());
}

#[test]
fn tv13_stale_update_conflicts() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let mut a = d.clone();
    a["spec"]["replicas"] = json!(2);
    let a = s.update(a).unwrap();
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(a.resource_version()));
    let mut b = d.clone();
    b["spec"]["replicas"] = json!(3);
    let err = s.update(b).unwrap_err();
    assert_eq!(err.code(), 409);
    assert_eq!(err.reason, Reason::Conflict);
    assert_eq!(err.message, "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again");
    let j = err.to_json();
    assert_eq!(j["details"], json!({"name": "web", "group": "apps", "kind": "deployments"}));
    assert_eq!(s.get(k("deploy"), Some("default"), "web").unwrap(), a);
    assert!(s.pending_events(w).is_empty());
}

#[test]
fn tv14_unconditional_update_allowed_only_where_the_kind_allows() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let mut u = d.clone();
    u.meta_mut().shift_remove("resourceVersion");
    u["spec"]["replicas"] = json!(4);
    let out = s.update(u).unwrap();
    assert!(out.resource_version() > d.resource_version());
    assert_eq!(out["spec"]["replicas"], 4);

    let b = s
        .create(json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": "b1"}, "spec": {"region": "eu"}}))
        .unwrap();
    let mut u = b.clone();
    u.meta_mut().shift_remove("resourceVersion");
    let err = s.update(u).unwrap_err();
    assert_eq!(err.code(), 422);
    assert_eq!(err.message, "Bucket.example.com \"b1\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update");
}

#[test]
fn tv15_patches_without_rv_never_conflict_but_a_stale_rv_does() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(d.resource_version()));
    merge(&mut s, "deploy", "web", json!({"spec": {"replicas": 2}})).unwrap();
    let out = merge(&mut s, "deploy", "web", json!({"metadata": {"labels": {"x": "y"}}})).unwrap();
    assert_eq!((out["spec"]["replicas"].clone(), out.label("x")), (json!(2), Some("y")));
    let evs = drain(&mut s, w);
    assert_eq!(evs.len(), 2);
    assert!(evs[0].object.resource_version() < evs[1].object.resource_version());
    let err = merge(
        &mut s,
        "deploy",
        "web",
        json!({"metadata": {"resourceVersion": d.resource_version().to_string()}, "spec": {"replicas": 9}}),
    )
    .unwrap_err();
    assert_eq!(err.message, "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again");
}

#[test]
fn tv16_status_subresource() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let mut u = d.clone();
    u["status"] = json!({"replicas": 99});
    u["spec"]["replicas"] = json!(3);
    let out = s.update(u).unwrap();
    assert_eq!((out["spec"]["replicas"].clone(), out.generation()), (json!(3), 2));
    assert_eq!(out["status"], json!({}));
    let mut st = out.clone();
    st["status"] = json!({"observedGeneration": 2});
    st["spec"]["replicas"] = json!(9);
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(out.resource_version()));
    let out2 = s.update_status(st).unwrap();
    assert_eq!(out2["status"]["observedGeneration"], 2);
    assert_eq!((out2["spec"]["replicas"].clone(), out2.generation()), (json!(3), 2));
    assert!(out2.resource_version() > out.resource_version());
    assert_eq!(summary(&drain(&mut s, w))[0].0, EventType::Modified);
    let cm = s.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})).unwrap();
    assert_eq!(s.update_status(cm).unwrap_err().code(), 404);
}

#[test]
fn tv17_delete_without_finalizers() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(d.resource_version()));
    let opts = DeleteOptions { propagation_policy: Some(Propagation::Background), ..Default::default() };
    let res = s.delete(k("deploy"), Some("default"), "web", &opts).unwrap();
    assert_eq!(
        res.response(k("deploy")),
        json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"web","group":"apps","kind":"deployments","uid": d.uid()}})
    );
    let evs = drain(&mut s, w);
    assert_eq!(summary(&evs), vec![(EventType::Deleted, "web".to_string(), s.resource_version())]);
    assert_eq!(evs[0].object["spec"], d["spec"]);
    let err = s.get(k("deploy"), Some("default"), "web").unwrap_err();
    assert_eq!((err.code(), err.message.as_str()), (404, "deployments.apps \"web\" not found"));
    let err = s.delete(k("deploy"), Some("default"), "web", &opts).unwrap_err();
    assert_eq!(err.code(), 404);
}

fn cm_with_finalizer(s: &mut ApiServer) -> Value {
    s.create(
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "finalizers": ["example.com/x"]}}),
    )
    .unwrap()
}

#[test]
fn tv18_delete_with_a_custom_finalizer() {
    let mut s = ApiServer::new(1);
    let cm = cm_with_finalizer(&mut s);
    let w = s.watch(k("cm"), None, Selector::everything(), WatchFrom::Exact(cm.resource_version()));
    let res = s.delete(k("cm"), Some("default"), "cm", &DeleteOptions::default()).unwrap();
    let Deleted::Pending(o) = res else { panic!("expected pending") };
    assert_eq!(o["metadata"]["deletionTimestamp"], "2026-01-01T00:00:00Z");
    assert_eq!(o["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(o.finalizers(), vec!["example.com/x"]);
    assert!(o.resource_version() > cm.resource_version());
    assert_eq!(summary(&drain(&mut s, w))[0].0, EventType::Modified);
    assert!(s.get(k("cm"), Some("default"), "cm").is_ok());

    let d = s
        .create({
            let mut d = deployment("web");
            d["metadata"]["finalizers"] = json!(["example.com/x"]);
            d
        })
        .unwrap();
    let Deleted::Pending(o) = s.delete(k("deploy"), Some("default"), "web", &DeleteOptions::default()).unwrap() else {
        panic!("expected pending")
    };
    assert_eq!(o.generation(), d.generation() + 1);
    // A second delete changes nothing.
    let rv = s.resource_version();
    s.delete(k("deploy"), Some("default"), "web", &DeleteOptions::default()).unwrap();
    assert_eq!(s.resource_version(), rv);
}

#[test]
fn tv19_no_new_finalizers_while_deleting_and_last_removal_deletes() {
    let mut s = ApiServer::new(1);
    cm_with_finalizer(&mut s);
    s.delete(k("cm"), Some("default"), "cm", &DeleteOptions::default()).unwrap();
    let w = s.watch(k("cm"), None, Selector::everything(), WatchFrom::Exact(s.resource_version()));
    let err =
        merge(&mut s, "cm", "cm", json!({"metadata": {"finalizers": ["example.com/x", "example.com/y"]}})).unwrap_err();
    assert_eq!(err.code(), 422);
    assert_eq!(err.message, "ConfigMap \"cm\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"example.com/y\"}");
    let out = merge(&mut s, "cm", "cm", json!({"metadata": {"finalizers": null}})).unwrap();
    assert!(out.finalizers().is_empty());
    let evs = drain(&mut s, w);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].event_type, EventType::Deleted);
    assert_eq!(evs[0].object.finalizers(), vec!["example.com/x"]);
    assert_eq!(evs[0].object.resource_version(), s.resource_version());
    assert_eq!(s.get(k("cm"), Some("default"), "cm").unwrap_err().code(), 404);
}

#[test]
fn tv20_system_fields_on_update() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let mut u = d.clone();
    u["metadata"]["uid"] = json!("11111111-1111-4111-8111-111111111111");
    let err = s.update(u).unwrap_err();
    assert_eq!(err.code(), 409);
    assert_eq!(
        err.message,
        format!("Operation cannot be fulfilled on deployments.apps \"web\": StorageError: invalid object, Code: 4, Key: /registry/deployments/default/web, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 11111111-1111-4111-8111-111111111111, UID in object meta: {}", d.uid())
    );
    let err =
        merge(&mut s, "deploy", "web", json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}})).unwrap_err();
    assert_eq!(err.code(), 422);
    assert!(
        err.message.contains("metadata.deletionTimestamp: Invalid value: \"2026-01-01T00:00:00Z\": field is immutable"),
        "{}",
        err.message
    );
    let mut u = d.clone();
    u["metadata"]["generation"] = json!(100);
    u["metadata"]["creationTimestamp"] = json!("2020-01-01T00:00:00Z");
    let out = s.update(u).unwrap();
    assert_eq!(out.generation(), 1);
    assert_eq!(out["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
}

#[test]
fn tv21_watch_from_a_resource_version() {
    let mut s = ApiServer::new(1);
    s.create(deployment("old")).unwrap();
    let r = s.list(k("deploy"), None, &Selector::everything()).unwrap().resource_version;
    let a = s.create(deployment("a")).unwrap();
    let b = merge(&mut s, "deploy", "a", json!({"spec": {"replicas": 2}})).unwrap();
    s.delete(k("deploy"), Some("default"), "a", &DeleteOptions::default()).unwrap();
    let c = s.resource_version();
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(r));
    assert_eq!(
        summary(&drain(&mut s, w)),
        vec![
            (EventType::Added, "a".into(), a.resource_version()),
            (EventType::Modified, "a".into(), b.resource_version()),
            (EventType::Deleted, "a".into(), c),
        ]
    );
    for from in [WatchFrom::Now, WatchFrom::Any] {
        let w = s.watch(k("deploy"), None, Selector::everything(), from);
        assert_eq!(summary(&drain(&mut s, w)), vec![(EventType::Added, "old".into(), 5)]);
    }
    s.expire_history();
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(r));
    let evs = drain(&mut s, w);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].event_type, EventType::Error);
    assert_eq!(evs[0].object["code"], 410);
    assert_eq!(evs[0].object["reason"], "Expired");
    assert_eq!(evs[0].object["message"], format!("too old resource version: {r} ({c})"));
    assert!(!s.watch_is_open(w));
    merge(&mut s, "deploy", "old", json!({"spec": {"replicas": 3}})).unwrap();
    assert!(s.pending_events(w).is_empty());
}

#[test]
fn history_window_is_bounded() {
    let mut s = ApiServer::new(1);
    s.set_history_limit(3);
    let start = s.resource_version();
    for i in 0..5 {
        s.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("c{i}")}})).unwrap();
    }
    // Events start+1..start+5; the window keeps start+3..start+5, so start+2 is the oldest RV to resume from.
    let w = s.watch(k("cm"), None, Selector::everything(), WatchFrom::Exact(start + 1));
    let evs = drain(&mut s, w);
    assert_eq!(evs[0].object["message"], format!("too old resource version: {} ({})", start + 1, start + 2));
    let w = s.watch(k("cm"), None, Selector::everything(), WatchFrom::Exact(start + 2));
    assert_eq!(drain(&mut s, w).len(), 3);
}

#[test]
fn tv22_label_selector_transitions() {
    let mut s = ApiServer::new(1);
    s.create(pod("p", json!({"app": "web"}))).unwrap();
    let w =
        s.watch(k("po"), Some("default"), Selector::parse("app=web").unwrap(), WatchFrom::Exact(s.resource_version()));
    let out = merge(&mut s, "po", "p", json!({"metadata": {"labels": {"app": "db"}}})).unwrap();
    let evs = drain(&mut s, w);
    assert_eq!(summary(&evs), vec![(EventType::Deleted, "p".into(), out.resource_version())]);
    assert_eq!(evs[0].object.label("app"), Some("web"));
    let back = merge(&mut s, "po", "p", json!({"metadata": {"labels": {"app": "web"}}})).unwrap();
    assert_eq!(summary(&drain(&mut s, w)), vec![(EventType::Added, "p".into(), back.resource_version())]);
}

#[test]
fn tv30_namespace_create_and_first_delete() {
    let mut s = ApiServer::new(1);
    let ns = s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}})).unwrap();
    assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(ns["status"]["phase"], "Active");
    let w = s.watch(k("ns"), None, Selector::everything(), WatchFrom::Exact(ns.resource_version()));
    let opts = DeleteOptions { propagation_policy: Some(Propagation::Background), ..Default::default() };
    let Deleted::Pending(t) = s.delete(k("ns"), None, "demo", &opts).unwrap() else { panic!("pending") };
    assert_eq!(t["status"]["phase"], "Terminating");
    assert!(t.is_deleting());
    assert_eq!(summary(&drain(&mut s, w))[0].0, EventType::Modified);
    // A second delete changes nothing while spec.finalizers remain.
    let rv = s.resource_version();
    assert!(matches!(s.delete(k("ns"), None, "demo", &opts).unwrap(), Deleted::Pending(_)));
    assert_eq!(s.resource_version(), rv);
    // A normal update cannot drop spec.finalizers; /finalize can, and that deletes it.
    let mut u = t.clone();
    u["spec"]["finalizers"] = json!([]);
    assert_eq!(s.update(u.clone()).unwrap()["spec"]["finalizers"], json!(["kubernetes"]));
    let u = s.get(k("ns"), None, "demo").unwrap();
    let mut f = u.clone();
    f["spec"]["finalizers"] = json!([]);
    s.finalize_namespace(f).unwrap();
    assert_eq!(summary(&drain(&mut s, w))[0].0, EventType::Deleted);
    assert_eq!(s.get(k("ns"), None, "demo").unwrap_err().message, "namespaces \"demo\" not found");
}

#[test]
fn tv31_admission_in_terminating_and_missing_namespaces() {
    let mut s = ApiServer::new(1);
    s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}})).unwrap();
    s.delete(k("ns"), None, "demo", &DeleteOptions::default()).unwrap();
    let mut p = pod("p", json!({}));
    p["metadata"]["namespace"] = json!("demo");
    let err = s.create(p).unwrap_err();
    assert_eq!(err.code(), 403);
    assert_eq!(
        err.message,
        "pods \"p\" is forbidden: unable to create new content in namespace demo because it is being terminated"
    );
    let j = err.to_json();
    assert_eq!(
        j["details"]["causes"],
        json!([{"reason": "NamespaceTerminating", "message": "namespace demo is being terminated", "field": "metadata.namespace"}])
    );
    let mut p = pod("p", json!({}));
    p["metadata"]["namespace"] = json!("nope");
    let err = s.create(p).unwrap_err();
    assert_eq!((err.code(), err.message.as_str()), (404, "namespaces \"nope\" not found"));
    for ns in ["default", "kube-system", "kube-public"] {
        let err = s.delete(k("ns"), None, ns, &DeleteOptions::default()).unwrap_err();
        assert_eq!(err.code(), 403);
        assert_eq!(err.message, format!("namespaces \"{ns}\" is forbidden: this namespace may not be deleted"));
    }
}

/// Two servers that took the same requests by two paths hold the same objects and deliver the
/// same watch events on `wa` and `wb`; returns how many events each delivered.
fn same_objects_and_events(a: &mut ApiServer, wa: WatchId, b: &mut ApiServer, wb: WatchId) -> usize {
    let texts = |s: &ApiServer| s.all_objects().map(|o| o.to_string()).collect::<Vec<_>>();
    assert_eq!(texts(a), texts(b));
    let mut delivered = 0;
    loop {
        match (a.next_event(wa), b.next_event(wb)) {
            (None, None) => break,
            (x, y) => assert_eq!(x, y),
        }
        delivered += 1;
    }
    delivered
}

/// A status written from the cached pod (`update_status_of`, the status as a tree) has exactly
/// the outcome of `update_status` of the pod's copy with that status: the same results and
/// errors, resourceVersions, stored pods and watch events, on its own path (a status in the
/// stored form, the same status again, pods being deleted that a finalizer holds, with a grace
/// period or none) and on every case it hands to the general path (a stale copy, a status out
/// of the stored order, one without `qosClass` or with an empty one, one that does not decode,
/// one that is not an object).
#[test]
fn a_status_written_from_the_cache_is_the_general_paths_write() {
    let kind = Kind::by_kind("Pod").expect("kind");
    let setup = || {
        let mut s = ApiServer::new(5);
        for name in ["a", "b", "c"] {
            s.create(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "finalizers": ["x/y"]},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]}}))
                .expect("create");
        }
        let w = s.watch(kind, None, Selector::everything(), WatchFrom::Now);
        (s, w)
    };
    let (mut general, wg) = setup();
    let (mut direct, wd) = setup();
    let running = json!({"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-01-01T00:00:03Z"}],
        "containerStatuses": [{"name": "web", "ready": true, "state": {"running": {"startedAt": "2026-01-01T00:00:03Z"}}}],
        "startTime": "2026-01-01T00:00:01Z", "qosClass": "BestEffort"});
    // The same in the order Go marshals `PodStatus`: the stored form, which a tree takes as it is.
    let canonical = json!({"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-01-01T00:00:04Z"}],
        "startTime": "2026-01-01T00:00:01Z",
        "containerStatuses": [{"name": "web", "ready": true, "state": {"running": {"startedAt": "2026-01-01T00:00:03Z"}}}],
        "qosClass": "BestEffort"});
    let status_schema = schema::field_struct(schema::root(kind), "status").expect("PodStatus");
    assert!(schema::is_canonical(&Frozen::from(&canonical), status_schema));
    assert!(!schema::is_canonical(&Frozen::from(&running), status_schema));
    // In the stored form but for the `qosClass` the general path takes from the stored pod.
    let mut canonical_no_qos = canonical.clone();
    canonical_no_qos.as_object_mut().map(|m| m.shift_remove("qosClass"));
    canonical_no_qos["phase"] = json!("Pending");
    assert!(schema::is_canonical(&Frozen::from(&canonical_no_qos), status_schema));
    let mut no_qos = running.clone();
    no_qos.as_object_mut().map(|m| m.shift_remove("qosClass"));
    no_qos["phase"] = json!("Pending");
    let mut empty_qos = running.clone();
    empty_qos["qosClass"] = json!("");
    empty_qos["message"] = json!("m");
    // (pod, status, stale: send the copy from before the previous write)
    let cases: Vec<(&str, Value, bool)> = vec![
        ("a", running.clone(), false),
        ("a", running.clone(), false),
        ("a", canonical.clone(), false),
        ("a", canonical_no_qos, false),
        ("a", no_qos, false),
        ("a", empty_qos, false),
        ("a", running.clone(), true),
        ("a", json!({"phase": 5}), false),
        ("a", json!({"phase": "Running", "color": "blue"}), false),
        ("a", Value::Null, false),
        ("b", canonical, false),
        ("delete b", Value::Null, false),
        ("b", json!({"phase": "Failed", "qosClass": "BestEffort"}), false),
        ("delete now c", Value::Null, false),
        ("c", json!({"phase": "Failed", "qosClass": "BestEffort"}), false),
    ];
    let mut before: Option<(Shared, Shared)> = None;
    let mut written = 0;
    for (name, status, stale) in cases {
        if let Some(name) = name.strip_prefix("delete ") {
            let (name, grace) = match name.strip_prefix("now ") {
                Some(name) => (name, Some(0)),
                None => (name, None),
            };
            let options = DeleteOptions { grace_period_seconds: grace, ..DeleteOptions::default() };
            for s in [&mut general, &mut direct] {
                s.delete(kind, Some("default"), name, &options).expect("delete");
            }
            continue;
        }
        let g_now = general.get_shared(kind, Some("default"), name).expect("pod");
        let d_now = direct.get_shared(kind, Some("default"), name).expect("pod");
        let (g_sent, d_sent) = match (&before, stale) {
            (Some((g, d)), true) => (g.clone(), d.clone()),
            _ => (g_now.clone(), d_now.clone()),
        };
        before = Some((g_now, d_now));
        let g = general.update_status(with_status(&g_sent, status.clone())).map(|v| v.resource_version());
        let d = direct.update_status_of(&d_sent, Frozen::from(&status));
        assert_eq!(
            g.as_ref().map_err(|e| (e.code(), &e.message)),
            d.as_ref().map_err(|e| (e.code(), &e.message)),
            "{name} {status}"
        );
        written += usize::from(g.is_ok());
    }
    assert_eq!(written, 10, "all but the stale copy and the two statuses that do not decode");
    let delivered = same_objects_and_events(&mut general, wg, &mut direct, wd);
    assert_eq!(delivered, 14, "three pods, nine writes (the same status again writes nothing), two deletions");
}

/// The recorder's Event write (`ApiServer::create_event`, built as its stored form directly)
/// has exactly the outcome of `create` of the same Event as a request body: the same results and
/// errors, stored objects, uids, resourceVersions and watch events, on the plain path and on
/// every case it hands to the general path (an empty reference namespace, a name or namespace
/// validation refuses, a namespace missing or Terminating, a name taken, the quota reached).
#[test]
fn a_recorded_event_is_stored_as_its_create_would_store_it() {
    use reconcile_lab::engine::apiserver::create::NewEvent;
    let setup = || {
        let mut s = ApiServer::new(7);
        s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ending"}})).expect("namespace");
        s.delete(k("Namespace"), None, "ending", &DeleteOptions::default()).expect("delete namespace");
        let w = s.watch(k("Event"), None, Selector::everything(), WatchFrom::Now);
        (s, w)
    };
    let (mut general, wg) = setup();
    let (mut direct, wd) = setup();
    let long = "n".repeat(250);
    let ev = |name: &'static str, ns: &'static str, involved_ns: Option<&'static str>| NewEvent {
        name,
        namespace: ns,
        involved: ["Pod", "web-1", "u-1", "v1", "17"],
        involved_namespace: involved_ns,
        what: ["Normal", "Pulled", "Successfully pulled image \"nginx\"\n\tin 2s: é ✓ \u{1}"],
        component: "kubelet",
        timestamp: "2026-01-01T00:00:02Z",
    };
    let long_name: &'static str = Box::leak(format!("{long}.1880").into_boxed_str());
    let cases = [
        ev("web-1.1", "default", Some("default")),
        NewEvent {
            involved: ["Node", "node-1", "", "v1", ""],
            what: ["Warning", "", ""],
            component: "",
            ..ev("node-1.2", "default", None)
        },
        ev("web-1.3", "kube-system", Some("kube-system")),
        ev("web-1.4", "default", Some("")),
        ev(long_name, "default", Some("default")),
        ev("Web-1.5", "default", Some("default")),
        ev("web-1.6", "nope", Some("nope")),
        ev("web-1.7", "ending", Some("ending")),
        ev("web-1.1", "default", Some("default")),
        NewEvent { involved: ["", "", "", "", ""], ..ev("x.8", "default", Some("default")) },
    ];
    let (mut outcomes, mut quota) = (0, 0);
    for limit in [usize::MAX, 5] {
        general.set_object_limit(limit);
        direct.set_object_limit(limit);
        for e in &cases {
            let g = general.create(e.to_value()).map(|v| v.resource_version());
            let d = direct.create_event(e);
            assert_eq!(
                g.as_ref().map_err(|s| (s.code(), &s.message)),
                d.as_ref().map_err(|s| (s.code(), &s.message)),
                "{}",
                e.name
            );
            outcomes += usize::from(g.is_ok());
            quota += usize::from(g.is_err_and(|s| s.message.contains("exceeded quota")));
        }
    }
    assert_eq!((outcomes, quota), (5, 6), "five Events stored; then the quota refuses those that pass admission");
    assert_eq!(same_objects_and_events(&mut general, wg, &mut direct, wd), 5);
    // The same uid draws: the next object gets the same uid on both.
    let uid = |s: &mut ApiServer| s.create(deployment("after")).expect("create").uid().to_string();
    assert_eq!(uid(&mut general), uid(&mut direct));
}
