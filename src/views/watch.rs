//! "Watch events": for each informer of each running process, the events its watch delivered
//! (from the step records) and the events still in flight, queued at the API server until the
//! world delivers them (client-go `tools/cache/reflector.go`, `ListAndWatch`: the reflector lists,
//! then watches from the list's resourceVersion; the cache is updated before handlers hear of an
//! event).

use crate::engine::client::ReflectorState;
use crate::engine::object::ObjectExt;
use crate::engine::world::{ActionKind, Actor, Verb, World};

use super::recent;

/// How many delivered events each stream keeps (newest last).
pub const DELIVERED_SHOWN: usize = 8;
/// How many in-flight events each stream shows (oldest first).
pub const IN_FLIGHT_SHOWN: usize = 20;

/// One event in a stream.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WatchEventRow {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`, or `LIST` for a (re)list.
    pub event_type: String,
    /// `namespace/name` of the object, or the error message for `ERROR`.
    pub key: String,
    /// The object's resourceVersion in the event (for `LIST`, the list's resourceVersion).
    pub resource_version: u64,
    /// The step that delivered it; `None` while in flight.
    pub step: Option<u64>,
}

/// One informer's watch stream.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WatchStream {
    /// `kube-controller-manager-a`.
    pub process: String,
    /// `Pod`.
    pub kind: String,
    /// What the reflector does now, in words: `watching from resourceVersion 12`, `relists in 800ms`.
    pub state: String,
    /// The latest delivered events (and lists), oldest first, at most [`DELIVERED_SHOWN`].
    pub delivered: Vec<WatchEventRow>,
    /// Events queued at the API server for this watch, oldest first, at most [`IN_FLIGHT_SHOWN`].
    pub in_flight: Vec<WatchEventRow>,
    /// How many events are in flight in all.
    pub in_flight_total: usize,
}

impl WatchStream {
    /// A stable key for keyed lists: `process/kind`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.process, self.kind)
    }
}

/// The streams of every informer of every process that has informers, in process then kind order.
pub fn watch_streams(world: &World) -> Vec<WatchStream> {
    let now = world.now();
    let history = recent(world.history());
    let mut out = Vec::new();
    for p in world.processes() {
        for inf in p.informers() {
            let kind = inf.kind().kind;
            let rv = inf.last_sync_resource_version();
            let mut state = match *inf.state() {
                ReflectorState::Watching(_) => format!("watching from resourceVersion {rv}"),
                ReflectorState::NotStarted => "lists now".to_string(),
                ReflectorState::BackingOff { until } if until <= now => "relists now".to_string(),
                ReflectorState::BackingOff { until } => {
                    format!("relists in {}", crate::engine::world::fmt_duration(until.since(now)))
                }
                ReflectorState::RewatchAt { until } => format!(
                    "watches again from resourceVersion {rv} in {}",
                    crate::engine::world::fmt_duration(until.since(now))
                ),
                ReflectorState::Stopped => "stopped".to_string(),
            };
            if let Some(t) = inf.next_resync_at() {
                state.push_str(&format!("; resync in {}", crate::engine::world::fmt_duration(t.since(now))));
            }
            let mut delivered: Vec<WatchEventRow> = history
                .iter()
                .rev()
                .filter(|r| matches!(&r.actor, Actor::Informer { process, kind: k } if *process == p.name && k == kind))
                .filter_map(|r| match r.action {
                    ActionKind::DeliverEvent => {
                        let d = r.delivered.as_ref()?;
                        let key = match &d.error {
                            Some((code, message)) => format!("{code}: {message}"),
                            None => d.key.clone(),
                        };
                        Some(WatchEventRow {
                            event_type: d.event_type.as_str().to_string(),
                            key,
                            resource_version: d.resource_version,
                            step: Some(r.number),
                        })
                    }
                    ActionKind::List => {
                        let rv = r.calls.iter().find(|c| c.verb == Verb::List).map_or(0, |c| c.resource_version);
                        Some(WatchEventRow {
                            event_type: "LIST".into(),
                            key: inf.kind().resource.to_string(),
                            resource_version: rv,
                            step: Some(r.number),
                        })
                    }
                    _ => None,
                })
                .take(DELIVERED_SHOWN)
                .collect();
            delivered.reverse();
            let (in_flight, in_flight_total) = match *inf.state() {
                ReflectorState::Watching(id) => {
                    let evs = world.api().pending_events(id);
                    let rows = evs
                        .iter()
                        .take(IN_FLIGHT_SHOWN)
                        .map(|e| WatchEventRow {
                            event_type: e.event_type.as_str().to_string(),
                            key: if e.object.get("kind").and_then(|k| k.as_str()) == Some("Status") {
                                e.object.get("message").and_then(|m| m.as_str()).unwrap_or("").to_string()
                            } else {
                                e.object.key()
                            },
                            resource_version: e.object.resource_version(),
                            step: None,
                        })
                        .collect();
                    (rows, evs.len())
                }
                _ => (Vec::new(), 0),
            };
            out.push(WatchStream {
                process: p.name.clone(),
                kind: kind.to_string(),
                state,
                delivered,
                in_flight,
                in_flight_total,
            });
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::world::ActionKind;
    use serde_json::json;

    pub(crate) fn deployment(name: &str, replicas: i64) -> serde_json::Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
               "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                        "template": {"metadata": {"labels": {"app": name}},
                                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    }

    #[test]
    fn a_created_deployment_is_in_flight_then_delivered() {
        let mut w = World::new(1);
        // Let the informers list and start watching.
        w.run_until_idle(2000);
        w.create(deployment("web", 1)).unwrap();
        let streams = watch_streams(&w);
        let flying: Vec<&WatchStream> =
            streams.iter().filter(|s| s.kind == "Deployment" && s.in_flight_total > 0).collect();
        assert_eq!(flying.len(), 1, "only the leader watches: {streams:?}");
        let s = flying[0];
        assert_eq!(s.in_flight[0].event_type, "ADDED");
        assert_eq!(s.in_flight[0].key, "default/web");
        assert!(s.in_flight[0].step.is_none());
        assert!(s.state.starts_with("watching from resourceVersion"));
        // Step until that event is delivered.
        loop {
            let r = w.step().expect("the event is pending");
            if r.action == ActionKind::DeliverEvent && r.objects.first().is_some_and(|o| o.key == "default/web") {
                break;
            }
        }
        let after = watch_streams(&w);
        let s = after.iter().find(|x| x.id() == flying[0].id()).unwrap();
        assert_eq!(s.in_flight_total, 0);
        let last = s.delivered.last().unwrap();
        assert_eq!((last.event_type.as_str(), last.key.as_str()), ("ADDED", "default/web"));
        assert!(last.step.is_some() && last.resource_version > 0);
        assert!(s.delivered.len() <= DELIVERED_SHOWN);
        assert!(s.delivered.iter().any(|e| e.event_type == "LIST"), "the first list shows too");
    }
}
