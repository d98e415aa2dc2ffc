//! Telling a hot loop from progress ([`World::run_until_idle`]'s verdict).
//!
//! A converging cluster does a great deal of repetitive work: the ReplicaSet controller
//! reconciles one key hundreds of times while a thousand pods are created, scheduled and
//! started, and every step changes something. None of that is a loop: each reconcile answers new
//! input (a pod the scheduler bound, a container the kubelet started, a timer). A hot loop is
//! work that feeds itself. Two patterns are recognised, and nothing else is called one:
//!
//! - **A chain of reconciles triggered only by each other's writes.** Every write a reconcile
//!   makes gets a depth: one more than the depth of what queued the key it reconciled. A key
//!   queued by a watch event takes the depth of the write behind that event; a key that came
//!   back through a timer (a requeue after a delay, a back-off, a kubelet transition), and every
//!   write of a user, of a lease tick or of a fault, has depth 0: time passing and the outside
//!   world are fresh input. A key queued several times before a worker takes it keeps the
//!   smallest depth (its reconcile answers the freshest input). In a converging cluster chains
//!   stay short, since they keep being cut by timers and by other actors' writes (a thousand
//!   pods converge with chains of a few dozen at most: the ReplicaSet controller's bursts of
//!   500 creates). A controller that writes the object it watches on every reconcile (the
//!   buggy Bucket operator of `controllers::bucket`, which records the resourceVersion it
//!   reconciled in status) or two controllers that keep overwriting each other's field make a
//!   chain that never ends: once one reaches [`LOOP_DEPTH`] the verdict names the controller,
//!   the key, the object it keeps writing and what changed between the last writes (a field
//!   that flips back and forth, or the fields that change every time).
//! - **The same key failing the same way, again and again.** [`SAME_FAILURE`] reconciles in a
//!   row of one key that end with the same error (a create refused by a quota, an update that
//!   keeps meeting a 409): the controller retries with back-off for ever and nothing changes.
//!
//! The depths live in the world's state (snapshotted, replayed), so a run until idle stops at the
//! same step whether it runs in one call or in slices, and after going back and forward again. A
//! user's write or a fault starts every chain afresh ([`Loops::fresh_input`]).

use std::collections::{BTreeMap, VecDeque};

use super::record::{ActionKind, ApiCall, CallTarget, StepRecord};
use super::World;
use crate::engine::frozen::Frozen;
use crate::engine::object::{ObjectExt, Shared};

/// How long a chain of reconciles, each triggered only by the writes of the one before, may grow
/// before it is a hot loop (a loop of one controller takes four steps a turn: its write's event
/// is delivered, its handler queues the key, a worker takes it, the reconcile writes again).
pub const LOOP_DEPTH: u32 = 100;

/// How many reconciles in a row of one key may end with the same error before it is a hot loop.
pub const SAME_FAILURE: u32 = 20;

/// How many recent writes keep their depth (by resourceVersion; an event delivered later than
/// this many writes after it was made counts as fresh input).
const DEPTHS_KEPT: usize = 8192;

/// How many writes of the deepest chains are kept as evidence for the verdict.
const SAMPLES_KEPT: usize = 6;

/// The loop detector's state (part of the world's state).
#[derive(Clone, Debug, Default)]
pub(super) struct Loops {
    /// The depth of each recent write of a reconcile, by the resourceVersion it stored.
    depths: BTreeMap<u64, u32>,
    /// The last writes of chains close to [`LOOP_DEPTH`]: what the verdict shows.
    samples: VecDeque<Sample>,
    /// What the last reconcile found, if it found a loop.
    pub(super) alarm: Option<Alarm>,
}

/// One write of a deep chain.
#[derive(Clone, Debug)]
struct Sample {
    /// `controller (process)`.
    actor: String,
    /// The key reconciled.
    key: String,
    /// The object written.
    target: CallTarget,
    /// The object as written.
    object: Option<Shared>,
}

/// A loop found by a reconcile.
#[derive(Clone, Debug)]
pub(super) enum Alarm {
    /// A chain of self-triggered writes reached [`LOOP_DEPTH`].
    Chain,
    /// `count` failures in a row of `key` with `message`.
    Failure { actor: String, key: String, message: String, count: u32 },
}

impl Loops {
    /// A user's write or a fault: the learner changed the world, so every chain starts afresh
    /// (what it queues next answers them; the writes of a loop that was just fixed, read again
    /// by a restarted controller's list, are not part of a chain any more).
    pub(super) fn fresh_input(&mut self) {
        self.depths.clear();
        self.samples.clear();
        self.alarm = None;
    }

    /// The depth of the write that stored `rv` (0 when not made by a reconcile, or long ago).
    pub(super) fn depth_of(&self, rv: u64) -> u32 {
        self.depths.get(&rv).copied().unwrap_or(0)
    }

    /// A reconcile at `depth` (one more than what queued its key) made `calls`; those that
    /// stored a resourceVersion newer than `rv_before` are its writes.
    pub(super) fn wrote(
        &mut self,
        depth: u32,
        calls: &[ApiCall],
        rv_before: u64,
        actor: &str,
        key: &str,
        read: impl Fn(&CallTarget) -> Option<Shared>,
    ) {
        let writes: Vec<&ApiCall> = calls
            .iter()
            .filter(|c| c.code < 300 && c.resource_version > rv_before && !c.target.is_event())
            .filter(|c| !c.verb.is_read())
            .collect();
        for c in &writes {
            self.depths.insert(c.resource_version, depth);
        }
        while self.depths.len() > DEPTHS_KEPT {
            self.depths.pop_first();
        }
        if writes.is_empty() || depth + (SAMPLES_KEPT as u32) < LOOP_DEPTH {
            return;
        }
        for c in &writes {
            self.samples.push_back(Sample {
                actor: actor.to_string(),
                key: key.to_string(),
                target: c.target.clone(),
                object: read(&c.target),
            });
        }
        while self.samples.len() > SAMPLES_KEPT {
            self.samples.pop_front();
        }
        if depth >= LOOP_DEPTH {
            self.alarm = Some(Alarm::Chain);
        }
    }
}

/// A failure's message with what it quotes left out: the same failure names a different object
/// each time when it is a create with `generateName` (`pods "web-7d4b9-x2k8p" is forbidden:
/// exceeded quota: ...`), and that is still the same failure.
pub(super) fn failure_shape(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quoted = false;
    for c in message.chars() {
        if c == '"' {
            quoted = !quoted;
            out.push(c);
        } else if !quoted {
            out.push(c);
        }
    }
    out
}

/// Reads the object a recorded call wrote, as its shared tree.
pub(super) fn read_target(api: &crate::engine::apiserver::ApiServer, target: &CallTarget) -> Option<Shared> {
    let (kind, ns, name) = target.served_object()?;
    api.get_shared(kind, ns, name).ok()
}

/// The fields (dotted paths) whose values differ between two versions of an object, with both
/// values, leaving out what every write changes (resourceVersion, managedFields).
fn changed_fields(a: &Frozen, b: &Frozen) -> Vec<(String, String, String)> {
    fn walk(a: Option<&Frozen>, b: Option<&Frozen>, path: &str, out: &mut Vec<(String, String, String)>) {
        if out.len() >= 8 || matches!(path, "metadata.resourceVersion" | "metadata.managedFields") {
            return;
        }
        let show = |v: Option<&Frozen>| v.map_or_else(|| "(none)".to_string(), Frozen::to_json);
        match (a, b) {
            (Some(Frozen::Object(x)), Some(Frozen::Object(y))) => {
                let mut keys: Vec<&str> = x.keys().collect();
                keys.extend(y.keys().filter(|k| x.get(k).is_none()));
                for k in keys {
                    let p = if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
                    walk(x.get(k), y.get(k), &p, out);
                }
            }
            (Some(x), Some(y)) if x == y => {}
            (None, None) => {}
            _ => out.push((path.to_string(), show(a), show(b))),
        }
    }
    let mut out = Vec::new();
    walk(Some(a), Some(b), "", &mut out);
    out
}

/// Up to three changed fields, `path: old → new`.
fn describe_changes(changes: &[(String, String, String)]) -> String {
    let shown: Vec<String> = changes.iter().take(3).map(|(p, a, b)| format!("{p} {a} → {b}")).collect();
    let more = if changes.len() > 3 { format!(" and {} more", changes.len() - 3) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

impl World {
    /// The verdict for a loop found by the last reconcile: who, which key, and the evidence.
    pub(super) fn explain_loop(&self, alarm: &Alarm) -> String {
        match alarm {
            Alarm::Failure { actor, key, message, count } => format!(
                "Hot loop: {actor} reconciled {key} {count} times in a row, and every time it failed the same way ({message}). It retries with back-off for ever and nothing changes between attempts."
            ),
            Alarm::Chain => self.explain_chain(),
        }
    }

    fn explain_chain(&self) -> String {
        let samples = &self.state.loops.samples;
        let Some(last) = samples.back() else {
            return "Hot loop: reconciles keep triggering each other through their own writes.".to_string();
        };
        // The writes of the looping object, oldest first.
        let same: Vec<&Sample> = samples.iter().filter(|s| s.target == last.target).collect();
        let mut actors: Vec<&str> = Vec::new();
        for s in &same {
            if !actors.contains(&s.actor.as_str()) {
                actors.push(&s.actor);
            }
        }
        let (turns, window) = self.recent_reconciles(&last.actor, &last.key);
        let objects: Vec<&Frozen> = same.iter().filter_map(|s| s.object.as_deref()).collect();
        let rvs = (
            objects.first().map(|o| o.resource_version()).unwrap_or(0),
            objects.last().map(|o| o.resource_version()).unwrap_or(0),
        );
        let evidence = match objects.as_slice() {
            [.., a, b, c] if changed_fields(a, c).is_empty() && !changed_fields(b, c).is_empty() => {
                let flips: Vec<String> =
                    changed_fields(b, c).iter().take(3).map(|(p, x, y)| format!("{p} between {x} and {y}")).collect();
                format!("it flips {} back and forth", flips.join(", "))
            }
            [.., b, c] => {
                let changes = changed_fields(b, c);
                if changes.is_empty() {
                    "the writes change nothing a controller needs".to_string()
                } else {
                    format!("each write changes only {}", describe_changes(&changes))
                }
            }
            _ => "each write changes it again".to_string(),
        };
        let who = match actors.as_slice() {
            [one] => format!("{one} reconciled {} {turns} times in the last {window} steps", last.key),
            [a, b, ..] => {
                format!("{a} and {b} keep reconciling in turn ({} {turns} times in the last {window} steps)", last.key)
            }
            [] => format!("{} reconciled {}", last.actor, last.key),
        };
        let cause = if actors.len() > 1 {
            "Each one's write triggers the other, which writes the object again: two controllers fighting over one object never settle."
        } else {
            "Each reconcile is triggered by its own previous write and writes again: a controller that changes the object it watches on every reconcile never settles."
        };
        format!(
            "Hot loop: {who}, and each time wrote {} again (its last {} writes took it from resourceVersion {} to {}): {evidence}. {cause}",
            last.target,
            objects.len(),
            rvs.0,
            rvs.1
        )
    }

    /// How many of the last steps (at most 2,000) reconciled `key` by `actor`, and how many
    /// steps that was.
    fn recent_reconciles(&self, actor: &str, key: &str) -> (usize, usize) {
        let recent: Vec<&StepRecord> = self.history().iter().rev().take(2000).collect();
        let turns = recent
            .iter()
            .filter(|r| r.action == ActionKind::Reconcile && r.worked_key() == Some(key))
            .filter(|r| r.actor.to_string() == actor)
            .count();
        (turns, recent.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failure_naming_another_generated_object_is_the_same_failure() {
        let a = failure_shape(r#"pods "web-1-abcde" is forbidden: exceeded quota: object-count"#);
        let b = failure_shape(r#"pods "web-1-xyz12" is forbidden: exceeded quota: object-count"#);
        assert_eq!(a, b);
        assert_eq!(a, r#"pods "" is forbidden: exceeded quota: object-count"#);
        assert_ne!(a, failure_shape("Operation cannot be fulfilled: the object has been modified"));
    }

    #[test]
    fn changed_fields_name_what_differs_and_leave_out_the_resource_version() {
        let a = Frozen::from(
            json!({"metadata": {"resourceVersion": "5", "name": "b"}, "status": {"seen": "5", "ok": true}}),
        );
        let b = Frozen::from(
            json!({"metadata": {"resourceVersion": "7", "name": "b"}, "status": {"seen": "7", "ok": true, "url": "x"}}),
        );
        let c = changed_fields(&a, &b);
        assert_eq!(
            c,
            vec![
                ("status.seen".to_string(), "\"5\"".to_string(), "\"7\"".to_string()),
                ("status.url".to_string(), "(none)".to_string(), "\"x\"".to_string())
            ]
        );
        assert_eq!(describe_changes(&c), "status.seen \"5\" → \"7\", status.url (none) → \"x\"");
    }
}
