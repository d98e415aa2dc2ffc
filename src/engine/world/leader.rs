//! Leader election through a Lease, as client-go's `leaderelection` does it
//! (kubernetes-semantics.md §7, TV-39 to TV-41).
//!
//! A candidate calls `tryAcquireOrRenew` every `RetryPeriod` plus jitter (2 to 4.4 s). It takes
//! the Lease only if nobody holds it, or if it has seen *no change* to the record for a whole
//! `leaseDurationSeconds` measured on its own clock. The leader renews every `RetryPeriod`
//! (optimistic update of the Lease it last wrote, falling back to GET + update); if a renewal
//! round does not succeed within `RenewDeadline`, it stops leading by itself. On a clean
//! shutdown it releases the Lease (`ReleaseOnCancel`: empty holder, duration 1 s).

use std::time::Duration;

use serde_json::{json, Value};

use crate::engine::controllers::Api;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

/// `LeaseDuration`, `RenewDeadline`, `RetryPeriod` (client-go defaults 15 s, 10 s, 2 s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaderElectionConfig {
    /// How long a follower waits without seeing a change before taking over.
    pub lease_duration: Duration,
    /// How long the leader keeps trying to renew before it gives up.
    pub renew_deadline: Duration,
    /// Time between attempts.
    pub retry_period: Duration,
}

impl Default for LeaderElectionConfig {
    fn default() -> Self {
        LeaderElectionConfig {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }
}

/// What one tick did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tick {
    /// Became leader.
    Acquired,
    /// Renewed the Lease.
    Renewed,
    /// A renewal attempt failed; still leading until the renew deadline.
    RenewFailed,
    /// Gave up leading: the renew deadline passed.
    Lost,
    /// Not leader, could not acquire (someone else holds a live Lease, or the call failed).
    Waiting,
}

/// One candidate's elector.
#[derive(Clone, Debug)]
pub struct LeaderElector {
    /// `kube-system`.
    pub namespace: String,
    /// The Lease's name, e.g. `kube-controller-manager`.
    pub name: String,
    /// `<hostname>_<uuid>`.
    pub identity: String,
    /// The timings.
    pub config: LeaderElectionConfig,
    /// Whether this candidate believes it leads.
    pub leading: bool,
    /// When it next calls `tryAcquireOrRenew`.
    pub next_tick: Time,
    /// The last Lease spec it saw, and when (on its own clock) it saw it change.
    observed: Option<Value>,
    observed_time: Time,
    /// The Lease object it last read or wrote (for the optimistic renewal).
    lease: Option<Value>,
    /// When the current renewal round started (the leader must succeed before
    /// `renew_round_start + renew_deadline`).
    renew_round_start: Time,
}

fn lease_kind() -> &'static Kind {
    Kind::by_kind("Lease").expect("built-in kind")
}

impl LeaderElector {
    /// A candidate that first tries at `now`.
    pub fn new(namespace: &str, name: &str, identity: String, now: Time) -> LeaderElector {
        LeaderElector {
            namespace: namespace.into(),
            name: name.into(),
            identity,
            config: LeaderElectionConfig::default(),
            leading: false,
            next_tick: now,
            observed: None,
            observed_time: now,
            lease: None,
            renew_round_start: now,
        }
    }

    fn record(&self, now: Time, acquire: &str, transitions: i64, duration_secs: u64, holder: &str) -> Value {
        json!({"holderIdentity": holder, "leaseDurationSeconds": duration_secs, "acquireTime": acquire,
               "renewTime": now.rfc3339_micro(), "leaseTransitions": transitions})
    }

    fn observe(&mut self, lease: &Value, now: Time) {
        let spec = lease.get("spec").cloned().unwrap_or(json!({}));
        if self.observed.as_ref() != Some(&spec) {
            self.observed = Some(spec);
            self.observed_time = now;
        }
        self.lease = Some(lease.clone());
    }

    /// `tryAcquireOrRenew`: true if this candidate holds the Lease afterwards.
    fn try_acquire_or_renew(&mut self, now: Time, api: &mut dyn Api) -> bool {
        let secs = self.config.lease_duration.as_secs();
        // Fast path: the leader updates the Lease it last wrote, keeping acquireTime and transitions.
        if self.leading && self.observed_time.after(self.config.lease_duration) > now {
            if let (Some(lease), Some(obs)) = (self.lease.clone(), self.observed.clone()) {
                let mut l = lease;
                let acquire = obs["acquireTime"].as_str().unwrap_or("").to_string();
                let transitions = obs["leaseTransitions"].as_i64().unwrap_or(0);
                l["spec"] = self.record(now, &acquire, transitions, secs, &self.identity);
                if let Ok(updated) = api.update(l) {
                    self.observe(&updated, now);
                    return true;
                }
            }
        }
        let current = match api.get(lease_kind(), Some(&self.namespace), &self.name) {
            Ok(l) => l,
            Err(e) if e.code() == 404 => {
                let now_s = now.rfc3339_micro();
                let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": self.name, "namespace": self.namespace},
                    "spec": self.record(now, &now_s, 0, secs, &self.identity)});
                return match api.create(lease) {
                    Ok(created) => {
                        self.observe(&created, now);
                        true
                    }
                    Err(_) => false,
                };
            }
            Err(_) => return false,
        };
        self.observe(&current, now);
        let spec = current.get("spec").cloned().unwrap_or(json!({}));
        let holder = spec["holderIdentity"].as_str().unwrap_or("");
        let duration = spec["leaseDurationSeconds"].as_u64().unwrap_or(0);
        if !holder.is_empty()
            && holder != self.identity
            && self.observed_time.after(Duration::from_secs(duration)) > now
        {
            return false;
        }
        let transitions = spec["leaseTransitions"].as_i64().unwrap_or(0);
        let mut l = current.clone();
        l["spec"] = if holder == self.identity {
            self.record(now, spec["acquireTime"].as_str().unwrap_or(""), transitions, secs, &self.identity)
        } else {
            self.record(now, &now.rfc3339_micro(), transitions + 1, secs, &self.identity)
        };
        match api.update(l) {
            Ok(updated) => {
                self.observe(&updated, now);
                true
            }
            Err(_) => false,
        }
    }

    /// One tick at `now` (which is `next_tick` or later). `jitter` is the candidate's random wait
    /// on top of `RetryPeriod` (0 to 1.2 × RetryPeriod).
    pub fn tick(&mut self, now: Time, api: &mut dyn Api, jitter: Duration) -> Tick {
        let retry = self.config.retry_period;
        if self.leading {
            let deadline = self.renew_round_start.after(self.config.renew_deadline);
            if now >= deadline {
                self.leading = false;
                self.next_tick = now.after(retry + jitter);
                return Tick::Lost;
            }
            if self.try_acquire_or_renew(now, api) {
                self.renew_round_start = now.after(retry);
                self.next_tick = now.after(retry);
                Tick::Renewed
            } else {
                self.next_tick = now.after(retry).min(deadline);
                Tick::RenewFailed
            }
        } else if self.try_acquire_or_renew(now, api) {
            self.leading = true;
            self.renew_round_start = now.after(retry);
            self.next_tick = now.after(retry);
            Tick::Acquired
        } else {
            self.next_tick = now.after(retry + jitter);
            Tick::Waiting
        }
    }

    /// `ReleaseOnCancel`: on a clean shutdown the leader empties the holder (duration 1 s,
    /// acquire and renew times now, transitions unchanged). Returns whether it wrote.
    pub fn release(&mut self, now: Time, api: &mut dyn Api) -> bool {
        if !self.leading {
            return false;
        }
        self.leading = false;
        let Some(mut l) = self.lease.clone() else { return false };
        let transitions = l.pointer("/spec/leaseTransitions").and_then(Value::as_i64).unwrap_or(0);
        let now_s = now.rfc3339_micro();
        l["spec"] = self.record(now, &now_s, transitions, 1, "");
        api.update(l).is_ok()
    }

    /// When a leader that has not renewed by then stops leading (`renewDeadline` after the
    /// start of the current renewal round).
    pub fn renew_deadline_at(&self) -> Time {
        self.renew_round_start.after(self.config.renew_deadline)
    }

    /// The Lease's key, `kube-system/<name>`.
    pub fn lease_key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// The resourceVersion of the Lease as last seen.
    pub fn lease_resource_version(&self) -> u64 {
        self.lease.as_ref().map(ObjectExt::resource_version).unwrap_or(0)
    }
}
