//! The World's history: every input is logged ([`World::log`]) and gives exactly one record
//! ([`World::finish`] numbers it, counts the changes it made and keeps snapshots); going back
//! ([`World::goto`], [`World::step_back`]) restores a snapshot and replays the logged inputs.
//! Memory: [`World::set_history_limit`], [`World::set_snapshot_budget`],
//! [`World::set_snapshot_every`].
//!
//! Every input (a step, a chosen action, a user API call, a fault, a clock move) is logged and
//! gives exactly one record. The world keeps snapshots of its state every few inputs; going
//! back to step N restores the latest snapshot at or before N and replays the logged inputs
//! (the world is deterministic: same seed, same inputs, same records). The later inputs are kept
//! until a new input starts a new branch, so [`World::goto`] can also go forward again.

use super::input::Input;
use super::narrate::fmt_duration;
use super::record::{ApiCall, StepRecord};
use super::World;

/// Whether an API call changed the cluster in a way a controller could be waiting for: a
/// successful write that stored a resourceVersion newer than `last_change_rv` (a no-op DELETE of
/// an object already being deleted stores nothing new), other than an Event or the
/// controller-manager's leader Lease renewals.
fn is_change(c: &ApiCall, last_change_rv: u64) -> bool {
    let write = !c.verb.is_read();
    let noise = c.target.is_event() || c.target.is_object("Lease", Some("kube-system"), "kube-controller-manager");
    write && c.code < 300 && !noise && c.resource_version > last_change_rv
}

/// Counts the changes among `calls` ([`is_change`]): `(count, resourceVersion of the last one)`.
pub(super) fn count_changes(calls: &[ApiCall], mut last_change_rv: u64) -> (u64, u64) {
    let mut n = 0;
    for c in calls {
        if is_change(c, last_change_rv) {
            n += 1;
            last_change_rv = c.resource_version;
        }
    }
    (n, last_change_rv)
}

/// One snapshot at most every `objects / SNAPSHOT_SPACING_PER_OBJECTS` inputs
/// ([`World::snapshot_due`]): converging 1,000 replicas (about 7,000 objects with their Events),
/// one every 1,750 steps; 10,000 replicas, one every 17,500 steps. Going back replays at most
/// that many steps (at 10,000 pods about 0.3 s natively, from a step's cost; a Step back right
/// after converging them measured 111 ms, `cargo bench --bench page -- --settle 10000`). At a tenth (one every 7,000 steps at
/// 10,000 pods) taking and dropping snapshots was two fifths of a session's Run until idle: with
/// the 16 MiB budget of the page's sessions only the newest is kept at that size, so each one is
/// copied, then dropped at the next.
pub const SNAPSHOT_SPACING_PER_OBJECTS: usize = 4;

impl World {
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
    /// from the start). Lower is faster to go back, higher uses less memory. A large cluster's
    /// snapshots are spaced further apart, by its size ([`SNAPSHOT_SPACING_PER_OBJECTS`]).
    pub fn set_snapshot_every(&mut self, n: usize) {
        self.snapshot_every = n;
    }

    /// Numbers a step's record and keeps it; returns a copy (see [`World::keep`] for a caller
    /// that does not read it).
    pub(super) fn finish(&mut self, r: StepRecord) -> StepRecord {
        let r = self.numbered(r);
        self.keep_numbered(r.clone());
        r
    }

    /// [`World::finish`] without the copy: a run of many steps reads none of their records (the
    /// copy and its drop were about 3% of converging).
    pub(super) fn keep(&mut self, r: StepRecord) {
        let r = self.numbered(r);
        self.keep_numbered(r);
    }

    /// The record with its number and revision, the run's change count updated.
    fn numbered(&mut self, mut r: StepRecord) -> StepRecord {
        r.number = self.position() as u64 + 1;
        r.revision = self.state.api.resource_version();
        let (n, rv) = count_changes(&r.calls, self.state.last_change_rv);
        self.state.changes += n;
        self.state.last_change_rv = rv;
        r
    }

    /// Keeps a numbered record, then takes a snapshot if one is due.
    fn keep_numbered(&mut self, r: StepRecord) {
        self.history.push(r);
        self.trim_history();
        let at = self.position();
        if self.snapshot_every > 0
            && at.is_multiple_of(self.snapshot_every)
            && !self.snapshots.iter().any(|(i, _)| *i == at)
            && self.snapshot_due(at)
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
    }

    /// Whether a snapshot at input `at` (a multiple of the spacing) is due: at least
    /// `1 / SNAPSHOT_SPACING_PER_OBJECTS` of the stored objects' count inputs after
    /// the latest snapshot before it. A snapshot copies maps of every object (the store, each
    /// process's informer caches, the owner graph), so at a fixed spacing their cost per step
    /// grew with the cluster: converging 1,000 replicas in a session spent a third of its time
    /// taking and dropping snapshots, and 10,000 replicas far more (quadratic). Spaced by size,
    /// their cost per step stays flat, and going back replays at most 17,500 steps at 10,000
    /// pods. Small clusters (fewer than `snapshot_every` × that many objects) keep a
    /// snapshot every `snapshot_every` inputs, as before.
    fn snapshot_due(&self, at: usize) -> bool {
        let api = &self.state.api;
        let objects: usize = crate::engine::kinds::KINDS.iter().map(|k| api.count(k)).sum();
        let previous = self.snapshots.iter().rev().map(|(i, _)| *i).find(|i| *i < at).unwrap_or(0);
        at - previous >= objects / SNAPSHOT_SPACING_PER_OBJECTS
    }

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
    pub(super) fn log(&mut self, input: Input) {
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
                self.keep(r);
            }
        }
    }
}
