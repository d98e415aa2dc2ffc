//! Rate limiters for the work queue's retries, as client-go's `util/workqueue/default_rate_limiters.go`
//! has them (kubernetes-semantics.md §1.5).
//!
//! A rate limiter answers one question: "this item failed again; how long until it may be retried?"
//! [`RateLimiter::when`] records the failure and returns the delay; [`RateLimiter::forget`] clears the
//! item's history; [`RateLimiter::num_requeues`] reports how many failures are on record.
//!
//! Everything runs in virtual time: the token bucket takes the world's `now` instead of reading a
//! clock, so the same calls at the same instants always give the same delays.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::engine::time::Time;

/// `ItemExponentialFailureRateLimiter`: the `n`-th consecutive failure of an item (counting from 0)
/// waits `base * 2^n`, capped at `max` (kubernetes-semantics.md §1.5).
///
/// Invariant: `failures` holds only items with at least one failure on record; its value is the
/// number of `when` calls since the item was last forgotten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemExponentialFailure<K: Ord> {
    base: Duration,
    max: Duration,
    failures: BTreeMap<K, u32>,
}

impl<K: Clone + Ord> ItemExponentialFailure<K> {
    /// A limiter starting at `base` and never exceeding `max`.
    pub fn new(base: Duration, max: Duration) -> Self {
        ItemExponentialFailure { base, max, failures: BTreeMap::new() }
    }

    /// Records one more failure of `item` and returns its back-off.
    pub fn when(&mut self, item: &K) -> Duration {
        let count = self.failures.entry(item.clone()).or_insert(0);
        let exp = *count;
        *count = count.saturating_add(1);
        // client-go computes base * 2^exp in float64 and returns max when that overflows or
        // exceeds max; checked integer arithmetic gives the same answer without rounding.
        let factor = 1u32.checked_shl(exp).filter(|_| exp < 32);
        match factor.and_then(|f| self.base.checked_mul(f)) {
            Some(d) if d <= self.max => d,
            _ => self.max,
        }
    }

    /// The number of failures on record for `item`.
    pub fn num_requeues(&self, item: &K) -> u32 {
        self.failures.get(item).copied().unwrap_or(0)
    }

    /// Clears `item`'s failures: its next back-off starts again at `base`.
    pub fn forget(&mut self, item: &K) {
        self.failures.remove(item);
    }
}

/// `BucketRateLimiter`: an overall (not per-item) token bucket, golang.org/x/time/rate's
/// `Limiter` with `Reserve().Delay()` (kubernetes-semantics.md §1.5).
///
/// The bucket starts full with `burst` tokens and refills at `qps` tokens per second, never
/// beyond `burst`. Each `when` reserves one token even when none is left: the token count goes
/// negative (a debt) and the caller waits until the refill would have paid it back. This is
/// `reserveN`'s arithmetic: `tokens = min(burst, tokens + elapsed*qps) - 1`, and
/// `wait = -tokens / qps` when negative.
///
/// Tokens are kept exactly, as thousandths of a token per millisecond of refill (`scaled = tokens *
/// 1000`), so that 10 qps gives delays of exactly 100 ms, 200 ms, ... with no float rounding.
///
/// Invariant: `scaled <= burst * 1000`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    qps: u32,
    burst: u32,
    /// Tokens times 1000; negative while reservations are in debt.
    scaled: i64,
    /// The instant `scaled` was last brought up to date (golang's `lim.last`).
    last: Option<Time>,
}

impl Bucket {
    /// A full bucket of `burst` tokens refilled at `qps` per second (`rate.NewLimiter(qps, burst)`).
    /// A `qps` of 0 is raised to 1 so that a debt is always eventually paid.
    pub fn new(qps: u32, burst: u32) -> Bucket {
        Bucket { qps: qps.max(1), burst, scaled: i64::from(burst) * 1000, last: None }
    }

    /// Reserves one token at `now` and returns how long the caller must wait for it.
    pub fn when(&mut self, now: Time) -> Duration {
        self.advance(now);
        self.scaled -= 1000;
        if self.scaled >= 0 {
            return Duration::ZERO;
        }
        // -scaled / qps is the debt in milliseconds (1000 scaled units = 1 token = 1000/qps ms);
        // rounded up so that a retry never runs before its token exists.
        let debt = self.scaled.unsigned_abs();
        let qps = u64::from(self.qps);
        Duration::from_millis(debt.div_ceil(qps))
    }

    /// Whole tokens available at `now` (negative while in debt), for display.
    pub fn tokens_at(&self, now: Time) -> i64 {
        let mut probe = self.clone();
        probe.advance(now);
        probe.scaled.div_euclid(1000)
    }

    /// golang's `advance`: refill for the time elapsed since the last reservation, capped at burst.
    fn advance(&mut self, now: Time) {
        let last = self.last.map_or(now, |l| l.min(now));
        let elapsed = now.millis_since(last).max(0);
        let refill = elapsed.saturating_mul(i64::from(self.qps));
        self.scaled = self.scaled.saturating_add(refill).min(i64::from(self.burst) * 1000);
        self.last = Some(now);
    }
}

/// A work queue's rate limiter: one of client-go's limiters, or the maximum of several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RateLimiter<K: Ord> {
    /// Per-item exponential back-off.
    ItemExponential(ItemExponentialFailure<K>),
    /// One token bucket shared by all items.
    Bucket(Bucket),
    /// `MaxOfRateLimiter`: every limiter is consulted on each `when` (so a bucket token is
    /// always spent) and the longest delay wins; `num_requeues` is the maximum; `forget` forgets
    /// in all of them.
    MaxOf(Vec<RateLimiter<K>>),
}

impl<K: Clone + Ord> RateLimiter<K> {
    /// `DefaultControllerRateLimiter()`: `MaxOf(ItemExponential(5ms, 1000s), Bucket(10 qps, 100))`.
    /// Used by the Deployment and ReplicaSet controllers (kubernetes-semantics.md §1.5, TV-04).
    pub fn default_controller() -> Self {
        RateLimiter::MaxOf(vec![
            RateLimiter::ItemExponential(ItemExponentialFailure::new(
                Duration::from_millis(5),
                Duration::from_secs(1000),
            )),
            RateLimiter::Bucket(Bucket::new(10, 100)),
        ])
    }

    /// The namespace controller's limiter: `MaxOf(ItemExponential(5ms, 60s), Bucket(10 qps, 100))`
    /// (k/k `pkg/controller/namespace/namespace_controller.go`, kubernetes-semantics.md §1.5).
    pub fn namespace_controller() -> Self {
        RateLimiter::MaxOf(vec![
            RateLimiter::ItemExponential(ItemExponentialFailure::new(
                Duration::from_millis(5),
                Duration::from_secs(60),
            )),
            RateLimiter::Bucket(Bucket::new(10, 100)),
        ])
    }

    /// kube-scheduler's per-pod back-off: 1 s doubling to 10 s (`podInitialBackoffSeconds`,
    /// `podMaxBackoffSeconds`; `DefaultPodInitialBackoffDuration` and
    /// `DefaultPodMaxBackoffDuration` in pkg/scheduler/backend/queue/scheduling_queue.go), with no
    /// overall bucket.
    pub fn scheduler_pod_backoff() -> Self {
        RateLimiter::ItemExponential(ItemExponentialFailure::new(Duration::from_secs(1), Duration::from_secs(10)))
    }

    /// The kubelet's pod worker after a failed sync: it tries again after `backOffPeriod`, 10 s
    /// (pkg/kubelet/pod_workers.go `completeWork`, pkg/kubelet/kubelet.go `backOffPeriod`), every
    /// time. Upstream jitters it by up to half (10 s to 15 s); the lab keeps the 10 s.
    pub fn kubelet_pod_worker() -> Self {
        RateLimiter::ItemExponential(ItemExponentialFailure::new(Duration::from_secs(10), Duration::from_secs(10)))
    }

    /// `DefaultItemBasedRateLimiter()`: exponential from 1 ms to 1000 s, no bucket.
    pub fn default_item_based() -> Self {
        RateLimiter::ItemExponential(ItemExponentialFailure::new(Duration::from_millis(1), Duration::from_secs(1000)))
    }

    /// Records a failure of `item` at `now` and returns how long to wait before retrying it.
    pub fn when(&mut self, item: &K, now: Time) -> Duration {
        match self {
            RateLimiter::ItemExponential(l) => l.when(item),
            RateLimiter::Bucket(b) => b.when(now),
            RateLimiter::MaxOf(ls) => ls.iter_mut().map(|l| l.when(item, now)).max().unwrap_or(Duration::ZERO),
        }
    }

    /// Failures on record for `item` (always 0 for a bucket).
    pub fn num_requeues(&self, item: &K) -> u32 {
        match self {
            RateLimiter::ItemExponential(l) => l.num_requeues(item),
            RateLimiter::Bucket(_) => 0,
            RateLimiter::MaxOf(ls) => ls.iter().map(|l| l.num_requeues(item)).max().unwrap_or(0),
        }
    }

    /// Stops tracking `item` (a no-op for a bucket).
    pub fn forget(&mut self, item: &K) {
        match self {
            RateLimiter::ItemExponential(l) => l.forget(item),
            RateLimiter::Bucket(_) => {}
            RateLimiter::MaxOf(ls) => ls.iter_mut().for_each(|l| l.forget(item)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// client-go default_rate_limiters_test.go `TestItemExponentialFailureRateLimiter`.
    #[test]
    fn exponential_matches_client_go_unit_test() {
        let mut l = ItemExponentialFailure::new(ms(1), Duration::from_secs(1));
        let one = "one".to_string();
        let two = "two".to_string();
        let got: Vec<Duration> = (0..5).map(|_| l.when(&one)).collect();
        assert_eq!(got, vec![ms(1), ms(2), ms(4), ms(8), ms(16)]);
        assert_eq!(l.num_requeues(&one), 5);
        assert_eq!((l.when(&two), l.when(&two)), (ms(1), ms(2)));
        assert_eq!(l.num_requeues(&two), 2);
        l.forget(&one);
        assert_eq!(l.num_requeues(&one), 0);
        assert_eq!(l.when(&one), ms(1));
    }

    #[test]
    fn exponential_caps_and_never_overflows() {
        let mut l = ItemExponentialFailure::new(ms(5), Duration::from_secs(1000));
        let delays: Vec<Duration> = (0..100).map(|_| l.when(&1u8)).collect();
        assert_eq!(delays[17], Duration::from_millis(655_360));
        assert_eq!(delays[18], Duration::from_secs(1000), "failure #19 is capped");
        assert!(delays[18..].iter().all(|d| *d == Duration::from_secs(1000)));
    }

    #[test]
    fn bucket_starts_full_then_goes_into_debt_and_refills() {
        let t = Time::START;
        let mut b = Bucket::new(10, 100);
        for _ in 0..100 {
            assert_eq!(b.when(t), Duration::ZERO);
        }
        assert_eq!(b.when(t), ms(100));
        assert_eq!(b.when(t), ms(200));
        assert_eq!(b.tokens_at(t), -2);
        // 250 ms later 2.5 tokens have refilled: the debt of 2 is paid and half a token is left,
        // so the next reservation waits for the other half.
        let later = t.after(ms(250));
        assert_eq!(b.when(later), ms(50));
        // Refill never exceeds the burst.
        let much_later = t.after(Duration::from_secs(3600));
        assert_eq!(b.tokens_at(much_later), 100);
    }

    #[test]
    fn namespace_controller_caps_at_a_minute() {
        let mut l: RateLimiter<String> = RateLimiter::namespace_controller();
        let k = "old".to_string();
        let last = (0..30).map(|_| l.when(&k, Time::START)).last();
        assert_eq!(last, Some(Duration::from_secs(60)));
        assert_eq!(l.num_requeues(&k), 30);
    }
}
