//! The steps of one controller's loop, as client-go's machinery runs it: a handler call (the
//! keys it queues), a free worker's `Get` of a waiting key (`processNextWorkItem`), that
//! worker's reconcile and `Done` (with `Forget`, `AddAfter` or `AddRateLimited`), and a delayed
//! key coming due.
//!
//! A reconcile is two steps, as a client-go worker runs it (`processNextWorkItem`):
//! [`ActionKind::TakeKey`], a free worker's `Get` (the key moves from the queue to the processing
//! set), then [`ActionKind::Reconcile`], that worker's reconcile, which ends with `Done` (and
//! `Forget`, `AddAfter` or `AddRateLimited`). Each controller has as many workers as
//! kube-controller-manager gives it ([`concurrent_syncs`](crate::engine::world::concurrent_syncs)); a key is never held by two. Between
//! the two steps anything else may run: a handler that adds the held key only marks it dirty, and
//! `Done` queues it again, once (client-go `util/workqueue/queue.go`, `Done`). In `step` order a
//! take is followed at once by its reconcile; [`World::run`] can interleave. Keys are taken oldest
//! first across controllers, as if every worker ran at once: a burst of events for one key
//! collapses while other controllers work through older keys.

use crate::engine::controllers::{Ctx, Enqueue, Outcome};
use crate::engine::object::ObjectExt;
use crate::engine::world::api::{Failure, WorldApi};
use crate::engine::world::cloud_api::CloudApi;
use crate::engine::world::history::count_changes;
use crate::engine::world::hotloop::{read_target, Alarm, SAME_FAILURE};
use crate::engine::world::informer::to_resource_event;
use crate::engine::world::narrate::fmt_duration;
use crate::engine::world::process::Process;
use crate::engine::world::record::{ActionKind, Actor, ObjectRef, QueueWork, StepRecord, Verb};
use crate::engine::world::topology::service_account;
use crate::engine::world::{State, World};

impl World {
    /// One handler call: the oldest call queued for one controller's handler on one informer.
    pub(super) fn handler(&mut self, pi: usize, si: usize, hi: usize) -> StepRecord {
        let now = self.state.now;
        let State { processes, queue_seq: seq, loops, .. } = &mut self.state;
        let p = &mut processes[pi];
        let Process { caches, slots, name, .. } = p;
        let slot = &mut slots[si];
        let actor = Actor::Controller { process: name.clone(), controller: slot.controller.name().to_string() };
        let Some(&(ii, h)) = slot.handlers.get(hi) else {
            return self.record(actor, ActionKind::RunHandler, Vec::new(), Vec::new(), String::new());
        };
        let Some(call) = caches.informers_mut().get_mut(ii).and_then(|i| i.pop_notification(h)) else {
            return self.record(actor, ActionKind::RunHandler, Vec::new(), Vec::new(), String::new());
        };
        let kind = caches.informers()[ii].kind();
        let n = to_resource_event(&call);
        let keys = slot.controller.handle(kind, &n, caches, now);
        // The loop detector: the keys queued now answer the write behind this event.
        let depth = loops.depth_of(n.object().resource_version());
        let mut added = Vec::new();
        let mut work = QueueWork { queue: slot.queue().name().to_string(), ..QueueWork::default() };
        for k in keys {
            match k {
                Enqueue::Now(k) => {
                    slot.add(k.clone(), seq);
                    slot.note_trigger(&k, depth);
                    added.push(k.clone());
                    work.added.push(k);
                }
                Enqueue::After(k, d) => {
                    slot.add_after(k.clone(), d, now, seq);
                    if d.is_zero() {
                        slot.note_trigger(&k, depth);
                    }
                    slot.check_keys.remove(&k);
                    added.push(format!("{k} (in {})", fmt_duration(d)));
                    work.delayed.push((k, d));
                }
            }
        }
        let obj = n.object();
        let what = if added.is_empty() { "queued nothing".to_string() } else { format!("queued {}", added.join(", ")) };
        let sentence = format!(
            "The {} handler ran {} for {} {} and {what}.",
            slot.controller.name(),
            n.verb(),
            kind.kind,
            obj.key()
        );
        let objects =
            vec![ObjectRef { kind: kind.kind.into(), key: obj.key(), resource_version: obj.resource_version() }];
        let mut r = self.record(actor, ActionKind::RunHandler, objects, Vec::new(), sentence);
        r.work = Some(work);
        r
    }

    /// Step A of a reconcile: a free worker calls the work queue's `Get` (client-go's
    /// `processNextWorkItem`). The key leaves the queue and joins the processing set; until the
    /// reconcile of step B calls `Done`, adding it again only marks it dirty.
    pub(super) fn take(&mut self, pi: usize, si: usize) -> StepRecord {
        let State { processes, queue_seq, .. } = &mut self.state;
        let p = &mut processes[pi];
        let slot = &mut p.slots[si];
        let cname = slot.controller.name();
        let actor = Actor::Controller { process: p.name.clone(), controller: cname.to_string() };
        let Some(key) = slot.take(queue_seq) else {
            return self.record(actor, ActionKind::TakeKey, Vec::new(), Vec::new(), String::new());
        };
        let busy = slot.held().len();
        let workers = slot.workers;
        let work = QueueWork { queue: slot.queue().name().to_string(), key: Some(key.clone()), ..QueueWork::default() };
        let sentence = if workers == 1 {
            format!("The {cname} worker took {key} from its work queue (Get): the key is processing until its reconcile calls Done.")
        } else {
            format!("A {cname} worker took {key} from its work queue (Get): the key is processing until its reconcile calls Done ({busy} of {workers} workers busy).")
        };
        let mut r = self.record(actor, ActionKind::TakeKey, Vec::new(), Vec::new(), sentence);
        r.work = Some(work);
        r
    }

    /// Step B: the worker holding `held[wi]` reconciles its key, then calls `Done`, and `Forget`,
    /// `AddAfter` or `AddRateLimited` as the outcome says.
    pub(super) fn reconcile(&mut self, pi: usize, si: usize, wi: usize) -> StepRecord {
        let now = self.state.now;
        let State { api, processes, event_seq, cloud, queue_seq, changes, last_change_rv, revoked, loops, .. } =
            &mut self.state;
        let p = &mut processes[pi];
        let failure = p.failure(now);
        let Process { caches, slots, name, conflict_armed, .. } = p;
        let slot = &mut slots[si];
        let cname = slot.controller.name();
        // A controller whose RBAC permissions are revoked gets 403 on every call it makes.
        let failure = failure
            .or_else(|| revoked.contains(cname).then(|| Failure::Forbidden(service_account(cname).unwrap_or(cname))));
        let actor = Actor::Controller { process: name.clone(), controller: cname.to_string() };
        let Some(key) = slot.held_key(wi).map(str::to_string) else {
            return self.record(actor, ActionKind::Reconcile, Vec::new(), Vec::new(), String::new());
        };
        let mut calls = Vec::new();
        let rv_before = api.resource_version();
        // The loop detector: this reconcile's writes are one deeper than what queued its key.
        let depth = slot.take_depth(&key) + 1;
        let outcome = {
            let mut wapi = WorldApi { server: api, calls: &mut calls, failure, conflict_armed };
            let mut capi = CloudApi { inner: &mut wapi, cloud, now };
            let mut ctx = Ctx { now, cache: caches, api: &mut capi, event_seq };
            slot.controller.reconcile(&key, &mut ctx)
        };
        let who = format!("{cname} ({name})");
        loops.wrote(depth, &calls, rv_before, &who, &key, |t| read_target(api, t));
        let failed = match &outcome {
            Outcome::Err(e) => Some(e.as_str()),
            _ => None,
        };
        let in_a_row = slot.note_failure(&key, failed);
        if let Some(message) = failed.filter(|_| in_a_row >= SAME_FAILURE) {
            loops.alarm = Some(Alarm::Failure {
                actor: who.clone(),
                key: key.clone(),
                message: message.to_string(),
                count: in_a_row,
            });
        }
        let mut work =
            QueueWork { queue: slot.queue().name().to_string(), key: Some(key.clone()), ..QueueWork::default() };
        let changes_after = *changes + count_changes(&calls, *last_change_rv).0;
        slot.quiet_keys.remove(&key);
        // `Done` first (client-go's worker defers it; nothing in between touches the queue): a key
        // added again while processing goes back to the queue now, exactly once.
        if slot.done(wi, queue_seq) {
            work.requeued_dirty = true;
            work.added.push(key.clone());
        }
        let mut queued_more = Vec::new();
        for k in slot.controller.take_enqueues() {
            match k {
                Enqueue::Now(k) => {
                    slot.add(k.clone(), queue_seq);
                    slot.note_trigger(&k, depth);
                    queued_more.push(k.clone());
                    work.added.push(k);
                }
                Enqueue::After(k, d) => {
                    slot.add_after(k.clone(), d, now, queue_seq);
                    if d.is_zero() {
                        slot.note_trigger(&k, depth);
                    }
                    queued_more.push(format!("{k} (in {})", fmt_duration(d)));
                    work.delayed.push((k, d));
                }
            }
        }
        let after = match &outcome {
            Outcome::Done => {
                slot.forget(&key);
                String::new()
            }
            Outcome::RequeueAfter(d) => {
                slot.forget(&key);
                slot.add_after(key.clone(), *d, now, queue_seq);
                slot.check_keys.remove(&key);
                work.delayed.push((key.clone(), *d));
                format!(" It looks again in {}.", fmt_duration(*d))
            }
            Outcome::PollAfter(d) => {
                slot.forget(&key);
                slot.add_after(key.clone(), *d, now, queue_seq);
                slot.check_keys.remove(&key);
                work.delayed.push((key.clone(), *d));
                slot.quiet_keys.insert(key.clone(), changes_after);
                format!(" It looks again in {}.", fmt_duration(*d))
            }
            Outcome::CheckAfter(d) => {
                slot.forget(&key);
                let before = slot.queue().ready_at(&key);
                slot.add_after(key.clone(), *d, now, queue_seq);
                work.delayed.push((key.clone(), *d));
                if before.is_none_or(|t| t > now.after(*d)) {
                    slot.check_keys.insert(key.clone());
                }
                format!(" It checks the progress deadline again in {}.", fmt_duration(*d))
            }
            // `handleErr`: retry with back-off while the retry budget lasts, then drop the key.
            Outcome::Err(e) => match slot.controller.max_retries() {
                Some(max) if slot.queue().num_requeues(&key) >= max => {
                    slot.forget(&key);
                    slot.check_keys.remove(&key);
                    format!(" It failed ({e}) after {max} retries, so it drops {key} out of the queue (Forget): nothing retries it until an event adds it again.")
                }
                _ => {
                    let d = slot.add_rate_limited(key.clone(), now, queue_seq);
                    slot.check_keys.remove(&key);
                    work.delayed.push((key.clone(), d));
                    format!(" It failed ({e}) and will retry in {} (back-off).", fmt_duration(d))
                }
            },
            Outcome::ErrForget(e) => {
                slot.forget(&key);
                slot.check_keys.remove(&key);
                format!(" It failed ({e}) and does not retry: the namespace is being terminated, so it forgets {key}.")
            }
        };
        let writes: Vec<String> =
            calls.iter().filter(|c| c.verb != Verb::Get && !c.target.is_event()).map(|c| c.to_string()).collect();
        let did = if writes.is_empty() { "found nothing to change".to_string() } else { writes.join("; ") };
        // While two replicas both believe they lead (a leader thawed after its Lease was taken
        // over), say whose controller this is.
        let leaders = self.state.processes.iter().filter(|p| p.leading()).count();
        let who = if leaders > 1 { format!("{cname} of {}", self.state.processes[pi].name) } else { cname.to_string() };
        let mut sentence = format!("{who} reconciled {key}: {did}.{after}");
        if !queued_more.is_empty() {
            sentence.push_str(&format!(" It queued {}.", queued_more.join(", ")));
        }
        if work.requeued_dirty {
            sentence.push_str(&format!(
                " {key} was added again while it was processing (dirty), so Done put it back in the queue, once."
            ));
        }
        let mut objects: Vec<ObjectRef> = Vec::new();
        for c in &calls {
            if let Some((k, key)) = c.target.kind_and_key() {
                if k != "Event" {
                    objects.push(ObjectRef { kind: k.into(), key, resource_version: c.resource_version });
                }
            }
        }
        let mut r = self.record(actor, ActionKind::Reconcile, objects, calls, sentence);
        r.work = Some(work);
        r
    }

    pub(super) fn queue_timer(&mut self, pi: usize, si: usize) -> StepRecord {
        let now = self.state.now;
        let p = &mut self.state.processes[pi];
        let slot = &mut p.slots[si];
        let actor = Actor::Controller { process: p.name.clone(), controller: slot.controller.name().to_string() };
        let keys = slot.fire_due(now, &mut self.state.queue_seq);
        let sentence = format!(
            "A delayed key of {} is due: {} is back in its work queue.",
            slot.controller.name(),
            keys.join(", ")
        );
        let work = QueueWork { queue: slot.queue().name().to_string(), added: keys, ..QueueWork::default() };
        let mut r = self.record(actor, ActionKind::QueueTimer, Vec::new(), Vec::new(), sentence);
        r.work = Some(work);
        r
    }
}
