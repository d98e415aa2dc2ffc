//! CREATE (apiserver `pkg/registry/generic/registry/store.go`, `Create`): decode strictly, default,
//! admit, fill the system fields (`rest.BeforeCreate`, `FillObjectMetaSystemFields`,
//! `names.SimpleNameGenerator`), validate, store at the next revision, record ADDED. Success is 201
//! in Kubernetes; here it is `Ok(object as stored)`.

use serde_json::Value;

use super::decode::{decode_with, default, FieldValidation};
use super::schema;
use super::strategy;
use super::validation::{self, check};
use super::ApiServer;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::{Reason, Status};

/// `storage.ErrResourceVersionSetOnCreate`: not a typed API error upstream, so the handler
/// answers 500 with an empty reason and this text.
pub const RESOURCE_VERSION_SET_ON_CREATE: &str = "resourceVersion should not be set on objects to be created";

/// Finds the kind an object names by `apiVersion` and `kind`.
pub fn kind_of(obj: &Value) -> Result<&'static Kind, Status> {
    let (av, k) = (obj.api_version(), obj.kind());
    if k.is_empty() {
        return Err(Status::new(Reason::BadRequest, format!("Object 'Kind' is missing in '{obj}'")));
    }
    Kind::for_object(av, k).ok_or_else(|| {
        Status::new(
            Reason::NotFound,
            format!(
                "the server could not find the requested resource (no kind {k:?} is registered for version {av:?})"
            ),
        )
    })
}

impl ApiServer {
    /// POST: creates an object of the kind its `apiVersion`/`kind` name.
    ///
    /// Errors: 400 on unknown fields or wrong types; 404 if its namespace does not exist; 403 if
    /// the namespace is Terminating or the object cap is reached; 422 on invalid names, labels,
    /// owner references, finalizers or spec; 409 AlreadyExists; 500 if `resourceVersion` is set.
    pub fn create(&mut self, obj: Value) -> Result<Value, Status> {
        self.create_validated(obj, FieldValidation::Strict).map(|(v, _)| v)
    }

    /// POST under an explicit `fieldValidation` (kubectl's `--validate=strict|warn|ignore`);
    /// returns the object and the warnings.
    pub fn create_validated(
        &mut self,
        mut obj: Value,
        validation: FieldValidation,
    ) -> Result<(Value, Vec<String>), Status> {
        let kind = kind_of(&obj)?;
        let warnings = decode_with(kind, &mut obj, validation)?;
        let meta = obj.meta_mut();
        if kind.namespaced {
            if meta.get("namespace").and_then(Value::as_str).is_none_or(str::is_empty) {
                meta.insert("namespace".into(), Value::from("default"));
            }
        } else {
            meta.shift_remove("namespace");
        }
        default(kind, &mut obj);
        let ns = obj.namespace().unwrap_or("").to_string();
        self.admit_namespace_lifecycle(kind, &ns, &obj)?;

        // rest.BeforeCreate
        let meta = obj.meta_mut();
        meta.shift_remove("deletionTimestamp");
        meta.shift_remove("deletionGracePeriodSeconds");
        let uid = self.rng.uuid_v4();
        obj.meta_mut().insert("uid".into(), Value::from(uid));
        strategy::prepare_for_create(kind, &mut obj);
        // The reset status is a zero Go struct: its fields without omitempty still marshal.
        schema::apply_defaults(&mut obj, schema::root(kind));
        let meta = obj.meta_mut();
        meta.insert("creationTimestamp".into(), Value::from(self.now.rfc3339()));
        let generate = meta.get("generateName").and_then(Value::as_str).unwrap_or("").to_string();
        let explicit_name = meta.get("name").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
        if !explicit_name && !generate.is_empty() {
            let name = self.generate_name(kind, &ns, &generate);
            obj.meta_mut().insert("name".into(), Value::from(name));
        }
        let mut errs = Vec::new();
        validation::validate_object_meta(kind, &obj, &mut errs);
        errs.extend(strategy::validate(kind, &obj));
        check(kind, obj.name(), errs)?;
        self.admit_quota(kind, obj.name())?;

        let key = Self::key(kind, obj.namespace(), obj.name());
        // etcd3 store.Create refuses a set resourceVersion before it looks for the key.
        if obj
            .meta()
            .and_then(|m| m.get("resourceVersion"))
            .and_then(Value::as_str)
            .is_some_and(|rv| !rv.is_empty() && rv != "0")
        {
            return Err(Status::new(Reason::Unknown, RESOURCE_VERSION_SET_ON_CREATE));
        }
        if let Some(existing) = self.store.get(&key) {
            let mut err = Status::already_exists(kind, obj.name());
            // store.go Create: a name held by an object that is being deleted says so.
            if existing.is_deleting() {
                err.message = format!("object is being deleted: {}", err.message);
            }
            return Err(err);
        }
        schema::normalize(&mut obj, schema::root(kind));
        Ok((self.commit_create(key, obj), warnings))
    }

    /// `names.SimpleNameGenerator`: the base truncated to 58 characters plus five characters
    /// from Kubernetes' alphabet. A name already taken draws again (the real server would
    /// answer a retryable error; drawing again keeps the run deterministic).
    fn generate_name(&mut self, kind: &Kind, ns: &str, base: &str) -> String {
        let base: String = base.chars().take(58).collect();
        loop {
            let name = format!("{base}{}", self.rng.alphanums(5));
            if !self.store.contains(&Self::key(kind, Some(ns), &name)) {
                return name;
            }
        }
    }
}
