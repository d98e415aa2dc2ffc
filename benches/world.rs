//! World benchmarks (prints a table; run with `cargo bench --bench world`).
use std::time::{Duration, Instant};

use reconcile_lab::engine::world::World;
use serde_json::json;

fn slow_case() {
    use reconcile_lab::engine::apiserver::Patch;
    use reconcile_lab::engine::kinds::Kind;
    let dk = Kind::by_kind("Deployment").unwrap();
    let mk = |n: &str, r: i64| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": n, "namespace": "default"},
        "spec": {"replicas": r, "selector": {"matchLabels": {"app": n}},
                 "template": {"metadata": {"labels": {"app": n}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
    };
    let mut w = World::new(394);
    w.set_snapshot_every(0);
    let t = Instant::now();
    for _ in 0..181 {
        w.step();
    }
    let _ = w.patch(dk, Some("default"), "web", Patch::Merge(json!({"spec": {"replicas": 4}})));
    for _ in 0..43 {
        w.step();
    }
    let _ = w.break_watch("kube-controller-manager-a", "ReplicaSet");
    let _ = w.create(mk("api", 1));
    let _ = w.break_watch("kube-controller-manager-b", "Deployment");
    let _ = w.patch(dk, Some("default"), "api", Patch::Merge(json!({"spec": {"replicas": 4}})));
    for _ in 0..39 {
        w.step();
    }
    let _ = w.restart_process("kube-controller-manager-b");
    w.advance(Duration::from_secs(38));
    println!("slow case part 1: {:?} {} steps", t.elapsed(), w.history().len());
    let mut counts = std::collections::BTreeMap::new();
    for r in w.history() {
        *counts.entry(format!("{} {}", r.actor, r.action.as_str())).or_insert(0) += 1;
    }
    println!("{counts:#?}");
    for r in w.history().iter().skip(1000).take(30) {
        println!("{} {}", r.time, r.sentence);
    }
    let t = Instant::now();
    let n0 = w.history().len();
    w.advance(Duration::from_secs(70));
    w.run_until_idle(20000);
    println!("slow case part 2: {:?} {} steps", t.elapsed(), w.history().len() - n0);
}

fn main() {
    slow_case();
    let mut w = World::new(1);
    w.set_snapshot_every(0);
    w.create(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})).unwrap();
    let t = Instant::now();
    w.run_until_idle(100_000);
    println!("converge 3: {:?} {} steps", t.elapsed(), w.history().len());
    let t = Instant::now();
    let n0 = w.history().len();
    w.advance(Duration::from_secs(600));
    let n = w.history().len() - n0;
    println!("idle 600s: {:?} {} steps, {:.1} us/step", t.elapsed(), n, t.elapsed().as_micros() as f64 / n as f64);
}
