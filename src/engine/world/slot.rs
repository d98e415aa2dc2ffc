//! One controller inside a process ([`Slot`]): the controller, its handler registrations, its
//! work queue and the bookkeeping the World's scheduling reads (arrival stamps, held keys), and
//! how many workers it runs ([`concurrent_syncs`]).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::engine::client::informer::HandlerId;
use crate::engine::client::WorkQueue;
use crate::engine::controllers::Controller;
use crate::engine::time::Time;

/// One controller inside a process: the controller, its handler buffer and its work queue.
///
/// The World changes a slot's queue only through the slot's methods ([`Slot::add`],
/// [`Slot::add_after`], [`Slot::take`], [`Slot::done`], ...), so that two things stay true
/// ([`Slot::check_invariants`]):
/// - the keys the workers hold ([`Slot::held`]) are exactly the queue's processing set, oldest
///   take first, never more than [`Slot::workers`];
/// - every key waiting in the queue has exactly one arrival stamp ([`Slot::since`]), and only
///   waiting keys have one.
#[derive(Clone)]
pub struct Slot {
    /// The controller.
    pub controller: Box<dyn Controller>,
    /// The controller's handler registrations, one per kind it watches: the index of the
    /// process's informer (in [`Caches::informers`]) and the handler's id there. Each is a
    /// client-go `processorListener` with its own queue of calls.
    ///
    /// [`Caches::informers`]: crate::engine::controllers::Caches::informers
    pub handlers: Vec<(usize, HandlerId)>,
    /// The work queue: the World adds, takes, finishes and forgets keys through the slot, and
    /// everyone else reads it ([`Slot::queue`]).
    queue: WorkQueue<String>,
    /// Keys whose delayed entry is only a deadline check ([`Outcome::CheckAfter`]).
    ///
    /// [`Outcome::CheckAfter`]: crate::engine::controllers::Outcome::CheckAfter
    pub check_keys: std::collections::BTreeSet<String>,
    /// When each waiting key joined the queue (a world-wide sequence number). Keys of all
    /// controllers are taken oldest first, as if every worker ran at once: a burst of events for
    /// one key collapses while other controllers work through older keys.
    since: BTreeMap<String, u64>,
    /// The keys the controller's workers hold (taken with `Get`, not yet `Done`), each with the
    /// sequence number of the take, oldest first. Invariant: exactly the queue's processing set,
    /// and never more than [`Slot::workers`] keys.
    held: Vec<(u64, String)>,
    /// Keys whose delayed requeue is a poll ([`Outcome::PollAfter`]), with the world's change
    /// count right after the reconcile that scheduled it ([`World::changes`]). While nothing has
    /// changed since, the poll is periodic work, not progress: the namespace controller looking
    /// again at a namespace held by a finalizer, say. Kubernetes keeps polling too;
    /// `run_until_idle` stops there instead of calling it a hot loop.
    ///
    /// [`Outcome::PollAfter`]: crate::engine::controllers::Outcome::PollAfter
    /// [`World::changes`]: crate::engine::world::World::changes
    pub quiet_keys: BTreeMap<String, u64>,
    /// How many workers the controller runs (its `--concurrent-*-syncs`).
    pub workers: usize,
    /// The loop detector's depth of each waiting (or dirty) key: the smallest depth of the
    /// writes whose events queued it since it was last taken (absent: 0, fresh input). See
    /// [`super::hotloop`].
    depth: BTreeMap<String, u32>,
    /// The depth each held key was taken with.
    held_depth: BTreeMap<String, u32>,
    /// Keys whose last reconciles failed, with the error and how many times in a row.
    failures: BTreeMap<String, (String, u32)>,
}

impl Slot {
    pub(super) fn new(controller: Box<dyn Controller>) -> Slot {
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
            depth: BTreeMap::new(),
            held_depth: BTreeMap::new(),
            failures: BTreeMap::new(),
        }
    }

    /// The controller's work queue, to read.
    pub fn queue(&self) -> &WorkQueue<String> {
        &self.queue
    }

    /// The loop detector: `key` was queued (or marked dirty) by an event of a write at `depth`.
    /// A key keeps the smallest depth until a worker takes it.
    pub(super) fn note_trigger(&mut self, key: &str, depth: u32) {
        if depth == 0 {
            self.depth.remove(key);
        } else {
            let d = self.depth.entry(key.to_string()).or_insert(depth);
            *d = (*d).min(depth);
        }
    }

    /// The depth the held `key` was taken with (taken out: asked once, by its reconcile).
    pub(super) fn take_depth(&mut self, key: &str) -> u32 {
        self.held_depth.remove(key).unwrap_or(0)
    }

    /// A reconcile of `key` failed with `message` (`None`: it did not fail). Returns how many
    /// times in a row it has now failed that same way (the same message but for the names it
    /// quotes: [`super::hotloop::failure_shape`]).
    pub(super) fn note_failure(&mut self, key: &str, message: Option<&str>) -> u32 {
        let Some(message) = message else {
            self.failures.remove(key);
            return 0;
        };
        let shape = super::hotloop::failure_shape(message);
        let entry = self.failures.entry(key.to_string()).or_insert_with(|| (shape.clone(), 0));
        if entry.0 != shape {
            *entry = (shape, 0);
        }
        entry.1 += 1;
        entry.1
    }

    /// The keys the workers hold, each with the sequence number of its take, oldest first.
    pub fn held(&self) -> &[(u64, String)] {
        &self.held
    }

    /// When a waiting key joined the queue (a world-wide sequence number): keys are taken oldest
    /// first across controllers.
    pub fn since(&self, key: &str) -> Option<u64> {
        self.since.get(key).copied()
    }

    /// `queue.Add(key)`; a key that joins the queue (rather than one already waiting, or one
    /// being processed, which is only marked dirty) takes the next world-wide sequence number.
    pub(super) fn add(&mut self, key: String, seq: &mut u64) {
        if self.queue.add(key.clone()) {
            *seq += 1;
            self.since.insert(key, *seq);
        }
    }

    /// `queue.AddAfter(key, d)`. A zero delay is an `Add` (client-go's `AddAfter` adds at once),
    /// which stamps the key's arrival.
    pub(super) fn add_after(&mut self, key: String, d: Duration, now: Time, seq: &mut u64) {
        if d.is_zero() {
            self.add(key, seq);
        } else {
            self.queue.add_after(key, d, now);
        }
    }

    /// `queue.AddRateLimited(key)`: returns the rate limiter's delay. A zero delay added the key
    /// at once, which stamps its arrival.
    pub(super) fn add_rate_limited(&mut self, key: String, now: Time, seq: &mut u64) -> Duration {
        let d = self.queue.add_rate_limited(key.clone(), now);
        if d.is_zero() {
            self.depth.remove(&key);
        }
        if d.is_zero() && !self.since.contains_key(&key) && self.queue.waiting_keys().any(|k| *k == key) {
            *seq += 1;
            self.since.insert(key, *seq);
        }
        d
    }

    /// A free worker's `queue.Get()`: the oldest waiting key leaves the queue (and its stamp)
    /// and joins the processing set, held by that worker with the take's sequence number.
    pub(super) fn take(&mut self, seq: &mut u64) -> Option<String> {
        let key = self.queue.get()?;
        self.since.remove(&key);
        let depth = self.depth.remove(&key).unwrap_or(0);
        self.held_depth.insert(key.clone(), depth);
        *seq += 1;
        self.held.push((*seq, key.clone()));
        debug_assert_eq!(self.check_held(), Ok(()));
        Some(key)
    }

    /// `queue.Forget(key)`: the rate limiter drops the key's failure count (after a success).
    pub(super) fn forget(&mut self, key: &String) {
        self.queue.forget(key);
    }

    /// The key the worker holding `held[wi]` works on.
    pub(super) fn held_key(&self, wi: usize) -> Option<&str> {
        self.held.get(wi).map(|h| h.1.as_str())
    }

    /// That worker's `queue.Done(key)`: the worker lets go of its key. A key added again while it
    /// was processing goes back to the queue, once, with a new arrival stamp; returns true then.
    pub(super) fn done(&mut self, wi: usize, seq: &mut u64) -> bool {
        let (_, key) = self.held.remove(wi);
        let requeued = self.queue.done(&key);
        if requeued {
            *seq += 1;
            self.since.insert(key, *seq);
        }
        debug_assert_eq!(self.check_held(), Ok(()));
        requeued
    }

    /// The delaying queue's timer fires at `now`: each due key is added (those that join the
    /// queue are stamped; a key already waiting keeps its stamp; a held key is only marked
    /// dirty) and is no longer a deadline check or a quiet poll. Each due key takes a sequence
    /// number, whether or not it joins. Returns the due keys.
    pub(super) fn fire_due(&mut self, now: Time, seq: &mut u64) -> Vec<String> {
        let keys = self.queue.fire_due(now);
        for k in &keys {
            self.check_keys.remove(k);
            self.quiet_keys.remove(k);
            // Time passing is fresh input for the loop detector.
            self.depth.remove(k);
            *seq += 1;
            if !self.held.iter().any(|h| h.1 == *k) {
                self.since.entry(k.clone()).or_insert(*seq);
            }
        }
        keys
    }

    /// The held keys against the queue's processing set (cheap: checked after every take and
    /// `Done` in debug builds).
    fn check_held(&self) -> Result<(), String> {
        if self.held.len() > self.workers {
            return Err(format!("{} keys held by {} workers", self.held.len(), self.workers));
        }
        if self.held.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err("held keys are not in the order of their takes".to_string());
        }
        let processing: Vec<&String> = self.queue.processing_keys().collect();
        let mut held: Vec<&String> = self.held.iter().map(|h| &h.1).collect();
        crate::sort::sort(&mut held);
        held.dedup();
        if held.len() != self.held.len() {
            return Err("a key is held by two workers".to_string());
        }
        if held != processing {
            return Err(format!("held keys {held:?} are not the queue's processing set {processing:?}"));
        }
        Ok(())
    }

    /// Checks what the type promises: the work queue's own invariants, the held keys are exactly
    /// its processing set (oldest take first, at most one per worker), and exactly the waiting
    /// keys have an arrival stamp. `Err` names the first one broken.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.queue.check_invariants()?;
        self.check_held()?;
        let waiting: BTreeSet<&String> = self.queue.waiting_keys().collect();
        if let Some(k) = waiting.iter().find(|k| !self.since.contains_key(k.as_str())) {
            return Err(format!("waiting key {k} has no arrival stamp"));
        }
        if let Some(k) = self.since.keys().find(|k| !waiting.contains(k)) {
            return Err(format!("{k} has an arrival stamp but is not waiting"));
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::engine::controllers::replicaset::ReplicaSetController;
    use crate::engine::controllers::scheduler::Scheduler;
    use crate::engine::kinds::Kind;
    use crate::engine::world::World;

    fn slot() -> Slot {
        Slot::new(Box::new(ReplicaSetController::new()))
    }

    #[test]
    fn arrival_stamps_follow_the_keys_through_the_queue() {
        let (mut s, mut seq, now) = (slot(), 0, Time::START);
        s.add("a".into(), &mut seq);
        s.add("b".into(), &mut seq);
        s.add("a".into(), &mut seq);
        assert_eq!((s.since("a"), s.since("b"), seq), (Some(1), Some(2), 2), "a waiting key keeps its stamp");
        assert_eq!(s.take(&mut seq).as_deref(), Some("a"));
        assert_eq!((s.since("a"), s.held()), (None, &[(3, "a".to_string())][..]));
        s.add("a".into(), &mut seq);
        assert_eq!(s.since("a"), None, "a held key added again is only dirty");
        s.queue.add_after("a".into(), Duration::from_secs(1), now);
        assert_eq!(s.fire_due(now.after(Duration::from_secs(1)), &mut seq), vec!["a".to_string()]);
        assert_eq!((s.since("a"), seq), (None, 4), "a due key that is held takes a number but no stamp");
        assert!(s.done(0, &mut seq), "Done queues the dirty key again");
        assert_eq!((s.since("a"), s.held()), (Some(5), &[][..]));
        s.add_after("z".into(), Duration::ZERO, now, &mut seq);
        assert_eq!(s.since("z"), Some(6), "AddAfter(0) is an Add");
        assert_eq!(s.check_invariants(), Ok(()));
    }

    #[test]
    fn check_invariants_names_the_broken_one() {
        let (mut s, mut seq) = (slot(), 0);
        s.add("a".into(), &mut seq);
        s.add("b".into(), &mut seq);
        assert_eq!(s.check_invariants(), Ok(()));
        s.since.remove("b");
        assert_eq!(s.check_invariants(), Err("waiting key b has no arrival stamp".to_string()));
        s.since.insert("b".into(), 2);
        s.since.insert("c".into(), 3);
        assert_eq!(s.check_invariants(), Err("c has an arrival stamp but is not waiting".to_string()));
        s.since.remove("c");
        s.held.push((4, "c".into()));
        assert!(s.check_invariants().is_err_and(|e| e.contains("not the queue's processing set")));
        s.held.clear();
        let mut one = Slot::new(Box::new(Scheduler::new()));
        assert_eq!(one.workers, 1);
        one.add("a".into(), &mut seq);
        one.add("b".into(), &mut seq);
        one.take(&mut seq);
        assert_eq!(one.check_invariants(), Ok(()));
        // A second worker's take, behind the slot's back.
        let b = one.queue.get();
        one.held.push((seq + 1, b.unwrap_or_default()));
        assert_eq!(one.check_invariants(), Err("2 keys held by 1 workers".to_string()));
    }

    /// Every slot of every process keeps its invariants at every step of a Deployment's rollout,
    /// a scale-down, a restart of the leader and a deletion, with pending actions run out of
    /// `step` order too (a take followed by other work before its reconcile).
    #[test]
    fn every_slot_keeps_its_invariants_step_by_step() {
        let mut w = World::new(11);
        let check = |w: &World| {
            for p in w.processes() {
                for s in &p.slots {
                    if let Err(e) = s.check_invariants() {
                        panic!("step {}: {} {}: {e}", w.position(), p.name, s.controller.name());
                    }
                }
            }
        };
        let deployment = |replicas: i64| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                         "template": {"metadata": {"labels": {"app": "web"}},
                                      "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
        };
        let run = |w: &mut World, steps: usize| {
            for i in 0..steps {
                // Every third step runs the second action in line: after a take, something other
                // than its reconcile.
                match w.pending().get(1) {
                    Some(second) if i % 3 == 0 => _ = w.run(second.id).expect("pending action"),
                    _ => _ = w.step(),
                }
                check(w);
            }
        };
        run(&mut w, 200);
        w.create(deployment(6)).expect("create");
        run(&mut w, 600);
        w.update({
            let mut d = w.api().get(Kind::by_kind("Deployment").unwrap(), Some("default"), "web").unwrap().clone();
            d["spec"]["replicas"] = json!(2);
            d
        })
        .expect("scale down");
        run(&mut w, 300);
        let leader = w.processes().iter().find(|p| p.leading()).map(|p| p.name.clone()).expect("a leader");
        w.restart_process(&leader).expect("restart");
        run(&mut w, 600);
        w.delete(Kind::by_kind("Deployment").unwrap(), Some("default"), "web", Default::default()).expect("delete");
        run(&mut w, 600);
        assert!(
            w.history().iter().any(|r| r.work.as_ref().is_some_and(|q| q.requeued_dirty)),
            "a dirty key was requeued"
        );
    }
}
