//! "Leases": the Lease objects (coordination.k8s.io/v1) with holder, renew time and transitions,
//! and the controller-manager replicas: which one leads and acts (client-go
//! `tools/leaderelection/leaderelection.go`, `tryAcquireOrRenew`:
//! only the leader's controllers run; a standby takes over after a full lease duration without a
//! renewal seen on its own clock).

use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::world::World;

/// One Lease.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LeaseView {
    /// `kube-system/kube-controller-manager`.
    pub key: String,
    /// `spec.holderIdentity`, or `(none)`.
    pub holder: String,
    /// `spec.renewTime`, or `-`.
    pub renew_time: String,
    /// `spec.leaseTransitions`.
    pub transitions: i64,
    /// `spec.leaseDurationSeconds`.
    pub duration_seconds: i64,
    /// `metadata.resourceVersion`.
    pub resource_version: u64,
}

/// One replica of a process that elects a leader.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaView {
    /// `kube-controller-manager-a`.
    pub process: String,
    /// Its leader-election identity (`host_uuid`).
    pub identity: String,
    /// `leader, acting`, `standby`, `stopped`, with `, partitioned` when cut off.
    pub state: String,
    /// Whether its controllers act now.
    pub acting: bool,
}

/// Every Lease in every namespace.
pub fn leases(world: &World) -> Vec<LeaseView> {
    let Some(kind) = Kind::by_kind("Lease") else { return Vec::new() };
    let items = world.api().list(kind, None, &Selector::everything()).map(|l| l.items).unwrap_or_default();
    items
        .iter()
        .map(|l| {
            let spec = &l["spec"];
            LeaseView {
                key: l.key(),
                holder: spec["holderIdentity"].as_str().unwrap_or("(none)").to_string(),
                renew_time: spec["renewTime"].as_str().unwrap_or("-").to_string(),
                transitions: spec["leaseTransitions"].as_i64().unwrap_or(0),
                duration_seconds: spec["leaseDurationSeconds"].as_i64().unwrap_or(0),
                resource_version: l.resource_version(),
            }
        })
        .collect()
}

/// The processes that elect a leader, with who acts.
pub fn replicas(world: &World) -> Vec<ReplicaView> {
    world
        .processes()
        .iter()
        .filter_map(|p| {
            let e = p.elector.as_ref()?;
            let mut state = match (p.running, p.leading()) {
                (false, _) => "stopped".to_string(),
                (true, true) => "leader, acting".to_string(),
                (true, false) => "standby".to_string(),
            };
            if p.partitioned {
                state.push_str(", partitioned");
            }
            Some(ReplicaView { process: p.name.clone(), identity: e.identity().to_string(), state, acting: p.active() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_replica_leads_and_holds_the_lease() {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        let rs = replicas(&w);
        assert_eq!(rs.len(), 2, "{rs:?}");
        let acting: Vec<&ReplicaView> = rs.iter().filter(|r| r.acting).collect();
        assert_eq!(acting.len(), 1);
        assert_eq!(acting[0].state, "leader, acting");
        let ls = leases(&w);
        let kcm = ls.iter().find(|l| l.key == "kube-system/kube-controller-manager").unwrap();
        assert_eq!(kcm.holder, acting[0].identity);
        assert_ne!(kcm.renew_time, "-");
        assert_eq!(kcm.duration_seconds, 15);
        // Stop the leader: it shows as stopped, and the standby takes over in time.
        let leader = acting[0].process.clone();
        w.stop_process(&leader).unwrap();
        assert!(replicas(&w).iter().any(|r| r.process == leader && r.state == "stopped" && !r.acting));
        w.advance(std::time::Duration::from_secs(30));
        w.run_until_idle(2000);
        let after = replicas(&w);
        let new_leader = after.iter().find(|r| r.acting).unwrap();
        assert_ne!(new_leader.process, leader);
        let kcm = leases(&w).into_iter().find(|l| l.key == "kube-system/kube-controller-manager").unwrap();
        assert_eq!(kcm.holder, new_leader.identity);
        assert!(kcm.transitions >= 1);
    }
}
