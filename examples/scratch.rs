use reconcile_lab::engine::world::World;
use serde_json::json;
fn main() {
    let mut w = World::new(1);
    let s = w.run_until_idle(10000);
    println!("boot settled: {:?} steps={}", s, w.history().len());
    let d = json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}});
    w.create(d).unwrap();
    let start = w.history().len();
    let s = w.run_until_idle(10000);
    println!("settled: {:?}", s);
    for r in &w.history()[start..] { println!("{}", serde_json::to_string(&r.sentence).unwrap_or_default()); }
    let dep = w.api().get(reconcile_lab::engine::kinds::Kind::lookup("deploy").unwrap(), Some("default"), "web").unwrap();
    println!("{}", serde_json::to_string_pretty(&dep["status"]).unwrap());
}
