//! The edge-triggered contrast: two pod counters that keep the number of pods in a namespace in a
//! ConfigMap (`data.pods`), one written the wrong way and one the right way, so a lesson can put
//! them side by side (client-go `tools/cache/controller.go`, `processDeltas`, hands handlers the
//! cache's state, not a diff to replay: that is why the edge-triggered one drifts).
//!
//! - [`Trigger::Edge`] (`pod-counter-edge`) acts on event *deltas*: `OnAdd` is +1, `OnDelete` is
//!   −1, and it adds the deltas to the count already stored in its ConfigMap. It never looks at
//!   the pods themselves. It also has the most common bug of hand-written delete handlers: it
//!   casts the deleted object to a pod and silently ignores a `DeletedFinalStateUnknown`
//!   tombstone (Go's `pod, ok := obj.(*v1.Pod); if !ok { return }`). So:
//!   * a deletion missed during a broken watch or an expired history reaches it only as a
//!     tombstone after the relist, and is lost: the count stays one too high, forever;
//!   * after a restart its informer replays every pod as `OnAdd`, and it adds them on top of the
//!     stored count: the count doubles.
//! - [`Trigger::Level`] (`pod-counter-level`) treats every event as "something changed": it
//!   counts the pods in its informer cache and writes that number. Whatever was missed, the next
//!   reconcile is right.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::{Caches, Controller, Ctx, Enqueue, Outcome, ResourceEvent};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

/// How a counter reacts to events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Acts on deltas (the naive way).
    Edge,
    /// Acts on the current state (the Kubernetes way).
    Level,
}

impl Trigger {
    /// `edge` / `level`.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Edge => "edge",
            Trigger::Level => "level",
        }
    }
}

/// One pod counter.
///
/// Invariant: `pending_delta` is 0 for a [`Trigger::Level`] counter.
#[derive(Clone, Debug)]
pub struct PodCounter {
    /// Edge or level.
    pub trigger: Trigger,
    /// The namespace whose pods it counts (and where its ConfigMap lives).
    pub namespace: String,
    /// Edge only: deltas heard but not yet written.
    pub pending_delta: i64,
}

fn kind(k: &str) -> &'static Kind {
    Kind::by_kind(k).expect("built-in kind")
}

impl PodCounter {
    /// A counter for the pods of `namespace`.
    pub fn new(trigger: Trigger, namespace: &str) -> PodCounter {
        PodCounter { trigger, namespace: namespace.to_string(), pending_delta: 0 }
    }

    /// The name of its ConfigMap: `pod-counter-edge` or `pod-counter-level`.
    pub fn config_map_name(&self) -> String {
        format!("pod-counter-{}", self.trigger.as_str())
    }

    /// Its work-queue key (the ConfigMap's key).
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.config_map_name())
    }

    /// The count a counter's ConfigMap holds, if it exists and holds one.
    pub fn stored_count(cm: &Value) -> Option<i64> {
        cm.pointer("/data/pods").and_then(Value::as_str).and_then(|s| s.parse().ok())
    }

    fn write(&self, cm: Option<&Value>, count: i64, ctx: &mut Ctx<'_>) -> Result<(), String> {
        match cm {
            None => {
                let obj = json!({
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": self.config_map_name(), "namespace": self.namespace},
                    "data": {"pods": count.to_string()},
                });
                ctx.api.create(obj).map(|_| ()).map_err(|e| e.message)
            }
            Some(cm) if Self::stored_count(cm) == Some(count) => Ok(()),
            Some(cm) => {
                let mut new = cm.clone();
                new["data"] = json!({"pods": count.to_string()});
                ctx.api.update(new).map(|_| ()).map_err(|e| e.message)
            }
        }
    }
}

impl Controller for PodCounter {
    fn name(&self) -> &'static str {
        match self.trigger {
            Trigger::Edge => "pod-counter-edge",
            Trigger::Level => "pod-counter-level",
        }
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static WATCHES: OnceLock<[&'static Kind; 2]> = OnceLock::new();
        WATCHES.get_or_init(|| [kind("Pod"), kind("ConfigMap")])
    }

    fn handle(&mut self, k: &'static Kind, n: &ResourceEvent, _cache: &Caches, _now: Time) -> Vec<Enqueue> {
        if n.object().namespace() != Some(self.namespace.as_str()) {
            return Vec::new();
        }
        if k.kind == "ConfigMap" {
            // The level counter repairs its ConfigMap when someone else changes it.
            let mine = n.object().name() == self.config_map_name();
            return if mine && self.trigger == Trigger::Level { vec![Enqueue::Now(self.key())] } else { Vec::new() };
        }
        if self.trigger == Trigger::Edge {
            match n {
                ResourceEvent::Add(_) => self.pending_delta += 1,
                ResourceEvent::Delete { final_state_unknown: false, .. } => self.pending_delta -= 1,
                // The bug: a tombstone is not a *v1.Pod, so the handler returns.
                ResourceEvent::Delete { final_state_unknown: true, .. } => return Vec::new(),
                ResourceEvent::Update(..) => return Vec::new(),
            }
        }
        vec![Enqueue::Now(self.key())]
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        if key != self.key() {
            return Outcome::Done;
        }
        let cm = ctx.cache.get(kind("ConfigMap"), key).map(Frozen::to_value);
        let result = match self.trigger {
            Trigger::Level => {
                let count = ctx.cache.list(kind("Pod"), &self.namespace).count() as i64;
                self.write(cm.as_ref(), count, ctx)
            }
            Trigger::Edge => {
                if self.pending_delta == 0 && cm.is_some() {
                    return Outcome::Done;
                }
                let base = cm.as_ref().and_then(Self::stored_count).unwrap_or(0);
                let r = self.write(cm.as_ref(), base + self.pending_delta, ctx);
                if r.is_ok() {
                    self.pending_delta = 0;
                }
                r
            }
        };
        match result {
            Ok(()) => Outcome::Done,
            Err(e) => Outcome::Err(e),
        }
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(PodCounter::new(self.trigger, &self.namespace))
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
