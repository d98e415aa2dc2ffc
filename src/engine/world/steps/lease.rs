//! The lease step: one tick of a controller-manager replica's leader elector, and the quiet
//! Lease events its renewal delivers to the garbage collector's informers at once.
//!
//! The garbage collector watches Leases like every deletable kind, but a leader's renewal (which
//! changes no owner reference) reaches its cache inside the renewal step instead of as two steps
//! of its own every 2 s (see `absorb_quiet_lease_events`).

use std::time::Duration;

use serde_json::Value;

use crate::engine::apiserver::EventType;
use crate::engine::client::{ElectionOutcome, LeaderElector};
use crate::engine::controllers::{Caches, Ctx, Enqueue};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::world::api::WorldApi;
use crate::engine::world::informer::{self, to_resource_event, WorldLw};
use crate::engine::world::process::Process;
use crate::engine::world::record::{ActionKind, Actor, ObjectRef, StepRecord, Verb};
use crate::engine::world::topology::controller_manager_elector;
use crate::engine::world::{State, World};

impl World {
    pub(super) fn lease_tick(&mut self, pi: usize) -> StepRecord {
        let now = self.state.now;
        let State { api, processes, event_seq, rng, resync_rng, .. } = &mut self.state;
        let p = &mut processes[pi];
        let failure = p.failure(now);
        let mut calls = Vec::new();
        let mut armed = false;
        let Some(elector) = p.elector.as_mut() else {
            return self.record(Actor::Lab, ActionKind::LeaseTick, Vec::new(), Vec::new(), String::new());
        };
        let step = {
            let mut wapi = WorldApi { server: api, calls: &mut calls, failure, conflict_armed: &mut armed };
            elector.tick(&mut wapi, now, rng)
        };
        let identity = elector.identity().to_string();
        let leading = elector.is_leading();
        let lease_ref = ObjectRef {
            kind: "Lease".into(),
            key: elector.lease_key(),
            resource_version: elector.lease_resource_version(),
        };
        let outcome = step.map(|s| s.outcome);
        let renewed = outcome == Some(ElectionOutcome::Renewed);
        let sentence = match outcome {
            Some(ElectionOutcome::BecameLeader) => {
                let lease =
                    api.get(Kind::by_kind("Lease").expect("kind"), Some("kube-system"), "kube-controller-manager");
                if let Ok(lease) = lease {
                    let empty = Caches::default();
                    let mut wapi = WorldApi { server: api, calls: &mut calls, failure, conflict_armed: &mut armed };
                    let mut ctx = Ctx { now, cache: &empty, api: &mut wapi, event_seq };
                    ctx.event(
                        "kube-controller-manager",
                        &lease,
                        "Normal",
                        "LeaderElection",
                        &format!("{identity} became leader"),
                    );
                }
                p.start(now, informer::controller_manager_resync_period(resync_rng));
                format!("{} acquired the Lease kube-system/kube-controller-manager as {identity} and starts its controllers.", p.name)
            }
            Some(ElectionOutcome::Renewed) => {
                format!("{} renewed its Lease (renewTime {}).", p.name, now.rfc3339_micro())
            }
            Some(ElectionOutcome::StoppedLeading) => {
                let released = calls.iter().any(|c| c.verb == Verb::Update && c.code == 200);
                p.stop(api);
                let new_identity = format!("{}_{}", p.host, rng.uuid_v4());
                p.elector = Some(controller_manager_elector(new_identity, now.after(Duration::from_secs(2))));
                let released = if released { " (it released the Lease on its way out)" } else { "" };
                format!(
                    "{} did not renew its Lease within the 10s renew deadline and stopped leading{released}; the process exits and restarts as a candidate with empty caches.",
                    p.name
                )
            }
            _ if leading => match p.elector.as_ref().map(LeaderElector::observed_leader) {
                // Someone else took the Lease over (the leader was frozen): client-go's leader
                // still leads until its renew deadline, with its controllers running.
                Some(holder) if !holder.is_empty() && holder != identity => format!(
                    "{} could not renew its Lease: {holder} holds it now. It still leads until its renew deadline, and keeps trying.",
                    p.name
                ),
                _ => format!("{} could not renew its Lease; it keeps trying until the renew deadline.", p.name),
            },
            Some(ElectionOutcome::HeldByOther { holder, .. }) => {
                format!("{} tried to acquire the Lease, but {holder} holds it.", p.name)
            }
            _ if failure.is_some() => format!("{} could not reach the API server to try the Lease.", p.name),
            _ => {
                let holder = api
                    .get(Kind::by_kind("Lease").expect("kind"), Some("kube-system"), "kube-controller-manager")
                    .ok()
                    .and_then(|l| l.pointer("/spec/holderIdentity").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_default();
                format!("{} tried to acquire the Lease, but {holder} holds it.", p.name)
            }
        };
        if renewed {
            self.absorb_quiet_lease_events();
        }
        let name = self.state.processes[pi].name.clone();
        self.record(Actor::LeaderElector { process: name }, ActionKind::LeaseTick, vec![lease_ref], calls, sentence)
    }

    /// The garbage collector monitors every deletable resource, Leases included (k/k
    /// `garbagecollector/graph_builder.go` starts a monitor per resource; only Events are ignored
    /// by default), so each leader renewal, every 2 s, is a watch event for it. Its graph builder
    /// acts on an update only when owner references or the deletion state change
    /// (`processGraphChanges`: `referencesDiffs`, `beingDeleted`, `deletionStartsWithFinalizer`);
    /// a renewal changes neither, so upstream does nothing visible with it. To keep the timeline
    /// readable the lab delivers such events inside the renewal step: each informer of Leases
    /// takes the head of its stream while it is a MODIFIED event that leaves ownerReferences,
    /// finalizers and deletionTimestamp as its cache had them, updates its cache and runs the
    /// handlers (which queue nothing for it). Any other Lease event is delivered as its own step.
    fn absorb_quiet_lease_events(&mut self) {
        let now = self.state.now;
        let State { api, processes, queue_seq, rng, .. } = &mut self.state;
        for p in processes.iter_mut().filter(|p| p.active()) {
            let Process { caches, slots, .. } = p;
            for ii in 0..caches.informers().len() {
                let inf = &caches.informers()[ii];
                let kind = inf.kind();
                let Some(id) = inf.watch_id().filter(|_| kind.kind == "Lease") else { continue };
                loop {
                    let inf = &caches.informers()[ii];
                    // Only when no handler of this informer has calls waiting: the absorbed call
                    // then runs in its turn.
                    let idle = inf.handlers_with_pending().is_empty();
                    let quiet = idle
                        && api.pending_events(id).first().is_some_and(|e| {
                            e.event_type == EventType::Modified
                                && caches.get(kind, &e.object.key()).is_some_and(|old| {
                                    ["/metadata/ownerReferences", "/metadata/finalizers", "/metadata/deletionTimestamp"]
                                        .iter()
                                        .all(|f| old.pointer(f) == e.object.pointer(f))
                                })
                        });
                    if !quiet {
                        break;
                    }
                    let inf = &mut caches.informers_mut()[ii];
                    let mut calls = Vec::new();
                    let mut lw = WorldLw { server: api, failure: None, calls: &mut calls };
                    if inf.deliver_next(&mut lw, now, rng).is_none() {
                        break;
                    }
                    for slot in slots.iter_mut() {
                        let Some(&(_, h)) = slot.handlers.iter().find(|(i, _)| *i == ii) else { continue };
                        let Some(call) = caches.informers_mut()[ii].pop_notification(h) else { continue };
                        let n = to_resource_event(&call);
                        for k in slot.controller.handle(kind, &n, caches, now) {
                            // A lease renewal is fresh input for the loop detector (depth 0).
                            match k {
                                Enqueue::Now(k) => {
                                    slot.note_trigger(&k, 0);
                                    slot.add(k, queue_seq);
                                }
                                Enqueue::After(k, d) => {
                                    if d.is_zero() {
                                        slot.note_trigger(&k, 0);
                                    }
                                    slot.add_after(k, d, now, queue_seq);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
