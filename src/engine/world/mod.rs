//! The World: the API server, the virtual clock, the seeded RNG and every process of the
//! cluster's control plane, driven one atomic step at a time.
//!
//! Processes (in this order, which is also the tie-break order of simultaneous actions):
//! - `kube-controller-manager-a` and `kube-controller-manager-b`: two replicas that elect a leader
//!   through the Lease `kube-system/kube-controller-manager` with client-go's elector
//!   ([`crate::engine::client::leaderelection`]). Like the real one, a replica starts its
//!   informers and controllers only once it leads, and a replica that loses the lease exits and
//!   comes back as a fresh candidate (new identity, empty caches and queues).
//! - `kube-scheduler`: binds pods to nodes.
//! - `kubelet`: the kubelets of the three Nodes (`node-1` to `node-3`).
//!
//! Each process has client-go's shared informers (`engine::client::Informer`, one per kind, kept in
//! its [`Caches`]: their indexers are the caches), one listener per controller and kind (its own
//! queue of handler calls), and per controller a work queue (client-go's, from `engine::client`).
//! [`informer`] has the World's `ListerWatcher` (faults), the conversion of handler calls, the
//! resync period and what client-go does on a broken watch, a refused re-watch and a relist.
//!
//! # Steps
//! [`World::step`] performs exactly one action and returns its [`StepRecord`]. The possible
//! actions are listed, in the order `step` would take them, by [`World::pending`]: first what can
//! happen now (informer lists, then watch-event deliveries and ends of watch streams, then handler
//! runs, then reconciles of keys that workers hold, then takes of waiting keys, then due timers),
//! then timers in deadline order (back-off requeues, `AddAfter`s such as kubelet transitions and
//! grace periods, relists and re-watches after a back-off, informer resyncs, lease ticks). Taking a future action moves the clock to its time. Only the oldest undelivered
//! event of each watch is offered, so a stream is always delivered in order, whatever
//! [`World::run`] picks.
//!
//! A reconcile is two steps, as a client-go worker runs it (`processNextWorkItem`):
//! [`ActionKind::TakeKey`], a free worker's `Get` (the key moves from the queue to the processing
//! set), then [`ActionKind::Reconcile`], that worker's reconcile, which ends with `Done` (and
//! `Forget`, `AddAfter` or `AddRateLimited`). Each controller has as many workers as
//! kube-controller-manager gives it ([`concurrent_syncs`]); a key is never held by two. Between
//! the two steps anything else may run: a handler that adds the held key only marks it dirty, and
//! `Done` queues it again, once (kubernetes-semantics.md §1.1, TV-02). In `step` order a take is
//! followed at once by its reconcile; [`World::run`] can interleave. Keys are taken oldest first
//! across controllers, as if every worker ran at once: a burst of events for one key collapses
//! while other controllers work through older keys.
//!
//! "Periodic" work, where [`World::run_until_idle`] stops: lease ticks once someone leads, the
//! retries of a partitioned process, deadline checks ([`Outcome::CheckAfter`]: the Deployment
//! progress deadline, image pull retries while the image fails), and polls
//! ([`Outcome::PollAfter`]: the namespace controller waiting for content held by finalizers)
//! while nothing has changed in the cluster since the poll was scheduled. Kubernetes polls a
//! stuck namespace for ever too; the lab calls that idle, not a hot loop. When the step cap is
//! reached, the hot-loop explanation names the actor and key that recur most (lease ticks left
//! out).
//!
//! The garbage collector watches Leases like every deletable kind, but a leader's renewal (which
//! changes no owner reference) reaches its cache inside the renewal step instead of as two steps
//! of its own every 2 s (see `absorb_quiet_lease_events`).
//!
//! # History
//! Every input (a step, a chosen action, a user API call, a fault, a clock move) is logged and
//! gives exactly one record. The world keeps snapshots of its state every few inputs; going
//! back to step N restores the latest snapshot at or before N and replays the logged inputs
//! (the world is deterministic: same seed, same inputs, same records). The later inputs are kept
//! until a new input starts a new branch, so [`World::goto`] can also go forward again.
//!
//! # For the console and the page
//! - Build: [`World::new`]`(seed)`; read: [`World::api`] (get/list), [`World::now`],
//!   [`World::processes`] (each [`Process`]: `leading()`, `informers()`, `caches`, `slots` with
//!   their `queue` and `handlers`), [`World::history`], [`World::pending`].
//! - Write as a user (logged, replayed): [`World::create`], [`World::update`], [`World::patch`],
//!   [`World::delete`], or [`World::user`] with any [`UserCall`] (update /status, /finalize).
//!   Watches for `kubectl --watch`: [`World::api_mut`] (`watch`, `next_event`, `stop_watch`).
//! - Time: [`World::step`], [`World::run`]`(pending id)`, [`World::run_until_idle`]`(cap)`,
//!   [`World::advance`]`(duration)`, [`World::step_back`], [`World::goto`]`(n)`,
//!   [`World::position`], [`World::branch_len`]; memory: [`World::set_history_limit`], [`World::set_snapshot_budget`],
//!   [`World::set_snapshot_every`].
//! - Faults ([`Fault`], or one method each): `break_watch(process, kind)`, `expire_history()`,
//!   `stop_process` (clean: releases the Lease), `kill_process`, `start_process`,
//!   `restart_process`, `fail_api(process, duration)`, `conflict_next_write(process)`,
//!   `partition(process)` / `heal(process)`, `pause_kubelets` / `resume_kubelets`,
//!   `slow_kubelets(factor)`, `fail_image(image)` / `fix_image(image)`, `clock_jump(duration)`.

// `Status` is the API's error value, as the API server returns it (see apiserver/mod.rs).
#![allow(clippy::result_large_err)]

pub mod api;
pub mod cloud;
pub mod informer;
pub mod record;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

pub use record::{ActionKind, Actor, ApiCall, Delivered, ObjectRef, Pending, QueueWork, Settled, StepRecord};

use self::api::{Failure, WorldApi};
use self::cloud::{Cloud, CloudApi, CloudFault};
use self::informer::{sentence, to_notification, WorldLw};
use crate::engine::apiserver::{ApiServer, DeleteOptions, Deleted, EventType, Patch, Subresource};
use crate::engine::client::informer::{HandlerId, Informer, InformerStep, ListerWatcher, ReflectorState};
use crate::engine::client::{ElectionOutcome, Indexer, LeaderElectionConfig, LeaderElector, WorkQueue};
use crate::engine::controllers::bucket::BucketController;
use crate::engine::controllers::deployment::DeploymentController;
use crate::engine::controllers::edgetriggered::{PodCounter, Trigger};
use crate::engine::controllers::garbagecollector::GarbageCollector;
use crate::engine::controllers::kubelet::{Kubelet, KubeletConfig};
use crate::engine::controllers::namespace::NamespaceController;
use crate::engine::controllers::replicaset::ReplicaSetController;
use crate::engine::controllers::scheduler::Scheduler;
use crate::engine::controllers::{Caches, Controller, Ctx, Enqueue, Outcome};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::rand::Rng;
use crate::engine::status::Status;
use crate::engine::time::Time;

/// The controllers every kube-controller-manager replica runs, in registration order.
pub fn controller_manager_controllers() -> Vec<Box<dyn Controller>> {
    vec![
        Box::new(DeploymentController::new()),
        Box::new(ReplicaSetController::new()),
        Box::new(GarbageCollector::new()),
        Box::new(NamespaceController::new()),
    ]
}

/// A controller-manager replica's leader elector: client-go's (`engine::client::leaderelection`)
/// on the Lease `kube-system/kube-controller-manager` with the defaults (15 s / 10 s / 2 s),
/// releasing the Lease on a clean stop; its first attempt is due at `first_try`.
fn controller_manager_elector(identity: String, first_try: Time) -> LeaderElector {
    LeaderElector::new(LeaderElectionConfig::new("kube-system", "kube-controller-manager", &identity), first_try)
}

/// The Bucket operator: a single process running the Bucket controller (a custom resource's
/// controller runs outside kube-controller-manager, as an operator does).
pub const BUCKET_OPERATOR: &str = "bucket-operator";
/// The edge- versus level-triggered pod counters (lesson `missed-events`): a process that is
/// stopped in a new world; `start_process(POD_COUNTERS)` starts it.
pub const POD_COUNTERS: &str = "pod-counters";

/// The virtual time one step of work stands for when the world decides whether a timer is due.
///
/// The clock does not move while controllers work: steps at one instant all carry its time, so
/// records and timestamps stay round. But in a real cluster every API round trip, watch delivery
/// and handler call takes wall time, so a timer (a reflector's back-off before it watches or
/// lists again, a work queue's `AddAfter`, a kubelet's grace period, a lease tick) always comes,
/// however busy the controllers are. Without this, immediate work that feeds itself would starve
/// every timer for ever: bug 12 of docs/reliability.md, where a ReplicaSet controller whose
/// broken watch still caches a deleted ReplicaSet re-creates the pods the garbage collector
/// deletes as dangling, at one frozen instant, and the reflector's re-watch that ends it in a
/// real cluster within a second never becomes due. So after `n` steps at the current instant,
/// timers due within `n` × 1 ms are due now: they run ahead of the remaining immediate work and
/// move the clock to their own time (which starts the count again). Small runs (every transcript
/// and lesson) are unchanged; a 1,000-replica Deployment now converges in 12.5 s of virtual time
/// rather than 2.5 s, its pods starting while others are still being created.
pub const WORK_STEP: Duration = Duration::from_millis(1);

/// The names of the processes, in order.
pub const CONTROLLER_MANAGER_A: &str = "kube-controller-manager-a";
/// The second controller-manager replica.
pub const CONTROLLER_MANAGER_B: &str = "kube-controller-manager-b";
/// The scheduler.
pub const SCHEDULER: &str = "kube-scheduler";
/// The kubelets.
pub const KUBELET: &str = "kubelet";
/// The Nodes a new world has.
pub const NODES: [&str; 3] = ["node-1", "node-2", "node-3"];

/// One controller inside a process: the controller, its handler buffer and its work queue.
#[derive(Clone)]
pub struct Slot {
    /// The controller.
    pub controller: Box<dyn Controller>,
    /// The controller's handler registrations, one per kind it watches: the index of the
    /// process's informer (in [`Caches::informers`]) and the handler's id there. Each is a
    /// client-go `processorListener` with its own queue of calls.
    pub handlers: Vec<(usize, HandlerId)>,
    /// The work queue.
    pub queue: WorkQueue<String>,
    /// Keys whose delayed entry is only a deadline check ([`Outcome::CheckAfter`]).
    pub check_keys: std::collections::BTreeSet<String>,
    /// When each waiting key joined the queue (a world-wide sequence number). Keys of all
    /// controllers are taken oldest first, as if every worker ran at once: a burst of events for
    /// one key collapses while other controllers work through older keys.
    pub since: BTreeMap<String, u64>,
    /// The keys the controller's workers hold (taken with `Get`, not yet `Done`), each with the
    /// sequence number of the take, oldest first. Invariant: exactly the queue's processing set,
    /// and never more than [`Slot::workers`] keys.
    pub held: Vec<(u64, String)>,
    /// Keys whose delayed requeue is a poll ([`Outcome::PollAfter`]), with the world's change
    /// count right after the reconcile that scheduled it ([`World::changes`]). While nothing has
    /// changed since, the poll is periodic work, not progress: the namespace controller looking
    /// again at a namespace held by a finalizer, say. Kubernetes keeps polling too;
    /// `run_until_idle` stops there instead of calling it a hot loop.
    pub quiet_keys: BTreeMap<String, u64>,
    /// How many workers the controller runs (its `--concurrent-*-syncs`).
    pub workers: usize,
}

impl Slot {
    /// `queue.Add(key)`; a key that joins the queue (rather than one already waiting, or one
    /// being processed, which is only marked dirty) takes the next world-wide sequence number.
    fn add(&mut self, key: String, seq: &mut u64) {
        if self.queue.add(key.clone()) {
            *seq += 1;
            self.since.insert(key, *seq);
        }
    }

    fn new(controller: Box<dyn Controller>) -> Slot {
        let name = controller.name().trim_end_matches("-controller").to_string();
        let queue = WorkQueue::with_rate_limiter(name, controller.rate_limiter());
        let workers = concurrent_syncs(controller.name());
        Slot {
            controller,
            handlers: Vec::new(),
            queue,
            check_keys: Default::default(),
            since: BTreeMap::new(),
            held: Vec::new(),
            quiet_keys: BTreeMap::new(),
            workers,
        }
    }
}

/// The number of workers of a controller: kube-controller-manager's defaults
/// (`--concurrent-deployment-syncs=5`, `--concurrent-replicaset-syncs=5`,
/// `--concurrent-namespace-syncs=10`, `--concurrent-gc-syncs=20`); the rest run one worker (the
/// scheduler and kubelets are not work-queue controllers in Kubernetes; an operator built on
/// controller-runtime defaults to `MaxConcurrentReconciles: 1`). Whatever the number, a key is
/// never held by two workers at once: the work queue's processing set sees to that.
pub fn concurrent_syncs(controller: &str) -> usize {
    match controller {
        "deployment-controller" | "replicaset-controller" => 5,
        "namespace-controller" => 10,
        "garbage-collector-controller" => 20,
        _ => 1,
    }
}

/// One process of the control plane.
#[derive(Clone)]
pub struct Process {
    /// `kube-controller-manager-a`, ...
    pub name: String,
    /// The host it runs on (the first half of its leader-election identity).
    pub host: String,
    /// Whether the process is running at all.
    pub running: bool,
    /// Its leader elector, for replicated processes.
    pub elector: Option<LeaderElector>,
    /// Cut off from the API server.
    pub partitioned: bool,
    /// Its API calls fail with 500 until then.
    pub api_fails_until: Option<Time>,
    /// The next write of this process meets a conflicting write first.
    pub conflict_armed: bool,
    /// The shared informers, one per kind (empty while not active), whose indexers are the
    /// caches the controllers read.
    pub caches: Caches,
    /// Controllers with their queues.
    pub slots: Vec<Slot>,
}

impl Process {
    /// Whether its controllers run: running, and leading if it elects a leader.
    pub fn active(&self) -> bool {
        self.running && self.elector.as_ref().is_none_or(LeaderElector::is_leading)
    }

    /// Whether it currently leads (processes without election never lead).
    pub fn leading(&self) -> bool {
        self.running && self.elector.as_ref().is_some_and(LeaderElector::is_leading)
    }

    /// `cache.WaitForNamedCacheSync`: a controller's workers start only once every informer it
    /// reads has listed (the informer's `HasSynced`, as kube-controller-manager's controllers
    /// pass `informer.Informer().HasSynced` and wait in `Run` before starting their workers).
    /// Handlers run before that; keys they queue wait.
    fn caches_synced(&self, slot: &Slot) -> bool {
        let informers = self.caches.informers();
        slot.handlers.iter().all(|(ii, _)| informers.get(*ii).is_some_and(Informer::has_synced))
    }

    /// The process's informers, one per kind.
    pub fn informers(&self) -> &[Informer] {
        self.caches.informers()
    }

    fn failure(&self, now: Time) -> Option<Failure> {
        if self.partitioned {
            Some(Failure::Unreachable)
        } else if self.api_fails_until.is_some_and(|t| now < t) {
            Some(Failure::ServerError)
        } else {
            None
        }
    }

    /// Starts a shared informer for every kind its controllers watch (they list at `now`), each
    /// with the factory's resync period, and registers one handler per controller and kind.
    fn start(&mut self, now: Time, resync: Duration) {
        self.caches = Caches::default();
        let informers = self.caches.informers_mut();
        for s in &mut self.slots {
            s.handlers.clear();
            for k in s.controller.watches() {
                let ii = match informers.iter().position(|i| std::ptr::eq(i.kind(), *k)) {
                    Some(ii) => ii,
                    None => {
                        let mut inf = Informer::new(k, resync);
                        *inf.indexer_mut() = Indexer::unindexed();
                        informers.push(inf);
                        informers.len() - 1
                    }
                };
                let h = informers[ii].add_event_handler(s.controller.name(), now);
                s.handlers.push((ii, h));
            }
        }
    }

    /// Everything in memory is lost: informers stop, caches, buffers and queues are dropped and
    /// controllers come back fresh.
    fn stop(&mut self, api: &mut ApiServer) {
        for i in self.caches.informers_mut() {
            i.stop(api);
        }
        self.caches = Caches::default();
        for s in &mut self.slots {
            *s = Slot::new(s.controller.restarted());
        }
    }
}

/// A fault the world can inject (each also has its own method on [`World`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A process's watch for a kind breaks: undelivered events are lost; the reflector watches
    /// again from its last resourceVersion after a back-off (and relists if that is too old).
    BreakWatch { process: String, kind: String },
    /// The API server forgets its event history: every older resourceVersion becomes "too old".
    ExpireHistory,
    /// A clean stop: a leader releases its Lease.
    StopProcess(String),
    /// A crash: nothing is released.
    KillProcess(String),
    /// Start a stopped process.
    StartProcess(String),
    /// Kill and start again.
    RestartProcess(String),
    /// The process's API calls fail (500) for a while.
    FailApi { process: String, duration: Duration },
    /// Before the process's next write, another client writes the same object (so it gets 409).
    ConflictNextWrite(String),
    /// Cut the process off from the API server (its watches break, calls fail).
    Partition(String),
    /// Reconnect it.
    Heal(String),
    /// Every kubelet delay is multiplied by this factor (1: normal speed).
    SlowKubelets(u32),
    /// Pods using this image never start (`ErrImagePull`).
    FailImage(String),
    /// The image can be pulled again.
    FixImage(String),
    /// The clock jumps forward without anything running in between.
    ClockJump(Duration),
    /// The external cloud fails every call (503) or hangs (operations never complete); `None`
    /// ends the fault.
    Cloud(Option<CloudFault>),
}

/// A user's API call, as kubectl or the editor makes it.
#[derive(Clone, Debug)]
pub enum UserCall {
    /// POST.
    Create(Value),
    /// PUT.
    Update(Value),
    /// PUT /status.
    UpdateStatus(Value),
    /// PUT namespaces/x/finalize.
    FinalizeNamespace(Value),
    /// PATCH.
    Patch { kind: &'static Kind, namespace: Option<String>, name: String, patch: Patch, subresource: Subresource },
    /// DELETE.
    Delete { kind: &'static Kind, namespace: Option<String>, name: String, options: DeleteOptions },
}

/// What a user call returned.
#[derive(Clone, Debug)]
pub enum UserResult {
    /// The object written.
    Object(Value),
    /// The result of a DELETE.
    Deleted(Deleted),
}

impl UserResult {
    /// The object the call returned: the written object, or a deleted object's last state.
    pub fn into_object(self) -> Value {
        match self {
            UserResult::Object(v) | UserResult::Deleted(Deleted::Gone(v) | Deleted::Pending(v)) => v,
        }
    }

    /// The call's result as a DELETE's: a written object means it is still there, being deleted.
    pub fn into_deleted(self) -> Deleted {
        match self {
            UserResult::Deleted(d) => d,
            UserResult::Object(v) => Deleted::Pending(v),
        }
    }
}

/// A logged input: each gives exactly one record, and replaying them reproduces the run.
///
/// One is logged per step, so a converged 10,000-replica Deployment logs about 400,000: the rare
/// large ones are boxed to keep each at 16 bytes (unboxed, a `UserCall` made every input about
/// 170 bytes: some 70 MB of `Step`s).
#[derive(Clone, Debug)]
enum Input {
    Step,
    Run(usize),
    User(Box<(String, UserCall)>),
    Fault(Box<Fault>),
    Clock(Time),
}

const _: () = assert!(std::mem::size_of::<Input>() <= 16, "an input is logged per step: keep it small");

/// One thing that can happen next (internal form of [`Pending`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Act {
    List(usize, usize),
    Watch(usize, usize),
    Deliver(usize, usize),
    /// Run the next call queued for `slots[.1].handlers[.2]`.
    Handler(usize, usize, usize),
    Resync(usize, usize),
    /// Run the reconcile of the key held by `held[.2]`.
    Reconcile(usize, usize, usize),
    Take(usize, usize),
    QueueTimer(usize, usize),
    Lease(usize),
}

impl Act {
    fn class(self) -> u8 {
        match self {
            Act::List(..) | Act::Watch(..) => 0,
            Act::Deliver(..) => 1,
            Act::Handler(..) => 2,
            Act::Reconcile(..) => 3,
            Act::Take(..) => 4,
            Act::QueueTimer(..) | Act::Resync(..) => 5,
            Act::Lease(..) => 6,
        }
    }
    fn process(self) -> usize {
        match self {
            Act::List(p, _)
            | Act::Watch(p, _)
            | Act::Deliver(p, _)
            | Act::Handler(p, _, _)
            | Act::Resync(p, _)
            | Act::Reconcile(p, _, _)
            | Act::Take(p, _)
            | Act::QueueTimer(p, _)
            | Act::Lease(p) => p,
        }
    }
}

/// An action's place in the order [`World::acts`] lists them: an expired leader's tick first,
/// then by [`World::acts`]' time key, class, age, and the action itself.
type ActKey = (bool, (Time, i32, Time), u8, u64, Act);

/// Everything that changes as the world runs (snapshotted for going back).
#[derive(Clone)]
struct State {
    api: ApiServer,
    now: Time,
    rng: Rng,
    processes: Vec<Process>,
    event_seq: u64,
    /// The external cloud (outside the API server; the Bucket controller's buckets live there).
    cloud: Cloud,
    /// Sequence numbers for [`Slot::since`].
    queue_seq: u64,
    /// Changes made to the cluster so far (see [`World::changes`]).
    changes: u64,
    /// The resourceVersion of the latest change counted.
    last_change_rv: u64,
    /// Steps of work performed since the clock last moved (see [`WORK_STEP`]).
    busy: u64,
    /// Where kube-controller-manager's informer resync periods are drawn from (a stream of its
    /// own, so that drawing one shifts no other random choice; see [`informer`]).
    resync_rng: Rng,
}

/// Whether an API call changed the cluster in a way a controller could be waiting for: a
/// successful write that stored a resourceVersion newer than `last_change_rv` (a no-op DELETE of
/// an object already being deleted stores nothing new), other than an Event or the
/// controller-manager's leader Lease renewals.
fn is_change(c: &ApiCall, last_change_rv: u64) -> bool {
    let write = !matches!(c.verb.as_str(), "GET" | "LIST" | "WATCH");
    let noise = c.target.starts_with("Event ") || c.target == "Lease kube-system/kube-controller-manager";
    write && c.code < 300 && !noise && c.resource_version > last_change_rv
}

/// Counts the changes among `calls` ([`is_change`]): `(count, resourceVersion of the last one)`.
fn count_changes(calls: &[ApiCall], mut last_change_rv: u64) -> (u64, u64) {
    let mut n = 0;
    for c in calls {
        if is_change(c, last_change_rv) {
            n += 1;
            last_change_rv = c.resource_version;
        }
    }
    (n, last_change_rv)
}

/// The simulated cluster. See the module documentation.
pub struct World {
    seed: u64,
    state: State,
    /// The records: `history[history_dead..]` are those kept; the ones before are forgotten and
    /// dropped in batches (dropping one record per step would move every kept record each step).
    history: Vec<StepRecord>,
    /// Forgotten records still at the front of `history`.
    history_dead: usize,
    /// Records forgotten to bound memory: `history()[0]` is record number `history_base + 1`.
    history_base: usize,
    /// Keep at most this many records in memory (None: all).
    history_limit: Option<usize>,
    inputs: Vec<Input>,
    /// `(number of inputs applied, state then)`, oldest first; the first is the initial state.
    snapshots: Vec<(usize, State)>,
    /// A snapshot every this many inputs (0: only the initial one).
    snapshot_every: usize,
    /// See [`World::set_snapshot_budget`].
    snapshot_budget: Option<usize>,
    /// True while `goto` replays logged inputs (they are not logged again).
    replaying: bool,
}

fn kind_of(name: &str) -> Option<&'static Kind> {
    Kind::by_kind(name).or_else(|| Kind::lookup(name))
}

fn node_object(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}}, "spec": {}})
}

fn node_status(name: &str, index: usize, now: Time) -> Value {
    let t = now.rfc3339();
    let c = |ty: &str, st: &str, reason: &str, msg: &str| json!({"type": ty, "status": st, "lastHeartbeatTime": t, "lastTransitionTime": t, "reason": reason, "message": msg});
    json!({
        "capacity": {"cpu": "4", "memory": "8124360Ki", "pods": "110"},
        "allocatable": {"cpu": "4", "memory": "8021960Ki", "pods": "110"},
        "conditions": [
            c("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            c("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            c("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            c("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        "addresses": [{"type": "InternalIP", "address": format!("10.0.0.{}", 11 + index)}, {"type": "Hostname", "address": name}],
        "nodeInfo": {"kubeletVersion": "v1.34.0", "containerRuntimeVersion": "containerd://2.1.3",
                     "operatingSystem": "linux", "architecture": "amd64"},
    })
}

impl World {
    /// A new cluster: API server with its default namespaces, three Ready Nodes, two
    /// controller-manager replicas (no leader yet), the scheduler and the kubelets.
    pub fn new(seed: u64) -> World {
        World::with_kubelet_config(seed, KubeletConfig::default())
    }

    /// Like [`World::new`], with kubelet timings of your choice.
    pub fn with_kubelet_config(seed: u64, kubelet: KubeletConfig) -> World {
        let mut api = ApiServer::new(seed);
        let now = Time::START;
        api.set_now(now);
        for (i, n) in NODES.iter().enumerate() {
            if let Ok(mut node) = api.create(node_object(n)) {
                node["status"] = node_status(n, i, now);
                let _ = api.update_status(node);
            }
        }
        let mut rng = Rng::new(seed ^ 0x00C0_FFEE);
        let mut processes = Vec::new();
        for (name, host) in [(CONTROLLER_MANAGER_A, "control-plane-a"), (CONTROLLER_MANAGER_B, "control-plane-b")] {
            let identity = format!("{host}_{}", rng.uuid_v4());
            processes.push(Process {
                name: name.into(),
                host: host.into(),
                running: true,
                elector: Some(controller_manager_elector(identity, now)),
                partitioned: false,
                api_fails_until: None,
                conflict_armed: false,
                caches: Caches::default(),
                slots: controller_manager_controllers().into_iter().map(Slot::new).collect(),
            });
        }
        let single: Vec<(&str, Box<dyn Controller>)> =
            vec![(SCHEDULER, Box::new(Scheduler::new())), (KUBELET, Box::new(Kubelet::new(kubelet)))];
        let operators: Vec<(&str, Vec<Box<dyn Controller>>)> = vec![
            (BUCKET_OPERATOR, vec![Box::new(BucketController::new())]),
            (
                POD_COUNTERS,
                vec![
                    Box::new(PodCounter::new(Trigger::Edge, "default")),
                    Box::new(PodCounter::new(Trigger::Level, "default")),
                ],
            ),
        ];
        let single: Vec<(&str, Vec<Box<dyn Controller>>)> =
            single.into_iter().map(|(n, c)| (n, vec![c])).chain(operators).collect();
        for (name, cs) in single {
            let mut p = Process {
                name: name.into(),
                host: "control-plane-a".into(),
                running: name != POD_COUNTERS,
                elector: None,
                partitioned: false,
                api_fails_until: None,
                conflict_armed: false,
                caches: Caches::default(),
                slots: cs.into_iter().map(Slot::new).collect(),
            };
            if p.running {
                // The scheduler's informer factory has no resync (0); nor do the kubelets or the
                // lab's operators.
                p.start(now, Duration::ZERO);
            }
            processes.push(p);
        }
        let state = State {
            api,
            now,
            rng,
            processes,
            event_seq: 0,
            cloud: Cloud::new(),
            queue_seq: 0,
            changes: 0,
            last_change_rv: 0,
            busy: 0,
            resync_rng: Rng::new(seed ^ 0x5E5C_0000_0000_0000),
        };
        World {
            seed,
            snapshots: vec![(0, state.clone())],
            state,
            history: Vec::new(),
            history_dead: 0,
            history_base: 0,
            history_limit: None,
            inputs: Vec::new(),
            snapshot_every: 200,
            snapshot_budget: None,
            replaying: false,
        }
    }

    /// How many changes to the cluster the records so far made: successful writes other than
    /// Events and the controller-manager's Lease renewals (see [`Slot::quiet_keys`]).
    pub fn changes(&self) -> u64 {
        self.state.changes
    }

    /// The seed this world was made with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The virtual clock.
    pub fn now(&self) -> Time {
        self.state.now
    }

    /// The API server, for reads (kubectl get, the page's object views).
    pub fn api(&self) -> &ApiServer {
        &self.state.api
    }

    /// The API server for watches opened by kubectl `--watch` (reading their events). Writes made
    /// through this handle are not logged and are lost by [`World::goto`]: use [`World::user`].
    pub fn api_mut(&mut self) -> &mut ApiServer {
        &mut self.state.api
    }

    /// The processes, in order.
    pub fn processes(&self) -> &[Process] {
        &self.state.processes
    }

    /// A process by name.
    pub fn process(&self, name: &str) -> Option<&Process> {
        self.state.processes.iter().find(|p| p.name == name)
    }

    /// Every record so far, oldest first.
    /// The records kept in memory (all of them unless [`World::set_history_limit`] was used;
    /// each record's `number` says where it stands).
    pub fn history(&self) -> &[StepRecord] {
        &self.history[self.history_dead..]
    }

    /// The number of records so far on this branch (the position [`World::goto`] counts in).
    pub fn position(&self) -> usize {
        self.history_base + self.history().len()
    }

    /// Keeps at most `n` records (the oldest are forgotten; going back to them still works, by
    /// replay, and brings their records back; memory holds at most about `2n`, as forgotten
    /// records are dropped in batches). `None`: keep every record.
    pub fn set_history_limit(&mut self, n: Option<usize>) {
        self.history_limit = n.map(|n| n.max(1));
        self.trim_history();
    }

    fn trim_history(&mut self) {
        if let Some(limit) = self.history_limit {
            let kept = self.history.len() - self.history_dead;
            if kept > limit {
                let drop = kept - limit;
                self.history_dead += drop;
                self.history_base += drop;
            }
            if self.history_dead >= limit.max(64) {
                self.history.drain(..self.history_dead);
                self.history_dead = 0;
            }
        }
    }

    /// Bounds the snapshots' memory: after a new snapshot, while the kept ones' stored bytes
    /// ([`ApiServer::stored_bytes`], summed) exceed `bytes`, the one closest to its predecessor
    /// is dropped (never the initial one, never the newest). None: only the count is bounded.
    pub fn set_snapshot_budget(&mut self, bytes: Option<usize>) {
        self.snapshot_budget = bytes;
        self.thin_snapshots();
    }

    /// The steps at which snapshots are kept (0: the initial state), oldest first.
    pub fn snapshot_steps(&self) -> Vec<usize> {
        self.snapshots.iter().map(|(i, _)| *i).collect()
    }

    fn thin_snapshots(&mut self) {
        let Some(budget) = self.snapshot_budget else { return };
        let mut sizes: Vec<usize> = self.snapshots.iter().map(|(_, s)| s.api.stored_bytes()).collect();
        while self.snapshots.len() > 2 && sizes.iter().sum::<usize>() > budget {
            let last = self.snapshots.len() - 1;
            let drop = (1..last).min_by_key(|&i| self.snapshots[i].0 - self.snapshots[i - 1].0).unwrap_or(1);
            self.snapshots.remove(drop);
            sizes.remove(drop);
        }
    }

    /// Snapshot spacing in inputs (0: keep only the initial snapshot; going back then replays
    /// from the start). Lower is faster to go back, higher uses less memory.
    pub fn set_snapshot_every(&mut self, n: usize) {
        self.snapshot_every = n;
    }

    /// The kubelets' settings.
    pub fn kubelet_config(&mut self) -> Option<&mut KubeletConfig> {
        let p = self.state.processes.iter_mut().find(|p| p.name == KUBELET)?;
        let k = p.slots.first_mut()?.controller.as_any_mut().downcast_mut::<Kubelet>()?;
        Some(&mut k.config)
    }

    // ----- what happens next -----

    fn acts(&self) -> Vec<(Time, Act)> {
        let mut keyed = self.keyed_acts();
        crate::sort::sort_by(&mut keyed, |x, y| x.0.cmp(&y.0));
        let now = self.state.now;
        keyed.into_iter().map(|(k, t)| (t.max(now), k.4)).collect()
    }

    /// The action [`World::step`] takes: the first of [`World::acts`], found without sorting
    /// the others (a step needs only it; sorting was most of the cost of choosing), and the
    /// unsorted list (for the idleness test, which looks at every action).
    fn next_act(&self) -> (Option<(Time, Act)>, Vec<(ActKey, Time)>) {
        let keyed = self.keyed_acts();
        let first = keyed.iter().min_by(|x, y| x.0.cmp(&y.0)).map(|(k, t)| ((*t).max(self.state.now), k.4));
        (first, keyed)
    }

    /// Every pending action with its due time and its place in the order (the sort key).
    fn keyed_acts(&self) -> Vec<(ActKey, Time)> {
        let s = &self.state;
        let now = s.now;
        let mut out = Vec::new();
        for (pi, p) in s.processes.iter().enumerate() {
            if let Some(t) = p.elector.as_ref().and_then(LeaderElector::next_tick_at) {
                if p.running {
                    out.push((t, Act::Lease(pi)));
                }
            }
            if !p.active() {
                continue;
            }
            for (ii, inf) in p.caches.informers().iter().enumerate() {
                match inf.state() {
                    ReflectorState::NotStarted => out.push((now, Act::List(pi, ii))),
                    ReflectorState::BackingOff { until } => out.push((*until, Act::List(pi, ii))),
                    ReflectorState::RewatchAt { until } => out.push((*until, Act::Watch(pi, ii))),
                    ReflectorState::Watching(_) => {
                        if inf.has_deliverable(&s.api) {
                            out.push((now, Act::Deliver(pi, ii)));
                        }
                    }
                    ReflectorState::Stopped => {}
                }
                if let Some(t) = inf.next_resync_at() {
                    out.push((t, Act::Resync(pi, ii)));
                }
            }
            for (si, slot) in p.slots.iter().enumerate() {
                for (hi, (ii, h)) in slot.handlers.iter().enumerate() {
                    if p.caches.informers().get(*ii).is_some_and(|i| i.pending_notifications(*h).next().is_some()) {
                        out.push((now, Act::Handler(pi, si, hi)));
                    }
                }
                for wi in 0..slot.held.len() {
                    out.push((now, Act::Reconcile(pi, si, wi)));
                }
                if !slot.queue.is_empty() && slot.held.len() < slot.workers && p.caches_synced(slot) {
                    out.push((now, Act::Take(pi, si)));
                }
                if let Some(t) = slot.queue.next_ready_at() {
                    out.push((t, Act::QueueTimer(pi, si)));
                }
            }
        }
        // A leader whose renew deadline has passed (after a clock jump, say) stops leading before
        // anything else happens at that instant: its timer fired first in real time.
        let expired = |a: &Act| match a {
            Act::Lease(pi) => {
                s.processes[*pi].elector.as_ref().and_then(LeaderElector::renew_deadline_at).is_some_and(|t| t <= now)
            }
            _ => false,
        };
        // Held keys are reconciled in the order they were taken; keys are taken oldest first.
        let age = |a: &Act| match a {
            Act::Take(pi, si) => {
                let slot = &s.processes[*pi].slots[*si];
                slot.queue.waiting_keys().next().and_then(|k| slot.since.get(k)).copied().unwrap_or(0)
            }
            Act::Reconcile(pi, si, wi) => s.processes[*pi].slots[*si].held.get(*wi).map_or(0, |h| h.0),
            _ => 0,
        };
        // Work takes time (see [`WORK_STEP`]): a timer that the work done at this instant has
        // caught up with is due now, ahead of the work that would otherwise starve it. Caught-up
        // timers still fire in the order of their own times: a leader's renew tick due in 2 s
        // must not wait behind a kubelet timer due in 20 s, which would move the clock past the
        // renew deadline and make the busiest leader step down for no reason.
        let caught_up = now.after(WORK_STEP.saturating_mul(u32::try_from(s.busy).unwrap_or(u32::MAX)));
        // A timer still carries its own due time here: one that came due at an earlier instant
        // (the clock moved on to a later timer's time first) is overdue and runs before anything
        // at this instant, oldest first. Timers are listed at the current time at most.
        let key = |t: Time| if t > now && t <= caught_up { (now, 0, t) } else { (t, 1, t) };
        // An expired leader goes first of all, even before older overdue timers: after a clock
        // jump, another replica's overdue acquire tick (due before the leader's own tick, but at
        // a time when the Lease was still held) would otherwise take the Lease while the old
        // leader still acts (two leaders: long run FAULT_SEED=5000, cases 738 and 1430, saved in
        // tests/regressions/).
        // Each action's sort key is computed once (a key reads the queues: computing it in
        // every comparison was a fifth of a step).
        out.into_iter()
            .map(|(t, a)| {
                let expired = expired(&a);
                ((!expired, key(t), if expired { 0 } else { a.class() + 1 }, age(&a), a), t)
            })
            .collect()
    }

    fn is_periodic(&self, act: Act) -> bool {
        let p = &self.state.processes[act.process()];
        // Lease ticks are periodic once someone leads; while nobody does, acquiring is real work.
        let someone_leads = self.state.processes.iter().any(Process::leading);
        let only_checks = match act {
            Act::QueueTimer(_, si) => {
                let slot = &p.slots[si];
                slot.queue.next_due_keys().all(|k| slot.check_keys.contains(k))
            }
            _ => false,
        };
        let quiet = match act {
            Act::QueueTimer(_, si) => {
                let slot = &p.slots[si];
                slot.queue.next_due_keys().all(|k| slot.quiet_keys.get(k) == Some(&self.state.changes))
            }
            _ => false,
        };
        (matches!(act, Act::Lease(_)) && someone_leads)
            || matches!(act, Act::Resync(..))
            || p.partitioned
            || only_checks
            || quiet
    }

    /// What can happen next, in the order [`World::step`] would take it.
    pub fn pending(&self) -> Vec<Pending> {
        self.acts()
            .into_iter()
            .enumerate()
            .map(|(i, (at, act))| {
                let (actor, action, description) = self.describe(act);
                Pending { id: i as u64, at, actor, action, description, runnable: true }
            })
            .collect()
    }

    fn describe(&self, act: Act) -> (Actor, ActionKind, String) {
        let s = &self.state;
        let p = &s.processes[act.process()];
        let ctrl = |si: usize| Actor::Controller {
            process: p.name.clone(),
            controller: p.slots[si].controller.name().to_string(),
        };
        let informers = p.caches.informers();
        let inf = |ii: usize| Actor::Informer { process: p.name.clone(), kind: informers[ii].kind().kind.to_string() };
        match act {
            Act::Lease(_) => {
                let leading = p.leading();
                let what = if leading { "renew" } else { "try to acquire" };
                (
                    Actor::LeaderElector { process: p.name.clone() },
                    ActionKind::LeaseTick,
                    format!("{what} Lease kube-system/kube-controller-manager"),
                )
            }
            Act::List(_, ii) => {
                let i = &informers[ii];
                let what = if i.has_synced() { "relist" } else { "list" };
                (inf(ii), ActionKind::List, format!("{what} {}", i.kind().resource))
            }
            Act::Watch(_, ii) => (
                inf(ii),
                ActionKind::RelistTimer,
                format!(
                    "watch {} again from resourceVersion {}",
                    informers[ii].kind().resource,
                    informers[ii].last_sync_resource_version()
                ),
            ),
            Act::Deliver(_, ii) => {
                let i = &informers[ii];
                let evs = i.watch_id().map(|id| s.api.pending_events(id)).unwrap_or_default();
                let d = match evs.first() {
                    Some(e) => {
                        let more = if evs.len() > 1 { format!(" (+{} more)", evs.len() - 1) } else { String::new() };
                        format!(
                            "deliver {} {} {} (rv {}){more}",
                            e.event_type.as_str(),
                            i.kind().kind,
                            e.object.key(),
                            e.object.resource_version()
                        )
                    }
                    None => {
                        let d = format!(
                            "the {} watch ended: watch again from resourceVersion {}",
                            i.kind().resource,
                            i.last_sync_resource_version()
                        );
                        return (inf(ii), ActionKind::RelistTimer, d);
                    }
                };
                (inf(ii), ActionKind::DeliverEvent, d)
            }
            Act::Resync(_, ii) => (
                inf(ii),
                ActionKind::Resync,
                format!("resync {} (every cached object to every handler)", informers[ii].kind().resource),
            ),
            Act::Handler(_, si, hi) => {
                let d = p.slots[si]
                    .handlers
                    .get(hi)
                    .and_then(|(ii, h)| {
                        let i = informers.get(*ii)?;
                        let n = i.pending_notifications(*h).next()?;
                        Some(format!("{} {} {}", n.handler_name(), i.kind().kind, n.key()))
                    })
                    .unwrap_or_default();
                (ctrl(si), ActionKind::RunHandler, d)
            }
            Act::Take(_, si) => {
                let key = p.slots[si].queue.waiting_keys().next().cloned().unwrap_or_default();
                (ctrl(si), ActionKind::TakeKey, format!("take {key} from the queue"))
            }
            Act::Reconcile(_, si, wi) => {
                let key = p.slots[si].held.get(wi).map(|h| h.1.clone()).unwrap_or_default();
                (ctrl(si), ActionKind::Reconcile, format!("reconcile {key}"))
            }
            Act::QueueTimer(_, si) => {
                let d = p.slots[si].queue.next_due_keys().next().map(|k| format!("requeue {k}")).unwrap_or_default();
                (ctrl(si), ActionKind::QueueTimer, d)
            }
        }
    }

    // ----- stepping -----

    /// Performs the first pending action. `None` when nothing at all can happen.
    pub fn step(&mut self) -> Option<StepRecord> {
        let (at, act) = self.next_act().0?;
        self.log(Input::Step);
        let r = self.perform(at, act);
        Some(self.finish(r))
    }

    /// Performs the pending action with this id (from the latest [`World::pending`]).
    pub fn run(&mut self, id: u64) -> Result<StepRecord, String> {
        let acts = self.acts();
        let Some(&(at, act)) = acts.get(id as usize) else {
            return Err(format!("no pending action {id}"));
        };
        self.log(Input::Run(id as usize));
        let r = self.perform(at, act);
        Ok(self.finish(r))
    }

    /// Steps until only periodic work (lease renewals, the retries of a partitioned process)
    /// remains, or `cap` steps were taken: then reports a hot loop, naming the busiest actor.
    pub fn run_until_idle(&mut self, cap: u64) -> Settled {
        let mut steps = 0;
        loop {
            let (first, acts) = self.next_act();
            if acts.iter().all(|(k, _)| self.is_periodic(k.4)) {
                return Settled::Idle { steps };
            }
            if steps >= cap {
                return Settled::HotLoop { steps, explanation: self.hot_loop_explanation(cap) };
            }
            // `step` on the list just made (listing the actions again cost as much).
            let Some((at, act)) = first else { return Settled::Idle { steps } };
            self.log(Input::Step);
            let r = self.perform(at, act);
            self.finish(r);
            steps += 1;
        }
    }

    /// Names what loops: the actor and action (for reconciles, the key) that recur most in the
    /// last steps, leaving out the Lease ticks that happen alongside anything.
    fn hot_loop_explanation(&self, cap: u64) -> String {
        let recent = self.history().iter().rev().take(cap.min(1000) as usize);
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let n = recent.clone().count();
        // A take and a fired timer go with each reconcile; counting the reconciles (by key) names
        // the loop once.
        let counted =
            |r: &&StepRecord| !matches!(r.action, ActionKind::LeaseTick | ActionKind::TakeKey | ActionKind::QueueTimer);
        for r in recent.filter(counted) {
            let who = match (r.action, r.worked_key()) {
                (ActionKind::Reconcile, Some(k)) => format!("{} reconciling {k}", r.actor),
                _ => format!("{} ({})", r.actor, r.action.as_str()),
            };
            *counts.entry(who).or_default() += 1;
        }
        let busiest = counts.into_iter().max_by_key(|(k, c)| (*c, std::cmp::Reverse(k.clone())));
        match busiest {
            Some((who, c)) => format!(
                "stopped after {cap} steps with work still queued: {who} acted {c} times in the last {n} steps. A controller that keeps changing what it watches never settles."
            ),
            None => format!("stopped after {cap} steps with work still queued."),
        }
    }

    /// Runs everything due within `d`, then leaves the clock at now + `d`.
    pub fn advance(&mut self, d: Duration) -> Vec<StepRecord> {
        let target = self.state.now.after(d);
        let mut out = Vec::new();
        for _ in 0..1_000_000 {
            match self.acts().first() {
                Some((at, _)) if *at <= target => {}
                _ => break,
            }
            if let Some(r) = self.step() {
                out.push(r);
            }
        }
        if self.state.now < target {
            self.log(Input::Clock(target));
            let r = self.set_clock(target, format!("{} of virtual time passed.", fmt_duration(d)));
            out.push(self.finish(r));
        }
        out
    }

    fn set_clock(&mut self, t: Time, sentence: String) -> StepRecord {
        self.state.busy = 0;
        self.state.now = t;
        self.state.api.set_now(t);
        self.record(Actor::Lab, ActionKind::Clock, Vec::new(), Vec::new(), sentence)
    }

    fn record(
        &self,
        actor: Actor,
        action: ActionKind,
        objects: Vec<ObjectRef>,
        calls: Vec<ApiCall>,
        sentence: String,
    ) -> StepRecord {
        StepRecord {
            number: 0,
            time: self.state.now,
            actor,
            action,
            objects,
            calls,
            sentence,
            delivered: None,
            work: None,
        }
    }

    fn finish(&mut self, mut r: StepRecord) -> StepRecord {
        r.number = self.position() as u64 + 1;
        let (n, rv) = count_changes(&r.calls, self.state.last_change_rv);
        self.state.changes += n;
        self.state.last_change_rv = rv;
        self.history.push(r.clone());
        self.trim_history();
        let at = self.position();
        if self.snapshot_every > 0
            && at.is_multiple_of(self.snapshot_every)
            && !self.snapshots.iter().any(|(i, _)| *i == at)
        {
            self.snapshots.push((at, self.state.clone()));
            // Keep memory bounded: thin the older half when there are too many.
            if self.snapshots.len() > 48 {
                let keep_from = self.snapshots.len() / 2;
                let mut i = 0;
                self.snapshots.retain(|_| {
                    i += 1;
                    i == 1 || i > keep_from || i % 2 == 0
                });
            }
            self.thin_snapshots();
        }
        r
    }

    fn perform(&mut self, at: Time, act: Act) -> StepRecord {
        if at > self.state.now {
            self.state.now = at;
            self.state.api.set_now(at);
            self.state.busy = 0;
        }
        self.state.busy += 1;
        match act {
            Act::Lease(p) => self.lease_tick(p),
            Act::List(p, i) => self.list(p, i),
            Act::Watch(p, i) => self.rewatch(p, i),
            Act::Deliver(p, i) => self.deliver(p, i),
            Act::Handler(p, s, h) => self.handler(p, s, h),
            Act::Resync(p, i) => self.resync(p, i),
            Act::Take(p, s) => self.take(p, s),
            Act::Reconcile(p, s, w) => self.reconcile(p, s, w),
            Act::QueueTimer(p, s) => self.queue_timer(p, s),
        }
    }

    fn lease_tick(&mut self, pi: usize) -> StepRecord {
        let now = self.state.now;
        let State { api, processes, event_seq, rng, resync_rng, .. } = &mut self.state;
        let p = &mut processes[pi];
        let failure = p.failure(now);
        let mut calls = Vec::new();
        let mut armed = false;
        let Some(elector) = p.elector.as_mut() else {
            return self.record(Actor::Lab, ActionKind::LeaseTick, Vec::new(), Vec::new(), String::new());
        };
        let step = {
            let mut wapi = WorldApi { server: api, calls: &mut calls, failure, conflict_armed: &mut armed };
            elector.tick(&mut wapi, now, rng)
        };
        let identity = elector.identity().to_string();
        let leading = elector.is_leading();
        let lease_ref = ObjectRef {
            kind: "Lease".into(),
            key: elector.lease_key(),
            resource_version: elector.lease_resource_version(),
        };
        let outcome = step.map(|s| s.outcome);
        let renewed = outcome == Some(ElectionOutcome::Renewed);
        let sentence = match outcome {
            Some(ElectionOutcome::BecameLeader) => {
                let lease =
                    api.get(Kind::by_kind("Lease").expect("kind"), Some("kube-system"), "kube-controller-manager");
                if let Ok(lease) = lease {
                    let empty = Caches::default();
                    let mut wapi = WorldApi { server: api, calls: &mut calls, failure, conflict_armed: &mut armed };
                    let mut ctx = Ctx { now, cache: &empty, api: &mut wapi, event_seq };
                    ctx.event(
                        "kube-controller-manager",
                        &lease,
                        "Normal",
                        "LeaderElection",
                        &format!("{identity} became leader"),
                    );
                }
                p.start(now, informer::controller_manager_resync_period(resync_rng));
                format!("{} acquired the Lease kube-system/kube-controller-manager as {identity} and starts its controllers.", p.name)
            }
            Some(ElectionOutcome::Renewed) => {
                format!("{} renewed its Lease (renewTime {}).", p.name, now.rfc3339_micro())
            }
            Some(ElectionOutcome::StoppedLeading) => {
                let released = calls.iter().any(|c| c.verb == "UPDATE" && c.code == 200);
                p.stop(api);
                let new_identity = format!("{}_{}", p.host, rng.uuid_v4());
                p.elector = Some(controller_manager_elector(new_identity, now.after(Duration::from_secs(2))));
                let released = if released { " (it released the Lease on its way out)" } else { "" };
                format!(
                    "{} did not renew its Lease within the 10s renew deadline and stopped leading{released}; the process exits and restarts as a candidate with empty caches.",
                    p.name
                )
            }
            _ if leading => {
                format!("{} could not renew its Lease; it keeps trying until the renew deadline.", p.name)
            }
            Some(ElectionOutcome::HeldByOther { holder, .. }) => {
                format!("{} tried to acquire the Lease, but {holder} holds it.", p.name)
            }
            _ if failure.is_some() => format!("{} could not reach the API server to try the Lease.", p.name),
            _ => {
                let holder = api
                    .get(Kind::by_kind("Lease").expect("kind"), Some("kube-system"), "kube-controller-manager")
                    .ok()
                    .and_then(|l| l.pointer("/spec/holderIdentity").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_default();
                format!("{} tried to acquire the Lease, but {holder} holds it.", p.name)
            }
        };
        if renewed {
            self.absorb_quiet_lease_events();
        }
        let name = self.state.processes[pi].name.clone();
        self.record(Actor::LeaderElector { process: name }, ActionKind::LeaseTick, vec![lease_ref], calls, sentence)
    }

    /// The garbage collector monitors every deletable resource, Leases included (k/k
    /// `garbagecollector/graph_builder.go` starts a monitor per resource; only Events are ignored
    /// by default), so each leader renewal, every 2 s, is a watch event for it. Its graph builder
    /// acts on an update only when owner references or the deletion state change
    /// (`processGraphChanges`: `referencesDiffs`, `beingDeleted`, `deletionStartsWithFinalizer`);
    /// a renewal changes neither, so upstream does nothing visible with it. To keep the timeline
    /// readable the lab delivers such events inside the renewal step: each informer of Leases
    /// takes the head of its stream while it is a MODIFIED event that leaves ownerReferences,
    /// finalizers and deletionTimestamp as its cache had them, updates its cache and runs the
    /// handlers (which queue nothing for it). Any other Lease event is delivered as its own step.
    fn absorb_quiet_lease_events(&mut self) {
        let now = self.state.now;
        let State { api, processes, queue_seq, rng, .. } = &mut self.state;
        for p in processes.iter_mut().filter(|p| p.active()) {
            let Process { caches, slots, .. } = p;
            for ii in 0..caches.informers().len() {
                let inf = &caches.informers()[ii];
                let kind = inf.kind();
                let Some(id) = inf.watch_id().filter(|_| kind.kind == "Lease") else { continue };
                loop {
                    let inf = &caches.informers()[ii];
                    // Only when no handler of this informer has calls waiting: the absorbed call
                    // then runs in its turn.
                    let idle = inf.handlers_with_pending().is_empty();
                    let quiet = idle
                        && api.pending_events(id).first().is_some_and(|e| {
                            e.event_type == EventType::Modified
                                && caches.get(kind, &e.object.key()).is_some_and(|old| {
                                    ["/metadata/ownerReferences", "/metadata/finalizers", "/metadata/deletionTimestamp"]
                                        .iter()
                                        .all(|f| old.pointer(f) == e.object.pointer(f))
                                })
                        });
                    if !quiet {
                        break;
                    }
                    let inf = &mut caches.informers_mut()[ii];
                    let mut calls = Vec::new();
                    let mut lw = WorldLw { server: api, failure: None, calls: &mut calls };
                    if inf.deliver_next(&mut lw, now, rng).is_none() {
                        break;
                    }
                    for slot in slots.iter_mut() {
                        let Some(&(_, h)) = slot.handlers.iter().find(|(i, _)| *i == ii) else { continue };
                        let Some(call) = caches.informers_mut()[ii].pop_notification(h) else { continue };
                        let n = to_notification(&call);
                        for k in slot.controller.handle(kind, &n, caches, now) {
                            match k {
                                Enqueue::Now(k) => slot.add(k, queue_seq),
                                Enqueue::After(k, d) => slot.queue.add_after(k, d, now),
                            }
                        }
                    }
                }
            }
        }
    }

    /// The record of one informer step of process `pi`'s informer `ii`.
    fn informer_record(
        &self,
        pi: usize,
        ii: usize,
        action: ActionKind,
        step: &InformerStep,
        calls: Vec<ApiCall>,
    ) -> StepRecord {
        let p = &self.state.processes[pi];
        let kind = p.caches.informers()[ii].kind();
        let actor = Actor::Informer { process: p.name.clone(), kind: kind.kind.to_string() };
        let text = sentence(step, kind, &p.name);
        let mut objects = Vec::new();
        let mut delivered = None;
        match step {
            InformerStep::Event { event_type, key, resource_version } => {
                objects.push(ObjectRef {
                    kind: kind.kind.into(),
                    key: key.clone(),
                    resource_version: *resource_version,
                });
                delivered = Some(Delivered {
                    event_type: *event_type,
                    key: key.clone(),
                    resource_version: *resource_version,
                    error: None,
                });
            }
            InformerStep::Bookmark { resource_version } => {
                delivered = Some(Delivered {
                    event_type: EventType::Bookmark,
                    key: String::new(),
                    resource_version: *resource_version,
                    error: None,
                });
            }
            InformerStep::WatchError { message, code, .. } => {
                delivered = Some(Delivered {
                    event_type: EventType::Error,
                    key: String::new(),
                    resource_version: 0,
                    error: Some((*code, message.clone())),
                });
            }
            _ => {}
        }
        let mut r = self.record(actor, action, objects, calls, text);
        r.delivered = delivered;
        r
    }

    /// Runs one step of process `pi`'s informer `ii` against the API server as that process
    /// reaches it (its partition or failing calls), returning the step and the calls it made.
    fn drive_informer<T>(
        &mut self,
        pi: usize,
        ii: usize,
        step: impl FnOnce(&mut Informer, &mut dyn ListerWatcher, Time, &mut Rng) -> T,
    ) -> (T, Vec<ApiCall>) {
        let now = self.state.now;
        let State { api, processes, rng, .. } = &mut self.state;
        let p = &mut processes[pi];
        let failure = p.failure(now);
        let mut calls = Vec::new();
        let mut lw = WorldLw { server: api, failure, calls: &mut calls };
        let out = step(&mut p.caches.informers_mut()[ii], &mut lw, now, rng);
        (out, calls)
    }

    /// An informer's `ListAndWatch`: list (a relist after a back-off), replace the cache, queue
    /// the differences (and the unchanged objects, as sync updates) for the handlers, watch.
    fn list(&mut self, pi: usize, ii: usize) -> StepRecord {
        let (step, calls) = self.drive_informer(pi, ii, Informer::list_and_watch);
        self.informer_record(pi, ii, ActionKind::List, &step, calls)
    }

    /// The back-off after a retriable watch failure is over: watch again from the last synced
    /// resourceVersion.
    fn rewatch(&mut self, pi: usize, ii: usize) -> StepRecord {
        let (step, calls) = self.drive_informer(pi, ii, Informer::retry_watch);
        match step {
            Some(step) => self.informer_record(pi, ii, ActionKind::RelistTimer, &step, calls),
            None => self.record(Actor::Lab, ActionKind::RelistTimer, Vec::new(), calls, String::new()),
        }
    }

    /// One watch event to one informer (cache first, then a call queued for each handler), or the
    /// end of its watch stream (client-go watches again at once).
    fn deliver(&mut self, pi: usize, ii: usize) -> StepRecord {
        let (step, calls) = self.drive_informer(pi, ii, Informer::deliver_next);
        // The end of a stream and what follows (a re-watch, or a back-off) is a re-watch step.
        let action = match &step {
            Some(InformerStep::Event { .. } | InformerStep::Bookmark { .. } | InformerStep::WatchError { .. }) => {
                ActionKind::DeliverEvent
            }
            _ => ActionKind::RelistTimer,
        };
        match step {
            Some(step) => self.informer_record(pi, ii, action, &step, calls),
            None => self.record(Actor::Lab, action, Vec::new(), calls, String::new()),
        }
    }

    /// A resync check of one informer.
    fn resync(&mut self, pi: usize, ii: usize) -> StepRecord {
        let now = self.state.now;
        let step = self.state.processes[pi].caches.informers_mut()[ii].resync(now);
        match step {
            Some(step) => self.informer_record(pi, ii, ActionKind::Resync, &step, Vec::new()),
            None => self.record(Actor::Lab, ActionKind::Resync, Vec::new(), Vec::new(), String::new()),
        }
    }

    /// One handler call: the oldest call queued for one controller's handler on one informer.
    fn handler(&mut self, pi: usize, si: usize, hi: usize) -> StepRecord {
        let now = self.state.now;
        let seq = &mut self.state.queue_seq;
        let p = &mut self.state.processes[pi];
        let Process { caches, slots, name, .. } = p;
        let slot = &mut slots[si];
        let actor = Actor::Controller { process: name.clone(), controller: slot.controller.name().to_string() };
        let Some(&(ii, h)) = slot.handlers.get(hi) else {
            return self.record(actor, ActionKind::RunHandler, Vec::new(), Vec::new(), String::new());
        };
        let Some(call) = caches.informers_mut().get_mut(ii).and_then(|i| i.pop_notification(h)) else {
            return self.record(actor, ActionKind::RunHandler, Vec::new(), Vec::new(), String::new());
        };
        let kind = caches.informers()[ii].kind();
        let n = to_notification(&call);
        let keys = slot.controller.handle(kind, &n, caches, now);
        let mut added = Vec::new();
        let mut work = QueueWork { queue: slot.queue.name().to_string(), ..QueueWork::default() };
        for k in keys {
            match k {
                Enqueue::Now(k) => {
                    slot.add(k.clone(), seq);
                    added.push(k.clone());
                    work.added.push(k);
                }
                Enqueue::After(k, d) => {
                    slot.queue.add_after(k.clone(), d, now);
                    slot.check_keys.remove(&k);
                    added.push(format!("{k} (in {})", fmt_duration(d)));
                    work.delayed.push((k, d));
                }
            }
        }
        let obj = n.object();
        let what = if added.is_empty() { "queued nothing".to_string() } else { format!("queued {}", added.join(", ")) };
        let sentence = format!(
            "The {} handler ran {} for {} {} and {what}.",
            slot.controller.name(),
            n.verb(),
            kind.kind,
            obj.key()
        );
        let objects =
            vec![ObjectRef { kind: kind.kind.into(), key: obj.key(), resource_version: obj.resource_version() }];
        let mut r = self.record(actor, ActionKind::RunHandler, objects, Vec::new(), sentence);
        r.work = Some(work);
        r
    }

    /// Step A of a reconcile: a free worker calls the work queue's `Get` (client-go's
    /// `processNextWorkItem`). The key leaves the queue and joins the processing set; until the
    /// reconcile of step B calls `Done`, adding it again only marks it dirty.
    fn take(&mut self, pi: usize, si: usize) -> StepRecord {
        let State { processes, queue_seq, .. } = &mut self.state;
        let p = &mut processes[pi];
        let slot = &mut p.slots[si];
        let cname = slot.controller.name();
        let actor = Actor::Controller { process: p.name.clone(), controller: cname.to_string() };
        let Some(key) = slot.queue.get() else {
            return self.record(actor, ActionKind::TakeKey, Vec::new(), Vec::new(), String::new());
        };
        slot.since.remove(&key);
        *queue_seq += 1;
        slot.held.push((*queue_seq, key.clone()));
        let busy = slot.held.len();
        let workers = slot.workers;
        let work = QueueWork { queue: slot.queue.name().to_string(), key: Some(key.clone()), ..QueueWork::default() };
        let sentence = if workers == 1 {
            format!("The {cname} worker took {key} from its work queue (Get): the key is processing until its reconcile calls Done.")
        } else {
            format!("A {cname} worker took {key} from its work queue (Get): the key is processing until its reconcile calls Done ({busy} of {workers} workers busy).")
        };
        let mut r = self.record(actor, ActionKind::TakeKey, Vec::new(), Vec::new(), sentence);
        r.work = Some(work);
        r
    }

    /// Step B: the worker holding `held[wi]` reconciles its key, then calls `Done`, and `Forget`,
    /// `AddAfter` or `AddRateLimited` as the outcome says.
    fn reconcile(&mut self, pi: usize, si: usize, wi: usize) -> StepRecord {
        let now = self.state.now;
        let State { api, processes, event_seq, cloud, queue_seq, changes, last_change_rv, .. } = &mut self.state;
        let p = &mut processes[pi];
        let failure = p.failure(now);
        let Process { caches, slots, name, conflict_armed, .. } = p;
        let slot = &mut slots[si];
        let cname = slot.controller.name();
        let actor = Actor::Controller { process: name.clone(), controller: cname.to_string() };
        if wi >= slot.held.len() {
            return self.record(actor, ActionKind::Reconcile, Vec::new(), Vec::new(), String::new());
        }
        let (_, key) = slot.held.remove(wi);
        let mut calls = Vec::new();
        let outcome = {
            let mut wapi = WorldApi { server: api, calls: &mut calls, failure, conflict_armed };
            let mut capi = CloudApi { inner: &mut wapi, cloud, now };
            let mut ctx = Ctx { now, cache: caches, api: &mut capi, event_seq };
            slot.controller.reconcile(&key, &mut ctx)
        };
        let mut work =
            QueueWork { queue: slot.queue.name().to_string(), key: Some(key.clone()), ..QueueWork::default() };
        let changes_after = *changes + count_changes(&calls, *last_change_rv).0;
        slot.quiet_keys.remove(&key);
        // `Done` first (client-go's worker defers it; nothing in between touches the queue): a key
        // added again while processing goes back to the queue now, exactly once.
        if slot.queue.done(&key) {
            *queue_seq += 1;
            slot.since.insert(key.clone(), *queue_seq);
            work.requeued_dirty = true;
            work.added.push(key.clone());
        }
        let mut queued_more = Vec::new();
        for k in slot.controller.take_enqueues() {
            match k {
                Enqueue::Now(k) => {
                    slot.add(k.clone(), queue_seq);
                    queued_more.push(k.clone());
                    work.added.push(k);
                }
                Enqueue::After(k, d) => {
                    slot.queue.add_after(k.clone(), d, now);
                    queued_more.push(format!("{k} (in {})", fmt_duration(d)));
                    work.delayed.push((k, d));
                }
            }
        }
        let after = match &outcome {
            Outcome::Done => {
                slot.queue.forget(&key);
                String::new()
            }
            Outcome::RequeueAfter(d) => {
                slot.queue.forget(&key);
                slot.queue.add_after(key.clone(), *d, now);
                slot.check_keys.remove(&key);
                work.delayed.push((key.clone(), *d));
                format!(" It looks again in {}.", fmt_duration(*d))
            }
            Outcome::PollAfter(d) => {
                slot.queue.forget(&key);
                slot.queue.add_after(key.clone(), *d, now);
                slot.check_keys.remove(&key);
                work.delayed.push((key.clone(), *d));
                slot.quiet_keys.insert(key.clone(), changes_after);
                format!(" It looks again in {}.", fmt_duration(*d))
            }
            Outcome::CheckAfter(d) => {
                slot.queue.forget(&key);
                let before = slot.queue.ready_at(&key);
                slot.queue.add_after(key.clone(), *d, now);
                work.delayed.push((key.clone(), *d));
                if before.is_none_or(|t| t > now.after(*d)) {
                    slot.check_keys.insert(key.clone());
                }
                format!(" It checks the progress deadline again in {}.", fmt_duration(*d))
            }
            Outcome::Err(e) => {
                let d = slot.queue.add_rate_limited(key.clone(), now);
                slot.check_keys.remove(&key);
                work.delayed.push((key.clone(), d));
                format!(" It failed ({e}) and will retry in {} (back-off).", fmt_duration(d))
            }
        };
        let writes: Vec<String> = calls
            .iter()
            .filter(|c| c.verb != "GET" && !c.target.starts_with("Event "))
            .map(|c| c.to_string())
            .collect();
        let did = if writes.is_empty() { "found nothing to change".to_string() } else { writes.join("; ") };
        let mut sentence = format!("{cname} reconciled {key}: {did}.{after}");
        if !queued_more.is_empty() {
            sentence.push_str(&format!(" It queued {}.", queued_more.join(", ")));
        }
        if work.requeued_dirty {
            sentence.push_str(&format!(
                " {key} was added again while it was processing (dirty), so Done put it back in the queue, once."
            ));
        }
        let mut objects: Vec<ObjectRef> = Vec::new();
        for c in &calls {
            if let Some((k, t)) = c.target.split_once(' ') {
                if k != "Event" {
                    objects.push(ObjectRef { kind: k.into(), key: t.into(), resource_version: c.resource_version });
                }
            }
        }
        let mut r = self.record(actor, ActionKind::Reconcile, objects, calls, sentence);
        r.work = Some(work);
        r
    }

    fn queue_timer(&mut self, pi: usize, si: usize) -> StepRecord {
        let now = self.state.now;
        let p = &mut self.state.processes[pi];
        let slot = &mut p.slots[si];
        let actor = Actor::Controller { process: p.name.clone(), controller: slot.controller.name().to_string() };
        let keys = slot.queue.fire_due(now);
        for k in &keys {
            slot.check_keys.remove(k);
            slot.quiet_keys.remove(k);
            self.state.queue_seq += 1;
            slot.since.entry(k.clone()).or_insert(self.state.queue_seq);
        }
        let sentence = format!(
            "A delayed key of {} is due: {} is back in its work queue.",
            slot.controller.name(),
            keys.join(", ")
        );
        let work = QueueWork { queue: slot.queue.name().to_string(), added: keys, ..QueueWork::default() };
        let mut r = self.record(actor, ActionKind::QueueTimer, Vec::new(), Vec::new(), sentence);
        r.work = Some(work);
        r
    }

    // ----- users -----

    /// A user API call (kubectl, the editor), logged so that going back replays it.
    pub fn user(&mut self, who: &str, call: UserCall) -> Result<UserResult, Status> {
        self.log(Input::User(Box::new((who.to_string(), call.clone()))));
        let (r, rec) = self.apply_user(who, call);
        self.finish(rec);
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
                let t = format!("{} {}", o.kind(), o.key());
                let r = api.create(o).map(UserResult::Object);
                ("CREATE", t, 0, r, 201)
            }
            UserCall::Update(o) => {
                let t = format!("{} {}", o.kind(), o.key());
                let sent = o.resource_version();
                ("UPDATE", t, sent, api.update(o).map(UserResult::Object), 200)
            }
            UserCall::UpdateStatus(o) => {
                let t = format!("{} {}", o.kind(), o.key());
                let sent = o.resource_version();
                ("UPDATE /status", t, sent, api.update_status(o).map(UserResult::Object), 200)
            }
            UserCall::FinalizeNamespace(o) => {
                let t = format!("{} {}", o.kind(), o.key());
                let sent = o.resource_version();
                ("UPDATE /finalize", t, sent, api.finalize_namespace(o).map(UserResult::Object), 200)
            }
            UserCall::Patch { kind, namespace, name, patch, subresource } => {
                let t = match &namespace {
                    Some(ns) => format!("{} {ns}/{name}", kind.kind),
                    None => format!("{} {name}", kind.kind),
                };
                let r = api.patch(kind, namespace.as_deref(), &name, &patch, subresource).map(UserResult::Object);
                ("PATCH", t, 0, r, 200)
            }
            UserCall::Delete { kind, namespace, name, options } => {
                let t = match &namespace {
                    Some(ns) => format!("{} {ns}/{name}", kind.kind),
                    None => format!("{} {name}", kind.kind),
                };
                let r = api.delete(kind, namespace.as_deref(), &name, &options).map(UserResult::Deleted);
                ("DELETE", t, 0, r, 200)
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
            verb: verb.into(),
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
        let objects = match target.split_once(' ') {
            Some((k, key)) => vec![ObjectRef { kind: k.into(), key: key.into(), resource_version: rv }],
            None => Vec::new(),
        };
        let rec = self.record(Actor::User(who.to_string()), ActionKind::UserCall, objects, vec![call], sentence);
        (r, rec)
    }

    // ----- faults -----

    /// Injects a fault. Errors name an unknown process or kind.
    pub fn fault(&mut self, f: Fault) -> Result<StepRecord, String> {
        self.check_fault(&f)?;
        self.log(Input::Fault(Box::new(f.clone())));
        let r = self.apply_fault(f);
        Ok(self.finish(r))
    }

    fn process_index(&self, name: &str) -> Result<usize, String> {
        self.state
            .processes
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| format!("unknown process \"{name}\" (known: {})", self.process_names().join(", ")))
    }

    fn process_names(&self) -> Vec<String> {
        self.state.processes.iter().map(|p| p.name.clone()).collect()
    }

    fn check_fault(&self, f: &Fault) -> Result<(), String> {
        match f {
            Fault::BreakWatch { process, kind } => {
                let pi = self.process_index(process)?;
                let k = kind_of(kind).ok_or_else(|| format!("unknown kind \"{kind}\""))?;
                let p = &self.state.processes[pi];
                if !p.informers().iter().any(|i| std::ptr::eq(i.kind(), k)) {
                    return Err(format!("{process} has no {} informer running", k.kind));
                }
                Ok(())
            }
            Fault::StopProcess(p)
            | Fault::KillProcess(p)
            | Fault::StartProcess(p)
            | Fault::RestartProcess(p)
            | Fault::ConflictNextWrite(p)
            | Fault::Partition(p)
            | Fault::Heal(p)
            | Fault::FailApi { process: p, .. } => self.process_index(p).map(|_| ()),
            _ => Ok(()),
        }
    }

    fn apply_fault(&mut self, f: Fault) -> StepRecord {
        let now = self.state.now;
        let mut calls = Vec::new();
        let sentence = match &f {
            Fault::BreakWatch { process, kind } => {
                let pi = self.process_index(process).unwrap_or(0);
                let k = kind_of(kind);
                let State { api, processes, .. } = &mut self.state;
                let mut lost = None;
                // Only an open watch can break. A reflector that has not listed yet (or is backing
                // off) keeps its plan: turning a pending first list into a watch from
                // resourceVersion 0 left the cache empty and never synced (long run, saved as
                // tests/regressions/fault-340372-4996.faults).
                // The connection is reset: the events in flight are lost and the stream ends; the
                // informer's next step handles the end (client-go watches again at once).
                for inf in processes[pi].informers().iter().filter(|i| k.is_some_and(|k| std::ptr::eq(i.kind(), k))) {
                    if let Some(id) = inf.watch_id().filter(|id| api.watch_is_open(*id)) {
                        lost = Some(api.pending_events(id).len());
                        api.stop_watch(id);
                    }
                }
                match lost {
                    Some(lost) => format!("The {kind} watch of {process} broke: {lost} event(s) in flight are lost; the reflector will watch again from its last resourceVersion (at once, as client-go does when a stream ends, unless the watch lasted under a second without an event: then it relists after a back-off)."),
                    None => format!("The {kind} informer of {process} has no open watch to break (it has not listed yet, or is backing off); nothing changes."),
                }
            }
            Fault::ExpireHistory => {
                self.state.api.expire_history();
                "The API server compacted its event history: watches from any older resourceVersion now get 410 Expired.".to_string()
            }
            Fault::StopProcess(name) | Fault::KillProcess(name) => {
                let clean = matches!(f, Fault::StopProcess(_));
                let pi = self.process_index(name).unwrap_or(0);
                let State { api, processes, .. } = &mut self.state;
                let p = &mut processes[pi];
                let mut released = false;
                let failure = p.failure(now);
                if let Some(e) = p.elector.as_mut() {
                    if clean {
                        let mut armed = false;
                        let mut wapi = WorldApi { server: api, calls: &mut calls, failure, conflict_armed: &mut armed };
                        let step = e.shut_down(&mut wapi, now);
                        released = step.outcome == ElectionOutcome::ShutDown { released: true };
                    } else {
                        e.crash();
                    }
                }
                p.stop(api);
                p.running = false;
                match (clean, released) {
                    (true, true) => {
                        format!("{name} stopped cleanly and released its Lease; its caches and queues are gone.")
                    }
                    (true, false) => format!("{name} stopped cleanly; its caches and queues are gone."),
                    _ => format!(
                        "{name} crashed: its caches and queues are gone, and any Lease it held stays until it expires."
                    ),
                }
            }
            Fault::StartProcess(name) | Fault::RestartProcess(name) => {
                let pi = self.process_index(name).unwrap_or(0);
                let restart = matches!(f, Fault::RestartProcess(_));
                if !restart && self.state.processes[pi].running {
                    // Starting what already runs changes nothing: like `systemctl start` of a
                    // running unit, the process keeps its identity, its Lease and its caches.
                    let sentence = format!("{name} is already running; nothing changes.");
                    return self.record(Actor::Lab, ActionKind::Fault, Vec::new(), calls, sentence);
                }
                let new_identity = format!("{}_{}", self.state.processes[pi].host, self.state.rng.uuid_v4());
                let State { api, processes, .. } = &mut self.state;
                let p = &mut processes[pi];
                if restart || !p.running {
                    p.stop(api);
                }
                p.running = true;
                match p.elector.as_mut() {
                    Some(e) => {
                        *e = controller_manager_elector(new_identity, now);
                        format!("{name} started as a new candidate: it will lead only once it holds the Lease.")
                    }
                    None => {
                        p.start(now, Duration::ZERO);
                        format!("{name} started with empty caches: its informers list everything again.")
                    }
                }
            }
            Fault::FailApi { process, duration } => {
                let pi = self.process_index(process).unwrap_or(0);
                self.state.processes[pi].api_fails_until = Some(now.after(*duration));
                format!(
                    "For the next {}, every API call of {process} fails with 500 (etcdserver: request timed out).",
                    fmt_duration(*duration)
                )
            }
            Fault::ConflictNextWrite(process) => {
                let pi = self.process_index(process).unwrap_or(0);
                self.state.processes[pi].conflict_armed = true;
                format!("Armed: just before {process}'s next write, another client will change the same object, so that write carries a stale resourceVersion.")
            }
            Fault::Partition(name) => {
                let pi = self.process_index(name).unwrap_or(0);
                let State { api, processes, .. } = &mut self.state;
                let p = &mut processes[pi];
                p.partitioned = true;
                // The connections break; each informer's next step finds its stream ended and
                // tries to watch again, which is refused until the partition heals.
                for inf in p.informers() {
                    if let Some(id) = inf.watch_id() {
                        api.stop_watch(id);
                    }
                }
                format!("{name} is cut off from the API server: its watches break and its calls fail.")
            }
            Fault::Heal(name) => {
                let pi = self.process_index(name).unwrap_or(0);
                self.state.processes[pi].partitioned = false;
                format!("{name} can reach the API server again.")
            }
            Fault::SlowKubelets(factor) => {
                if let Some(c) = self.kubelet_config() {
                    c.slowdown = (*factor).max(1);
                }
                format!("The kubelets now take {}x as long for every transition.", (*factor).max(1))
            }
            Fault::FailImage(image) => {
                if let Some(c) = self.kubelet_config() {
                    c.failing_images.insert(image.clone());
                }
                format!("The image \"{image}\" can no longer be pulled: new pods using it never start.")
            }
            Fault::FixImage(image) => {
                if let Some(c) = self.kubelet_config() {
                    c.failing_images.remove(image);
                }
                // The kubelets' pending image-pull retries were only polling while the image
                // failed; now the next retry starts the pod: real work for `run_until_idle`.
                if let Some(p) = self.state.processes.iter_mut().find(|p| p.name == KUBELET) {
                    for slot in &mut p.slots {
                        slot.check_keys.clear();
                    }
                }
                format!("The image \"{image}\" can be pulled again.")
            }
            Fault::Cloud(fault) => {
                self.state.cloud.set_fault(*fault, now);
                match fault {
                    Some(CloudFault::Failing) => {
                        "The external cloud is failing: every call to it answers 503 ServiceUnavailable.".to_string()
                    }
                    Some(CloudFault::Hanging) => {
                        "The external cloud hangs: it accepts calls, but no bucket operation completes.".to_string()
                    }
                    None => "The external cloud works again; stalled operations resume.".to_string(),
                }
            }
            Fault::ClockJump(d) => {
                let t = now.after(*d);
                self.state.busy = 0;
                self.state.now = t;
                self.state.api.set_now(t);
                format!("The clock jumped forward by {}.", fmt_duration(*d))
            }
        };
        self.record(Actor::Lab, ActionKind::Fault, Vec::new(), calls, sentence)
    }

    /// The external cloud.
    pub fn cloud(&self) -> &Cloud {
        &self.state.cloud
    }

    /// The external buckets whose `Bucket` object is gone (by uid): leaked, because someone
    /// removed the `example.com/bucket` finalizer by hand (kubernetes-semantics.md §5).
    pub fn leaked_buckets(&self) -> Vec<cloud::CloudBucket> {
        let kind = Kind::by_kind("Bucket").expect("built-in kind");
        let live = self
            .state
            .api
            .list(kind, None, &Selector::everything())
            .map(|l| crate::sort::btree_set(l.items.iter().map(|b| b.uid().to_string())))
            .unwrap_or_default();
        self.state.cloud.leaked(self.state.now, &live)
    }

    /// The garbage collector of the leading controller-manager replica, if one leads (its owner
    /// graph is what the page's "Owner graph" view draws).
    pub fn garbage_collector(&self) -> Option<&GarbageCollector> {
        let p = self.state.processes.iter().find(|p| p.leading())?;
        p.slots.iter().find_map(|s| s.controller.as_any().and_then(|a| a.downcast_ref::<GarbageCollector>()))
    }

    /// What `lab cloud` prints: the cloud's buckets now, with the leaked ones marked.
    pub fn cloud_table(&self) -> String {
        self.state.cloud.table(self.state.now, &self.leaked_buckets())
    }

    /// Makes the external cloud fail, hang, or (with `None`) work again.
    pub fn cloud_fault(&mut self, fault: Option<CloudFault>) -> Result<StepRecord, String> {
        self.fault(Fault::Cloud(fault))
    }

    /// Breaks a process's watch of a kind.
    pub fn break_watch(&mut self, process: &str, kind: &str) -> Result<StepRecord, String> {
        self.fault(Fault::BreakWatch { process: process.into(), kind: kind.into() })
    }

    /// Makes every older resourceVersion "too old".
    pub fn expire_history(&mut self) -> Result<StepRecord, String> {
        self.fault(Fault::ExpireHistory)
    }

    /// Stops a process cleanly (a leader releases its Lease).
    pub fn stop_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::StopProcess(name.into()))
    }

    /// Kills a process (nothing released).
    pub fn kill_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::KillProcess(name.into()))
    }

    /// Starts a stopped process.
    pub fn start_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::StartProcess(name.into()))
    }

    /// Kills and starts a process.
    pub fn restart_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::RestartProcess(name.into()))
    }

    /// Makes a process's API calls fail for a while.
    pub fn fail_api(&mut self, name: &str, d: Duration) -> Result<StepRecord, String> {
        self.fault(Fault::FailApi { process: name.into(), duration: d })
    }

    /// Another client will write between the process's next read and write.
    pub fn conflict_next_write(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::ConflictNextWrite(name.into()))
    }

    /// Cuts a process off from the API server.
    pub fn partition(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Partition(name.into()))
    }

    /// Reconnects a partitioned process.
    pub fn heal(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Heal(name.into()))
    }

    /// Pauses the kubelets (stops their process).
    pub fn pause_kubelets(&mut self) -> Result<StepRecord, String> {
        self.fault(Fault::StopProcess(KUBELET.into()))
    }

    /// Resumes the kubelets.
    pub fn resume_kubelets(&mut self) -> Result<StepRecord, String> {
        self.fault(Fault::StartProcess(KUBELET.into()))
    }

    /// Slows the kubelets down by a factor (1: normal).
    pub fn slow_kubelets(&mut self, factor: u32) -> Result<StepRecord, String> {
        self.fault(Fault::SlowKubelets(factor))
    }

    /// Marks an image as unpullable.
    pub fn fail_image(&mut self, image: &str) -> Result<StepRecord, String> {
        self.fault(Fault::FailImage(image.into()))
    }

    /// Makes an image pullable again.
    pub fn fix_image(&mut self, image: &str) -> Result<StepRecord, String> {
        self.fault(Fault::FixImage(image.into()))
    }

    /// Jumps the clock forward without running anything in between.
    pub fn clock_jump(&mut self, d: Duration) -> Result<StepRecord, String> {
        self.fault(Fault::ClockJump(d))
    }

    // ----- going back -----

    /// Goes back one record. Returns false at the start.
    pub fn step_back(&mut self) -> bool {
        let n = self.position();
        if n == 0 {
            return false;
        }
        self.goto(n - 1);
        true
    }

    /// Returns to the state right after record `n` (0: the initial state) by restoring a snapshot
    /// and replaying the logged inputs. The later inputs are kept, so `goto` can also go forward
    /// again, until a new input (a step, a user call, a fault) starts a new branch from here.
    pub fn goto(&mut self, n: usize) {
        let n = n.min(self.inputs.len());
        if n < self.position() {
            let Some((at, snap)) = self.snapshots.iter().rev().find(|(i, _)| *i <= n).map(|(i, s)| (*i, s.clone()))
            else {
                return;
            };
            self.state = snap;
            if at >= self.history_base {
                self.history.truncate(self.history_dead + at - self.history_base);
            } else {
                // The records between the snapshot and the forgotten ones come back by replay.
                self.history.clear();
                self.history_dead = 0;
                self.history_base = at;
            }
        }
        let from = self.position();
        let replay: Vec<Input> = self.inputs[from..n].to_vec();
        self.replaying = true;
        for input in replay {
            self.replay(input);
        }
        self.replaying = false;
    }

    /// The number of inputs on the current branch (records available to [`World::goto`]).
    pub fn branch_len(&self) -> usize {
        self.inputs.len()
    }

    /// Logs an input. A new input after going back drops the old future (a new branch).
    fn log(&mut self, input: Input) {
        if self.replaying {
            return;
        }
        let at = self.position();
        if at < self.inputs.len() {
            self.inputs.truncate(at);
            self.snapshots.retain(|(i, _)| *i <= at);
        }
        self.inputs.push(input);
    }

    fn replay(&mut self, input: Input) {
        match input {
            Input::Step => {
                self.step();
            }
            Input::Run(i) => {
                let _ = self.run(i as u64);
            }
            Input::User(call) => {
                let (who, call) = *call;
                let _ = self.user(&who, call);
            }
            Input::Fault(f) => {
                let _ = self.fault(*f);
            }
            Input::Clock(t) => {
                let d = t.since(self.state.now);
                let r = self.set_clock(t, format!("{} of virtual time passed.", fmt_duration(d)));
                self.finish(r);
            }
        }
    }
}

/// The stored resourceVersion of `Kind ns/name` (for the record of a 409), or 0.
pub(crate) fn stored_rv(api: &ApiServer, target: &str) -> u64 {
    let Some((k, key)) = target.split_once(' ') else { return 0 };
    let Some(kind) = Kind::by_kind(k) else { return 0 };
    let (ns, name) = match key.split_once('/') {
        Some((ns, name)) => (Some(ns), name),
        None => (None, key),
    };
    api.get(kind, ns, name).map(|o| o.resource_version()).unwrap_or(0)
}

/// Go-style short durations: `500ms`, `2s`, `1m30s`.
pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let secs = d.as_secs_f64();
    if secs < 60.0 {
        let s = format!("{secs:.3}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        return format!("{s}s");
    }
    let total = d.as_secs();
    let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
    if h > 0 {
        format!("{h}h{m}m{s}s")
    } else {
        format!("{m}m{s}s")
    }
}
