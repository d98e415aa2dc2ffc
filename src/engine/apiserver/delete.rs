//! DELETE (apiserver `pkg/registry/generic/registry/store.go`, `Delete`): preconditions,
//! propagation policy turned into the GC finalizers, graceful deletion of pods, finalizers keeping
//! an object alive with a deletionTimestamp, and the namespace's two-phase deletion.
//!
//! Read against apiserver `pkg/registry/generic/registry/store.go` (`Delete`,
//! `updateForGracefulDeletionAndFinalizers`): a pod deleted with a grace period of 0 (unscheduled,
//! finished, `--grace-period=0`, or the kubelet's final delete) is first *written* with its
//! deletion fields and then deleted, so watchers see MODIFIED then DELETED (`Delete`
//! writes the object first, then deletes it when `lastGraceful == 0`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::admission::IMMORTAL_NAMESPACES;
use super::schema;
use super::ApiServer;
use crate::engine::frozen::Frozen;
use crate::engine::kinds::{DefaultPropagation, Kind};
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::status::Status;
use crate::engine::time::Time;

/// `metav1.DeletionPropagation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    /// Delete the owner now; the garbage collector deletes dependents afterwards.
    Background,
    /// Keep the owner (finalizer `foregroundDeletion`) until its blocking dependents are gone.
    Foreground,
    /// Keep the owner (finalizer `orphan`) until the GC has removed the dependents' references.
    Orphan,
}

impl Propagation {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Propagation::Background => "Background",
            Propagation::Foreground => "Foreground",
            Propagation::Orphan => "Orphan",
        }
    }
}

/// `metav1.DeleteOptions`, the parts the lab uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// `propagationPolicy`; `None` uses the object's GC finalizers, then the kind's default.
    pub propagation_policy: Option<Propagation>,
    /// `gracePeriodSeconds` (pods): `None` uses `spec.terminationGracePeriodSeconds`.
    pub grace_period_seconds: Option<i64>,
    /// `preconditions.resourceVersion`.
    pub preconditions_resource_version: Option<String>,
    /// `preconditions.uid`.
    pub preconditions_uid: Option<String>,
}

/// What a successful DELETE did.
#[derive(Clone, Debug, PartialEq)]
pub enum Deleted {
    /// Removed now; carries its last state (with the deletion's resourceVersion).
    Gone(Value),
    /// Still there, with a deletionTimestamp (finalizers or a grace period pending).
    Pending(Value),
}

/// What [`ApiServer::delete_shared`] answers: [`Deleted`] with a removed object's last state as
/// its tree, for a client that reads only its resourceVersion (the World's controllers: copying
/// every deleted pod into a `Value` nobody read was a tenth of deleting a Deployment).
#[derive(Clone, Debug)]
pub enum Removed {
    /// Removed now; its last state (with the deletion's resourceVersion), as the DELETED event
    /// carries it.
    Gone(Shared),
    /// Still there, with a deletionTimestamp (finalizers or a grace period pending): as stored.
    Pending(Shared),
}

impl Deleted {
    /// The object (last state, or current state).
    pub fn object(&self) -> &Value {
        match self {
            Deleted::Gone(o) | Deleted::Pending(o) => o,
        }
    }

    /// The HTTP 200 body: the object, except for a kind without `ReturnDeletedObject` that is
    /// gone, which answers a Success Status (`finalizeDelete`).
    pub fn response(&self, kind: &Kind) -> Value {
        match self {
            Deleted::Gone(o) if !kind.return_deleted_object => {
                let mut details = json!({"name": o.name()});
                if !kind.group.is_empty() {
                    details["group"] = json!(kind.group);
                }
                details["kind"] = json!(kind.resource);
                details["uid"] = json!(o.uid());
                json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details})
            }
            other => other.object().clone(),
        }
    }
}

const ORPHAN: &str = "orphan";
const FOREGROUND: &str = "foregroundDeletion";

/// `deletionFinalizersForGarbageCollection`
/// (k8s.io/apiserver/pkg/registry/generic/registry/store.go): the object's finalizers with the two
/// GC finalizers recomputed. `None` when the set would not change.
fn gc_finalizers(kind: &Kind, obj: &impl ObjectExt, policy: Option<Propagation>) -> Option<Vec<String>> {
    let current: Vec<String> = obj.finalizers().iter().map(|s| s.to_string()).collect();
    let from_finalizers = if current.iter().any(|f| f == ORPHAN) {
        Some(Propagation::Orphan)
    } else if current.iter().any(|f| f == FOREGROUND) {
        Some(Propagation::Foreground)
    } else {
        None
    };
    let default = match kind.default_propagation {
        DefaultPropagation::Orphan => Propagation::Orphan,
        DefaultPropagation::Background => Propagation::Background,
    };
    let effective = policy.or(from_finalizers).unwrap_or(default);
    let mut new: Vec<String> = current.iter().filter(|f| *f != ORPHAN && *f != FOREGROUND).cloned().collect();
    match effective {
        Propagation::Orphan => new.push(ORPHAN.into()),
        Propagation::Foreground => new.push(FOREGROUND.into()),
        Propagation::Background => {}
    }
    let mut a = current.clone();
    let mut b = new.clone();
    crate::sort::sort(&mut a);
    a.dedup();
    crate::sort::sort(&mut b);
    b.dedup();
    if a == b {
        None
    } else {
        Some(new)
    }
}

/// The stored metadata `meta` with `edits` set: each in place, or inserted where the schema
/// orders it, the rest shared. `None` unless the result is what normalizing the edited copy
/// would store ([`schema::is_canonical`]).
fn edited_meta(meta: &Frozen, edits: &[(&str, Value)]) -> Option<Frozen> {
    let stored = meta.as_object()?.entries();
    let mut entries = Vec::with_capacity(stored.len() + edits.len());
    entries.extend(stored.iter().cloned());
    for (k, v) in edits {
        schema::set_in_order(&mut entries, &schema::OBJECT_META, k, Frozen::from(v));
    }
    let edited = Frozen::from_entries(entries);
    schema::is_canonical(&edited, &schema::OBJECT_META).then_some(edited)
}

fn set_finalizers(obj: &mut Value, f: Vec<String>) {
    if f.is_empty() {
        obj.meta_mut().shift_remove("finalizers");
    } else {
        obj.meta_mut().insert("finalizers".into(), Value::from(f));
    }
}

fn secs(n: i64) -> Duration {
    Duration::from_secs(u64::try_from(n).unwrap_or(0))
}

fn grace_of(obj: &Frozen) -> Option<i64> {
    obj.meta().and_then(|m| m.get("deletionGracePeriodSeconds")).and_then(Frozen::as_i64)
}

impl ApiServer {
    /// DELETE one object (`store.go`, `Delete`).
    ///
    /// Errors: 404 when absent; 409 on a failed precondition (`Operation cannot be fulfilled on
    /// Deployment.apps "web": the ResourceVersion in the precondition (X) does not match the
    /// ResourceVersion in record (Y). The object might have been modified`); 403 for an immortal
    /// namespace.
    pub fn delete(
        &mut self,
        kind: &Kind,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, Status> {
        Ok(match self.delete_shared(kind, ns, name, opts)? {
            Removed::Gone(last) => Deleted::Gone(last.to_value()),
            Removed::Pending(current) => Deleted::Pending(current.to_value()),
        })
    }

    /// [`ApiServer::delete`], answering a removed object's last state as its shared tree.
    pub fn delete_shared(
        &mut self,
        kind: &Kind,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Removed, Status> {
        let key = Self::key(kind, ns, name);
        // The stored object as its shared tree (no copy): only the copy to modify is taken.
        let old: Shared = self.store.get_shared(&key).ok_or_else(|| Status::not_found(kind, name))?;
        if kind.kind == "Namespace" && IMMORTAL_NAMESPACES.contains(&name) {
            return Err(Status::forbidden(kind, name, "this namespace may not be deleted"));
        }
        if kind.kind == "Namespace" {
            // The namespace REST storage checks the preconditions itself, first, on every call,
            // and reports them as a plain Conflict (pkg/registry/core/namespace/storage/
            // storage.go, `REST.Delete`).
            let conflict =
                |msg: String| Status::conflict_with(&kind.group_resource(), kind.group, kind.resource, name, &msg);
            if let Some(uid) = opts.preconditions_uid.as_ref().filter(|u| *u != old.uid()) {
                return Err(conflict(format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    old.uid()
                )));
            }
            let stored = old.resource_version().to_string();
            if let Some(rv) = opts.preconditions_resource_version.as_ref().filter(|rv| **rv != stored) {
                return Err(conflict(format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {stored}"
                )));
            }
            if !old.is_deleting() {
                self.delete_namespace(kind, key.clone(), Arc::new(old.to_value()), opts)?;
                return Ok(Removed::Pending(self.store.get_shared(&key).unwrap_or(old)));
            }
            // Prior to final deletion, spec.finalizers must be empty: until then the namespace
            // is returned unchanged.
            if old.pointer("/spec/finalizers").and_then(Frozen::as_array).is_some_and(|a| !a.is_empty()) {
                return Ok(Removed::Pending(old));
            }
        }
        // rest.BeforeDelete's preconditions: note the GroupResource built from the *kind*.
        let gr = kind.group_kind();
        if let Some(uid) = &opts.preconditions_uid {
            if uid != old.uid() {
                let cause = format!(
                    "the UID in the precondition ({uid}) does not match the UID in record ({}). The object might have been deleted and then recreated",
                    old.uid()
                );
                return Err(Status::conflict_with(&gr, kind.group, kind.kind, name, &cause));
            }
        }
        if let Some(rv) = &opts.preconditions_resource_version {
            let stored = old.resource_version().to_string();
            if *rv != stored {
                let cause = format!(
                    "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({stored}). The object might have been modified"
                );
                return Err(Status::conflict_with(&gr, kind.group, kind.kind, name, &cause));
            }
        }
        // rest.BeforeDelete: a graceful kind gets deletionTimestamp = now + grace (first delete) or
        // may only shorten a pending grace period; `graceful` says whether it did either.
        // Everything below changes the metadata only: `edits` are the metadata fields it sets.
        let now = self.now;
        let mut graceful = false;
        let mut grace = 0;
        let mut edits: Vec<(&str, Value)> = Vec::with_capacity(3);
        if old.is_deleting() {
            let current = grace_of(&old).unwrap_or(0);
            if kind.graceful && current > 0 {
                match opts.grace_period_seconds {
                    Some(g) if g.max(0) < current => {
                        grace = g.max(0);
                        let ts = old.deletion_timestamp().and_then(Time::parse_rfc3339).unwrap_or(now);
                        let start = Time(ts.millis().saturating_sub((current as u64).saturating_mul(1000)));
                        edits.push(("deletionTimestamp", Value::from(start.after(secs(grace)).rfc3339())));
                        edits.push(("deletionGracePeriodSeconds", Value::from(grace)));
                        graceful = true;
                    }
                    // Graceful deletion pending: nothing changes, finalizers included.
                    _ => return Ok(Removed::Pending(old)),
                }
            }
        } else if kind.graceful {
            // podStrategy.CheckGracefulDelete
            grace = opts
                .grace_period_seconds
                .or_else(|| old.pointer("/spec/terminationGracePeriodSeconds").and_then(Frozen::as_i64))
                .unwrap_or(0);
            let node = old.pointer("/spec/nodeName").and_then(Frozen::as_str).unwrap_or("");
            let phase = old.pointer("/status/phase").and_then(Frozen::as_str).unwrap_or("");
            if node.is_empty() || phase == "Succeeded" || phase == "Failed" {
                grace = 0;
            }
            if grace < 0 {
                grace = 1;
            }
            edits.push(("deletionTimestamp", Value::from(now.after(secs(grace)).rfc3339())));
            edits.push(("deletionGracePeriodSeconds", Value::from(grace)));
            if old.generation() > 0 {
                edits.push(("generation", Value::from(old.generation().saturating_add(1))));
            }
            graceful = true;
        }
        // Store.Delete → updateForGracefulDeletionAndFinalizers.
        let gc = gc_finalizers(kind, &*old, opts.propagation_policy);
        if !graceful && old.finalizers().is_empty() && gc.is_none() {
            return Ok(Removed::Gone(self.commit_delete_shared(key, &old)));
        }
        let pending_finalizers = gc.as_ref().map_or(!old.finalizers().is_empty(), |f| !f.is_empty());
        if !graceful && !pending_finalizers {
            // errDeleteNow: deleted without a write.
            return Ok(Removed::Gone(self.commit_delete_shared(key, &old)));
        }
        // The usual case (a graceful deletion that leaves the finalizers alone) is made on the
        // stored metadata tree when that gives what normalizing would ([`edited_meta`]); else
        // the metadata is copied, edited and normalized.
        let stored_meta = old.get("metadata").filter(|m| m.is_object());
        let tree_meta = stored_meta.filter(|_| graceful && gc.is_none()).and_then(|meta| edited_meta(meta, &edits));
        let edited = match tree_meta {
            Some(meta) => old.with_entry("metadata", meta),
            None => {
                let mut new = match stored_meta {
                    Some(meta) => Value::Object(std::iter::once(("metadata".to_string(), meta.to_value())).collect()),
                    None => old.to_value(),
                };
                let meta = new.meta_mut();
                for (k, v) in edits {
                    meta.insert(k.to_string(), v);
                }
                if let Some(f) = gc {
                    set_finalizers(&mut new, f);
                }
                if !graceful {
                    self.mark_as_deleting(&mut new);
                }
                schema::normalize(&mut new, schema::root(kind));
                match stored_meta.zip(new.get("metadata")) {
                    Some((stored, meta)) => old.with_entry("metadata", Frozen::from_like(meta, stored)),
                    None => {
                        self.commit_update_shared(key.clone(), &old, new);
                        None
                    }
                }
            }
        };
        let written = match edited {
            Some(tree) => self.commit_update_tree(key.clone(), &old, tree),
            None => self.store.get_shared(&key).unwrap_or_else(|| Arc::clone(&old)),
        };
        if pending_finalizers || grace > 0 {
            return Ok(Removed::Pending(written));
        }
        // A graceful kind deleted with grace 0: the update above was written (one MODIFIED with
        // deletionTimestamp), then the object is deleted (DELETED) in the same request.
        let last = self.store.get_shared(&key).unwrap_or(old);
        Ok(Removed::Gone(self.commit_delete_shared(key, &last)))
    }

    /// `markAsDeleting`: generation +1 on the first deletion, deletionTimestamp now (unless set
    /// earlier), deletionGracePeriodSeconds 0.
    fn mark_as_deleting(&self, obj: &mut Value) {
        let first = !obj.is_deleting();
        let g = obj.generation();
        let now = self.now;
        let meta = obj.meta_mut();
        if first && g > 0 {
            meta.insert("generation".into(), Value::from(g.saturating_add(1)));
        }
        let later =
            meta.get("deletionTimestamp").and_then(Value::as_str).and_then(Time::parse_rfc3339).is_none_or(|t| t > now);
        if later {
            meta.insert("deletionTimestamp".into(), Value::from(now.rfc3339()));
        }
        meta.insert("deletionGracePeriodSeconds".into(), Value::from(0));
    }

    /// Namespace DELETE, first call (k/k `pkg/registry/core/namespace/storage/storage.go`):
    /// deletionTimestamp and phase Terminating in one write (no deletionGracePeriodSeconds), the
    /// GC finalizers set only as an explicit policy says (Background removes them). Later calls
    /// wait for `spec.finalizers` to empty, then take the ordinary path.
    fn delete_namespace(
        &mut self,
        kind: &Kind,
        key: super::store::Key,
        old: Arc<Value>,
        opts: &DeleteOptions,
    ) -> Result<Value, Status> {
        let mut new = (*old).clone();
        new.meta_mut().insert("deletionTimestamp".into(), Value::from(self.now.rfc3339()));
        let have_orphan = old.has_finalizer(ORPHAN);
        let have_foreground = old.has_finalizer(FOREGROUND);
        let (orphan, foreground) = match opts.propagation_policy {
            Some(p) => (p == Propagation::Orphan, p == Propagation::Foreground),
            None => (have_orphan, have_foreground),
        };
        if orphan != have_orphan || foreground != have_foreground {
            let mut f: Vec<String> =
                old.finalizers().iter().filter(|f| **f != ORPHAN && **f != FOREGROUND).map(|s| s.to_string()).collect();
            if orphan {
                f.push(ORPHAN.into());
            }
            if foreground {
                f.push(FOREGROUND.into());
            }
            set_finalizers(&mut new, f);
        }
        if let Some(status) = new.get_mut("status").and_then(Value::as_object_mut) {
            status.insert("phase".into(), Value::from("Terminating"));
        }
        schema::normalize(&mut new, schema::root(kind));
        Ok(self.commit_update(key, old, new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deletion's metadata made on the stored tree is the copy the general path edits and
    /// normalizes, for fields set in place and fields added at their place in the schema; a
    /// stored metadata out of the schema's order is left to the general path.
    #[test]
    fn metadata_edited_on_the_tree_is_the_normalized_copy() {
        let kind = Kind::by_kind("Pod").expect("kind");
        let mut s = ApiServer::new(2);
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "labels": {"b": "2", "a": "1"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]}});
        let stored = Frozen::from(&s.create(pod).expect("create"));
        let meta = stored.get("metadata").expect("metadata");
        let cases: [&[(&str, Value)]; 3] = [
            &[("deletionTimestamp", json!("2026-01-01T00:00:30Z")), ("deletionGracePeriodSeconds", json!(30))],
            &[("generation", json!(2)), ("deletionTimestamp", json!("2026-01-01T00:00:30Z"))],
            &[("uid", json!("other")), ("deletionGracePeriodSeconds", json!(0))],
        ];
        for edits in cases {
            let mut copy = json!({"metadata": meta.to_value()});
            for (k, v) in edits {
                copy.meta_mut().insert((*k).to_string(), v.clone());
            }
            schema::normalize(&mut copy, schema::root(kind));
            let tree = edited_meta(meta, edits).expect("in the stored form");
            // As text: the order counts too.
            assert_eq!(tree.to_value().to_string(), copy["metadata"].to_string(), "{edits:?}");
        }
        // Not in the schema's order: no tree.
        let mut entries = meta.as_object().expect("object").entries().to_vec();
        entries.reverse();
        assert!(edited_meta(&Frozen::from_entries(entries), &[("deletionGracePeriodSeconds", json!(0))]).is_none());
    }
}
