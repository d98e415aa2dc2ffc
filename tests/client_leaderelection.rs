//! Leader election over a Lease against the real miniature API server, with two candidates and a
//! virtual clock: kubernetes-semantics.md §7 and test vectors TV-39 to TV-41.

use std::time::Duration;

use reconcile_lab::engine::apiserver::ApiServer;
use reconcile_lab::engine::client::leaderelection::{
    ElectionOutcome, ElectionStep, ElectorState, LeaderElectionConfig, LeaderElector, LeaseClient, Unreachable,
};
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::engine::object::ObjectExt;
use reconcile_lab::engine::rand::Rng;
use reconcile_lab::engine::status::Status;
use reconcile_lab::engine::time::Time;
use serde_json::Value;

fn lease(api: &ApiServer) -> Value {
    api.get(Kind::by_kind("Lease").expect("leases are served"), Some("kube-system"), "my-ctrl")
        .expect("the lease exists")
}

/// A candidate that releases its lease on a clean stop (`ReleaseOnCancel: true`, as
/// kube-scheduler runs it).
fn elector(id: &str, now: Time) -> LeaderElector {
    let mut config = LeaderElectionConfig::new("kube-system", "my-ctrl", id);
    config.release_on_cancel = true;
    LeaderElector::new(config, now)
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

/// A tiny world: the electors that are alive take turns by deadline; `partitioned[i]` cuts
/// elector `i` off from the API server.
struct World {
    api: ApiServer,
    rng: Rng,
    now: Time,
    electors: Vec<LeaderElector>,
    alive: Vec<bool>,
    partitioned: Vec<bool>,
}

impl World {
    fn new(ids: &[&str]) -> World {
        let mut api = ApiServer::new(3);
        api.set_now(Time::START);
        let electors: Vec<LeaderElector> = ids.iter().map(|id| elector(id, Time::START)).collect();
        let n = electors.len();
        World { api, rng: Rng::new(11), now: Time::START, electors, alive: vec![true; n], partitioned: vec![false; n] }
    }

    /// Runs the next due elector tick no later than `until`; returns its index and step.
    fn step(&mut self, until: Time) -> Option<(usize, ElectionStep)> {
        let (i, at) = (0..self.electors.len())
            .filter(|i| self.alive[*i])
            .filter_map(|i| self.electors[i].next_tick_at().map(|t| (i, t)))
            .min_by_key(|(i, t)| (*t, *i))?;
        if at > until {
            return None;
        }
        self.now = self.now.max(at);
        self.api.set_now(self.now);
        let client: &mut dyn LeaseClient = if self.partitioned[i] { &mut Unreachable } else { &mut self.api };
        let step = self.electors[i].tick(client, self.now, &mut self.rng)?;
        Some((i, step))
    }

    /// Runs one due tick (if any) no later than `until`, checking that at most one elector leads.
    fn run_until_one(&mut self, until: Time) -> Option<(usize, ElectionStep)> {
        let r = self.step(until)?;
        let leaders = (0..self.electors.len()).filter(|j| self.alive[*j] && self.electors[*j].is_leading()).count();
        assert!(leaders <= 1, "two leaders at {}", self.now);
        Some(r)
    }

    /// Runs every tick due up to `until`, checking at every step that at most one elector leads.
    fn run_until(&mut self, until: Time) -> Vec<(Time, usize, ElectionStep)> {
        let mut log = Vec::new();
        while let Some((i, s)) = self.step(until) {
            let leaders = (0..self.electors.len()).filter(|j| self.alive[*j] && self.electors[*j].is_leading()).count();
            assert!(leaders <= 1, "two leaders at {}", self.now);
            log.push((self.now, i, s));
        }
        self.now = self.now.max(until);
        self.api.set_now(self.now);
        log
    }
}

/// TV-39: the first candidate creates the lease.
#[test]
fn tv39_first_acquisition() {
    let mut w = World::new(&["A"]);
    let (i, step) = w.step(Time::START).expect("the first attempt is due at once");
    assert_eq!(i, 0);
    assert_eq!(step.outcome, ElectionOutcome::BecameLeader);
    assert_eq!(step.calls.iter().map(|c| c.verb).collect::<Vec<_>>(), vec!["get", "create"]);
    assert_eq!(step.calls[0].result.as_ref().err().map(Status::code), Some(404));
    assert_eq!(step.events, vec!["A became leader"]);
    assert!(w.electors[0].is_leading());

    let l = lease(&w.api);
    assert_eq!(l["spec"]["holderIdentity"], "A");
    assert_eq!(l["spec"]["leaseDurationSeconds"], 15);
    assert_eq!(l["spec"]["leaseTransitions"], 0);
    assert_eq!(l["spec"]["acquireTime"], l["spec"]["renewTime"]);
    assert_eq!(l["spec"]["acquireTime"], "2026-01-01T00:00:00.000000Z");
    assert_eq!(l.namespace(), Some("kube-system"));

    // The renew loop starts at once (wait.Until runs immediately): at the same instant the
    // record is unchanged, so the update is a no-op write that keeps the resourceVersion.
    assert_eq!(w.electors[0].next_tick_at(), Some(Time::START));
    let (_, renew) = w.step(Time::START).expect("the first renewal is due at once");
    assert_eq!(renew.outcome, ElectionOutcome::Renewed);
    assert_eq!(renew.calls.iter().map(|c| c.verb).collect::<Vec<_>>(), vec!["update"]);
    assert_eq!(lease(&w.api).resource_version(), l.resource_version());
    assert_eq!(w.electors[0].next_tick_at(), Some(Time::START.after(secs(2))));
}

/// TV-40: A renews every 2 s (renewTime and the resourceVersion change, acquireTime and
/// leaseTransitions do not); B polls every 2 to 4.4 s and fails; once A dies, B takes over 15 s to
/// 19.4 s after it last saw the lease change.
#[test]
fn tv40_renew_and_takeover() {
    let mut w = World::new(&["A", "B"]);
    let log = w.run_until(Time::START.after(secs(30)));
    assert!(w.electors[0].is_leading());
    assert!(!w.electors[1].is_leading());

    let a_renewals: Vec<Time> =
        log.iter().filter(|(_, i, s)| *i == 0 && s.outcome == ElectionOutcome::Renewed).map(|(t, _, _)| *t).collect();
    assert!(a_renewals.len() >= 14, "{} renewals", a_renewals.len());
    for pair in a_renewals.windows(2).skip(1) {
        assert!(pair[1].since(pair[0]) == secs(2), "renewals every 2 s");
    }
    let b_polls: Vec<Time> = log.iter().filter(|(_, i, _)| *i == 1).map(|(t, _, _)| *t).collect();
    for pair in b_polls.windows(2) {
        let gap = pair[1].since(pair[0]);
        assert!(gap >= secs(2) && gap < Duration::from_millis(4400), "B polls every 2-4.4 s, not {gap:?}");
    }
    assert!(log
        .iter()
        .filter(|(_, i, _)| *i == 1)
        .all(|(_, _, s)| matches!(&s.outcome, ElectionOutcome::HeldByOther { holder, .. } if holder == "A")));

    let before = lease(&w.api);
    w.run_until(w.now.after(secs(2)));
    let after = lease(&w.api);
    assert_ne!(before["spec"]["renewTime"], after["spec"]["renewTime"]);
    assert_ne!(before.resource_version(), after.resource_version());
    assert_eq!(before["spec"]["acquireTime"], after["spec"]["acquireTime"]);
    assert_eq!(after["spec"]["leaseTransitions"], 0);

    // A dies (no release). B takes over 15 s to 19.4 s after it last saw a change.
    w.alive[0] = false;
    let killed_at = w.now;
    let mut last_seen_change = w.electors[1].observed().1;
    let mut took_over = None;
    while took_over.is_none() {
        let (i, step) = w.step(killed_at.after(secs(60))).expect("B keeps polling");
        assert_eq!(i, 1);
        if step.outcome == ElectionOutcome::BecameLeader {
            took_over = Some(w.now);
        } else {
            last_seen_change = w.electors[1].observed().1;
        }
    }
    let t = took_over.expect("B took over");
    let waited = t.since(last_seen_change);
    assert!(waited >= secs(15) && waited < Duration::from_millis(19_400), "waited {waited:?}");
    let l = lease(&w.api);
    assert_eq!(l["spec"]["holderIdentity"], "B");
    assert_eq!(l["spec"]["leaseTransitions"], 1);
    assert_eq!(l["spec"]["acquireTime"], l["spec"]["renewTime"]);
    assert_eq!(l["spec"]["acquireTime"], t.rfc3339_micro());
}

/// TV-40, last sentence: a leader that cannot write for the renew deadline stops leading by
/// itself, before any other candidate can take over.
#[test]
fn tv40_partitioned_leader_stops_after_the_renew_deadline() {
    let mut w = World::new(&["A", "B"]);
    w.run_until(Time::START.after(secs(10)));
    assert!(w.electors[0].is_leading());
    let last_renew =
        Time::parse_rfc3339(lease(&w.api)["spec"]["renewTime"].as_str().expect("a renewTime")).expect("a MicroTime");
    w.partitioned[0] = true;
    let log = w.run_until(w.now.after(secs(40)));
    let stopped = log
        .iter()
        .find(|(_, i, s)| *i == 0 && s.outcome == ElectionOutcome::StoppedLeading)
        .map(|(t, _, s)| (*t, s.clone()))
        .expect("A stopped leading");
    assert_eq!(stopped.1.events, vec!["A stopped leading"]);
    // The first failed renewal is 2 s after the last good one; the poll gives up 10 s later.
    assert_eq!(stopped.0, last_renew.after(secs(12)));
    let failures = log.iter().filter(|(t, i, s)| *i == 0 && *t < stopped.0 && s.outcome == ElectionOutcome::Failed);
    assert_eq!(failures.count(), 5, "attempts at +0, +2, +4, +6, +8 of the poll");
    let b_took_over = log
        .iter()
        .find(|(_, i, s)| *i == 1 && s.outcome == ElectionOutcome::BecameLeader)
        .map(|(t, _, _)| *t)
        .expect("B took over");
    assert!(b_took_over > stopped.0, "A stopped before B started");
    assert_eq!(w.electors[0].state(), ElectorState::Stopped);
    assert_eq!(w.electors[0].next_tick_at(), None);
}

/// TV-41: a clean stop releases the lease; the other candidate takes it at its next try.
#[test]
fn tv41_voluntary_release() {
    let mut w = World::new(&["A", "B"]);
    w.run_until(Time::START.after(secs(20)));
    assert!(w.electors[0].is_leading());
    let transitions = lease(&w.api)["spec"]["leaseTransitions"].clone();

    let now = w.now;
    let step = w.electors[0].shut_down(&mut w.api, now);
    assert_eq!(step.outcome, ElectionOutcome::ShutDown { released: true });
    assert_eq!(step.calls.iter().map(|c| c.verb).collect::<Vec<_>>(), vec!["get", "update"]);
    w.alive[0] = false;
    let l = lease(&w.api);
    assert_eq!(l["spec"]["holderIdentity"], "");
    assert_eq!(l["spec"]["leaseDurationSeconds"], 1);
    assert_eq!(l["spec"]["leaseTransitions"], transitions);

    let (i, step) = w.step(now.after(Duration::from_millis(4400))).expect("B tries within 4.4 s");
    assert_eq!((i, &step.outcome), (1, &ElectionOutcome::BecameLeader));
    let l = lease(&w.api);
    assert_eq!(l["spec"]["holderIdentity"], "B");
    assert_eq!(l["spec"]["leaseTransitions"], transitions.as_i64().map(|t| t + 1).expect("a number"));
}

/// Without `ReleaseOnCancel` (client-go's zero value, and kube-controller-manager's
/// configuration), a clean stop writes nothing: the other candidate waits for the lease to
/// expire, a full lease duration after it last saw the record change.
#[test]
fn no_release_without_release_on_cancel() {
    assert!(!LeaderElectionConfig::new("kube-system", "my-ctrl", "A").release_on_cancel);
    let mut w = World::new(&["A", "B"]);
    for e in &mut w.electors {
        *e = LeaderElector::new(LeaderElectionConfig::new("kube-system", "my-ctrl", e.identity()), Time::START);
    }
    w.run_until(Time::START.after(secs(20)));
    assert!(w.electors[0].is_leading());
    let held = lease(&w.api);

    let now = w.now;
    let step = w.electors[0].shut_down(&mut w.api, now);
    assert_eq!(step.outcome, ElectionOutcome::ShutDown { released: false });
    assert!(step.calls.is_empty(), "a clean stop without ReleaseOnCancel makes no call");
    w.alive[0] = false;
    assert_eq!(lease(&w.api)["spec"], held["spec"]);

    let (_, seen_at) = w.electors[1].observed();
    let log = w.run_until(now.after(secs(25)));
    let (took_over, _, _) = log
        .iter()
        .find(|(_, i, s)| *i == 1 && s.outcome == ElectionOutcome::BecameLeader)
        .expect("B takes over once the lease expires");
    assert!(*took_over >= seen_at.after(secs(15)), "B took over at {took_over}, before the lease expired");
}

/// A client that lets another candidate write just before it forwards an update: the
/// forwarded update carries a stale resourceVersion and gets 409.
struct Racing<'a> {
    api: &'a mut ApiServer,
    rival: Option<&'a mut LeaderElector>,
    now: Time,
    rng: Rng,
}

impl LeaseClient for Racing<'_> {
    fn get_lease(&mut self, namespace: &str, name: &str) -> Result<Value, Status> {
        self.api.get_lease(namespace, name)
    }
    fn create_lease(&mut self, lease: Value) -> Result<Value, Status> {
        self.api.create_lease(lease)
    }
    fn update_lease(&mut self, lease: Value) -> Result<Value, Status> {
        if let Some(rival) = self.rival.take() {
            let step = rival.tick(self.api, self.now, &mut self.rng).expect("the rival's attempt is due");
            assert_eq!(step.outcome, ElectionOutcome::BecameLeader);
        }
        self.api.update_lease(lease)
    }
}

/// Two candidates race for a released lease: one wins, the other's update gets 409 and it has
/// lost the round.
#[test]
fn racing_update_loses_with_409() {
    let mut w = World::new(&["A", "B", "C"]);
    w.alive[1] = false;
    w.alive[2] = false;
    w.run_until(Time::START.after(secs(4)));
    let now = w.now;
    w.electors[0].shut_down(&mut w.api, now);

    let later = now.after(secs(5));
    w.api.set_now(later);
    let (b, c) = w.electors.split_at_mut(2);
    let mut racing = Racing { api: &mut w.api, rival: Some(&mut c[0]), now: later, rng: Rng::new(1) };
    let b_elector = &mut b[1];
    // B's next attempt is due by now (its first was at the start).
    let step = b_elector.tick(&mut racing, later, &mut Rng::new(2)).expect("B's attempt is due");
    assert_eq!(step.outcome, ElectionOutcome::Failed);
    assert_eq!(step.calls.last().and_then(|c| c.result.as_ref().err()).map(Status::code), Some(409));
    assert!(step.describe("B").contains("409 Conflict"));
    assert!(!b_elector.is_leading());
    assert!(c[0].is_leading());
    assert_eq!(lease(&w.api)["spec"]["holderIdentity"], "C");
}

#[derive(Clone, Debug)]
enum Fault {
    Steps(u8),
    TogglePartition(usize),
    Crash(usize),
    ShutDown(usize),
    Restart(usize),
    Advance(u16),
}

fn fault() -> impl proptest::strategy::Strategy<Value = Fault> {
    use proptest::prelude::*;
    prop_oneof![
        4 => (1u8..20).prop_map(Fault::Steps),
        2 => (0usize..3).prop_map(Fault::TogglePartition),
        1 => (0usize..3).prop_map(Fault::Crash),
        1 => (0usize..3).prop_map(Fault::ShutDown),
        2 => (0usize..3).prop_map(Fault::Restart),
        2 => (0u16..30_000).prop_map(Fault::Advance),
    ]
}

proptest::proptest! {
    /// Three candidates under random partitions, crashes, clean stops and restarts: never two
    /// leaders at once (run_until asserts it at every step), and once the faults stop and a
    /// candidate is alive, exactly one leads.
    #[test]
    fn at_most_one_leader_and_eventually_one(faults in proptest::collection::vec(fault(), 1..60), seed in 0u64..500) {
        let mut w = World::new(&["A", "B", "C"]);
        w.rng = Rng::new(seed);
        let mut restarts = 0;
        for f in faults {
            match f {
                Fault::Steps(n) => {
                    for _ in 0..n {
                        let until = w.now.after(secs(5));
                        if w.run_until_one(until).is_none() { break; }
                    }
                }
                Fault::TogglePartition(i) => w.partitioned[i] = !w.partitioned[i],
                Fault::Crash(i) => w.alive[i] = false,
                Fault::ShutDown(i) => {
                    if w.alive[i] {
                        let now = w.now;
                        let client: &mut dyn LeaseClient = if w.partitioned[i] { &mut Unreachable } else { &mut w.api };
                        w.electors[i].shut_down(client, now);
                        w.alive[i] = false;
                    }
                }
                Fault::Restart(i) => {
                    if !w.alive[i] {
                        restarts += 1;
                        w.electors[i] = elector(&format!("{}-{restarts}", ["A", "B", "C"][i]), w.now);
                        w.alive[i] = true;
                    }
                }
                Fault::Advance(ms) => {
                    let until = w.now.after(Duration::from_millis(u64::from(ms)));
                    w.run_until(until);
                }
            }
        }
        // Heal: no partitions; a process whose elector stopped has exited and comes back as a
        // fresh candidate (kube-controller-manager exits on "leaderelection lost"); at least one
        // live candidate; then a minute of quiet.
        w.partitioned = vec![false; 3];
        for i in 0..3 {
            if w.alive[i] && w.electors[i].state() == ElectorState::Stopped {
                w.electors[i] = elector(&format!("{}-again", ["A", "B", "C"][i]), w.now);
            }
        }
        if !w.alive.iter().any(|a| *a) {
            w.electors[0] = elector("A-last", w.now);
            w.alive[0] = true;
        }
        // A leader cut off until the heal may still lose its lease afterwards (its renew deadline
        // passed while partitioned): its process exits and comes back as a fresh candidate too.
        let quiet_end = w.now.after(secs(60));
        while w.now < quiet_end {
            let slice = w.now.after(secs(1));
            w.run_until(slice);
            for i in 0..3 {
                if w.alive[i] && w.electors[i].state() == ElectorState::Stopped {
                    restarts += 1;
                    w.electors[i] = elector(&format!("{}-{restarts}", ["A", "B", "C"][i]), w.now);
                }
            }
        }
        let leaders: Vec<&str> = (0..3)
            .filter(|i| w.alive[*i] && w.electors[*i].is_leading())
            .map(|i| w.electors[i].identity())
            .collect();
        proptest::prop_assert_eq!(leaders.len(), 1, "leaders after healing: {:?}", leaders);
        let holder = lease(&w.api)["spec"]["holderIdentity"].clone();
        proptest::prop_assert_eq!(holder.as_str(), Some(leaders[0]));
    }
}
