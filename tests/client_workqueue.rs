//! The work queue and its rate limiters against client-go's `util/workqueue` (`queue.go`,
//! `delaying_queue.go`, `rate_limiting_queue.go`, `default_rate_limiters.go`).
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]

use std::time::Duration;

use proptest::prelude::*;
use reconcile_lab::engine::client::{RateLimiter, WorkQueue};
use reconcile_lab::engine::time::Time;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn queue() -> WorkQueue<String> {
    WorkQueue::new("deployment")
}

fn k(s: &str) -> String {
    s.to_string()
}

/// client-go `queue.go` `Add` (the dirty set): a key added twice while waiting is processed once.
#[test]
fn tv01_duplicate_add_while_waiting() {
    let mut q = queue();
    assert!(q.add(k("a")));
    assert!(q.add(k("b")));
    assert!(!q.add(k("a")), "the second add of a waiting key is de-duplicated");
    assert_eq!(q.len(), 2);
    assert_eq!(q.get(), Some(k("a")));
    assert_eq!(q.get(), Some(k("b")));
    assert_eq!(q.len(), 0);
    assert_eq!(q.get(), None, "an empty queue makes a worker wait");
    q.check_invariants().unwrap();
}

/// client-go `queue.go` `Done`: a key added while processing is not handed to a second worker, and
/// is re-queued exactly once on Done.
#[test]
fn tv02_add_while_processing() {
    let mut q = queue();
    q.add(k("a"));
    assert_eq!(q.get(), Some(k("a")));
    assert_eq!(q.processing_keys().collect::<Vec<_>>(), vec!["a"]);
    q.add(k("a"));
    q.add(k("a"));
    q.check_invariants().unwrap();
    assert_eq!(q.len(), 0, "a is only dirty");
    assert_eq!(q.get(), None, "a second worker gets nothing: a is never processed twice at once");
    assert_eq!(q.dirty_while_processing().collect::<Vec<_>>(), vec!["a"]);
    assert!(q.done(&k("a")), "done re-queues the dirty key");
    assert_eq!(q.len(), 1);
    assert_eq!(q.get(), Some(k("a")));
    assert!(!q.done(&k("a")));
    assert_eq!(q.len(), 0);
    assert!(q.is_drained());
    q.check_invariants().unwrap();
}

/// client-go `queue.go` `ShutDown`: shutdown ignores new adds, still hands out what waits, then
/// reports shutdown.
#[test]
fn tv03_shutdown() {
    let mut q = queue();
    q.add(k("a"));
    q.add(k("b"));
    q.shut_down();
    assert!(!q.add(k("c")));
    assert_eq!(q.get(), Some(k("a")));
    assert_eq!(q.get(), Some(k("b")));
    assert_eq!(q.get(), None);
    assert!(q.shutting_down());
    q.add_after(k("d"), ms(10), Time::START);
    assert!(q.delayed_keys().is_empty(), "add_after is ignored during shutdown");
}

/// client-go `default_rate_limiters.go` `DefaultControllerRateLimiter`: the default controller rate
/// limiter.
#[test]
fn tv04_default_controller_rate_limiter() {
    let t = Time::START;
    let mut q = queue();
    let delays: Vec<Duration> = (0..5).map(|_| q.add_rate_limited(k("k"), t)).collect();
    assert_eq!(delays, vec![ms(5), ms(10), ms(20), ms(40), ms(80)]);
    assert_eq!(q.num_requeues(&k("k")), 5);
    q.forget(&k("k"));
    assert_eq!(q.num_requeues(&k("k")), 0);
    assert_eq!(q.add_rate_limited(k("k"), t), ms(5));

    // Failure #19 onward waits 1000 s (5ms * 2^18 > 1000 s). Use a limiter of its own so the
    // bucket is not drained by these calls.
    let mut l: RateLimiter<String> = RateLimiter::default_controller();
    let d: Vec<Duration> = (0..25).map(|i| l.when(&k("slow"), t.after(Duration::from_secs(i)))).collect();
    assert_eq!(d[17], ms(655_360));
    assert!(d[18..].iter().all(|x| *x == Duration::from_secs(1000)));

    // Calls #101 and #102 (any keys, same instant, first failures) are bucket-dominated.
    let mut l: RateLimiter<String> = RateLimiter::default_controller();
    for i in 0..100 {
        assert_eq!(l.when(&format!("key-{i}"), t), ms(5));
    }
    assert_eq!(l.when(&k("x"), t), ms(100));
    assert_eq!(l.when(&k("y"), t), ms(200));
    assert_eq!(l.num_requeues(&k("x")), 1);
}

/// client-go `delaying_queue.go` `insert`: of several AddAfter calls the earliest deadline wins; a
/// zero delay adds now.
#[test]
fn tv05_add_after_earliest_wins() {
    let t = Time::START;
    let mut q = queue();
    q.add_after(k("a"), Duration::from_secs(10), t);
    q.add_after(k("a"), Duration::from_secs(1), t);
    q.add_after(k("b"), Duration::from_secs(1), t);
    q.add_after(k("b"), Duration::from_secs(10), t);
    q.add_after(k("c"), Duration::ZERO, t);
    assert_eq!(q.waiting_keys().collect::<Vec<_>>(), vec!["c"], "c is queued immediately");
    assert_eq!(q.next_ready_at(), Some(t.after(Duration::from_secs(1))));
    assert!(q.fire_due(t.after(ms(999))).is_empty());
    assert_eq!(q.fire_due(t.after(Duration::from_secs(1))), vec![k("a"), k("b")]);
    assert_eq!(q.waiting_keys().collect::<Vec<_>>(), vec!["c", "a", "b"]);
    assert_eq!(q.next_ready_at(), None, "nothing is left to fire at 10 s");
    assert!(q.fire_due(t.after(Duration::from_secs(10))).is_empty());
    assert_eq!(q.len(), 3);
}

/// The delaying queue is independent of the dirty set: a key can be queued now and added
/// again when its timer fires (client-go `delaying_queue.go`, `waitingLoop`).
#[test]
fn delayed_key_can_also_be_queued_directly() {
    let t = Time::START;
    let mut q = queue();
    q.add_after(k("a"), Duration::from_secs(1), t);
    q.add(k("a"));
    assert_eq!(q.get(), Some(k("a")));
    q.done(&k("a"));
    assert_eq!(q.fire_due(t.after(Duration::from_secs(1))), vec![k("a")]);
    assert_eq!(q.get(), Some(k("a")));
}

/// `deployment_controller.go` `handleErr` (maxRetries): a key whose sync always fails is retried
/// while NumRequeues < 15 (5 ms .. 81.92 s), then forgotten and dropped; it comes back only on a
/// new event.
#[test]
fn tv06_controller_retry_budget() {
    const MAX_RETRIES: u32 = 15;
    let mut q = queue();
    let mut now = Time::START;
    q.add(k("default/web"));
    let mut delays = Vec::new();
    let mut syncs = 0;
    loop {
        if q.is_empty() {
            match q.next_ready_at() {
                Some(at) => {
                    now = at;
                    q.fire_due(now);
                }
                None => break,
            }
        }
        let key = q.get().expect("a key is waiting");
        syncs += 1;
        // sync(key) fails every time; the deployment controller's handleErr:
        if q.num_requeues(&key) < MAX_RETRIES {
            delays.push(q.add_rate_limited(key.clone(), now));
        } else {
            q.forget(&key);
        }
        q.done(&key);
    }
    assert_eq!(syncs, 16, "the first sync plus 15 retries");
    assert_eq!(delays.len(), 15);
    assert_eq!(delays[0], ms(5));
    assert_eq!(delays[14], ms(81_920));
    assert_eq!(q.num_requeues(&k("default/web")), 0, "dropped keys are forgotten");
    assert!(!q.contains(&k("default/web")));
    // A new event brings it back.
    q.add(k("default/web"));
    assert_eq!(q.get(), Some(k("default/web")));
}

#[derive(Clone, Debug)]
enum Op {
    Add(u8),
    Get,
    Done(u8),
    AddAfter(u8, u16),
    Advance(u16),
    RateLimited(u8),
    Forget(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..4).prop_map(Op::Add),
        Just(Op::Get),
        (0u8..4).prop_map(Op::Done),
        (0u8..4, 0u16..500).prop_map(|(k, d)| Op::AddAfter(k, d)),
        (0u16..500).prop_map(Op::Advance),
        (0u8..4).prop_map(Op::RateLimited),
        (0u8..4).prop_map(Op::Forget),
    ]
}

proptest! {
    /// Random operations by several workers: the invariant holds after each step, no key is ever
    /// held by two workers, and every key added is eventually handed out.
    #[test]
    fn invariants_hold_under_random_operations(ops in proptest::collection::vec(op(), 1..200)) {
        let mut q: WorkQueue<u8> = WorkQueue::new("prop");
        let mut now = Time::START;
        let mut held: Vec<u8> = Vec::new();
        for o in ops {
            match o {
                Op::Add(k) => { q.add(k); }
                Op::Get => {
                    if let Some(k) = q.get() {
                        prop_assert!(!held.contains(&k), "key {} handed to two workers", k);
                        held.push(k);
                    }
                }
                Op::Done(k) => {
                    if let Some(i) = held.iter().position(|h| *h == k) {
                        held.remove(i);
                        q.done(&k);
                    }
                }
                Op::AddAfter(k, d) => q.add_after(k, ms(u64::from(d)), now),
                Op::Advance(d) => { now = now.after(ms(u64::from(d))); q.fire_due(now); }
                Op::RateLimited(k) => { q.add_rate_limited(k, now); }
                Op::Forget(k) => q.forget(&k),
            }
            prop_assert_eq!(q.check_invariants(), Ok(()));
            let processing: Vec<u8> = q.processing_keys().copied().collect();
            let mut h = held.clone();
            h.sort_unstable();
            prop_assert_eq!(processing, h);
        }
        // Drain: finish everything held, fire every timer, and process until empty.
        for k in held.drain(..) { q.done(&k); }
        while let Some(at) = q.next_ready_at() { now = at; q.fire_due(now); }
        let mut handed = 0;
        while let Some(k) = q.get() { q.done(&k); handed += 1; prop_assert!(handed < 100); }
        prop_assert!(q.is_empty() && q.is_drained());
    }
}
