//! The Timeline: every step of the current branch, where the learner stands in it, and whether
//! acting from an earlier step started a new branch.
//!
//! The world keeps the records up to where it stands (`World::history`, the newest
//! [`HISTORY_LIMIT`] of them in a session: older ones are forgotten to bound memory, and come back
//! by replay when the learner goes back to them) and the inputs of its branch
//! (`World::branch_len`): after `goto` back, the later records are gone from the world but the
//! inputs remain, so `goto` forward replays them. The timeline does not copy the world's records:
//! it reads them from the world, and keeps only the ones the world dropped when the learner went
//! back (the future of the branch, which the page still shows and can jump to). Steps whose
//! records neither holds (forgotten before a jump far back) are still counted and numbered; going
//! to one replays it.

use crate::engine::world::{StepRecord, World};

/// How many records a session's world keeps (`World::set_history_limit`). A record is a few
/// hundred bytes: 20,000 of them are a few megabytes, where a 10,000-replica Deployment takes
/// about 440,000 steps to converge.
pub const HISTORY_LIMIT: usize = 20_000;

/// What a session's world may keep in snapshots, measured as the stored objects' JSON bytes
/// summed over the snapshots (`World::set_snapshot_budget`); going back past the kept ones
/// replays from an older one (at worst the start), which takes longer but gives the same state.
///
/// The measure overstates what a snapshot holds: a snapshot shares every object, informer-cache
/// entry and owner-graph node that has not changed since with the live world (the store's entries
/// and the graph's nodes are `Arc`s), so its own cost is its maps and the processes' small state
/// (7.2 MB at 10,000 pods, counted by a counting allocator; it was 16.4 MB with the owner graph and the
/// store's keys copied) plus the old versions of what changed after it, and those are decoded in
/// the informer caches at about 24 KB a pod. A measure of the unshared part (entries not pointer-equal to the
/// next snapshot's) would let a session keep more snapshots at 10,000 pods, where today it keeps
/// the first and the newest.
pub const SNAPSHOT_BUDGET: usize = 16 << 20;

/// A new branch: the learner went back to step `from` and acted there, dropping `dropped` later
/// steps of the old branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The step the new branch starts after (0: the initial state).
    pub from: usize,
    /// How many steps of the old branch were dropped.
    pub dropped: usize,
}

/// The steps after the current one: `gap` whose records are not held, then `known`, then `tail`
/// more not held.
#[derive(Clone, Debug, Default)]
struct Future {
    gap: usize,
    known: Vec<StepRecord>,
    tail: usize,
}

impl Future {
    fn len(&self) -> usize {
        self.gap + self.known.len() + self.tail
    }

    /// Puts `front` (the steps right after the new current one) before this future.
    fn prepend(&mut self, front: Future) {
        let old = std::mem::take(self);
        *self = if old.gap == 0 {
            let mut known = front.known;
            known.extend(old.known);
            Future { gap: front.gap, known, tail: front.tail + old.tail }
        } else {
            Future { gap: front.gap, known: front.known, tail: front.tail + old.len() }
        };
        if self.known.is_empty() {
            self.gap += self.tail;
            self.tail = 0;
        }
    }

    /// Drops the first `n` steps (they are now in the world's history).
    fn consume(&mut self, mut n: usize) {
        let g = n.min(self.gap);
        self.gap -= g;
        n -= g;
        let k = n.min(self.known.len());
        self.known.drain(..k);
        n -= k;
        self.tail -= n.min(self.tail);
    }

    /// The `i`-th step after the current one (0-based), if held.
    fn get(&self, i: usize) -> Option<&StepRecord> {
        i.checked_sub(self.gap).and_then(|i| self.known.get(i))
    }
}

/// The position in the branch and the branch's future.
///
/// Invariants after [`Timeline::sync`]: `current == world.position()`; steps `1..=current` are the
/// world's (those it still holds are `world.history()`); when the learner stands in the past,
/// `current + future.len() == world.branch_len()`.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    future: Future,
    current: usize,
    branches: Vec<Branch>,
    /// Set by [`Timeline::before_goto`]: the records the world is about to drop, as the front of
    /// the future, and the step the learner goes to.
    leaving: Option<(usize, Future)>,
}

impl Timeline {
    /// How many steps the branch has, including the ones after the current step.
    pub fn len(&self) -> usize {
        self.current + self.future.len()
    }

    /// Whether no step has been taken on this branch.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Step `n` (1-based) of the branch, if its record is held (by the world or the timeline).
    /// None for a step forgotten to save memory: [`World::goto`] to it replays it.
    pub fn get<'a>(&'a self, world: &'a World, n: usize) -> Option<&'a StepRecord> {
        if n == 0 {
            return None;
        }
        if n <= self.current {
            let history = world.history();
            let first = world.position() - history.len();
            return (n > first).then(|| history.get(n - first - 1)).flatten();
        }
        self.future.get(n - self.current - 1)
    }

    /// The number of the oldest step whose record the world still holds (1 when it holds them
    /// all); the steps before it are replayed when the learner goes to them.
    pub fn first_kept(&self, world: &World) -> usize {
        world.position() - world.history().len() + 1
    }

    /// How many steps have been taken on the way to where the learner stands (0: the start).
    pub fn current(&self) -> usize {
        self.current
    }

    /// Whether the learner stands before the end of the branch (going forward replays steps).
    pub fn in_past(&self) -> bool {
        self.future.len() > 0
    }

    /// Every branch started so far, oldest first.
    pub fn branches(&self) -> &[Branch] {
        &self.branches
    }

    /// Before the world goes to step `n` on its branch (`World::goto`, `World::step_back`): keeps
    /// the records it is about to drop, so the page can still show them.
    pub fn before_goto(&mut self, world: &World, n: usize) {
        let now = world.position();
        let n = n.min(world.branch_len());
        if n >= now {
            self.leaving = Some((n, Future::default()));
            return;
        }
        let history = world.history();
        let first = now - history.len();
        let front = if n >= first {
            Future { gap: 0, known: history[n - first..].to_vec(), tail: 0 }
        } else {
            Future { gap: first - n, known: history.to_vec(), tail: 0 }
        };
        self.leaving = Some((n, front));
    }

    /// Catches up with the world after any intent. Returns true if something changed.
    pub fn sync(&mut self, world: &World) -> bool {
        let now = world.position();
        let branch = world.branch_len();
        let before = (self.current, self.future.len(), self.branches.len());
        match self.leaving.take() {
            Some((target, front)) => {
                // A jump on the same branch. If the world did not move, nothing changes.
                if now != self.current {
                    if target < self.current {
                        self.future.prepend(front);
                        self.future.consume(now.saturating_sub(target));
                    } else {
                        self.future.consume(now - self.current);
                    }
                    self.current = now;
                }
            }
            None => {
                if now < self.current && branch > now {
                    // Went back without [`Timeline::before_goto`]: the dropped steps are counted,
                    // their records not held (going to them replays them).
                    self.future.prepend(Future { gap: self.current - now, known: Vec::new(), tail: 0 });
                } else if now < self.current {
                    // Not the same run at all (the world was reset): start over.
                    *self = Timeline::default();
                } else if self.in_past() && branch <= now {
                    // Acting in the past dropped the old future: a new branch.
                    self.branches.push(Branch { from: self.current, dropped: self.future.len() });
                    self.future = Future::default();
                } else if self.in_past() && now > self.current {
                    // Steps on the same branch (should not happen without a jump): they replay it.
                    self.future.consume(now - self.current);
                }
                self.current = now;
            }
        }
        // Keep the count honest whatever happened (the world is the truth).
        let want = branch.saturating_sub(now);
        let have = self.future.len();
        if have < want {
            if self.future.known.is_empty() {
                self.future.gap += want - have;
            } else {
                self.future.tail += want - have;
            }
        } else if have > want {
            self.future = Future::default();
        }
        (self.current, self.future.len(), self.branches.len()) != before
    }
}
