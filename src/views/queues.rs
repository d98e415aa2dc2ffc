//! "Work queues": per controller, client-go's work queue as it stands
//! (`util/workqueue/queue.go`, `Add`, `Get`, `Done`: a key waits in the queue and the dirty set; a
//! key being processed is in the processing set; a key added while processing is dirty and runs
//! once more after Done; delayed keys wait out `AddAfter` or the rate limiter's back-off). A burst
//! of adds for one key collapses into one waiting entry: [`QueuedKeyRow::adds`] counts the handler
//! adds it absorbed.

use crate::engine::world::{fmt_duration, ActionKind, Actor, World};

use super::{recent, Capped};

/// Keys shown per list.
pub const KEYS_SHOWN: usize = 50;

/// A waiting or processing key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QueuedKeyRow {
    /// `default/web`.
    pub key: String,
    /// Handler adds of this key since it was last taken by a worker (a burst of 3 events that
    /// collapsed into one waiting entry shows 3).
    pub adds: usize,
    /// `NumRequeues`: failed attempts counted by the rate limiter.
    pub requeues: u32,
}

/// A key waiting out a delay, as the panel lists it (the queue's own entry is
/// [`crate::engine::client::workqueue::DelayedKey`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DelayedKeyRow {
    /// `default/web`.
    pub key: String,
    /// `in 1.6s`, or `now` when due.
    pub countdown: String,
    /// Milliseconds until it is ready.
    pub ready_in_ms: u64,
    /// The rate limiter's retry count for it.
    pub requeues: u32,
}

/// One controller's queue.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QueueView {
    /// `kube-controller-manager-a`.
    pub process: String,
    /// `deployment-controller`.
    pub controller: String,
    /// Keys waiting for a worker, in queue order.
    pub waiting: Capped<QueuedKeyRow>,
    /// Keys a worker holds.
    pub processing: Capped<QueuedKeyRow>,
    /// Keys added while being processed: they go back to waiting at Done.
    pub dirty_while_processing: Capped<String>,
    /// Delayed keys, soonest first.
    pub delayed: Capped<DelayedKeyRow>,
}

impl QueueView {
    /// A stable key for keyed lists.
    pub fn id(&self) -> String {
        format!("{}/{}", self.process, self.controller)
    }

    /// Whether every list is empty.
    pub fn is_empty(&self) -> bool {
        self.waiting.total + self.processing.total + self.delayed.total + self.dirty_while_processing.total == 0
    }
}

/// Handler adds of `key` by `(process, controller)` since a worker last took it, from the records'
/// typed [`QueueWork`](crate::engine::world::QueueWork): for a waiting key, the adds its one queue
/// entry absorbed; for a key being processed, the adds that made it dirty.
fn adds_since_taken(world: &World, process: &str, controller: &str, key: &str) -> usize {
    let mut n = 0;
    for r in recent(world.history()).iter().rev() {
        let Actor::Controller { process: p, controller: c } = &r.actor else { continue };
        if p != process || c != controller {
            continue;
        }
        let Some(work) = &r.work else { continue };
        match r.action {
            ActionKind::TakeKey if work.key.as_deref() == Some(key) => break,
            ActionKind::RunHandler => n += work.added.iter().filter(|k| *k == key).count(),
            _ => {}
        }
    }
    n
}

/// Every queue of every process whose controllers run (stopped and standby processes have none
/// worth showing: their queues are empty or gone).
pub fn queue_views(world: &World) -> Vec<QueueView> {
    let now = world.now();
    let mut out = Vec::new();
    for p in world.processes() {
        if !p.active() {
            continue;
        }
        for slot in &p.slots {
            let q = slot.queue();
            let controller = slot.controller.name().to_string();
            let keyed = |k: &String, count_adds: bool| QueuedKeyRow {
                key: k.clone(),
                adds: if count_adds { adds_since_taken(world, &p.name, &controller, k) } else { 0 },
                requeues: q.num_requeues(k),
            };
            let waiting: Vec<QueuedKeyRow> =
                q.waiting_keys().enumerate().map(|(i, k)| keyed(k, i < KEYS_SHOWN)).collect();
            let processing: Vec<QueuedKeyRow> =
                q.processing_keys().enumerate().map(|(i, k)| keyed(k, i < KEYS_SHOWN)).collect();
            let dirty: Vec<String> = q.dirty_while_processing().cloned().collect();
            let delayed: Vec<DelayedKeyRow> = q
                .delayed_keys()
                .into_iter()
                .map(|d| {
                    let ms = d.ready_at.since(now).as_millis() as u64;
                    let countdown =
                        if ms == 0 { "now".to_string() } else { format!("in {}", fmt_duration(d.ready_at.since(now))) };
                    DelayedKeyRow { key: d.key, countdown, ready_in_ms: ms, requeues: d.requeues }
                })
                .collect();
            out.push(QueueView {
                process: p.name.clone(),
                controller,
                waiting: Capped::new(waiting, KEYS_SHOWN),
                processing: Capped::new(processing, KEYS_SHOWN),
                dirty_while_processing: Capped::new(dirty, KEYS_SHOWN),
                delayed: Capped::new(delayed, KEYS_SHOWN),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kinds::Kind;

    /// Runs every pending watch delivery and handler, but no take or reconcile.
    fn deliver_and_handle(w: &mut World) {
        loop {
            let next = w.pending();
            let Some(p) = next.iter().find(|p| matches!(p.action, ActionKind::DeliverEvent | ActionKind::RunHandler))
            else {
                break;
            };
            w.run(p.id).unwrap();
        }
    }

    /// The deployment controller's work queue view.
    fn deployment_queue(w: &World) -> QueueView {
        queue_views(w).into_iter().find(|v| v.controller == "deployment-controller").unwrap()
    }

    #[test]
    fn a_burst_collapses_into_one_waiting_key_that_leaves_after_its_reconcile() {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        w.create(super::super::watch::tests::deployment("web", 1)).unwrap();
        w.run_until_idle(5000);
        // Three quick edits of the Deployment: three events, three handler runs, one key.
        let dk = Kind::by_kind("Deployment").unwrap();
        for n in 2..5 {
            let mut d = w.api().get(dk, Some("default"), "web").unwrap();
            d["metadata"]["labels"] = serde_json::json!({"edit": n.to_string()});
            w.update(d).unwrap();
        }
        // Deliver and handle, but do not reconcile.
        deliver_and_handle(&mut w);
        let dq = deployment_queue(&w);
        let web: Vec<&QueuedKeyRow> = dq.waiting.items.iter().filter(|k| k.key == "default/web").collect();
        assert_eq!(web.len(), 1, "one key for the burst: {dq:?}");
        assert_eq!(web[0].adds, 3);
        // A worker takes it (step A): it leaves the waiting list and is processing.
        let taken = loop {
            let r = w.step().unwrap();
            if r.action == ActionKind::TakeKey && r.worked_key() == Some("default/web") {
                break r;
            }
        };
        assert!(taken.sentence.contains("took default/web from its work queue (Get)"), "{}", taken.sentence);
        let dq = deployment_queue(&w);
        assert!(dq.waiting.items.iter().all(|k| k.key != "default/web"));
        assert_eq!(dq.processing.items.iter().map(|k| k.key.as_str()).collect::<Vec<_>>(), vec!["default/web"]);
        assert!(dq.dirty_while_processing.items.is_empty());
        // Its reconcile (step B) calls Done: nothing left.
        let r = w.step().unwrap();
        assert_eq!((r.action, r.worked_key()), (ActionKind::Reconcile, Some("default/web")));
        assert!(!r.work.as_ref().unwrap().requeued_dirty);
        let dq = deployment_queue(&w);
        assert!(dq.waiting.items.iter().all(|k| k.key != "default/web"));
        assert!(dq.processing.items.is_empty());
    }

    /// client-go's `queue.go` `Add` while processing, in the world: a key added while a worker
    /// holds it is dirty, shown as such, and is queued exactly once when the reconcile calls Done.
    #[test]
    fn a_key_added_while_processing_is_dirty_and_runs_once_more() {
        let mut w = World::new(3);
        w.run_until_idle(2000);
        w.create(super::super::watch::tests::deployment("web", 1)).unwrap();
        w.run_until_idle(5000);
        let dk = Kind::by_kind("Deployment").unwrap();
        let edit = |w: &mut World, n: u32| {
            let mut d = w.api().get(dk, Some("default"), "web").unwrap();
            d["metadata"]["labels"] = serde_json::json!({"edit": n.to_string()});
            w.update(d).unwrap();
        };
        edit(&mut w, 1);
        // Step until the deployment controller's worker takes default/web.
        loop {
            let r = w.step().unwrap();
            if r.action == ActionKind::TakeKey && r.worked_key() == Some("default/web") {
                assert!(r.actor.to_string().starts_with("deployment-controller"));
                break;
            }
        }
        // Two more edits while it is processing: deliver and handle them, but do not reconcile.
        edit(&mut w, 2);
        edit(&mut w, 3);
        deliver_and_handle(&mut w);
        let dq = deployment_queue(&w);
        assert!(dq.waiting.items.iter().all(|k| k.key != "default/web"), "a processing key is not waiting: {dq:?}");
        assert_eq!(dq.dirty_while_processing.items, vec!["default/web".to_string()]);
        let web = dq.processing.items.iter().find(|k| k.key == "default/web").unwrap();
        assert_eq!(web.adds, 2, "two adds made it dirty");
        // What happens next offers its reconcile, not a second take of the same key.
        let next = w.pending();
        let reconcile = next
            .iter()
            .find(|p| p.action == ActionKind::Reconcile && p.description == "reconcile default/web")
            .expect("the held key's reconcile is pending");
        assert!(!next.iter().any(|p| p.action == ActionKind::TakeKey && p.description.contains("default/web")));
        let r = w.run(reconcile.id).unwrap();
        assert!(r.work.as_ref().unwrap().requeued_dirty, "{}", r.sentence);
        assert!(r.sentence.contains("added again while it was processing"), "{}", r.sentence);
        let dq = deployment_queue(&w);
        assert_eq!(dq.waiting.items.iter().filter(|k| k.key == "default/web").count(), 1, "queued once: {dq:?}");
        assert!(dq.dirty_while_processing.items.is_empty());
        // It runs exactly once more, then the world settles with the key gone.
        let before = w.history().len();
        w.run_until_idle(5000);
        let again = w.history()[before..]
            .iter()
            .filter(|r| r.action == ActionKind::Reconcile && r.worked_key() == Some("default/web"))
            .filter(|r| r.actor.to_string().starts_with("deployment-controller"))
            .count();
        assert_eq!(again, 1);
    }
}
