//! What a session holds in memory after converging a large Deployment, natively. A measurement,
//! not a check: it prints figures (run it with `cargo test --release --test session_memory --
//! --ignored --nocapture`; set `MEMORY_REPLICAS`, default 10,000). The browser's figure is
//! scripts/bench-page.mjs's (`--memory-only`).
//!
//! It counts the heap itself: this test binary's global allocator adds up the bytes of every live
//! allocation (the figure is the requested sizes, without the allocator's own overhead) and keeps
//! the highest total seen (the peak, which is what wasm's linear memory keeps: it never shrinks).
//! The process's `VmRSS` / `VmHWM` are printed too. At the end it breaks the heap down: the
//! informer caches' decoded objects (each distinct object once: the processes share them), the
//! stored JSON and the kept records.
//!
//! Figures on the build machine, 10,000 replicas (400,298 steps, 42.7 MB of stored JSON):
//! - 2026-11-29: peak VmHWM 522 MB.
//! - 2026-11-30, before the snapshot-sharing work: heap 456 MB at the end, peak 480 MB; of it
//!   the caches' decoded objects 243 MB (10,013 objects: about 24 KB each, for 2.8 KB of JSON),
//!   the replay log about 70 MB (a `UserCall`-sized entry per step), one snapshot 16.4 MB (the
//!   owner graph deep-copied, 6.5 MB; the store's keys and entries, 5.7 MB).
//! - after it (snapshots share the store and the owner graph): see BENCHMARKS.md ("Memory").
//! - with `object::Shared` a [`Frozen`](reconcile_lab::engine::frozen::Frozen) tree instead of a
//!   `serde_json::Value` (issue #9; 380,721 steps, 42.3 MB of stored JSON): the caches' 10,010
//!   distinct objects take 57.7 MB as trees, 179.1 MB as `Value`s; heap 180 MB at the end, peak
//!   193 MB (was 369 MB, peak 384 MB); VmHWM 240 MB (was 440 MB).
//! - 2026-12-02, the store holding each object's tree and making its JSON only when asked
//!   (380,721 steps; "stored JSON" is then the length its encodings would have): heap 162.9 MB
//!   at the end, peak 177.0 MB (was 181.7 MB, peak 196.2 MB); after going to the start and back
//!   169.8 MB, peak 197.2 MB (was 188.5 MB, peak 216.4 MB).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use reconcile_lab::session::{Session, HISTORY_LIMIT};

/// The system allocator, counting.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        let now = LIVE.fetch_add(size, Relaxed) + size;
        PEAK.fetch_max(now, Relaxed);
        LIVE.fetch_sub(l.size(), Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(p, l, size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// The heap bytes `f`'s result holds (it is dropped after).
fn cost<T>(f: impl FnOnce() -> T) -> usize {
    let before = LIVE.load(Relaxed);
    let held = f();
    let after = LIVE.load(Relaxed);
    drop(held);
    after.saturating_sub(before)
}

fn status(field: &str) -> String {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with(field))
        .map(|l| l[field.len()..].trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn heap(label: &str) {
    println!(
        "{label}: heap {} (peak {}); VmRSS {}, VmHWM {}",
        mb(LIVE.load(Relaxed)),
        mb(PEAK.load(Relaxed)),
        status("VmRSS:"),
        status("VmHWM:")
    );
}

#[test]
#[ignore = "a measurement: run with --release --ignored --nocapture"]
fn memory_after_converging_a_large_deployment() {
    let replicas: usize = std::env::var("MEMORY_REPLICAS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let mut s = Session::sandbox();
    heap("start");
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
    heap("converged");

    let w = s.world();
    let mut seen = BTreeSet::new();
    let (mut decoded, mut as_values, mut cached) = (0, 0, 0);
    for p in w.processes() {
        for obj in p.caches.stores().into_iter().map(|(_, s)| s).flat_map(|s| s.values()) {
            cached += 1;
            if seen.insert(Arc::as_ptr(obj) as usize) {
                // A clone of a `Frozen` shares its interned keys, so this counts the tree's own bytes.
                decoded += cost(|| (**obj).clone());
                as_values += cost(|| obj.to_value());
            }
        }
    }
    println!(
        "  informer caches: {cached} entries, {} distinct objects, {} as Frozen trees (as cloned; {} as serde_json Values)",
        seen.len(),
        mb(decoded),
        mb(as_values)
    );
    println!("  stored JSON: {}", mb(w.api().stored_bytes()));
    println!("  records: {} kept, {}", w.history().len(), mb(cost(|| w.history().to_vec())));
    println!("  snapshots at steps {:?}", w.snapshot_steps());

    // Back to the start and forward again: the timeline keeps only the future the world dropped.
    s.goto(0);
    let end = s.timeline().len();
    heap("after going to the start");
    s.goto(end);
    heap("after going back to the end");
    assert_eq!(s.timeline().current(), end);
}
