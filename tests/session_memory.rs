//! What a session holds in memory after converging a large Deployment, natively: the peak and
//! current resident size of this process (`VmHWM`, `VmRSS` from /proc/self/status) and how many
//! step records the world and the timeline hold. A measurement, not a check: it prints figures
//! (run it with `cargo test --release --test session_memory -- --ignored --nocapture`; set
//! `MEMORY_REPLICAS`, default 10,000). The browser's figure is scripts/bench-page.mjs's.
//!
//! Figures on the build machine (2026-11-29, peak VmHWM after converging):
//! - 1,000 replicas (40,100 steps): 356 MB before (every record twice: world and timeline; up to
//!   48 snapshots), 323 MB with the timeline reading the world's records and 20,000 kept,
//!   151 MB with the snapshot budget too (86 MB with no snapshot but the initial one).
//! - 10,000 replicas (400,298 steps, 42.7 MB of stored JSON): 522 MB. What remains is the live
//!   state and the one newest snapshot (a budget smaller than one snapshot keeps the initial and
//!   the newest): roughly 250 MB each, far more than the stored JSON.
//! - In the browser (`node scripts/bench-page.mjs --memory-only`, release build): wasm linear
//!   memory after 10,000 pods 1,285 MiB before (BENCHMARKS.md), 349 MiB after.

use reconcile_lab::session::{Session, HISTORY_LIMIT};

fn status(field: &str) -> String {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with(field))
        .map(|l| l[field.len()..].trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

#[test]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
fn memory_after_converging_a_large_deployment() {
    let replicas: usize = std::env::var("MEMORY_REPLICAS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let mut s = Session::sandbox();
    println!("start: VmRSS {}", status("VmRSS:"));
    s.console_submit(&format!("kubectl create deployment web --image=nginx --replicas={replicas}"));
    let mut settled = false;
    for _ in 0..100_000 {
        let out = s.console_submit("lab settle");
        if out.chunks.iter().any(|c| c.1.contains("Settled after")) {
            settled = true;
            break;
        }
    }
    assert!(settled, "the sandbox did not settle");
    let t = s.timeline();
    println!(
        "{replicas} replicas: {} steps; the world holds {} records (limit {HISTORY_LIMIT}), the timeline's future {}",
        t.current(),
        s.world().history().len(),
        t.len() - t.current()
    );
    println!("stored objects: {} bytes of JSON", s.world().api().stored_bytes());
    println!("converged: VmRSS {}, peak VmHWM {}", status("VmRSS:"), status("VmHWM:"));
    // Back to the start and forward again: the timeline keeps only the future the world dropped.
    s.goto(0);
    let end = s.timeline().len();
    println!("after going to the start: VmRSS {}, peak VmHWM {}", status("VmRSS:"), status("VmHWM:"));
    s.goto(end);
    println!("after going back to the end: VmRSS {}, peak VmHWM {}", status("VmRSS:"), status("VmHWM:"));
    assert_eq!(s.timeline().current(), end);
}
