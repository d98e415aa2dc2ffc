//! The Deployment controller (k/k `pkg/controller/deployment/`
//! `deployment_controller.go`, `sync.go`, `rolling.go`, `recreate.go`, `progress.go`,
//! `util/deployment_util.go`).
//!
//! `syncDeployment`: claim ReplicaSets (adopt matching orphans, release non-matching); a
//! Deployment being deleted only gets its status synced (`syncDeployment` in
//! kubernetes/pkg/controller/deployment/deployment_controller.go); a change of `spec.replicas`
//! alone is a *scaling event* (resize the ReplicaSets, proportionally during a rollout);
//! otherwise roll out with the strategy: RollingUpdate (new ReplicaSet up to `replicas +
//! maxSurge` pods, old ones down while at least `replicas - maxUnavailable` are available) or
//! Recreate (old to zero, wait for their pods to be gone, then the new one up). ReplicaSets are
//! named `<deployment>-<pod-template-hash>` (`getNewReplicaSet`,
//! kubernetes/pkg/controller/deployment/sync.go) and carry revision annotations.

use std::cmp::Ordering;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::hash::compute_hash;
use super::util::{int_at, is_controlled_by, scaled_value, selector_is_empty, selector_matches, spec_replicas, str_at};
use super::{Caches, Controller, Ctx, DeleteOpts, Enqueue, Outcome, ResourceEvent};
use crate::engine::frozen::{Frozen, Json};
use crate::engine::kinds::Kind;
use crate::engine::object::{ObjectExt, OwnerReference};
use crate::engine::time::Time;

const COMPONENT: &str = "deployment-controller";
/// `maxRetries`: how many times a Deployment's sync is retried before its key is dropped out of
/// the queue (pkg/controller/deployment/deployment_controller.go).
pub const MAX_RETRIES: u32 = 15;
/// `apps.DefaultDeploymentUniqueLabelKey`.
pub const POD_TEMPLATE_HASH: &str = "pod-template-hash";
/// `deploymentutil.RevisionAnnotation`.
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// `deploymentutil.RevisionHistoryAnnotation`.
pub const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
/// `deploymentutil.DesiredReplicasAnnotation`.
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
/// `deploymentutil.MaxReplicasAnnotation`.
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
const ROLLBACK_TO: &str = "deprecated.deployment.rollback.to";

fn kind(k: &str) -> &'static Kind {
    Kind::by_kind(k).expect("built-in kind")
}

/// The Deployment controller. It keeps no state between reconciles.
#[derive(Clone, Debug, Default)]
pub struct DeploymentController;

type R<T> = Result<T, String>;

/// `spec.paused`.
fn is_paused(d: &Value) -> bool {
    d.pointer("/spec/paused").and_then(Value::as_bool).unwrap_or(false)
}

fn is_rolling(d: &impl Json) -> bool {
    str_at(d, "/spec/strategy/type") != "Recreate"
}

/// `ResolveFenceposts` (kubernetes/pkg/controller/deployment/util/deployment_util.go): `(maxSurge,
/// maxUnavailable)`.
pub fn resolve_fenceposts(d: &Value) -> (i64, i64) {
    let desired = spec_replicas(d);
    let ru = d.pointer("/spec/strategy/rollingUpdate");
    let default = json!("25%");
    let surge = scaled_value(Some(ru.and_then(|r| r.get("maxSurge")).unwrap_or(&default)), desired, true);
    let mut unavailable =
        scaled_value(Some(ru.and_then(|r| r.get("maxUnavailable")).unwrap_or(&default)), desired, false);
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    (surge, unavailable)
}

/// `deploymentutil.MaxSurge`.
pub fn max_surge(d: &Value) -> i64 {
    if is_rolling(d) {
        resolve_fenceposts(d).0
    } else {
        0
    }
}

/// `deploymentutil.MaxUnavailable`: capped at replicas, 0 for zero replicas.
pub fn max_unavailable(d: &Value) -> i64 {
    let replicas = spec_replicas(d);
    if !is_rolling(d) || replicas == 0 {
        return 0;
    }
    resolve_fenceposts(d).1.min(replicas)
}

fn revision(rs: &Value) -> i64 {
    rs.annotation(REVISION).and_then(|r| r.parse().ok()).unwrap_or(0)
}

fn rs_replicas(rs: &Value) -> i64 {
    int_at(rs, "/spec/replicas")
}

fn status_int(o: &Value, f: &str) -> i64 {
    int_at(o, &format!("/status/{f}"))
}

/// `ReplicaSetsByCreationTimestamp`: oldest first, then by name.
fn by_creation(a: &Value, b: &Value) -> Ordering {
    str_at(a, "/metadata/creationTimestamp")
        .cmp(str_at(b, "/metadata/creationTimestamp"))
        .then_with(|| a.name().cmp(b.name()))
}

/// `EqualIgnoreHash`: the templates are equal once the `pod-template-hash` label is removed.
pub fn equal_ignore_hash(a: &Value, b: &Value) -> bool {
    let strip = |t: &Value| {
        let mut t = t.clone();
        if let Some(l) = t.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
            l.remove(POD_TEMPLATE_HASH);
            if l.is_empty() {
                if let Some(m) = t.pointer_mut("/metadata").and_then(Value::as_object_mut) {
                    m.remove("labels");
                }
            }
        }
        t
    };
    strip(a) == strip(b)
}

/// A map with its keys sorted, as Go marshals `map[string]string`.
fn sorted(m: Map<String, Value>) -> Value {
    let mut v: Vec<(String, Value)> = m.into_iter().collect();
    crate::sort::sort_by(&mut v, |a, b| a.0.cmp(&b.0));
    Value::Object(v.into_iter().collect())
}

fn set_string_entry(obj: &mut Value, field: &str, key: &str, value: &str) {
    let meta = obj.meta_mut();
    let mut m = meta.get(field).and_then(Value::as_object).cloned().unwrap_or_default();
    m.insert(key.to_string(), json!(value));
    meta.insert(field.to_string(), sorted(m));
}

/// `SetReplicasAnnotations`; true if something changed.
fn set_replicas_annotations(rs: &mut Value, desired: i64, max: i64) -> bool {
    let mut changed = false;
    for (k, v) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, max)] {
        if rs.annotation(k) != Some(v.to_string().as_str()) {
            set_string_entry(rs, "annotations", k, &v.to_string());
            changed = true;
        }
    }
    changed
}

fn replicas_annotations_need_update(rs: &Value, desired: i64, max: i64) -> bool {
    rs.annotation(DESIRED_REPLICAS) != Some(desired.to_string().as_str())
        || rs.annotation(MAX_REPLICAS) != Some(max.to_string().as_str())
}

/// `copyDeploymentAnnotationsToReplicaSet`: every Deployment annotation except the ones the
/// controller owns; true if something changed.
fn copy_annotations(d: &Value, rs: &mut Value) -> bool {
    let mut changed = false;
    let anns = d.meta().and_then(|m| m.get("annotations")).and_then(Value::as_object).cloned().unwrap_or_default();
    for (k, v) in anns {
        if [LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO].contains(&k.as_str())
        {
            continue;
        }
        let Some(v) = v.as_str() else { continue };
        if rs.annotation(&k) != Some(v) {
            set_string_entry(rs, "annotations", &k, v);
            changed = true;
        }
    }
    changed
}

/// `SetNewReplicaSetAnnotations`.
fn set_new_rs_annotations(d: &Value, rs: &mut Value, new_revision: i64, exists: bool) -> bool {
    let mut changed = copy_annotations(d, rs);
    let old = rs.annotation(REVISION).map(str::to_string);
    let old_int = match &old {
        Some(o) => match o.parse::<i64>() {
            Ok(v) => v,
            Err(_) => return false,
        },
        None => 0,
    };
    if old_int < new_revision {
        set_string_entry(rs, "annotations", REVISION, &new_revision.to_string());
        changed = true;
        if let Some(o) = old {
            let history = match rs.annotation(REVISION_HISTORY) {
                Some(h) if !h.is_empty() => format!("{h},{o}"),
                _ => o,
            };
            set_string_entry(rs, "annotations", REVISION_HISTORY, &history);
        }
    }
    if !exists && set_replicas_annotations(rs, spec_replicas(d), spec_replicas(d) + max_surge(d)) {
        changed = true;
    }
    changed
}

/// A `DeploymentCondition` in Go field order.
fn condition(ctype: &str, status: &str, reason: &str, message: &str, now: Time) -> Value {
    json!({"type": ctype, "status": status, "lastUpdateTime": now.rfc3339(),
           "lastTransitionTime": now.rfc3339(), "reason": reason, "message": message})
}

fn get_condition<'a>(status: &'a Value, ctype: &str) -> Option<&'a Value> {
    status.get("conditions").and_then(Value::as_array).and_then(|cs| cs.iter().find(|c| c["type"] == ctype))
}

/// `SetDeploymentCondition`: no change if status and reason are the same; keeps
/// `lastTransitionTime` when only the reason changes; the new condition goes last.
fn set_condition(status: &mut Value, mut cond: Value) {
    if let Some(cur) = get_condition(status, cond["type"].as_str().unwrap_or("")) {
        if cur["status"] == cond["status"] && cur["reason"] == cond["reason"] {
            return;
        }
        if cur["status"] == cond["status"] {
            cond["lastTransitionTime"] = cur["lastTransitionTime"].clone();
        }
    }
    remove_condition(status, cond["type"].as_str().unwrap_or(""));
    if !status.is_object() {
        *status = json!({});
    }
    match status.get_mut("conditions").and_then(Value::as_array_mut) {
        Some(cs) => cs.push(cond),
        None => status["conditions"] = json!([cond]),
    }
}

fn remove_condition(status: &mut Value, ctype: &str) {
    if let Some(cs) = status.get_mut("conditions").and_then(Value::as_array_mut) {
        cs.retain(|c| c["type"] != ctype);
        if cs.is_empty() {
            if let Some(m) = status.as_object_mut() {
                m.remove("conditions");
            }
        }
    }
}

/// `DeploymentComplete`.
fn deployment_complete(d: &Value, st: &Value) -> bool {
    let r = spec_replicas(d);
    let g = |f: &str| st.get(f).and_then(Value::as_i64).unwrap_or(0);
    g("updatedReplicas") == r
        && g("replicas") == r
        && g("availableReplicas") == r
        && g("observedGeneration") >= d.generation()
}

/// `DeploymentProgressing`: more updated, fewer old, more ready or more available than before.
fn deployment_progressing(d: &Value, st: &Value) -> bool {
    let old = |f: &str| status_int(d, f);
    let new = |f: &str| st.get(f).and_then(Value::as_i64).unwrap_or(0);
    new("updatedReplicas") > old("updatedReplicas")
        || new("replicas") - new("updatedReplicas") < old("replicas") - old("updatedReplicas")
        || new("readyReplicas") > old("readyReplicas")
        || new("availableReplicas") > old("availableReplicas")
}

fn progress_deadline(d: &Value) -> Option<i64> {
    match d.pointer("/spec/progressDeadlineSeconds") {
        Some(Value::Number(n)) => n.as_i64().filter(|v| *v != i64::from(i32::MAX)),
        Some(_) => None,
        None => Some(600),
    }
}

/// `DeploymentTimedOut`.
fn deployment_timed_out(d: &Value, st: &Value, now: Time) -> bool {
    let Some(deadline) = progress_deadline(d) else { return false };
    let Some(c) = get_condition(st, "Progressing") else { return false };
    match c["reason"].as_str() {
        Some("NewReplicaSetAvailable") => false,
        Some("ProgressDeadlineExceeded") => true,
        _ => c["lastUpdateTime"]
            .as_str()
            .and_then(Time::parse_rfc3339)
            .is_some_and(|from| from.after(Duration::from_secs(deadline.max(0) as u64)) < now),
    }
}

/// `calculateStatus` (kubernetes/pkg/controller/deployment/sync.go): counts from the ReplicaSets,
/// and the `Available` condition.
fn calculate_status(all: &[Value], new_rs: Option<&Value>, d: &Value, now: Time) -> Value {
    let sum = |f: &dyn Fn(&Value) -> i64| all.iter().map(f).sum::<i64>();
    let available = sum(&|rs| status_int(rs, "availableReplicas"));
    let total = sum(&rs_replicas);
    let mut st = Map::new();
    let mut put = |k: &str, v: i64| {
        if v != 0 {
            st.insert(k.into(), json!(v));
        }
    };
    put("observedGeneration", d.generation());
    put("replicas", sum(&|rs| status_int(rs, "replicas")));
    put("updatedReplicas", new_rs.map(|rs| status_int(rs, "replicas")).unwrap_or(0));
    put("readyReplicas", sum(&|rs| status_int(rs, "readyReplicas")));
    put("availableReplicas", available);
    put("unavailableReplicas", (total - available).max(0));
    let mut status = Value::Object(st);
    if let Some(cs) = d.pointer("/status/conditions") {
        status["conditions"] = cs.clone();
    }
    if available >= spec_replicas(d) - max_unavailable(d) {
        set_condition(
            &mut status,
            condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", now),
        );
    } else {
        set_condition(
            &mut status,
            condition(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
                now,
            ),
        );
    }
    if let Some(c) = d.pointer("/status/collisionCount") {
        status["collisionCount"] = c.clone();
    }
    status
}

/// One `syncDeployment` call: the Deployment being synced and the client.
struct Sync<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    d: Value,
    /// Set when the sync wants to look again later (`requeueStuckDeployment`).
    requeue_after: Option<Duration>,
    /// Set when creating the new ReplicaSet failed because the namespace is being terminated:
    /// `handleErr` forgets such an error (`errors.HasStatusCause(err, NamespaceTerminatingCause)`)
    /// instead of retrying it.
    namespace_terminating: bool,
}

impl Sync<'_, '_> {
    fn event(&mut self, target: &Value, etype: &str, reason: &str, msg: &str) {
        self.ctx.event(COMPONENT, target, etype, reason, msg);
    }

    fn update_status(&mut self) -> R<()> {
        let d = self.ctx.api.update_status(self.d.clone()).map_err(|e| e.message)?;
        self.d = d;
        Ok(())
    }

    /// `getReplicaSetsForDeployment`: claim ReplicaSets (adopt and release through patches).
    fn replica_sets(&mut self) -> R<Vec<Value>> {
        let ns = self.d.namespace().unwrap_or("default").to_string();
        let uid = self.d.uid().to_string();
        let selector = self.d.pointer("/spec/selector").cloned();
        let candidates: Vec<Value> = self.ctx.cache.list(kind("ReplicaSet"), &ns).map(Frozen::to_value).collect();
        let mut owned = Vec::new();
        for rs in candidates {
            let matches = selector_matches(selector.as_ref(), rs.pointer("/metadata/labels"));
            // ClaimObject (controller_ref_manager.go): an owner being deleted keeps what it owns
            // and matches, but neither releases nor adopts; a ReplicaSet being deleted is not
            // adopted.
            match rs.controller_ref() {
                Some(r) if r.uid == uid => {
                    if matches {
                        owned.push(rs);
                    } else if !self.d.is_deleting() {
                        let refs: Vec<Value> = rs
                            .owner_references()
                            .into_iter()
                            .filter(|o| o.uid != uid)
                            .filter_map(|o| serde_json::to_value(o).ok())
                            .collect();
                        let refs = if refs.is_empty() { Value::Null } else { Value::Array(refs) };
                        let patch = json!({"metadata": {"ownerReferences": refs}});
                        self.ctx
                            .api
                            .merge_patch(kind("ReplicaSet"), Some(&ns), rs.name(), patch)
                            .map_err(|e| e.message)?;
                    }
                }
                None if matches && !self.d.is_deleting() && !rs.is_deleting() => {
                    let mut refs: Vec<Value> =
                        rs.owner_references().into_iter().filter_map(|o| serde_json::to_value(o).ok()).collect();
                    refs.push(serde_json::to_value(OwnerReference::controller_ref(&self.d)).unwrap_or(Value::Null));
                    let patch = json!({"metadata": {"ownerReferences": refs}});
                    let adopted = self
                        .ctx
                        .api
                        .merge_patch(kind("ReplicaSet"), Some(&ns), rs.name(), patch)
                        .map_err(|e| e.message)?;
                    owned.push(adopted);
                }
                _ => {}
            }
        }
        Ok(owned)
    }

    /// `getAllReplicaSetsAndSyncRevision`: `(new, old)`.
    fn all_and_sync_revision(&mut self, rs_list: &[Value], create: bool) -> R<(Option<Value>, Vec<Value>)> {
        let mut sorted_list = rs_list.to_vec();
        crate::sort::sort_by(&mut sorted_list, by_creation);
        let template = self.d.pointer("/spec/template").cloned().unwrap_or(json!({}));
        let existing = sorted_list
            .iter()
            .find(|rs| rs.pointer("/spec/template").is_some_and(|t| equal_ignore_hash(t, &template)))
            .cloned();
        let old: Vec<Value> =
            sorted_list.iter().filter(|rs| existing.as_ref().is_none_or(|e| e.uid() != rs.uid())).cloned().collect();
        let new = self.new_replica_set(existing, &old, create)?;
        Ok((new, old))
    }

    /// `getNewReplicaSet`.
    fn new_replica_set(&mut self, existing: Option<Value>, old: &[Value], create: bool) -> R<Option<Value>> {
        let new_revision = old.iter().map(revision).max().unwrap_or(0) + 1;
        let now = self.ctx.now;
        if let Some(rs) = existing {
            let mut copy = rs.clone();
            let annotations_updated = set_new_rs_annotations(&self.d, &mut copy, new_revision, true);
            let min_ready = self.d.pointer("/spec/minReadySeconds").cloned();
            let min_ready_update = copy.pointer("/spec/minReadySeconds").cloned() != min_ready;
            if annotations_updated || min_ready_update {
                if let Some(spec) = copy.get_mut("spec").and_then(Value::as_object_mut) {
                    match min_ready {
                        Some(m) => spec.insert("minReadySeconds".into(), m),
                        None => spec.remove("minReadySeconds"),
                    };
                }
                return self.ctx.api.update(copy).map(Some).map_err(|e| e.message);
            }
            let rev = copy.annotation(REVISION).unwrap_or("").to_string();
            let mut needs_update = self.set_deployment_revision(&rev);
            if progress_deadline(&self.d).is_some() && get_condition(&self.d["status"], "Progressing").is_none() {
                let msg = format!("Found new replica set \"{}\"", copy.name());
                set_condition(&mut self.d["status"], condition("Progressing", "True", "FoundNewReplicaSet", &msg, now));
                needs_update = true;
            }
            if needs_update {
                self.update_status()?;
            }
            return Ok(Some(copy));
        }
        if !create {
            return Ok(None);
        }
        let mut template = self.d.pointer("/spec/template").cloned().unwrap_or(json!({}));
        let collision = self.d.pointer("/status/collisionCount").and_then(Value::as_i64);
        let hash = compute_hash(&template, collision);
        set_string_entry(&mut template, "labels", POD_TEMPLATE_HASH, &hash);
        let labels = template.pointer("/metadata/labels").cloned().unwrap_or(json!({}));
        let mut selector = self.d.pointer("/spec/selector").cloned().unwrap_or(json!({}));
        let mut ml = selector.get("matchLabels").and_then(Value::as_object).cloned().unwrap_or_default();
        ml.insert(POD_TEMPLATE_HASH.into(), json!(hash));
        selector["matchLabels"] = sorted(ml);
        let name = format!("{}-{hash}", self.d.name());
        let oref = serde_json::to_value(OwnerReference::controller_ref(&self.d)).unwrap_or(Value::Null);
        let mut spec = Map::new();
        spec.insert("replicas".into(), json!(0));
        if let Some(m) = self.d.pointer("/spec/minReadySeconds") {
            spec.insert("minReadySeconds".into(), m.clone());
        }
        spec.insert("selector".into(), selector);
        spec.insert("template".into(), template.clone());
        let mut rs = json!({
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": self.d.namespace().unwrap_or("default"), "labels": labels,
                         "ownerReferences": [oref]},
            "spec": spec,
        });
        let mut all = old.to_vec();
        all.push(rs.clone());
        let count = new_rs_new_replicas(&self.d, &all, &rs);
        rs["spec"]["replicas"] = json!(count);
        set_new_rs_annotations(&self.d, &mut rs, new_revision, false);
        let mut already_exists = false;
        let created = match self.ctx.api.create(rs) {
            Ok(c) => c,
            Err(e) if e.code() == 409 => {
                // A ReplicaSet with this name exists: ours with the same template, or a hash
                // collision.
                let key = format!("{}/{name}", self.d.namespace().unwrap_or("default"));
                // Not in the cache yet: return the error and let the next sync look again
                // (only a cached ReplicaSet that is not ours is a hash collision).
                let Some(found) = self.ctx.cache.get(kind("ReplicaSet"), &key).map(Frozen::to_value) else {
                    return Err(e.message);
                };
                match Some(found) {
                    Some(f)
                        if is_controlled_by(&f, self.d.uid())
                            && f.pointer("/spec/template").is_some_and(|t| {
                                equal_ignore_hash(t, self.d.pointer("/spec/template").unwrap_or(&Value::Null))
                            }) =>
                    {
                        already_exists = true;
                        f
                    }
                    _ => {
                        let c = self.d.pointer("/status/collisionCount").and_then(Value::as_i64).unwrap_or(0) + 1;
                        self.d["status"]["collisionCount"] = json!(c);
                        self.update_status()?;
                        return Err(e.message);
                    }
                }
            }
            Err(e) => {
                self.namespace_terminating = e.has_cause("NamespaceTerminating");
                if progress_deadline(&self.d).is_some() {
                    let msg = format!("Failed to create new replica set \"{name}\": {}", e.message);
                    set_condition(
                        &mut self.d["status"],
                        condition("Progressing", "False", "ReplicaSetCreateError", &msg, now),
                    );
                    let d = self.d.clone();
                    self.event(&d, "Warning", "FailedCreate", &msg);
                    let _ = self.update_status();
                }
                return Err(e.message);
            }
        };
        if !already_exists && count > 0 {
            let d = self.d.clone();
            self.event(
                &d,
                "Normal",
                "ScalingReplicaSet",
                &format!("Scaled up replica set {} from 0 to {count}", created.name()),
            );
        }
        let mut needs_update = self.set_deployment_revision(&new_revision.to_string());
        if !already_exists && progress_deadline(&self.d).is_some() {
            let msg = format!("Created new replica set \"{}\"", created.name());
            set_condition(&mut self.d["status"], condition("Progressing", "True", "NewReplicaSetCreated", &msg, now));
            needs_update = true;
        }
        if needs_update {
            self.update_status()?;
        }
        Ok(Some(created))
    }

    /// `SetDeploymentRevision`.
    fn set_deployment_revision(&mut self, rev: &str) -> bool {
        if self.d.annotation(REVISION) == Some(rev) {
            return false;
        }
        set_string_entry(&mut self.d, "annotations", REVISION, rev);
        true
    }

    /// `scaleReplicaSetAndRecordEvent` / `scaleReplicaSet`: `(scaled, rs)`.
    fn scale_rs(&mut self, rs: &Value, new_scale: i64) -> R<(bool, Value)> {
        let old_scale = rs_replicas(rs);
        let size_changes = old_scale != new_scale;
        let (desired, max) = (spec_replicas(&self.d), spec_replicas(&self.d) + max_surge(&self.d));
        if !size_changes && !replicas_annotations_need_update(rs, desired, max) {
            return Ok((false, rs.clone()));
        }
        let mut copy = rs.clone();
        copy["spec"]["replicas"] = json!(new_scale);
        set_replicas_annotations(&mut copy, desired, max);
        let updated = self.ctx.api.update(copy).map_err(|e| e.message)?;
        if size_changes {
            let op = if old_scale < new_scale { "up" } else { "down" };
            let d = self.d.clone();
            let msg = format!("Scaled {op} replica set {} from {old_scale} to {new_scale}", rs.name());
            self.event(&d, "Normal", "ScalingReplicaSet", &msg);
        }
        Ok((size_changes, updated))
    }

    /// `syncRolloutStatus`.
    fn sync_rollout_status(&mut self, all: &[Value], new_rs: Option<&Value>) -> R<()> {
        let now = self.ctx.now;
        let mut st = calculate_status(all, new_rs, &self.d, now);
        // A missed deadline is a report, not a verdict: upstream re-evaluates on every sync until
        // the rollout is complete (`isCompleteDeployment`: all replicas updated and the current
        // condition already `NewReplicaSetAvailable`), so a timed-out rollout that recovers goes
        // back to `ReplicaSetUpdated`, then `NewReplicaSetAvailable` (progress.go,
        // `syncRolloutStatus`).
        if progress_deadline(&self.d).is_none() {
            remove_condition(&mut st, "Progressing");
        }
        let cur = get_condition(&self.d["status"], "Progressing").cloned();
        let g = |f: &str| st.get(f).and_then(Value::as_i64).unwrap_or(0);
        let is_complete_deployment = g("replicas") == g("updatedReplicas")
            && cur.as_ref().is_some_and(|c| c["reason"] == "NewReplicaSetAvailable");
        if progress_deadline(&self.d).is_some() {
            let rs_name = new_rs.map(|r| r.name().to_string());
            if !is_complete_deployment {
                if deployment_complete(&self.d, &st) {
                    let msg = match &rs_name {
                        Some(n) => format!("ReplicaSet \"{n}\" has successfully progressed."),
                        None => "Deployment has successfully progressed.".to_string(),
                    };
                    set_condition(&mut st, condition("Progressing", "True", "NewReplicaSetAvailable", &msg, now));
                } else if deployment_progressing(&self.d, &st) {
                    let msg = match &rs_name {
                        Some(n) => format!("ReplicaSet \"{n}\" is progressing."),
                        None => "Deployment is progressing.".to_string(),
                    };
                    let mut c = condition("Progressing", "True", "ReplicaSetUpdated", &msg, now);
                    if let Some(cur) = &cur {
                        if cur["status"] == "True" {
                            c["lastTransitionTime"] = cur["lastTransitionTime"].clone();
                        }
                        remove_condition(&mut st, "Progressing");
                    }
                    set_condition(&mut st, c);
                } else if deployment_timed_out(&self.d, &st, now) {
                    let msg = match &rs_name {
                        Some(n) => format!("ReplicaSet \"{n}\" has timed out progressing."),
                        None => "Deployment has timed out progressing.".to_string(),
                    };
                    set_condition(&mut st, condition("Progressing", "False", "ProgressDeadlineExceeded", &msg, now));
                }
            }
        }
        // getReplicaFailures: the new ReplicaSet's ReplicaFailure condition, else the first of
        // any ReplicaSet's, moves up as it is (ReplicaSetToDeploymentCondition: both times are
        // the ReplicaSet condition's lastTransitionTime) (progress.go).
        let failure_of = |rs: &Value| {
            rs.pointer("/status/conditions")
                .and_then(Value::as_array)
                .and_then(|cs| cs.iter().find(|c| c["type"] == "ReplicaFailure"))
                .cloned()
        };
        let failure = new_rs.and_then(failure_of).or_else(|| all.iter().find_map(failure_of));
        match failure {
            Some(f) => {
                let mut c = condition(
                    "ReplicaFailure",
                    f["status"].as_str().unwrap_or("True"),
                    f["reason"].as_str().unwrap_or(""),
                    f["message"].as_str().unwrap_or(""),
                    now,
                );
                if let Some(t) = f.get("lastTransitionTime").filter(|t| t.is_string()) {
                    c["lastUpdateTime"] = t.clone();
                    c["lastTransitionTime"] = t.clone();
                }
                set_condition(&mut st, c);
            }
            None => remove_condition(&mut st, "ReplicaFailure"),
        }
        if self.d.get("status") == Some(&st) {
            self.requeue_stuck(&st);
            return Ok(());
        }
        self.d["status"] = st;
        self.update_status()
    }

    /// `requeueStuckDeployment`: look again when the progress deadline would pass.
    fn requeue_stuck(&mut self, st: &Value) {
        let Some(deadline) = progress_deadline(&self.d) else { return };
        let Some(c) = get_condition(st, "Progressing") else { return };
        if deployment_complete(&self.d, st) || c["reason"] == "ProgressDeadlineExceeded" {
            return;
        }
        let Some(from) = c["lastUpdateTime"].as_str().and_then(Time::parse_rfc3339) else { return };
        let due = from.after(Duration::from_secs(deadline.max(0) as u64));
        let after = due.since(self.ctx.now);
        self.requeue_after =
            Some(if after < Duration::from_secs(1) { Duration::from_secs(1) } else { after + Duration::from_secs(1) });
    }

    /// `syncDeploymentStatus`.
    fn sync_status(&mut self, all: &[Value], new_rs: Option<&Value>) -> R<()> {
        let st = calculate_status(all, new_rs, &self.d, self.ctx.now);
        if self.d.get("status") == Some(&st) {
            return Ok(());
        }
        self.d["status"] = st;
        self.update_status()
    }

    /// `isScalingEvent`.
    fn is_scaling_event(&mut self, rs_list: &[Value]) -> R<bool> {
        let (new, old) = self.all_and_sync_revision(rs_list, false)?;
        let replicas = spec_replicas(&self.d).to_string();
        Ok(old
            .iter()
            .chain(new.iter())
            .filter(|rs| rs_replicas(rs) > 0)
            .any(|rs| rs.annotation(DESIRED_REPLICAS).is_some_and(|a| a != replicas)))
    }

    /// `checkPausedConditions`: `Progressing Unknown DeploymentPaused` when paused, then
    /// `DeploymentResumed` when resumed, so that the time spent paused never counts against the
    /// progress deadline; a reported `ProgressDeadlineExceeded` is left alone (sync.go). Upstream
    /// discards the object the status write returns and goes on with its own copy (old
    /// resourceVersion, new condition): so does this, and a later status write of the same sync
    /// meets the 409 a real controller would.
    fn check_paused_conditions(&mut self) -> R<()> {
        if progress_deadline(&self.d).is_none() {
            return Ok(());
        }
        let cond = get_condition(&self.d["status"], "Progressing");
        if cond.is_some_and(|c| c["reason"] == "ProgressDeadlineExceeded") {
            return Ok(());
        }
        let paused_cond_exists = cond.is_some_and(|c| c["reason"] == "DeploymentPaused");
        let now = self.ctx.now;
        let condition = match (is_paused(&self.d), paused_cond_exists) {
            (true, false) => condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", now),
            (false, true) => condition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", now),
            _ => return Ok(()),
        };
        set_condition(&mut self.d["status"], condition);
        self.ctx.api.update_status(self.d.clone()).map(|_| ()).map_err(|e| e.message)
    }

    /// `sync`: a scaling event, or any sync of a paused Deployment.
    fn scale_sync(&mut self, rs_list: &[Value]) -> R<()> {
        let (new, old) = self.all_and_sync_revision(rs_list, false)?;
        self.scale(new.as_ref(), &old)?;
        // "Clean up the deployment when it's paused and no rollback is in flight."
        if is_paused(&self.d) {
            self.cleanup(&old)?;
        }
        let mut all = old;
        all.extend(new.iter().cloned());
        self.sync_status(&all, new.as_ref())
    }

    /// `scale`: resize the active ReplicaSets, proportionally when several are active.
    fn scale(&mut self, new: Option<&Value>, old: &[Value]) -> R<()> {
        let replicas = spec_replicas(&self.d);
        // FindActiveOrLatest
        let mut old_sorted = old.to_vec();
        crate::sort::sort_by(&mut old_sorted, |a, b| by_creation(b, a));
        let mut all: Vec<Value> = old_sorted.clone();
        all.extend(new.cloned());
        let active: Vec<Value> = all.iter().filter(|rs| rs_replicas(rs) > 0).cloned().collect();
        let active_or_latest = match active.len() {
            0 => new.cloned().or_else(|| old_sorted.first().cloned()),
            1 => Some(active[0].clone()),
            _ => None,
        };
        if let Some(rs) = active_or_latest {
            if rs_replicas(&rs) != replicas {
                self.scale_rs(&rs, replicas)?;
            }
            return Ok(());
        }
        // IsSaturated: the new ReplicaSet has everything: scale the old ones to zero.
        if let Some(n) = new {
            if n.annotation(DESIRED_REPLICAS) == Some(replicas.to_string().as_str())
                && rs_replicas(n) == replicas
                && status_int(n, "availableReplicas") == replicas
            {
                for rs in old.iter().filter(|rs| rs_replicas(rs) > 0) {
                    self.scale_rs(rs, 0)?;
                }
                return Ok(());
            }
        }
        if !is_rolling(&self.d) {
            return Ok(());
        }
        // Proportional scaling during a rollout.
        let mut active = active;
        let current: i64 = active.iter().map(rs_replicas).sum();
        let allowed = if replicas > 0 { replicas + max_surge(&self.d) } else { 0 };
        let to_add = allowed - current;
        match to_add.cmp(&0) {
            // ReplicaSetsBySizeNewer: larger first, then newer first.
            Ordering::Greater => crate::sort::sort_by(&mut active, |a, b| {
                rs_replicas(b).cmp(&rs_replicas(a)).then_with(|| by_creation(b, a))
            }),
            // ReplicaSetsBySizeOlder: larger first, then older first.
            Ordering::Less => crate::sort::sort_by(&mut active, |a, b| {
                rs_replicas(b).cmp(&rs_replicas(a)).then_with(|| by_creation(a, b))
            }),
            Ordering::Equal => {}
        }
        let mut added = 0;
        let mut sizes = Vec::new();
        for rs in &active {
            if to_add != 0 {
                let p = self.proportion(rs, to_add, added);
                sizes.push(rs_replicas(rs) + p);
                added += p;
            } else {
                sizes.push(rs_replicas(rs));
            }
        }
        for (i, rs) in active.iter().enumerate() {
            if i == 0 && to_add != 0 {
                sizes[0] = (sizes[0] + to_add - added).max(0);
            }
            self.scale_rs(rs, sizes[i])?;
        }
        Ok(())
    }

    /// `GetProportion` with `getReplicaSetFraction`.
    fn proportion(&self, rs: &Value, to_add: i64, added: i64) -> i64 {
        if rs_replicas(rs) == 0 || to_add == 0 || to_add == added {
            return 0;
        }
        let replicas = spec_replicas(&self.d);
        let fraction = if replicas == 0 {
            -rs_replicas(rs)
        } else {
            let deployment_replicas = replicas + max_surge(&self.d);
            let annotated = rs
                .annotation(MAX_REPLICAS)
                .and_then(|a| a.parse::<i64>().ok())
                .unwrap_or_else(|| status_int(&self.d, "replicas"));
            if annotated == 0 {
                0
            } else {
                ((rs_replicas(rs) * deployment_replicas) as f64 / annotated as f64).round() as i64 - rs_replicas(rs)
            }
        };
        let allowed = to_add - added;
        if to_add > 0 {
            fraction.min(allowed)
        } else {
            fraction.max(allowed)
        }
    }

    /// `rolloutRolling`.
    fn rollout_rolling(&mut self, rs_list: &[Value]) -> R<()> {
        let (new, old) = self.all_and_sync_revision(rs_list, true)?;
        let mut all = old.clone();
        all.extend(new.iter().cloned());
        let Some(new_rs) = new else { return Ok(()) };
        // reconcileNewReplicaSet
        let replicas = spec_replicas(&self.d);
        let scaled_up = match rs_replicas(&new_rs).cmp(&replicas) {
            Ordering::Equal => false,
            Ordering::Greater => self.scale_rs(&new_rs, replicas)?.0,
            Ordering::Less => {
                let n = new_rs_new_replicas(&self.d, &all, &new_rs);
                self.scale_rs(&new_rs, n)?.0
            }
        };
        if scaled_up {
            return self.sync_rollout_status(&all, Some(&new_rs));
        }
        if self.reconcile_old_replica_sets(&all, &old, &new_rs)? {
            return self.sync_rollout_status(&all, Some(&new_rs));
        }
        if deployment_complete(&self.d, &self.d["status"]) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&all, Some(&new_rs))
    }

    /// `reconcileOldReplicaSets` with `cleanupUnhealthyReplicas` and
    /// `scaleDownOldReplicaSetsForRollingUpdate`.
    fn reconcile_old_replica_sets(&mut self, all: &[Value], old: &[Value], new_rs: &Value) -> R<bool> {
        let old_pods: i64 = old.iter().map(rs_replicas).sum();
        if old_pods == 0 {
            return Ok(false);
        }
        let all_pods: i64 = all.iter().map(rs_replicas).sum();
        let min_available = spec_replicas(&self.d) - max_unavailable(&self.d);
        let new_unavailable = rs_replicas(new_rs) - status_int(new_rs, "availableReplicas");
        let max_scaled_down = all_pods - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return Ok(false);
        }
        let mut old_sorted: Vec<Value> = old.iter().filter(|rs| rs_replicas(rs) > 0).cloned().collect();
        crate::sort::sort_by(&mut old_sorted, by_creation);
        // cleanupUnhealthyReplicas
        let mut cleaned = 0;
        for rs in old_sorted.iter_mut() {
            if cleaned >= max_scaled_down {
                break;
            }
            let (r, a) = (rs_replicas(rs), status_int(rs, "availableReplicas"));
            if r == 0 || r == a {
                continue;
            }
            let n = (max_scaled_down - cleaned).min(r - a);
            let (_, updated) = self.scale_rs(rs, r - n)?;
            *rs = updated;
            cleaned += n;
        }
        // scaleDownOldReplicaSetsForRollingUpdate
        let mut all_now: Vec<Value> = old_sorted.clone();
        all_now.push(new_rs.clone());
        let available: i64 = all_now.iter().map(|rs| status_int(rs, "availableReplicas")).sum();
        let mut scaled = 0;
        if available > min_available {
            let total = available - min_available;
            for rs in &old_sorted {
                if scaled >= total {
                    break;
                }
                let r = rs_replicas(rs);
                if r == 0 {
                    continue;
                }
                let n = r.min(total - scaled);
                self.scale_rs(rs, r - n)?;
                scaled += n;
            }
        }
        Ok(cleaned + scaled > 0)
    }

    /// `rolloutRecreate`.
    fn rollout_recreate(&mut self, rs_list: &[Value]) -> R<()> {
        let (mut new, mut old) = self.all_and_sync_revision(rs_list, false)?;
        let mut all = old.clone();
        all.extend(new.iter().cloned());
        let mut scaled_down = false;
        for rs in old.iter().filter(|rs| rs_replicas(rs) > 0) {
            if self.scale_rs(rs, 0)?.0 {
                scaled_down = true;
            }
        }
        if scaled_down {
            return self.sync_rollout_status(&all, new.as_ref());
        }
        // oldPodsRunning: wait until no pod of an old ReplicaSet exists (terminating ones too).
        let old_status: i64 = old.iter().map(|rs| status_int(rs, "replicas")).sum();
        let ns = self.d.namespace().unwrap_or("default").to_string();
        let owned: Vec<String> = rs_list
            .iter()
            .filter(|rs| new.as_ref().is_none_or(|n| n.uid() != rs.uid()))
            .map(|rs| rs.uid().to_string())
            .collect();
        let old_pod_running = self.ctx.cache.list(kind("Pod"), &ns).any(|p| {
            p.controller_ref().is_some_and(|r| owned.contains(&r.uid))
                && !matches!(str_at(p, "/status/phase"), "Failed" | "Succeeded")
        });
        if old_status > 0 || old_pod_running {
            return self.sync_rollout_status(&all, new.as_ref());
        }
        if new.is_none() {
            let (n, o) = self.all_and_sync_revision(rs_list, true)?;
            new = n;
            old = o;
            all = old.clone();
            all.extend(new.iter().cloned());
        }
        if let Some(n) = &new {
            let replicas = spec_replicas(&self.d);
            self.scale_rs(n, replicas)?;
        }
        if deployment_complete(&self.d, &self.d["status"]) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&all, new.as_ref())
    }

    /// `cleanupDeployment`: delete the oldest empty ReplicaSets beyond `revisionHistoryLimit`.
    fn cleanup(&mut self, old: &[Value]) -> R<()> {
        let limit = self.d.pointer("/spec/revisionHistoryLimit").and_then(Value::as_i64).unwrap_or(10);
        let mut cleanable: Vec<&Value> = old.iter().filter(|rs| !rs.is_deleting()).collect();
        let diff = cleanable.len() as i64 - limit;
        if diff <= 0 {
            return Ok(());
        }
        crate::sort::sort_by(&mut cleanable, |a, b| revision(a).cmp(&revision(b)).then_with(|| by_creation(a, b)));
        for rs in cleanable.into_iter().take(diff as usize) {
            if status_int(rs, "replicas") != 0
                || rs_replicas(rs) != 0
                || rs.generation() > status_int(rs, "observedGeneration")
            {
                continue;
            }
            match self.ctx.api.delete(kind("ReplicaSet"), rs.namespace(), rs.name(), &DeleteOpts::default()) {
                Ok(_) => {}
                Err(e) if e.code() == 404 => {}
                Err(e) => return Err(e.message),
            }
        }
        Ok(())
    }
}

/// `NewRSNewReplicas` (kubernetes/pkg/controller/deployment/util/deployment_util.go): how big the
/// new ReplicaSet may be now.
pub fn new_rs_new_replicas(d: &Value, all: &[Value], new_rs: &Value) -> i64 {
    let replicas = spec_replicas(d);
    if !is_rolling(d) {
        return replicas;
    }
    let current: i64 = all.iter().map(rs_replicas).sum();
    let max_total = replicas + max_surge(d);
    if current >= max_total {
        return rs_replicas(new_rs);
    }
    let up = (max_total - current).min(replicas - rs_replicas(new_rs));
    rs_replicas(new_rs) + up
}

impl DeploymentController {
    /// A Deployment controller.
    pub fn new() -> DeploymentController {
        DeploymentController
    }

    fn deployment_keys_for_rs(rs: &Frozen, cache: &Caches) -> Vec<String> {
        let ns = rs.namespace().unwrap_or("");
        if let Some(r) = rs.controller_ref() {
            if r.kind != "Deployment" {
                return Vec::new();
            }
            let key = format!("{ns}/{}", r.name);
            return cache
                .get(kind("Deployment"), &key)
                .filter(|d| d.uid() == r.uid)
                .map(|_| vec![key])
                .unwrap_or_default();
        }
        cache
            .list(kind("Deployment"), ns)
            .filter(|d| selector_matches(d.pointer("/spec/selector"), rs.pointer("/metadata/labels")))
            .map(ObjectExt::key)
            .collect()
    }
}

impl Controller for DeploymentController {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static W: std::sync::OnceLock<[&'static Kind; 3]> = std::sync::OnceLock::new();
        W.get_or_init(|| [kind("Deployment"), kind("ReplicaSet"), kind("Pod")])
    }

    fn handle(&mut self, k: &'static Kind, n: &ResourceEvent, cache: &Caches, _now: Time) -> Vec<Enqueue> {
        let keys = match (k.kind, n) {
            ("Deployment", _) => vec![n.object().key()],
            ("ReplicaSet", ResourceEvent::Update(old, new)) => {
                if old.resource_version() == new.resource_version() {
                    return Vec::new();
                }
                let mut keys = Vec::new();
                if old.controller_ref() != new.controller_ref() {
                    keys.extend(Self::deployment_keys_for_rs(old, cache));
                }
                keys.extend(Self::deployment_keys_for_rs(new, cache));
                keys
            }
            ("ReplicaSet", ResourceEvent::Delete { obj, .. }) => {
                if obj.controller_ref().is_none() {
                    return Vec::new();
                }
                Self::deployment_keys_for_rs(obj, cache)
            }
            ("ReplicaSet", ResourceEvent::Add(rs)) => Self::deployment_keys_for_rs(rs, cache),
            // deletePod: only a Recreate rollout waits for pods to be gone.
            ("Pod", ResourceEvent::Delete { obj, .. }) => {
                let ns = obj.namespace().unwrap_or("");
                let Some(r) = obj.controller_ref().filter(|r| r.kind == "ReplicaSet") else { return Vec::new() };
                let Some(rs) = cache.get(kind("ReplicaSet"), &format!("{ns}/{}", r.name)) else { return Vec::new() };
                Self::deployment_keys_for_rs(rs, cache)
                    .into_iter()
                    .filter(|k| cache.get(kind("Deployment"), k).is_some_and(|d| !is_rolling(d)))
                    .collect()
            }
            _ => Vec::new(),
        };
        let mut out: Vec<Enqueue> = Vec::new();
        for k in keys {
            if !out.contains(&Enqueue::Now(k.clone())) {
                out.push(Enqueue::Now(k));
            }
        }
        out
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        let Some(d) = ctx.cache.get(kind("Deployment"), key).map(Frozen::to_value) else { return Outcome::Done };
        let mut s = Sync { ctx, d, requeue_after: None, namespace_terminating: false };
        let result = (|| -> R<()> {
            if selector_is_empty(s.d.pointer("/spec/selector")) {
                let d = s.d.clone();
                s.event(
                    &d,
                    "Warning",
                    "SelectorRequired",
                    "This deployment is selecting all pods. A non-empty selector is required.",
                );
                if s.d.generation() > status_int(&s.d, "observedGeneration") {
                    s.d["status"]["observedGeneration"] = json!(s.d.generation());
                    s.update_status()?;
                }
                return Ok(());
            }
            let rs_list = s.replica_sets()?;
            if s.d.is_deleting() {
                let (new, old) = s.all_and_sync_revision(&rs_list, false)?;
                let mut all = old;
                all.extend(new.iter().cloned());
                return s.sync_status(&all, new.as_ref());
            }
            s.check_paused_conditions()?;
            // A paused Deployment only scales: no new ReplicaSet, no rollout step
            // (deployment_controller.go `syncDeployment`:
            // `if d.Spec.Paused { return dc.sync(...) }`).
            if is_paused(&s.d) {
                return s.scale_sync(&rs_list);
            }
            if s.is_scaling_event(&rs_list)? {
                return s.scale_sync(&rs_list);
            }
            if is_rolling(&s.d) {
                s.rollout_rolling(&rs_list)
            } else {
                s.rollout_recreate(&rs_list)
            }
        })();
        match (result, s.requeue_after) {
            (Err(e), _) if s.namespace_terminating => Outcome::ErrForget(e),
            (Err(e), _) => Outcome::Err(e),
            (Ok(()), Some(d)) => Outcome::CheckAfter(d),
            (Ok(()), None) => Outcome::Done,
        }
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(DeploymentController::new())
    }

    /// `maxRetries` (pkg/controller/deployment/deployment_controller.go, `handleErr`): with the
    /// default rate limiter the 15 retries wait 5 ms, 10 ms, ... 81.92 s; then the key is dropped.
    fn max_retries(&self) -> Option<u32> {
        Some(MAX_RETRIES)
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests;
