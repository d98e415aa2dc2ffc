//! Time per API call at 1,000 and 20,000 objects (`cargo bench --bench apiserver`).
//!
//! The store holds N pods in namespace `bulk` plus 10 in `small`; the figures show that get and
//! update stay flat (O(log n)), that a LIST costs time proportional to its result (listing
//! `small` does not slow down as `bulk` grows), and what a full clone (a "step back" snapshot)
//! costs.

use std::hint::black_box;
use std::time::Instant;

use reconcile_lab::engine::apiserver::{ApiServer, Patch, Subresource, WatchFrom};
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::engine::labels::Selector;
use serde_json::{json, Value};

fn pod(ns: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
}

fn per_op(label: &str, n: usize, ops: usize, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    let each = t.elapsed().as_secs_f64() * 1e6 / ops as f64;
    println!("{label:<34} {n:>6} objects  {each:>10.2} µs/op");
}

/// The process's resident set size (Linux), to show what the objects cost in memory.
fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let pods = Kind::lookup("pods").expect("pods");
    for n in [1_000usize, 20_000] {
        let mut s = ApiServer::new(1);
        s.set_object_limit(n + 100);
        for ns in ["bulk", "small"] {
            s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})).expect("ns");
        }
        // A watch on pods so that every write is also checked against a watch, as in the lab
        // (its selector matches nothing, so that queued events do not count in the memory figure).
        let w =
            s.watch(pods, None, Selector::parse("app=none").expect("selector"), WatchFrom::Exact(s.resource_version()));
        per_op("create", n, n, || {
            for i in 0..n {
                s.create(pod("bulk", &format!("p-{i}"))).expect("create");
            }
        });
        for i in 0..10 {
            s.create(pod("small", &format!("s-{i}"))).expect("create small");
        }
        while s.next_event(w).is_some() {}
        if let Some(kb) = rss_kb() {
            println!("{:<34} {n:>6} objects  {:>10.1} MB (whole process)", "resident memory", kb as f64 / 1024.0);
            println!("{:<34} {n:>6} objects  {:>10.1} MB", "stored encodings", s.stored_bytes() as f64 / 1048576.0);
        }
        let ops = 2_000;
        per_op("get", n, ops, || {
            for i in 0..ops {
                black_box(s.get(pods, Some("bulk"), &format!("p-{}", i * 7 % n)).expect("get"));
            }
        });
        per_op("get_shared (Arc)", n, ops, || {
            for i in 0..ops {
                black_box(s.get_shared(pods, Some("bulk"), &format!("p-{}", i * 7 % n)).expect("get"));
            }
        });
        per_op("update (PUT)", n, ops, || {
            for i in 0..ops {
                let mut p = s.get(pods, Some("bulk"), &format!("p-{}", i * 7 % n)).expect("get");
                p["metadata"]["labels"]["round"] = json!(i.to_string());
                black_box(s.update(p).expect("update"));
            }
        });
        per_op("patch (merge)", n, ops, || {
            for i in 0..ops {
                let p = Patch::Merge(json!({"metadata": {"annotations": {"i": i.to_string()}}}));
                black_box(
                    s.patch(pods, Some("bulk"), &format!("p-{}", i * 7 % n), &p, Subresource::Main).expect("patch"),
                );
            }
        });
        while s.next_event(w).is_some() {}
        per_op("list namespace of 10", n, 200, || {
            for _ in 0..200 {
                black_box(s.list(pods, Some("small"), &Selector::everything()).expect("list"));
            }
        });
        per_op("list_shared namespace of 10", n, 200, || {
            for _ in 0..200 {
                black_box(s.list_shared(pods, Some("small"), &Selector::everything()));
            }
        });
        per_op("list all (result = n)", n, 5, || {
            for _ in 0..5 {
                black_box(s.list(pods, None, &Selector::everything()).expect("list"));
            }
        });
        per_op("clone (snapshot)", n, 5, || {
            for _ in 0..5 {
                black_box(s.clone());
            }
        });
    }
}
