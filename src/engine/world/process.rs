//! One process of the control plane ([`Process`]): whether it runs, leads, is cut off or fails
//! its calls, its shared informers (whose indexers are its caches) and its controllers' slots.
//! Starting a process starts its informers; stopping it loses everything in memory.

use std::time::Duration;

use super::api::Failure;
use super::slot::Slot;
use crate::engine::apiserver::ApiServer;
use crate::engine::client::informer::Informer;
use crate::engine::client::{Indexer, LeaderElector};
use crate::engine::controllers::Caches;
use crate::engine::time::Time;

/// One process of the control plane.
#[derive(Clone)]
pub struct Process {
    /// `kube-controller-manager-a`, ...
    pub name: String,
    /// The host it runs on (the first half of its leader-election identity).
    pub host: String,
    /// Whether the process is running at all.
    pub running: bool,
    /// Its leader elector, for replicated processes.
    pub elector: Option<LeaderElector>,
    /// Cut off from the API server.
    pub partitioned: bool,
    /// Its API calls fail with 500 until then.
    pub api_fails_until: Option<Time>,
    /// The next write of this process meets a conflicting write first.
    pub conflict_armed: bool,
    /// Frozen since then (the `freeze` fault: a suspended VM or a stopped process): nothing of it
    /// runs, and its own clock does not count the time, until it is thawed.
    pub frozen_since: Option<Time>,
    /// The shared informers, one per kind (empty while not active), whose indexers are the
    /// caches the controllers read.
    pub caches: Caches,
    /// Controllers with their queues.
    pub slots: Vec<Slot>,
}

impl Process {
    /// Whether its controllers run: running, and leading if it elects a leader.
    pub fn active(&self) -> bool {
        self.running && self.elector.as_ref().is_none_or(LeaderElector::is_leading)
    }

    /// Whether it currently leads (processes without election never lead).
    pub fn leading(&self) -> bool {
        self.running && self.elector.as_ref().is_some_and(LeaderElector::is_leading)
    }

    /// `cache.WaitForNamedCacheSync`: a controller's workers start only once every informer it
    /// reads has listed (the informer's `HasSynced`, as kube-controller-manager's controllers
    /// pass `informer.Informer().HasSynced` and wait in `Run` before starting their workers).
    /// Handlers run before that; keys they queue wait.
    pub(super) fn caches_synced(&self, slot: &Slot) -> bool {
        let informers = self.caches.informers();
        slot.handlers.iter().all(|(ii, _)| informers.get(*ii).is_some_and(Informer::has_synced))
    }

    /// The process's informers, one per kind.
    pub fn informers(&self) -> &[Informer] {
        self.caches.informers()
    }

    pub(super) fn failure(&self, now: Time) -> Option<Failure> {
        if self.partitioned {
            Some(Failure::Unreachable)
        } else if self.api_fails_until.is_some_and(|t| now < t) {
            Some(Failure::ServerError)
        } else {
            None
        }
    }

    /// Starts a shared informer for every kind its controllers watch (they list at `now`), each
    /// with the factory's resync period, and registers one handler per controller and kind.
    pub(super) fn start(&mut self, now: Time, resync: Duration) {
        self.caches = Caches::default();
        let informers = self.caches.informers_mut();
        for s in &mut self.slots {
            s.handlers.clear();
            for k in s.controller.watches() {
                let ii = match informers.iter().position(|i| std::ptr::eq(i.kind(), *k)) {
                    Some(ii) => ii,
                    None => {
                        let mut inf = Informer::new(k, resync);
                        *inf.indexer_mut() = Indexer::unindexed();
                        informers.push(inf);
                        informers.len() - 1
                    }
                };
                let h = informers[ii].add_event_handler(s.controller.name(), now);
                s.handlers.push((ii, h));
            }
        }
    }

    /// Everything in memory is lost: informers stop, caches, buffers and queues are dropped and
    /// controllers come back fresh.
    pub(super) fn stop(&mut self, api: &mut ApiServer) {
        for i in self.caches.informers_mut() {
            i.stop(api);
        }
        self.caches = Caches::default();
        for s in &mut self.slots {
            *s = Slot::new(s.controller.restarted());
        }
    }
}
