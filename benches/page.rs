//! What one press of "Step" costs the page, natively, without the browser (`cargo bench --bench
//! page`; add `-- --quick` for 100 and 1,000 pods only): a sandbox [`Session`] is brought to N
//! pods the way a learner would (`kubectl create deployment`, then `lab settle`), scaled by 20 so
//! that steps do real work, then stepped; each step is timed, and so is every view model the page
//! recomputes after it (each region's memo on the cluster's version), one row per model.
//!
//! Each view model is timed as the least of five runs (it only reads the world), so that a
//! machine shared with other work still shows what the model costs; the step runs once, and so do
//! the two models the page keeps across steps (the owner graph's `GraphCache`, the caches'
//! `RvMemo`), kept here the same way.
//! The browser adds the DOM work on top (scripts/bench-page.mjs measures that); this finds which
//! model to make cheaper. Figures depend on the machine's load; compare rows within one run.
//!
//! `-- --settle N [--views]` instead runs the engine side of the page's Run until idle for N pods
//! (the session's sliced run, snapshots and all) and prints its steps and time: short enough to
//! profile under `valgrind --tool=callgrind`.
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]

use std::hint::black_box;
use std::time::Instant;

use reconcile_lab::session::Session;
use reconcile_lab::views;

const STEPS: usize = 40;

fn settle(s: &mut Session) {
    for _ in 0..400 {
        let out = s.console_submit("lab settle");
        if out.chunks.iter().any(|c| c.1.contains("Settled after")) {
            return;
        }
    }
    panic!("the sandbox did not settle");
}

/// Microseconds of `f`, its result kept (so the work is not optimised away).
fn time<R>(f: impl FnOnce() -> R) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64() * 1e6
}

/// The least of five runs of a pure read: on a shared machine a run that the scheduler
/// interrupted is longer, never shorter, so the minimum is the cost of the work itself.
fn least<R>(f: impl Fn() -> R) -> f64 {
    (0..5).map(|_| time(&f)).fold(f64::INFINITY, f64::min)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn p95(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[(xs.len() * 95).div_ceil(100).saturating_sub(1)]
}

fn run(pods: usize) {
    let mut s = Session::sandbox();
    settle(&mut s);
    s.console_submit(&format!("kubectl create deployment web --image=nginx --replicas={pods}"));
    settle(&mut s);
    s.console_submit(&format!("kubectl scale deployment web --replicas={}", pods + 20));
    let names = [
        "Session::step",
        "what happens next (pending)",
        "narration",
        "watch events",
        "informer caches",
        "work queues",
        "conflicts",
        "owner graph",
        "objects",
        "leases",
        "cloud",
        "control plane map",
    ];
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); names.len() + 1];
    // The two models the page keeps from one step to the next, kept here too, so that each is
    // timed as the page computes it: once a step (the least of five would be a kept result).
    let mut graph = views::graph::GraphCache::default();
    let mut rvs = views::caches::RvMemo::default();
    for _ in 0..STEPS {
        let mut row = vec![time(|| s.step())];
        let w = s.world();
        let touched = || views::touched_by_last_step(w.history());
        row.push(least(|| s.pending()));
        row.push(least(|| s.narration()));
        row.push(least(|| views::watch::watch_streams(w)));
        row.push(time(|| views::caches::process_caches_with(w, &mut rvs)));
        row.push(least(|| views::queues::queue_views(w)));
        row.push(least(|| views::conflicts::conflicts(w)));
        row.push(time(|| (graph.unmarked(w), graph.touched_ids(&touched()))));
        row.push(least(|| views::objects::object_groups(w, &touched())));
        row.push(least(|| views::leases::leases(w)));
        row.push(least(|| views::cloud::cloud_buckets(w)));
        row.push(least(|| views::map::control_plane(w, 1000)));
        let total: f64 = row.iter().sum();
        row.push(total);
        for (i, v) in row.into_iter().enumerate() {
            samples[i].push(v);
        }
    }
    println!();
    println!("{pods} pods ({STEPS} steps after a scale to {}):", pods + 20);
    println!();
    println!("| part | median µs | p95 µs |");
    println!("|---|---|---|");
    for (i, name) in names.iter().chain(std::iter::once(&"all of the above")).enumerate() {
        let xs = samples[i].clone();
        println!("| {name} | {:.0} | {:.0} |", median(xs.clone()), p95(xs));
    }
}

/// `--settle N [--views]`: what Run until idle costs the page's engine side for N pods: a fresh
/// sandbox, `kubectl create deployment web --image=nginx --replicas=N`, then
/// `Session::settle_slice` in slices of 1,000 steps (the page sizes its slices by time; the
/// steps and their records are the same) until "Settled". With `--views`, every view model is
/// recomputed after each slice, as the page's redraw would. Prints the steps and the wall time
/// (short enough to profile: `valgrind --tool=callgrind`), then what a Step back from the end
/// costs (snapshots are spaced by the cluster's size: `SNAPSHOT_SPACING_PER_OBJECTS`).
fn settle_only(pods: usize, with_views: bool) {
    let mut s = Session::sandbox();
    settle(&mut s);
    s.console_submit(&format!("kubectl create deployment web --image=nginx --replicas={pods}"));
    let t = Instant::now();
    let p0 = s.world().position();
    let mut slices = 0;
    let done = loop {
        slices += 1;
        if let Some(done) = s.settle_slice(1000) {
            break done;
        }
        if with_views {
            let w = s.world();
            let touched = views::touched_by_last_step(w.history());
            black_box(s.pending());
            black_box(s.narration());
            black_box(views::watch::watch_streams(w));
            black_box(views::caches::process_caches(w));
            black_box(views::queues::queue_views(w));
            black_box(views::conflicts::conflicts(w));
            black_box(views::graph::owner_graph(w, &touched));
            black_box(views::objects::object_groups(w, &touched));
            black_box(views::leases::leases(w));
            black_box(views::cloud::cloud_buckets(w));
            black_box(views::map::control_plane(w, 1000));
        }
    };
    println!(
        "settle {pods} pods: {} steps in {slices} slices, {:.2} s, {done:?}",
        s.world().position() - p0,
        t.elapsed().as_secs_f64()
    );
    // Step back from the end: the newest snapshot at or before the step, then a replay.
    let end = s.world().position();
    let t = Instant::now();
    s.step_back();
    let snapshot = s.world().snapshot_steps().into_iter().rfind(|at| *at < end).unwrap_or(0);
    println!(
        "then Step back: {:.0} ms (a replay of {} steps from the snapshot at step {snapshot})",
        t.elapsed().as_secs_f64() * 1000.0,
        end - 1 - snapshot
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(n) = args.iter().position(|a| a == "--settle").and_then(|i| args.get(i + 1)) {
        settle_only(n.parse().expect("--settle N: a number of pods"), args.iter().any(|a| a == "--views"));
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let sizes: &[usize] = if quick { &[100, 1000] } else { &[100, 1000, 5000] };
    for &n in sizes {
        run(n);
    }
}
