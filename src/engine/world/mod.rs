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
//! its [`Caches`](crate::engine::controllers::Caches): their indexers are the caches), one listener per controller and kind (its own
//! queue of handler calls), and per controller a work queue (client-go's, from `engine::client`).
//! [`informer`] has the World's `ListerWatcher` (faults), the conversion of handler calls, the
//! resync period and what client-go does on a broken watch, a refused re-watch and a relist.
//!
//! # Where things are
//! This file holds the World's state ([`World`], the `State` that snapshots copy) and its read
//! accessors. What changes it is split by responsibility:
//! - `topology.rs`: what a new World is made of ([`World::new`]): the Nodes, the processes in
//!   their order, the controllers each runs, their names.
//! - `process.rs`, `slot.rs`: one process ([`Process`]: running, leading, partitioned, its
//!   informers) and one controller inside it ([`Slot`]: handlers, work queue, workers).
//! - `schedule.rs`: what can happen next ([`World::pending`]), the order [`World::step`] takes
//!   it in, and what counts as periodic work.
//! - `run.rs`: [`World::step`], [`World::run`], [`World::run_until_idle`], [`World::advance`].
//! - `steps/`: executing one action of each kind: `lease.rs` (a leader elector's tick),
//!   `informer.rs` (list, re-watch, watch event, resync), `controller.rs` (handler, take,
//!   reconcile, delayed key due).
//! - `user.rs`: a user's API calls ([`World::user`], [`World::create`], ...).
//! - `input.rs`, `faults.rs`: what drives the World from outside ([`UserCall`], [`Fault`], the
//!   logged inputs) and applying each fault ([`World::fault`] and one method per fault).
//! - `history.rs`: the input log, records and snapshots, going back ([`World::goto`]).
//! - `narrate.rs`: a step's record and the words its sentence uses ([`fmt_duration`]).
//! - [`api`], `cloud_api.rs`, [`informer`]: the API server, the external cloud
//!   ([`crate::engine::cloud`]) and the informers as the processes reach them (with the faults);
//!   [`record`]: what a step records.
//!
//! # For the console and the page
//! - Build: [`World::new`]`(seed)`; read: [`World::api`] (get/list), [`World::now`],
//!   [`World::processes`] (each [`Process`]: `leading()`, `informers()`, `caches`, `slots` with
//!   their `queue()` and `handlers`), [`World::history`], [`World::pending`].
//! - Write as a user (logged, replayed): [`World::create`], [`World::update`], [`World::patch`],
//!   [`World::delete`], or [`World::user`] with any [`UserCall`] (update /status, /finalize).
//!   Watches for `kubectl --watch`: [`World::api_mut`] (`watch`, `next_event`, `stop_watch`).
//! - Time: [`World::step`], [`World::run`]`(pending id)`, [`World::run_until_idle`]`(cap)`,
//!   [`World::advance`]`(duration)`, [`World::step_back`], [`World::goto`]`(n)`,
//!   [`World::position`], [`World::branch_len`]; memory: [`World::set_history_limit`], [`World::set_snapshot_budget`],
//!   [`World::set_snapshot_every`].
//! - Faults ([`Fault`], or one method each): `break_watch(process, kind)`, `expire_history()`,
//!   `stop_process` (clean; kube-controller-manager keeps its Lease all the same), `kill_process`,
//!   `start_process`, `restart_process`, `fail_api(process, duration)`,
//!   `conflict_next_write(process)`, `partition(process)` / `heal(process)`, `pause_kubelets` /
//!   `resume_kubelets`, `slow_kubelets(factor)`, `fail_image(image)` / `fix_image(image)`,
//!   `clock_jump(duration)`, `freeze(process)` / `thaw(process)`, `revoke(controller)` /
//!   `grant(controller)`.

// `Status` is the API's error value, as the API server returns it (see apiserver/mod.rs).
#![allow(clippy::result_large_err)]

pub mod api;
pub mod informer;
pub mod record;

mod cloud_api;
mod faults;
mod history;
mod hotloop;
mod input;
mod narrate;
mod process;
mod run;
mod schedule;
mod slot;
mod steps;
mod topology;
mod user;

use crate::engine::apiserver::ApiServer;
use crate::engine::cloud::{Cloud, CloudBucket};
use crate::engine::controllers::garbagecollector::GarbageCollector;
use crate::engine::controllers::kubelet::{Kubelet, KubeletConfig};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::rand::Rng;
use crate::engine::time::Time;

use self::input::Input;

pub use input::{Fault, UserCall, UserResult};
pub use narrate::fmt_duration;
pub(crate) use narrate::stored_rv;
pub use process::Process;
pub use record::{
    ActionKind, Actor, ApiCall, CallTarget, Delivered, ObjectRef, PendingAction, QueueWork, Settled, StepRecord, Verb,
};
pub use run::{fmt_count, Remaining, SettleRun, SETTLE_BASE, SETTLE_PER_OBJECT};
pub use schedule::WORK_STEP;
pub use slot::{concurrent_syncs, Slot};
pub use topology::{
    controller_manager_controllers, service_account, BUCKET_OPERATOR, CONTROLLER_MANAGER_A, CONTROLLER_MANAGER_B,
    KUBELET, NODES, POD_COUNTERS, SCHEDULER,
};

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
    /// Sequence numbers for [`Slot::since`] and [`Slot::held`].
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
    /// Controllers whose RBAC permissions are revoked ([`Fault::Revoke`]), by name. Kept outside
    /// the processes: a restart does not give them back.
    revoked: std::collections::BTreeSet<String>,
    /// The hot-loop detector ([`hotloop`]).
    loops: hotloop::Loops,
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

impl World {
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

    /// The records kept in memory, oldest first: all of them unless [`World::set_history_limit`]
    /// was used (each record's `number` says where it stands).
    pub fn history(&self) -> &[StepRecord] {
        &self.history[self.history_dead..]
    }

    /// The number of records so far on this branch (the position [`World::goto`] counts in).
    pub fn position(&self) -> usize {
        self.history_base + self.history().len()
    }

    /// The kubelets' settings.
    pub fn kubelet_config(&mut self) -> Option<&mut KubeletConfig> {
        let p = self.state.processes.iter_mut().find(|p| p.name == KUBELET)?;
        let k = p.slots.first_mut()?.controller.as_any_mut().downcast_mut::<Kubelet>()?;
        Some(&mut k.config)
    }

    /// The external cloud.
    pub fn cloud(&self) -> &Cloud {
        &self.state.cloud
    }

    /// The external buckets whose `Bucket` object is gone (by uid): leaked, because someone
    /// removed the `example.com/bucket` finalizer by hand.
    pub fn leaked_buckets(&self) -> Vec<CloudBucket> {
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
}
