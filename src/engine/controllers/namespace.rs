//! The namespace controller (k/k `pkg/controller/namespace/
//! namespace_controller.go`, `deletion/namespaced_resources_deleter.go`,
//! `deletion/status_condition_utils.go`).
//!
//! The handler queues a namespace with a `deletionTimestamp` 5 s later
//! ([`NAMESPACE_DELETION_GRACE_PERIOD`]). Then (`namespacedResourcesDeleter.Delete`): GET it live,
//! make sure its phase is `Terminating`, delete every namespaced object in it (propagation
//! `Background`), list what remains, write the five deletion conditions (only if they changed;
//! `lastTransitionTime` only moves when a condition's status flips), and then either requeue
//! (content remains: after `estimate/2 + 1` seconds, 8 s when only finalizers hold it) or call
//! `/finalize` to remove the `kubernetes` finalizer, which lets the API server delete it. The
//! estimate for pods is their longest grace period, but only until that long has passed since
//! the namespace's `deletionTimestamp` (`estimateGracefulTermination`): pods still there after
//! that, with no finalizer, are "unexpected items", reported as `NamespaceDeletionContentFailure
//! True ContentDeletionFailed` and retried with the queue's back-off.
//!
//! Upstream deletes each resource type with one `DeleteCollection`; this lab lists and deletes
//! each object not already being deleted (the calls the page shows are per object), which ends in
//! the same state. Kinds are visited in the order of the lab's kind table (upstream's discovery
//! order is a map's, i.e. random).

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

use super::{Caches, Controller, Ctx, DeleteOpts, Enqueue, Outcome, ResourceEvent};
use crate::engine::client::RateLimiter;
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

/// The token this controller owns in `spec.finalizers`.
pub const FINALIZER_KUBERNETES: &str = "kubernetes";
/// `finalizerEstimateSeconds`: the estimate when remaining content is held by finalizers.
pub const FINALIZER_ESTIMATE_SECONDS: i64 = 15;
/// `namespaceDeletionGracePeriod`: the handler queues a deleted namespace only after this long,
/// so that every API server's admission sees the deletion and no late creation escapes the cleanup.
pub const NAMESPACE_DELETION_GRACE_PERIOD: Duration = Duration::from_secs(5);
/// Attempts of a conflicting namespace write within one run (`retryOnConflictError` loops until
/// it stops conflicting; the lab bounds it).
const MAX_CONFLICT_RETRIES: usize = 5;

/// The five condition types, in the order they are written.
pub const CONDITION_TYPES: [&str; 5] = [
    "NamespaceDeletionDiscoveryFailure",
    "NamespaceDeletionGroupVersionParsingFailure",
    "NamespaceDeletionContentFailure",
    "NamespaceContentRemaining",
    "NamespaceFinalizersRemaining",
];

/// The OK variant (status `False`) of each condition type: (reason, message).
fn ok_condition(ctype: &str) -> (&'static str, &'static str) {
    match ctype {
        "NamespaceDeletionDiscoveryFailure" => ("ResourcesDiscovered", "All resources successfully discovered"),
        "NamespaceDeletionGroupVersionParsingFailure" => {
            ("ParsedGroupVersions", "All legacy kube types successfully parsed")
        }
        "NamespaceDeletionContentFailure" => {
            ("ContentDeleted", "All content successfully deleted, may be waiting on finalization")
        }
        "NamespaceContentRemaining" => ("ContentRemoved", "All content successfully removed"),
        _ => ("ContentHasNoFinalizers", "All content-preserving finalizers finished"),
    }
}

/// `ResourcesRemainingError`.
pub fn resources_remaining_message(estimate: i64) -> String {
    format!("some content remains in the namespace, estimate {estimate} seconds before it is removed")
}

/// What one pass found, for the conditions (`namespaceConditionUpdater`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContentTotals {
    /// `gvrToNumRemaining`: `resource.group` → objects remaining.
    pub remaining: BTreeMap<String, usize>,
    /// `finalizersToNumRemaining`: finalizer → objects carrying it.
    pub finalizers: BTreeMap<String, usize>,
    /// Errors from deleting content, one per resource type.
    pub delete_errors: Vec<String>,
}

impl ContentTotals {
    /// The five conditions (type, status, reason, message) this pass should write, in order.
    pub fn conditions(&self) -> Vec<(&'static str, &'static str, String, String)> {
        CONDITION_TYPES
            .iter()
            .map(|&t| {
                let failure = match t {
                    "NamespaceDeletionContentFailure" if !self.delete_errors.is_empty() => {
                        let mut errs = self.delete_errors.clone();
                        crate::sort::sort(&mut errs);
                        Some((
                            "ContentDeletionFailed",
                            format!(
                                "Failed to delete all resource types, {} remaining: {}",
                                errs.len(),
                                errs.join(", ")
                            ),
                        ))
                    }
                    "NamespaceContentRemaining" if !self.remaining.is_empty() => {
                        let items: Vec<String> =
                            self.remaining.iter().map(|(gr, n)| format!("{gr} has {n} resource instances")).collect();
                        Some(("SomeResourcesRemain", format!("Some resources are remaining: {}", sorted_join(items))))
                    }
                    "NamespaceFinalizersRemaining" if !self.finalizers.is_empty() => {
                        let items: Vec<String> =
                            self.finalizers.iter().map(|(f, n)| format!("{f} in {n} resource instances")).collect();
                        Some((
                            "SomeFinalizersRemain",
                            format!("Some content in the namespace has finalizers remaining: {}", sorted_join(items)),
                        ))
                    }
                    _ => None,
                };
                match failure {
                    Some((reason, msg)) => (t, "True", reason.to_string(), msg),
                    None => {
                        let (reason, msg) = ok_condition(t);
                        (t, "False", reason.to_string(), msg.to_string())
                    }
                }
            })
            .collect()
    }
}

fn sorted_join(mut items: Vec<String>) -> String {
    crate::sort::sort(&mut items);
    items.join(", ")
}

/// `namespaceConditionUpdater.Update`: the new `status.conditions`, keeping each condition's
/// `lastTransitionTime` unless its status flips. Conditions of other types are kept first.
pub fn updated_conditions(old: Option<&Value>, totals: &ContentTotals, now: &str) -> Vec<Value> {
    let old: Vec<Value> = old.and_then(Value::as_array).cloned().unwrap_or_default();
    let find = |t: &str| old.iter().find(|c| c.get("type").and_then(Value::as_str) == Some(t));
    let mut out: Vec<Value> = old
        .iter()
        .filter(|c| !CONDITION_TYPES.contains(&c.get("type").and_then(Value::as_str).unwrap_or("")))
        .cloned()
        .collect();
    for (t, status, reason, message) in totals.conditions() {
        let ltt = match find(t) {
            Some(c) if c.get("status").and_then(Value::as_str) == Some(status) => {
                c.get("lastTransitionTime").cloned().unwrap_or_else(|| json!(now))
            }
            _ => json!(now),
        };
        out.push(json!({"type": t, "status": status, "lastTransitionTime": ltt, "reason": reason, "message": message}));
    }
    out
}

/// The namespace controller. It keeps nothing between passes: every pass reads the namespace and
/// its content live.
#[derive(Clone, Debug, Default)]
pub struct NamespaceController;

impl NamespaceController {
    /// A namespace controller.
    pub fn new() -> NamespaceController {
        NamespaceController
    }

    fn ns_kind() -> &'static Kind {
        Kind::by_kind("Namespace").expect("built-in kind")
    }

    /// `deleteAllContent`: (estimate seconds, totals). `deleted_at` is the namespace's
    /// `deletionTimestamp`.
    fn delete_all_content(ns: &str, deleted_at: Option<Time>, ctx: &mut Ctx<'_>) -> (i64, ContentTotals) {
        let mut totals = ContentTotals::default();
        let mut estimate = 0;
        for kind in KINDS.iter().filter(|k| k.namespaced) {
            // estimateGracefulTermination: pods still running need their grace period.
            let mut gvr_estimate = 0;
            let items = match ctx.api.list(kind, Some(ns)) {
                Ok(items) => items,
                Err(e) => {
                    totals.delete_errors.push(e.message);
                    continue;
                }
            };
            if kind.graceful {
                for pod in &items {
                    let phase = pod.pointer("/status/phase").and_then(Value::as_str).unwrap_or("");
                    if phase == "Succeeded" || phase == "Failed" {
                        continue;
                    }
                    let grace =
                        pod.pointer("/spec/terminationGracePeriodSeconds").and_then(Value::as_i64).unwrap_or(30);
                    gvr_estimate = gvr_estimate.max(grace);
                }
                // estimateGracefulTermination: once the pods' grace period has passed since the
                // namespace was deleted there is nothing left to wait for, and pods that remain
                // without finalizers are an error ("unexpected items still remain"), retried with
                // the queue's back-off, not polled (namespaced_resources_deleter.go).
                if let Some(at) = deleted_at {
                    if ctx.now.millis_since(at) >= gvr_estimate.saturating_mul(1000) {
                        gvr_estimate = 0;
                    }
                }
            }
            let mut failed = None;
            for obj in items.iter().filter(|o| !o.is_deleting()) {
                let opts = DeleteOpts { propagation: Some("Background"), ..DeleteOpts::default() };
                if let Err(e) = ctx.api.delete(kind, Some(ns), obj.name(), &opts) {
                    if e.code() != 404 {
                        failed.get_or_insert(e.message);
                    }
                }
            }
            if let Some(e) = failed {
                totals.delete_errors.push(e);
            }
            // Verify what remains.
            let remaining = match ctx.api.list(kind, Some(ns)) {
                Ok(r) => r,
                Err(e) => {
                    totals.delete_errors.push(e.message);
                    continue;
                }
            };
            if remaining.is_empty() {
                estimate = estimate.max(gvr_estimate);
                continue;
            }
            let mut fins: BTreeMap<String, usize> = BTreeMap::new();
            for o in &remaining {
                for f in o.finalizers() {
                    *fins.entry(f.to_string()).or_default() += 1;
                }
            }
            if gvr_estimate == 0 && fins.is_empty() {
                totals
                    .delete_errors
                    .push(format!("unexpected items still remain in namespace: {ns} for gvr: {}", gvr_string(kind)));
            } else if gvr_estimate == 0 {
                gvr_estimate = FINALIZER_ESTIMATE_SECONDS;
            }
            estimate = estimate.max(gvr_estimate);
            totals.remaining.insert(format!("{}.{}", kind.resource, kind.group), remaining.len());
            for (f, n) in fins {
                *totals.finalizers.entry(f).or_default() += n;
            }
        }
        (estimate, totals)
    }

    /// Runs `f` on the namespace, re-reading it after a conflict (`retryOnConflictError`).
    #[allow(clippy::result_large_err)] // the API's own error type, as every `Api` method returns it
    fn retry_on_conflict(
        mut ns: Value,
        ctx: &mut Ctx<'_>,
        mut f: impl FnMut(&Value, &mut Ctx<'_>) -> Option<Result<Value, crate::engine::status::Status>>,
    ) -> Result<Value, crate::engine::status::Status> {
        for _ in 0..MAX_CONFLICT_RETRIES {
            match f(&ns, ctx) {
                None => return Ok(ns),
                Some(Err(e)) if e.code() == 409 => {
                    let latest = ctx.api.get(Self::ns_kind(), None, ns.name())?;
                    if latest.uid() != ns.uid() {
                        return Err(crate::engine::status::Status::new(
                            crate::engine::status::Reason::InternalError,
                            "namespace uid has changed across retries",
                        ));
                    }
                    ns = latest;
                }
                Some(r) => return r,
            }
        }
        Err(crate::engine::status::Status::conflict(Self::ns_kind(), ns.name()))
    }
}

/// `%v` of a GroupVersionResource: `/v1, Resource=pods`, `apps/v1, Resource=deployments`.
fn gvr_string(kind: &Kind) -> String {
    format!("{}/{}, Resource={}", kind.group, kind.version, kind.resource)
}

impl Controller for NamespaceController {
    fn name(&self) -> &'static str {
        "namespace-controller"
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static WATCHES: OnceLock<[&'static Kind; 1]> = OnceLock::new();
        WATCHES.get_or_init(|| [Self::ns_kind()])
    }

    fn handle(
        &mut self,
        _kind: &'static Kind,
        n: &ResourceEvent,
        _cache: &Caches,
        _now: crate::engine::time::Time,
    ) -> Vec<Enqueue> {
        // enqueueNamespace: only namespaces being deleted matter, after the grace period.
        match n {
            ResourceEvent::Add(ns) | ResourceEvent::Update(_, ns) if ns.is_deleting() => {
                vec![Enqueue::After(ns.key(), NAMESPACE_DELETION_GRACE_PERIOD)]
            }
            _ => Vec::new(),
        }
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        let ns = match ctx.api.get(Self::ns_kind(), None, key) {
            Err(e) if e.code() == 404 => return Outcome::Done,
            Err(e) => return Outcome::Err(e.message),
            Ok(ns) => ns,
        };
        if !ns.is_deleting() {
            return Outcome::Done;
        }
        // updateNamespaceStatusFunc: make sure the phase says Terminating.
        let ns = Self::retry_on_conflict(ns, ctx, |ns, ctx| {
            if ns.pointer("/status/phase").and_then(Value::as_str) == Some("Terminating") {
                return None;
            }
            let mut new = ns.clone();
            new["status"]["phase"] = json!("Terminating");
            Some(ctx.api.update_status(new))
        });
        let ns = match ns {
            Err(e) if e.code() == 404 => return Outcome::Done,
            Err(e) => return Outcome::Err(e.message),
            Ok(ns) => ns,
        };
        let finalized = !ns
            .pointer("/spec/finalizers")
            .and_then(Value::as_array)
            .is_some_and(|f| f.iter().any(|f| f.as_str() == Some(FINALIZER_KUBERNETES)));
        if finalized {
            return Outcome::Done;
        }
        let deleted_at = ns.deletion_timestamp().and_then(Time::parse_rfc3339);
        let (estimate, totals) = Self::delete_all_content(key, deleted_at, ctx);
        let now = ctx.now.rfc3339();
        // "We always want to update the conditions": written when they changed; a failed write is
        // only logged upstream (HandleError), and the pass goes on with the namespace it had.
        let conditions = updated_conditions(ns.pointer("/status/conditions"), &totals, &now);
        let mut ns = ns;
        if ns.pointer("/status/conditions").and_then(Value::as_array) != Some(&conditions) {
            let mut new = ns.clone();
            new["status"]["conditions"] = Value::Array(conditions);
            if let Ok(written) = ctx.api.update_status(new) {
                ns = written;
            }
        }
        if !totals.delete_errors.is_empty() {
            return Outcome::Err(totals.delete_errors.join(", "));
        }
        if estimate > 0 {
            // ResourcesRemainingError → queue.AddAfter(estimate/2 + 1 seconds): polling until the
            // content's own controllers (and finalizers) have removed it.
            return Outcome::PollAfter(Duration::from_secs(u64::try_from(estimate / 2 + 1).unwrap_or(8)));
        }
        let finalize = Self::retry_on_conflict(ns, ctx, |ns, ctx| {
            let mut new = ns.clone();
            let mut rest: Vec<String> = ns
                .pointer("/spec/finalizers")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .filter(|f| *f != FINALIZER_KUBERNETES)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
            crate::sort::sort(&mut rest);
            rest.dedup();
            new["spec"]["finalizers"] = json!(rest);
            Some(ctx.api.finalize_namespace(new))
        });
        match finalize {
            Ok(_) => Outcome::Done,
            Err(e) if e.code() == 404 => Outcome::Done,
            Err(e) => Outcome::Err(e.message),
        }
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(NamespaceController::new())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn rate_limiter(&self) -> RateLimiter<String> {
        RateLimiter::namespace_controller()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_match_kubernetes_texts() {
        let mut t = ContentTotals::default();
        t.remaining.insert("buckets.example.com".into(), 1);
        t.finalizers.insert("example.com/bucket".into(), 1);
        let c = t.conditions();
        let types: Vec<&str> = c.iter().map(|c| c.0).collect();
        assert_eq!(types, CONDITION_TYPES);
        assert_eq!(
            c[2],
            (
                "NamespaceDeletionContentFailure",
                "False",
                "ContentDeleted".into(),
                "All content successfully deleted, may be waiting on finalization".into()
            )
        );
        assert_eq!(c[3].1, "True");
        assert_eq!(c[3].3, "Some resources are remaining: buckets.example.com has 1 resource instances");
        assert_eq!(c[4].2, "SomeFinalizersRemain");
        assert_eq!(
            c[4].3,
            "Some content in the namespace has finalizers remaining: example.com/bucket in 1 resource instances"
        );
        let mut pods = ContentTotals::default();
        pods.remaining.insert("pods.".into(), 2);
        assert_eq!(pods.conditions()[3].3, "Some resources are remaining: pods. has 2 resource instances");
    }

    #[test]
    fn transition_time_moves_only_on_flips() {
        let mut t = ContentTotals::default();
        t.remaining.insert("pods.".into(), 1);
        let first = updated_conditions(None, &t, "T1");
        let same = updated_conditions(Some(&Value::Array(first.clone())), &t, "T2");
        assert_eq!(first, same, "nothing changed, nothing to write");
        let cleared = updated_conditions(Some(&Value::Array(first)), &ContentTotals::default(), "T3");
        assert_eq!(cleared[3]["lastTransitionTime"], "T3");
        assert_eq!(cleared[3]["status"], "False");
        assert_eq!(cleared[0]["lastTransitionTime"], "T1");
    }

    #[test]
    fn gvr_is_printed_like_go() {
        assert_eq!(gvr_string(Kind::by_kind("Pod").unwrap()), "/v1, Resource=pods");
        assert_eq!(
            resources_remaining_message(15),
            "some content remains in the namespace, estimate 15 seconds before it is removed"
        );
    }
}
