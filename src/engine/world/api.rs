//! A process's connection to the API server: every call goes through here, so the world can
//! record it (with its result) and inject the faults of a bad day: the process is partitioned
//! from the API server, its calls fail for a while, or another client writes the object between
//! the controller's read and its write.

use std::borrow::Cow;

use serde_json::{json, Value};

use super::record::{ApiCall, CallTarget, Verb};
use crate::engine::apiserver::create::NewEvent;
use crate::engine::apiserver::{ApiServer, DeleteOptions, Patch, Propagation, Removed, Subresource};
use crate::engine::client::clientset::with_status;
use crate::engine::client::{Api, DeleteOpts};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::status::{Reason, Status};

/// The label the injected "other client" bumps to make a controller's next write stale.
pub const TOUCH_LABEL: &str = "reconcile-lab.example.com/touched";

/// How a process's calls fail, if they do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Partitioned: nothing reaches the API server.
    Unreachable,
    /// The API server answers 500 to everything from this process.
    ServerError,
    /// The controller's service account has no RBAC permissions: every call is 403 Forbidden.
    /// Carries the service account's name.
    Forbidden(&'static str),
}

impl Failure {
    /// The error a client sees.
    pub fn status(self, verb: &str, path: &str) -> Status {
        match self {
            Failure::Unreachable => Status::new(
                Reason::ServiceUnavailable,
                format!("{verb} \"https://10.96.0.1:443{path}\": dial tcp 10.96.0.1:443: connect: connection refused"),
            ),
            Failure::ServerError => Status::new(Reason::InternalError, "etcdserver: request timed out"),
            Failure::Forbidden(sa) => Status::new(Reason::Forbidden, format!("forbidden: User \"{}\"", user(sa))),
        }
    }

    /// The error of one call to `kind` (`sub`: a subresource such as `status`), as
    /// kube-apiserver's authorization filter answers a denied request
    /// (apiserver `pkg/endpoints/handlers/responsewriters/errors.go`, `forbiddenMessage`, wrapped
    /// by `errors.NewForbidden`).
    /// `verb` is the HTTP method (`Get` with no name is a list).
    pub(crate) fn status_for(self, verb: &str, kind: &Kind, ns: Option<&str>, name: &str, sub: &str) -> Status {
        let Failure::Forbidden(sa) = self else {
            let mut p = path(kind, ns, name);
            if !sub.is_empty() {
                p = format!("{p}/{sub}");
            }
            return self.status(verb, &p);
        };
        let rbac_verb = match verb {
            "Post" => "create",
            "Put" => "update",
            "Patch" => "patch",
            "Delete" => "delete",
            _ if name.is_empty() => "list",
            _ => "get",
        };
        let resource = if sub.is_empty() { kind.resource.to_string() } else { format!("{}/{sub}", kind.resource) };
        let scope = match ns {
            Some(ns) => format!("in the namespace \"{ns}\""),
            None => "at the cluster scope".to_string(),
        };
        let why = format!(
            "User \"{}\" cannot {rbac_verb} resource \"{resource}\" in API group \"{}\" {scope}",
            user(sa),
            kind.group
        );
        // A create or a list names no object in its URL.
        let named = if verb == "Post" || name.is_empty() { String::new() } else { format!(" \"{name}\"") };
        Status {
            name: name.to_string(),
            group: kind.group.to_string(),
            kind: kind.resource.to_string(),
            ..Status::new(Reason::Forbidden, format!("{}{named} is forbidden: {why}", kind.group_resource()))
        }
    }
}

/// A kube-controller-manager controller's user name.
fn user(sa: &str) -> String {
    format!("system:serviceaccount:kube-system:{sa}")
}

/// The `Api` a controller of one process uses during one step.
pub struct WorldApi<'a> {
    /// The server.
    pub server: &'a mut ApiServer,
    /// Calls made so far in this step.
    pub calls: &'a mut Vec<ApiCall>,
    /// Whether (and how) every call fails.
    pub failure: Option<Failure>,
    /// One-shot: before the next write of an existing object, another client writes it.
    pub conflict_armed: &'a mut bool,
}

/// The record's target for an object as sent: its served kind when `Kind::for_object` found one.
fn sent_target(kind: Option<&'static Kind>, obj: &impl ObjectExt) -> CallTarget {
    match kind {
        Some(k) => CallTarget::object(k, obj.namespace(), obj.name()),
        None => CallTarget::object_of_kind(obj.kind(), obj.namespace(), obj.name()),
    }
}

fn path(kind: &Kind, ns: Option<&str>, name: &str) -> String {
    let base =
        if kind.group.is_empty() { "/api/v1".to_string() } else { format!("/apis/{}/{}", kind.group, kind.version) };
    let ns = ns.map(|n| format!("/namespaces/{n}")).unwrap_or_default();
    // A create or a list addresses the collection: no trailing slash.
    if name.is_empty() {
        format!("{base}{ns}/{}", kind.resource)
    } else {
        format!("{base}{ns}/{}/{name}", kind.resource)
    }
}

impl WorldApi<'_> {
    fn push(&mut self, verb: Verb, tgt: CallTarget, sent: u64, result: &Result<Value, Status>, ok_code: u16) {
        self.push_outcome(verb, tgt, sent, result.as_ref().map(ObjectExt::resource_version), ok_code);
    }

    /// [`WorldApi::push`] of a call's outcome: the written resourceVersion, or the error.
    fn push_outcome(&mut self, verb: Verb, tgt: CallTarget, sent: u64, outcome: Result<u64, &Status>, ok_code: u16) {
        let (code, rv, error) = match outcome {
            Ok(rv) => (ok_code, rv, None),
            Err(e) => (e.code(), 0, Some(e.message.clone())),
        };
        let stored = if code == 409 { super::stored_rv(self.server, &tgt) } else { 0 };
        self.calls.push(ApiCall {
            verb,
            target: tgt,
            sent_resource_version: sent,
            code,
            resource_version: rv,
            error,
            stored_resource_version: stored,
        });
    }

    fn fail(&self, verb: &str, kind: &Kind, ns: Option<&str>, name: &str) -> Option<Status> {
        self.failure.map(|f| f.status_for(verb, kind, ns, name, ""))
    }

    /// The injected other client: bumps [`TOUCH_LABEL`] on the stored object, so the write that
    /// follows carries a stale resourceVersion.
    fn maybe_conflict(&mut self, obj: &Value) {
        if !*self.conflict_armed || obj.resource_version() == 0 {
            return;
        }
        let Some(kind) = Kind::for_object(obj.api_version(), obj.kind()) else { return };
        *self.conflict_armed = false;
        let n = obj.label(TOUCH_LABEL).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0) + 1;
        let patch = Patch::Merge(json!({"metadata": {"labels": {TOUCH_LABEL: n.to_string()}}}));
        let r = self.server.patch(kind, obj.namespace(), obj.name(), &patch, Subresource::Main);
        self.push(Verb::PatchByAnotherClient, CallTarget::object(kind, obj.namespace(), obj.name()), 0, &r, 200);
    }
}

impl Api for WorldApi<'_> {
    fn get(&mut self, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Result<Value, Status> {
        let r = match self.fail("Get", kind, namespace, name) {
            Some(e) => Err(e),
            None => self.server.get(kind, namespace, name),
        };
        self.push(Verb::Get, CallTarget::object(kind, namespace, name), 0, &r, 200);
        r
    }

    fn get_shared(&mut self, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Result<Shared, Status> {
        let r = match self.fail("Get", kind, namespace, name) {
            Some(e) => Err(e),
            None => self.server.get_shared(kind, namespace, name),
        };
        let outcome = r.as_ref().map(|o| o.resource_version());
        self.push_outcome(Verb::Get, CallTarget::object(kind, namespace, name), 0, outcome, 200);
        r
    }

    // The object goes to the server by value; the record needs only its kind and name, read
    // first (copying every written object for them cost a deep clone per write).
    fn create(&mut self, obj: Value) -> Result<Value, Status> {
        let kind = Kind::for_object(obj.api_version(), obj.kind());
        let name = obj.name().to_string();
        let ns = obj.namespace().map(str::to_string);
        let tkind = match kind {
            Some(k) => Cow::Borrowed(k.kind),
            None => Cow::Owned(obj.kind().to_string()),
        };
        let generate_name =
            obj.meta().and_then(|m| m.get("generateName")).and_then(Value::as_str).unwrap_or("").to_string();
        let failure = kind.and_then(|k| self.fail("Post", k, ns.as_deref(), ""));
        let r = match failure {
            Some(e) => Err(e),
            None => self.server.create(obj),
        };
        let shown = match &r {
            Ok(v) => v.name().to_string(),
            Err(_) if name.is_empty() => generate_name,
            Err(_) => name,
        };
        self.push(Verb::Create, CallTarget::Object { kind: tkind, namespace: ns, name: shown }, 0, &r, 201);
        r
    }

    // What `create` of the Event's `Value` records: a POST of an Event, named as sent.
    fn create_event(&mut self, ev: &NewEvent<'_>) -> Result<u64, Status> {
        let Some(kind) = Kind::by_kind("Event") else {
            return self.create(ev.to_value()).map(|v| v.resource_version());
        };
        let r = match self.fail("Post", kind, Some(ev.namespace), "") {
            Some(e) => Err(e),
            None => self.server.create_event(ev),
        };
        let target = CallTarget::object(kind, Some(ev.namespace), ev.name);
        self.push_outcome(Verb::Create, target, 0, r.as_ref().copied(), 201);
        r
    }

    fn update(&mut self, obj: Value) -> Result<Value, Status> {
        let sent = obj.resource_version();
        let kind = Kind::for_object(obj.api_version(), obj.kind());
        let tgt = sent_target(kind, &obj);
        let r = match kind.and_then(|k| self.fail("Put", k, obj.namespace(), obj.name())) {
            Some(e) => Err(e),
            None => {
                self.maybe_conflict(&obj);
                self.server.update(obj)
            }
        };
        self.push(Verb::Update, tgt, sent, &r, 200);
        r
    }

    fn update_status(&mut self, obj: Value) -> Result<Value, Status> {
        let sent = obj.resource_version();
        let kind = Kind::for_object(obj.api_version(), obj.kind());
        let tgt = sent_target(kind, &obj);
        let failure = self.failure;
        let r = match kind.and_then(|k| failure.map(|f| f.status_for("Put", k, obj.namespace(), obj.name(), "status")))
        {
            Some(e) => Err(e),
            None => {
                self.maybe_conflict(&obj);
                self.server.update_status(obj)
            }
        };
        self.push(Verb::UpdateStatus, tgt, sent, &r, 200);
        r
    }

    /// Without an injected failure or conflict, the API server's own form of the write
    /// ([`ApiServer::update_status_of`]); otherwise [`Api::update_status`] of the copy, so that
    /// the injection sees the request it always sees.
    fn update_status_of(&mut self, obj: &Frozen, status: Frozen) -> Result<u64, Status> {
        if self.failure.is_some() || *self.conflict_armed {
            return self.update_status(with_status(obj, status.to_value())).map(|v| v.resource_version());
        }
        let sent = obj.resource_version();
        let kind = Kind::for_object(obj.api_version(), obj.kind());
        let target = sent_target(kind, obj);
        let r = self.server.update_status_of(obj, status);
        self.push_outcome(Verb::UpdateStatus, target, sent, r.as_ref().copied(), 200);
        r
    }

    /// Recorded as `CREATE /binding Pod ns/name → 201`: a POST of a Binding to the pod's
    /// `binding` subresource.
    fn bind(&mut self, namespace: &str, name: &str, node: &str) -> Result<u64, Status> {
        let kind = Kind::by_kind("Pod").expect("built-in kind");
        let r = match self.failure.map(|f| f.status_for("Post", kind, Some(namespace), name, "binding")) {
            Some(e) => Err(e),
            None => self.server.bind(namespace, name, node).map(|pod| pod.resource_version()),
        };
        let target = CallTarget::object(kind, Some(namespace), name);
        self.push_outcome(Verb::CreateBinding, target, 0, r.as_ref().copied(), 201);
        r
    }

    fn merge_patch(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        patch: Value,
    ) -> Result<Value, Status> {
        let r = match self.fail("Patch", kind, namespace, name) {
            Some(e) => Err(e),
            None => self.server.patch(kind, namespace, name, &Patch::Merge(patch), Subresource::Main),
        };
        self.push(Verb::Patch, CallTarget::object(kind, namespace, name), 0, &r, 200);
        r
    }

    fn delete(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOpts,
    ) -> Result<Option<Shared>, Status> {
        let options = DeleteOptions {
            propagation_policy: match opts.propagation {
                Some("Foreground") => Some(Propagation::Foreground),
                Some("Orphan") => Some(Propagation::Orphan),
                Some(_) => Some(Propagation::Background),
                None => None,
            },
            grace_period_seconds: opts.grace_period_seconds,
            preconditions_resource_version: opts.precondition_resource_version.clone(),
            preconditions_uid: opts.precondition_uid.clone(),
        };
        let r = match self.fail("Delete", kind, namespace, name) {
            Some(e) => Err(e),
            None => self.server.delete_shared(kind, namespace, name, &options),
        };
        // The call's record reads the answer (its resourceVersion, or the error) in place: no
        // copy of the object that is still there, nor of the one that is gone (the controller
        // gets `None` for it).
        let outcome = match &r {
            Ok(Removed::Gone(last)) => Ok(last.resource_version()),
            Ok(Removed::Pending(v)) => Ok(v.resource_version()),
            Err(e) => Err(e),
        };
        self.push_outcome(Verb::Delete, CallTarget::object(kind, namespace, name), 0, outcome, 200);
        r.map(|removed| match removed {
            Removed::Gone(_) => None,
            Removed::Pending(v) => Some(v),
        })
    }
}

/// The leader elector's calls go through the same connection (recorded, and failing when the
/// process is partitioned or its calls fail).
impl crate::engine::client::LeaseClient for WorldApi<'_> {
    fn get_lease(&mut self, namespace: &str, name: &str) -> Result<Value, Status> {
        let kind = Kind::by_kind("Lease")
            .ok_or_else(|| Status::new(Reason::InternalError, "the server does not serve leases"))?;
        Api::get(self, kind, Some(namespace), name)
    }
    fn create_lease(&mut self, lease: Value) -> Result<Value, Status> {
        Api::create(self, lease)
    }
    fn update_lease(&mut self, lease: Value) -> Result<Value, Status> {
        Api::update(self, lease)
    }
}
