//! How the World runs client-go's informers ([`crate::engine::client::informer::Informer`]):
//! the [`ListerWatcher`] each process's reflectors call (the API server seen through the faults
//! the World injects), the one conversion of the client informer's handler calls into the
//! controllers' [`ResourceEvent`], the resync period of kube-controller-manager's informer
//! factory, and the plain-English sentence of each informer step.
//!
//! Each process runs one shared informer per kind its controllers watch, kept in its
//! [`crate::engine::controllers::Caches`] (the caches *are* the informers' indexers), with one
//! listener per controller handler (`processorListener`: its own queue, `isInInitialList`, its
//! own `HasSynced`). Each World step is one informer action: a list (and the watch that follows),
//! a re-watch after a retriable failure, one watch event (or the end of a watch stream), one
//! handler call, or one resync check.
//!
//! # What client-go does, and so the World (client-go `tools/cache`, Kubernetes 1.34)
//! - **A broken watch** (a connection reset; the `break_watch` fault). reflector.go `watch` /
//!   `handleAnyWatch`: the stream's result channel closes (streamwatcher.go treats a probable EOF
//!   such as "connection reset by peer" as the end of the stream, not as an ERROR event), the
//!   loop sets `w = nil` and watches again at once from `LastSyncResourceVersion`, with no
//!   back-off and no relist; the server replays what the lost events carried from its history,
//!   or answers 410 and the reflector relists. Only a "very short watch" (under 1 s with no event
//!   received) is an error: `ListAndWatch` returns and the reflector relists after the back-off.
//!   The old World re-watched after a back-off; the client informer does what client-go does.
//! - **A watch that cannot be opened.** reflector.go `isWatchErrorRetriable`: "connection refused"
//!   (the World's partition) and 429 back off and watch again without relisting; any other error
//!   (the World's injected 500s) returns from `ListAndWatch`: back off, then relist.
//! - **Unchanged objects in a relist.** controller.go `processDeltas` marks a `Replaced` delta
//!   whose resourceVersion equals the cached one as a sync, and shared_informer.go `distribute`
//!   gives sync notifications to every listener in the syncing set: `OnUpdate(x, x)`. `addListener`
//!   puts a listener in that set, and `shouldResync` keeps it there whenever its period is due,
//!   which for listeners sharing the factory's period is every check. So every handler of every
//!   process hears each unchanged object of a relist (whether that changes anything is up to
//!   what the handlers *do* with it: ReplicaSet `updatePod` ignores equal resourceVersions;
//!   ReplicaSet `updateRS` and Deployment `updateDeployment` enqueue, which makes a relist a full
//!   resync of those controllers).
//! - **Resync.** kube-controller-manager's informer factory resyncs every `ResyncPeriod(c)`
//!   (cmd/kube-controller-manager/app/controllermanager.go: `--min-resync-period`, 12 h, times a
//!   random factor in [1, 2)), drawn here when a replica starts leading; the scheduler's factory
//!   uses 0 (no resync), and so does the kubelet's pod source (pkg/kubelet/config/apiserver.go:
//!   a reflector with resync 0).
//!
//! # Deliberate differences from client-go
//! - The initial list is served at the current revision, so the choice of list resourceVersion
//!   ("0", the last synced one, "") gives the same answer.
//! - The World's caches have no namespace index: [`crate::engine::controllers::Caches::list`]
//!   ranges over the `namespace/` keys instead (same answer, no second copy of every key).
//! - A leader's Lease renewal reaches the garbage collector's Lease informer inside the renewal
//!   step (see `World::absorb_quiet_lease_events`).
//! - The lab's operators (the Bucket operator, the pod counters) do not resync. Written with
//!   controller-runtime they would: its cache's default `SyncPeriod` is 10 h, drawn per informer
//!   times a factor in [0.9, 1.1) (pkg/cache/internal/informers.go `calculateResyncPeriod`).
//!   Left out so that "what happens next" is not longer by a line per operator informer for an
//!   event ten hours away.
//! - The random resync period comes from its own stream, seeded from the World's seed, so that
//!   drawing it does not shift every later random choice (identities, back-off jitter).

use std::time::Duration;

use super::api::Failure;
use super::record::{ApiCall, CallTarget, Verb};
use crate::engine::apiserver::{ApiServer, PendingEvent, WatchFrom, WatchId};
use crate::engine::client::informer::{DeletedObject, InformerStep, ListerWatcher, Notification, SharedList};
use crate::engine::controllers::ResourceEvent;
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::Shared;
use crate::engine::rand::Rng;
use crate::engine::status::Status;

/// kube-controller-manager's `--min-resync-period` default.
pub const MIN_RESYNC_PERIOD: Duration = Duration::from_secs(12 * 3600);

/// `ResyncPeriod(c)`: `MinResyncPeriod × factor`, factor uniform in [1, 2), as
/// cmd/kube-controller-manager/app/controllermanager.go draws it for the shared informer factory.
pub fn controller_manager_resync_period(rng: &mut Rng) -> Duration {
    let ms = MIN_RESYNC_PERIOD.as_millis() as u64;
    Duration::from_millis(ms + rng.below(ms))
}

/// The one conversion of a client informer's handler call into what
/// [`crate::engine::controllers::Controller::handle`]
/// takes: `OnAdd`, `OnUpdate(old, new)`, `OnDelete` with a tombstone flag.
pub fn to_resource_event(n: &Notification) -> ResourceEvent {
    fn owned(s: &Shared) -> Shared {
        Shared::clone(s)
    }
    match n {
        Notification::Add { obj, .. } => ResourceEvent::Add(owned(obj)),
        Notification::Update { old, new } => ResourceEvent::Update(owned(old), owned(new)),
        Notification::Delete(DeletedObject::Final(obj)) => {
            ResourceEvent::Delete { obj: owned(obj), final_state_unknown: false }
        }
        Notification::Delete(DeletedObject::Unknown(t)) => {
            ResourceEvent::Delete { obj: owned(&t.obj), final_state_unknown: true }
        }
    }
}

/// The API server as one process's reflectors reach it: every LIST and WATCH fails while the
/// process is partitioned (connection refused) or its calls are made to fail (500), and each
/// call is recorded for the step.
pub struct WorldLw<'a> {
    /// The server.
    pub server: &'a mut ApiServer,
    /// Whether (and how) every call fails.
    pub failure: Option<Failure>,
    /// Calls made so far in this step.
    pub calls: &'a mut Vec<ApiCall>,
}

fn collection_path(kind: &Kind) -> String {
    if kind.group.is_empty() {
        format!("/api/v1/{}", kind.resource)
    } else {
        format!("/apis/{}/{}/{}", kind.group, kind.version, kind.resource)
    }
}

impl WorldLw<'_> {
    fn push(&mut self, verb: Verb, kind: &Kind, sent: u64, result: Result<u64, &Status>) {
        let (code, resource_version, error) = match result {
            Ok(rv) => (200, rv, None),
            Err(e) => (e.code(), 0, Some(e.message.clone())),
        };
        self.calls.push(ApiCall {
            verb,
            target: CallTarget::Resource(kind.resource),
            sent_resource_version: sent,
            code,
            resource_version,
            error,
            stored_resource_version: 0,
        });
    }
}

impl ListerWatcher for WorldLw<'_> {
    fn list(&mut self, kind: &'static Kind) -> Result<SharedList, Status> {
        if let Some(f) = self.failure {
            let err = f.status("Get", &collection_path(kind));
            self.push(Verb::List, kind, 0, Err(&err));
            return Err(err);
        }
        let (items, resource_version) = self.server.list_shared(kind, None, &Selector::everything());
        self.push(Verb::List, kind, 0, Ok(resource_version));
        Ok(SharedList { items, resource_version })
    }

    fn watch(&mut self, kind: &'static Kind, resource_version: u64) -> Result<WatchId, Status> {
        if let Some(f) = self.failure {
            let path = format!(
                "{}?allowWatchBookmarks=true&resourceVersion={resource_version}&watch=true",
                collection_path(kind)
            );
            let err = f.status("Get", &path);
            self.push(Verb::Watch, kind, resource_version, Err(&err));
            return Err(err);
        }
        let id = self.server.watch(kind, None, Selector::everything(), WatchFrom::Exact(resource_version));
        self.push(Verb::Watch, kind, resource_version, Ok(resource_version));
        Ok(id)
    }

    fn next_event(&mut self, id: WatchId) -> Option<PendingEvent> {
        self.server.next_shared_event(id)
    }

    fn watch_is_open(&self, id: WatchId) -> bool {
        self.server.watch_is_open(id)
    }

    fn has_pending_events(&self, id: WatchId) -> bool {
        !self.server.pending_events(id).is_empty()
    }

    fn stop_watch(&mut self, id: WatchId) {
        self.server.stop_watch(id);
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The step's sentence: `kind` is the informer's kind, `process` the process it runs in.
pub fn sentence(step: &InformerStep, kind: &Kind, process: &str) -> String {
    let (k, r) = (kind.kind, kind.resource);
    match step {
        InformerStep::Listed { watch_failed: Some(message), items, resource_version, .. } => format!(
            "The {k} informer of {process} listed {items} {r} at resourceVersion {resource_version}, filled its cache, but could not watch ({message}); it will list again after a back-off."
        ),
        InformerStep::Listed { items, resource_version: rv, relist: false, .. } => format!(
            "The {k} informer of {process} listed {items} {r} at resourceVersion {rv}, filled its cache, and watches from {rv}."
        ),
        InformerStep::Listed { items, resource_version: rv, added, updated, tombstones, unchanged, .. } => format!(
            "The {k} informer of {process} relisted {items} {r} at resourceVersion {rv}: {} new, {} changed, {} gone (tombstones) and {unchanged} unchanged; each handler hears of every one (an unchanged object as OnUpdate with the same object), then it watches from {rv}.",
            added.len(),
            updated.len(),
            tombstones.len()
        ),
        InformerStep::ListFailed { message, retry_at } => format!(
            "The {k} informer of {process} failed to list {r} ({message}): it will retry after a back-off, at {retry_at}."
        ),
        InformerStep::Event { event_type, key, resource_version } => format!(
            "The {k} informer of {process} received {} {key} (resourceVersion {resource_version}) and updated its cache.",
            event_type.as_str()
        ),
        InformerStep::Bookmark { resource_version } => format!(
            "The {k} informer of {process} received a BOOKMARK: its cache is synced to resourceVersion {resource_version}."
        ),
        InformerStep::WatchError { message, code, .. } => format!(
            "The {k} informer of {process} got an ERROR event ({code}: {message}); the watch is closed and it will relist after a back-off."
        ),
        InformerStep::WatchRetry { message, retry_at } => format!(
            "The {k} informer of {process} could not watch {r} ({message}); it backs off and watches again at {retry_at}, without relisting."
        ),
        InformerStep::WatchFailed { message, retry_at } => format!(
            "The {k} informer of {process} could not watch {r} ({message}); it will relist after a back-off, at {retry_at}."
        ),
        InformerStep::WatchBroken { retry_at } => format!(
            "The {k} watch of {process} ended less than a second after it started, before any event (client-go's \"very short watch\"): an error, so the informer relists after a back-off, at {retry_at}."
        ),
        InformerStep::Rewatched { resource_version } => format!(
            "The {k} informer of {process} watches {r} again from resourceVersion {resource_version}, without relisting."
        ),
        InformerStep::Resync { handlers, objects } => format!(
            "The {k} informer of {process} resynced: {} handler{} will see an update (OnUpdate with the same object) for each of its {objects} cached object{}.",
            handlers.len(),
            plural(handlers.len()),
            plural(*objects)
        ),
    }
}
