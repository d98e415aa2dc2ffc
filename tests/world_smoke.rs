use reconcile_lab::engine::world::*;
use serde_json::json;

#[test]
fn smoke() {
    let mut w = World::new(1);
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    w.create(d).unwrap();
    let s = w.run_until_idle(2000);
    for r in w.history() {
        println!("{} {} | {}", r.number, r.time, r.sentence);
    }
    println!("{s:?}");
    let k = reconcile_lab::engine::kinds::Kind::by_kind("Deployment").unwrap();
    println!("{}", serde_json::to_string_pretty(&w.api().get(k, Some("default"), "web").unwrap()).unwrap());
}
