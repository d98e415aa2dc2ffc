//! How a step becomes a record: the record's constructor (the step's actor, action, objects,
//! API calls and sentence), Go-style durations for the sentences, and the stored
//! resourceVersion a 409's record shows.

use std::time::Duration;

use super::record::{ActionKind, Actor, ApiCall, CallTarget, ObjectRef, StepRecord};
use super::World;
use crate::engine::apiserver::ApiServer;
use crate::engine::object::ObjectExt;

impl World {
    pub(super) fn record(
        &self,
        actor: Actor,
        action: ActionKind,
        objects: Vec<ObjectRef>,
        calls: Vec<ApiCall>,
        sentence: String,
    ) -> StepRecord {
        StepRecord {
            number: 0,
            time: self.state.now,
            actor,
            action,
            objects,
            calls,
            sentence,
            delivered: None,
            work: None,
            revision: 0,
        }
    }
}

/// The stored resourceVersion of the object a call addressed (for the record of a 409), or 0.
pub(crate) fn stored_rv(api: &ApiServer, target: &CallTarget) -> u64 {
    let Some((kind, ns, name)) = target.served_object() else { return 0 };
    api.get(kind, ns, name).map(|o| o.resource_version()).unwrap_or(0)
}

/// Go-style short durations: `500ms`, `2s`, `1m30s`.
pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let secs = d.as_secs_f64();
    if secs < 60.0 {
        let s = format!("{secs:.3}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        return format!("{s}s");
    }
    let total = d.as_secs();
    let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
    if h > 0 {
        format!("{h}h{m}m{s}s")
    } else {
        format!("{m}m{s}s")
    }
}
