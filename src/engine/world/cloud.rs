//! The external cloud: a storage service *outside* the cluster, where the Bucket controller keeps
//! the real buckets that `Bucket` objects (group `example.com`) stand for.
//!
//! It is the reason finalizers exist (kubernetes-semantics.md §5): the API server can delete a
//! `Bucket` object in a microsecond, but the bucket it stands for lives here, and only a
//! controller that runs before the object disappears can delete it. Remove the finalizer by hand
//! and the object goes while its bucket stays: [`Cloud::leaked`] reports such buckets.
//!
//! The cloud is deliberately unlike the API server, as real provider APIs are:
//! - operations take time: a create answers at once with a bucket in state `Creating` that becomes
//!   `Ready` after [`Cloud::latency`]; a delete leaves it `Deleting` for as long;
//! - it can be made to fail ([`CloudFault::Failing`]: every call answers 503) or to hang
//!   ([`CloudFault::Hanging`]: calls are accepted but no operation ever completes, until the fault
//!   ends, when every stalled operation restarts its clock);
//! - states are computed from the virtual clock when asked, so the cloud needs no timers of its own.
//!
//! Invariant: a bucket's `done_at` is `Some` whenever its state is `Creating` or `Deleting` and
//! the cloud is not hanging, and `None` when it is `Ready`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use serde_json::Value;

use super::api::WorldApi;
use super::record::ApiCall;
use crate::engine::controllers::{Api, DeleteOpts};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::status::Status;
use crate::engine::time::Time;

/// How long a create or a delete takes by default.
pub const DEFAULT_LATENCY: Duration = Duration::from_secs(3);

/// The lifecycle of an external bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CloudBucketState {
    /// The create operation is in progress.
    Creating,
    /// The bucket exists and serves requests.
    Ready,
    /// The delete operation is in progress.
    Deleting,
}

impl CloudBucketState {
    /// `Creating`, `Ready`, `Deleting`.
    pub fn as_str(self) -> &'static str {
        match self {
            CloudBucketState::Creating => "Creating",
            CloudBucketState::Ready => "Ready",
            CloudBucketState::Deleting => "Deleting",
        }
    }
}

/// A fault of the whole cloud.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloudFault {
    /// Every call fails with 503.
    Failing,
    /// Calls succeed but operations never complete.
    Hanging,
}

/// One call to the cloud's storage API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloudCall {
    /// Describe a bucket.
    Get { name: String },
    /// Create a bucket, tagged with the uid of the `Bucket` object it stands for. Creating a
    /// bucket that already exists with the same tag answers the existing bucket (idempotent).
    Create { name: String, region: String, versioning: bool, owner_uid: String },
    /// Turn versioning on or off.
    PutVersioning { name: String, versioning: bool },
    /// Start deleting a bucket (idempotent while it is deleting).
    Delete { name: String },
}

impl CloudCall {
    /// `GetBucket`, `CreateBucket`, `PutBucketVersioning`, `DeleteBucket`.
    pub fn verb(&self) -> &'static str {
        match self {
            CloudCall::Get { .. } => "GetBucket",
            CloudCall::Create { .. } => "CreateBucket",
            CloudCall::PutVersioning { .. } => "PutBucketVersioning",
            CloudCall::Delete { .. } => "DeleteBucket",
        }
    }

    /// The bucket the call is about.
    pub fn bucket(&self) -> &str {
        match self {
            CloudCall::Get { name }
            | CloudCall::Create { name, .. }
            | CloudCall::PutVersioning { name, .. }
            | CloudCall::Delete { name } => name,
        }
    }
}

/// What the cloud says about a bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CloudBucket {
    /// The bucket's name in the cloud.
    pub name: String,
    /// Where it lives.
    pub region: String,
    /// Whether object versioning is on.
    pub versioning: bool,
    /// Its lifecycle state.
    pub state: CloudBucketState,
    /// The uid of the `Bucket` object that created it (the cloud's tag).
    pub owner_uid: String,
    /// When it was created.
    pub created: Time,
}

impl CloudBucket {
    /// The bucket's endpoint, as a provider would print it.
    pub fn url(&self) -> String {
        format!("https://{}.{}.storage.example.com", self.name, self.region)
    }
}

/// Why a cloud call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloudError {
    /// The caller cannot reach the cloud at all.
    Unreachable,
    /// 503: the cloud is failing ([`CloudFault::Failing`]).
    Unavailable,
    /// 404: no such bucket.
    NotFound(String),
    /// 409: the name is taken by a bucket tagged for another object.
    AlreadyExists(String),
    /// 409: the bucket is being deleted and cannot change.
    Deleting(String),
}

impl fmt::Display for CloudError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloudError::Unreachable => f.write_str("dial tcp: lookup storage.example.com: no such host"),
            CloudError::Unavailable => {
                f.write_str("ServiceUnavailable (503): the storage service is temporarily unavailable; retry later")
            }
            CloudError::NotFound(n) => write!(f, "NoSuchBucket (404): the bucket {n} does not exist"),
            CloudError::AlreadyExists(n) => write!(
                f,
                "BucketAlreadyExists (409): the bucket name {n} is already taken by a bucket of another owner"
            ),
            CloudError::Deleting(n) => write!(f, "OperationAborted (409): the bucket {n} is being deleted"),
        }
    }
}

impl std::error::Error for CloudError {}

/// One bucket as the cloud stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stored {
    bucket: CloudBucket,
    /// When the operation in progress (create or delete) completes; `None` when none is, or the
    /// cloud hangs.
    done_at: Option<Time>,
}

/// The external cloud. Cheap to clone (the world snapshots it for "step back").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cloud {
    buckets: BTreeMap<String, Stored>,
    /// How long creates and deletes take.
    pub latency: Duration,
    fault: Option<CloudFault>,
    /// Calls answered so far (successful or not), for the page's counters.
    pub calls: u64,
}

impl Default for Cloud {
    fn default() -> Self {
        Cloud::new()
    }
}

impl Cloud {
    /// An empty cloud with [`DEFAULT_LATENCY`].
    pub fn new() -> Cloud {
        Cloud { buckets: BTreeMap::new(), latency: DEFAULT_LATENCY, fault: None, calls: 0 }
    }

    /// The current fault, if any.
    pub fn fault(&self) -> Option<CloudFault> {
        self.fault
    }

    /// Starts or ends a fault at `now`. Ending a hang (or switching from it) restarts every stalled
    /// operation, which then completes after [`Cloud::latency`]; starting one stalls them all.
    pub fn set_fault(&mut self, fault: Option<CloudFault>, now: Time) {
        self.settle(now);
        let latency = self.latency;
        for s in self.buckets.values_mut() {
            if s.bucket.state == CloudBucketState::Ready {
                continue;
            }
            s.done_at = if fault == Some(CloudFault::Hanging) { None } else { s.done_at.or(Some(now.after(latency))) };
        }
        self.fault = fault;
    }

    /// Completes every operation due by `now`.
    fn settle(&mut self, now: Time) {
        let mut gone = Vec::new();
        for (name, s) in &mut self.buckets {
            if s.done_at.is_some_and(|t| t <= now) {
                match s.bucket.state {
                    CloudBucketState::Creating => {
                        s.bucket.state = CloudBucketState::Ready;
                        s.done_at = None;
                    }
                    CloudBucketState::Deleting => gone.push(name.clone()),
                    CloudBucketState::Ready => s.done_at = None,
                }
            }
        }
        for name in gone {
            self.buckets.remove(&name);
        }
    }

    /// Answers one call at `now`.
    pub fn call(&mut self, now: Time, call: &CloudCall) -> Result<CloudBucket, CloudError> {
        self.calls += 1;
        self.settle(now);
        if self.fault == Some(CloudFault::Failing) {
            return Err(CloudError::Unavailable);
        }
        let done_at = if self.fault == Some(CloudFault::Hanging) { None } else { Some(now.after(self.latency)) };
        match call {
            CloudCall::Get { name } => {
                self.buckets.get(name).map(|s| s.bucket.clone()).ok_or_else(|| CloudError::NotFound(name.clone()))
            }
            CloudCall::Create { name, region, versioning, owner_uid } => {
                if let Some(s) = self.buckets.get(name) {
                    return if s.bucket.owner_uid != *owner_uid {
                        Err(CloudError::AlreadyExists(name.clone()))
                    } else if s.bucket.state == CloudBucketState::Deleting {
                        Err(CloudError::Deleting(name.clone()))
                    } else {
                        Ok(s.bucket.clone())
                    };
                }
                let bucket = CloudBucket {
                    name: name.clone(),
                    region: region.clone(),
                    versioning: *versioning,
                    state: CloudBucketState::Creating,
                    owner_uid: owner_uid.clone(),
                    created: now,
                };
                self.buckets.insert(name.clone(), Stored { bucket: bucket.clone(), done_at });
                Ok(bucket)
            }
            CloudCall::PutVersioning { name, versioning } => {
                let s = self.buckets.get_mut(name).ok_or_else(|| CloudError::NotFound(name.clone()))?;
                if s.bucket.state == CloudBucketState::Deleting {
                    return Err(CloudError::Deleting(name.clone()));
                }
                s.bucket.versioning = *versioning;
                Ok(s.bucket.clone())
            }
            CloudCall::Delete { name } => {
                let s = self.buckets.get_mut(name).ok_or_else(|| CloudError::NotFound(name.clone()))?;
                if s.bucket.state != CloudBucketState::Deleting {
                    s.bucket.state = CloudBucketState::Deleting;
                    s.done_at = done_at;
                }
                Ok(s.bucket.clone())
            }
        }
    }

    /// Every bucket as it is at `now` (operations due by then have completed), by name.
    pub fn buckets(&self, now: Time) -> Vec<CloudBucket> {
        self.buckets
            .values()
            .filter_map(|s| {
                let due = s.done_at.is_some_and(|t| t <= now);
                let mut b = s.bucket.clone();
                match (b.state, due) {
                    (CloudBucketState::Deleting, true) => return None,
                    (CloudBucketState::Creating, true) => b.state = CloudBucketState::Ready,
                    _ => {}
                }
                Some(b)
            })
            .collect()
    }

    /// One bucket as it is at `now`.
    pub fn bucket(&self, name: &str, now: Time) -> Option<CloudBucket> {
        self.buckets(now).into_iter().find(|b| b.name == name)
    }

    /// The leaked buckets at `now`: those not being deleted whose `Bucket` object (by uid) is
    /// not among `live_owner_uids`, the uids of the `Bucket` objects the API server still holds.
    /// A bucket leaks when its object went away without the controller's cleanup, that is, when
    /// someone removed the `example.com/bucket` finalizer by hand.
    pub fn leaked(&self, now: Time, live_owner_uids: &BTreeSet<String>) -> Vec<CloudBucket> {
        self.buckets(now)
            .into_iter()
            .filter(|b| b.state != CloudBucketState::Deleting && !live_owner_uids.contains(&b.owner_uid))
            .collect()
    }

    /// The cloud as a table for `lab cloud` and the page's Cloud panel: one row per bucket at
    /// `now`, columns padded like kubectl's tables (3 spaces), a `LEAKED` column naming the
    /// buckets in `leaked` (from [`Cloud::leaked`]). An empty cloud prints `No buckets in the cloud.`
    pub fn table(&self, now: Time, leaked: &[CloudBucket]) -> String {
        let buckets = self.buckets(now);
        if buckets.is_empty() {
            return "No buckets in the cloud.\n".to_string();
        }
        let mut rows = vec![["NAME", "REGION", "STATE", "VERSIONING", "OWNER UID", "LEAKED"].map(String::from)];
        for b in &buckets {
            let is_leaked = leaked.iter().any(|l| l.name == b.name);
            rows.push([
                b.name.clone(),
                b.region.clone(),
                b.state.as_str().to_string(),
                if b.versioning { "Enabled" } else { "Suspended" }.to_string(),
                b.owner_uid.clone(),
                if is_leaked { "yes" } else { "no" }.to_string(),
            ]);
        }
        let widths: Vec<usize> = (0..6).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
        let mut out = String::new();
        for r in &rows {
            let mut line = String::new();
            for (c, cell) in r.iter().enumerate() {
                if c + 1 == r.len() {
                    line.push_str(cell);
                } else {
                    line.push_str(&format!("{cell:<w$}   ", w = widths[c]));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if let Some(f) = self.fault {
            let what = match f {
                CloudFault::Failing => "failing: every call answers 503",
                CloudFault::Hanging => "hanging: operations do not complete",
            };
            out.push_str(&format!("The cloud is {what}.\n"));
        }
        out
    }

    /// Checks the invariant stated in the module documentation.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (name, s) in &self.buckets {
            if name != &s.bucket.name {
                return Err(format!("bucket stored under {name} is named {}", s.bucket.name));
            }
            let busy = s.bucket.state != CloudBucketState::Ready;
            let hanging = self.fault == Some(CloudFault::Hanging);
            if busy && !hanging && s.done_at.is_none() {
                return Err(format!("{name} is {} with no completion time", s.bucket.state.as_str()));
            }
            if !busy && s.done_at.is_some() {
                return Err(format!("{name} is Ready with an operation pending"));
            }
        }
        Ok(())
    }
}

/// A controller's whole view of the outside world during one reconcile: its connection to the
/// API server ([`WorldApi`], which records and fails calls) plus the external cloud. Cloud calls
/// are recorded in the same list as API calls (verb `CLOUD CreateBucket`, target
/// `cloud/<bucket>`), in the order they happen. It also serves the two calls the namespace
/// controller needs beyond the common ones: a live `LIST` and `PUT .../finalize`.
pub struct CloudApi<'w, 'a> {
    /// The process's API connection.
    pub inner: &'w mut WorldApi<'a>,
    /// The cloud.
    pub cloud: &'w mut Cloud,
    /// The virtual time of the step.
    pub now: Time,
}

impl CloudApi<'_, '_> {
    fn record(&mut self, verb: &str, target: String, result: Result<u64, (u16, String)>) {
        let (code, resource_version, error) = match result {
            Ok(rv) => (200, rv, None),
            Err((code, e)) => (code, 0, Some(e)),
        };
        self.inner.calls.push(ApiCall {
            verb: verb.into(),
            target,
            sent_resource_version: 0,
            stored_resource_version: 0,
            code,
            resource_version,
            error,
        });
    }
}

impl Api for CloudApi<'_, '_> {
    fn get(&mut self, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Result<Value, Status> {
        self.inner.get(kind, namespace, name)
    }
    fn create(&mut self, obj: Value) -> Result<Value, Status> {
        self.inner.create(obj)
    }
    fn update(&mut self, obj: Value) -> Result<Value, Status> {
        self.inner.update(obj)
    }
    fn update_status(&mut self, obj: Value) -> Result<Value, Status> {
        self.inner.update_status(obj)
    }
    fn bind(&mut self, namespace: &str, name: &str, node: &str) -> Result<Value, Status> {
        self.inner.bind(namespace, name, node)
    }
    fn merge_patch(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        patch: Value,
    ) -> Result<Value, Status> {
        self.inner.merge_patch(kind, namespace, name, patch)
    }
    fn delete(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOpts,
    ) -> Result<Option<Value>, Status> {
        self.inner.delete(kind, namespace, name, opts)
    }

    fn list(&mut self, kind: &'static Kind, namespace: Option<&str>) -> Result<Vec<Value>, Status> {
        let target = match namespace {
            Some(ns) => format!("{} {ns}/*", kind.kind),
            None => format!("{} *", kind.kind),
        };
        let r = match self.inner.failure {
            Some(f) => Err(f.status_for("Get", kind, namespace, "", "")),
            None => self.inner.server.list(kind, namespace, &Selector::everything()),
        };
        self.record("LIST", target, r.as_ref().map(|l| l.resource_version).map_err(|e| (e.code(), e.message.clone())));
        r.map(|l| l.items)
    }

    fn finalize_namespace(&mut self, obj: Value) -> Result<Value, Status> {
        let kind = Kind::by_kind("Namespace").expect("built-in kind");
        let r = match self.inner.failure {
            Some(f) => Err(f.status_for("Put", kind, None, obj.name(), "finalize")),
            None => self.inner.server.finalize_namespace(obj.clone()),
        };
        let target = format!("Namespace {}", obj.name());
        self.record(
            "UPDATE /finalize",
            target,
            r.as_ref().map(|o| o.resource_version()).map_err(|e| (e.code(), e.message.clone())),
        );
        r
    }

    fn cloud(&mut self, call: CloudCall) -> Result<CloudBucket, CloudError> {
        let r = self.cloud.call(self.now, &call);
        let code = match &r {
            Ok(_) => Ok(0),
            Err(CloudError::Unreachable) => Err((0, r.as_ref().err().map(ToString::to_string).unwrap_or_default())),
            Err(CloudError::Unavailable) => Err((503, CloudError::Unavailable.to_string())),
            Err(CloudError::NotFound(n)) => Err((404, CloudError::NotFound(n.clone()).to_string())),
            Err(e) => Err((409, e.to_string())),
        };
        self.record(&format!("CLOUD {}", call.verb()), format!("cloud/{}", call.bucket()), code);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(name: &str, uid: &str) -> CloudCall {
        CloudCall::Create { name: name.into(), region: "eu-west-1".into(), versioning: false, owner_uid: uid.into() }
    }

    #[test]
    fn operations_take_time() {
        let mut c = Cloud::new();
        let t0 = Time::START;
        assert_eq!(c.call(t0, &create("b", "u1")).map(|b| b.state), Ok(CloudBucketState::Creating));
        assert_eq!(c.bucket("b", t0.after(Duration::from_secs(2))).map(|b| b.state), Some(CloudBucketState::Creating));
        let t3 = t0.after(DEFAULT_LATENCY);
        assert_eq!(c.bucket("b", t3).map(|b| b.state), Some(CloudBucketState::Ready));
        assert_eq!(
            c.call(t3, &CloudCall::Delete { name: "b".into() }).map(|b| b.state),
            Ok(CloudBucketState::Deleting)
        );
        c.check_invariants().unwrap();
        let t6 = t3.after(DEFAULT_LATENCY);
        assert_eq!(c.call(t6, &CloudCall::Get { name: "b".into() }), Err(CloudError::NotFound("b".into())));
        assert!(c.buckets(t6).is_empty());
    }

    #[test]
    fn create_is_idempotent_for_its_owner_only() {
        let mut c = Cloud::new();
        c.call(Time::START, &create("b", "u1")).unwrap();
        assert!(c.call(Time::START, &create("b", "u1")).is_ok());
        let e = c.call(Time::START, &create("b", "u2")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "BucketAlreadyExists (409): the bucket name b is already taken by a bucket of another owner"
        );
    }

    #[test]
    fn faults_fail_and_hang() {
        let mut c = Cloud::new();
        let t0 = Time::START;
        c.set_fault(Some(CloudFault::Failing), t0);
        assert_eq!(c.call(t0, &create("b", "u1")), Err(CloudError::Unavailable));
        c.set_fault(Some(CloudFault::Hanging), t0);
        c.call(t0, &create("b", "u1")).unwrap();
        c.check_invariants().unwrap();
        let much_later = t0.after(Duration::from_secs(3600));
        assert_eq!(c.bucket("b", much_later).map(|b| b.state), Some(CloudBucketState::Creating));
        c.set_fault(None, much_later);
        c.check_invariants().unwrap();
        assert_eq!(c.bucket("b", much_later.after(DEFAULT_LATENCY)).map(|b| b.state), Some(CloudBucketState::Ready));
    }

    #[test]
    fn table_lists_buckets_and_leaks() {
        let mut c = Cloud::new();
        assert_eq!(c.table(Time::START, &[]), "No buckets in the cloud.\n");
        c.call(Time::START, &create("default-a", "u1")).unwrap();
        c.call(Time::START, &create("default-bb", "u2")).unwrap();
        let leaked = c.leaked(Time::START, &["u1".to_string()].into());
        let t = c.table(Time::START, &leaked);
        assert_eq!(
            t,
            "NAME         REGION      STATE      VERSIONING   OWNER UID   LEAKED\n\
             default-a    eu-west-1   Creating   Suspended    u1          no\n\
             default-bb   eu-west-1   Creating   Suspended    u2          yes\n"
        );
        c.set_fault(Some(CloudFault::Failing), Time::START);
        assert!(c.table(Time::START, &leaked).ends_with("The cloud is failing: every call answers 503.\n"));
    }

    #[test]
    fn leaks_are_buckets_without_their_object() {
        let mut c = Cloud::new();
        c.call(Time::START, &create("a", "u1")).unwrap();
        c.call(Time::START, &create("b", "u2")).unwrap();
        let live: BTreeSet<String> = ["u1".to_string()].into();
        let leaked: Vec<String> = c.leaked(Time::START, &live).into_iter().map(|b| b.name).collect();
        assert_eq!(leaked, vec!["b"]);
        c.call(Time::START, &CloudCall::Delete { name: "b".into() }).unwrap();
        assert!(c.leaked(Time::START, &live).is_empty(), "a bucket being deleted is not leaked");
    }
}
