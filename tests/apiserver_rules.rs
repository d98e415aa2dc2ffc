//! The API server's other rules: strict decoding, defaults, validation messages, generated
//! names, quota, graceful pod deletion, GC finalizers, preconditions, patches, binding,
//! determinism and cheap clones.

#![allow(clippy::result_large_err)]

use reconcile_lab::engine::apiserver::{
    ApiServer, DeleteOptions, Deleted, EventType, FieldValidation, Patch, Propagation, Subresource, WatchEvent,
    WatchFrom,
};
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::rand::ALPHANUMS;
use reconcile_lab::engine::status::Reason;
use reconcile_lab::engine::time::Time;
use serde_json::{json, Value};

fn k(name: &str) -> &'static Kind {
    Kind::lookup(name).expect("known kind")
}

fn deployment(name: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

fn pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

#[test]
fn strict_decoding_rejects_unknown_fields_and_wrong_types() {
    let mut s = ApiServer::new(1);
    let mut d = deployment("web");
    d["spec"]["replicass"] = json!(3);
    let err = s.create(d).unwrap_err();
    assert_eq!((err.code(), err.reason), (400, Reason::BadRequest));
    assert_eq!(err.message, "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.replicass\"");
    let mut d = deployment("web");
    d["spec"]["replicas"] = json!("three");
    assert_eq!(
        s.create(d).unwrap_err().message,
        "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    );
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "status": {}});
    assert_eq!(
        s.create(cm).unwrap_err().message,
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"status\""
    );
    let b = json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": "b"}, "spec": {"region": 5}});
    let err = s.create(b).unwrap_err();
    assert_eq!(err.code(), 422);
    assert_eq!(err.message, "Bucket.example.com \"b\" is invalid: spec.region: Invalid value: \"integer\": spec.region in body must be of type string: \"integer\"");
    assert_eq!(s.resource_version(), 4, "nothing was written");
}

#[test]
fn pod_defaults_look_like_a_real_cluster() {
    let mut s = ApiServer::new(1);
    let p = s.create(pod("p")).unwrap();
    let spec = &p["spec"];
    assert_eq!(spec["restartPolicy"], "Always");
    assert_eq!(spec["terminationGracePeriodSeconds"], 30);
    assert_eq!(spec["dnsPolicy"], "ClusterFirst");
    assert_eq!(spec["schedulerName"], "default-scheduler");
    assert_eq!(spec["serviceAccountName"], "default");
    assert_eq!(spec["securityContext"], json!({}));
    assert_eq!(spec["enableServiceLinks"], true);
    assert_eq!(spec["tolerations"][0]["key"], "node.kubernetes.io/not-ready");
    assert_eq!(spec["tolerations"][1]["tolerationSeconds"], 300);
    let c = &spec["containers"][0];
    assert_eq!(c["imagePullPolicy"], "Always");
    assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
    assert_eq!(c["terminationMessagePolicy"], "File");
    assert_eq!(p["status"], json!({"phase": "Pending", "qosClass": "BestEffort"}));
    assert_eq!(p.generation(), 1);
    assert_eq!(p.namespace(), Some("default"));
}

#[test]
fn validation_messages() {
    let mut s = ApiServer::new(1);
    let mut d = deployment("Web");
    d["spec"]["replicas"] = json!(-1);
    let err = s.create(d).unwrap_err();
    assert_eq!(err.code(), 422);
    assert_eq!(
        err.message,
        "Deployment.apps \"Web\" is invalid: [metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.replicas: Invalid value: -1: must be greater than or equal to 0]"
    );
    assert_eq!(
        err.to_json()["details"]["causes"][1],
        json!({"reason": "FieldValueInvalid", "message": "Invalid value: -1: must be greater than or equal to 0", "field": "spec.replicas"})
    );

    let mut d = deployment("web");
    d["spec"]["template"]["metadata"]["labels"] = json!({"app": "other"});
    assert_eq!(
        s.create(d).unwrap_err().message,
        "Deployment.apps \"web\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"
    );
    let err = s.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})).unwrap_err();
    assert_eq!(
        err.message,
        "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required"
    );
    let err = s
        .create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"a": "b c"}}}))
        .unwrap_err();
    assert!(err.message.starts_with("ConfigMap \"c\" is invalid: metadata.labels: Invalid value: \"b c\": a valid label must be an empty string"), "{}", err.message);
    let err = s
        .create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["nodomain"]}}))
        .unwrap_err();
    assert_eq!(err.message, "ConfigMap \"c\" is invalid: metadata.finalizers[0]: Invalid value: \"nodomain\": name is neither a standard finalizer name nor is it fully qualified");
    let two = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1", "controller": true},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": true}]}});
    let err = s.create(two).unwrap_err();
    assert!(err.message.ends_with("Only one reference can have Controller set to true. Found \"true\" in references for ReplicaSet/a and ReplicaSet/b"), "{}", err.message);
    let p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}});
    assert_eq!(s.create(p).unwrap_err().message, "Pod \"p\" is invalid: spec.containers: Required value");
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}});
    assert!(s.create(ns).unwrap_err().message.contains("a lowercase RFC 1123 label must consist of"));
}

#[test]
fn create_rules() {
    let mut s = ApiServer::new(1);
    s.create(deployment("web")).unwrap();
    let err = s.create(deployment("web")).unwrap_err();
    assert_eq!((err.code(), err.message.as_str()), (409, "deployments.apps \"web\" already exists"));
    let mut d = deployment("x");
    d["metadata"]["resourceVersion"] = json!("7");
    let err = s.create(d).unwrap_err();
    assert_eq!((err.code(), err.message.as_str()), (500, "resourceVersion should not be set on objects to be created"));
    assert!(err.to_json().get("reason").is_none());
    // Server-owned fields are overwritten.
    let mut d = deployment("y");
    d["metadata"]["uid"] = json!("mine");
    d["metadata"]["creationTimestamp"] = json!("2000-01-01T00:00:00Z");
    d["metadata"]["deletionTimestamp"] = json!("2000-01-01T00:00:00Z");
    d["status"] = json!({"replicas": 5});
    let y = s.create(d).unwrap();
    assert_ne!(y.uid(), "mine");
    assert_eq!(y["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
    assert!(!y.is_deleting());
    assert_eq!(y["status"], json!({}));
    // Cluster-scoped kinds drop a namespace.
    let n = s
        .create(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "namespace": "default"}}))
        .unwrap();
    assert_eq!(n.namespace(), None);
}

#[test]
fn generate_name_uses_kubernetes_alphabet_and_is_deterministic() {
    let make = || {
        let mut s = ApiServer::new(99);
        let a = s.create(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-"}, "spec": {"containers": [{"name": "c", "image": "i"}]}})).unwrap();
        let b = s.create(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "x".repeat(70)}, "spec": {"containers": [{"name": "c", "image": "i"}]}})).unwrap();
        (a, b)
    };
    let (a, b) = make();
    let name = a.name();
    assert!(name.starts_with("web-") && name.len() == 9, "{name}");
    assert!(name[4..].bytes().all(|c| ALPHANUMS.contains(&c)));
    assert_eq!(b.name().len(), 63);
    assert_eq!(make(), (a, b), "same seed, same results");
    assert_ne!(ApiServer::new(1).create(pod("q")).unwrap().uid(), ApiServer::new(2).create(pod("q")).unwrap().uid());
}

#[test]
fn object_cap_is_a_quota_error() {
    let mut s = ApiServer::new(1);
    s.set_object_limit(2);
    s.create(pod("a")).unwrap();
    s.create(pod("b")).unwrap();
    let err = s.create(pod("c")).unwrap_err();
    assert_eq!(err.code(), 403);
    assert_eq!(
        err.message,
        "pods \"c\" is forbidden: exceeded quota: object-count, requested: pods=1, used: pods=2, limited: pods=2"
    );
    s.create(deployment("d1")).unwrap();
    s.create(deployment("d2")).unwrap();
    assert!(s.create(deployment("d3")).unwrap_err().message.contains("requested: count/deployments.apps=1"));
}

#[test]
fn graceful_pod_deletion() {
    let mut s = ApiServer::new(1);
    // Unscheduled: deleted at once.
    s.create(pod("p0")).unwrap();
    assert!(matches!(s.delete(k("po"), Some("default"), "p0", &DeleteOptions::default()).unwrap(), Deleted::Gone(_)));
    // Scheduled: deletionTimestamp = now + 30s, grace 30, generation + 1.
    let p = s.create(pod("p")).unwrap();
    s.bind("default", "p", "node-1").unwrap();
    let Deleted::Pending(d) = s.delete(k("po"), Some("default"), "p", &DeleteOptions::default()).unwrap() else {
        panic!()
    };
    assert_eq!(d["metadata"]["deletionTimestamp"], "2026-01-01T00:00:30Z");
    assert_eq!(d["metadata"]["deletionGracePeriodSeconds"], 30);
    assert_eq!(d.generation(), p.generation() + 1);
    // A longer grace period changes nothing; a shorter one moves the deadline.
    let rv = s.resource_version();
    let long = DeleteOptions { grace_period_seconds: Some(60), ..Default::default() };
    s.delete(k("po"), Some("default"), "p", &long).unwrap();
    assert_eq!(s.resource_version(), rv);
    let short = DeleteOptions { grace_period_seconds: Some(10), ..Default::default() };
    let Deleted::Pending(d) = s.delete(k("po"), Some("default"), "p", &short).unwrap() else { panic!() };
    assert_eq!(d["metadata"]["deletionTimestamp"], "2026-01-01T00:00:10Z");
    // The kubelet's final delete with grace 0.
    let zero = DeleteOptions { grace_period_seconds: Some(0), ..Default::default() };
    assert!(matches!(s.delete(k("po"), Some("default"), "p", &zero).unwrap(), Deleted::Gone(_)));
}

#[test]
fn propagation_policies_become_finalizers() {
    let mut s = ApiServer::new(1);
    for (name, policy, fin) in
        [("f", Propagation::Foreground, "foregroundDeletion"), ("o", Propagation::Orphan, "orphan")]
    {
        s.create(deployment(name)).unwrap();
        let opts = DeleteOptions { propagation_policy: Some(policy), ..Default::default() };
        let Deleted::Pending(d) = s.delete(k("deploy"), Some("default"), name, &opts).unwrap() else { panic!() };
        assert_eq!(d.finalizers(), vec![fin]);
        assert_eq!(d["metadata"]["deletionGracePeriodSeconds"], 0);
        assert_eq!(d.generation(), 2);
    }
    // A later delete with another policy swaps the GC finalizer.
    let opts = DeleteOptions { propagation_policy: Some(Propagation::Orphan), ..Default::default() };
    let Deleted::Pending(d) = s.delete(k("deploy"), Some("default"), "f", &opts).unwrap() else { panic!() };
    assert_eq!(d.finalizers(), vec!["orphan"]);
    assert_eq!(d.generation(), 2);
    // Removing the GC finalizer deletes the owner.
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Exact(s.resource_version()));
    s.patch(
        k("deploy"),
        Some("default"),
        "o",
        &Patch::Json(json!([{"op": "remove", "path": "/metadata/finalizers/0"}])),
        Subresource::Main,
    )
    .unwrap();
    assert_eq!(s.next_event(w).unwrap().event_type, EventType::Deleted);
}

#[test]
fn delete_preconditions() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let opts = DeleteOptions { preconditions_resource_version: Some("1".into()), ..Default::default() };
    let err = s.delete(k("deploy"), Some("default"), "web", &opts).unwrap_err();
    assert_eq!(err.code(), 409);
    assert_eq!(
        err.message,
        format!("Operation cannot be fulfilled on Deployment.apps \"web\": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ({}). The object might have been modified", d.resource_version())
    );
    let opts = DeleteOptions { preconditions_uid: Some("other".into()), ..Default::default() };
    let err = s.delete(k("deploy"), Some("default"), "web", &opts).unwrap_err();
    assert_eq!(
        err.message,
        format!("Operation cannot be fulfilled on Deployment.apps \"web\": the UID in the precondition (other) does not match the UID in record ({}). The object might have been deleted and then recreated", d.uid())
    );
    let opts = DeleteOptions {
        preconditions_uid: Some(d.uid().to_string()),
        preconditions_resource_version: Some(d.resource_version().to_string()),
        ..Default::default()
    };
    assert!(s.delete(k("deploy"), Some("default"), "web", &opts).is_ok());
}

#[test]
fn json_patch_operations_and_errors() {
    let mut s = ApiServer::new(1);
    s.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}})).unwrap();
    let ops = json!([
        {"op": "add", "path": "/data/b", "value": "2"},
        {"op": "replace", "path": "/data/a", "value": "9"},
        {"op": "copy", "from": "/data/a", "path": "/data/c"},
        {"op": "move", "from": "/data/b", "path": "/data/d"},
        {"op": "test", "path": "/data/d", "value": "2"},
        {"op": "remove", "path": "/data/c"}
    ]);
    let out = s.patch(k("cm"), Some("default"), "c", &Patch::Json(ops), Subresource::Main).unwrap();
    assert_eq!(out["data"], json!({"a": "9", "d": "2"}));
    for bad in [json!([{"op": "test", "path": "/data/a", "value": "0"}]), json!([{"op": "remove", "path": "/data/zz"}])]
    {
        let err = s.patch(k("cm"), Some("default"), "c", &Patch::Json(bad), Subresource::Main).unwrap_err();
        assert_eq!(
            (err.code(), err.message.as_str()),
            (422, "the server rejected our request due to an error in our request")
        );
    }
    let err =
        s.patch(k("cm"), Some("default"), "c", &Patch::Json(json!({"op": "add"})), Subresource::Main).unwrap_err();
    assert_eq!(err.code(), 400);
}

#[test]
fn strategic_merge_patch() {
    let mut s = ApiServer::new(1);
    let mut p = pod("p");
    p["metadata"]["finalizers"] = json!(["example.com/a"]);
    p["spec"]["containers"] = json!([{"name": "a", "image": "nginx:1"}, {"name": "b", "image": "busybox:1"}]);
    s.create(p).unwrap();
    let patch = json!({"metadata": {"finalizers": ["example.com/b"]}, "spec": {"containers": [{"name": "b", "image": "busybox:2"}]}});
    let out = s.patch(k("po"), Some("default"), "p", &Patch::Strategic(patch), Subresource::Main).unwrap();
    assert_eq!(out.finalizers(), vec!["example.com/a", "example.com/b"]);
    assert_eq!(out["spec"]["containers"][0]["image"], "nginx:1");
    assert_eq!(out["spec"]["containers"][1]["image"], "busybox:2");
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]}});
    let out = s.patch(k("po"), Some("default"), "p", &Patch::Strategic(patch), Subresource::Main).unwrap();
    assert_eq!(out.finalizers(), vec!["example.com/b"]);
    let b =
        json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": "b"}, "spec": {"region": "eu"}});
    s.create(b).unwrap();
    let err = s.patch(k("bucket"), Some("default"), "b", &Patch::Strategic(json!({})), Subresource::Main).unwrap_err();
    assert_eq!(err.code(), 415);
}

#[test]
fn patch_field_validation() {
    let mut s = ApiServer::new(1);
    s.create(deployment("web")).unwrap();
    let p = Patch::Strategic(json!({"spec": {"replicass": 3}}));
    let err = s.patch(k("deploy"), Some("default"), "web", &p, Subresource::Main).unwrap_err();
    assert_eq!(err.code(), 422);
    assert_eq!(err.message, " \"\" is invalid: patch: Invalid value: \"map[spec:map[replicass:3]]\": strict decoding error: unknown field \"spec.replicass\"");
    let rv = s.resource_version();
    let (out, warnings) =
        s.patch_with(k("deploy"), Some("default"), "web", &p, Subresource::Main, FieldValidation::Warn).unwrap();
    assert_eq!(warnings, vec!["unknown field \"spec.replicass\""]);
    assert!(out["spec"].get("replicass").is_none());
    assert_eq!(s.resource_version(), rv, "nothing changed");
}

#[test]
fn bind_sets_node_and_condition_once() {
    let mut s = ApiServer::new(1);
    s.create(pod("p")).unwrap();
    s.set_now(Time::START.after(std::time::Duration::from_secs(5)));
    let b = s.bind("default", "p", "node-1").unwrap().to_value();
    assert_eq!(b["spec"]["nodeName"], "node-1");
    assert_eq!(
        b["status"]["conditions"],
        json!([{"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-01-01T00:00:05Z"}])
    );
    let err = s.bind("default", "p", "node-2").unwrap_err();
    assert_eq!(
        err.message,
        "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"node-1\""
    );
}

#[test]
fn update_rules() {
    let mut s = ApiServer::new(1);
    let err = s.update(deployment("ghost")).unwrap_err();
    assert_eq!((err.code(), err.message.as_str()), (404, "deployments.apps \"ghost\" not found"));
    // Bucket /status keeps everything but status.
    let b = s
        .create(json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": "b"}, "spec": {"region": "eu"}}))
        .unwrap();
    assert_eq!(b.generation(), 1);
    assert!(b.get("status").is_none());
    let mut u = b.clone();
    u["spec"]["region"] = json!("us");
    u["metadata"]["labels"] = json!({"x": "y"});
    u["status"] = json!({"observedGeneration": 1, "url": "https://b.example.com"});
    let out = s.update_status(u).unwrap();
    assert_eq!((out["spec"]["region"].clone(), out.labels().is_none()), (json!("eu"), true));
    assert_eq!(out["status"]["url"], "https://b.example.com");
    // A main update of a Bucket ignores status and bumps generation on spec changes.
    let mut u = out.clone();
    u["spec"]["versioning"] = json!(true);
    u["status"] = json!({"url": "changed"});
    let out2 = s.update(u).unwrap();
    assert_eq!((out2.generation(), out2["status"]["url"].clone()), (2, json!("https://b.example.com")));
    // Deployment selectors are immutable.
    let d = s.create(deployment("web")).unwrap();
    let mut u = d.clone();
    u["spec"]["selector"] = json!({"matchLabels": {"app": "web", "x": "y"}});
    u["spec"]["template"]["metadata"]["labels"]["x"] = json!("y");
    let err = s.update(u).unwrap_err();
    assert!(err.message.ends_with("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"x\":\"y\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"), "{}", err.message);
}

#[test]
fn clones_are_independent_and_deterministic() {
    let mut a = ApiServer::new(5);
    a.create(deployment("web")).unwrap();
    let mut b = a.clone();
    let ra = a.create(pod("p")).unwrap();
    let rb = b.create(pod("p")).unwrap();
    assert_eq!(ra, rb, "a clone continues exactly like the original");
    a.delete(k("po"), Some("default"), "p", &DeleteOptions::default()).unwrap();
    assert!(b.get(k("po"), Some("default"), "p").is_ok());
    assert!(a.get(k("po"), Some("default"), "p").is_err());
}

#[test]
fn lists_filter_by_namespace_and_selector() {
    let mut s = ApiServer::new(1);
    s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})).unwrap();
    for (ns, name, app) in [("default", "b", "web"), ("default", "a", "db"), ("other", "c", "web")] {
        s.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns, "labels": {"app": app}}}))
            .unwrap();
    }
    let names = |l: Vec<Value>| l.iter().map(|o| o.key()).collect::<Vec<_>>();
    assert_eq!(
        names(s.list(k("cm"), Some("default"), &Selector::everything()).unwrap().items),
        ["default/a", "default/b"]
    );
    assert_eq!(
        names(s.list(k("cm"), None, &Selector::parse("app=web").unwrap()).unwrap().items),
        ["default/b", "other/c"]
    );
    assert_eq!(s.count(k("cm")), 3);
}

#[test]
fn pod_spec_is_immutable_except_images_and_friends() {
    let mut s = ApiServer::new(1);
    let p = s.create(pod("p")).unwrap();
    let mut u = p.clone();
    u["spec"]["containers"][0]["image"] = json!("nginx:2");
    u["spec"]["activeDeadlineSeconds"] = json!(100);
    let p2 = s.update(u).unwrap();
    assert_eq!(p2["spec"]["containers"][0]["image"], "nginx:2");
    assert_eq!(p2.generation(), 2);
    let mut u = p2.clone();
    u["spec"]["containers"][0]["name"] = json!("renamed");
    let err = s.update(u).unwrap_err();
    assert_eq!(err.code(), 422);
    assert!(err.message.starts_with("Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"), "{}", err.message);
    let mut gen = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-", "namespace": "gone"}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
    assert_eq!(s.create(gen.clone()).unwrap_err().message, "namespaces \"gone\" not found");
    gen["metadata"]["namespace"] = json!("default");
    assert!(s.create(gen).is_ok());
}

#[test]
fn namespaces_carry_their_name_label_and_bookmarks_carry_only_a_version() {
    let mut s = ApiServer::new(1);
    let ns = s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}})).unwrap();
    assert_eq!(ns.label("kubernetes.io/metadata.name"), Some("demo"));
    let mut u = ns.clone();
    u["metadata"]["labels"] = json!({"team": "a"});
    let u = s.update(u).unwrap();
    assert_eq!(u.labels().unwrap().len(), 2);
    let w = s.watch(k("deploy"), None, Selector::everything(), WatchFrom::Now);
    s.send_bookmark(w);
    let ev = s.next_event(w).unwrap();
    assert_eq!(ev.event_type, EventType::Bookmark);
    assert_eq!(
        ev.object,
        json!({"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"resourceVersion": s.resource_version().to_string()}})
    );
    let mut d = deployment("web");
    d["spec"]["template"]["spec"]["restartPolicy"] = json!("Never");
    assert!(s
        .create(d)
        .unwrap_err()
        .message
        .ends_with("spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""));
}

#[test]
fn maps_leave_the_server_with_sorted_keys() {
    let mut s = ApiServer::new(1);
    let cm = s
        .create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"z": "1", "a": "2"}}, "data": {"y": "1", "b": "2"}}))
        .unwrap();
    assert_eq!(cm["metadata"]["labels"].as_object().unwrap().keys().collect::<Vec<_>>(), ["a", "z"]);
    assert_eq!(cm["data"].as_object().unwrap().keys().collect::<Vec<_>>(), ["b", "y"]);
}

#[test]
fn pods_get_the_service_account_token_volume() {
    let mut s = ApiServer::new(1);
    let p = s.create(pod("p")).unwrap();
    let vol = &p["spec"]["volumes"][0];
    let name = vol["name"].as_str().unwrap();
    assert!(name.starts_with("kube-api-access-") && name.len() == 21, "{name}");
    assert_eq!(vol["projected"]["defaultMode"], 420);
    assert_eq!(
        p["spec"]["containers"][0]["volumeMounts"],
        json!([{"name": name, "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}])
    );
    let mut q = pod("q");
    q["spec"]["automountServiceAccountToken"] = json!(false);
    assert!(s.create(q).unwrap()["spec"].get("volumes").is_none());
}

#[test]
fn namespace_deletion_phases() {
    let mut s = ApiServer::new(1);
    let ns = s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}})).unwrap();
    let bad = DeleteOptions { preconditions_uid: Some("x".into()), ..Default::default() };
    assert_eq!(
        s.delete(k("ns"), None, "demo", &bad).unwrap_err().message,
        format!("Operation cannot be fulfilled on namespaces \"demo\": Precondition failed: UID in precondition: x, UID in object meta: {}", ns.uid())
    );
    let orphan = DeleteOptions { propagation_policy: Some(Propagation::Orphan), ..Default::default() };
    let Deleted::Pending(t) = s.delete(k("ns"), None, "demo", &orphan).unwrap() else { panic!() };
    assert_eq!(t.finalizers(), vec!["orphan"]);
    assert!(t["metadata"].get("deletionGracePeriodSeconds").is_none());
    // /finalize empties spec.finalizers, but the orphan finalizer still holds the namespace.
    let mut f = t.clone();
    f["spec"]["finalizers"] = json!([]);
    let f = s.finalize_namespace(f).unwrap();
    assert!(s.get(k("ns"), None, "demo").is_ok());
    let mut u = f.clone();
    u["metadata"]["finalizers"] = json!([]);
    s.update(u).unwrap();
    assert_eq!(s.get(k("ns"), None, "demo").unwrap_err().code(), 404);
}

#[test]
fn rolling_update_parameters_and_number_literals() {
    let mut s = ApiServer::new(1);
    let mut d = deployment("web");
    d["spec"]["strategy"] = json!({"rollingUpdate": {"maxSurge": "abc", "maxUnavailable": "150%"}});
    let err = s.create(d).unwrap_err();
    assert_eq!(
        err.message,
        "Deployment.apps \"web\" is invalid: [spec.strategy.rollingUpdate.maxSurge: Invalid value: \"abc\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%'), spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"150%\": must not be greater than 100%]"
    );
    let mut d = deployment("web");
    d["spec"]["replicas"] = json!(1.5);
    assert!(s.create(d).unwrap_err().message.ends_with(
        "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"
    ));
    let mut d = deployment("web");
    d["spec"]["replicas"] = json!(10_000_000_000_i64);
    assert!(s.create(d).unwrap_err().message.ends_with(
        "cannot unmarshal number 10000000000 into Go struct field DeploymentSpec.spec.replicas of type int32"
    ));
}

#[test]
fn create_and_update_under_warn_and_ignore() {
    let mut s = ApiServer::new(1);
    let mut d = deployment("web");
    d["spec"]["replicass"] = json!(3);
    let (out, warnings) = s.create_validated(d.clone(), FieldValidation::Warn).unwrap();
    assert_eq!(warnings, vec!["unknown field \"spec.replicass\""]);
    assert!(out["spec"].get("replicass").is_none());
    let mut u = out.clone();
    u["spec"]["replicass"] = json!(4);
    let (_, warnings) = s.update_validated(u, FieldValidation::Ignore).unwrap();
    assert!(warnings.is_empty());
    d["metadata"]["name"] = json!("w2");
    d["spec"]["replicas"] = json!("x");
    assert_eq!(s.create_validated(d, FieldValidation::Ignore).unwrap_err().code(), 400);
}

#[test]
fn patch_cannot_change_identity() {
    let mut s = ApiServer::new(1);
    let d = s.create(deployment("web")).unwrap();
    let p = Patch::Merge(json!({"metadata": {"uid": "other"}}));
    let err = s.patch(k("deploy"), Some("default"), "web", &p, Subresource::Main).unwrap_err();
    assert_eq!(err.code(), 422);
    assert_eq!(
        err.message,
        "Deployment.apps \"web\" is invalid: metadata.uid: Invalid value: \"other\": field is immutable"
    );
    let p = Patch::Merge(json!({"metadata": {"generation": 100, "creationTimestamp": "2020-01-01T00:00:00Z"}}));
    let out = s.patch(k("deploy"), Some("default"), "web", &p, Subresource::Main).unwrap();
    assert_eq!(out, d, "system fields are reset, so nothing changed");
    // Terminating namespace, object with neither name nor generateName: the admission calls it Unknown.
    s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "t"}})).unwrap();
    s.delete(k("ns"), None, "t", &DeleteOptions::default()).unwrap();
    let err = s.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "t"}})).unwrap_err();
    assert_eq!(err.message, "configmaps \"Unknown\" is forbidden: unable to create new content in namespace t because it is being terminated");
}

#[test]
fn strategic_merge_patch_set_element_order() {
    let mut s = ApiServer::new(1);
    let mut d = deployment("web");
    d["spec"]["template"]["spec"]["containers"] = json!([{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}]);
    s.create(d).unwrap();
    let patch = json!({"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": "b"}, {"name": "a"}],
        "containers": [{"name": "b", "image": "y:2"}]}}}});
    let out = s.patch(k("deploy"), Some("default"), "web", &Patch::Strategic(patch), Subresource::Main).unwrap();
    let cs = out["spec"]["template"]["spec"]["containers"].as_array().unwrap();
    let got: Vec<(&str, &str)> =
        cs.iter().map(|c| (c["name"].as_str().unwrap(), c["image"].as_str().unwrap())).collect();
    assert_eq!(got, [("b", "y:2"), ("a", "x:1")]);
    // The same reordering on a pod is a forbidden spec change.
    let mut p = pod("p");
    p["spec"]["containers"] = json!([{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}]);
    s.create(p).unwrap();
    let patch = json!({"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]}});
    let err = s.patch(k("po"), Some("default"), "p", &Patch::Strategic(patch), Subresource::Main).unwrap_err();
    assert!(err
        .message
        .starts_with("Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields other than"));
}

#[test]
fn field_selectors_on_lists_and_watches() {
    use reconcile_lab::engine::apiserver::FieldSelector;
    let mut s = ApiServer::new(1);
    s.create(pod("a")).unwrap();
    s.create(pod("b")).unwrap();
    let running = FieldSelector::parse("status.phase=Running").unwrap();
    let w = s.watch_filtered(k("po"), None, Selector::everything(), running.clone(), WatchFrom::Now).unwrap();
    assert!(s.pending_events(w).is_empty());
    let mut a = s.get(k("po"), Some("default"), "a").unwrap();
    a["status"]["phase"] = json!("Running");
    s.update_status(a).unwrap();
    let ev = s.next_event(w).unwrap();
    assert_eq!((ev.event_type, ev.object.name()), (EventType::Added, "a"));
    let list = s.list_filtered(k("po"), Some("default"), &Selector::everything(), &running).unwrap();
    assert_eq!(list.items.len(), 1);
    let bad = FieldSelector::parse("spec.containers=x").unwrap();
    assert_eq!(
        s.list_filtered(k("po"), None, &Selector::everything(), &bad).unwrap_err().message,
        "field label not supported: spec.containers"
    );
}

#[test]
fn events_look_like_core_v1_events() {
    let mut s = ApiServer::new(1);
    let e = s
        .create(json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.1"},
            "involvedObject": {"kind": "Deployment", "name": "web"}, "reason": "ScalingReplicaSet",
            "message": "Scaled up replica set web-abc from 0 to 3", "source": {"component": "deployment-controller"},
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z", "count": 1, "type": "Normal"}))
        .unwrap();
    assert_eq!(e["eventTime"], Value::Null);
    assert!(e.as_object().unwrap().contains_key("eventTime"));
    assert_eq!((e["reportingComponent"].clone(), e["reportingInstance"].clone()), (json!(""), json!("")));
    let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "apiVersion",
            "kind",
            "metadata",
            "involvedObject",
            "reason",
            "message",
            "source",
            "firstTimestamp",
            "lastTimestamp",
            "count",
            "type",
            "eventTime",
            "reportingComponent",
            "reportingInstance"
        ]
    );
}

/// `updateForGracefulDeletionAndFinalizers` writes the deletion fields before deleting a pod
/// whose grace period is 0, so watchers see MODIFIED (Terminating) then DELETED.
#[test]
fn zero_grace_pod_deletion_writes_then_deletes() {
    let mut s = ApiServer::new(1);
    let p = s.create(pod("p")).unwrap();
    let w = s.watch(k("po"), None, Selector::everything(), WatchFrom::Exact(p.resource_version()));
    let Deleted::Gone(last) = s.delete(k("po"), Some("default"), "p", &DeleteOptions::default()).unwrap() else {
        panic!()
    };
    let evs: Vec<EventType> = std::iter::from_fn(|| s.next_event(w)).map(|e| e.event_type).collect();
    assert_eq!(evs, [EventType::Modified, EventType::Deleted]);
    assert_eq!(last["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(last.generation(), 2);
    assert_eq!(last.resource_version(), p.resource_version() + 2);
    // The kubelet's final delete of a terminating pod does the same.
    s.create(pod("q")).unwrap();
    s.bind("default", "q", "node-1").unwrap();
    s.delete(k("po"), Some("default"), "q", &DeleteOptions::default()).unwrap();
    let w = s.watch(k("po"), None, Selector::everything(), WatchFrom::Exact(s.resource_version()));
    let zero = DeleteOptions { grace_period_seconds: Some(0), ..Default::default() };
    assert!(matches!(s.delete(k("po"), Some("default"), "q", &zero).unwrap(), Deleted::Gone(_)));
    let evs: Vec<(EventType, Value)> = std::iter::from_fn(|| s.next_event(w))
        .map(|e| (e.event_type, e.object["metadata"]["deletionGracePeriodSeconds"].clone()))
        .collect();
    assert_eq!(evs, [(EventType::Modified, json!(0)), (EventType::Deleted, json!(0))]);
}

#[test]
fn creating_over_an_object_being_deleted() {
    let mut s = ApiServer::new(1);
    let mut d = deployment("web");
    d["metadata"]["finalizers"] = json!(["example.com/x"]);
    s.create(d.clone()).unwrap();
    s.delete(k("deploy"), Some("default"), "web", &DeleteOptions::default()).unwrap();
    let err = s.create(d).unwrap_err();
    assert_eq!(
        (err.code(), err.message.as_str()),
        (409, "object is being deleted: deployments.apps \"web\" already exists")
    );
}

#[test]
fn extreme_grace_periods_do_not_panic() {
    let mut s = ApiServer::new(1);
    for (i, g) in [i64::MAX, i64::MIN, -1, 0, 1].into_iter().enumerate() {
        let name = format!("p{i}");
        let mut p = pod(&name);
        p["spec"]["terminationGracePeriodSeconds"] = json!(g);
        if s.create(p).is_err() {
            continue;
        }
        s.bind("default", &name, "n").unwrap();
        let _ = s.delete(k("po"), Some("default"), &name, &DeleteOptions::default());
        for opt in [i64::MAX, i64::MIN, 0] {
            let o = DeleteOptions { grace_period_seconds: Some(opt), ..Default::default() };
            let _ = s.delete(k("po"), Some("default"), &name, &o);
        }
    }
    assert!(s.list(k("po"), None, &Selector::everything()).unwrap().items.is_empty());
}

#[test]
fn required_status_fields_appear_as_go_marshals_them() {
    let mut s = ApiServer::new(1);
    let rs = s
        .create(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r"},
            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
        .unwrap();
    assert_eq!(rs["status"], json!({"replicas": 0}));
    let n = s.create(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).unwrap();
    assert_eq!(n["status"]["daemonEndpoints"], json!({"kubeletEndpoint": {"Port": 0}}));
    assert_eq!(n["status"]["nodeInfo"]["kubeletVersion"], "");
}

#[test]
fn watch_list_ends_its_initial_events_with_a_bookmark() {
    let mut s = ApiServer::new(1);
    s.create(deployment("a")).unwrap();
    let w = s.watch_list(k("deploy"), None, Selector::everything());
    let evs: Vec<WatchEvent> = std::iter::from_fn(|| s.next_event(w)).collect();
    assert_eq!(evs.len(), 2);
    assert_eq!(evs[0].event_type, EventType::Added);
    assert_eq!(evs[1].event_type, EventType::Bookmark);
    assert_eq!(evs[1].object["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
    assert_eq!(evs[1].object.resource_version(), s.resource_version());
}

#[test]
fn retain_keys_drops_rolling_update_when_switching_to_recreate() {
    let mut s = ApiServer::new(1);
    s.create(deployment("web")).unwrap();
    let patch = json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}});
    let out = s.patch(k("deploy"), Some("default"), "web", &Patch::Strategic(patch), Subresource::Main).unwrap();
    assert_eq!(out["spec"]["strategy"], json!({"type": "Recreate"}));
    // Without the directive the old rollingUpdate stays, and validation refuses the mix.
    let mut s = ApiServer::new(1);
    s.create(deployment("web")).unwrap();
    let patch = json!({"spec": {"strategy": {"type": "Recreate"}}});
    let err = s.patch(k("deploy"), Some("default"), "web", &Patch::Strategic(patch), Subresource::Main).unwrap_err();
    assert!(
        err.message.ends_with(
            "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"
        ),
        "{}",
        err.message
    );
}

#[test]
fn owner_reference_rules() {
    let mut s = ApiServer::new(1);
    let cm = |refs: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "ownerReferences": refs}});
    let err = s.create(cm(json!([{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"}]))).unwrap_err();
    assert_eq!(err.message, "ConfigMap \"c\" is invalid: metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:\"v1\", Kind:\"Event\", Name:\"e\", UID:\"u\", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner");
    let err = s.create(cm(json!([{"apiVersion": "", "kind": "ReplicaSet", "name": "", "uid": "u"}]))).unwrap_err();
    assert_eq!(err.message, "ConfigMap \"c\" is invalid: [metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not be empty, metadata.ownerReferences.name: Invalid value: \"\": must not be empty]");
    let three = json!([
        {"apiVersion": "v1", "kind": "A", "name": "a", "uid": "1", "controller": true},
        {"apiVersion": "v1", "kind": "B", "name": "b", "uid": "2", "controller": true},
        {"apiVersion": "v1", "kind": "C", "name": "c", "uid": "3", "controller": true}]);
    let err = s.create(cm(three)).unwrap_err();
    assert_eq!(err.causes.len(), 2);
    assert!(err.causes[1].message.ends_with("Found \"true\" in references for A/a and C/c"));
}

#[test]
fn finalizer_name_rules_differ_for_custom_resources() {
    let mut s = ApiServer::new(1);
    let b =
        json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": "b", "finalizers": ["plain"]}});
    assert!(s.create(b).is_ok(), "custom resources skip the standard-name rule");
    let err = s
        .create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["a b"]}}))
        .unwrap_err();
    assert_eq!(err.causes.len(), 2);
    assert_eq!(err.causes[0].field, "metadata.finalizers");
    assert_eq!(err.causes[1].field, "metadata.finalizers[0]");
}

#[test]
fn pod_status_updates_keep_spec_owners_and_qos() {
    let mut s = ApiServer::new(1);
    let mut p = pod("p");
    p["metadata"]["ownerReferences"] =
        json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]);
    let p = s.create(p).unwrap();
    let mut u = p.clone();
    u["metadata"]["ownerReferences"] = json!([]);
    u["spec"]["containers"][0]["image"] = json!("other");
    u["status"] = json!({"phase": "Running"});
    let out = s.update_status(u).unwrap();
    assert_eq!(out["status"], json!({"phase": "Running", "qosClass": "BestEffort"}));
    assert_eq!(out["spec"], p["spec"]);
    assert_eq!(out.owner_references().len(), 1);
    assert_eq!(out.generation(), p.generation());
}

#[test]
fn volumes_env_and_security_contexts_are_checked_and_defaulted() {
    let mut s = ApiServer::new(1);
    let mut p = pod("p");
    p["spec"]["volumes"] = json!([{"name": "cfg", "configMap": {"name": "app"}}, {"name": "tmp", "emptyDir": {}}]);
    p["spec"]["containers"][0]["env"] =
        json!([{"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}]);
    p["spec"]["containers"][0]["securityContext"] = json!({"runAsNonRoot": true, "capabilities": {"drop": ["ALL"]}});
    let out = s.create(p.clone()).unwrap();
    assert_eq!(out["spec"]["volumes"][0], json!({"name": "cfg", "configMap": {"name": "app", "defaultMode": 420}}));
    assert_eq!(out["spec"]["containers"][0]["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
    p["metadata"]["name"] = json!("q");
    p["spec"]["containers"][0]["securityContext"] = json!({"runAsNonRot": true});
    assert_eq!(
        s.create(p).unwrap_err().message,
        "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.containers[0].securityContext.runAsNonRot\""
    );
}
