//! What can happen next and in which order: the pending actions ([`ActionRef`]) of every process,
//! the order [`World::step`] takes them in, what counts as periodic work for
//! [`World::run_until_idle`], and the description of each for [`World::pending`].
//!
//! # An action, stage by stage
//! One noun names one thing a process can do next (a list, a delivery, a handler call, a take, a
//! reconcile, a timer, a lease tick), qualified by the stage it is at:
//! - [`ActionRef`] (here): the World's own handle of a pending action, indices into its
//!   processes, informers, controller slots and workers, valid until the next step. [`Order`]
//!   sorts them; `World::perform` (`steps/mod.rs`) runs one.
//! - [`PendingAction`]: the same action described for the console and the page
//!   ([`World::pending`]): a listing id, its time, its actor, its [`ActionKind`] and a sentence.
//! - [`StepRecord`](super::StepRecord): what a performed action did; its `action` is the same
//!   [`ActionKind`].
//!
//! [`ActionKind`] names the kind at every stage, and also the kinds of step no process schedules
//! (a user's API call, a fault, a clock move). What the World logs to replay a run is not an
//! action but an [`Input`](super::input::Input) (`input.rs`): the cause of one step, either a
//! choice among the pending actions (`Step`: the first; `Run(id)`: the one listed under `id`) or
//! something from outside (a user call, a fault, a clock move).
//!
//! [`World::step`] performs exactly one action and returns its [`StepRecord`](super::StepRecord). The possible
//! actions are listed, in the order `step` would take them, by [`World::pending`]: first what can
//! happen now (informer lists, then watch-event deliveries and ends of watch streams, then handler
//! runs, then reconciles of keys that workers hold, then takes of waiting keys, then due timers),
//! then timers in deadline order (back-off requeues, `AddAfter`s such as kubelet transitions and
//! grace periods, relists and re-watches after a back-off, informer resyncs, lease ticks). The
//! exact rule, with its exceptions (an expired leader, overdue and caught-up timers), is
//! [`Order`]'s. Taking a future action moves the clock to its time. Only the oldest undelivered
//! event of each watch is offered, so a stream is always delivered in order, whatever
//! [`World::run`] picks.
//!
//! "Periodic" work, where [`World::run_until_idle`] stops: lease ticks once someone leads, the
//! retries of a partitioned process, deadline checks ([`Outcome::CheckAfter`](crate::engine::controllers::Outcome::CheckAfter): the Deployment
//! progress deadline, image pull retries while the image fails), and polls
//! ([`Outcome::PollAfter`](crate::engine::controllers::Outcome::PollAfter): the namespace controller waiting for content held by finalizers)
//! while nothing has changed in the cluster since the poll was scheduled. Kubernetes polls a
//! stuck namespace for ever too; the lab calls that idle, not a hot loop. Whether remaining work
//! is a hot loop is the loop detector's call (`hotloop.rs`), never a step count's; only past
//! [`World::settle_bound`] does a run until idle name the actor and key that recur most (lease
//! ticks left out).

use std::time::Duration;

use super::record::{ActionKind, Actor, PendingAction};
use super::World;
use crate::engine::client::informer::ReflectorState;
use crate::engine::client::LeaderElector;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

/// The virtual time one step of work stands for when the world decides whether a timer is due.
///
/// The clock does not move while controllers work: steps at one instant all carry its time, so
/// records and timestamps stay round. But in a real cluster every API round trip, watch delivery
/// and handler call takes wall time, so a timer (a reflector's back-off before it watches or
/// lists again, a work queue's `AddAfter`, a kubelet's grace period, a lease tick) always comes,
/// however busy the controllers are. Without this, immediate work that feeds itself would starve
/// every timer for ever: two controllers undoing each other's writes at one frozen instant would
/// never reach the reflector re-watch that ends their loop within a second in a real cluster. So
/// after `n` steps at the current instant, timers due within `n` × 1 ms are due now: they run
/// ahead of the remaining immediate work and move the clock to their own time (which starts the
/// count again). Small runs (every transcript and lesson) never get that far; a 1,000-replica
/// Deployment's pods start while others are still being created.
pub const WORK_STEP: Duration = Duration::from_millis(1);

/// One thing a process can do next, as the World addresses it (described for the page as a
/// [`PendingAction`]; see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ActionRef {
    List(usize, usize),
    Watch(usize, usize),
    Deliver(usize, usize),
    /// Run the next call queued for `slots[.1].handlers[.2]`.
    Handler(usize, usize, usize),
    Resync(usize, usize),
    /// Run the reconcile of the key held by `held[.2]`.
    Reconcile(usize, usize, usize),
    Take(usize, usize),
    QueueTimer(usize, usize),
    Lease(usize),
}

/// Where a pending action stands in the order [`World::step`] takes them (and [`World::pending`]
/// lists them). This is the one statement of that rule: fields compare in this order, each only
/// between actions equal on the ones before.
///
/// 1. `urgency`: a leader whose renew deadline has passed (after a clock jump, say) stops leading
///    before anything else happens, even before older overdue timers: its timer fired first in
///    real time. Otherwise another replica's overdue acquire tick (due before the leader's own
///    tick, but at a time when the Lease was still held) would take the Lease while the old
///    leader still acts: two leaders.
/// 2. `at`: when it runs. Immediate work runs now. A timer runs at its due time; one that came
///    due at an earlier instant (the clock moved on to a later timer's time first) is overdue
///    and runs before anything at this instant, oldest first. But work takes time
///    ([`WORK_STEP`]): a timer due after now that the work done at this instant has caught up
///    with runs now, ahead of the work that would otherwise starve it.
/// 3. `lane`: at one instant, such caught-up timers go before the work due then.
/// 4. `due`: caught-up timers still fire in the order of their own times: a leader's renew tick
///    due in 2 s must not wait behind a kubelet timer due in 20 s, which would move the clock past
///    the renew deadline and make the busiest leader step down for no reason.
/// 5. `class`: at one instant, informer lists and re-watches, then watch-event deliveries (and
///    ends of streams), handler runs, reconciles of held keys, takes of waiting keys, work-queue
///    timers and resyncs, lease ticks ([`Class`]).
/// 6. `age`: held keys are reconciled in the order they were taken, and waiting keys are taken
///    oldest first across controllers ([`Slot::since`](super::Slot::since)), as if every worker
///    ran at once; 0 for other actions.
/// 7. `act`: last, the action itself ([`ActionRef`]'s derived order: its variant, then the process in
///    the World's order, then the informer, slot, handler or worker index).
///
/// The listed time of an action is then at least now: taking a future action moves the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Order {
    urgency: Urgency,
    at: Time,
    lane: Lane,
    due: Time,
    class: Class,
    age: u64,
    pub(super) act: ActionRef,
}

/// [`Order`]'s first rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Urgency {
    /// A lease tick of a leader past its renew deadline.
    ExpiredLeader,
    Normal,
}

/// [`Order`]'s third rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Lane {
    /// A timer due after now that the work done at this instant has caught up with.
    CaughtUpTimer,
    OnTime,
}

/// The kinds of action, in the order they run at one instant ([`Order`]'s fifth rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// An informer's list (or relist) or re-watch.
    ListWatch,
    /// A watch event (or the end of a stream) to an informer.
    Deliver,
    /// A handler call.
    Handler,
    /// A held key's reconcile.
    Reconcile,
    /// A free worker's take of a waiting key.
    Take,
    /// A work queue's delayed keys coming due, an informer's resync.
    Timer,
    /// A leader elector's tick.
    Lease,
}

impl ActionRef {
    fn class(self) -> Class {
        match self {
            ActionRef::List(..) | ActionRef::Watch(..) => Class::ListWatch,
            ActionRef::Deliver(..) => Class::Deliver,
            ActionRef::Handler(..) => Class::Handler,
            ActionRef::Reconcile(..) => Class::Reconcile,
            ActionRef::Take(..) => Class::Take,
            ActionRef::QueueTimer(..) | ActionRef::Resync(..) => Class::Timer,
            ActionRef::Lease(..) => Class::Lease,
        }
    }
    fn process(self) -> usize {
        match self {
            ActionRef::List(p, _)
            | ActionRef::Watch(p, _)
            | ActionRef::Deliver(p, _)
            | ActionRef::Handler(p, _, _)
            | ActionRef::Resync(p, _)
            | ActionRef::Reconcile(p, _, _)
            | ActionRef::Take(p, _)
            | ActionRef::QueueTimer(p, _)
            | ActionRef::Lease(p) => p,
        }
    }
}

/// Every pending action with its [`Order`] and due time, unsorted.
pub(super) type OrderedActions = Vec<(Order, Time)>;

impl World {
    /// Every pending action with its due time, in [`Order`].
    pub(super) fn actions(&self) -> Vec<(Time, ActionRef)> {
        let mut keyed = self.ordered_actions();
        crate::sort::sort_by(&mut keyed, |x, y| x.0.cmp(&y.0));
        let now = self.state.now;
        keyed.into_iter().map(|(o, due)| (due.max(now), o.act)).collect()
    }

    /// The action [`World::step`] takes (the first of [`World::actions`]), found with one pass
    /// instead of a sort (a step needs only it: sorting was most of the cost of choosing).
    pub(super) fn next_action(&self) -> Option<(Time, ActionRef)> {
        self.next_action_into(&mut Vec::with_capacity(32))
    }

    /// [`World::next_action`], leaving every pending action, unsorted with its [`Order`], in a
    /// list the caller keeps from step to step (emptied first; Run until idle's idleness test
    /// reads it).
    pub(super) fn next_action_into(&self, keyed: &mut OrderedActions) -> Option<(Time, ActionRef)> {
        keyed.clear();
        self.ordered_actions_into(keyed);
        keyed.iter().min_by(|x, y| x.0.cmp(&y.0)).map(|(o, due)| ((*due).max(self.state.now), o.act))
    }

    /// Every pending action with its [`Order`] (computed once per action: an order reads the
    /// work queues, and computing it in every comparison of the sort was a fifth of a step) and
    /// its due time.
    fn ordered_actions(&self) -> Vec<(Order, Time)> {
        // Sized for a usual step (about twenty actions pend at once): growing an empty vector,
        // then collecting a second one, was a third of choosing a step.
        let mut out = Vec::with_capacity(32);
        self.ordered_actions_into(&mut out);
        out
    }

    /// [`World::ordered_actions`], appended to `out`: each action's order as it is found.
    fn ordered_actions_into(&self, out: &mut OrderedActions) {
        let s = &self.state;
        let now = s.now;
        let caught_up = now.after(WORK_STEP.saturating_mul(u32::try_from(s.busy).unwrap_or(u32::MAX)));
        let mut push = |(due, act): (Time, ActionRef)| out.push((self.order(due, act, caught_up), due));
        for (pi, p) in s.processes.iter().enumerate() {
            if p.frozen_since.is_some() {
                continue;
            }
            if let Some(t) = p.elector.as_ref().and_then(LeaderElector::next_tick_at) {
                if p.running {
                    push((t, ActionRef::Lease(pi)));
                }
            }
            if !p.active() {
                continue;
            }
            for (ii, inf) in p.caches.informers().iter().enumerate() {
                match inf.state() {
                    ReflectorState::NotStarted => push((now, ActionRef::List(pi, ii))),
                    ReflectorState::BackingOff { until } => push((*until, ActionRef::List(pi, ii))),
                    ReflectorState::RewatchAt { until } => push((*until, ActionRef::Watch(pi, ii))),
                    ReflectorState::Watching(_) => {
                        if inf.has_deliverable(&s.api) {
                            push((now, ActionRef::Deliver(pi, ii)));
                        }
                    }
                    ReflectorState::Stopped => {}
                }
                if let Some(t) = inf.next_resync_at() {
                    push((t, ActionRef::Resync(pi, ii)));
                }
            }
            for (si, slot) in p.slots.iter().enumerate() {
                for (hi, (ii, h)) in slot.handlers.iter().enumerate() {
                    if p.caches.informers().get(*ii).is_some_and(|i| i.has_pending_notifications(*h)) {
                        push((now, ActionRef::Handler(pi, si, hi)));
                    }
                }
                for wi in 0..slot.held().len() {
                    push((now, ActionRef::Reconcile(pi, si, wi)));
                }
                if !slot.queue().is_empty() && slot.held().len() < slot.workers && p.caches_synced(slot) {
                    push((now, ActionRef::Take(pi, si)));
                }
                if let Some(t) = slot.queue().next_ready_at() {
                    push((t, ActionRef::QueueTimer(pi, si)));
                }
            }
        }
    }

    /// An action's place in the order ([`Order`]), for an action due at `due` when the work done
    /// at this instant has caught up with timers due until `caught_up`.
    fn order(&self, due: Time, act: ActionRef, caught_up: Time) -> Order {
        let s = &self.state;
        let now = s.now;
        let expired = match act {
            ActionRef::Lease(pi) => {
                s.processes[pi].elector.as_ref().and_then(LeaderElector::renew_deadline_at).is_some_and(|t| t <= now)
            }
            _ => false,
        };
        let age = match act {
            ActionRef::Take(pi, si) => {
                let slot = &s.processes[pi].slots[si];
                slot.queue().waiting_keys().next().and_then(|k| slot.since(k)).unwrap_or(0)
            }
            ActionRef::Reconcile(pi, si, wi) => s.processes[pi].slots[si].held().get(wi).map_or(0, |h| h.0),
            _ => 0,
        };
        let (at, lane) = if due > now && due <= caught_up { (now, Lane::CaughtUpTimer) } else { (due, Lane::OnTime) };
        Order {
            urgency: if expired { Urgency::ExpiredLeader } else { Urgency::Normal },
            at,
            lane,
            due,
            class: act.class(),
            age,
            act,
        }
    }

    pub(super) fn is_periodic(&self, act: ActionRef) -> bool {
        let p = &self.state.processes[act.process()];
        // Lease ticks are periodic once someone leads; while nobody does, acquiring is real work.
        // A frozen leader renews nothing: acquiring the Lease from it is real work.
        let someone_leads = self.state.processes.iter().any(|p| p.leading() && p.frozen_since.is_none());
        let only_checks = match act {
            ActionRef::QueueTimer(_, si) => {
                let slot = &p.slots[si];
                slot.queue().next_due_keys().all(|k| slot.check_keys.contains(k))
            }
            _ => false,
        };
        let quiet = match act {
            ActionRef::QueueTimer(_, si) => {
                let slot = &p.slots[si];
                slot.queue().next_due_keys().all(|k| slot.quiet_keys.get(k) == Some(&self.state.changes))
            }
            _ => false,
        };
        (matches!(act, ActionRef::Lease(_)) && someone_leads)
            || matches!(act, ActionRef::Resync(..))
            || p.partitioned
            || only_checks
            || quiet
    }

    /// What can happen next, in the order [`World::step`] would take it.
    pub fn pending(&self) -> Vec<PendingAction> {
        self.actions()
            .into_iter()
            .enumerate()
            .map(|(i, (at, act))| {
                let (actor, action, description) = self.describe(act);
                PendingAction { id: i as u64, at, actor, action, description, runnable: true }
            })
            .collect()
    }

    fn describe(&self, act: ActionRef) -> (Actor, ActionKind, String) {
        let s = &self.state;
        let p = &s.processes[act.process()];
        let ctrl = |si: usize| Actor::Controller {
            process: p.name.clone(),
            controller: p.slots[si].controller.name().to_string(),
        };
        let informers = p.caches.informers();
        let inf = |ii: usize| Actor::Informer { process: p.name.clone(), kind: informers[ii].kind().kind.to_string() };
        match act {
            ActionRef::Lease(_) => {
                let leading = p.leading();
                let what = if leading { "renew" } else { "try to acquire" };
                (
                    Actor::LeaderElector { process: p.name.clone() },
                    ActionKind::LeaseTick,
                    format!("{what} Lease kube-system/kube-controller-manager"),
                )
            }
            ActionRef::List(_, ii) => {
                let i = &informers[ii];
                let what = if i.has_synced() { "relist" } else { "list" };
                (inf(ii), ActionKind::List, format!("{what} {}", i.kind().resource))
            }
            ActionRef::Watch(_, ii) => (
                inf(ii),
                ActionKind::Rewatch,
                format!(
                    "watch {} again from resourceVersion {}",
                    informers[ii].kind().resource,
                    informers[ii].last_sync_resource_version()
                ),
            ),
            ActionRef::Deliver(_, ii) => {
                let i = &informers[ii];
                let evs = i.watch_id().map(|id| s.api.pending_events(id)).unwrap_or_default();
                let d = match evs.first() {
                    Some(e) => {
                        let more = if evs.len() > 1 { format!(" (+{} more)", evs.len() - 1) } else { String::new() };
                        format!(
                            "deliver {} {} {} (rv {}){more}",
                            e.event_type.as_str(),
                            i.kind().kind,
                            e.object.key(),
                            e.object.resource_version()
                        )
                    }
                    None => {
                        let d = format!(
                            "the {} watch ended: watch again from resourceVersion {}",
                            i.kind().resource,
                            i.last_sync_resource_version()
                        );
                        return (inf(ii), ActionKind::Rewatch, d);
                    }
                };
                (inf(ii), ActionKind::DeliverEvent, d)
            }
            ActionRef::Resync(_, ii) => (
                inf(ii),
                ActionKind::Resync,
                format!("resync {} (every cached object to every handler)", informers[ii].kind().resource),
            ),
            ActionRef::Handler(_, si, hi) => {
                let d = p.slots[si]
                    .handlers
                    .get(hi)
                    .and_then(|(ii, h)| {
                        let i = informers.get(*ii)?;
                        let n = i.pending_notifications(*h).next()?;
                        Some(format!("{} {} {}", n.handler_name(), i.kind().kind, n.key()))
                    })
                    .unwrap_or_default();
                (ctrl(si), ActionKind::RunHandler, d)
            }
            ActionRef::Take(_, si) => {
                let key = p.slots[si].queue().waiting_keys().next().cloned().unwrap_or_default();
                (ctrl(si), ActionKind::TakeKey, format!("take {key} from the queue"))
            }
            ActionRef::Reconcile(_, si, wi) => {
                let key = p.slots[si].held_key(wi).map(str::to_string).unwrap_or_default();
                (ctrl(si), ActionKind::Reconcile, format!("reconcile {key}"))
            }
            ActionRef::QueueTimer(_, si) => {
                let d = p.slots[si].queue().next_due_keys().next().map(|k| format!("requeue {k}")).unwrap_or_default();
                (ctrl(si), ActionKind::QueueTimer, d)
            }
        }
    }
}
