//! Executing one pending action ([`ActionRef`]): the clock moves to its time, then the step of its
//! kind runs and returns its record.
//! - [`lease`]: a leader elector's tick (acquire, renew, step down).
//! - [`informer`]: an informer's list, re-watch, watch-event delivery and resync.
//! - [`controller`]: the loop of one controller: a handler call that queues keys, a worker's
//!   take of a key, its reconcile (and `Done`), and a delayed key coming due.

mod controller;
mod informer;
mod lease;

use super::record::StepRecord;
use super::schedule::ActionRef;
use super::World;
use crate::engine::time::Time;

impl World {
    pub(in crate::engine::world) fn perform(&mut self, at: Time, act: ActionRef) -> StepRecord {
        if at > self.state.now {
            self.state.now = at;
            self.state.api.set_now(at);
            self.state.busy = 0;
        }
        self.state.busy += 1;
        match act {
            ActionRef::Lease(p) => self.lease_tick(p),
            ActionRef::List(p, i) => self.list(p, i),
            ActionRef::Watch(p, i) => self.rewatch(p, i),
            ActionRef::Deliver(p, i) => self.deliver(p, i),
            ActionRef::Handler(p, s, h) => self.handler(p, s, h),
            ActionRef::Resync(p, i) => self.resync(p, i),
            ActionRef::Take(p, s) => self.take(p, s),
            ActionRef::Reconcile(p, s, w) => self.reconcile(p, s, w),
            ActionRef::QueueTimer(p, s) => self.queue_timer(p, s),
        }
    }
}
