//! UPDATE (PUT) of the main resource, of `/status`, and of `namespaces/x/finalize`
//! (apiserver `pkg/registry/generic/registry/store.go`, `Update`; k/k
//! `pkg/registry/core/namespace/storage/storage.go`, `FinalizeREST.Update`).
//!
//! The order is the apiserver's: strict decode; the storage's UID precondition (409); the
//! optimistic-concurrency check on `metadata.resourceVersion` (409, or 422 when the kind does not
//! allow an unconditional update); `rest.BeforeUpdate` (generation, uid, creationTimestamp and
//! deletion fields come from the stored object; the strategy's `PrepareForUpdate`); validation
//! (422); then `ShouldDeleteDuringUpdate` (the last finalizer gone from an object being deleted
//! deletes it: DELETED, never a MODIFIED with no finalizers); else the write, which is skipped
//! entirely when it changes nothing.

use serde_json::Value;

use super::create::kind_of;
use super::decode::{decode, decode_with, default, FieldValidation};
use super::schema;
use super::store::Key;
use super::strategy::{self, UpdateMode};
use super::validation::{self, check, go_quote, FieldError};
use super::ApiServer;
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::status::{Reason, Status};

/// The etcd key an object is stored under, as storage errors print it
/// (`/registry/deployments/default/web`; nodes live under `minions`; custom resources under
/// their group).
pub fn storage_key(kind: &Kind, ns: Option<&str>, name: &str) -> String {
    let resource = match kind.resource {
        "nodes" => "minions".to_string(),
        r if kind.group.ends_with(".com") => format!("{}/{r}", kind.group),
        r => r.to_string(),
    };
    match ns {
        Some(ns) if kind.namespaced => format!("/registry/{resource}/{ns}/{name}"),
        _ => format!("/registry/{resource}/{name}"),
    }
}

fn grace_is_zero(obj: &Frozen) -> bool {
    obj.meta().and_then(|m| m.get("deletionGracePeriodSeconds")).and_then(Frozen::as_i64).unwrap_or(0) == 0
}

impl ApiServer {
    /// PUT of the main resource. Status (for kinds with a status subresource) is kept from the
    /// stored object; `spec.finalizers` of a Namespace too.
    pub fn update(&mut self, obj: Value) -> Result<Value, Status> {
        self.update_with(obj, UpdateMode::Main, true)
    }

    /// PUT under an explicit `fieldValidation` (kubectl replace's `--validate`); returns the
    /// object and the warnings.
    pub fn update_validated(
        &mut self,
        mut obj: Value,
        validation: FieldValidation,
    ) -> Result<(Value, Vec<String>), Status> {
        let kind = kind_of(&obj)?;
        let warnings = decode_with(kind, &mut obj, validation)?;
        self.update_with(obj, UpdateMode::Main, true).map(|v| (v, warnings))
    }

    /// PUT of `/status`: only status (and, per kind, some metadata) is taken from the request;
    /// generation never changes.
    pub fn update_status(&mut self, obj: Value) -> Result<Value, Status> {
        let kind = kind_of(&obj)?;
        if !kind.status_subresource {
            return Err(Status::new(Reason::NotFound, "the server could not find the requested resource"));
        }
        self.update_with(obj, UpdateMode::Status, true)
    }

    /// PUT `namespaces/<name>/finalize`: changes `spec.finalizers`. A Terminating namespace left
    /// with no finalizers at all is deleted (`ShouldDeleteNamespaceDuringUpdate`).
    pub fn finalize_namespace(&mut self, obj: Value) -> Result<Value, Status> {
        let kind = kind_of(&obj)?;
        if kind.kind != "Namespace" {
            return Err(Status::new(Reason::NotFound, "the server could not find the requested resource"));
        }
        self.update_with(obj, UpdateMode::Finalize, true)
    }

    /// POST `pods/<name>/binding`, the scheduler's write (k/k `pkg/registry/core/pod/storage`
    /// `BindingREST.assignPod`): sets `spec.nodeName` and the `PodScheduled=True` condition in
    /// one write. A pod already bound or being deleted is a 409 on `pods/binding`.
    pub fn bind(&mut self, ns: &str, name: &str, node: &str) -> Result<Value, Status> {
        let kind = Kind::by_kind("Pod").ok_or_else(|| Status::new(Reason::InternalError, "no Pod kind"))?;
        let key = Self::key(kind, Some(ns), name);
        // The stored pod's shared tree (the one the informers cache): read it, and copy it
        // once to change (reading it as a decoded copy and then copying that cost two copies).
        let old = self.store.get_shared(&key).ok_or_else(|| Status::not_found(kind, name))?;
        let conflict = |why: String| Status::conflict_with("pods/binding", "", "pods/binding", name, &why);
        if old.is_deleting() {
            return Err(conflict(format!("pod {name} is being deleted, cannot be assigned to a host")));
        }
        let bound = old.pointer("/spec/nodeName").and_then(Frozen::as_str).unwrap_or("");
        if !bound.is_empty() {
            return Err(conflict(format!("pod {name} is already assigned to node {bound:?}")));
        }
        let mut new = old.to_value();
        if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
            spec.insert("nodeName".into(), Value::from(node));
        }
        let now = self.now.rfc3339();
        let status = new.as_object_mut().map(|m| m.entry("status").or_insert_with(|| serde_json::json!({})));
        if let Some(Value::Object(status)) = status {
            let conds = status.entry("conditions").or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(conds) = conds {
                let cond = serde_json::json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": now});
                match conds.iter_mut().find(|c| c.get("type").and_then(Value::as_str) == Some("PodScheduled")) {
                    Some(c) if c.get("status").and_then(Value::as_str) == Some("True") => {}
                    Some(c) => *c = cond,
                    None => conds.push(cond),
                }
            }
        }
        schema::normalize(&mut new, schema::root(kind));
        Ok(self.commit_update_shared(key, &old, new))
    }

    /// The shared update path. `uid_precondition`: a PUT's body uid is a storage precondition;
    /// a PATCH carries none (a changed uid then fails validation as immutable).
    pub(crate) fn update_with(
        &mut self,
        mut obj: Value,
        mode: UpdateMode,
        uid_precondition: bool,
    ) -> Result<Value, Status> {
        let kind = kind_of(&obj)?;
        decode(kind, &obj)?;
        let name = obj.name().to_string();
        if name.is_empty() {
            return Err(Status::new(Reason::BadRequest, "resource name may not be empty"));
        }
        let ns = if kind.namespaced { Some(obj.namespace().unwrap_or("default").to_string()) } else { None };
        if let Some(ns) = &ns {
            obj.meta_mut().insert("namespace".into(), Value::from(ns.as_str()));
        }
        let key = Self::key(kind, ns.as_deref(), &name);
        let old = self.store.get_shared(&key).ok_or_else(|| Status::not_found(kind, &name))?;
        self.update_existing(kind, key, old, obj, mode, uid_precondition)
    }

    /// The update path once the stored object is known (also used by PATCH). The stored object
    /// is read as its shared tree (the one the informer caches hold): every update reads it,
    /// and copying it into a `Value` first cost about a quarter of a status write.
    pub(crate) fn update_existing(
        &mut self,
        kind: &Kind,
        key: Key,
        old: Shared,
        mut new: Value,
        mode: UpdateMode,
        uid_precondition: bool,
    ) -> Result<Value, Status> {
        let name = key.2.clone();
        if uid_precondition && !new.uid().is_empty() && new.uid() != old.uid() {
            let cause = format!(
                "StorageError: invalid object, Code: 4, Key: {}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {}, UID in object meta: {}",
                storage_key(kind, old.namespace(), &name),
                new.uid(),
                old.uid()
            );
            return Err(Status::conflict_with(&kind.group_resource(), kind.group, kind.resource, &name, &cause));
        }
        let rv_text =
            new.meta().and_then(|m| m.get("resourceVersion")).and_then(Value::as_str).unwrap_or("").to_string();
        if !rv_text.is_empty() && rv_text.parse::<u64>().is_err() {
            // The storage versioner cannot parse it (`storage.APIObjectVersioner`).
            let detail = format!("strconv.ParseUint: parsing {}: invalid syntax", go_quote(&rv_text));
            return Err(Status::invalid(
                kind,
                &name,
                vec![FieldError::invalid("resourceVersion", &rv_text, detail).cause()],
            ));
        }
        if rv_text.is_empty() || rv_text == "0" {
            if !kind.unconditional_update {
                return Err(Status::invalid(
                    kind,
                    &name,
                    vec![FieldError::invalid_raw(
                        "metadata.resourceVersion",
                        "0".into(),
                        "must be specified for an update",
                    )
                    .cause()],
                ));
            }
        } else if rv_text != old.resource_version().to_string() {
            return Err(Status::conflict(kind, &name));
        }
        default(kind, &mut new);

        // rest.BeforeUpdate
        let old_meta = |k: &str| old.meta().and_then(|m| m.get(k)).map(Frozen::to_value);
        let meta = new.meta_mut();
        match old_meta("generation") {
            Some(g) => meta.insert("generation".into(), g),
            None => meta.shift_remove("generation"),
        };
        strategy::prepare_for_update(kind, mode, &mut new, &old);
        let meta = new.meta_mut();
        if meta.get("uid").and_then(Value::as_str).is_none_or(str::is_empty) {
            if let Some(u) = old_meta("uid") {
                meta.insert("uid".into(), u);
            }
        }
        if let Some(c) = old_meta("creationTimestamp") {
            meta.insert("creationTimestamp".into(), c);
        }
        if let Some(d) = old_meta("deletionTimestamp") {
            meta.insert("deletionTimestamp".into(), d);
        }
        if let Some(g) = old_meta("deletionGracePeriodSeconds") {
            if meta.get("deletionGracePeriodSeconds").is_none_or(Value::is_null) {
                meta.insert("deletionGracePeriodSeconds".into(), g);
            }
        }
        if !kind.namespaced {
            meta.shift_remove("namespace");
        }
        let mut errs = Vec::new();
        validation::validate_object_meta(kind, &new, &mut errs);
        validation::validate_object_meta_update(&new, &old, &mut errs);
        if mode == UpdateMode::Main {
            errs.extend(strategy::validate_update(kind, &new, &old));
        }
        check(kind, &name, errs)?;
        schema::normalize(&mut new, schema::root(kind));

        // `ShouldDeleteDuringUpdate`: no finalizers left, and the stored object is being deleted
        // with no grace period pending; namespaces also need an empty `spec.finalizers`
        // (`ShouldDeleteNamespaceDuringUpdate`).
        let spec_finalizers_done = kind.kind != "Namespace"
            || new.pointer("/spec/finalizers").and_then(Value::as_array).is_none_or(Vec::is_empty);
        let should_delete =
            spec_finalizers_done && new.finalizers().is_empty() && old.is_deleting() && grace_is_zero(&old);
        if should_delete {
            let last = self.commit_delete_shared(key, &old);
            super::set_resource_version(&mut new, last.resource_version());
            return Ok(new);
        }
        Ok(self.commit_update_shared(key, &old, new))
    }
}
