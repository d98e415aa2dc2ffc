//! A controller's connection to the external cloud ([`crate::engine::cloud`]), on top of its
//! connection to the API server ([`WorldApi`]): cloud calls are recorded with the API calls,
//! and the two calls only the namespace controller makes (a live `LIST`, `PUT .../finalize`).

use serde_json::Value;

use super::api::WorldApi;
use super::record::{ApiCall, CallTarget, Verb};
use crate::engine::apiserver::create::NewEvent;
use crate::engine::client::{Api, DeleteOpts};
use crate::engine::cloud::{Cloud, CloudBucket, CloudCall, CloudError};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::status::Status;
use crate::engine::time::Time;

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
    fn record(&mut self, verb: Verb, target: CallTarget, result: Result<u64, (u16, String)>) {
        let (code, resource_version, error) = match result {
            Ok(rv) => (200, rv, None),
            Err((code, e)) => (code, 0, Some(e)),
        };
        self.inner.calls.push(ApiCall {
            verb,
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
    fn get_shared(&mut self, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Result<Shared, Status> {
        self.inner.get_shared(kind, namespace, name)
    }
    fn create(&mut self, obj: Value) -> Result<Value, Status> {
        self.inner.create(obj)
    }
    fn create_event(&mut self, ev: &NewEvent<'_>) -> Result<u64, Status> {
        self.inner.create_event(ev)
    }
    fn update(&mut self, obj: Value) -> Result<Value, Status> {
        self.inner.update(obj)
    }
    fn update_status(&mut self, obj: Value) -> Result<Value, Status> {
        self.inner.update_status(obj)
    }
    fn update_status_of(&mut self, obj: &Frozen, status: Frozen) -> Result<u64, Status> {
        self.inner.update_status_of(obj, status)
    }
    fn bind(&mut self, namespace: &str, name: &str, node: &str) -> Result<u64, Status> {
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
    ) -> Result<Option<Shared>, Status> {
        self.inner.delete(kind, namespace, name, opts)
    }

    fn list(&mut self, kind: &'static Kind, namespace: Option<&str>) -> Result<Vec<Value>, Status> {
        let target = CallTarget::Collection { kind: kind.kind, namespace: namespace.map(str::to_string) };
        let r = match self.inner.failure {
            Some(f) => Err(f.status_for("Get", kind, namespace, "", "")),
            None => self.inner.server.list(kind, namespace, &Selector::everything()),
        };
        self.record(
            Verb::List,
            target,
            r.as_ref().map(|l| l.resource_version).map_err(|e| (e.code(), e.message.clone())),
        );
        r.map(|l| l.items)
    }

    fn finalize_namespace(&mut self, obj: Value) -> Result<Value, Status> {
        let kind = Kind::by_kind("Namespace").expect("built-in kind");
        let r = match self.inner.failure {
            Some(f) => Err(f.status_for("Put", kind, None, obj.name(), "finalize")),
            None => self.inner.server.finalize_namespace(obj.clone()),
        };
        let target = CallTarget::object(kind, None, obj.name());
        self.record(
            Verb::UpdateFinalize,
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
        self.record(Verb::Cloud(call.recorded_verb()), CallTarget::CloudBucket(call.bucket().to_string()), code);
        r
    }
}
