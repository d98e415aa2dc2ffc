//! World benchmarks: prints a table. Run with `cargo bench --bench world` (add `-- --quick` to
//! skip the 10,000-replica case).
//!
//! - steps per second and virtual/wall time to converge a Deployment of 1,000 and 10,000 replicas
//!   from scratch (three nodes, default kubelet timings);
//! - the cost of one step while unrelated objects (ConfigMaps in another namespace) grow from
//!   100 to 20,000: it should stay flat.
//!
//! Deleting with each propagation policy needs the garbage collector, which another part of the
//! engine adds; the table says so until it is registered.

use std::time::{Duration, Instant};

use reconcile_lab::engine::world::{Settled, World};
use serde_json::json;

fn deployment(replicas: i64) -> serde_json::Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
}

fn converge(replicas: i64) {
    let mut w = World::new(1);
    w.set_snapshot_every(0);
    w.run_until_idle(1000);
    w.create(deployment(replicas)).expect("create");
    let (t0, v0, n0) = (Instant::now(), w.now(), w.history().len());
    let settled = w.run_until_idle(50_000_000);
    let wall = t0.elapsed();
    let steps = w.history().len() - n0;
    let ok = matches!(settled, Settled::Idle { .. });
    println!(
        "| converge {replicas:>6} replicas | {steps:>9} steps | {:>9.2} s wall | {:>9.0} steps/s | {:>8} virtual | {} |",
        wall.as_secs_f64(),
        steps as f64 / wall.as_secs_f64(),
        format!("{:?}", w.now().since(v0)),
        if ok { "settled" } else { "HOT LOOP" }
    );
}

fn cost_per_step(unrelated: usize) {
    let mut w = World::new(2);
    w.set_snapshot_every(0);
    w.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})).expect("ns");
    for i in 0..unrelated {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("cm-{i}"), "namespace": "other"},
                        "data": {"k": "v"}});
        w.create(cm).expect("cm");
    }
    w.run_until_idle(1000);
    w.create(deployment(30)).expect("create");
    let (t0, n0) = (Instant::now(), w.history().len());
    w.run_until_idle(1_000_000);
    w.advance(Duration::from_secs(120));
    let steps = w.history().len() - n0;
    println!(
        "| {unrelated:>6} unrelated objects | {steps:>6} steps | {:>8.1} µs/step |",
        t0.elapsed().as_micros() as f64 / steps as f64
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    println!("| scenario | steps | wall | rate | virtual time | result |");
    println!("|---|---|---|---|---|---|");
    converge(1_000);
    if !quick {
        converge(10_000);
    }
    println!();
    println!("| unrelated objects | steps | cost per step |");
    println!("|---|---|---|");
    for n in [100, 1_000, 5_000, 20_000] {
        cost_per_step(n);
    }
    println!();
    println!("Cascading deletion (Background, Foreground, Orphan): needs the garbage collector (not registered yet).");
}
