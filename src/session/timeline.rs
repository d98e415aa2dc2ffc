//! The Timeline: every step of the current branch, where the learner stands in it, and whether
//! acting from an earlier step started a new branch.
//!
//! The world keeps only the records up to where it stands (`World::history`) and the inputs of
//! its branch (`World::branch_len`): after `goto` back, the later records are gone from the world
//! but the inputs remain, so `goto` forward replays them. The timeline keeps the later records too,
//! so the page can still show (and jump to) the future of the branch, and notices when a new input
//! dropped that future.

use crate::engine::world::{StepRecord, World};

/// A new branch: the learner went back to step `from` and acted there, dropping `dropped` later
/// steps of the old branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The step the new branch starts after (0: the initial state).
    pub from: usize,
    /// How many steps of the old branch were dropped.
    pub dropped: usize,
}

/// The records of the current branch and the position in it.
///
/// Invariants: `current <= records.len()`; `records[..current]` equals the world's history; the
/// records after `current` are the old future that `goto` can still replay (exactly
/// `world.branch_len() - current` of them once [`Timeline::sync`] ran).
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    records: Vec<StepRecord>,
    current: usize,
    branches: Vec<Branch>,
}

impl Timeline {
    /// Every record of the branch, including the ones after the current step.
    pub fn records(&self) -> &[StepRecord] {
        &self.records
    }

    /// How many steps have been taken on the way to where the learner stands (0: the start).
    pub fn current(&self) -> usize {
        self.current
    }

    /// Whether the learner stands before the end of the branch (going forward replays steps).
    pub fn in_past(&self) -> bool {
        self.current < self.records.len()
    }

    /// Every branch started so far, oldest first.
    pub fn branches(&self) -> &[Branch] {
        &self.branches
    }

    /// Catches up with the world after any intent. Returns true if something changed.
    pub fn sync(&mut self, world: &World) -> bool {
        let history = world.history();
        let now = history.len();
        let branch = world.branch_len();
        let before = (self.records.len(), self.current);
        if branch > now {
            // Stood back in time (goto/step back): the future stays as it was.
            if self.records.len() < branch {
                // A future we never saw (should not happen: the timeline follows every intent).
                self.records.truncate(now);
                self.records.extend_from_slice(history.get(self.records.len()..).unwrap_or(&[]));
            }
            self.current = now;
            return (self.records.len(), self.current) != before;
        }
        // The branch ends where the world stands.
        let mut keep = self.current.min(now);
        if keep > 0 && history.get(keep - 1) != self.records.get(keep - 1) {
            // Not the same run at all (the world was reset): start over.
            keep = 0;
            self.records.clear();
        }
        let same = self.records.len() == now && history[keep..] == self.records[keep..];
        if !same {
            if self.current < self.records.len() {
                self.branches.push(Branch { from: keep, dropped: self.records.len() - keep });
            }
            self.records.truncate(keep);
            self.records.extend_from_slice(&history[keep..]);
        }
        self.current = now;
        (self.records.len(), self.current) != before || !same
    }
}
