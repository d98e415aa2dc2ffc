//! The Bucket controller: the operator for `buckets.example.com`, the lab's custom resource for a
//! storage bucket in the external cloud ([`crate::engine::cloud`]). It is written the way
//! controller-runtime operators are, finalizer first (apiserver
//! `pkg/registry/generic/registry/store.go`, `Delete`, keeps an object with finalizers until they
//! are removed):
//!
//! 1. A `Bucket` without a `deletionTimestamp` and without the finalizer `example.com/bucket` gets
//!    it (a merge patch with the resourceVersion as precondition), before anything exists outside
//!    the cluster: from then on the object cannot disappear before the controller cleans up.
//! 2. The external bucket (named `<namespace>-<name>`, tagged with the object's uid) is created if
//!    missing; while the cloud is still creating it the controller looks again every
//!    [`POLL_INTERVAL`]. A change of `spec.versioning` is applied to it; a change of `spec.region`
//!    cannot be (a bucket does not move) and is reported as `RegionImmutable`.
//! 3. Status is written through `/status` only when it changes: `observedGeneration`, `url` and a
//!    `Ready` condition (`metav1.Condition`: type, status, observedGeneration, lastTransitionTime,
//!    reason, message; the time moves only when the status flips).
//! 4. A `Bucket` with a `deletionTimestamp`: delete the external bucket, wait until the cloud says
//!    it is gone, then remove the finalizer, which lets the API server delete the object.
//!
//! Cloud errors are written to the `Ready` condition and retried with the queue's back-off.
//!
//! **A buggy build** ([`BucketController::records_resource_version`], switched on by
//! `lab buggy-operator on`): it also records in status the `metadata.resourceVersion` it
//! reconciled (`status.observedResourceVersion`), a mistake real operators make when they mean
//! `observedGeneration` (Kubernetes' API conventions: `observedGeneration` follows
//! `metadata.generation`, which a status write leaves alone; every write changes the
//! resourceVersion). Each status write then changes the very resourceVersion it just recorded;
//! its watch event queues the Bucket again (like controller-runtime's `For(&Bucket{})` without
//! `predicate.GenerationChangedPredicate`, this handler queues every update), the next reconcile
//! finds the recorded version stale and writes again: a hot loop that never settles.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

use super::{Caches, Controller, Ctx, Enqueue, Outcome, ResourceEvent};
use crate::engine::cloud::{CloudBucket, CloudBucketState, CloudCall, CloudError};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

/// The controller's finalizer.
pub const FINALIZER: &str = "example.com/bucket";
/// How often a bucket that the cloud is still creating or deleting is looked at again.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);
/// The Event source component.
pub const COMPONENT: &str = "bucket-controller";

fn bucket_kind() -> &'static Kind {
    Kind::by_kind("Bucket").expect("built-in kind")
}

/// The name of the external bucket for a `Bucket` object.
pub fn external_name(obj: &Value) -> String {
    format!("{}-{}", obj.namespace().unwrap_or("default"), obj.name())
}

/// The Bucket controller. It keeps nothing between reconciles: the cloud and the API server hold
/// all the state.
#[derive(Clone, Debug, Default)]
pub struct BucketController {
    /// The buggy build: status also records the resourceVersion reconciled (see the module
    /// documentation). Which build is deployed outlives a restart of the process.
    pub records_resource_version: bool,
}

impl BucketController {
    /// A Bucket controller.
    pub fn new() -> BucketController {
        BucketController::default()
    }
}

/// The `Ready` condition to write: (status, reason, message).
fn ready(status: &'static str, reason: &'static str, message: String) -> (&'static str, &'static str, String) {
    (status, reason, message)
}

/// Writes `status` (observedGeneration, url, Ready) if it differs from what the object has.
/// Returns the error message of a failed write.
fn write_status(
    obj: &Value,
    url: Option<String>,
    cond: (&'static str, &'static str, String),
    ctx: &mut Ctx<'_>,
) -> Result<(), String> {
    write_status_with(obj, url, cond, false, ctx)
}

/// [`write_status`], also recording the resourceVersion reconciled when `record_rv` (the buggy
/// build).
fn write_status_with(
    obj: &Value,
    url: Option<String>,
    cond: (&'static str, &'static str, String),
    record_rv: bool,
    ctx: &mut Ctx<'_>,
) -> Result<(), String> {
    let (status, reason, message) = cond;
    let generation = obj.generation();
    let old = obj.get("status").cloned().unwrap_or_else(|| json!({}));
    let old_ready = old
        .get("conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c.get("type").and_then(Value::as_str) == Some("Ready")));
    let ltt = match old_ready {
        Some(c) if c.get("status").and_then(Value::as_str) == Some(status) => {
            c.get("lastTransitionTime").cloned().unwrap_or_else(|| json!(ctx.now.rfc3339()))
        }
        _ => json!(ctx.now.rfc3339()),
    };
    let mut new_status = json!({"observedGeneration": generation});
    if record_rv {
        new_status["observedResourceVersion"] = json!(obj.resource_version().to_string());
    }
    if let Some(url) = url.or_else(|| old.get("url").and_then(Value::as_str).map(String::from)) {
        new_status["url"] = json!(url);
    }
    new_status["conditions"] = json!([{
        "type": "Ready",
        "status": status,
        "observedGeneration": generation,
        "lastTransitionTime": ltt,
        "reason": reason,
        "message": message,
    }]);
    if old == new_status {
        return Ok(());
    }
    let mut new = obj.clone();
    new["status"] = new_status;
    ctx.api.update_status(new).map(|_| ()).map_err(|e| e.message)
}

fn cloud_error_condition(e: &CloudError) -> (&'static str, &'static str, String) {
    ready("False", "CloudError", format!("the cloud refused the request: {e}"))
}

impl BucketController {
    fn finalize(&self, obj: &Value, ctx: &mut Ctx<'_>) -> Outcome {
        if !obj.has_finalizer(FINALIZER) {
            return Outcome::Done;
        }
        let name = external_name(obj);
        match ctx.api.cloud(CloudCall::Delete { name: name.clone() }) {
            Err(CloudError::NotFound(_)) => {}
            Err(e) => {
                let msg = e.to_string();
                let _ = write_status(obj, None, cloud_error_condition(&e), ctx);
                return Outcome::Err(msg);
            }
            Ok(b) if b.owner_uid != obj.uid() => {
                // Someone else's bucket under our name: not ours to delete.
            }
            Ok(b) => {
                let msg = format!("Deleting bucket {} in {}", b.name, b.region);
                if let Err(e) = write_status(obj, None, ready("False", "Deleting", msg), ctx) {
                    return Outcome::Err(e);
                }
                return Outcome::RequeueAfter(POLL_INTERVAL);
            }
        }
        let rest: Vec<&str> = obj.finalizers().into_iter().filter(|f| *f != FINALIZER).collect();
        let fins = if rest.is_empty() { Value::Null } else { json!(rest) };
        let patch = json!({"metadata": {"finalizers": fins, "resourceVersion": obj.resource_version().to_string()}});
        match ctx.api.merge_patch(bucket_kind(), obj.namespace(), obj.name(), patch) {
            Ok(_) => {
                ctx.event(COMPONENT, obj, "Normal", "Deleted", &format!("Deleted bucket {name}"));
                Outcome::Done
            }
            Err(e) if e.code() == 404 => Outcome::Done,
            Err(e) => Outcome::Err(e.message),
        }
    }

    fn ensure(&self, obj: &Value, ctx: &mut Ctx<'_>) -> Outcome {
        let name = external_name(obj);
        let region = obj.pointer("/spec/region").and_then(Value::as_str).unwrap_or("us-east-1").to_string();
        let versioning = obj.pointer("/spec/versioning").and_then(Value::as_bool).unwrap_or(false);
        let found = match ctx.api.cloud(CloudCall::Get { name: name.clone() }) {
            Ok(b) => Ok(b),
            Err(CloudError::NotFound(_)) => {
                let call = CloudCall::Create {
                    name: name.clone(),
                    region: region.clone(),
                    versioning,
                    owner_uid: obj.uid().to_string(),
                };
                let r = ctx.api.cloud(call);
                if r.is_ok() {
                    ctx.event(COMPONENT, obj, "Normal", "Creating", &format!("Creating bucket {name} in {region}"));
                }
                r
            }
            Err(e) => Err(e),
        };
        let b: CloudBucket = match found {
            Ok(b) => b,
            Err(e) => {
                let msg = e.to_string();
                if let Err(w) = write_status(obj, None, cloud_error_condition(&e), ctx) {
                    return Outcome::Err(w);
                }
                return Outcome::Err(msg);
            }
        };
        if b.owner_uid != obj.uid() {
            let e = CloudError::AlreadyExists(name);
            let msg = e.to_string();
            let _ = write_status(obj, None, ready("False", "NameTaken", msg.clone()), ctx);
            return Outcome::Err(msg);
        }
        match b.state {
            CloudBucketState::Creating => {
                let msg = format!("Creating bucket {} in {}", b.name, b.region);
                match write_status(obj, None, ready("False", "Creating", msg), ctx) {
                    Ok(()) => Outcome::RequeueAfter(POLL_INTERVAL),
                    Err(e) => Outcome::Err(e),
                }
            }
            CloudBucketState::Deleting => {
                // Our own bucket, deleting while its object is not: wait for it to go, then recreate.
                let msg = format!("Bucket {} is being deleted in the cloud", b.name);
                match write_status(obj, None, ready("False", "Deleting", msg), ctx) {
                    Ok(()) => Outcome::RequeueAfter(POLL_INTERVAL),
                    Err(e) => Outcome::Err(e),
                }
            }
            CloudBucketState::Ready if b.region != region => {
                // A bucket cannot move: report it and wait for the spec to be put back.
                let msg = format!("spec.region cannot change from {} to {region} once the bucket exists", b.region);
                match write_status(obj, Some(b.url()), ready("False", "RegionImmutable", msg), ctx) {
                    Ok(()) => Outcome::Done,
                    Err(e) => Outcome::Err(e),
                }
            }
            CloudBucketState::Ready => {
                if b.versioning != versioning {
                    if let Err(e) = ctx.api.cloud(CloudCall::PutVersioning { name: b.name.clone(), versioning }) {
                        let msg = e.to_string();
                        let _ = write_status(obj, None, cloud_error_condition(&e), ctx);
                        return Outcome::Err(msg);
                    }
                    let state = if versioning { "Enabled" } else { "Suspended" };
                    ctx.event(
                        COMPONENT,
                        obj,
                        "Normal",
                        "Updated",
                        &format!("Versioning of bucket {} set to {state}", b.name),
                    );
                }
                let msg = format!("Bucket {} is ready in {}", b.name, b.region);
                let cond = ready("True", "Available", msg);
                match write_status_with(obj, Some(b.url()), cond, self.records_resource_version, ctx) {
                    Ok(()) => Outcome::Done,
                    Err(e) => Outcome::Err(e),
                }
            }
        }
    }
}

impl Controller for BucketController {
    fn name(&self) -> &'static str {
        "bucket-controller"
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static WATCHES: OnceLock<[&'static Kind; 1]> = OnceLock::new();
        WATCHES.get_or_init(|| [bucket_kind()])
    }

    fn handle(&mut self, _kind: &'static Kind, n: &ResourceEvent, _cache: &Caches, _now: Time) -> Vec<Enqueue> {
        match n {
            ResourceEvent::Update(old, new) if old.resource_version() == new.resource_version() => Vec::new(),
            // A deleted object needs nothing: its finalizer kept it until the cleanup was done.
            ResourceEvent::Delete { .. } => Vec::new(),
            _ => vec![Enqueue::Now(n.object().key())],
        }
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        let Some(obj) = ctx.cache.get(bucket_kind(), key).map(Frozen::to_value) else {
            return Outcome::Done;
        };
        if obj.is_deleting() {
            return self.finalize(&obj, ctx);
        }
        if !obj.has_finalizer(FINALIZER) {
            let mut fins: Vec<&str> = obj.finalizers();
            fins.push(FINALIZER);
            let patch =
                json!({"metadata": {"finalizers": fins, "resourceVersion": obj.resource_version().to_string()}});
            // The MODIFIED event of this write brings the key back.
            return match ctx.api.merge_patch(bucket_kind(), obj.namespace(), obj.name(), patch) {
                Ok(_) => Outcome::Done,
                Err(e) if e.code() == 404 => Outcome::Done,
                Err(e) => Outcome::Err(e.message),
            };
        }
        self.ensure(&obj, ctx)
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(BucketController { records_resource_version: self.records_resource_version })
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
