//! What every fuzz target shares: its case budget and proptest's configuration.
//!
//! `FUZZ_CASES` sets the budget (64 by default, the bounded run CI makes; docs/reliability.md
//! gives the long runs). A failing case is shrunk and saved in the target's file under
//! `tests/regressions/`, which proptest replays first on every later run.
#![allow(dead_code)]

use proptest::test_runner::{Config, FileFailurePersistence};

/// The number of cases each property runs (times a target's own factor).
pub fn cases() -> u32 {
    std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

/// A property's configuration: `cases` cases, at most `max_shrink_iters` shrinking steps, failures
/// saved in `regressions` (a path from the repository root).
pub fn config(regressions: &'static str, cases: u32, max_shrink_iters: u32) -> Config {
    Config {
        cases,
        max_shrink_iters,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
        ..Config::default()
    }
}
