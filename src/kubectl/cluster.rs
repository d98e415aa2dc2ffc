//! What kubectl talks to. Reads go straight to the API server; writes go through
//! [`Cluster`] so that, in a [`World`], they are logged as user inputs (recorded as steps and
//! replayed when the learner goes back), exactly as the world logs the editor's saves.
//! A bare [`ApiServer`] is a cluster too (no controllers, nothing recorded).

// The API contract answers `Result<_, Status>` (see engine::apiserver); Status is a plain value.
#![allow(clippy::result_large_err)]

use crate::engine::apiserver::{
    ApiServer, DeleteOptions, Deleted, ObjectList, Patch, Subresource, WatchEvent, WatchFrom, WatchId,
};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::status::Status;
use crate::engine::time::Time;
use crate::engine::world::{UserCall, UserResult, World};
use serde_json::Value;

/// kubectl's view of a cluster.
pub trait Cluster {
    /// The API server, for reads.
    fn server(&self) -> &ApiServer;
    /// The API server, for kubectl's own watches (which are not simulation inputs).
    fn server_mut(&mut self) -> &mut ApiServer;
    /// POST.
    fn create(&mut self, obj: Value) -> Result<Value, Status>;
    /// PUT.
    fn update(&mut self, obj: Value) -> Result<Value, Status>;
    /// PATCH.
    fn patch(
        &mut self,
        kind: &'static Kind,
        ns: Option<&str>,
        name: &str,
        patch: &Patch,
        sub: Subresource,
    ) -> Result<Value, Status>;
    /// DELETE.
    fn delete(
        &mut self,
        kind: &'static Kind,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, Status>;
    /// The simulation, when there is one (`lab` commands need it).
    fn world(&mut self) -> Option<&mut World> {
        None
    }

    /// GET.
    fn get(&self, kind: &Kind, ns: Option<&str>, name: &str) -> Result<Value, Status> {
        self.server().get(kind, ns, name)
    }
    /// LIST.
    fn list(&self, kind: &Kind, ns: Option<&str>, sel: &Selector) -> Result<ObjectList, Status> {
        self.server().list(kind, ns, sel)
    }
    /// The virtual clock.
    fn now(&self) -> Time {
        self.server().now()
    }
    /// The current global revision.
    fn resource_version(&self) -> u64 {
        self.server().resource_version()
    }
    /// WATCH.
    fn watch(&mut self, kind: &Kind, ns: Option<&str>, sel: Selector, from: WatchFrom) -> WatchId {
        self.server_mut().watch(kind, ns, sel, from)
    }
    /// Takes the oldest queued event of a watch.
    fn next_event(&mut self, id: WatchId) -> Option<WatchEvent> {
        self.server_mut().next_event(id)
    }
    /// Closes a watch.
    fn stop_watch(&mut self, id: WatchId) {
        self.server_mut().stop_watch(id);
    }
}

impl Cluster for ApiServer {
    fn server(&self) -> &ApiServer {
        self
    }
    fn server_mut(&mut self) -> &mut ApiServer {
        self
    }
    fn create(&mut self, obj: Value) -> Result<Value, Status> {
        ApiServer::create(self, obj)
    }
    fn update(&mut self, obj: Value) -> Result<Value, Status> {
        ApiServer::update(self, obj)
    }
    fn patch(
        &mut self,
        kind: &'static Kind,
        ns: Option<&str>,
        name: &str,
        patch: &Patch,
        sub: Subresource,
    ) -> Result<Value, Status> {
        ApiServer::patch(self, kind, ns, name, patch, sub)
    }
    fn delete(
        &mut self,
        kind: &'static Kind,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, Status> {
        ApiServer::delete(self, kind, ns, name, opts)
    }
}

impl Cluster for World {
    fn server(&self) -> &ApiServer {
        self.api()
    }
    fn server_mut(&mut self) -> &mut ApiServer {
        self.api_mut()
    }
    fn create(&mut self, obj: Value) -> Result<Value, Status> {
        World::create(self, obj)
    }
    fn update(&mut self, obj: Value) -> Result<Value, Status> {
        World::update(self, obj)
    }
    fn patch(
        &mut self,
        kind: &'static Kind,
        ns: Option<&str>,
        name: &str,
        patch: &Patch,
        sub: Subresource,
    ) -> Result<Value, Status> {
        let call = UserCall::Patch {
            kind,
            namespace: ns.map(String::from),
            name: name.to_string(),
            patch: patch.clone(),
            subresource: sub,
        };
        self.user("kubectl", call).map(UserResult::into_object)
    }
    fn delete(
        &mut self,
        kind: &'static Kind,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, Status> {
        let call =
            UserCall::Delete { kind, namespace: ns.map(String::from), name: name.to_string(), options: opts.clone() };
        self.user("kubectl", call).map(UserResult::into_deleted)
    }
    fn world(&mut self) -> Option<&mut World> {
        Some(self)
    }
}
