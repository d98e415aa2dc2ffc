//! What the world reports: the record of each step, and the list of what can happen next.
//! The page's Timeline, "What happens next" and narration, and the console's `lab step` and
//! `lab next`, render these values and nothing else.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use crate::engine::apiserver::EventType;
use crate::engine::kinds::Kind;
use crate::engine::object::meta_namespace_key;
use crate::engine::time::Time;

/// Who acted.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Actor {
    /// A controller in a process: `("kube-controller-manager-a", "deployment-controller")`.
    Controller { process: String, controller: String },
    /// A process's informer for a kind: `("kube-controller-manager-a", "Pod")`.
    Informer { process: String, kind: String },
    /// A process's leader elector.
    LeaderElector { process: String },
    /// Someone outside the cluster's control plane: the learner (kubectl, the editor) or an
    /// injected "other client".
    User(String),
    /// The world itself (clock jumps, faults).
    Lab,
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::Controller { process, controller } => write!(f, "{controller} ({process})"),
            Actor::Informer { process, kind } => write!(f, "{kind} informer ({process})"),
            Actor::LeaderElector { process } => write!(f, "leader election ({process})"),
            Actor::User(who) => f.write_str(who),
            Actor::Lab => f.write_str("lab"),
        }
    }
}

/// The kind of atomic action a step performed, or that a pending action would perform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ActionKind {
    /// An informer lists its kind: at start, or a relist (after a 410, or a watch that failed or
    /// broke under a second after it started).
    List,
    /// One watch event is delivered to one informer (its cache is updated).
    DeliverEvent,
    /// One queued handler notification runs (and may add keys to a work queue).
    RunHandler,
    /// A worker takes the first waiting key from its controller's work queue (client-go's
    /// `Get`): the key moves from the queue to the processing set.
    TakeKey,
    /// A worker that holds a key runs one reconcile of it, then calls `Done` (and `Forget`,
    /// `AddAfter` or `AddRateLimited` per the outcome).
    Reconcile,
    /// A delayed key becomes ready (back-off requeue, `AddAfter`: kubelet transitions, grace
    /// period ends, progress deadlines).
    QueueTimer,
    /// A leader elector tries to acquire or renew its Lease.
    LeaseTick,
    /// A reflector re-watches: a WATCH again from its last resourceVersion, without listing. At
    /// once when its watch stream ended, or after a back-off when a watch request was refused.
    Rewatch,
    /// An informer's resync check: due handlers get `OnUpdate(x, x)` for every cached object.
    Resync,
    /// The clock moved (`advance`, clock jump).
    Clock,
    /// A user API call.
    UserCall,
    /// A fault was injected or ended.
    Fault,
}

impl ActionKind {
    /// Periodic work that never ends on its own: `run_until_idle` stops when only these remain.
    pub fn is_periodic(self) -> bool {
        matches!(self, ActionKind::LeaseTick | ActionKind::Resync)
    }

    /// A short name for tables and `lab next`.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::List => "list",
            ActionKind::DeliverEvent => "deliver",
            ActionKind::RunHandler => "handler",
            ActionKind::TakeKey => "take",
            ActionKind::Reconcile => "reconcile",
            ActionKind::QueueTimer => "timer",
            ActionKind::LeaseTick => "lease",
            ActionKind::Rewatch => "rewatch",
            ActionKind::Resync => "resync",
            ActionKind::Clock => "clock",
            ActionKind::UserCall => "api",
            ActionKind::Fault => "fault",
        }
    }
}

/// What a recorded call did: the request's verb (and subresource), printed the way the step
/// records have always printed it (`GET`, `UPDATE /status`, `CLOUD CreateBucket`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// `GET` one object.
    Get,
    /// `LIST` a collection.
    List,
    /// `WATCH` a collection.
    Watch,
    /// `CREATE` (POST) an object.
    Create,
    /// `CREATE /binding`: the scheduler's POST of `pods/binding`.
    CreateBinding,
    /// `UPDATE` (PUT) an object.
    Update,
    /// `UPDATE /status`: PUT of the status subresource.
    UpdateStatus,
    /// `UPDATE /finalize`: PUT of `namespaces/<name>/finalize`.
    UpdateFinalize,
    /// `PATCH` (a merge patch).
    Patch,
    /// `PATCH (another client)`: the write a `conflict_next_write` fault makes before the
    /// process's own, so that the process's write conflicts.
    PatchByAnotherClient,
    /// `DELETE` an object.
    Delete,
    /// A call to the external cloud, printed `CLOUD <operation>` ([`CloudCall::recorded_verb`]).
    ///
    /// [`CloudCall::recorded_verb`]: crate::engine::cloud::CloudCall::recorded_verb
    Cloud(&'static str),
}

impl Verb {
    /// The verb as the records print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::List => "LIST",
            Verb::Watch => "WATCH",
            Verb::Create => "CREATE",
            Verb::CreateBinding => "CREATE /binding",
            Verb::Update => "UPDATE",
            Verb::UpdateStatus => "UPDATE /status",
            Verb::UpdateFinalize => "UPDATE /finalize",
            Verb::Patch => "PATCH",
            Verb::PatchByAnotherClient => "PATCH (another client)",
            Verb::Delete => "DELETE",
            Verb::Cloud(printed) => printed,
        }
    }

    /// Whether the call only reads (`GET`, `LIST`, `WATCH`); every other verb may write.
    pub fn is_read(self) -> bool {
        matches!(self, Verb::Get | Verb::List | Verb::Watch)
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a recorded call addressed, printed the way the step records have always printed it
/// (`Deployment default/web`, `Namespace demo`, `Pod demo/*`, `pods`, `cloud/photos`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CallTarget {
    /// One object: `Kind namespace/name`, or `Kind name` for a cluster-scoped one. The kind is
    /// the one sent (a served kind's static name, or the text of an object whose kind the
    /// server does not serve); for a create, the name is the one sent or generated.
    Object {
        /// `Deployment`.
        kind: Cow<'static, str>,
        /// `default`; `None` for a cluster-scoped object.
        namespace: Option<String>,
        /// `web`.
        name: String,
    },
    /// Every object of a kind in a namespace, or in every namespace (`None`): a controller's
    /// live LIST, printed `Pod demo/*` or `Namespace *`.
    Collection {
        /// `Pod`.
        kind: &'static str,
        /// `demo`, or `None` for all namespaces.
        namespace: Option<String>,
    },
    /// A reflector's LIST or WATCH of a resource across every namespace, printed as the
    /// resource's plural (`pods`).
    Resource(&'static str),
    /// One bucket of the external cloud, printed `cloud/<bucket>`.
    CloudBucket(String),
}

impl CallTarget {
    /// One object of a served kind.
    pub fn object(kind: &'static Kind, namespace: Option<&str>, name: &str) -> CallTarget {
        CallTarget::Object {
            kind: Cow::Borrowed(kind.kind),
            namespace: namespace.map(str::to_string),
            name: name.into(),
        }
    }

    /// One object whose kind is known only by its name (an object as a client sent it): a
    /// served kind keeps its static name, any other its own text.
    pub fn object_of_kind(kind: &str, namespace: Option<&str>, name: &str) -> CallTarget {
        match Kind::by_kind(kind) {
            Some(k) => CallTarget::object(k, namespace, name),
            None => CallTarget::Object {
                kind: Cow::Owned(kind.to_string()),
                namespace: namespace.map(str::to_string),
                name: name.into(),
            },
        }
    }

    /// The kind named, for a call addressed by kind (an object, a namespace's collection);
    /// `None` for a reflector's resource-wide call and a cloud call.
    pub fn kind(&self) -> Option<&str> {
        match self {
            CallTarget::Object { kind, .. } => Some(kind),
            CallTarget::Collection { kind, .. } => Some(kind),
            CallTarget::Resource(_) | CallTarget::CloudBucket(_) => None,
        }
    }

    /// Whether the call addressed core/v1 Events: the event recorder's writes, which the
    /// records leave out of what a step changed.
    pub fn is_event(&self) -> bool {
        self.kind() == Some("Event")
    }

    /// Whether this is the object `kind namespace/name`.
    pub fn is_object(&self, kind: &str, namespace: Option<&str>, name: &str) -> bool {
        matches!(self, CallTarget::Object { kind: k, namespace: ns, name: n }
            if k == kind && ns.as_deref() == namespace && n == name)
    }

    /// The served kind, namespace and name of a call to one object (`None` for a kind the
    /// server does not serve, and for every other target).
    pub fn served_object(&self) -> Option<(&'static Kind, Option<&str>, &str)> {
        match self {
            CallTarget::Object { kind, namespace, name } => Some((Kind::by_kind(kind)?, namespace.as_deref(), name)),
            _ => None,
        }
    }

    /// The kind and the cache key (`namespace/name`; for a collection `namespace/*` or `*`) that
    /// a step's [`ObjectRef`]s list; `None` for a reflector's or a cloud call.
    pub fn kind_and_key(&self) -> Option<(&str, String)> {
        let (kind, namespace, name) = match self {
            CallTarget::Object { kind, namespace, name } => (&**kind, namespace, name.as_str()),
            CallTarget::Collection { kind, namespace } => (*kind, namespace, "*"),
            CallTarget::Resource(_) | CallTarget::CloudBucket(_) => return None,
        };
        Some((kind, meta_namespace_key(namespace.as_deref(), name)))
    }
}

impl fmt::Display for CallTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallTarget::Object { kind, namespace: Some(ns), name } => write!(f, "{kind} {ns}/{name}"),
            CallTarget::Object { kind, namespace: None, name } => write!(f, "{kind} {name}"),
            CallTarget::Collection { kind, namespace: Some(ns) } => write!(f, "{kind} {ns}/*"),
            CallTarget::Collection { kind, namespace: None } => write!(f, "{kind} *"),
            CallTarget::Resource(resource) => f.write_str(resource),
            CallTarget::CloudBucket(bucket) => write!(f, "cloud/{bucket}"),
        }
    }
}

/// One API call made during a step, with its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiCall {
    /// What the call did.
    pub verb: Verb,
    /// What it addressed.
    pub target: CallTarget,
    /// The resourceVersion the caller sent (0 for none).
    pub sent_resource_version: u64,
    /// HTTP status code: 200, 201, 409, ...
    pub code: u16,
    /// The stored resourceVersion after the call (success), or 0.
    pub resource_version: u64,
    /// The error message for a failure.
    pub error: Option<String>,
    /// For a 409 Conflict: the resourceVersion stored on the server at that moment (the one
    /// the writer should have sent); 0 otherwise.
    pub stored_resource_version: u64,
}

impl fmt::Display for ApiCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} → {}", self.verb, self.target, self.code)?;
        if let Some(e) = &self.error {
            write!(f, " ({e})")?;
            if self.code == 409 && self.stored_resource_version > 0 {
                write!(f, " [sent rv={}, stored rv={}]", self.sent_resource_version, self.stored_resource_version)?;
            }
        } else if self.resource_version > 0 {
            write!(f, " rv={}", self.resource_version)?;
        }
        Ok(())
    }
}

/// An object touched by a step, with its resourceVersion at that point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectRef {
    /// `Deployment`.
    pub kind: String,
    /// `default/web`.
    pub key: String,
    /// The resourceVersion involved (0 when unknown or deleted).
    pub resource_version: u64,
}

/// The watch event a [`ActionKind::DeliverEvent`] step delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
    pub event_type: EventType,
    /// The object's `namespace/name` (empty for `ERROR`).
    pub key: String,
    /// The object's resourceVersion in the event (0 for `ERROR`).
    pub resource_version: u64,
    /// For `ERROR`: the Status's code and message (`410`, `too old resource version: ...`).
    pub error: Option<(u64, String)>,
}

/// What a step did to one controller's work queue ([`ActionKind::RunHandler`],
/// [`ActionKind::TakeKey`], [`ActionKind::Reconcile`], [`ActionKind::QueueTimer`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueWork {
    /// The queue's name, as client-go names it (`deployment`, `replicaset`, ...).
    pub queue: String,
    /// The key a worker took (`TakeKey`) or reconciled (`Reconcile`).
    pub key: Option<String>,
    /// Keys this step `Add`ed now, in order (a handler's adds, even those the dirty set absorbed;
    /// a fired timer's keys; the keys a reconcile added to its own queue).
    pub added: Vec<String>,
    /// Keys this step put in the delaying queue (`AddAfter`, `AddRateLimited`), with the delay.
    pub delayed: Vec<(String, Duration)>,
    /// For a reconcile: the key had been added again while it was processing (dirty), so `Done`
    /// queued it once more.
    pub requeued_dirty: bool,
}

/// The record of one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRecord {
    /// 1-based step number in this world's history.
    pub number: u64,
    /// The virtual time the step ran at.
    pub time: Time,
    /// Who acted.
    pub actor: Actor,
    /// What kind of action.
    pub action: ActionKind,
    /// Objects involved, with resourceVersions.
    pub objects: Vec<ObjectRef>,
    /// API calls made, in order, with results.
    pub calls: Vec<ApiCall>,
    /// One plain-English sentence for the learner.
    pub sentence: String,
    /// The watch event delivered, for [`ActionKind::DeliverEvent`].
    pub delivered: Option<Delivered>,
    /// What happened to a work queue, for handler, take, reconcile and queue-timer steps.
    pub work: Option<QueueWork>,
    /// The API server's resourceVersion when the step ended: the step's writes are the changes
    /// above the previous record's (a no-op write answers with an older resourceVersion, so the
    /// calls alone cannot say which of them changed something).
    pub revision: u64,
}

impl StepRecord {
    /// The work-queue key this step took or reconciled, if any.
    pub fn worked_key(&self) -> Option<&str> {
        self.work.as_ref().and_then(|w| w.key.as_deref())
    }
}

impl fmt::Display for StepRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.sentence)
    }
}

/// Something a process can do next, as [`World::pending`](super::World::pending) lists it (the
/// World's own form is `schedule::ActionRef`; `schedule.rs` documents the stages of an action).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingAction {
    /// Stable id for `World::run` (valid until the next step).
    pub id: u64,
    /// When it can happen (now, or a timer's deadline).
    pub at: Time,
    /// Who would act.
    pub actor: Actor,
    /// What kind of action.
    pub action: ActionKind,
    /// A short description, e.g. `deliver MODIFIED Pod default/web-x (rv 42)`.
    pub description: String,
    /// Whether `World::run(id)` accepts it now (false for a watch event that is not the oldest
    /// in its stream, whose order must be kept).
    pub runnable: bool,
}

/// Why `run_until_idle` stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Only periodic work (lease renewals) remains, after this many steps.
    Idle { steps: u64 },
    /// The steps allowed ran out with work still queued and no loop found: progress so far (run
    /// again to go on).
    Working { steps: u64 },
    /// Work repeats without progress: a hot loop, explained (the controller, the key and the
    /// evidence; see `world::hotloop`).
    HotLoop { steps: u64, explanation: String },
}

impl Settled {
    /// The steps taken.
    pub fn steps(&self) -> u64 {
        match self {
            Settled::Idle { steps } | Settled::Working { steps } | Settled::HotLoop { steps, .. } => *steps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(k: &str) -> &'static Kind {
        Kind::by_kind(k).expect("served kind")
    }

    /// Each target prints the text the step records printed when the target was a string, so
    /// transcripts, narration and views read the same.
    #[test]
    fn call_targets_print_as_the_records_always_have() {
        let cases = [
            (CallTarget::object(kind("Deployment"), Some("default"), "web"), "Deployment default/web"),
            (CallTarget::object(kind("Namespace"), None, "demo"), "Namespace demo"),
            (CallTarget::object_of_kind("Widget", Some("default"), "w"), "Widget default/w"),
            (CallTarget::Collection { kind: "Pod", namespace: Some("demo".into()) }, "Pod demo/*"),
            (CallTarget::Collection { kind: "Namespace", namespace: None }, "Namespace *"),
            (CallTarget::Resource("pods"), "pods"),
            (CallTarget::CloudBucket("photos".into()), "cloud/photos"),
        ];
        for (target, printed) in cases {
            assert_eq!(target.to_string(), printed);
        }
        let call = ApiCall {
            verb: Verb::UpdateStatus,
            target: CallTarget::object(kind("ReplicaSet"), Some("default"), "web-5d4f"),
            sent_resource_version: 7,
            code: 409,
            resource_version: 0,
            error: Some("the object has been modified".into()),
            stored_resource_version: 9,
        };
        assert_eq!(
            call.to_string(),
            "UPDATE /status ReplicaSet default/web-5d4f → 409 (the object has been modified) [sent rv=7, stored rv=9]"
        );
    }

    /// What the World reads back from a target: the object it names (no text parsed), the keys a
    /// step's objects list, and the Events left out of what a step changed.
    #[test]
    fn call_targets_name_their_object() {
        let rs = CallTarget::object(kind("ReplicaSet"), Some("default"), "web");
        assert_eq!(rs.served_object(), Some((kind("ReplicaSet"), Some("default"), "web")));
        assert_eq!(rs.kind_and_key(), Some(("ReplicaSet", "default/web".to_string())));
        assert!(rs.is_object("ReplicaSet", Some("default"), "web"));
        assert!(!rs.is_object("ReplicaSet", None, "web"));
        let ns = CallTarget::object(kind("Namespace"), None, "demo");
        assert_eq!(ns.kind_and_key(), Some(("Namespace", "demo".to_string())));
        let pods = CallTarget::Collection { kind: "Pod", namespace: Some("demo".into()) };
        assert_eq!(pods.served_object(), None);
        assert_eq!(pods.kind_and_key(), Some(("Pod", "demo/*".to_string())));
        assert_eq!(CallTarget::Resource("pods").kind(), None);
        assert_eq!(CallTarget::object_of_kind("Widget", None, "w").served_object(), None);
        assert!(CallTarget::object_of_kind("Event", Some("default"), "web.1").is_event());
        assert!(!rs.is_event());
    }
}
