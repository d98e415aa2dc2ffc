//! client-go's work queue (`util/workqueue`): the de-duplicating queue, the delaying queue and the
//! rate-limiting queue, as one state machine in virtual time (`queue.go`, `delaying_queue.go`,
//! `rate_limiting_queue.go`).
//!
//! What it guarantees, like client-go's:
//! - a key added several times while it waits is handed out once (`queue.go`, `Add`: the dirty
//!   set);
//! - a key is never handed to two workers at once: added while being processed, it is only marked
//!   dirty, and queued again exactly once when the worker calls [`WorkQueue::done`] (`queue.go`,
//!   `Done`);
//! - keys are handed out in the order of their first `add` since they were last handed out;
//! - after [`WorkQueue::shut_down`] new adds are ignored and the waiting keys are still handed out
//!   (`queue.go`, `ShutDown`, `Get`);
//! - of several `add_after` calls for one key, the earliest deadline wins (`delaying_queue.go`,
//!   `insert`);
//! - `add_rate_limited` waits as long as the rate limiter says, and every call counts as a
//!   failure (`rate_limiting_queue.go`, `AddRateLimited`; `NumRequeues` counts them).
//!
//! Nothing blocks and nothing sleeps. Where a client-go worker would block in `Get`,
//! [`WorkQueue::get`] returns `None`; where client-go's waiting loop would sleep until a deadline,
//! the world reads [`WorkQueue::next_ready_at`] and later calls [`WorkQueue::fire_due`] ("a timer
//! fires").

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use super::ratelimit::RateLimiter;
use crate::engine::time::Time;

/// A key waiting in the delaying queue: what client-go's `waitFor` holds (the key and when it is
/// added), read out for the World and the Work queues panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedKey<K> {
    /// The key.
    pub key: K,
    /// When it will be added to the queue.
    pub ready_at: Time,
    /// The rate limiter's failure count for it (`NumRequeues`).
    pub requeues: u32,
}

/// One entry of the delaying queue's heap (client-go `waitFor`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct WaitFor {
    ready_at: Time,
    /// Tie-break among equal deadlines: the earlier `add_after` is added first.
    seq: u64,
}

/// A rate-limiting, delaying, de-duplicating work queue of keys (client-go
/// `TypedRateLimitingInterface`). Keys are usually `namespace/name` strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkQueue<K: Ord> {
    name: String,
    /// Keys waiting to be handed out, in order.
    /// Invariant (client-go queue.go): every element of `queue` is in `dirty` and not in
    /// `processing`, and appears in `queue` only once.
    queue: VecDeque<K>,
    /// Keys that need processing: those in `queue`, plus those added again while processing.
    dirty: BTreeSet<K>,
    /// Keys handed out by `get` and not yet `done`. They may be in `dirty` at the same time
    /// (then they are re-queued on `done`), but never in `queue`.
    processing: BTreeSet<K>,
    shutting_down: bool,
    /// The delaying queue (client-go `waitingForQueue` + `knownEntries`): one entry per key.
    /// Independent of `dirty`: a key may wait here and be in the queue at the same time.
    waiting: BTreeMap<K, WaitFor>,
    /// The same entries ordered by deadline (client-go's heap), so the next deadline and the due
    /// keys cost a logarithm, not a scan. Invariant: `(w.ready_at, w.seq, k)` is here exactly
    /// when `waiting[k] == w`.
    by_deadline: BTreeSet<(Time, u64, K)>,
    next_seq: u64,
    rate_limiter: RateLimiter<K>,
}

impl<K: Clone + Ord> WorkQueue<K> {
    /// A queue with the default controller rate limiter (`default_rate_limiters.go`,
    /// `DefaultControllerRateLimiter`).
    pub fn new(name: impl Into<String>) -> Self {
        WorkQueue::with_rate_limiter(name, RateLimiter::default_controller())
    }

    /// A queue with the given rate limiter.
    pub fn with_rate_limiter(name: impl Into<String>, rate_limiter: RateLimiter<K>) -> Self {
        WorkQueue {
            name: name.into(),
            queue: VecDeque::new(),
            dirty: BTreeSet::new(),
            processing: BTreeSet::new(),
            shutting_down: false,
            waiting: BTreeMap::new(),
            by_deadline: BTreeSet::new(),
            next_seq: 0,
            rate_limiter,
        }
    }

    /// The queue's name (client-go's metrics name, e.g. `deployment`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `Add`: marks `key` as needing processing. Returns true if this made it newly waiting in
    /// the queue (false: ignored during shutdown, already dirty, or parked until `done`).
    pub fn add(&mut self, key: K) -> bool {
        if self.shutting_down || self.dirty.contains(&key) {
            // De-duplicated (client-go would `Touch` it, a no-op for the FIFO queue).
            return false;
        }
        let processing = self.processing.contains(&key);
        self.dirty.insert(key.clone());
        if processing {
            // Re-queued when the worker holding it calls `done`.
            return false;
        }
        self.queue.push_back(key);
        true
    }

    /// `Get`: hands the first waiting key to a worker, or `None` where a client-go worker would
    /// block (nothing waiting) or stop (shut down and empty: see [`WorkQueue::shutting_down`]).
    pub fn get(&mut self) -> Option<K> {
        let key = self.queue.pop_front()?;
        self.dirty.remove(&key);
        self.processing.insert(key.clone());
        Some(key)
    }

    /// `Done`: the worker finished `key`. If it was added again meanwhile it is queued now,
    /// exactly once; returns true in that case.
    pub fn done(&mut self, key: &K) -> bool {
        self.processing.remove(key);
        if self.dirty.contains(key) {
            self.queue.push_back(key.clone());
            return true;
        }
        false
    }

    /// `Len`: keys waiting to be handed out (not those being processed, not delayed ones).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no key is waiting to be handed out.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// `ShutDown`: new adds are ignored; waiting keys are still handed out, then `get` returns
    /// `None` for good. Delayed keys are dropped, as client-go's waiting loop stops.
    pub fn shut_down(&mut self) {
        self.shutting_down = true;
        self.waiting.clear();
        self.by_deadline.clear();
    }

    /// `ShuttingDown`: whether `shut_down` was called. A worker whose `get` returns `None` on a
    /// shutting-down queue exits.
    pub fn shutting_down(&self) -> bool {
        self.shutting_down
    }

    /// What `ShutDownWithDrain` waits for: no key is being processed.
    pub fn is_drained(&self) -> bool {
        self.processing.is_empty()
    }

    /// `AddAfter`: adds `key` once `delay` has passed from `now`. A delay of zero adds it now.
    /// If the key already waits in the delaying queue, only an earlier deadline replaces the
    /// existing one (`delaying_queue.go`, `insert`). Ignored during shutdown.
    pub fn add_after(&mut self, key: K, delay: Duration, now: Time) {
        if self.shutting_down {
            return;
        }
        if delay.is_zero() {
            self.add(key);
            return;
        }
        let ready_at = now.after(delay);
        let seq = self.next_seq;
        match self.waiting.get_mut(&key) {
            Some(w) if w.ready_at <= ready_at => {}
            Some(w) => {
                self.by_deadline.remove(&(w.ready_at, w.seq, key.clone()));
                *w = WaitFor { ready_at, seq };
                self.by_deadline.insert((ready_at, seq, key));
            }
            None => {
                self.waiting.insert(key.clone(), WaitFor { ready_at, seq });
                self.by_deadline.insert((ready_at, seq, key));
            }
        }
        self.next_seq += 1;
    }

    /// The earliest deadline in the delaying queue: when the world should next call `fire_due`.
    pub fn next_ready_at(&self) -> Option<Time> {
        self.by_deadline.first().map(|e| e.0)
    }

    /// The keys whose deadline is the earliest one (those the next `fire_due` adds first).
    pub fn next_due_keys(&self) -> impl Iterator<Item = &K> {
        let first = self.next_ready_at();
        self.by_deadline.iter().take_while(move |e| Some(e.0) == first).map(|e| &e.2)
    }

    /// When `key` leaves the delaying queue, if it waits there.
    pub fn ready_at(&self, key: &K) -> Option<Time> {
        self.waiting.get(key).map(|w| w.ready_at)
    }

    /// The delaying queue's timer fires at `now`: every key whose deadline has passed is `add`ed,
    /// earliest deadline first. Returns those keys (including any that the add de-duplicated).
    pub fn fire_due(&mut self, now: Time) -> Vec<K> {
        let mut due = Vec::new();
        while self.by_deadline.first().is_some_and(|e| e.0 <= now) {
            let Some((_, _, key)) = self.by_deadline.pop_first() else { break };
            self.waiting.remove(&key);
            self.add(key.clone());
            due.push(key);
        }
        due
    }

    /// `AddRateLimited`: records a failure of `key` with the rate limiter (every call counts, even
    /// if the key is already waiting) and adds it after the delay the limiter returns, which is
    /// also returned so the world can show it.
    pub fn add_rate_limited(&mut self, key: K, now: Time) -> Duration {
        let delay = self.rate_limiter.when(&key, now);
        self.add_after(key, delay, now);
        delay
    }

    /// `Forget`: clears `key`'s failure history in the rate limiter. It does not remove the key
    /// from the queue, and the worker must still call `done`.
    pub fn forget(&mut self, key: &K) {
        self.rate_limiter.forget(key);
    }

    /// `NumRequeues`: failures on record for `key`.
    pub fn num_requeues(&self, key: &K) -> u32 {
        self.rate_limiter.num_requeues(key)
    }

    /// The rate limiter, for display.
    pub fn rate_limiter(&self) -> &RateLimiter<K> {
        &self.rate_limiter
    }

    /// Keys waiting to be handed out, in the order `get` will return them.
    pub fn waiting_keys(&self) -> impl Iterator<Item = &K> {
        self.queue.iter()
    }

    /// Keys currently held by workers.
    pub fn processing_keys(&self) -> impl Iterator<Item = &K> {
        self.processing.iter()
    }

    /// Keys held by a worker that were added again meanwhile: each will be queued once on `done`.
    pub fn dirty_while_processing(&self) -> impl Iterator<Item = &K> {
        self.processing.iter().filter(|k| self.dirty.contains(*k))
    }

    /// Whether `key` is waiting, being processed, or delayed.
    pub fn contains(&self, key: &K) -> bool {
        self.dirty.contains(key) || self.processing.contains(key) || self.waiting.contains_key(key)
    }

    /// Keys in the delaying queue, earliest deadline first, with their retry counts.
    pub fn delayed_keys(&self) -> Vec<DelayedKey<K>> {
        self.by_deadline
            .iter()
            .map(|(t, _, k)| DelayedKey { key: k.clone(), ready_at: *t, requeues: self.num_requeues(k) })
            .collect()
    }

    /// Checks the invariants stated on the fields; `Err` names the first one broken.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = BTreeSet::new();
        for (i, k) in self.queue.iter().enumerate() {
            if !self.dirty.contains(k) {
                return Err(format!("queue[{i}] is not in the dirty set"));
            }
            if self.processing.contains(k) {
                return Err(format!("queue[{i}] is also being processed"));
            }
            if !seen.insert(k) {
                return Err(format!("queue[{i}] appears twice in the queue"));
            }
        }
        if self.by_deadline.len() != self.waiting.len()
            || self.by_deadline.iter().any(|(t, s, k)| self.waiting.get(k) != Some(&WaitFor { ready_at: *t, seq: *s }))
        {
            return Err("the deadline order does not match the delaying queue".to_string());
        }
        // Every dirty key is either waiting in the queue or parked on a worker.
        for k in &self.dirty {
            if !seen.contains(k) && !self.processing.contains(k) {
                return Err("a dirty key is neither queued nor processing".to_string());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q() -> WorkQueue<&'static str> {
        WorkQueue::new("test")
    }

    #[test]
    fn dirty_key_not_queued_is_processing() {
        let mut w = q();
        w.add("a");
        assert_eq!(w.get(), Some("a"));
        w.add("a");
        assert_eq!(w.dirty_while_processing().collect::<Vec<_>>(), vec![&"a"]);
        assert!(w.check_invariants().is_ok());
        // Break the invariant on purpose: the check must notice.
        w.queue.push_back("a");
        assert!(w.check_invariants().is_err());
    }

    #[test]
    fn delayed_keys_are_listed_by_deadline() {
        let mut w = q();
        let t = Time::START;
        w.add_after("late", Duration::from_secs(9), t);
        w.add_after("soon", Duration::from_secs(1), t);
        let d = w.delayed_keys();
        assert_eq!(d.iter().map(|k| k.key).collect::<Vec<_>>(), vec!["soon", "late"]);
        assert_eq!(d[0].ready_at, t.after(Duration::from_secs(1)));
        assert_eq!(w.next_ready_at(), Some(t.after(Duration::from_secs(1))));
        assert!(w.contains(&"late"));
    }
}
