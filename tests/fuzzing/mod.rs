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

/// A stopwatch of the CPU time this thread has used, for the bounds that catch a runaway input
/// (an exponential parse, an endless loop). Wall time would make those bounds fail on a loaded
/// machine, where a test thread may wait for a core far longer than it runs; CPU time does not
/// grow while the thread waits. Read from Linux's `/proc/thread-self/schedstat` (its first field
/// is the thread's time on a CPU, in nanoseconds); elsewhere it falls back to wall time.
pub struct CpuTimer {
    cpu_start: Option<u64>,
    wall_start: std::time::Instant,
}

fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

impl CpuTimer {
    /// Starts counting.
    pub fn start() -> CpuTimer {
        CpuTimer { cpu_start: thread_cpu_ns(), wall_start: std::time::Instant::now() }
    }

    /// The CPU time this thread used since `start` (wall time where the kernel does not say).
    pub fn elapsed(&self) -> std::time::Duration {
        match (self.cpu_start, thread_cpu_ns()) {
            (Some(a), Some(b)) => std::time::Duration::from_nanos(b.saturating_sub(a)),
            _ => self.wall_start.elapsed(),
        }
    }
}
