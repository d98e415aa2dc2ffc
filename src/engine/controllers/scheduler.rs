//! The scheduler (kube-scheduler, reduced to what the lessons need): every pod without
//! `spec.nodeName` is bound to the Ready node running the fewest pods (ties by name), with a
//! `PodScheduled` condition and a `Scheduled` Event from `default-scheduler`.
//!
//! Like the real scheduler (`DefaultBinder`), it binds with a POST to the pod's `binding`
//! subresource, which sets `spec.nodeName` and the `PodScheduled` condition in one write
//! (`BindingREST.assignPod`). Difference from Kubernetes: no filters or scores other than "node
//! is Ready and schedulable" and "fewest pods".
//!
//! Retries, as the scheduling queue (pkg/scheduler/backend/queue/scheduling_queue.go) does them:
//! a pod is never dropped. One whose binding failed goes back after its back-off, 1 s doubling
//! to 10 s ([`RateLimiter::scheduler_pod_backoff`]). One that fits no node waits among the
//! unschedulable pods until a Node event (the handler below re-adds it) or, at the latest,
//! `DefaultPodMaxInUnschedulablePodsDuration` (5 minutes) later.

use std::collections::BTreeMap;

use crate::engine::frozen::Frozen;

use super::util::{pod_condition, str_at};
use super::{Caches, Controller, Ctx, Enqueue, Outcome, ResourceEvent};
use crate::engine::client::RateLimiter;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

const COMPONENT: &str = "default-scheduler";

/// `DefaultPodMaxInUnschedulablePodsDuration`: the longest an unschedulable pod waits for a
/// cluster event before it is tried again.
pub const MAX_IN_UNSCHEDULABLE_PODS: std::time::Duration = std::time::Duration::from_secs(300);

fn kind(k: &str) -> &'static Kind {
    Kind::by_kind(k).expect("built-in kind")
}

/// The scheduler's cache of which pods run where (lost on restart, rebuilt from the informer).
/// Invariant: `per_node[n]` is the number of entries of `assigned` whose value is `n`.
#[derive(Clone, Debug, Default)]
pub struct Scheduler {
    /// Pod key → node, for pods bound to a node and not finished.
    assigned: BTreeMap<String, String>,
    /// Node → number of such pods.
    per_node: BTreeMap<String, usize>,
}

impl Scheduler {
    /// A scheduler with an empty cache.
    pub fn new() -> Scheduler {
        Scheduler::default()
    }

    /// Records where a pod runs (`None`: nowhere), keeping the invariant.
    fn assign(&mut self, key: &str, node: Option<&str>) {
        // Most calls find the pod where it was: nothing to change (and nothing to allocate).
        if self.assigned.get(key).map(String::as_str) == node {
            return;
        }
        if let Some(old) = self.assigned.remove(key) {
            if let Some(c) = self.per_node.get_mut(&old) {
                *c = c.saturating_sub(1);
            }
        }
        if let Some(n) = node {
            self.assigned.insert(key.to_string(), n.to_string());
            *self.per_node.entry(n.to_string()).or_default() += 1;
        }
    }
}

fn node_ready(n: &Frozen) -> bool {
    n.pointer("/spec/unschedulable").and_then(Frozen::as_bool) != Some(true)
        && pod_condition(n, "Ready").is_some_and(|c| c["status"].as_str() == Some("True"))
}

impl Controller for Scheduler {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static W: std::sync::OnceLock<[&'static Kind; 2]> = std::sync::OnceLock::new();
        W.get_or_init(|| [kind("Pod"), kind("Node")])
    }

    fn handle(&mut self, k: &'static Kind, n: &ResourceEvent, cache: &Caches, _now: Time) -> Vec<Enqueue> {
        if k.kind == "Pod" {
            let p = n.object();
            let node = str_at(p, "/spec/nodeName");
            let finished = matches!(str_at(p, "/status/phase"), "Succeeded" | "Failed");
            let gone = matches!(n, ResourceEvent::Delete { .. });
            self.assign(&p.key(), if node.is_empty() || finished || gone { None } else { Some(node) });
        }
        match (k.kind, n) {
            ("Pod", ResourceEvent::Add(p) | ResourceEvent::Update(_, p)) => {
                if str_at(&**p, "/spec/nodeName").is_empty() && !p.is_deleting() {
                    vec![Enqueue::Now(p.key())]
                } else {
                    Vec::new()
                }
            }
            // A node appeared or changed: unschedulable pods get another chance.
            ("Node", ResourceEvent::Add(_) | ResourceEvent::Update(..)) => cache
                .all(kind("Pod"))
                .filter(|p| str_at(*p, "/spec/nodeName").is_empty() && !p.is_deleting())
                .map(|p| Enqueue::Now(p.key()))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        let cache: &Caches = ctx.cache;
        let Some(pod) = cache.get(kind("Pod"), key) else { return Outcome::Done };
        if !str_at(pod, "/spec/nodeName").is_empty() || pod.is_deleting() {
            return Outcome::Done;
        }
        let load: BTreeMap<String, usize> = crate::sort::btree_map(
            ctx.cache
                .all(kind("Node"))
                .filter(|n| node_ready(n))
                .map(|n| (n.name().to_string(), self.per_node.get(n.name()).copied().unwrap_or(0))),
        );
        let total_nodes = ctx.cache.all(kind("Node")).count();
        let Some(node) = load.iter().min_by_key(|(name, n)| (**n, (*name).clone())).map(|(n, _)| n.clone()) else {
            let msg = format!(
                "0/{total_nodes} nodes are available: {total_nodes} node(s) were unschedulable. preemption: 0/{total_nodes} nodes are available: {total_nodes} Preemption is not helpful for scheduling."
            );
            let msg = if total_nodes == 0 { "no nodes available to schedule pods".to_string() } else { msg };
            ctx.event(COMPONENT, pod, "Warning", "FailedScheduling", &msg);
            // Unschedulable: it waits for a Node event, or the flush of pods left unschedulable
            // for 5 minutes; it is polling, not failing.
            return Outcome::PollAfter(MAX_IN_UNSCHEDULABLE_PODS);
        };
        if let Err(e) = ctx.api.bind(pod.namespace().unwrap_or("default"), pod.name(), &node) {
            return Outcome::Err(e.message);
        }
        // AssumePod: count the pod on its node now, before the informer shows the binding.
        self.assign(key, Some(&node));
        let msg = format!("Successfully assigned {} to {node}", pod.key());
        ctx.event(COMPONENT, pod, "Normal", "Scheduled", &msg);
        Outcome::Done
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(Scheduler::new())
    }

    fn rate_limiter(&self) -> RateLimiter<String> {
        RateLimiter::scheduler_pod_backoff()
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeApi;
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn binds_to_the_least_loaded_ready_node() {
        let node = |n: &str, ready: &str| {
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n},
                   "status": {"conditions": [{"type": "Ready", "status": ready}]}})
        };
        let pod = |n: &str, node: &str| {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n, "namespace": "default"},
                   "spec": {"nodeName": node}})
        };
        let mut cache = Caches::default();
        for o in
            [node("node-1", "True"), node("node-2", "True"), node("node-3", "False"), pod("a", "node-1"), pod("b", "")]
        {
            cache.insert(o.clone());
        }
        let mut api = FakeApi::default();
        api.put(pod("b", ""));
        let mut seq = 0;
        let mut ctx = Ctx { now: Time::START, cache: &cache, api: &mut api, event_seq: &mut seq };
        let mut s = Scheduler::new();
        for o in cache.all(kind("Pod")) {
            s.handle(kind("Pod"), &ResourceEvent::Add(Arc::new(o.clone())), &cache, Time::START);
        }
        assert_eq!(s.reconcile("default/b", &mut ctx), Outcome::Done);
        let b = api.objects.values().find(|o| o.name() == "b").unwrap();
        assert_eq!(b["spec"]["nodeName"], "node-2");
        assert_eq!(b["status"]["conditions"][0]["type"], "PodScheduled");
        assert_eq!(api.events(), vec!["Scheduled Successfully assigned default/b to node-2"]);
    }
}
