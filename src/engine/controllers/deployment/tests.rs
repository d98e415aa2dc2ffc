//! Unit tests of the Deployment controller (its parent module).

use super::super::fake::FakeApi;
use super::*;

fn deploy(replicas: i64, image: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "resourceVersion": "1", "generation": 1,
                     "creationTimestamp": Time::START.rfc3339()},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": image}]}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}})
}

#[test]
fn fenceposts_match_the_reference_table() {
    for (r, s, u) in [(1, 1, 0), (3, 1, 0), (4, 1, 1), (5, 2, 1), (10, 3, 2)] {
        assert_eq!(resolve_fenceposts(&deploy(r, "nginx")), (s, u), "replicas {r}");
    }
    let mut d = deploy(3, "nginx");
    d["spec"]["strategy"]["rollingUpdate"] = json!({"maxSurge": 0, "maxUnavailable": 0});
    assert_eq!(resolve_fenceposts(&d), (0, 1));
}

/// A fresh Deployment's first sync (`sync.go`, `getNewReplicaSet`): one ReplicaSet `web-<hash>`
/// with 3 replicas and the revision annotations, the `ScalingReplicaSet` event, then the
/// Deployment's revision and conditions via /status.
#[test]
fn tv32_first_sync_creates_the_replica_set() {
    let d = deploy(3, "nginx");
    let mut api = FakeApi::default();
    api.put(d.clone());
    let mut cache = Caches::default();
    cache.insert(d.clone());
    let mut seq = 0;
    let mut ctx = Ctx { now: Time::START, cache: &cache, api: &mut api, event_seq: &mut seq };
    let out = DeploymentController::new().reconcile("default/web", &mut ctx);
    assert_eq!(out, Outcome::Done);
    let rs = api.objects.values().find(|o| o.kind() == "ReplicaSet").unwrap().clone();
    let hash = rs.label(POD_TEMPLATE_HASH).unwrap().to_string();
    assert_eq!(rs.name(), format!("web-{hash}"));
    assert!(hash.bytes().all(|c| b"456789bcdf".contains(&c)));
    assert_eq!(rs["spec"]["replicas"], 3);
    assert_eq!(rs["spec"]["selector"]["matchLabels"], json!({"app": "web", "pod-template-hash": hash}));
    assert_eq!(
        rs["metadata"]["annotations"],
        json!({"deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/max-replicas": "4",
               "deployment.kubernetes.io/revision": "1"})
    );
    assert_eq!(rs.controller_ref().map(|r| r.uid), Some("d-uid".into()));
    assert_eq!(api.events(), vec![format!("ScalingReplicaSet Scaled up replica set web-{hash} from 0 to 3")]);
    assert_eq!(
        api.calls,
        vec![
            format!("create ReplicaSet web-{hash}"),
            "update_status Deployment web".into(),
            "update_status Deployment web".into()
        ]
    );
    let d = api.objects.values().find(|o| o.kind() == "Deployment").unwrap();
    assert_eq!(d.annotation(REVISION), Some("1"));
    let conds: Vec<(&str, &str, &str)> = d["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["type"].as_str().unwrap(), c["status"].as_str().unwrap(), c["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        conds,
        vec![("Progressing", "True", "NewReplicaSetCreated"), ("Available", "False", "MinimumReplicasUnavailable")]
    );
    assert_eq!(d["status"]["observedGeneration"], 1);
    assert_eq!(
        get_condition(&d["status"], "Progressing").unwrap()["message"],
        format!("Created new replica set \"web-{hash}\"")
    );
}

/// getReplicaFailures: with none on the new ReplicaSet, an old ReplicaSet's ReplicaFailure
/// becomes the Deployment's (progress.go).
#[test]
fn replica_failure_comes_from_any_replica_set() {
    let d = deploy(2, "nginx:2");
    let mut api = FakeApi::default();
    api.put(d.clone());
    let mut cache = Caches::default();
    cache.insert(d.clone());
    let mut seq = 0;
    let mut ctx = Ctx { now: Time::START, cache: &cache, api: &mut api, event_seq: &mut seq };
    DeploymentController::new().reconcile("default/web", &mut ctx);
    let new_rs = api.objects.values().find(|o| o.kind() == "ReplicaSet").unwrap().clone();
    let mut old_rs = new_rs.clone();
    old_rs["metadata"]["name"] = json!("web-old");
    old_rs["metadata"]["uid"] = json!("old-uid");
    old_rs["metadata"]["annotations"][REVISION] = json!("0");
    old_rs["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1");
    old_rs["spec"]["replicas"] = json!(1);
    old_rs["status"] = json!({"replicas": 0, "conditions": [{"type": "ReplicaFailure", "status": "True",
        "lastTransitionTime": Time::START.rfc3339(), "reason": "FailedCreate", "message": "quota"}]});
    let d = api.objects.values().find(|o| o.kind() == "Deployment").unwrap().clone();
    let mut cache = Caches::default();
    for o in [d, new_rs, old_rs] {
        cache.insert(o);
    }
    let later = Time::START.after(Duration::from_secs(5));
    let mut ctx = Ctx { now: later, cache: &cache, api: &mut api, event_seq: &mut seq };
    DeploymentController::new().reconcile("default/web", &mut ctx);
    let d = api.objects.values().find(|o| o.kind() == "Deployment").unwrap();
    let f = get_condition(&d["status"], "ReplicaFailure").expect("ReplicaFailure");
    assert_eq!((f["reason"].as_str(), f["message"].as_str()), (Some("FailedCreate"), Some("quota")));
    assert_eq!(f["lastUpdateTime"], Time::START.rfc3339());
}

#[test]
fn new_rs_size_respects_surge() {
    let d = deploy(3, "nginx:2");
    let old = json!({"spec": {"replicas": 3}});
    let new = json!({"spec": {"replicas": 0}});
    assert_eq!(new_rs_new_replicas(&d, &[old.clone(), new.clone()], &new), 1);
    assert_eq!(new_rs_new_replicas(&d, std::slice::from_ref(&new), &new), 3);
}

#[test]
fn conditions_keep_transition_time_and_move_last() {
    let t1 = Time::START;
    let t2 = Time::START.after(Duration::from_secs(5));
    let mut st = json!({});
    set_condition(&mut st, condition("Progressing", "True", "NewReplicaSetCreated", "a", t1));
    set_condition(&mut st, condition("Available", "False", "MinimumReplicasUnavailable", "b", t1));
    set_condition(&mut st, condition("Progressing", "True", "NewReplicaSetAvailable", "c", t2));
    let cs = st["conditions"].as_array().unwrap();
    assert_eq!(cs[1]["reason"], "NewReplicaSetAvailable");
    assert_eq!(cs[1]["lastTransitionTime"], t1.rfc3339());
    assert_eq!(cs[1]["lastUpdateTime"], t2.rfc3339());
    // Same status and reason: nothing changes, not even the message.
    set_condition(&mut st, condition("Progressing", "True", "NewReplicaSetAvailable", "d", t2));
    assert_eq!(st["conditions"][1]["message"], "c");
}

/// ClaimReplicaSets through ClaimObject (controller_ref_manager.go): a Deployment being deleted
/// neither adopts a matching orphan nor releases a ReplicaSet it owns that no longer matches; a
/// live one does both (the contrast shows the check is what stops it).
#[test]
fn a_deployment_being_deleted_neither_adopts_nor_releases() {
    let orphan = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-orphan", "namespace": "default", "uid": "orphan-uid", "labels": {"app": "web"}},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}}}});
    let strayed = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-strayed", "namespace": "default", "uid": "strayed-uid", "labels": {"app": "other"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d-uid", "controller": true}]},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "other"}}}});
    let patches = |d: Value| {
        let mut api = FakeApi::default();
        let mut cache = Caches::default();
        for o in [d, orphan.clone(), strayed.clone()] {
            api.put(o.clone());
            cache.insert(o);
        }
        let mut seq = 0;
        let mut ctx = Ctx { now: Time::START, cache: &cache, api: &mut api, event_seq: &mut seq };
        DeploymentController::new().reconcile("default/web", &mut ctx);
        api.calls.into_iter().filter(|c| c.starts_with("patch ReplicaSet")).collect::<Vec<_>>()
    };
    let mut deleting = deploy(2, "nginx");
    deleting["metadata"]["deletionTimestamp"] = json!(Time::START.rfc3339());
    deleting["metadata"]["finalizers"] = json!(["foregroundDeletion"]);
    assert_eq!(patches(deleting), Vec::<String>::new());
    let mut live = patches(deploy(2, "nginx"));
    crate::sort::sort(&mut live);
    assert_eq!(live, vec!["patch ReplicaSet web-orphan".to_string(), "patch ReplicaSet web-strayed".into()]);
}
