//! What a new World is made of: the Nodes, the processes of the control plane in their order
//! (the tie-break order of simultaneous actions), the controllers each runs, and their names.

use std::time::Duration;

use serde_json::{json, Value};

use super::process::Process;
use super::slot::Slot;
use super::{State, World};
use crate::engine::apiserver::ApiServer;
use crate::engine::client::{LeaderElectionConfig, LeaderElector};
use crate::engine::cloud::Cloud;
use crate::engine::controllers::bucket::BucketController;
use crate::engine::controllers::deployment::DeploymentController;
use crate::engine::controllers::edgetriggered::{PodCounter, Trigger};
use crate::engine::controllers::garbagecollector::GarbageCollector;
use crate::engine::controllers::kubelet::{Kubelet, KubeletConfig};
use crate::engine::controllers::namespace::NamespaceController;
use crate::engine::controllers::replicaset::ReplicaSetController;
use crate::engine::controllers::scheduler::Scheduler;
use crate::engine::controllers::{Caches, Controller};
use crate::engine::rand::Rng;
use crate::engine::time::Time;

/// The controllers every kube-controller-manager replica runs, in registration order.
pub fn controller_manager_controllers() -> Vec<Box<dyn Controller>> {
    vec![
        Box::new(DeploymentController::new()),
        Box::new(ReplicaSetController::new()),
        Box::new(GarbageCollector::new()),
        Box::new(NamespaceController::new()),
    ]
}

/// A controller-manager replica's leader elector: client-go's (`engine::client::leaderelection`)
/// on the Lease `kube-system/kube-controller-manager` with the defaults (15 s / 10 s / 2 s) and,
/// like kube-controller-manager's (cmd/kube-controller-manager/app/controllermanager.go,
/// `leaderElectAndRun`: no `ReleaseOnCancel`), no release on a clean stop: the standby takes
/// over once the Lease expires. Its first attempt is due at `first_try`.
pub(super) fn controller_manager_elector(identity: String, first_try: Time) -> LeaderElector {
    LeaderElector::new(LeaderElectionConfig::new("kube-system", "kube-controller-manager", &identity), first_try)
}

/// The Bucket operator: a single process running the Bucket controller (a custom resource's
/// controller runs outside kube-controller-manager, as an operator does).
pub const BUCKET_OPERATOR: &str = "bucket-operator";
/// The edge- versus level-triggered pod counters (lesson `missed-events`): a process that is
/// stopped in a new world; `start_process(POD_COUNTERS)` starts it.
pub const POD_COUNTERS: &str = "pod-counters";

/// The names of the processes, in order.
pub const CONTROLLER_MANAGER_A: &str = "kube-controller-manager-a";
/// The second controller-manager replica.
pub const CONTROLLER_MANAGER_B: &str = "kube-controller-manager-b";
/// The scheduler.
pub const SCHEDULER: &str = "kube-scheduler";
/// The kubelets.
pub const KUBELET: &str = "kubelet";
/// The Nodes a new world has.
pub const NODES: [&str; 3] = ["node-1", "node-2", "node-3"];

fn node_object(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}}, "spec": {}})
}

fn node_status(name: &str, index: usize, now: Time) -> Value {
    let t = now.rfc3339();
    let c = |ty: &str, st: &str, reason: &str, msg: &str| json!({"type": ty, "status": st, "lastHeartbeatTime": t, "lastTransitionTime": t, "reason": reason, "message": msg});
    json!({
        "capacity": {"cpu": "4", "memory": "8124360Ki", "pods": "110"},
        "allocatable": {"cpu": "4", "memory": "8021960Ki", "pods": "110"},
        "conditions": [
            c("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            c("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            c("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            c("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        "addresses": [{"type": "InternalIP", "address": format!("10.0.0.{}", 11 + index)}, {"type": "Hostname", "address": name}],
        "nodeInfo": {"kubeletVersion": "v1.34.0", "containerRuntimeVersion": "containerd://2.1.3",
                     "operatingSystem": "linux", "architecture": "amd64"},
    })
}

impl World {
    /// A new cluster: API server with its default namespaces, three Ready Nodes, two
    /// controller-manager replicas (no leader yet), the scheduler and the kubelets.
    pub fn new(seed: u64) -> World {
        World::with_kubelet_config(seed, KubeletConfig::default())
    }

    /// Like [`World::new`], with kubelet timings of your choice.
    pub fn with_kubelet_config(seed: u64, kubelet: KubeletConfig) -> World {
        let mut api = ApiServer::new(seed);
        let now = Time::START;
        api.set_now(now);
        for (i, n) in NODES.iter().enumerate() {
            if let Ok(mut node) = api.create(node_object(n)) {
                node["status"] = node_status(n, i, now);
                let _ = api.update_status(node);
            }
        }
        let mut rng = Rng::new(seed ^ 0x00C0_FFEE);
        let mut processes = Vec::new();
        for (name, host) in [(CONTROLLER_MANAGER_A, "control-plane-a"), (CONTROLLER_MANAGER_B, "control-plane-b")] {
            let identity = format!("{host}_{}", rng.uuid_v4());
            processes.push(Process {
                name: name.into(),
                host: host.into(),
                running: true,
                elector: Some(controller_manager_elector(identity, now)),
                partitioned: false,
                api_fails_until: None,
                conflict_armed: false,
                frozen_since: None,
                caches: Caches::default(),
                slots: controller_manager_controllers().into_iter().map(Slot::new).collect(),
            });
        }
        let single: Vec<(&str, Box<dyn Controller>)> =
            vec![(SCHEDULER, Box::new(Scheduler::new())), (KUBELET, Box::new(Kubelet::new(kubelet)))];
        let operators: Vec<(&str, Vec<Box<dyn Controller>>)> = vec![
            (BUCKET_OPERATOR, vec![Box::new(BucketController::new())]),
            (
                POD_COUNTERS,
                vec![
                    Box::new(PodCounter::new(Trigger::Edge, "default")),
                    Box::new(PodCounter::new(Trigger::Level, "default")),
                ],
            ),
        ];
        let single: Vec<(&str, Vec<Box<dyn Controller>>)> =
            single.into_iter().map(|(n, c)| (n, vec![c])).chain(operators).collect();
        for (name, cs) in single {
            let mut p = Process {
                name: name.into(),
                host: "control-plane-a".into(),
                running: name != POD_COUNTERS,
                elector: None,
                partitioned: false,
                api_fails_until: None,
                conflict_armed: false,
                frozen_since: None,
                caches: Caches::default(),
                slots: cs.into_iter().map(Slot::new).collect(),
            };
            if p.running {
                // The scheduler's informer factory has no resync (0); nor do the kubelets or the
                // lab's operators.
                p.start(now, Duration::ZERO);
            }
            processes.push(p);
        }
        let state = State {
            api,
            now,
            rng,
            processes,
            event_seq: 0,
            cloud: Cloud::new(),
            queue_seq: 0,
            changes: 0,
            last_change_rv: 0,
            busy: 0,
            resync_rng: Rng::new(seed ^ 0x5E5C_0000_0000_0000),
            revoked: Default::default(),
            loops: Default::default(),
        };
        World {
            seed,
            snapshots: vec![(0, state.clone())],
            state,
            history: Vec::new(),
            history_dead: 0,
            history_base: 0,
            history_limit: None,
            inputs: Vec::new(),
            snapshot_every: 200,
            snapshot_budget: None,
            replaying: false,
        }
    }
}

/// The service account a kube-controller-manager controller uses with
/// `--use-service-account-credentials` (kubeadm's default), as its bootstrap RBAC names it
/// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go): `None` for anything
/// else.
pub fn service_account(controller: &str) -> Option<&'static str> {
    match controller {
        "deployment-controller" => Some("deployment-controller"),
        "replicaset-controller" => Some("replicaset-controller"),
        "garbage-collector-controller" => Some("generic-garbage-collector"),
        "namespace-controller" => Some("namespace-controller"),
        _ => None,
    }
}
