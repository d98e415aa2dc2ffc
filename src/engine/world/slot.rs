//! One controller inside a process ([`Slot`]): the controller, its handler registrations, its
//! work queue and the bookkeeping the World's scheduling reads (arrival stamps, held keys), and
//! how many workers it runs ([`concurrent_syncs`]).

use std::collections::BTreeMap;

use crate::engine::client::informer::HandlerId;
use crate::engine::client::WorkQueue;
use crate::engine::controllers::Controller;

/// One controller inside a process: the controller, its handler buffer and its work queue.
#[derive(Clone)]
pub struct Slot {
    /// The controller.
    pub controller: Box<dyn Controller>,
    /// The controller's handler registrations, one per kind it watches: the index of the
    /// process's informer (in [`Caches::informers`]) and the handler's id there. Each is a
    /// client-go `processorListener` with its own queue of calls.
    pub handlers: Vec<(usize, HandlerId)>,
    /// The work queue.
    pub queue: WorkQueue<String>,
    /// Keys whose delayed entry is only a deadline check ([`Outcome::CheckAfter`]).
    pub check_keys: std::collections::BTreeSet<String>,
    /// When each waiting key joined the queue (a world-wide sequence number). Keys of all
    /// controllers are taken oldest first, as if every worker ran at once: a burst of events for
    /// one key collapses while other controllers work through older keys.
    pub since: BTreeMap<String, u64>,
    /// The keys the controller's workers hold (taken with `Get`, not yet `Done`), each with the
    /// sequence number of the take, oldest first. Invariant: exactly the queue's processing set,
    /// and never more than [`Slot::workers`] keys.
    pub held: Vec<(u64, String)>,
    /// Keys whose delayed requeue is a poll ([`Outcome::PollAfter`]), with the world's change
    /// count right after the reconcile that scheduled it ([`World::changes`]). While nothing has
    /// changed since, the poll is periodic work, not progress: the namespace controller looking
    /// again at a namespace held by a finalizer, say. Kubernetes keeps polling too;
    /// `run_until_idle` stops there instead of calling it a hot loop.
    pub quiet_keys: BTreeMap<String, u64>,
    /// How many workers the controller runs (its `--concurrent-*-syncs`).
    pub workers: usize,
}

impl Slot {
    /// `queue.Add(key)`; a key that joins the queue (rather than one already waiting, or one
    /// being processed, which is only marked dirty) takes the next world-wide sequence number.
    pub(super) fn add(&mut self, key: String, seq: &mut u64) {
        if self.queue.add(key.clone()) {
            *seq += 1;
            self.since.insert(key, *seq);
        }
    }

    pub(super) fn new(controller: Box<dyn Controller>) -> Slot {
        let name = controller.name().trim_end_matches("-controller").to_string();
        let queue = WorkQueue::with_rate_limiter(name, controller.rate_limiter());
        let workers = concurrent_syncs(controller.name());
        Slot {
            controller,
            handlers: Vec::new(),
            queue,
            check_keys: Default::default(),
            since: BTreeMap::new(),
            held: Vec::new(),
            quiet_keys: BTreeMap::new(),
            workers,
        }
    }
}

/// The number of workers of a controller: kube-controller-manager's defaults
/// (`--concurrent-deployment-syncs=5`, `--concurrent-replicaset-syncs=5`,
/// `--concurrent-namespace-syncs=10`, `--concurrent-gc-syncs=20`); the rest run one worker (the
/// scheduler and kubelets are not work-queue controllers in Kubernetes; an operator built on
/// controller-runtime defaults to `MaxConcurrentReconciles: 1`). Whatever the number, a key is
/// never held by two workers at once: the work queue's processing set sees to that.
pub fn concurrent_syncs(controller: &str) -> usize {
    match controller {
        "deployment-controller" | "replicaset-controller" => 5,
        "namespace-controller" => 10,
        "garbage-collector-controller" => 20,
        _ => 1,
    }
}
