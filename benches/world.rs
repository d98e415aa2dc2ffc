//! World benchmarks: prints tables. Run with `cargo bench --bench world` (add `-- --quick` to
//! skip the 10,000-replica cases, `-- --unrelated` for the last table only; `--converge N`,
//! `--delete N` and `--digest N` are single runs, described at their functions).
//!
//! - steps per second and virtual/wall time to converge a Deployment of 1,000 and 10,000 replicas
//!   from scratch (three nodes, default kubelet timings);
//! - the same for deleting that Deployment with each propagation policy (Background,
//!   Foreground, Orphan), from the same converged state, until the world is idle again;
//! - the cost of one step while unrelated objects (ConfigMaps in another namespace) grow from
//!   100 to 20,000: it should stay flat.

use std::time::{Duration, Instant};

use reconcile_lab::engine::apiserver::{DeleteOptions, Propagation};
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::world::{Settled, World};
use serde_json::json;

fn deployment(replicas: i64) -> serde_json::Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
}

fn count(w: &World, kind: &str) -> usize {
    let k = Kind::by_kind(kind).expect("built-in kind");
    w.api().list(k, Some("default"), &Selector::everything()).map_or(0, |l| l.items.len())
}

/// A world (seed 1, no snapshots, the last 10,000 records kept) that has settled, then been
/// given a Deployment of `replicas`: where every run of this table starts.
fn started(replicas: i64) -> World {
    let mut w = World::new(1);
    w.set_snapshot_every(0);
    w.set_history_limit(Some(10_000));
    w.run_until_idle(1000);
    w.create(deployment(replicas)).expect("create");
    w
}

/// Runs until idle and prints one row: steps, wall time, steps/s, virtual time, and `what`.
fn measure(w: &mut World, scenario: &str, what: impl Fn(&World) -> String) {
    let (t0, v0, n0) = (Instant::now(), w.now(), w.position());
    let settled = w.run_until_idle(50_000_000);
    let wall = t0.elapsed();
    let steps = w.position() - n0;
    let result = match settled {
        Settled::Idle { .. } => what(w),
        Settled::HotLoop { .. } => "HOT LOOP".to_string(),
        Settled::Working { .. } => "NOT SETTLED".to_string(),
    };
    println!(
        "| {scenario:<28} | {steps:>9} | {:>9.2} s | {:>9.0} | {:>10} | {result} |",
        wall.as_secs_f64(),
        steps as f64 / wall.as_secs_f64().max(1e-9),
        format!("{:?}", w.now().since(v0)),
    );
}

/// Converges a Deployment of `replicas`, then deletes it with each propagation policy, each time
/// from the same converged state (a snapshot; going back to it costs no replay).
fn converge_and_delete(replicas: i64) {
    let mut w = started(replicas);
    measure(&mut w, &format!("converge {replicas} replicas"), |w| {
        format!("{} pods, {} ReplicaSet", count(w, "Pod"), count(w, "ReplicaSet"))
    });
    // One snapshot right here.
    w.set_snapshot_every(1);
    w.advance(Duration::from_millis(1));
    w.set_snapshot_every(0);
    let converged = w.position();
    for policy in [Propagation::Background, Propagation::Foreground, Propagation::Orphan] {
        w.goto(converged);
        let options = DeleteOptions { propagation_policy: Some(policy), ..DeleteOptions::default() };
        w.delete(Kind::by_kind("Deployment").expect("kind"), Some("default"), "web", options).expect("delete");
        measure(&mut w, &format!("delete {replicas}, {}", policy.as_str()), |w| {
            format!(
                "{} Deployment, {} ReplicaSet, {} pods left",
                count(w, "Deployment"),
                count(w, "ReplicaSet"),
                count(w, "Pod")
            )
        });
    }
}

fn cost_per_step(unrelated: usize) {
    let mut w = World::new(2);
    w.set_snapshot_every(0);
    w.set_history_limit(Some(10_000));
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})).expect("ns");
    for i in 0..unrelated {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("cm-{i}"), "namespace": "other"},
                        "data": {"k": "v"}});
        w.create(cm).expect("cm");
    }
    // The garbage collector lists and handles every ConfigMap first: not part of the measurement.
    w.run_until_idle(10_000_000);
    w.create(deployment(30)).expect("create");
    let (t0, n0) = (Instant::now(), w.position());
    w.run_until_idle(1_000_000);
    w.advance(Duration::from_secs(120));
    let steps = w.position() - n0;
    println!(
        "| {unrelated:>6} unrelated objects | {steps:>6} steps | {:>8.1} µs/step |",
        t0.elapsed().as_micros() as f64 / steps as f64
    );
}

/// `--converge N`: converges one Deployment of N replicas and prints its row, nothing else (a
/// short run to profile, e.g. under `valgrind --tool=callgrind`).
fn converge_only(replicas: i64) {
    let mut w = started(replicas);
    measure(&mut w, &format!("converge {replicas} replicas"), |w| {
        format!("{} pods, {} ReplicaSet", count(w, "Pod"), count(w, "ReplicaSet"))
    });
}

/// `--delete N`: converges one Deployment of N replicas, unmeasured, then deletes it
/// (background) and prints that row only (a run to profile the deletion).
fn delete_only(replicas: i64) {
    let mut w = started(replicas);
    w.run_until_idle(50_000_000);
    let options = DeleteOptions { propagation_policy: Some(Propagation::Background), ..DeleteOptions::default() };
    w.delete(Kind::by_kind("Deployment").expect("kind"), Some("default"), "web", options).expect("delete");
    measure(&mut w, &format!("delete {replicas}, Background"), |w| format!("{} pods left", count(w, "Pod")));
}

/// `--digest N`: converges N replicas and deletes them (background), then prints the step count
/// and a digest (FNV-1a) of every record, of every stored object once converged and every 2,000
/// steps of the deletion (pods mid-termination included), and of every object left: two builds
/// that print the same line took the same steps with the same records and wrote the same
/// objects. For checking that a speed-up changed nothing.
fn digest(replicas: i64) {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |s: &str| {
        for b in s.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let mut w = World::new(1);
    w.set_snapshot_every(0);
    w.run_until_idle(1000);
    w.create(deployment(replicas)).expect("create");
    w.run_until_idle(50_000_000);
    for o in w.api().all_objects() {
        eat(&o.to_string());
    }
    let options = DeleteOptions { propagation_policy: Some(Propagation::Background), ..DeleteOptions::default() };
    w.delete(Kind::by_kind("Deployment").expect("kind"), Some("default"), "web", options).expect("delete");
    while let Settled::Working { .. } = w.run_until_idle(2_000) {
        for o in w.api().all_objects() {
            eat(&o.to_string());
        }
    }
    for r in w.history() {
        eat(&format!("{r:?}"));
    }
    let records = w.history().len();
    for o in w.api().all_objects() {
        eat(&o.to_string());
    }
    println!("digest {replicas} replicas: {records} records, {} objects, {h:016x}", w.api().all_objects().count());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(n) = args.iter().position(|a| a == "--digest").and_then(|i| args.get(i + 1)) {
        digest(n.parse().expect("--digest N: a number of replicas"));
        return;
    }
    if let Some(n) = args.iter().position(|a| a == "--delete").and_then(|i| args.get(i + 1)) {
        delete_only(n.parse().expect("--delete N: a number of replicas"));
        return;
    }
    if let Some(n) = args.iter().position(|a| a == "--converge").and_then(|i| args.get(i + 1)) {
        converge_only(n.parse().expect("--converge N: a number of replicas"));
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let only_unrelated = std::env::args().any(|a| a == "--unrelated");
    if !only_unrelated {
        println!("| scenario | steps | wall | steps/s | virtual time | result |");
        println!("|---|---|---|---|---|---|");
        converge_and_delete(1_000);
        if !quick {
            converge_and_delete(10_000);
        }
        println!();
    }
    println!("| unrelated objects | steps | cost per step |");
    println!("|---|---|---|");
    for n in [100, 1_000, 5_000, 20_000] {
        cost_per_step(n);
    }
}
