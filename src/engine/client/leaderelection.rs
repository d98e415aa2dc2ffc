//! Leader election over a Lease object, as client-go's `tools/leaderelection` does it
//! (`leaderelection.go`, `resourcelock/leaselock.go`; kubernetes-semantics.md §7), as a state
//! machine the world drives in virtual time.
//!
//! What it guarantees, like client-go's:
//! - a candidate tries every `RetryPeriod` jittered by 1.2 (2 s to 4.4 s) until it acquires;
//! - it takes the lease over only when the lease is free or after it has seen **no change** to
//!   the lease record for a full `leaseDurationSeconds`, measured on its own clock from when it
//!   last saw the record change (`observedTime`), never from the timestamps in the Lease;
//! - a leader renews every `RetryPeriod`; if it cannot renew for `RenewDeadline` it stops leading
//!   by itself;
//! - with `release_on_cancel` (client-go's `ReleaseOnCancel`: kube-scheduler sets it,
//!   kube-controller-manager does not), a clean stop writes `holderIdentity: ""`,
//!   `leaseDurationSeconds: 1` so that another candidate can take over at its next try; without
//!   it the lease stays held until it expires on the other candidates' clocks;
//! - two candidates racing on one write: the API server's optimistic concurrency lets one win;
//!   the other gets a 409 and has lost the round.
//!
//! Each [`LeaderElector::tick`] is one attempt (the world's "a timer fires: lease renew" step);
//! [`LeaderElector::next_tick_at`] says when the next one is due.

// The API's errors are `Status` values, as the API server's contract returns them.
#![allow(clippy::result_large_err)]

use std::time::Duration;

use serde_json::{json, Value};

use crate::engine::apiserver::ApiServer;
use crate::engine::kinds::Kind;
use crate::engine::rand::Rng;
use crate::engine::status::{Reason, Status};
use crate::engine::time::Time;

/// The API calls an elector makes on its Lease (client-go's `resourcelock.Interface` for
/// leases). [`ApiServer`] implements it; the world wraps it to inject faults (see
/// [`Unreachable`]).
pub trait LeaseClient {
    /// GET the Lease.
    fn get_lease(&mut self, namespace: &str, name: &str) -> Result<Value, Status>;
    /// POST a new Lease.
    fn create_lease(&mut self, lease: Value) -> Result<Value, Status>;
    /// PUT the Lease (carrying the resourceVersion it was read with).
    fn update_lease(&mut self, lease: Value) -> Result<Value, Status>;
}

fn lease_kind() -> Result<&'static Kind, Status> {
    Kind::by_kind("Lease").ok_or_else(|| Status::new(Reason::InternalError, "the server does not serve leases"))
}

impl LeaseClient for ApiServer {
    fn get_lease(&mut self, namespace: &str, name: &str) -> Result<Value, Status> {
        self.get(lease_kind()?, Some(namespace), name)
    }
    fn create_lease(&mut self, lease: Value) -> Result<Value, Status> {
        self.create(lease)
    }
    fn update_lease(&mut self, lease: Value) -> Result<Value, Status> {
        self.update(lease)
    }
}

/// A client cut off from the API server (a network partition): every call fails.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unreachable;

impl Unreachable {
    fn error() -> Status {
        Status::new(Reason::InternalError, "dial tcp 10.96.0.1:443: i/o timeout")
    }
}

impl LeaseClient for Unreachable {
    fn get_lease(&mut self, _: &str, _: &str) -> Result<Value, Status> {
        Err(Unreachable::error())
    }
    fn create_lease(&mut self, _: Value) -> Result<Value, Status> {
        Err(Unreachable::error())
    }
    fn update_lease(&mut self, _: Value) -> Result<Value, Status> {
        Err(Unreachable::error())
    }
}

/// client-go's `LeaderElectionRecord`: the Lease spec as the elector reads and writes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderElectionRecord {
    /// `spec.holderIdentity`; empty when released.
    pub holder_identity: String,
    /// `spec.leaseDurationSeconds`.
    pub lease_duration_seconds: i64,
    /// `spec.acquireTime` (a MicroTime).
    pub acquire_time: Time,
    /// `spec.renewTime` (a MicroTime).
    pub renew_time: Time,
    /// `spec.leaseTransitions`.
    pub leader_transitions: i64,
}

impl LeaderElectionRecord {
    /// `LeaderElectionRecordToLeaseSpec`, fields in `LeaseSpec` order, times as MicroTime.
    pub fn to_lease_spec(&self) -> Value {
        json!({
            "holderIdentity": self.holder_identity,
            "leaseDurationSeconds": self.lease_duration_seconds,
            "acquireTime": self.acquire_time.rfc3339_micro(),
            "renewTime": self.renew_time.rfc3339_micro(),
            "leaseTransitions": self.leader_transitions,
        })
    }

    /// `LeaseSpecToLeaderElectionRecord`: absent fields read as zero values.
    pub fn from_lease_spec(spec: &Value) -> LeaderElectionRecord {
        let time = |f: &str| spec.get(f).and_then(Value::as_str).and_then(Time::parse_rfc3339).unwrap_or_default();
        LeaderElectionRecord {
            holder_identity: spec.get("holderIdentity").and_then(Value::as_str).unwrap_or("").to_string(),
            lease_duration_seconds: spec.get("leaseDurationSeconds").and_then(Value::as_i64).unwrap_or(0),
            acquire_time: time("acquireTime"),
            renew_time: time("renewTime"),
            leader_transitions: spec.get("leaseTransitions").and_then(Value::as_i64).unwrap_or(0),
        }
    }
}

/// `LeaderElectionConfig`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderElectionConfig {
    /// The Lease's namespace (`kube-system` for kube-controller-manager).
    pub lease_namespace: String,
    /// The Lease's name (`kube-controller-manager`).
    pub lease_name: String,
    /// This candidate's identity, e.g. `<hostname>_<uuid>`.
    pub identity: String,
    /// How long a lease stays valid without renewal: 15 s.
    pub lease_duration: Duration,
    /// How long a leader keeps retrying a renewal before it gives up: 10 s.
    pub renew_deadline: Duration,
    /// The interval between attempts: 2 s.
    pub retry_period: Duration,
    /// Whether a clean stop releases the lease (`ReleaseOnCancel`). kube-scheduler sets it
    /// (cmd/kube-scheduler/app/options/options.go, `makeLeaderElectionConfig`);
    /// kube-controller-manager does not (cmd/kube-controller-manager/app/controllermanager.go,
    /// `leaderElectAndRun`), so its standby waits for the lease to expire.
    pub release_on_cancel: bool,
}

impl LeaderElectionConfig {
    /// client-go's core defaults (15 s / 10 s / 2 s), with `ReleaseOnCancel` off: its zero value,
    /// and what kube-controller-manager runs (`leaderElectAndRun` does not set it). Set
    /// [`LeaderElectionConfig::release_on_cancel`] for a component that releases, as
    /// kube-scheduler does.
    pub fn new(lease_namespace: &str, lease_name: &str, identity: &str) -> LeaderElectionConfig {
        LeaderElectionConfig {
            lease_namespace: lease_namespace.to_string(),
            lease_name: lease_name.to_string(),
            identity: identity.to_string(),
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            release_on_cancel: false,
        }
    }
}

/// `JitterFactor` of the acquire loop.
pub const JITTER_FACTOR: f64 = 1.2;

/// kube-controller-manager's identity: `<hostname>_<uuid>`
/// (k/k cmd/kube-controller-manager/app/controllermanager.go).
pub fn controller_manager_identity(hostname: &str, rng: &mut Rng) -> String {
    format!("{hostname}_{}", rng.uuid_v4())
}

/// Where the elector is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElectorState {
    /// Trying to acquire (the `acquire` loop).
    Candidate,
    /// Holding the lease and renewing it (the `renew` loop).
    Leading,
    /// Done: it stopped leading, or was shut down.
    Stopped,
}

/// One API call an attempt made, for the world's record.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaseCall {
    /// `get`, `create` or `update`.
    pub verb: &'static str,
    /// The Lease's resourceVersion after the call, or the error.
    pub result: Result<u64, Status>,
}

/// What one attempt ended in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElectionOutcome {
    /// Acquired the lease (created it, took it over, or took a released one).
    BecameLeader,
    /// The leader renewed.
    Renewed,
    /// Another holder's lease is still valid on this candidate's clock.
    HeldByOther {
        /// The holder.
        holder: String,
        /// When this candidate may try to take over, if nothing changes meanwhile.
        expires_at: Time,
    },
    /// An API call failed (a 409 from a racing write is a lost round).
    Failed,
    /// The leader could not renew within the renew deadline and stopped leading.
    StoppedLeading,
    /// A clean stop.
    ShutDown {
        /// Whether the lease was released (`holderIdentity: ""`).
        released: bool,
    },
}

/// One elector step: what it did and what came of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ElectionStep {
    /// The API calls made, in order.
    pub calls: Vec<LeaseCall>,
    /// The result.
    pub outcome: ElectionOutcome,
    /// Event messages to record on the Lease (reason `LeaderElection`), e.g.
    /// `<identity> became leader`, `<identity> stopped leading`.
    pub events: Vec<String>,
}

impl ElectionStep {
    /// One plain-English sentence for the learner.
    pub fn describe(&self, identity: &str) -> String {
        let conflict = self.calls.iter().any(|c| matches!(&c.result, Err(s) if s.code() == 409));
        match &self.outcome {
            ElectionOutcome::BecameLeader => format!("{identity} acquired the lease and became leader."),
            ElectionOutcome::Renewed => format!("{identity} renewed its lease."),
            ElectionOutcome::HeldByOther { holder, expires_at } => format!(
                "{identity} found the lease held by {holder}; it may take over at {expires_at} if it sees no renewal before then."
            ),
            ElectionOutcome::Failed if conflict => {
                format!("{identity} lost a race for the lease: its write got 409 Conflict.")
            }
            ElectionOutcome::Failed => {
                let why = self.calls.iter().rev().find_map(|c| c.result.as_ref().err()).map(|s| s.message.as_str());
                format!("{identity} could not reach the lease ({}).", why.unwrap_or("unknown error"))
            }
            ElectionOutcome::StoppedLeading => {
                format!("{identity} could not renew its lease within the renew deadline and stopped leading.")
            }
            ElectionOutcome::ShutDown { released: true } => {
                format!("{identity} shut down and released the lease (holderIdentity \"\").")
            }
            ElectionOutcome::ShutDown { released: false } => format!("{identity} shut down."),
        }
    }
}

/// One candidate in a leader election.
#[derive(Clone, Debug)]
pub struct LeaderElector {
    config: LeaderElectionConfig,
    /// The record last seen or written, and when (on this elector's clock) it last changed.
    observed_record: LeaderElectionRecord,
    observed_time: Time,
    /// The record as last read by a GET (client-go's `observedRawRecord`); a GET that returns a
    /// different record resets `observed_time`.
    observed_raw: Option<LeaderElectionRecord>,
    /// The Lease object as last read or written (`LeaseLock.lease`): updates carry its
    /// resourceVersion.
    lease: Option<Value>,
    state: ElectorState,
    next_tick: Option<Time>,
    /// When the current renewal poll began (its deadline is this plus `renew_deadline`).
    renew_started: Option<Time>,
}

impl LeaderElector {
    /// A candidate that will make its first attempt at `now`.
    pub fn new(config: LeaderElectionConfig, now: Time) -> LeaderElector {
        LeaderElector {
            config,
            observed_record: LeaderElectionRecord::default(),
            observed_time: Time::default(),
            observed_raw: None,
            lease: None,
            state: ElectorState::Candidate,
            next_tick: Some(now),
            renew_started: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LeaderElectionConfig {
        &self.config
    }

    /// This candidate's identity.
    pub fn identity(&self) -> &str {
        &self.config.identity
    }

    /// Where the elector is.
    pub fn state(&self) -> ElectorState {
        self.state
    }

    /// Whether this candidate is leading: only then may its controllers act.
    pub fn is_leading(&self) -> bool {
        self.state == ElectorState::Leading
    }

    /// `IsLeader`: whether the last observed record names this candidate.
    pub fn is_leader(&self) -> bool {
        self.observed_record.holder_identity == self.config.identity
    }

    /// `GetLeader`: the holder in the last observed record.
    pub fn observed_leader(&self) -> &str {
        &self.observed_record.holder_identity
    }

    /// The last observed record and when this candidate saw it change.
    pub fn observed(&self) -> (&LeaderElectionRecord, Time) {
        (&self.observed_record, self.observed_time)
    }

    /// When the next attempt is due, unless stopped.
    pub fn next_tick_at(&self) -> Option<Time> {
        self.next_tick
    }

    /// `isLeaseValid`: the observed lease has not run out on this candidate's clock.
    /// While leading: when the current (or next) renewal round gives up if it has not renewed
    /// by then (`RenewDeadline` after the round's start).
    pub fn renew_deadline_at(&self) -> Option<Time> {
        if self.state != ElectorState::Leading {
            return None;
        }
        self.renew_started.or(self.next_tick).map(|t| t.after(self.config.renew_deadline))
    }

    /// The Lease's `namespace/name`.
    pub fn lease_key(&self) -> String {
        format!("{}/{}", self.config.lease_namespace, self.config.lease_name)
    }

    /// The resourceVersion of the Lease as this elector last read or wrote it (0: never).
    pub fn lease_resource_version(&self) -> u64 {
        self.lease.as_ref().map(rv_of).unwrap_or(0)
    }

    /// The process was suspended for `d` and its clock did not count it (Go measures these
    /// durations on the monotonic clock, which stands still while a VM is paused): everything the
    /// elector measures from moves `d` later, so that on its clock no time passed. A leader comes
    /// back believing it still leads; client-go does not guarantee a single acting leader
    /// (`tools/leaderelection/leaderelection.go`, package doc).
    pub fn suspended_for(&mut self, d: Duration) {
        self.observed_time = self.observed_time.after(d);
        self.next_tick = self.next_tick.map(|t| t.after(d));
        self.renew_started = self.renew_started.map(|t| t.after(d));
    }

    /// The process died: the elector stops at once and releases nothing (a crash, or a process
    /// that exits after losing its lease without reaching the API server).
    pub fn crash(&mut self) {
        self.state = ElectorState::Stopped;
        self.next_tick = None;
        self.renew_started = None;
    }

    fn is_lease_valid(&self, now: Time) -> bool {
        self.lease_expiry() > now
    }

    fn lease_expiry(&self) -> Time {
        let secs = u64::try_from(self.observed_record.lease_duration_seconds).unwrap_or(0);
        self.observed_time.after(Duration::from_secs(secs))
    }

    fn set_observed_record(&mut self, record: LeaderElectionRecord, now: Time) {
        self.observed_record = record;
        self.observed_time = now;
    }

    /// One attempt, when due (the acquire loop's or the renew loop's timer fired). `None` when
    /// nothing is due at `now`.
    pub fn tick(&mut self, client: &mut dyn LeaseClient, now: Time, rng: &mut Rng) -> Option<ElectionStep> {
        if self.next_tick.is_none_or(|t| t > now) {
            return None;
        }
        let step = match self.state {
            ElectorState::Stopped => return None,
            ElectorState::Candidate => {
                let (ok, calls) = self.try_acquire_or_renew(client, now);
                if ok {
                    self.state = ElectorState::Leading;
                    // The renew loop starts at once (wait.Until runs its function immediately).
                    self.next_tick = Some(now);
                    ElectionStep {
                        calls,
                        outcome: ElectionOutcome::BecameLeader,
                        events: vec![format!("{} became leader", self.config.identity)],
                    }
                } else {
                    // wait.JitterUntil(..., RetryPeriod, 1.2, sliding): 2 s + rand * 2.4 s.
                    let period = u64::try_from(self.config.retry_period.as_millis()).unwrap_or(u64::MAX);
                    let jitter = rng.below(((period as f64 * JITTER_FACTOR) as u64).max(1));
                    self.next_tick = Some(now.after(Duration::from_millis(period + jitter)));
                    let outcome = self.failure_outcome(&calls, now);
                    ElectionStep { calls, outcome, events: Vec::new() }
                }
            }
            ElectorState::Leading => {
                // A renewal round starts when its timer is due. A tick that runs later (the lab's
                // clock jump: time passed and the process ran nothing) counts the time it missed
                // against the renew deadline, as the leader's own timer would have.
                let due = self.next_tick.unwrap_or(now).min(now);
                let started = *self.renew_started.get_or_insert(due);
                let deadline = started.after(self.config.renew_deadline);
                if now >= deadline {
                    // PollUntilContextTimeout gave up: renew() returns and the leader stops.
                    return Some(self.stop_leading(client, now, ElectionOutcome::StoppedLeading));
                }
                let (ok, calls) = self.try_acquire_or_renew(client, now);
                if ok {
                    self.renew_started = None;
                    // wait.Until(..., RetryPeriod): no jitter between renewals.
                    self.next_tick = Some(now.after(self.config.retry_period));
                    ElectionStep { calls, outcome: ElectionOutcome::Renewed, events: Vec::new() }
                } else {
                    // The poll ticks every RetryPeriod from its start until the deadline.
                    self.next_tick = Some(now.after(self.config.retry_period).min(deadline));
                    let outcome = self.failure_outcome(&calls, now);
                    ElectionStep { calls, outcome, events: Vec::new() }
                }
            }
        };
        Some(step)
    }

    fn failure_outcome(&self, calls: &[LeaseCall], now: Time) -> ElectionOutcome {
        let failed_call = calls.iter().any(|c| c.result.is_err());
        if !failed_call && !self.is_leader() && self.is_lease_valid(now) {
            ElectionOutcome::HeldByOther {
                holder: self.observed_record.holder_identity.clone(),
                expires_at: self.lease_expiry(),
            }
        } else {
            ElectionOutcome::Failed
        }
    }

    /// A clean stop (the process shuts down): a leader with `release_on_cancel` releases the
    /// lease. The elector makes no further attempts.
    pub fn shut_down(&mut self, client: &mut dyn LeaseClient, now: Time) -> ElectionStep {
        if self.state == ElectorState::Leading {
            return self.stop_leading(client, now, ElectionOutcome::ShutDown { released: false });
        }
        self.state = ElectorState::Stopped;
        self.next_tick = None;
        ElectionStep { calls: Vec::new(), outcome: ElectionOutcome::ShutDown { released: false }, events: Vec::new() }
    }

    /// The end of `renew()`: release if configured, then `OnStoppedLeading`.
    fn stop_leading(&mut self, client: &mut dyn LeaseClient, now: Time, outcome: ElectionOutcome) -> ElectionStep {
        let mut calls = Vec::new();
        let mut released = false;
        if self.config.release_on_cancel {
            released = self.try_release(client, now, &mut calls);
        }
        self.state = ElectorState::Stopped;
        self.next_tick = None;
        self.renew_started = None;
        let outcome = match outcome {
            ElectionOutcome::ShutDown { .. } => ElectionOutcome::ShutDown { released },
            other => other,
        };
        ElectionStep { calls, outcome, events: vec![format!("{} stopped leading", self.config.identity)] }
    }

    /// `tryRelease`: re-read the lease; if this candidate still holds it (as last observed),
    /// write an empty holder with a 1-second duration, keeping the transitions. A conflict is
    /// retried at once. Returns whether a release was written.
    fn try_release(&mut self, client: &mut dyn LeaseClient, now: Time, calls: &mut Vec<LeaseCall>) -> bool {
        // Bounded, where client-go retries conflicts until the RenewDeadline context ends.
        for _ in 0..3 {
            let current = match self.lock_get(client, calls) {
                Ok(r) => r,
                Err(_) => return false,
            };
            if !self.is_leader() {
                return false;
            }
            let record = LeaderElectionRecord {
                holder_identity: String::new(),
                lease_duration_seconds: 1,
                acquire_time: now,
                renew_time: now,
                leader_transitions: current.leader_transitions,
            };
            match self.lock_update(client, &record, calls) {
                Ok(()) => {
                    self.set_observed_record(record, now);
                    return true;
                }
                Err(s) if s.code() == 409 => continue,
                Err(_) => return false,
            }
        }
        false
    }

    /// `tryAcquireOrRenew`, step for step (kubernetes-semantics.md §7).
    fn try_acquire_or_renew(&mut self, client: &mut dyn LeaseClient, now: Time) -> (bool, Vec<LeaseCall>) {
        let mut calls = Vec::new();
        let mut record = LeaderElectionRecord {
            holder_identity: self.config.identity.clone(),
            lease_duration_seconds: i64::try_from(self.config.lease_duration.as_secs()).unwrap_or(i64::MAX),
            acquire_time: now,
            renew_time: now,
            leader_transitions: 0,
        };

        // 1. Fast path: the leader updates optimistically with the record it last observed.
        if self.is_leader() && self.is_lease_valid(now) {
            record.acquire_time = self.observed_record.acquire_time;
            record.leader_transitions = self.observed_record.leader_transitions;
            if self.lock_update(client, &record, &mut calls).is_ok() {
                self.set_observed_record(record, now);
                return (true, calls);
            }
            // Falling back to the slow path.
        }

        // 2. Get or create the record.
        let old = match self.lock_get(client, &mut calls) {
            Ok(r) => r,
            Err(s) if s.reason == Reason::NotFound => {
                if self.lock_create(client, &record, &mut calls).is_err() {
                    return (false, calls);
                }
                self.set_observed_record(record, now);
                return (true, calls);
            }
            Err(_) => return (false, calls),
        };

        // 3. A record that differs from the one last read restarts the observation clock.
        if self.observed_raw.as_ref() != Some(&old) {
            self.set_observed_record(old.clone(), now);
            self.observed_raw = Some(old.clone());
        }
        if !old.holder_identity.is_empty() && self.is_lease_valid(now) && !self.is_leader() {
            return (false, calls);
        }

        // 4. Take over or renew.
        if self.is_leader() {
            record.acquire_time = old.acquire_time;
            record.leader_transitions = old.leader_transitions;
        } else {
            record.leader_transitions = old.leader_transitions + 1;
        }
        if self.lock_update(client, &record, &mut calls).is_err() {
            return (false, calls);
        }
        self.set_observed_record(record, now);
        (true, calls)
    }

    /// `LeaseLock.Get`: reads the Lease, remembers it for the next update.
    fn lock_get(
        &mut self,
        client: &mut dyn LeaseClient,
        calls: &mut Vec<LeaseCall>,
    ) -> Result<LeaderElectionRecord, Status> {
        let got = client.get_lease(&self.config.lease_namespace, &self.config.lease_name);
        calls.push(LeaseCall { verb: "get", result: got.as_ref().map(rv_of).map_err(Clone::clone) });
        let lease = got?;
        let record = LeaderElectionRecord::from_lease_spec(lease.get("spec").unwrap_or(&Value::Null));
        self.lease = Some(lease);
        Ok(record)
    }

    /// `LeaseLock.Create`.
    fn lock_create(
        &mut self,
        client: &mut dyn LeaseClient,
        record: &LeaderElectionRecord,
        calls: &mut Vec<LeaseCall>,
    ) -> Result<(), Status> {
        let lease = json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self.config.lease_name, "namespace": self.config.lease_namespace},
            "spec": record.to_lease_spec(),
        });
        let created = client.create_lease(lease);
        calls.push(LeaseCall { verb: "create", result: created.as_ref().map(rv_of).map_err(Clone::clone) });
        self.lease = Some(created?);
        Ok(())
    }

    /// `LeaseLock.Update`: writes the record into the Lease last read or written, so a write by
    /// anyone else since then makes the API server answer 409.
    fn lock_update(
        &mut self,
        client: &mut dyn LeaseClient,
        record: &LeaderElectionRecord,
        calls: &mut Vec<LeaseCall>,
    ) -> Result<(), Status> {
        let Some(mut lease) = self.lease.clone() else {
            let err = Status::new(Reason::InternalError, "lease not initialized, call get or create first");
            calls.push(LeaseCall { verb: "update", result: Err(err.clone()) });
            return Err(err);
        };
        if let Some(obj) = lease.as_object_mut() {
            obj.insert("spec".to_string(), record.to_lease_spec());
        }
        let updated = client.update_lease(lease);
        calls.push(LeaseCall { verb: "update", result: updated.as_ref().map(rv_of).map_err(Clone::clone) });
        self.lease = Some(updated?);
        Ok(())
    }
}

fn rv_of(v: &Value) -> u64 {
    use crate::engine::object::ObjectExt;
    v.resource_version()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips_through_the_lease_spec() {
        let r = LeaderElectionRecord {
            holder_identity: "A".into(),
            lease_duration_seconds: 15,
            acquire_time: Time::START,
            renew_time: Time::START.after(Duration::from_millis(2_345)),
            leader_transitions: 3,
        };
        let spec = r.to_lease_spec();
        assert_eq!(spec["renewTime"], "2026-01-01T00:00:02.345000Z");
        assert_eq!(
            spec.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()),
            Some(vec![
                "holderIdentity".to_string(),
                "leaseDurationSeconds".into(),
                "acquireTime".into(),
                "renewTime".into(),
                "leaseTransitions".into()
            ])
        );
        assert_eq!(LeaderElectionRecord::from_lease_spec(&spec), r);
        assert_eq!(LeaderElectionRecord::from_lease_spec(&Value::Null), LeaderElectionRecord::default());
    }

    #[test]
    fn identity_is_host_underscore_uuid() {
        let id = controller_manager_identity("cm-0", &mut Rng::new(5));
        assert!(id.starts_with("cm-0_"));
        assert_eq!(id.len(), "cm-0_".len() + 36);
    }
}
