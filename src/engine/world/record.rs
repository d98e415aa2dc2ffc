//! What the world reports: the record of each step, and the list of what can happen next.
//! The page's Timeline, "What happens next" and narration, and the console's `lab step` and
//! `lab next`, render these values and nothing else.

use std::fmt;
use std::time::Duration;

use crate::engine::apiserver::EventType;
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

/// One API call made during a step, with its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiCall {
    /// What the call did.
    pub verb: Verb,
    /// `Kind ns/name` (the name is the one sent, or the generated one for a create).
    pub target: String,
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
