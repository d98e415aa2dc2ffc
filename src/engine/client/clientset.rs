//! The API as a controller's client sees it (client-go's clientset, `kubernetes.Interface`): the
//! calls a reconcile makes, by verb. The World implements it over the API server, adding what a
//! process's connection adds (recording, faults: `engine::world::api`); the controllers' unit
//! tests implement it with a fake.

// `Status` is the API's error value, as the API server returns it (see apiserver/mod.rs).
#![allow(clippy::result_large_err)]

use serde_json::Value;

use crate::engine::apiserver::create::NewEvent;
use crate::engine::cloud::{CloudBucket, CloudCall, CloudError};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::status::{Reason, Status};

/// `metav1.DeleteOptions`, as a controller sends them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteOpts {
    /// `propagationPolicy`: `Background`, `Foreground` or `Orphan`.
    pub propagation: Option<&'static str>,
    /// `gracePeriodSeconds`.
    pub grace_period_seconds: Option<i64>,
    /// `preconditions.uid`.
    pub precondition_uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub precondition_resource_version: Option<String>,
}

/// The API as a controller sees it: each call goes to the API server (through faults the world
/// may inject) and is recorded with its result.
pub trait Api {
    /// `GET`.
    fn get(&mut self, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Result<Value, Status>;
    /// `POST`.
    fn create(&mut self, obj: Value) -> Result<Value, Status>;
    /// `POST` of an Event from the recorder ([`NewEvent`]): the same request as `create` of
    /// [`NewEvent::to_value`], answering the Event's resourceVersion (the World's connection
    /// sends it without building the `Value`: see [`crate::engine::apiserver::ApiServer::create_event`]).
    fn create_event(&mut self, ev: &NewEvent<'_>) -> Result<u64, Status> {
        self.create(ev.to_value()).map(|v| crate::engine::object::ObjectExt::resource_version(&v))
    }
    /// [`Api::get`] of an object only to read it: the stored tree itself where the client can
    /// hand it out (the garbage collector's live reads of every object it deletes), else a copy.
    fn get_shared(&mut self, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Result<Shared, Status> {
        self.get(kind, namespace, name).map(|v| Shared::new(Frozen::from(v)))
    }
    /// `PUT` of the main resource.
    fn update(&mut self, obj: Value) -> Result<Value, Status>;
    /// `PUT` of the `/status` subresource.
    fn update_status(&mut self, obj: Value) -> Result<Value, Status>;
    /// [`Api::update_status`] of `obj` (an object as read, from a cache) with `status` in place
    /// of its status; returns the written resourceVersion. A client that can write it without
    /// copying `obj` first does (the kubelet writes a pod's status several times as it starts).
    fn update_status_of(&mut self, obj: &Frozen, status: Frozen) -> Result<u64, Status> {
        self.update_status(with_status(obj, status.to_value())).map(|v| v.resource_version())
    }
    /// `PATCH` (JSON merge patch) of the main resource.
    fn merge_patch(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        patch: Value,
    ) -> Result<Value, Status>;
    /// `DELETE`. `Ok(Some(obj))` when the object is still there (finalizers or grace period),
    /// as stored, `Ok(None)` when it is gone.
    fn delete(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOpts,
    ) -> Result<Option<Shared>, Status>;
    /// A live `LIST` of a kind (in a namespace, or all), straight from the API server rather than
    /// an informer cache: the namespace controller needs the truth before it finalizes
    /// (k/k `pkg/controller/namespace/deletion/namespaced_resources_deleter.go`, `Delete`). Clients
    /// that cannot list answer 405.
    fn list(&mut self, kind: &'static Kind, namespace: Option<&str>) -> Result<Vec<Value>, Status> {
        let _ = namespace;
        Err(Status::new(Reason::MethodNotAllowed, format!("this client cannot list {}", kind.group_resource())))
    }
    /// `POST /api/v1/namespaces/<ns>/pods/<name>/binding`, the scheduler's write: sets
    /// `spec.nodeName` and the `PodScheduled` condition in one write, and returns the bound
    /// pod's resourceVersion. Clients that cannot reach the subresource answer 405.
    fn bind(&mut self, namespace: &str, name: &str, node: &str) -> Result<u64, Status> {
        let _ = (namespace, name, node);
        Err(Status::new(Reason::MethodNotAllowed, "this client cannot bind pods"))
    }
    /// `PUT /api/v1/namespaces/<name>/finalize` (k/k
    /// `pkg/registry/core/namespace/storage/storage.go`, `FinalizeREST.Update`). Clients that
    /// cannot reach the subresource answer 405.
    fn finalize_namespace(&mut self, obj: Value) -> Result<Value, Status> {
        let _ = obj;
        Err(Status::new(Reason::MethodNotAllowed, "this client cannot finalize namespaces"))
    }
    /// One call to the external cloud's storage API ([`crate::engine::cloud`]), for
    /// controllers of things outside the cluster (the Bucket controller). The world records it like
    /// an API call. Clients with no cloud answer [`CloudError::Unreachable`].
    fn cloud(&mut self, call: CloudCall) -> Result<CloudBucket, CloudError> {
        let _ = call;
        Err(CloudError::Unreachable)
    }
}

/// A copy of `obj` to write, with `status` in place of its status (where it was, or last): the
/// same value as copying the whole object and then setting `status`, without copying the old
/// status first.
pub fn with_status(obj: &Frozen, status: Value) -> Value {
    let Some(entries) = obj.as_object() else {
        let mut copy = obj.to_value();
        copy["status"] = status;
        return copy;
    };
    let mut map = serde_json::Map::with_capacity(entries.len() + 1);
    let mut status = Some(status);
    for (k, v) in entries.iter() {
        let v = if k == "status" { status.take().unwrap_or(Value::Null) } else { v.to_value() };
        map.insert(String::from(k), v);
    }
    if let Some(status) = status {
        map.insert("status".into(), status);
    }
    Value::Object(map)
}
