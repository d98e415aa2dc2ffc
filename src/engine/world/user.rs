//! A user's API calls (kubectl, the editor): [`World::user`] and its shorthands, each logged so
//! that going back replays it, and recorded as one step with the call's verb, target and answer.

use serde_json::Value;

use super::input::{Input, UserCall, UserResult};
use super::narrate::stored_rv;
use super::record::{ActionKind, Actor, ApiCall, CallTarget, ObjectRef, StepRecord, Verb};
use super::World;
use crate::engine::apiserver::{DeleteOptions, Deleted, Patch, Subresource};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::Status;

impl World {
    /// A user API call (kubectl, the editor), logged so that going back replays it.
    pub fn user(&mut self, who: &str, call: UserCall) -> Result<UserResult, Status> {
        self.log(Input::User(Box::new((who.to_string(), call.clone()))));
        self.state.loops.fresh_input();
        let (r, rec) = self.apply_user(who, call);
        self.keep(rec);
        r
    }

    /// `user("kubectl", Create(obj))`, returning the object.
    pub fn create(&mut self, obj: Value) -> Result<Value, Status> {
        self.user("kubectl", UserCall::Create(obj)).map(UserResult::into_object)
    }

    /// `user("kubectl", Update(obj))`.
    pub fn update(&mut self, obj: Value) -> Result<Value, Status> {
        self.user("kubectl", UserCall::Update(obj)).map(UserResult::into_object)
    }

    /// `user("kubectl", Patch{..})` of the main resource.
    pub fn patch(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        patch: Patch,
    ) -> Result<Value, Status> {
        let call = UserCall::Patch {
            kind,
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
            patch,
            subresource: Subresource::Main,
        };
        self.user("kubectl", call).map(UserResult::into_object)
    }

    /// `user("kubectl", Delete{..})`.
    pub fn delete(
        &mut self,
        kind: &'static Kind,
        namespace: Option<&str>,
        name: &str,
        options: DeleteOptions,
    ) -> Result<Deleted, Status> {
        let call = UserCall::Delete { kind, namespace: namespace.map(str::to_string), name: name.to_string(), options };
        self.user("kubectl", call).map(UserResult::into_deleted)
    }

    fn apply_user(&mut self, who: &str, call: UserCall) -> (Result<UserResult, Status>, StepRecord) {
        let api = &mut self.state.api;
        let (verb, target, sent, r, ok) = match call {
            UserCall::Create(o) => {
                let t = CallTarget::object_of_kind(o.kind(), o.namespace(), o.name());
                let r = api.create(o).map(UserResult::Object);
                (Verb::Create, t, 0, r, 201)
            }
            UserCall::Update(o) => {
                let t = CallTarget::object_of_kind(o.kind(), o.namespace(), o.name());
                let sent = o.resource_version();
                (Verb::Update, t, sent, api.update(o).map(UserResult::Object), 200)
            }
            UserCall::UpdateStatus(o) => {
                let t = CallTarget::object_of_kind(o.kind(), o.namespace(), o.name());
                let sent = o.resource_version();
                (Verb::UpdateStatus, t, sent, api.update_status(o).map(UserResult::Object), 200)
            }
            UserCall::FinalizeNamespace(o) => {
                let t = CallTarget::object_of_kind(o.kind(), o.namespace(), o.name());
                let sent = o.resource_version();
                (Verb::UpdateFinalize, t, sent, api.finalize_namespace(o).map(UserResult::Object), 200)
            }
            UserCall::Patch { kind, namespace, name, patch, subresource } => {
                let t = CallTarget::object(kind, namespace.as_deref(), &name);
                let r = api.patch(kind, namespace.as_deref(), &name, &patch, subresource).map(UserResult::Object);
                (Verb::Patch, t, 0, r, 200)
            }
            UserCall::Delete { kind, namespace, name, options } => {
                let t = CallTarget::object(kind, namespace.as_deref(), &name);
                let r = api.delete(kind, namespace.as_deref(), &name, &options).map(UserResult::Deleted);
                (Verb::Delete, t, 0, r, 200)
            }
        };
        let (code, rv, error) = match &r {
            Ok(UserResult::Object(v)) | Ok(UserResult::Deleted(Deleted::Gone(v) | Deleted::Pending(v))) => {
                (ok, v.resource_version(), None)
            }
            Err(e) => (e.code(), 0, Some(e.message.clone())),
        };
        let stored = if code == 409 { stored_rv(&self.state.api, &target) } else { 0 };
        let call = ApiCall {
            verb,
            target: target.clone(),
            sent_resource_version: sent,
            code,
            resource_version: rv,
            error,
            stored_resource_version: stored,
        };
        let sentence = match &r {
            Ok(_) => format!("{who} sent {verb} {target}: {code}, now at resourceVersion {rv}."),
            Err(e) => format!("{who} sent {verb} {target}: {code} {}.", e.message),
        };
        let objects = match target.kind_and_key() {
            Some((k, key)) => vec![ObjectRef { kind: k.into(), key, resource_version: rv }],
            None => Vec::new(),
        };
        let rec = self.record(Actor::User(who.to_string()), ActionKind::UserCall, objects, vec![call], sentence);
        (r, rec)
    }
}
