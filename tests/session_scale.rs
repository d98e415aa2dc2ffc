//! How long the session's intents take with 1,000 pods, natively (prints figures; run with
//! `cargo test --release --test session_scale -- --ignored --nocapture`).

use reconcile_lab::engine::world::Settled;
use reconcile_lab::session::Session;
use std::time::Instant;

#[test]
#[ignore = "a measurement, run by hand in release mode"]
fn step_cost_with_1000_pods() {
    let mut s = Session::sandbox();
    s.console_submit("kubectl create deployment big --image=nginx --replicas=1000");
    let t0 = Instant::now();
    // Run until idle has no step cap: one call converges.
    let Settled::Idle { steps: total } = s.run_until_idle() else { panic!("1,000 pods converge") };
    let spent = t0.elapsed();
    println!("converged 1,000 pods in {total} steps, {spent:?} ({:?}/step)", spent / total as u32);
    s.console_submit("kubectl scale deployment big --replicas=999");
    let t0 = Instant::now();
    for _ in 0..50 {
        s.step();
        let _ = s.pending();
    }
    println!("step + pending at 1,000 pods: {:?} each", t0.elapsed() / 50);
}
