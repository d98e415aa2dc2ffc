//! The informer steps of a process: `ListAndWatch` (a list, or a relist after a back-off), a
//! re-watch after a retriable failure, one watch event (or the end of a stream), and a resync
//! check; each against the API server as that process reaches it ([`WorldLw`]: its partition
//! or failing calls).

use crate::engine::apiserver::EventType;
use crate::engine::client::informer::{Informer, InformerStep, ListerWatcher};
use crate::engine::rand::Rng;
use crate::engine::time::Time;
use crate::engine::world::informer::{sentence, WorldLw};
use crate::engine::world::record::{ActionKind, Actor, ApiCall, Delivered, ObjectRef, StepRecord};
use crate::engine::world::{State, World};

impl World {
    /// The record of one informer step of process `pi`'s informer `ii`.
    fn informer_record(
        &self,
        pi: usize,
        ii: usize,
        action: ActionKind,
        step: &InformerStep,
        calls: Vec<ApiCall>,
    ) -> StepRecord {
        let p = &self.state.processes[pi];
        let kind = p.caches.informers()[ii].kind();
        let actor = Actor::Informer { process: p.name.clone(), kind: kind.kind.to_string() };
        let text = sentence(step, kind, &p.name);
        let mut objects = Vec::new();
        let mut delivered = None;
        match step {
            InformerStep::Event { event_type, key, resource_version } => {
                objects.push(ObjectRef {
                    kind: kind.kind.into(),
                    key: key.clone(),
                    resource_version: *resource_version,
                });
                delivered = Some(Delivered {
                    event_type: *event_type,
                    key: key.clone(),
                    resource_version: *resource_version,
                    error: None,
                });
            }
            InformerStep::Bookmark { resource_version } => {
                delivered = Some(Delivered {
                    event_type: EventType::Bookmark,
                    key: String::new(),
                    resource_version: *resource_version,
                    error: None,
                });
            }
            InformerStep::WatchError { message, code, .. } => {
                delivered = Some(Delivered {
                    event_type: EventType::Error,
                    key: String::new(),
                    resource_version: 0,
                    error: Some((*code, message.clone())),
                });
            }
            _ => {}
        }
        let mut r = self.record(actor, action, objects, calls, text);
        r.delivered = delivered;
        r
    }

    /// Runs one step of process `pi`'s informer `ii` against the API server as that process
    /// reaches it (its partition or failing calls), returning the step and the calls it made.
    fn drive_informer<T>(
        &mut self,
        pi: usize,
        ii: usize,
        step: impl FnOnce(&mut Informer, &mut dyn ListerWatcher, Time, &mut Rng) -> T,
    ) -> (T, Vec<ApiCall>) {
        let now = self.state.now;
        let State { api, processes, rng, .. } = &mut self.state;
        let p = &mut processes[pi];
        let failure = p.failure(now);
        let mut calls = Vec::new();
        let mut lw = WorldLw { server: api, failure, calls: &mut calls };
        let out = step(&mut p.caches.informers_mut()[ii], &mut lw, now, rng);
        (out, calls)
    }

    /// An informer's `ListAndWatch`: list (a relist after a back-off), replace the cache, queue
    /// the differences (and the unchanged objects, as sync updates) for the handlers, watch.
    pub(super) fn list(&mut self, pi: usize, ii: usize) -> StepRecord {
        let (step, calls) = self.drive_informer(pi, ii, Informer::list_and_watch);
        self.informer_record(pi, ii, ActionKind::List, &step, calls)
    }

    /// The back-off after a retriable watch failure is over: watch again from the last synced
    /// resourceVersion.
    pub(super) fn rewatch(&mut self, pi: usize, ii: usize) -> StepRecord {
        let (step, calls) = self.drive_informer(pi, ii, Informer::retry_watch);
        match step {
            Some(step) => self.informer_record(pi, ii, ActionKind::Rewatch, &step, calls),
            None => self.record(Actor::Lab, ActionKind::Rewatch, Vec::new(), calls, String::new()),
        }
    }

    /// One watch event to one informer (cache first, then a call queued for each handler), or the
    /// end of its watch stream (client-go watches again at once).
    pub(super) fn deliver(&mut self, pi: usize, ii: usize) -> StepRecord {
        let (step, calls) = self.drive_informer(pi, ii, Informer::deliver_next);
        // The end of a stream and what follows (a re-watch, or a back-off) is a re-watch step.
        let action = match &step {
            Some(InformerStep::Event { .. } | InformerStep::Bookmark { .. } | InformerStep::WatchError { .. }) => {
                ActionKind::DeliverEvent
            }
            _ => ActionKind::Rewatch,
        };
        match step {
            Some(step) => self.informer_record(pi, ii, action, &step, calls),
            None => self.record(Actor::Lab, action, Vec::new(), calls, String::new()),
        }
    }

    /// A resync check of one informer.
    pub(super) fn resync(&mut self, pi: usize, ii: usize) -> StepRecord {
        let now = self.state.now;
        let step = self.state.processes[pi].caches.informers_mut()[ii].resync(now);
        match step {
            Some(step) => self.informer_record(pi, ii, ActionKind::Resync, &step, Vec::new()),
            None => self.record(Actor::Lab, ActionKind::Resync, Vec::new(), Vec::new(), String::new()),
        }
    }
}
