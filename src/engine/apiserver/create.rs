//! CREATE (apiserver `pkg/registry/generic/registry/store.go`, `Create`): decode strictly, default,
//! admit, fill the system fields (`rest.BeforeCreate`, `FillObjectMetaSystemFields`,
//! `names.SimpleNameGenerator`), validate, store at the next revision, record ADDED. Success is 201
//! in Kubernetes; here it is `Ok(object as stored)`.

use serde_json::Value;

use super::decode::{decode_with, default, FieldValidation};
use super::schema;
use super::strategy;
use super::validation::{self, check};
use super::watch::{Change, EventType};
use super::ApiServer;
use crate::engine::frozen::Frozen;
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

/// A core/v1 Event as client-go's recorder sends it (`tools/record/event.go`, `makeEvent` and
/// `recordToSink`): about `involved` (kind, name, uid, apiVersion, resourceVersion, and its
/// namespace when it has one), named `name` in `namespace`, count 1, both timestamps
/// `timestamp`, no `eventTime`, an empty reporting instance.
#[derive(Clone, Copy, Debug)]
pub struct NewEvent<'a> {
    /// `metadata.name` (`<involved name>.<hex nanoseconds>`).
    pub name: &'a str,
    /// `metadata.namespace`: the involved object's, or `default` for a cluster-scoped one.
    pub namespace: &'a str,
    /// `involvedObject`: kind, name, uid, apiVersion, resourceVersion.
    pub involved: [&'a str; 5],
    /// `involvedObject.namespace` (omitted for a cluster-scoped object).
    pub involved_namespace: Option<&'a str>,
    /// `type`, `reason`, `message`.
    pub what: [&'a str; 3],
    /// `source.component` and `reportingComponent`.
    pub component: &'a str,
    /// `firstTimestamp` and `lastTimestamp`.
    pub timestamp: &'a str,
}

impl NewEvent<'_> {
    /// The Event as the request's body (what [`ApiServer::create`] takes).
    pub fn to_value(&self) -> Value {
        self.tree(None).to_value()
    }

    /// The Event as [`ApiServer::create`] stores it from [`NewEvent::to_value`]: the same
    /// fields in the same order, `metadata` completed with the uid, the resourceVersion and the
    /// creation time (nothing else of the Event is defaulted or reordered).
    fn stored(&self, uid: &str, rv: u64, created: &str) -> Frozen {
        self.tree(Some((uid, rv, created)))
    }

    /// The Event's fields, in the recorder's order; `stored` adds the uid, resourceVersion and
    /// creationTimestamp that the API server gives it to its `metadata`.
    fn tree(&self, stored: Option<(&str, u64, &str)>) -> Frozen {
        let [kind, name, obj_uid, api_version, obj_rv] = self.involved;
        let [event_type, reason, message] = self.what;
        let s = Frozen::string;
        // An ObjectReference: `namespace` only for namespaced objects (omitempty).
        let involved = Frozen::object(
            [("kind", s(kind))].into_iter().chain(self.involved_namespace.map(|ns| ("namespace", s(ns)))).chain([
                ("name", s(name)),
                ("uid", s(obj_uid)),
                ("apiVersion", s(api_version)),
                ("resourceVersion", s(obj_rv)),
            ]),
        );
        let metadata = Frozen::object([("name", s(self.name)), ("namespace", s(self.namespace))].into_iter().chain(
            stored.into_iter().flat_map(|(uid, rv, created)| {
                [("uid", s(uid)), ("resourceVersion", s(&rv.to_string())), ("creationTimestamp", s(created))]
            }),
        ));
        Frozen::object([
            ("apiVersion", s("v1")),
            ("kind", s("Event")),
            ("metadata", metadata),
            ("involvedObject", involved),
            ("reason", s(reason)),
            ("message", s(message)),
            ("source", Frozen::object([("component", s(self.component))])),
            ("firstTimestamp", s(self.timestamp)),
            ("lastTimestamp", s(self.timestamp)),
            ("count", Frozen::PosInt(1)),
            ("type", s(event_type)),
            ("eventTime", Frozen::Null),
            ("reportingComponent", s(self.component)),
            ("reportingInstance", s("")),
        ])
    }
}

impl ApiServer {
    /// POST of a recorder's Event ([`NewEvent`]): the same outcome as [`ApiServer::create`] of
    /// [`NewEvent::to_value`] (the same stored object, resourceVersion, uid draw and watch
    /// event), built as its stored tree directly. A controller records an Event for most things
    /// it does (six per pod started), and the general path's decoding, defaulting, validation
    /// and normalizing of a `Value` that the recorder always makes the same way cost several
    /// times the write itself. Whenever the request could fail (a name or namespace the
    /// validation would refuse, a namespace missing or Terminating, the name taken) or its
    /// shape is unusual (an empty reference), it takes the general path, which answers the
    /// exact error; the quota's refusal of an Event that passes those checks is answered here,
    /// as the general path would. Returns the Event's resourceVersion.
    pub fn create_event(&mut self, ev: &NewEvent<'_>) -> Result<u64, Status> {
        let Some(kind) = Kind::by_kind("Event") else {
            return self.create(ev.to_value()).map(|v| v.resource_version());
        };
        let [involved_kind, involved_name, _, involved_api_version, _] = ev.involved;
        let key = Self::key(kind, Some(ev.namespace), ev.name);
        let admitted = !involved_kind.is_empty()
            && !involved_name.is_empty()
            && !involved_api_version.is_empty()
            && ev.involved_namespace.is_none_or(|ns| !ns.is_empty())
            && !ev.namespace.is_empty()
            && validation::name_errors(kind, ev.name, false).is_empty()
            && validation::dns1123_label_errors(ev.namespace).is_empty()
            && self.namespace_is_active(ev.namespace);
        if admitted {
            if let Err(refused) = self.admit_quota(kind, ev.name) {
                // The general path's outcome for an admitted Event once the quota is reached: the
                // uid draw of `BeforeCreate`, then the quota's refusal (before the name is looked
                // up). Past the quota, every Event of a large scale-up ends here.
                self.rng.uuid_v4();
                return Err(refused);
            }
        }
        if !admitted || self.store.contains(&key) {
            return self.create(ev.to_value()).map(|v| v.resource_version());
        }
        // The general path's state changes, in its order: the uid draw, then the revision.
        let uid = self.rng.uuid_v4();
        let created = self.now.rfc3339();
        let rv = self.store.next_revision();
        let object = self.store.put_tree(key.clone(), ev.stored(&uid, rv, &created));
        self.watches.record(key.0, Change { rv, event_type: EventType::Added, object, prev: None });
        Ok(rv)
    }
}
