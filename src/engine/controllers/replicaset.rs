//! The ReplicaSet controller (k/k `pkg/controller/replicaset/
//! replica_set.go`, `replica_set_utils.go`, `pkg/controller/controller_utils.go`).
//!
//! `syncReplicaSet`: read the ReplicaSet from the cache; count its *active* pods (terminating
//! pods are replaced at once); adopt matching orphans and release owned pods that stopped
//! matching; if the expectations are satisfied and the ReplicaSet is not being deleted, create or
//! delete the difference (creations in slow-start batches 1, 2, 4, ...; deletions ranked by
//! `ActivePodsWithRanks`); then write status if it changed.

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{json, Value};

use super::util::{
    int_at, is_controlled_by, is_pod_active, is_pod_ready, pod_condition, readiness, selector_matches, spec_replicas,
    str_at,
};
use super::{Caches, Controller, Ctx, DeleteOpts, Enqueue, Outcome, ResourceEvent};
use crate::engine::client::store::namespace_range;
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::{ObjectExt, OwnerReference};
use crate::engine::time::Time;

/// `burstReplicas`: at most this many creations or deletions per sync.
pub const BURST_REPLICAS: i64 = 500;
/// `controller.SlowStartInitialBatchSize`.
pub const SLOW_START_INITIAL_BATCH_SIZE: i64 = 1;
/// `controller.ExpectationsTimeout`: unmet expectations older than this are ignored.
pub const EXPECTATIONS_TIMEOUT: Duration = Duration::from_secs(5 * 60);

fn kind(k: &str) -> &'static Kind {
    Kind::by_kind(k).expect("built-in kind")
}

/// What the controller expects its informer to report before it acts again for one ReplicaSet
/// (`pkg/controller/controller_utils.go`, `UIDTrackingControllerExpectations`). Invariant: `add`
/// only counts down and `del` only shrinks through observations; a sync acts only when `add <= 0`
/// and `del` is empty, or the record is older than [`EXPECTATIONS_TIMEOUT`], or there is no record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// Pod creations not yet seen by the informer.
    pub add: i64,
    /// Keys of pods whose deletion the informer has not yet shown (observing one twice is harmless).
    pub del: BTreeSet<String>,
    /// When the expectation was set.
    pub timestamp: Time,
}

/// The ReplicaSet controller's in-memory state.
#[derive(Clone, Debug, Default)]
pub struct ReplicaSetController {
    /// `ControllerExpectations`, by ReplicaSet key.
    pub expectations: BTreeMap<String, Expectation>,
}

impl ReplicaSetController {
    /// A controller with no expectations.
    pub fn new() -> ReplicaSetController {
        ReplicaSetController::default()
    }

    /// `SatisfiedExpectations`.
    pub fn satisfied_expectations(&self, key: &str, now: Time) -> bool {
        match self.expectations.get(key) {
            None => true,
            Some(e) => (e.add <= 0 && e.del.is_empty()) || now.since(e.timestamp) > EXPECTATIONS_TIMEOUT,
        }
    }

    /// `CreationObserved`, `n` times.
    fn creation_observed(&mut self, key: &str, n: i64) {
        if let Some(e) = self.expectations.get_mut(key) {
            e.add -= n;
        }
    }

    /// `DeletionObserved(key, podKey)`.
    fn deletion_observed(&mut self, key: &str, pod_key: &str) {
        if let Some(e) = self.expectations.get_mut(key) {
            e.del.remove(pod_key);
        }
    }

    /// `resolveControllerRef`: the cached ReplicaSet the pod's controllerRef names, if the uid matches.
    fn owner_key(pod: &Frozen, cache: &Caches) -> Option<String> {
        let r = pod.controller_ref()?;
        if r.kind != "ReplicaSet" {
            return None;
        }
        let key = format!("{}/{}", pod.namespace().unwrap_or(""), r.name);
        cache.get(kind("ReplicaSet"), &key).filter(|rs| rs.uid() == r.uid).map(|_| key)
    }

    /// `getPodReplicaSets`: ReplicaSets whose selector matches an orphan pod.
    fn matching_replica_sets(pod: &Frozen, cache: &Caches) -> Vec<String> {
        cache
            .list(kind("ReplicaSet"), pod.namespace().unwrap_or(""))
            .filter(|rs| selector_matches(rs.pointer("/spec/selector"), pod.pointer("/metadata/labels")))
            .map(ObjectExt::key)
            .collect()
    }

    fn pod_event(&mut self, n: &ResourceEvent, cache: &Caches) -> Vec<Enqueue> {
        let mut keys = Vec::new();
        match n {
            ResourceEvent::Add(pod) => {
                if let Some(k) = Self::owner_key(pod, cache) {
                    // addPod: a pod created already terminating counts as a deletion (deletePod).
                    if pod.is_deleting() {
                        self.deletion_observed(&k, &pod.key());
                    } else {
                        self.creation_observed(&k, 1);
                    }
                    keys.push(k);
                } else if !pod.is_deleting() {
                    keys.extend(Self::matching_replica_sets(pod, cache));
                }
            }
            ResourceEvent::Update(old, new) => {
                if old.resource_version() == new.resource_version() {
                    return Vec::new(); // a resync: nothing changed
                }
                if new.is_deleting() && !old.is_deleting() {
                    if let Some(k) = Self::owner_key(new, cache) {
                        self.deletion_observed(&k, &new.key());
                    }
                }
                let old_ref = old.controller_ref();
                let new_ref = new.controller_ref();
                if old_ref != new_ref {
                    if let Some(k) = Self::owner_key(old, cache) {
                        keys.push(k);
                    }
                }
                if let Some(k) = Self::owner_key(new, cache) {
                    keys.push(k);
                } else if new_ref.is_none() && (old.labels() != new.labels() || old_ref.is_some()) {
                    keys.extend(Self::matching_replica_sets(new, cache));
                }
            }
            ResourceEvent::Delete { obj: pod, .. } => {
                // deletePod: the cache no longer has the pod, so resolve the owner from the RS cache.
                if let Some(k) = Self::owner_key(pod, cache) {
                    self.deletion_observed(&k, &pod.key());
                    keys.push(k);
                }
            }
        }
        keys.dedup();
        keys.into_iter().map(Enqueue::Now).collect()
    }

    /// `manageReplicas`. Returns the error that stopped it, if any.
    fn manage_replicas<P: Borrow<Frozen>>(
        &mut self,
        rs: &Value,
        key: &str,
        active: &[P],
        ctx: &mut Ctx<'_>,
    ) -> Option<String> {
        let diff = active.len() as i64 - spec_replicas(rs);
        if diff < 0 {
            let want = (-diff).min(BURST_REPLICAS);
            self.expectations
                .insert(key.to_string(), Expectation { add: want, del: BTreeSet::new(), timestamp: ctx.now });
            let (created, err) = slow_start_batch(want, SLOW_START_INITIAL_BATCH_SIZE, |_| create_pod(rs, ctx));
            // Creations that were skipped or failed will never be observed.
            self.creation_observed(key, want - created);
            err
        } else if diff > 0 {
            let n = diff.min(BURST_REPLICAS) as usize;
            let related = indirectly_related_pods(rs, ctx.cache);
            let victims = pods_to_delete(active, &related, n, ctx.now);
            let del = crate::sort::btree_set(victims.iter().map(ObjectExt::key));
            self.expectations.insert(key.to_string(), Expectation { add: 0, del, timestamp: ctx.now });
            let mut first_err = None;
            for pod in victims {
                let opts = DeleteOpts::default();
                match ctx.api.delete(kind("Pod"), pod.namespace(), pod.name(), &opts) {
                    Ok(_) => {
                        ctx.event(COMPONENT, rs, "Normal", "SuccessfulDelete", &format!("Deleted pod: {}", pod.name()));
                    }
                    Err(e) => {
                        // The deletion will not be observed: lower the expectation now.
                        self.deletion_observed(key, &pod.key());
                        if e.code() != 404 {
                            ctx.event(
                                COMPONENT,
                                rs,
                                "Warning",
                                "FailedDelete",
                                &format!("Error deleting: {}", e.message),
                            );
                            first_err.get_or_insert(e.message);
                        }
                    }
                }
            }
            first_err
        } else {
            None
        }
    }
}

const COMPONENT: &str = "replicaset-controller";

/// `slowStartBatch`: calls `f` in batches of 1, 2, 4, ... (capped by what remains) and stops
/// after the first batch with a failure. Returns the successes and the first error.
pub fn slow_start_batch<F: FnMut(i64) -> Result<(), String>>(
    count: i64,
    initial: i64,
    mut f: F,
) -> (i64, Option<String>) {
    let mut remaining = count;
    let mut successes = 0;
    let mut batch = remaining.min(initial);
    let mut i = 0;
    while batch > 0 {
        let mut err = None;
        for _ in 0..batch {
            match f(i) {
                Ok(()) => successes += 1,
                Err(e) => {
                    err.get_or_insert(e);
                }
            }
            i += 1;
        }
        if err.is_some() {
            return (successes, err);
        }
        remaining -= batch;
        batch = (2 * batch).min(remaining);
    }
    (successes, None)
}

/// `GetPodFromTemplate` + create, with its Event (`SuccessfulCreate` / `FailedCreate`).
fn create_pod(rs: &Value, ctx: &mut Ctx<'_>) -> Result<(), String> {
    let template = rs.pointer("/spec/template").cloned().unwrap_or(json!({}));
    let mut meta = serde_json::Map::new();
    meta.insert("generateName".into(), json!(format!("{}-", rs.name())));
    meta.insert("namespace".into(), json!(rs.namespace().unwrap_or("default")));
    for f in ["labels", "annotations", "finalizers"] {
        if let Some(v) = template.pointer(&format!("/metadata/{f}")) {
            meta.insert(f.into(), v.clone());
        }
    }
    let oref = serde_json::to_value(OwnerReference::controller_ref(rs)).unwrap_or(Value::Null);
    meta.insert("ownerReferences".into(), json!([oref]));
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": template.get("spec").cloned().unwrap_or(json!({})),
    });
    match ctx.api.create(pod) {
        Ok(p) => {
            ctx.event(COMPONENT, rs, "Normal", "SuccessfulCreate", &format!("Created pod: {}", p.name()));
            Ok(())
        }
        // A namespace being terminated refuses every create: `manageReplicas` counts the pod as
        // created and returns no error ("any creation will fail", replica_set.go), and
        // `RealPodControl.createPods` records no event for it (controller_utils.go).
        Err(e) if e.has_cause("NamespaceTerminating") => Ok(()),
        Err(e) => {
            ctx.event(COMPONENT, rs, "Warning", "FailedCreate", &format!("Error creating: {}", e.message));
            Err(e.message)
        }
    }
}

/// `controller.kubernetes.io/pod-deletion-cost` (feature gate `PodDeletionCost`, beta and on by
/// default in 1.34).
pub const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// `helper.GetDeletionCostFromPodAnnotations`: the annotation as an int32, 0 when absent or not
/// a number (the API server validates it on write).
fn deletion_cost(p: &Frozen) -> i32 {
    p.annotation(POD_DELETION_COST).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// `getIndirectlyRelatedPods` (replica_set.go): every pod selected by a ReplicaSet with the same
/// controller (the ReplicaSets of one Deployment), each pod once. A ReplicaSet without a
/// controller has no related pods, so its own co-location counts nothing.
pub fn indirectly_related_pods<'a>(rs: &Value, cache: &'a Caches) -> Vec<&'a Frozen> {
    let Some(owner) = rs.controller_ref() else { return Vec::new() };
    let Some(pods) = cache.store("Pod") else { return Vec::new() };
    let in_ns: Vec<&'a Frozen> =
        namespace_range(pods, rs.namespace().unwrap_or("default")).map(|(_, p)| &**p).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let ns = rs.namespace().unwrap_or("default");
    for related in cache.list(kind("ReplicaSet"), ns).filter(|r| r.controller_ref().is_some_and(|c| c.uid == owner.uid))
    {
        let selector = related.pointer("/spec/selector");
        for pod in &in_ns {
            if selector_matches(selector, pod.pointer("/metadata/labels")) && seen.insert(pod.uid()) {
                out.push(*pod);
            }
        }
    }
    out
}

/// `logarithmicRankDiff` (controller_utils.go): the difference of the whole base-2 logarithms
/// of the two ages in nanoseconds (-1 for an age not above zero).
fn logarithmic_rank_diff(t1: Time, t2: Time, now: Time) -> i64 {
    let rank = |t: Time| {
        let ms = now.millis_since(t);
        if ms > 0 {
            ((ms as f64) * 1e6).log2() as i64
        } else {
            -1
        }
    };
    rank(t1) - rank(t2)
}

/// `afterOrZero`: a missing time counts as after any other.
fn after_or_zero(t1: Option<Time>, t2: Option<Time>) -> bool {
    match (t1, t2) {
        (None, _) | (_, None) => t1.is_none(),
        (Some(a), Some(b)) => a > b,
    }
}

/// `getPodsToDelete` (replica_set.go) with `ActivePodsWithRanks.Less` (controller_utils.go),
/// the first `n` pods of:
///
/// 1. unassigned < assigned;
/// 2. Pending < Unknown < Running;
/// 3. not ready < ready;
/// 4. lower `pod-deletion-cost` < higher;
/// 5. more active pods of the same Deployment's ReplicaSets on the pod's node (`related`, from
///    [`indirectly_related_pods`]) first;
/// 6. both ready: more recently ready first, in power-of-two buckets of the time since
///    (`LogarithmicScaleDown`, GA), a tie within one bucket going to the lower UID;
/// 7. more container restarts first;
/// 8. newer first, bucketed and tied by UID the same way.
///
/// Deleting every pod needs no ranking: they go in the lister's order.
pub fn pods_to_delete<P: Borrow<Frozen>>(active: &[P], related: &[&Frozen], n: usize, now: Time) -> Vec<Frozen> {
    let mut ranked: Vec<&Frozen> = active.iter().map(Borrow::borrow).collect();
    if n >= ranked.len() {
        return ranked.into_iter().cloned().collect();
    }
    let mut per_node: BTreeMap<&str, i64> = BTreeMap::new();
    for p in related.iter().filter(|p| is_pod_active(**p)) {
        *per_node.entry(str_at(*p, "/spec/nodeName")).or_default() += 1;
    }
    let phase_rank = |p: &Frozen| match str_at(p, "/status/phase") {
        "Pending" | "" => 0,
        "Unknown" => 1,
        "Running" => 2,
        _ => 3,
    };
    // podReadyTime: the Ready condition's lastTransitionTime while it is True.
    let ready_since = |p: &Frozen| {
        pod_condition(p, "Ready")
            .filter(|c| c.get("status").and_then(Frozen::as_str) == Some("True"))
            .and_then(|c| c.get("lastTransitionTime"))
            .and_then(Frozen::as_str)
            .and_then(Time::parse_rfc3339)
    };
    let restarts = |p: &Frozen| -> i64 {
        p.pointer("/status/containerStatuses")
            .and_then(Frozen::as_array)
            .map(|cs| cs.iter().filter_map(|c| c.get("restartCount").and_then(Frozen::as_i64)).max().unwrap_or(0))
            .unwrap_or(0)
    };
    let created = |p: &Frozen| Time::parse_rfc3339(str_at(p, "/metadata/creationTimestamp"));
    // Step 6 and 8: `Less(i, j)` for two different times.
    let by_age = |a: &Frozen, b: &Frozen, ta: Option<Time>, tb: Option<Time>| -> Ordering {
        let less = match (ta, tb) {
            (Some(x), Some(y)) => {
                let diff = logarithmic_rank_diff(x, y, now);
                if diff == 0 {
                    a.uid() < b.uid()
                } else {
                    diff < 0
                }
            }
            _ => after_or_zero(ta, tb),
        };
        if less {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    };
    let co = |p: &Frozen| per_node.get(str_at(p, "/spec/nodeName")).copied().unwrap_or(0);
    crate::sort::sort_by(&mut ranked, |a, b| {
        let assigned = |p: &Frozen| !str_at(p, "/spec/nodeName").is_empty();
        assigned(a)
            .cmp(&assigned(b))
            .then(phase_rank(a).cmp(&phase_rank(b)))
            .then(is_pod_ready(*a).cmp(&is_pod_ready(*b)))
            .then_with(|| deletion_cost(a).cmp(&deletion_cost(b)))
            .then_with(|| co(b).cmp(&co(a)))
            .then_with(|| {
                let (ta, tb) = (ready_since(a), ready_since(b));
                if is_pod_ready(*a) && is_pod_ready(*b) && ta != tb {
                    by_age(a, b, ta, tb)
                } else {
                    Ordering::Equal
                }
            })
            .then_with(|| restarts(b).cmp(&restarts(a)))
            .then_with(|| {
                let (ta, tb) = (created(a), created(b));
                if ta != tb {
                    by_age(a, b, ta, tb)
                } else {
                    Ordering::Equal
                }
            })
            // Upstream's sort is not stable and stops here; the lab breaks the last ties by UID
            // so that a seed always picks the same pods.
            .then_with(|| a.uid().cmp(b.uid()))
    });
    ranked.into_iter().take(n).cloned().collect()
}

/// `calculateStatus` for a ReplicaSet; keeps conditions and sets `ReplicaFailure` on an error.
fn calculate_status<P: Borrow<Frozen>>(rs: &Value, active: &[P], err: Option<&str>, grew: bool, now: Time) -> Value {
    let active: Vec<&Frozen> = active.iter().map(Borrow::borrow).collect();
    let min_ready = int_at(rs, "/spec/minReadySeconds");
    let template_labels = rs.pointer("/spec/template/metadata/labels").and_then(Value::as_object);
    let fully = active
        .iter()
        .filter(|p| template_labels.is_none_or(|tl| tl.iter().all(|(k, v)| p.label(k) == v.as_str())))
        .count();
    let (mut ready, mut available) = (0, 0);
    for pod in &active {
        let (r, a) = readiness(*pod, min_ready, now);
        ready += usize::from(r);
        available += usize::from(a);
    }
    let mut status = serde_json::Map::new();
    status.insert("replicas".into(), json!(active.len()));
    if fully > 0 {
        status.insert("fullyLabeledReplicas".into(), json!(fully));
    }
    if ready > 0 {
        status.insert("readyReplicas".into(), json!(ready));
    }
    if available > 0 {
        status.insert("availableReplicas".into(), json!(available));
    }
    status.insert("observedGeneration".into(), json!(rs.generation()));
    let mut conditions: Vec<Value> =
        rs.pointer("/status/conditions").and_then(Value::as_array).cloned().unwrap_or_default();
    let has_failure = conditions.iter().any(|c| c["type"] == "ReplicaFailure");
    match err {
        Some(e) if !has_failure => {
            let reason = if grew { "FailedCreate" } else { "FailedDelete" };
            conditions.push(json!({"type": "ReplicaFailure", "status": "True",
                "lastTransitionTime": now.rfc3339(), "reason": reason, "message": e}));
        }
        None if has_failure => conditions.retain(|c| c["type"] != "ReplicaFailure"),
        _ => {}
    }
    if !conditions.is_empty() {
        status.insert("conditions".into(), Value::Array(conditions));
    }
    Value::Object(status)
}

/// The status fields `updateReplicaSetStatus` compares.
fn same_status(a: Option<&Value>, b: &Value) -> bool {
    let Some(a) = a else { return false };
    ["replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration", "conditions"]
        .iter()
        .all(|f| a.get(*f).filter(|v| !matches!(v, Value::Number(n) if n.as_i64() == Some(0))) == b.get(*f))
}

impl Controller for ReplicaSetController {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static W: std::sync::OnceLock<[&'static Kind; 2]> = std::sync::OnceLock::new();
        W.get_or_init(|| [kind("ReplicaSet"), kind("Pod")])
    }

    fn handle(&mut self, k: &'static Kind, n: &ResourceEvent, cache: &Caches, _now: Time) -> Vec<Enqueue> {
        match k.kind {
            "ReplicaSet" => {
                match n {
                    // deleteRS: the expectations go with the ReplicaSet.
                    ResourceEvent::Delete { obj, .. } => {
                        self.expectations.remove(&obj.key());
                    }
                    // updateRS: a new uid under the same key is a delete and re-create that fell
                    // in a gap; it is handled as `deleteRS` of a tombstone of the old one.
                    ResourceEvent::Update(old, new) if old.uid() != new.uid() => {
                        self.expectations.remove(&old.key());
                    }
                    _ => {}
                }
                // updateRS enqueues on every update, an unchanged object included: "a full
                // informer resync can requeue any replica sets that don't yet have pods but
                // whose last attempts at creating a pod have failed ... instead of those replica
                // sets stalling indefinitely" (replica_set.go). A relist's `OnUpdate(x, x)` does
                // the same.
                vec![Enqueue::Now(n.object().key())]
            }
            "Pod" => self.pod_event(n, cache),
            _ => Vec::new(),
        }
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        // The cache outlives this call: the ReplicaSet's selector and the pods are read in place,
        // not copied (a sync is O(pods), and it asks the selector and the uid of every pod).
        let cache: &Caches = ctx.cache;
        let Some(cached) = cache.get(kind("ReplicaSet"), key) else {
            self.expectations.remove(key);
            return Outcome::Done;
        };
        let rs = cached.to_value();
        let needs_sync = self.satisfied_expectations(key, ctx.now);
        let ns = rs.namespace().unwrap_or("default").to_string();
        let selector = cached.pointer("/spec/selector");
        let rs_uid = cached.uid();
        let mut active: Vec<Cow<'_, Frozen>> = Vec::new();
        // claimPods: keep owned pods that match, adopt matching orphans, release owned non-matching.
        for pod in cache.list(kind("Pod"), &ns).filter(|p| is_pod_active(*p)) {
            let matches = selector_matches(selector, pod.pointer("/metadata/labels"));
            match pod.controller_uid() {
                Some(uid) if uid == rs_uid => {
                    if matches {
                        active.push(Cow::Borrowed(pod));
                    } else if !rs.is_deleting() {
                        // ClaimObject: an owner being deleted releases nothing.
                        let refs: Vec<Value> = pod
                            .owner_references()
                            .into_iter()
                            .filter(|o| o.uid != rs_uid)
                            .filter_map(|o| serde_json::to_value(o).ok())
                            .collect();
                        let patch = json!({"metadata": {"ownerReferences": if refs.is_empty() { Value::Null } else { Value::Array(refs) }}});
                        let _ = ctx.api.merge_patch(kind("Pod"), Some(&ns), pod.name(), patch);
                    }
                }
                Some(_) => {}
                None if matches && !rs.is_deleting() => {
                    let mut refs: Vec<Value> =
                        pod.owner_references().into_iter().filter_map(|o| serde_json::to_value(o).ok()).collect();
                    refs.push(serde_json::to_value(OwnerReference::controller_ref(&rs)).unwrap_or(Value::Null));
                    let patch = json!({"metadata": {"ownerReferences": refs}});
                    if let Ok(p) = ctx.api.merge_patch(kind("Pod"), Some(&ns), pod.name(), patch) {
                        active.push(Cow::Owned(Frozen::from(p)));
                    }
                }
                None => {}
            }
        }
        let grew = (active.len() as i64) < spec_replicas(&rs);
        let err = if needs_sync && !rs.is_deleting() { self.manage_replicas(&rs, key, &active, ctx) } else { None };
        let new_status = calculate_status(&rs, &active, err.as_deref(), grew, ctx.now);
        let counted = |field: &str| new_status.get(field).and_then(Value::as_u64).unwrap_or(0);
        let (ready, available) = (counted("readyReplicas"), counted("availableReplicas"));
        if !same_status(rs.get("status"), &new_status) {
            let mut copy = rs.clone();
            copy["status"] = new_status.clone();
            if ctx.api.update_status(copy).is_err() {
                // statusUpdateRetries = 1: one fresh GET and one more try; if that fails too the
                // sync returns the error (and the key is retried with back-off).
                let retried = ctx.api.get(kind("ReplicaSet"), Some(&ns), rs.name()).and_then(|mut fresh| {
                    fresh["status"] = new_status;
                    ctx.api.update_status(fresh)
                });
                if let Err(e) = retried {
                    return Outcome::Err(e.message);
                }
            }
        }
        if let Some(e) = err {
            return Outcome::Err(e);
        }
        // Ready pods not yet available: look again once minReadySeconds have passed.
        let min_ready = int_at(&rs, "/spec/minReadySeconds");
        if min_ready > 0 && ready != available {
            return Outcome::RequeueAfter(Duration::from_secs(min_ready as u64));
        }
        Outcome::Done
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(ReplicaSetController::new())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// True when the pod is controlled by this ReplicaSet (for tests and views).
pub fn owns(rs: &Value, pod: &Value) -> bool {
    is_controlled_by(pod, rs.uid())
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeApi;
    use super::*;
    use crate::engine::object::share;

    fn rs(replicas: i64) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-abc", "namespace": "default", "uid": "rs-uid", "resourceVersion": "1", "generation": 1},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    }

    fn caches(objs: &[Value]) -> Caches {
        let mut c = Caches::default();
        for o in objs {
            c.insert(o.clone());
        }
        c
    }

    fn run(c: &mut ReplicaSetController, cache: &Caches, api: &mut FakeApi, now: Time) -> Outcome {
        let mut seq = 0;
        let mut ctx = Ctx { now, cache, api, event_seq: &mut seq };
        c.reconcile("default/web-abc", &mut ctx)
    }

    #[test]
    fn slow_start_batches_double_and_stop_at_first_failure() {
        let mut calls = Vec::new();
        let (ok, err) = slow_start_batch(10, 1, |i| {
            calls.push(i);
            if i == 4 {
                Err("boom".into())
            } else {
                Ok(())
            }
        });
        // batches 1, 2, 4: the third batch (calls 3..7) holds the failure, so nothing after it runs.
        assert_eq!(calls, vec![0, 1, 2, 3, 4, 5, 6]);
        assert_eq!((ok, err.as_deref()), (6, Some("boom")));
    }

    /// Expectations (`controller_utils.go`, `SatisfiedExpectations`): after issuing 3 creates,
    /// further syncs create nothing until the informer has delivered the 3 pod ADD events.
    #[test]
    fn tv38_expectations_prevent_double_creation() {
        let mut c = ReplicaSetController::new();
        let mut api = FakeApi::default();
        let cache = caches(&[rs(3)]);
        run(&mut c, &cache, &mut api, Time::START);
        let creates = |api: &FakeApi| api.calls.iter().filter(|c| c.starts_with("create Pod")).count();
        assert_eq!(creates(&api), 3);
        assert_eq!(c.expectations["default/web-abc"].add, 3);
        run(&mut c, &cache, &mut api, Time::START);
        assert_eq!(creates(&api), 3, "no pod created while expectations are unmet");
        // The informer delivers the ADDs.
        let pods: Vec<Value> = api.objects.values().filter(|o| o.kind() == "Pod").cloned().collect();
        let mut with_pods = cache.clone();
        for p in &pods {
            with_pods.insert(p.clone());
        }
        for p in &pods {
            let keys = c.handle(Kind::by_kind("Pod").unwrap(), &ResourceEvent::Add(share(p)), &with_pods, Time::START);
            assert_eq!(keys, vec![Enqueue::Now("default/web-abc".into())]);
        }
        assert!(c.satisfied_expectations("default/web-abc", Time::START));
        run(&mut c, &with_pods, &mut api, Time::START);
        assert_eq!(creates(&api), 3);
        assert_eq!(
            api.events(),
            pods.iter().map(|p| format!("SuccessfulCreate Created pod: {}", p.name())).collect::<Vec<_>>()
        );
    }

    /// replica_set.go `updateRS`: every update enqueues, an unchanged object of a resync or a
    /// relist included (how a ReplicaSet whose expectations wait on a missed Pod event syncs
    /// again once they expire); a new uid under the same key drops the old one's expectations.
    #[test]
    fn every_replica_set_update_enqueues_and_a_new_uid_drops_expectations() {
        let mut c = ReplicaSetController::new();
        let mut api = FakeApi::default();
        let cache = caches(&[rs(2)]);
        run(&mut c, &cache, &mut api, Time::START);
        assert_eq!(c.expectations["default/web-abc"].add, 2);
        let k = Kind::by_kind("ReplicaSet").unwrap();
        let key = vec![Enqueue::Now("default/web-abc".into())];
        let unchanged = ResourceEvent::Update(share(rs(2)), share(rs(2)));
        assert_eq!(c.handle(k, &unchanged, &cache, Time::START), key);
        assert_eq!(c.expectations["default/web-abc"].add, 2, "an unchanged object keeps the expectations");
        let mut recreated = rs(2);
        recreated["metadata"]["uid"] = json!("rs-uid-2");
        let n = ResourceEvent::Update(share(rs(2)), share(&recreated));
        assert_eq!(c.handle(k, &n, &cache, Time::START), key);
        assert!(!c.expectations.contains_key("default/web-abc"));
    }

    /// `controller_utils.go` `ActivePodsWithRanks.Less`: p1 Pending, p2 Running+Ready for 2h, p3
    /// Running+Ready for 10s; scale 3→1 deletes p1 and p3.
    #[test]
    fn tv37_scale_down_victims() {
        let now = Time::START.after(Duration::from_secs(3 * 3600));
        let pod = |name: &str, phase: &str, ready_secs: Option<u64>| {
            let mut p = json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "uid": name, "labels": {"app": "web"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "rs-uid", "controller": true}]},
                "spec": {"nodeName": "node-1"}, "status": {"phase": phase}});
            if let Some(s) = ready_secs {
                let t = Time(now.millis() - s * 1000);
                p["status"]["conditions"] =
                    json!([{"type": "Ready", "status": "True", "lastTransitionTime": t.rfc3339()}]);
            }
            p
        };
        let pods = [pod("p1", "Pending", None), pod("p2", "Running", Some(7200)), pod("p3", "Running", Some(10))]
            .map(Frozen::from);
        let victims: Vec<String> = pods_to_delete(&pods, &[], 2, now).iter().map(|p| p.name().to_string()).collect();
        assert_eq!(victims, vec!["p1", "p3"]);
        let mut objs = vec![rs(1)];
        objs.extend(pods.iter().map(Frozen::to_value));
        let mut api = FakeApi::default();
        for p in &pods {
            api.put(p.to_value());
        }
        let mut c = ReplicaSetController::new();
        run(&mut c, &caches(&objs), &mut api, now);
        assert_eq!(api.calls[..2], ["delete Pod p1", "delete Pod p3"]);
        assert!(api.events().contains(&"SuccessfulDelete Deleted pod: p3".to_string()));
    }

    fn ready_pod(name: &str, rs: &str, node: &str, ready_secs_ago: u64, created_secs_ago: u64, now: Time) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": name, "labels": {"app": "web", "rs": rs},
                "creationTimestamp": Time(now.millis() - created_secs_ago * 1000).rfc3339(),
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "uid": rs, "controller": true}]},
            "spec": {"nodeName": node},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True",
                "lastTransitionTime": Time(now.millis() - ready_secs_ago * 1000).rfc3339()}]}})
    }

    /// ActivePodsWithRanks.Less step 4: a lower pod-deletion-cost goes first, before co-location
    /// and readiness age are looked at.
    #[test]
    fn pod_deletion_cost_ranks_before_age() {
        let now = Time::START.after(Duration::from_secs(3 * 3600));
        let mut cheap = ready_pod("old", "web-abc", "node-1", 7200, 7200, now);
        cheap["metadata"]["annotations"] = json!({POD_DELETION_COST: "-5"});
        let mut dear = ready_pod("young", "web-abc", "node-1", 10, 10, now);
        dear["metadata"]["annotations"] = json!({POD_DELETION_COST: "100"});
        let pods = [cheap, dear].map(Frozen::from);
        let victims: Vec<String> = pods_to_delete(&pods, &[], 1, now).iter().map(|p| p.name().to_string()).collect();
        assert_eq!(victims, vec!["old"]);
    }

    /// Step 6 with LogarithmicScaleDown: two pods ready 100 s and 120 s ago share a power-of-two
    /// bucket, so the lower UID goes, whatever their creation times.
    #[test]
    fn a_tie_in_the_ready_bucket_goes_to_the_lower_uid() {
        let now = Time::START.after(Duration::from_secs(3 * 3600));
        let pods =
            [ready_pod("a", "web-abc", "node-1", 120, 120, now), ready_pod("b", "web-abc", "node-1", 100, 100, now)]
                .map(Frozen::from);
        let victims: Vec<String> = pods_to_delete(&pods, &[], 1, now).iter().map(|p| p.name().to_string()).collect();
        assert_eq!(victims, vec!["a"]);
    }

    /// getIndirectlyRelatedPods: the co-location rank counts the pods of every ReplicaSet of the
    /// same Deployment, so the new ReplicaSet gives up its pod on the node the old one crowds.
    #[test]
    fn co_location_counts_the_deployments_other_replica_sets() {
        let now = Time::START.after(Duration::from_secs(3 * 3600));
        let owned = |name: &str, hash: &str, replicas: i64| {
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": name, "namespace": "default", "uid": name, "resourceVersion": "1", "generation": 1,
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d-uid", "controller": true}]},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web", "rs": hash}},
                    "template": {"metadata": {"labels": {"app": "web", "rs": hash}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        };
        let objs = vec![
            owned("web-new", "web-new", 1),
            owned("web-old", "web-old", 2),
            // Same readiness and age, so only the rank can decide ("a-2" has the lower uid).
            ready_pod("a-2", "web-new", "node-2", 100, 100, now),
            ready_pod("b-1", "web-new", "node-1", 100, 100, now),
            ready_pod("old-1", "web-old", "node-1", 900, 900, now),
            ready_pod("old-2", "web-old", "node-1", 900, 900, now),
        ];
        let mut api = FakeApi::default();
        for o in &objs {
            api.put(o.clone());
        }
        let cache = caches(&objs);
        let mut c = ReplicaSetController::new();
        let mut seq = 0;
        let mut ctx = Ctx { now, cache: &cache, api: &mut api, event_seq: &mut seq };
        c.reconcile("default/web-new", &mut ctx);
        assert_eq!(api.calls[0], "delete Pod b-1");
    }

    /// ClaimObject: a ReplicaSet being deleted keeps its matching pods, releases nothing and adopts
    /// nothing.
    #[test]
    fn an_owner_being_deleted_releases_nothing() {
        let mut owner = rs(1);
        owner["metadata"]["deletionTimestamp"] = json!(Time::START.rfc3339());
        owner["metadata"]["finalizers"] = json!(["foregroundDeletion"]);
        let strayed = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "s", "namespace": "default", "uid": "s", "labels": {"app": "other"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "rs-uid", "controller": true}]},
            "status": {"phase": "Running"}});
        let mut api = FakeApi::default();
        api.put(strayed.clone());
        let mut c = ReplicaSetController::new();
        run(&mut c, &caches(&[owner.clone(), strayed]), &mut api, Time::START);
        assert!(!api.calls.iter().any(|c| c.starts_with("patch")), "{:?}", api.calls);
        // Nor does it adopt a matching orphan (adopts_matching_orphans: a live one does).
        let orphan = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "o", "namespace": "default", "uid": "o", "labels": {"app": "web"}}, "status": {"phase": "Running"}});
        let mut api = FakeApi::default();
        api.put(orphan.clone());
        run(&mut c, &caches(&[owner, orphan]), &mut api, Time::START);
        assert!(!api.calls.iter().any(|c| c.starts_with("patch")), "{:?}", api.calls);
    }

    /// `controller_utils.go` `FilterActivePods`: a terminating pod is not active, so it is replaced
    /// at once and status drops to 2.
    #[test]
    fn tv36_terminating_pod_is_replaced() {
        let pod = |name: &str, deleting: bool| {
            let mut p = json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "uid": name, "labels": {"app": "web"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "rs-uid", "controller": true}]},
                "status": {"phase": "Running"}});
            if deleting {
                p["metadata"]["deletionTimestamp"] = json!(Time::START.rfc3339());
            }
            p
        };
        let objs = [rs(3), pod("a", false), pod("b", false), pod("c", true)];
        let mut api = FakeApi::default();
        let mut c = ReplicaSetController::new();
        run(&mut c, &caches(&objs), &mut api, Time::START);
        assert_eq!(api.calls.iter().filter(|c| c.starts_with("create Pod")).count(), 1);
        let status = api.objects.values().find(|o| o.kind() == "ReplicaSet").map(|r| r["status"].clone());
        assert_eq!(status.as_ref().and_then(|s| s["replicas"].as_i64()), Some(2));
        assert_eq!(status.as_ref().and_then(|s| s["observedGeneration"].as_i64()), Some(1));
    }

    #[test]
    fn failed_creates_lower_expectations_and_fail_the_sync() {
        let mut c = ReplicaSetController::new();
        let mut api = FakeApi { fail_all: true, ..FakeApi::default() };
        let out = run(&mut c, &caches(&[rs(4)]), &mut api, Time::START);
        // The status write fails too (its error is the one returned, as upstream does).
        assert!(matches!(out, Outcome::Err(_)), "{out:?}");
        // The first batch (1 pod) failed: the failed and the 3 skipped creations are not expected,
        // so the next sync (after back-off) tries again.
        assert_eq!(api.calls.len(), 0);
        assert_eq!(c.expectations["default/web-abc"].add, 0);
        assert!(c.satisfied_expectations("default/web-abc", Time::START));
    }

    #[test]
    fn adopts_matching_orphans() {
        let orphan = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "o", "namespace": "default", "uid": "o", "labels": {"app": "web"}}, "status": {"phase": "Running"}});
        let mut api = FakeApi::default();
        api.put(orphan.clone());
        let mut c = ReplicaSetController::new();
        run(&mut c, &caches(&[rs(1), orphan]), &mut api, Time::START);
        assert_eq!(api.calls, vec!["patch Pod o", "update_status ReplicaSet web-abc"]);
        let adopted = api.objects.values().find(|o| o.name() == "o").unwrap();
        assert_eq!(adopted.controller_ref().map(|r| r.uid), Some("rs-uid".to_string()));
    }
}
