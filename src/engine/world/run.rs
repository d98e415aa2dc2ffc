//! Driving the World: one step ([`World::step`]), a chosen pending action ([`World::run`]),
//! until only periodic work is left ([`World::run_until_idle`], which names a hot loop), and
//! virtual time passing ([`World::advance`]).

use std::collections::BTreeMap;
use std::time::Duration;

use super::input::Input;
use super::narrate::fmt_duration;
use super::record::{ActionKind, Actor, Settled, StepRecord};
use super::World;
use crate::engine::time::Time;

impl World {
    /// Performs the first pending action. `None` when nothing at all can happen.
    pub fn step(&mut self) -> Option<StepRecord> {
        let (at, act) = self.next_action()?;
        self.log(Input::Step);
        let r = self.perform(at, act);
        Some(self.finish(r))
    }

    /// Performs the pending action with this id (from the latest [`World::pending`]).
    pub fn run(&mut self, id: u64) -> Result<StepRecord, String> {
        let acts = self.actions();
        let Some(&(at, act)) = acts.get(id as usize) else {
            return Err(format!("no pending action {id}"));
        };
        self.log(Input::Run(id as usize));
        let r = self.perform(at, act);
        Ok(self.finish(r))
    }

    /// Steps until only periodic work (lease renewals, the retries of a partitioned process)
    /// remains ([`Settled::Idle`]), a hot loop shows ([`Settled::HotLoop`], see
    /// [`super::hotloop`]: only work that feeds itself counts, never progress), or `cap` steps
    /// were taken ([`Settled::Working`]: call again to go on; [`SettleRun`] runs to the end at
    /// any size).
    pub fn run_until_idle(&mut self, cap: u64) -> Settled {
        self.state.loops.alarm = None;
        let mut steps = 0;
        // One list of the pending actions for the whole run, refilled each step (a new one
        // each step cost an allocation of a few kilobytes and its free).
        let mut acts = Vec::new();
        loop {
            let first = self.next_action_into(&mut acts);
            if acts.iter().all(|(o, _)| self.is_periodic(o.act)) {
                return Settled::Idle { steps };
            }
            if let Some(alarm) = self.state.loops.alarm.take() {
                return Settled::HotLoop { steps, explanation: self.explain_loop(&alarm) };
            }
            if steps >= cap {
                return Settled::Working { steps };
            }
            // `step` on the actions just listed (listing them again cost as much).
            let Some((at, act)) = first else { return Settled::Idle { steps } };
            self.log(Input::Step);
            let r = self.perform(at, act);
            self.keep(r);
            steps += 1;
        }
    }

    /// The most steps a run until idle takes before it gives up on a cluster that keeps
    /// working without a loop the detector recognises: [`SETTLE_BASE`] plus [`SETTLE_PER_OBJECT`]
    /// for every object (Events aside). Converging 10,000 replicas takes about 38 steps a pod,
    /// a tenth of this; it only ever stops work that would otherwise never end.
    pub fn settle_bound(&self) -> u64 {
        let api = &self.state.api;
        let objects: usize =
            crate::engine::kinds::KINDS.iter().filter(|k| k.kind != "Event").map(|k| api.count(k)).sum();
        SETTLE_BASE + SETTLE_PER_OBJECT * objects as u64
    }

    /// The verdict at [`World::settle_bound`]: the actor and action (for reconciles, the key)
    /// that recur most in the last steps, leaving out the Lease ticks that happen alongside
    /// anything.
    pub(super) fn busiest_explanation(&self, steps: u64) -> String {
        let recent = self.history().iter().rev().take(1000);
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
                "Stopped after {steps} steps with work still queued and no end in sight: {who} acted {c} times in the last {n} steps."
            ),
            None => format!("Stopped after {steps} steps with work still queued."),
        }
    }

    /// Runs everything due within `d`, then leaves the clock at now + `d`.
    pub fn advance(&mut self, d: Duration) -> Vec<StepRecord> {
        let target = self.state.now.after(d);
        let mut out = Vec::new();
        for _ in 0..1_000_000 {
            match self.next_action() {
                Some((at, _)) if at <= target => {}
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

    pub(super) fn set_clock(&mut self, t: Time, sentence: String) -> StepRecord {
        self.state.busy = 0;
        self.state.now = t;
        self.state.api.set_now(t);
        self.record(Actor::Lab, ActionKind::Clock, Vec::new(), Vec::new(), sentence)
    }
}

/// [`World::settle_bound`]'s fixed part.
pub const SETTLE_BASE: u64 = 200_000;
/// [`World::settle_bound`]'s steps per object.
pub const SETTLE_PER_OBJECT: u64 = 100;

/// A run until idle that may take many calls (the page runs a slice per animation frame; the
/// console runs one step at a time while kubectl watches), with no fixed step cap: it ends when
/// the cluster is idle, when a hot loop shows ([`World::run_until_idle`]), or past
/// [`World::settle_bound`] (the largest bound seen during the run: a cascading deletion shrinks
/// the cluster as it goes).
#[derive(Clone, Debug, Default)]
pub struct SettleRun {
    steps: u64,
    bound: u64,
}

impl SettleRun {
    /// A new run.
    pub fn new() -> SettleRun {
        SettleRun::default()
    }

    /// The steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Takes up to `budget` more steps. Returns the outcome with the run's total: `Working`
    /// while there is more to do.
    pub fn run(&mut self, world: &mut World, budget: u64) -> Settled {
        self.bound = self.bound.max(world.settle_bound());
        if self.steps >= self.bound {
            return Settled::HotLoop { steps: self.steps, explanation: world.busiest_explanation(self.steps) };
        }
        let r = world.run_until_idle(budget.min(self.bound - self.steps));
        self.steps += r.steps();
        match r {
            Settled::Idle { .. } => Settled::Idle { steps: self.steps },
            Settled::HotLoop { explanation, .. } => Settled::HotLoop { steps: self.steps, explanation },
            Settled::Working { .. } if self.steps >= self.bound => {
                Settled::HotLoop { steps: self.steps, explanation: world.busiest_explanation(self.steps) }
            }
            Settled::Working { .. } => Settled::Working { steps: self.steps },
        }
    }

    /// Runs to the end in one call.
    pub fn run_to_end(world: &mut World) -> Settled {
        let mut run = SettleRun::new();
        loop {
            match run.run(world, u64::MAX) {
                Settled::Working { .. } => continue,
                done => return done,
            }
        }
    }
}

/// What a run until idle still has to do: the page's and the console's progress line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Remaining {
    /// Pods in the cluster.
    pub pods: usize,
    /// Of which Running (or finished: Succeeded, Failed).
    pub pods_running: usize,
    /// Every work queue with keys waiting or being processed, `(queue, keys)`, in process order.
    pub queues: Vec<(String, usize)>,
    /// Watch events not yet delivered to an informer, and handler calls not yet run.
    pub in_flight: usize,
}

/// `1234567` as `1,234,567`.
pub fn fmt_count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl std::fmt::Display for Remaining {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if self.pods > 0 {
            let pending = self.pods - self.pods_running;
            parts.push(format!(
                "pods {} of {} running ({} pending)",
                fmt_count(self.pods_running),
                fmt_count(self.pods),
                fmt_count(pending)
            ));
        }
        if !self.queues.is_empty() {
            let qs: Vec<String> = self.queues.iter().map(|(q, n)| format!("{q} {}", fmt_count(*n))).collect();
            parts.push(format!("work queues: {}", qs.join(", ")));
        }
        if self.in_flight > 0 {
            parts.push(format!("{} watch events and handler calls in flight", fmt_count(self.in_flight)));
        }
        f.write_str(&parts.join(" · "))
    }
}

impl World {
    /// What is left to do ([`Remaining`]): cheap enough to ask once per animation frame at
    /// 10,000 pods (pods are counted from the store's metadata, nothing is decoded).
    pub fn remaining(&self) -> Remaining {
        let api = &self.state.api;
        let mut r = Remaining::default();
        if let Some(pod) = crate::engine::kinds::Kind::by_kind("Pod") {
            for (_, _, m) in api.list_metadata(pod, None) {
                r.pods += 1;
                if matches!(m.phase.as_deref(), Some("Running" | "Succeeded" | "Failed")) {
                    r.pods_running += 1;
                }
            }
        }
        for p in self.state.processes.iter().filter(|p| p.active()) {
            for slot in &p.slots {
                let n = slot.queue().len() + slot.held().len();
                if n > 0 {
                    r.queues.push((slot.queue().name().to_string(), n));
                }
            }
            for inf in p.informers() {
                if let Some(id) = inf.watch_id() {
                    r.in_flight += api.pending_events(id).len();
                }
                for h in inf.handlers_with_pending() {
                    r.in_flight += inf.pending_notifications(h).count();
                }
            }
        }
        r
    }
}
