//! The goal checker: evaluates a lesson's goals against the world after every input and says
//! which goals became met.

use std::collections::BTreeSet;

use super::format::Lesson;
use super::goal::Check;
use crate::engine::world::World;

/// One goal as the checker tracks it.
#[derive(Clone, Debug)]
struct Tracked {
    id: String,
    step: usize,
    check: Check,
    /// `seen` counts, one per `seen` inside `check` (depth-first order).
    counters: Vec<u64>,
}

/// Tracks a lesson's goals.
///
/// Invariants: a goal id in `met` stays there (progress never goes backwards, even when the
/// learner steps back); `cursor <= world.history().len()` after every [`Checker::check`], and the
/// records before it have been counted into every goal's `seen` counters exactly once.
#[derive(Clone, Debug)]
pub struct Checker {
    goals: Vec<Tracked>,
    met: BTreeSet<String>,
    /// Per step: whether it is a puzzle (puzzles are open from the start, in any order).
    puzzles: Vec<bool>,
    cursor: usize,
}

impl Checker {
    /// A checker for `lesson` that counts only the step records made from now on (what the
    /// lesson's setup did before does not count).
    pub fn new(lesson: &Lesson, world: &World) -> Checker {
        let mut goals = Vec::new();
        for (si, step) in lesson.steps.iter().enumerate() {
            for g in &step.goals {
                goals.push(Tracked {
                    id: g.id.clone(),
                    step: si,
                    check: g.check.clone(),
                    counters: vec![0; g.check.seen_slots()],
                });
            }
        }
        let puzzles = lesson.steps.iter().map(|s| s.puzzle).collect();
        Checker { goals, met: BTreeSet::new(), puzzles, cursor: world.history().len() }
    }

    /// Marks goals as met (restoring saved progress). Unknown ids are ignored.
    pub fn restore<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            if self.goals.iter().any(|g| g.id == id) {
                self.met.insert(id.to_string());
            }
        }
    }

    /// Counts the step records made since the last call (after a step back, the records of the
    /// abandoned branch stay counted: progress is about what the learner has seen happen), then
    /// evaluates the goals not yet met of
    /// every open step: a `Step` opens once every earlier `Step` is done (so a later goal cannot
    /// tick off before the learner gets there); a `Puzzle` is always open. Steps are evaluated in
    /// order, so finishing one opens the next within the same call.
    /// Returns the ids of the goals that became met, in lesson order.
    pub fn check(&mut self, world: &World) -> Vec<String> {
        let history = world.history();
        // Going back shortens the history; what was counted stays counted (progress is kept).
        self.cursor = self.cursor.min(history.len());
        for r in &history[self.cursor..] {
            for g in &mut self.goals {
                let mut slot = 0;
                g.check.observe(r, &mut g.counters, &mut slot);
            }
        }
        self.cursor = history.len();
        let mut newly = Vec::new();
        for step in 0..self.puzzles.len() {
            let open = self.puzzles[step] || (0..step).all(|i| self.puzzles[i] || self.step_done(i));
            if !open {
                continue;
            }
            for g in self.goals.iter().filter(|g| g.step == step) {
                if self.met.contains(&g.id) {
                    continue;
                }
                let mut slot = 0;
                if g.check.eval(world, &g.counters, &mut slot) {
                    newly.push(g.id.clone());
                }
            }
            for id in &newly {
                self.met.insert(id.clone());
            }
        }
        newly
    }

    /// Whether a goal is met.
    pub fn is_met(&self, id: &str) -> bool {
        self.met.contains(id)
    }

    /// The met goals' ids, sorted.
    pub fn met(&self) -> Vec<String> {
        self.met.iter().cloned().collect()
    }

    /// Whether every goal is met.
    pub fn complete(&self) -> bool {
        self.goals.iter().all(|g| self.met.contains(&g.id))
    }

    /// Whether every goal of step `i` is met.
    pub fn step_done(&self, i: usize) -> bool {
        self.goals.iter().filter(|g| g.step == i).all(|g| self.met.contains(&g.id))
    }

    /// The first step with a goal not met (the number of steps when the lesson is complete).
    pub fn current_step(&self) -> usize {
        let n = self.puzzles.len();
        (0..n).find(|&i| !self.step_done(i)).unwrap_or(n)
    }
}
