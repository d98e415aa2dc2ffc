//! The controllers, each written the way kube-controller-manager (and the scheduler and kubelet)
//! write them, on the same shape of machinery: shared informers feed event handlers, handlers turn
//! events into keys on a work queue, and a worker takes one key and reconciles it against the
//! informer cache, writing to the API server.
//!
//! # The controller interface (how a controller plugs into the world)
//!
//! A controller is a value implementing [`Controller`]. The [`World`](crate::engine::world::World)
//! owns one instance per controller per process and drives it one step at a time:
//!
//! 1. **Informers.** [`Controller::watches`] names the kinds the controller needs. The process
//!    runs one shared informer per kind (client-go `tools/cache/reflector.go`, `ListAndWatch`):
//!    list, then watch; the cache is updated *before* handlers run.
//! 2. **Handlers.** For every cache change the world calls [`Controller::handle`] with a
//!    [`ResourceEvent`] (`Add`, `Update(old, new)`, `Delete(final state)`), once per step ("run one
//!    queued handler"). The handler may update the controller's own bookkeeping (for example
//!    ReplicaSet expectations, `ControllerExpectations` in
//!    kubernetes/pkg/controller/controller_utils.go) and returns the keys to add to the
//!    controller's work queue as [`Enqueue`] values. Handlers never call the API server.
//! 3. **Reconcile.** A worker takes one key from the queue and calls [`Controller::reconcile`]
//!    with a [`Ctx`]: read-only access to the process's informer caches ([`Caches`]), and an
//!    [`Api`] through which every call is made and recorded (with its result, 409s included).
//!    The reconcile returns an [`Outcome`]: `Done` (the queue `Forget`s the key), `RequeueAfter`
//!    (`AddAfter`), or `Err`, which the controller's `handleErr` turns into `AddRateLimited`
//!    (per-item back-off from its [`Controller::rate_limiter`]) or, once
//!    [`Controller::max_retries`] retries in a row have failed, into `Forget`: the key is dropped
//!    until its next event.
//! 4. **State.** Whatever the controller keeps between calls lives in its struct and is lost when
//!    its process restarts (the world builds a fresh one from the factory in
//!    [`Controller::restarted`]): a restarted controller knows only what its informers relist.
//!
//! Reconcile must be level-triggered: it reads current state from the cache and acts on the
//! difference, never on the event that woke it (the edge-triggered contrast is the exception that
//! proves the rule).
//!
//! Adding a controller: write `controllers/<name>.rs`, implement [`Controller`], and register it in
//! `World::new` (kube-controller-manager's controllers go into each controller-manager replica).

// `Status` is the API's error value, as the API server returns it (see apiserver/mod.rs).
#![allow(clippy::result_large_err)]

pub mod bucket;
pub mod deployment;
pub mod edgetriggered;
pub mod garbagecollector;
pub mod hash;
pub mod kubelet;
pub mod namespace;
pub mod replicaset;
pub mod scheduler;
pub mod util;

use std::time::Duration;

use serde_json::Value;

use super::apiserver::create::NewEvent;
use super::client::store::{namespace_range, Items};
use super::client::{Api, DeleteOpts, Informer};
use super::frozen::Frozen;
use super::kinds::Kind;
use super::object::{ObjectExt, Shared};
use super::time::Time;

/// One call of a controller's event handler: what its `ResourceEventHandler` hears (client-go
/// `tools/cache/controller.go`, `ResourceEventHandler`'s `OnAdd`, `OnUpdate`, `OnDelete`). The
/// informer queues the call as a [`Notification`](crate::engine::client::informer::Notification)
/// (client-go's `addNotification`, ...); the World hands it to [`Controller::handle`] in this
/// form (`world::informer::to_resource_event`). The cache already holds the new state when a
/// handler sees it. The objects are the cache's own (`Shared`), as client-go hands
/// handlers the cached pointers: an event costs two pointers, not a copy of the
/// object.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceEvent {
    /// `OnAdd(obj)`.
    Add(Shared),
    /// `OnUpdate(old, new)`; after a relist or resync `old` and `new` may have the same RV.
    Update(Shared, Shared),
    /// `OnDelete(obj)`: the last state the informer knew. `final_state_unknown` is true for a
    /// `DeletedFinalStateUnknown` tombstone (the deletion was missed and found by a relist).
    Delete { obj: Shared, final_state_unknown: bool },
}

impl ResourceEvent {
    /// The newest object the event carries.
    pub fn object(&self) -> &Frozen {
        match self {
            ResourceEvent::Add(o) | ResourceEvent::Update(_, o) | ResourceEvent::Delete { obj: o, .. } => o,
        }
    }

    /// `Add`, `Update` or `Delete`, for records.
    pub fn verb(&self) -> &'static str {
        match self {
            ResourceEvent::Add(_) => "OnAdd",
            ResourceEvent::Update(..) => "OnUpdate",
            ResourceEvent::Delete { .. } => "OnDelete",
        }
    }
}

/// A key a handler asks the world to put on the controller's work queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Enqueue {
    /// `queue.Add(key)`.
    Now(String),
    /// `queue.AddAfter(key, d)`.
    After(String, Duration),
}

/// What a reconcile asks the queue to do with its key afterwards (client-go's worker loop).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Success: `queue.Forget(key)`.
    Done,
    /// Success, but look again later: `queue.Forget(key)` then `queue.AddAfter(key, d)`.
    RequeueAfter(Duration),
    /// Failure: `queue.AddRateLimited(key)` (per-item back-off), or `queue.Forget(key)` once the
    /// controller's [`Controller::max_retries`] is used up.
    Err(String),
    /// Failure that the controller does not retry: `queue.Forget(key)` only (the Deployment
    /// controller's `handleErr` for an error whose cause is `NamespaceTerminating`).
    ErrForget(String),
    /// Success, with a deadline check later (like `RequeueAfter`), which the world counts as
    /// periodic work: "run until idle" may stop before it (e.g. the Deployment controller's
    /// `requeueStuckDeployment` for the progress deadline).
    CheckAfter(Duration),
    /// Success, but the key waits for *other* actors to change the cluster (content being
    /// deleted, a finalizer being removed): `queue.Forget(key)` then `queue.AddAfter(key, d)`,
    /// like `RequeueAfter`. The world counts the poll as periodic work while nothing has
    /// changed since this reconcile, and as real work once something has.
    PollAfter(Duration),
}

/// A process's informer caches: kind name (`Pod`) → key (`namespace/name`) → object.
///
/// The caches are the process's shared informers themselves (`engine::client::Informer`, one per
/// kind): each store is that informer's indexer, so there is no second copy. Objects are shared
/// ([`Shared`]): the world's snapshots copy pointers, not objects, and every process's cache holds
/// the same object a watch event or a list delivered.
/// Invariant: every object is stored under its own `ObjectExt::key()`.
/// Readers get `&Frozen`; a writer takes `to_value()`.
#[derive(Clone, Debug, Default)]
pub struct Caches {
    informers: Vec<Informer>,
}

impl Caches {
    /// One object by kind and key (`Lister.Get`).
    pub fn get(&self, kind: &Kind, key: &str) -> Option<&Frozen> {
        self.store(kind.kind).and_then(|s| s.get(key)).map(|v| &**v)
    }

    /// Stores an object under its key (tests and views; informers keep the stores).
    pub fn insert(&mut self, obj: Value) {
        let kind = Kind::for_object(obj.api_version(), obj.kind()).or_else(|| Kind::by_kind(obj.kind()));
        if let Some(k) = kind {
            let i = match self.informers.iter().position(|i| std::ptr::eq(i.kind(), k)) {
                Some(i) => i,
                None => {
                    self.informers.push(Informer::new(k, Duration::ZERO));
                    self.informers.len() - 1
                }
            };
            self.informers[i].indexer_mut().update(crate::engine::object::share(obj));
        }
    }

    /// Every cached object of a kind in a namespace (`Lister.List` with `labels.Everything()`),
    /// in key order.
    pub fn list<'a>(&'a self, kind: &Kind, namespace: &'a str) -> impl Iterator<Item = &'a Frozen> + 'a {
        self.store(kind.kind).into_iter().flat_map(move |s| namespace_range(s, namespace)).map(|(_, v)| &**v)
    }

    /// Every cached object of a kind, in key order.
    pub fn all<'a>(&'a self, kind: &Kind) -> impl Iterator<Item = &'a Frozen> + 'a {
        self.store(kind.kind).into_iter().flat_map(|s| s.values()).map(|v| &**v)
    }

    /// The store of one kind (by `Kind::kind`), once its informer has listed or holds anything.
    pub fn store(&self, kind: &str) -> Option<&Items> {
        self.informers
            .iter()
            .find(|i| i.kind().kind == kind && (i.has_synced() || !i.indexer().is_empty()))
            .map(|i| i.indexer().items())
    }

    /// Every store, in kind-name order: the kinds whose informer has listed (or holds anything).
    pub fn stores(&self) -> Vec<(&'static str, &Items)> {
        let mut out: Vec<(&'static str, &Items)> = self
            .informers
            .iter()
            .filter(|i| i.has_synced() || !i.indexer().is_empty())
            .map(|i| (i.kind().kind, i.indexer().items()))
            .collect();
        crate::sort::sort_by_key(&mut out, |(k, _)| *k);
        out
    }

    /// Whether no store holds or has listed anything.
    pub fn is_empty(&self) -> bool {
        !self.informers.iter().any(|i| i.has_synced() || !i.indexer().is_empty())
    }

    /// The process's shared informers, one per kind, in the order they were created.
    pub fn informers(&self) -> &[Informer] {
        &self.informers
    }

    /// The shared informers, mutably (the world drives them).
    pub fn informers_mut(&mut self) -> &mut Vec<Informer> {
        &mut self.informers
    }
}

/// Everything a reconcile may use.
pub struct Ctx<'a> {
    /// The virtual clock.
    pub now: Time,
    /// The process's informer caches (read only: a controller never writes its cache).
    pub cache: &'a Caches,
    /// The API server, as this controller's client sees it.
    pub api: &'a mut dyn Api,
    /// A counter that makes Event names unique within one virtual millisecond (the real
    /// recorder uses the host clock's nanoseconds).
    pub event_seq: &'a mut u64,
}

impl Ctx<'_> {
    /// Records a core/v1 Event about `involved`, the way client-go's event recorder does
    /// (`<name>.<hex nanoseconds>`, count 1, first and last timestamps the current time). The
    /// recorder is fire-and-forget: a failure to write an Event never fails the reconcile.
    pub fn event(&mut self, component: &str, involved: &impl ObjectExt, event_type: &str, reason: &str, message: &str) {
        let ns = involved.namespace();
        let rv = involved.resource_version().to_string();
        let who = [involved.kind(), involved.name(), involved.uid(), involved.api_version(), &rv];
        self.record_event(component, who, ns, [event_type, reason, message]);
    }

    /// [`Ctx::event`] for either form of the object, read once: `who` is kind, name, uid,
    /// apiVersion and resourceVersion, `what` the type, reason and message (one copy of this
    /// code, not one per form).
    fn record_event(&mut self, component: &str, who: [&str; 5], namespace: Option<&str>, what: [&str; 3]) {
        *self.event_seq = (*self.event_seq + 1) % 1_000_000;
        let nanos = u128::from(self.now.millis()) * 1_000_000 + u128::from(*self.event_seq);
        let name = format!("{}.{nanos:x}", who[1]);
        let timestamp = self.now.rfc3339();
        let ev = NewEvent {
            name: &name,
            namespace: namespace.unwrap_or("default"),
            involved: who,
            involved_namespace: namespace,
            what,
            component,
            timestamp: &timestamp,
        };
        let _ = self.api.create_event(&ev);
    }
}

/// One controller (or node agent) as the world runs it. See the module documentation.
pub trait Controller {
    /// The name used in records, queues and Event sources, e.g. `deployment-controller`.
    fn name(&self) -> &'static str;
    /// The kinds whose informers this controller needs.
    fn watches(&self) -> &'static [&'static Kind];
    /// One handler call (a [`ResourceEvent`]) → keys to enqueue. Never calls the API server.
    fn handle(&mut self, kind: &'static Kind, n: &ResourceEvent, cache: &Caches, now: Time) -> Vec<Enqueue>;
    /// Reconciles one key.
    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome;
    /// A copy of this controller (the world snapshots itself for "step back").
    fn boxed_clone(&self) -> Box<dyn Controller>;
    /// The controller as it is after its process restarts: all in-memory state lost.
    fn restarted(&self) -> Box<dyn Controller>;
    /// Downcasting, for the world's faults and views that need one controller's own settings
    /// (for example the kubelet's failing images).
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
    /// Read-only downcasting, for views of a controller's own state (the garbage collector's
    /// owner graph). Controllers with nothing to show answer `None`.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// Keys the last reconcile added to the controller's *own* queue besides its own key (the
    /// garbage collector's `attemptToDelete.Add(dependent)` from inside a worker). The world
    /// calls this after every reconcile and adds them with `queue.Add`. Most controllers never do.
    fn take_enqueues(&mut self) -> Vec<Enqueue> {
        Vec::new()
    }
    /// The rate limiter of this controller's work queue. Most use client-go's
    /// `DefaultControllerRateLimiter` (controller-runtime's operators too); the namespace
    /// controller, the scheduler and the kubelet have their own.
    fn rate_limiter(&self) -> crate::engine::client::RateLimiter<String> {
        crate::engine::client::RateLimiter::default_controller()
    }
    /// `handleErr`'s retry budget: a failed reconcile is retried with `AddRateLimited` while the
    /// key's `NumRequeues` is below this, and otherwise forgotten (`Forget`: dropped until an event
    /// adds it again). `None`, the default: retried for ever, as the ReplicaSet controller
    /// (`processNextWorkItem`), the garbage collector (`attemptToDeleteWorker`), the namespace
    /// controller (`worker`) and controller-runtime's `reconcileHandler` do. The Deployment
    /// controller's is 15 (`maxRetries`, pkg/controller/deployment/deployment_controller.go).
    fn max_retries(&self) -> Option<u32> {
        None
    }
}

impl Clone for Box<dyn Controller> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// A fake [`Api`] for the controllers' unit tests: it records calls, assigns names, uids and
/// resourceVersions, and keeps the objects, with no validation. The world uses the real API server.
#[cfg(test)]
pub(crate) mod fake {
    use super::*;
    use crate::engine::status::{Reason, Status};
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Default)]
    pub struct FakeApi {
        pub objects: BTreeMap<(String, String), Value>,
        pub calls: Vec<String>,
        pub rv: u64,
        pub fail_all: bool,
    }

    fn kid(obj: &Value) -> (String, String) {
        (obj.kind().to_string(), obj.key())
    }

    impl FakeApi {
        pub fn put(&mut self, mut obj: Value) -> Value {
            self.rv += 1;
            let rv = self.rv;
            let m = obj.meta_mut();
            m.insert("resourceVersion".into(), json!(rv.to_string()));
            if !m.contains_key("uid") {
                m.insert("uid".into(), json!(format!("uid-{rv}")));
            }
            if !m.contains_key("name") {
                let gn = m.get("generateName").and_then(Value::as_str).unwrap_or("").to_string();
                m.insert("name".into(), json!(format!("{gn}{rv:05}")));
            }
            self.objects.insert(kid(&obj), obj.clone());
            obj
        }
        pub fn events(&self) -> Vec<String> {
            self.objects
                .values()
                .filter(|o| o.kind() == "Event")
                .map(|o| format!("{} {}", o["reason"].as_str().unwrap_or(""), o["message"].as_str().unwrap_or("")))
                .collect()
        }
        fn check(&self) -> Result<(), Status> {
            if self.fail_all {
                Err(Status::new(Reason::InternalError, "injected"))
            } else {
                Ok(())
            }
        }
    }

    impl Api for FakeApi {
        fn get(&mut self, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Result<Value, Status> {
            let key = crate::engine::object::meta_namespace_key(namespace, name);
            self.objects.get(&(kind.kind.to_string(), key)).cloned().ok_or_else(|| Status::not_found(kind, name))
        }
        fn create(&mut self, obj: Value) -> Result<Value, Status> {
            self.check()?;
            if obj.kind() != "Event" {
                self.calls.push(format!("create {} {}", obj.kind(), obj.name()));
            }
            Ok(self.put(obj))
        }
        fn update(&mut self, obj: Value) -> Result<Value, Status> {
            self.check()?;
            self.calls.push(format!("update {} {}", obj.kind(), obj.name()));
            Ok(self.put(obj))
        }
        fn update_status(&mut self, obj: Value) -> Result<Value, Status> {
            self.check()?;
            self.calls.push(format!("update_status {} {}", obj.kind(), obj.name()));
            Ok(self.put(obj))
        }
        fn bind(&mut self, namespace: &str, name: &str, node: &str) -> Result<u64, Status> {
            self.check()?;
            self.calls.push(format!("bind Pod {name} {node}"));
            let mut pod = self.get(Kind::by_kind("Pod").expect("kind"), Some(namespace), name)?;
            pod["spec"]["nodeName"] = json!(node);
            pod["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "True"}]);
            Ok(self.put(pod).resource_version())
        }
        fn merge_patch(
            &mut self,
            kind: &'static Kind,
            namespace: Option<&str>,
            name: &str,
            patch: Value,
        ) -> Result<Value, Status> {
            self.check()?;
            self.calls.push(format!("patch {} {name}", kind.kind));
            let mut obj = self.get(kind, namespace, name)?;
            crate::engine::controllers::util::merge_patch(&mut obj, &patch);
            Ok(self.put(obj))
        }
        fn delete(
            &mut self,
            kind: &'static Kind,
            namespace: Option<&str>,
            name: &str,
            _opts: &DeleteOpts,
        ) -> Result<Option<Shared>, Status> {
            self.check()?;
            self.calls.push(format!("delete {} {name}", kind.kind));
            let obj = self.get(kind, namespace, name)?;
            self.objects.remove(&kid(&obj));
            Ok(None)
        }
    }
}
