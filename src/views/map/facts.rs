//! What the picture reads from the world: per process, its informers, queues and state.

use super::*;

// ----- facts read from the world -----

pub(super) struct InformerFacts {
    pub(super) kind: &'static str,
    pub(super) cached: usize,
    pub(super) rv: u64,
    pub(super) state: WatchState,
    /// `relist 1.2s`, `broken`, `lists next`: at most 11 characters.
    pub(super) short: String,
    /// `watching from resourceVersion 12`.
    pub(super) words: String,
    pub(super) in_flight: usize,
}

pub(super) struct QueueFacts {
    pub(super) controller: String,
    pub(super) queue: String,
    pub(super) workers: usize,
    pub(super) held: Vec<String>,
    pub(super) dirty: BTreeSet<String>,
    pub(super) waiting: usize,
    /// The first waiting keys, in the order `Get` hands them out.
    pub(super) front: Vec<String>,
    /// Delayed keys, soonest first: key, time left, retries.
    pub(super) delayed: Vec<(String, Duration, u32)>,
    pub(super) delayed_total: usize,
    pub(super) requeues: BTreeMap<String, u32>,
}

pub(super) struct ProcessFacts<'w> {
    pub(super) p: &'w Process,
    pub(super) state: ProcessState,
    /// Words after the state: `Lease held, 13.8s left`, `partitioned`.
    pub(super) status: String,
    pub(super) informers: Vec<InformerFacts>,
    pub(super) queues: Vec<QueueFacts>,
    pub(super) nodes: Vec<String>,
    pub(super) note: Option<&'static str>,
}

/// Keys a queue row can show at most (the row cuts further to what fits).
pub(super) const KEYS_READ: usize = 12;

/// Whether `name`'s last stop, in the recent records, was a crash (`lab kill`), from the fault's
/// sentence (`World::fault`: "{name} crashed: ...", "{name} stopped cleanly ...").
pub(super) fn crashed(history: &[StepRecord], name: &str) -> bool {
    for r in history.iter().rev().filter(|r| r.action == ActionKind::Fault) {
        if let Some(rest) = r.sentence.strip_prefix(name) {
            if rest.starts_with(" crashed") {
                return true;
            }
            if rest.starts_with(" stopped") || rest.starts_with(" started") {
                return false;
            }
        }
    }
    false
}

/// The controller-manager Lease as recorded on the server.
pub(super) fn lease_record(world: &World) -> Option<LeaderElectionRecord> {
    let kind = Kind::by_kind("Lease")?;
    let lease = world.api().get(kind, Some("kube-system"), "kube-controller-manager").ok()?;
    Some(LeaderElectionRecord::from_lease_spec(lease.get("spec")?))
}

/// `control-plane-a_2f6c…` -> `control-plane-a`: the host half of an identity.
pub(super) fn host_of(identity: &str) -> &str {
    identity.split('_').next().unwrap_or(identity)
}

pub(super) fn informer_facts(world: &World, p: &Process) -> Vec<InformerFacts> {
    let now = world.now();
    p.informers()
        .iter()
        .map(|inf| {
            let rv = inf.last_sync_resource_version();
            let (state, short, words, in_flight) = match *inf.state() {
                ReflectorState::NotStarted => {
                    (WatchState::Listing, "lists next".to_string(), "has not listed yet: it lists next".to_string(), 0)
                }
                ReflectorState::Watching(id) if world.api().watch_is_open(id) && !p.partitioned => {
                    let n = world.api().pending_events(id).len();
                    (WatchState::Open, "watching".to_string(), format!("watching from resourceVersion {rv}"), n)
                }
                ReflectorState::Watching(id) => {
                    let n = world.api().pending_events(id).len();
                    (WatchState::Broken, "ended".to_string(), "its watch ended: it watches again next".to_string(), n)
                }
                ReflectorState::BackingOff { until } => {
                    let left = until.since(now);
                    let short = if left.is_zero() {
                        "relist now".to_string()
                    } else {
                        format!("relist {}", short_duration(left))
                    };
                    let words = if left.is_zero() {
                        "its watch broke: it relists now".to_string()
                    } else {
                        format!("its watch broke: it relists in {}", short_duration(left))
                    };
                    (WatchState::Broken, short, words, 0)
                }
                ReflectorState::RewatchAt { until } => {
                    let left = until.since(now);
                    (
                        WatchState::Broken,
                        format!("rewatch {}", short_duration(left)),
                        format!(
                            "its watch broke: it watches again from resourceVersion {rv} in {}",
                            short_duration(left)
                        ),
                        0,
                    )
                }
                ReflectorState::Stopped => (WatchState::Stopped, "stopped".to_string(), "stopped".to_string(), 0),
            };
            InformerFacts { kind: inf.kind().kind, cached: inf.indexer().len(), rv, state, short, words, in_flight }
        })
        .collect()
}

pub(super) fn queue_facts(world: &World, p: &Process) -> Vec<QueueFacts> {
    let now = world.now();
    p.slots
        .iter()
        .map(|slot| {
            let q = slot.queue();
            let held: Vec<String> = slot.held().iter().map(|(_, k)| k.clone()).collect();
            let dirty: BTreeSet<String> = crate::sort::btree_set(q.dirty_while_processing().cloned());
            let front: Vec<String> = q.waiting_keys().take(KEYS_READ).cloned().collect();
            let all_delayed = q.delayed_keys();
            let delayed_total = all_delayed.len();
            let delayed: Vec<(String, Duration, u32)> =
                all_delayed.into_iter().take(KEYS_READ).map(|d| (d.key, d.ready_at.since(now), d.requeues)).collect();
            let mut requeues = BTreeMap::new();
            for k in held.iter().chain(&front) {
                let n = q.num_requeues(k);
                if n > 0 {
                    requeues.insert(k.clone(), n);
                }
            }
            QueueFacts {
                controller: slot.controller.name().to_string(),
                queue: q.name().to_string(),
                workers: slot.workers,
                held,
                dirty,
                waiting: q.len(),
                front,
                delayed,
                delayed_total,
                requeues,
            }
        })
        .collect()
}

pub(super) fn process_facts<'w>(world: &'w World, lease: Option<&LeaderElectionRecord>) -> Vec<ProcessFacts<'w>> {
    let now = world.now();
    let history = recent(world.history());
    world
        .processes()
        .iter()
        .map(|p| {
            let state = match (&p.elector, p.running) {
                (_, false) if crashed(history, &p.name) => ProcessState::Crashed,
                (_, false) => ProcessState::Stopped,
                (Some(e), true) if e.is_leading() => ProcessState::Leading,
                (Some(_), true) => ProcessState::Standby,
                (None, true) => ProcessState::Running,
            };
            let mut status: Vec<String> = Vec::new();
            if let (Some(e), Some(l)) = (&p.elector, lease) {
                let expires = l.renew_time.after(Duration::from_secs(l.lease_duration_seconds.max(0) as u64));
                let left = if expires > now { short_duration(expires.since(now)) } else { "expired".to_string() };
                if l.holder_identity.is_empty() {
                    if p.running {
                        status.push("Lease free".to_string());
                    }
                } else if l.holder_identity == e.identity() {
                    status.push(if expires > now {
                        format!("holds the Lease, {left} left")
                    } else {
                        "its Lease expired".to_string()
                    });
                } else if p.running {
                    let held = if expires > now { format!("{left} left") } else { "expired".to_string() };
                    status.push(format!("Lease: {}, {held}", host_of(&l.holder_identity)));
                }
            }
            if p.partitioned {
                status.push("partitioned".to_string());
            }
            if let Some(until) = p.api_fails_until.filter(|t| *t > now) {
                status.push(format!("calls fail (500) for {}", short_duration(until.since(now))));
            }
            if p.conflict_armed {
                status.push("next write meets a 409".to_string());
            }
            let nodes = if p.name == crate::engine::world::KUBELET {
                Kind::by_kind("Node")
                    .map(|k| world.api().list_metadata(k, None).map(|(_, name, _)| name.to_string()).collect())
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            let note = match state {
                ProcessState::Standby => Some("no informers or queues until it leads"),
                ProcessState::Stopped if p.name == crate::engine::world::POD_COUNTERS => {
                    Some("lab start pod-counters starts it")
                }
                ProcessState::Stopped | ProcessState::Crashed => Some("caches and queues are gone"),
                _ => None,
            };
            let active = p.active();
            ProcessFacts {
                p,
                state,
                status: status.join(", "),
                informers: if p.running { informer_facts(world, p) } else { Vec::new() },
                queues: if active { queue_facts(world, p) } else { Vec::new() },
                nodes,
                note,
            }
        })
        .collect()
}
