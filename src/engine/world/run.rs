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
        let acts = self.acts();
        let (at, act) = *acts.first()?;
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
            let acts = self.acts();
            if acts.iter().all(|(_, a)| self.is_periodic(*a)) {
                return Settled::Idle { steps };
            }
            if steps >= cap {
                return Settled::HotLoop { steps, explanation: self.hot_loop_explanation(cap) };
            }
            self.step();
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

    pub(super) fn set_clock(&mut self, t: Time, sentence: String) -> StepRecord {
        self.state.busy = 0;
        self.state.now = t;
        self.state.api.set_now(t);
        self.record(Actor::Lab, ActionKind::Clock, Vec::new(), Vec::new(), sentence)
    }
}
