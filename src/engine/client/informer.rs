//! A shared informer: client-go's reflector, local cache and handler notifications
//! (`tools/cache/reflector.go`, `controller.go`, `the_real_fifo.go`, `shared_informer.go`;
//! `delta_fifo.go`), as a state machine the world drives one step at a time.
//!
//! What it guarantees, like client-go's:
//! - **List, then watch from the list's resourceVersion.** [`Informer::list_and_watch`] lists,
//!   replaces the cache, and opens a watch from exactly the list's revision, so no change is
//!   missed or seen twice.
//! - **The cache first, then the handlers.** Every change is applied to the [`Indexer`] before
//!   the notification is queued for each handler (`processDeltas`).
//! - **A dropped stream is resumed.** When the watch stream ends without an error (the server
//!   closed it, or the connection was reset: streamwatcher.go ends the stream on a probable EOF),
//!   the reflector watches again at once from its last resourceVersion without relisting
//!   (reflector.go `watch`: `w = nil`, loop); the server replays what it missed, or answers 410.
//!   A stream that ended under a second after it started, with no event, is an error instead
//!   ("very short watch", `handleAnyWatch`).
//! - **A refused re-watch is retried.** A watch request that fails with "connection refused" or
//!   429 backs off and watches again, without relisting (`isWatchErrorRetriable`).
//! - **Differences after a relist.** On a 410 ERROR event, any other watch error or a connection
//!   that cannot be re-established, the reflector backs off (800 ms doubling to 30 s, jitter 1.0,
//!   reset every 2 min) and then relists: vanished keys become `DeletedFinalStateUnknown` tombstones
//!   (queued first, as the in-order `RealFIFO` of Kubernetes 1.33+ does), changed objects become
//!   updates, and unchanged ones (same resourceVersion) are "sync" updates, which only listeners
//!   currently marked as syncing receive (`shared_informer.go`, `sharedIndexInformer.OnUpdate`).
//! - **Resync is local.** Every resync check the listeners whose own period is due get
//!   `Update(x, x)` for every cached object; the API server is not contacted
//!   (`delta_fifo.go`, `Resync`).
//!
//! A detail of client-go reproduced on purpose: a listener starts out in the "syncing" set and is
//! only taken out of it by a resync check (`sharedProcessor.addListener` puts it in,
//! `shouldResync` recomputes it). An informer whose resync check period is 0 never checks, so its
//! listeners keep receiving the unchanged objects of every relist as `Update(x, x)`. Controllers
//! ignore those by comparing resourceVersions, as the Deployment controller's `updateReplicaSet`
//! does.
//!
//! The feature set is Kubernetes 1.34's: `InOrderInformers` on (the `RealFIFO`), `WatchListClient`
//! and `AtomicFIFO` off (client-go `features/known_features.go`), so the initial state comes from
//! a LIST, not a watch with `sendInitialEvents`.
//!
//! Nothing runs by itself. Each method is one step: the world calls
//! [`Informer::list_and_watch`] to start (and again when [`Informer::relist_at`] is due),
//! [`Informer::retry_watch`] when [`Informer::rewatch_at`] is due, [`Informer::deliver_next`] to
//! deliver the next event of the watch (or handle the end of its stream, see
//! [`Informer::has_deliverable`]), [`Informer::resync`] when [`Informer::next_resync_at`] is due,
//! and [`Informer::pop_notification`] to run one queued handler call. The World's informers are
//! these (`crate::engine::world::informer` wraps the API server for its faults); there is no
//! other informer in the engine.
//!
//! Deliberate differences from client-go: the initial list is served at the current revision (so
//! the list resourceVersion client-go would choose gives the same answer), and iteration is in
//! key order where client-go's is a Go map's.

// The API's errors are `Status` values, as the API server's contract returns them.
#![allow(clippy::result_large_err)]

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use super::store::Indexer;
use crate::engine::apiserver::{ApiServer, EventType, PendingEvent, WatchFrom, WatchId};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::rand::Rng;
use crate::engine::status::Status;
use crate::engine::time::Time;

/// What a reflector calls on the API server (client-go `cache.ListerWatcher`, plus delivery of
/// the queued watch events, which the world controls here). [`ApiServer`] implements it; the
/// world can wrap it to make calls fail (a partition, injected errors).
pub trait ListerWatcher {
    /// LIST every object of `kind` in all namespaces.
    fn list(&mut self, kind: &'static Kind) -> Result<SharedList, Status>;
    /// WATCH `kind` from exactly `resource_version`.
    fn watch(&mut self, kind: &'static Kind, resource_version: u64) -> Result<WatchId, Status>;
    /// Delivers (pops) the watch's oldest queued event, its object shared with every other
    /// watcher's copy.
    fn next_event(&mut self, id: WatchId) -> Option<PendingEvent>;
    /// Whether the watch is still open.
    fn watch_is_open(&self, id: WatchId) -> bool;
    /// Whether the watch has events queued.
    fn has_pending_events(&self, id: WatchId) -> bool;
    /// Whether the reflector has something to take from the watch: events queued, or the
    /// stream's end.
    fn watch_has_news(&self, id: WatchId) -> bool {
        self.has_pending_events(id) || !self.watch_is_open(id)
    }
    /// Closes the watch; undelivered events are lost.
    fn stop_watch(&mut self, id: WatchId);
}

impl ListerWatcher for ApiServer {
    fn list(&mut self, kind: &'static Kind) -> Result<SharedList, Status> {
        let (items, resource_version) = ApiServer::list_shared(self, kind, None, &Selector::everything());
        Ok(SharedList { items, resource_version })
    }
    fn watch(&mut self, kind: &'static Kind, resource_version: u64) -> Result<WatchId, Status> {
        Ok(ApiServer::watch(self, kind, None, Selector::everything(), WatchFrom::Exact(resource_version)))
    }
    fn next_event(&mut self, id: WatchId) -> Option<PendingEvent> {
        ApiServer::next_shared_event(self, id)
    }
    fn watch_is_open(&self, id: WatchId) -> bool {
        ApiServer::watch_is_open(self, id)
    }
    fn has_pending_events(&self, id: WatchId) -> bool {
        !self.pending_events(id).is_empty()
    }
    // One look-up of the watch, not two: every informer of every process is asked this for
    // every step.
    fn watch_has_news(&self, id: WatchId) -> bool {
        ApiServer::watch_has_news(self, id)
    }
    fn stop_watch(&mut self, id: WatchId) {
        ApiServer::stop_watch(self, id);
    }
}

/// A LIST's answer as a reflector keeps it: the items, shared, and the list's resourceVersion.
#[derive(Clone, Debug, Default)]
pub struct SharedList {
    /// The items, in key order.
    pub items: Vec<Shared>,
    /// The list's `metadata.resourceVersion`.
    pub resource_version: u64,
}

/// The object a watch DELETE was missed for: the key and the last state the cache knew
/// (client-go `DeletedFinalStateUnknown`).
#[derive(Clone, Debug, PartialEq)]
pub struct DeletedFinalStateUnknown {
    /// The cache key, `namespace/name`.
    pub key: String,
    /// The last known object; it may be stale.
    pub obj: Shared,
}

/// What `OnDelete` receives: the final state, or a tombstone when the delete was missed.
#[derive(Clone, Debug, PartialEq)]
pub enum DeletedObject {
    /// The object as the DELETED watch event carried it.
    Final(Shared),
    /// A tombstone produced by a relist.
    Unknown(DeletedFinalStateUnknown),
}

impl DeletedObject {
    /// The deleted object (for a tombstone, its last known state).
    pub fn object(&self) -> &Shared {
        match self {
            DeletedObject::Final(v) => v,
            DeletedObject::Unknown(t) => &t.obj,
        }
    }

    /// The cache key (`DeletionHandlingMetaNamespaceKeyFunc`).
    pub fn key(&self) -> String {
        match self {
            DeletedObject::Final(v) => v.key(),
            DeletedObject::Unknown(t) => t.key.clone(),
        }
    }
}

/// One handler call waiting to run (client-go's `addNotification`, `updateNotification`,
/// `deleteNotification`).
#[derive(Clone, Debug, PartialEq)]
pub enum Notification {
    /// `OnAdd(obj, isInInitialList)`.
    Add {
        /// The new object.
        obj: Shared,
        /// Whether it came from the initial list (or the replay to a late handler).
        in_initial_list: bool,
    },
    /// `OnUpdate(old, new)`; for a resync, `old` and `new` are the same object.
    Update {
        /// The cached object before.
        old: Shared,
        /// The object now.
        new: Shared,
    },
    /// `OnDelete(obj)`.
    Delete(DeletedObject),
}

impl Notification {
    /// The key of the object concerned.
    pub fn key(&self) -> String {
        match self {
            Notification::Add { obj, .. } => obj.key(),
            Notification::Update { new, .. } => new.key(),
            Notification::Delete(d) => d.key(),
        }
    }

    /// Whether this is a resync (or unchanged-relist) update: same resourceVersion both sides.
    pub fn is_sync(&self) -> bool {
        matches!(self, Notification::Update { old, new } if old.resource_version() == new.resource_version())
    }

    /// `OnAdd`, `OnUpdate` or `OnDelete`, as the page labels the call.
    pub fn handler_name(&self) -> &'static str {
        match self {
            Notification::Add { .. } => "OnAdd",
            Notification::Update { .. } => "OnUpdate",
            Notification::Delete(_) => "OnDelete",
        }
    }
}

/// A registered handler (client-go returns a `ResourceEventHandlerRegistration`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HandlerId(pub usize);

/// One handler and its queue of pending calls (client-go `processorListener`).
#[derive(Clone, Debug)]
struct Listener {
    name: String,
    /// The period the handler asked for (after the 1 s minimum).
    requested_resync: Duration,
    /// The effective resync period (`determineResyncPeriod`); zero means never.
    resync_period: Duration,
    next_resync: Time,
    /// Whether sync notifications reach this listener (client-go's `listeners[l]` flag).
    syncing: bool,
    /// Calls not yet run, oldest first (client-go's unbounded ring buffer).
    pending: VecDeque<Notification>,
    /// Initial-list adds still in `pending`: the registration's `HasSynced` waits for them.
    initial_pending: usize,
}

/// Where the reflector is in its `ListAndWatch` loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReflectorState {
    /// Never listed.
    NotStarted,
    /// Watching from [`Informer::last_sync_resource_version`].
    Watching(WatchId),
    /// `ListAndWatch` returned; the next one (a relist) starts at `until`.
    BackingOff {
        /// When the relist is due.
        until: Time,
    },
    /// A watch request failed with an error worth retrying without a relist (connection refused,
    /// 429): the reflector watches again from its last resourceVersion at `until`.
    RewatchAt {
        /// When the new watch request is due.
        until: Time,
    },
    /// Stopped for good (the process shut down).
    Stopped,
}

/// What one informer step did, for the world's record.
#[derive(Clone, Debug, PartialEq)]
pub enum InformerStep {
    /// A list replaced the cache and a watch started from its revision.
    Listed {
        /// Objects in the list.
        items: usize,
        /// The list's resourceVersion; the watch starts there.
        resource_version: u64,
        /// Whether this was a relist (the cache had synced before).
        relist: bool,
        /// Keys that were new to the cache.
        added: Vec<String>,
        /// Keys whose resourceVersion changed.
        updated: Vec<String>,
        /// Keys that vanished: each got a `DeletedFinalStateUnknown` tombstone.
        tombstones: Vec<String>,
        /// Keys listed with an unchanged resourceVersion.
        unchanged: usize,
        /// The watch that should follow could not be opened: the reflector backs off and relists.
        watch_failed: Option<String>,
    },
    /// The list failed; `ListAndWatch` will run again at `retry_at`.
    ListFailed {
        /// The API error.
        message: String,
        /// When the next attempt is due.
        retry_at: Time,
    },
    /// One watch event was applied to the cache and queued for the handlers.
    Event {
        /// ADDED, MODIFIED or DELETED.
        event_type: EventType,
        /// The object's key.
        key: String,
        /// The object's resourceVersion.
        resource_version: u64,
    },
    /// A BOOKMARK moved the last synced resourceVersion.
    Bookmark {
        /// The new last synced resourceVersion.
        resource_version: u64,
    },
    /// The watch ended with an ERROR event (410 Expired and others): relist at `retry_at`.
    WatchError {
        /// The Status message, e.g. `too old resource version: 3 (5)`.
        message: String,
        /// The HTTP code in the Status.
        code: u64,
        /// When the relist is due.
        retry_at: Time,
    },
    /// A new watch could not be opened with an error worth retrying (connection refused, 429):
    /// watch again from the last synced resourceVersion at `retry_at`, without relisting.
    WatchRetry {
        /// The API error.
        message: String,
        /// When the next watch request is due.
        retry_at: Time,
    },
    /// A new watch could not be opened; relist at `retry_at`.
    WatchFailed {
        /// The API error.
        message: String,
        /// When the relist is due.
        retry_at: Time,
    },
    /// The connection broke: events in flight are lost; relist at `retry_at`.
    WatchBroken {
        /// When the relist is due.
        retry_at: Time,
    },
    /// The watch ended cleanly (timeout) and a new one started from the last synced version.
    Rewatched {
        /// Where the new watch starts.
        resource_version: u64,
    },
    /// A resync check ran.
    Resync {
        /// Handlers that received `Update(x, x)` for every cached object.
        handlers: Vec<HandlerId>,
        /// Cached objects.
        objects: usize,
    },
}

/// The reflector's back-off between `ListAndWatch` attempts: apimachinery `wait.Backoff` with
/// `DelayWithReset` (reflector.go: 800 ms initial, factor 2, cap 30 s, jitter 1.0, reset 2 min;
/// `NewReflectorWithOptions`). Each delay is `d + rand * d`, so in `[d, 2d)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    duration: Duration,
    steps: u32,
    /// When the back-off was created or last reset (`backoffManager.lastStart`).
    last_start: Option<Time>,
}

impl Backoff {
    /// `defaultBackoffInit`.
    pub const INITIAL: Duration = Duration::from_millis(800);
    /// `defaultBackoffMax`.
    pub const CAP: Duration = Duration::from_secs(30);
    /// `defaultBackoffReset`.
    pub const RESET: Duration = Duration::from_secs(120);
    /// `Steps: ceil(30s / 800ms)`.
    const STEPS: u32 = 38;

    /// A fresh back-off.
    pub fn new() -> Backoff {
        Backoff { duration: Backoff::INITIAL, steps: Backoff::STEPS, last_start: None }
    }

    /// `backoffManager.Step`: the next delay, jittered with the world's random source.
    pub fn step(&mut self, now: Time, rng: &mut Rng) -> Duration {
        let start = *self.last_start.get_or_insert(now);
        if now.since(start) > Backoff::RESET {
            *self = Backoff { last_start: Some(now), ..Backoff::new() };
        }
        let d = self.duration;
        if self.steps > 0 {
            self.steps -= 1;
            self.duration = self.duration.saturating_mul(2);
            if self.duration > Backoff::CAP {
                self.duration = Backoff::CAP;
                self.steps = 0;
            }
        }
        // wait.Jitter(d, 1.0) = d + rand.Float64() * d.
        let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1);
        d + Duration::from_millis(rng.below(ms))
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new()
    }
}

/// `minimumResyncPeriod` in shared_informer.go.
pub const MINIMUM_RESYNC_PERIOD: Duration = Duration::from_secs(1);

/// One kind's shared informer: a reflector, the cache, and the handlers registered on it.
#[derive(Clone, Debug)]
pub struct Informer {
    kind: &'static Kind,
    indexer: Indexer,
    listeners: Vec<Listener>,
    state: ReflectorState,
    /// When the open watch started and how many events it has delivered (client-go's "very
    /// short watch" check).
    watch_started: Time,
    watch_events: u64,
    last_sync_rv: u64,
    has_synced: bool,
    /// `defaultEventHandlerResyncPeriod`: what `add_event_handler` asks for.
    default_resync: Duration,
    /// The informer's resync check period: the default, lowered by handlers that ask for less
    /// before the start; zero: no resync at all.
    resync_check_period: Duration,
    next_resync_check: Option<Time>,
    backoff: Backoff,
}

impl Informer {
    /// An informer for `kind` (all namespaces, every object) whose handlers resync every
    /// `default_resync` (zero: never), as `NewSharedIndexInformer(lw, obj, default_resync, ...)`.
    pub fn new(kind: &'static Kind, default_resync: Duration) -> Informer {
        Informer {
            kind,
            indexer: Indexer::new(),
            listeners: Vec::new(),
            state: ReflectorState::NotStarted,
            watch_started: Time::default(),
            watch_events: 0,
            last_sync_rv: 0,
            has_synced: false,
            default_resync,
            resync_check_period: default_resync,
            next_resync_check: None,
            backoff: Backoff::new(),
        }
    }

    /// The kind this informer watches.
    pub fn kind(&self) -> &'static Kind {
        self.kind
    }

    /// The cache (the lister's view).
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The cache, to add indexes before the start.
    pub fn indexer_mut(&mut self) -> &mut Indexer {
        &mut self.indexer
    }

    /// Where the reflector is.
    pub fn state(&self) -> &ReflectorState {
        &self.state
    }

    /// The open watch, if any: the world delivers its events with [`Informer::deliver_next`].
    pub fn watch_id(&self) -> Option<WatchId> {
        match &self.state {
            ReflectorState::Watching(id) => Some(*id),
            _ => None,
        }
    }

    /// `LastSyncResourceVersion`: the revision the cache reflects.
    pub fn last_sync_resource_version(&self) -> u64 {
        self.last_sync_rv
    }

    /// `HasSynced`: the initial list has been applied to the cache.
    pub fn has_synced(&self) -> bool {
        self.has_synced
    }

    /// When the back-off ends and the reflector relists, if it is backing off.
    pub fn relist_at(&self) -> Option<Time> {
        match self.state {
            ReflectorState::BackingOff { until } => Some(until),
            _ => None,
        }
    }

    /// When a retriable watch failure's back-off ends and the reflector watches again.
    pub fn rewatch_at(&self) -> Option<Time> {
        match self.state {
            ReflectorState::RewatchAt { until } => Some(until),
            _ => None,
        }
    }

    /// The informer's next timer: the end of a back-off or the next resync check, whichever
    /// comes first.
    pub fn next_timer_at(&self) -> Option<Time> {
        match (self.relist_at().or(self.rewatch_at()), self.next_resync_at()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// When the next resync check is due, if the informer resyncs and is running.
    pub fn next_resync_at(&self) -> Option<Time> {
        match self.state {
            ReflectorState::Watching(_) | ReflectorState::RewatchAt { .. } => self.next_resync_check,
            _ => None,
        }
    }

    /// `AddEventHandler`: registers a handler with the informer's default resync period.
    pub fn add_event_handler(&mut self, name: impl Into<String>, now: Time) -> HandlerId {
        let period = self.default_resync;
        self.add_event_handler_with_resync(name, period, now)
    }

    /// `AddEventHandlerWithResyncPeriod`. A period under 1 s is raised to 1 s; under the
    /// informer's check period it lowers that period before the start, and is raised to it after.
    /// A handler added after the start receives `Add(obj, true)` for everything in the cache.
    pub fn add_event_handler_with_resync(&mut self, name: impl Into<String>, resync: Duration, now: Time) -> HandlerId {
        let started = self.state != ReflectorState::NotStarted;
        let mut requested = resync;
        if !requested.is_zero() {
            requested = requested.max(MINIMUM_RESYNC_PERIOD);
            if requested < self.resync_check_period {
                if started {
                    requested = self.resync_check_period;
                } else {
                    self.resync_check_period = requested;
                    // resyncCheckPeriodChanged: every listener's effective period is recomputed.
                    let check = self.resync_check_period;
                    for l in &mut self.listeners {
                        l.resync_period = determine_resync_period(l.requested_resync, check);
                    }
                }
            }
        }
        let resync_period = determine_resync_period(requested, self.resync_check_period);
        let mut listener = Listener {
            name: name.into(),
            requested_resync: requested,
            resync_period,
            next_resync: now.after(resync_period),
            syncing: true,
            pending: VecDeque::new(),
            initial_pending: 0,
        };
        if started {
            for obj in self.indexer.list() {
                listener.pending.push_back(Notification::Add { obj: obj.clone(), in_initial_list: true });
                listener.initial_pending += 1;
            }
        }
        self.listeners.push(listener);
        HandlerId(self.listeners.len() - 1)
    }

    /// The handlers, in registration order.
    pub fn handlers(&self) -> impl Iterator<Item = (HandlerId, &str)> {
        self.listeners.iter().enumerate().map(|(i, l)| (HandlerId(i), l.name.as_str()))
    }

    /// The handler's effective resync period (zero: never).
    pub fn handler_resync_period(&self, h: HandlerId) -> Option<Duration> {
        self.listeners.get(h.0).map(|l| l.resync_period)
    }

    /// The calls queued for a handler, oldest first.
    pub fn pending_notifications(&self, h: HandlerId) -> impl Iterator<Item = &Notification> {
        self.listeners.get(h.0).into_iter().flat_map(|l| l.pending.iter())
    }

    /// Whether handler `h` has calls queued (what choosing a step asks of every handler: cheaper
    /// than starting to iterate them).
    pub fn has_pending_notifications(&self, h: HandlerId) -> bool {
        self.listeners.get(h.0).is_some_and(|l| !l.pending.is_empty())
    }

    /// Handlers with calls queued.
    pub fn handlers_with_pending(&self) -> Vec<HandlerId> {
        (0..self.listeners.len()).filter(|i| !self.listeners[*i].pending.is_empty()).map(HandlerId).collect()
    }

    /// Runs one handler call: removes and returns the oldest queued notification of `h`.
    pub fn pop_notification(&mut self, h: HandlerId) -> Option<Notification> {
        let l = self.listeners.get_mut(h.0)?;
        let n = l.pending.pop_front()?;
        if matches!(n, Notification::Add { in_initial_list: true, .. }) {
            l.initial_pending = l.initial_pending.saturating_sub(1);
        }
        Some(n)
    }

    /// The registration's `HasSynced`: the informer has synced and this handler has run every
    /// initial-list add.
    pub fn handler_synced(&self, h: HandlerId) -> bool {
        self.has_synced && self.listeners.get(h.0).is_some_and(|l| l.initial_pending == 0)
    }

    /// `ListAndWatch`: lists the kind, replaces the cache (queuing the differences for the
    /// handlers), and opens a watch from the list's resourceVersion.
    ///
    /// The miniature's list is always served at the current revision, so client-go's choice of
    /// list resourceVersion ("0" first, then the last synced one, "" after an expired error) gives
    /// the same answer here.
    pub fn list_and_watch(&mut self, api: &mut dyn ListerWatcher, now: Time, rng: &mut Rng) -> InformerStep {
        if let Some(id) = self.watch_id() {
            api.stop_watch(id);
        }
        let list = match api.list(self.kind) {
            Ok(list) => list,
            Err(status) => return self.fail_list_and_watch(&status, now, rng),
        };
        let relist = self.has_synced;
        let mut step = self.replace(list.items, list.resource_version, relist);
        self.has_synced = true;
        self.last_sync_rv = list.resource_version;
        if let Err(InformerStep::WatchFailed { message, .. }) = self.open_watch(api, now, rng) {
            if let InformerStep::Listed { watch_failed, .. } = &mut step {
                *watch_failed = Some(message);
            }
        }
        // Each ListAndWatch starts its own resync timer (startResync).
        self.next_resync_check =
            if self.resync_check_period.is_zero() { None } else { Some(now.after(self.resync_check_period)) };
        step
    }

    /// The world could not reach the API server for this `ListAndWatch` (a partition, injected
    /// failures): the reflector backs off and tries again.
    pub fn fail_list_and_watch(&mut self, status: &Status, now: Time, rng: &mut Rng) -> InformerStep {
        let retry_at = now.after(self.backoff.step(now, rng));
        self.state = ReflectorState::BackingOff { until: retry_at };
        InformerStep::ListFailed { message: status.message.clone(), retry_at }
    }

    /// `Store.Replace` through the `RealFIFO` and `processDeltas`: tombstones for vanished keys
    /// first (in key order), then every listed object in list order.
    fn replace(&mut self, items: Vec<Shared>, rv: u64, relist: bool) -> InformerStep {
        let mut listed: Vec<String> = items.iter().map(|o| o.key()).collect();
        crate::sort::sort(&mut listed);
        let vanished: Vec<String> = self
            .indexer
            .keys()
            .filter(|k| listed.binary_search_by(|l| l.as_str().cmp(k)).is_err())
            .map(String::from)
            .collect();
        for key in &vanished {
            if let Some(last) = self.indexer.delete(key) {
                let tomb = DeletedFinalStateUnknown { key: key.clone(), obj: last };
                self.distribute(Notification::Delete(DeletedObject::Unknown(tomb)), false);
            }
        }
        let (mut added, mut updated, mut unchanged) = (Vec::new(), Vec::new(), 0);
        let count = items.len();
        for obj in items {
            let key = obj.key();
            let old = self.indexer.update(obj.clone());
            match old {
                Some(old) => {
                    let sync = old.resource_version() == obj.resource_version();
                    if sync {
                        unchanged += 1;
                    } else {
                        updated.push(key);
                    }
                    self.distribute(Notification::Update { old, new: obj }, sync);
                }
                None => {
                    added.push(key);
                    self.distribute(Notification::Add { obj, in_initial_list: !relist }, false);
                }
            }
        }
        InformerStep::Listed {
            items: count,
            resource_version: rv,
            relist,
            added,
            updated,
            tombstones: vanished,
            unchanged,
            watch_failed: None,
        }
    }

    /// `sharedProcessor.distribute`: non-sync calls go to every listener, sync calls only to the
    /// listeners currently syncing.
    fn distribute(&mut self, n: Notification, sync: bool) {
        let initial = matches!(n, Notification::Add { in_initial_list: true, .. });
        for l in &mut self.listeners {
            if !sync || l.syncing {
                l.pending.push_back(n.clone());
                if initial {
                    l.initial_pending += 1;
                }
            }
        }
    }

    /// Delivers the next event of the watch (the world's "deliver one watch event" step). When
    /// the API server has closed the watch and every queued event is delivered, handles the end
    /// of the stream instead (see [`Informer::watch_ended`]). `None` when no watch is open or
    /// nothing is queued on an open one.
    pub fn deliver_next(&mut self, api: &mut dyn ListerWatcher, now: Time, rng: &mut Rng) -> Option<InformerStep> {
        let id = self.watch_id()?;
        let Some(event) = api.next_event(id) else {
            return (!api.watch_is_open(id)).then(|| self.watch_closed(api, now, rng));
        };
        self.watch_events += 1;
        let obj = event.object;
        let step = match event.event_type {
            EventType::Added | EventType::Modified => {
                let key = obj.key();
                let rv = obj.resource_version();
                match self.indexer.update(obj.clone()) {
                    Some(old) => self.distribute(Notification::Update { old, new: obj }, false),
                    None => self.distribute(Notification::Add { obj, in_initial_list: false }, false),
                }
                self.last_sync_rv = rv;
                InformerStep::Event { event_type: event.event_type, key, resource_version: rv }
            }
            EventType::Deleted => {
                let key = obj.key();
                let rv = obj.resource_version();
                self.indexer.delete(&key);
                self.distribute(Notification::Delete(DeletedObject::Final(obj)), false);
                self.last_sync_rv = rv;
                InformerStep::Event { event_type: EventType::Deleted, key, resource_version: rv }
            }
            EventType::Bookmark => {
                self.last_sync_rv = obj.resource_version();
                InformerStep::Bookmark { resource_version: self.last_sync_rv }
            }
            EventType::Error => {
                // The watch returns apierrors.FromObject(status); ListAndWatch returns and the
                // back-off loop relists (reflector.go `watch`).
                api.stop_watch(id);
                let retry_at = now.after(self.backoff.step(now, rng));
                self.state = ReflectorState::BackingOff { until: retry_at };
                InformerStep::WatchError {
                    message: obj.get("message").and_then(Frozen::as_str).unwrap_or("").to_string(),
                    code: obj.get("code").and_then(Frozen::as_u64).unwrap_or(0),
                    retry_at,
                }
            }
        };
        Some(step)
    }

    /// The connection broke and the API server cannot be reached to watch again with an error
    /// that is not retriable (a timeout): the watch is closed, its undelivered events are lost,
    /// and the reflector relists after the back-off. (The World breaks a watch by stopping it on
    /// the server instead: the informer then sees its stream end and watches again at once.)
    ///
    /// In client-go the re-watch request fails with a non-retriable error (a timeout, not a
    /// refused connection), so `ListAndWatch` returns and the back-off loop relists. A break the
    /// client can recover from at once is [`ApiServer::break_watch`]: the reflector then
    /// re-watches from its last resourceVersion without relisting.
    pub fn break_watch(&mut self, api: &mut dyn ListerWatcher, now: Time, rng: &mut Rng) -> Option<InformerStep> {
        let id = self.watch_id()?;
        api.stop_watch(id);
        let retry_at = now.after(self.backoff.step(now, rng));
        self.state = ReflectorState::BackingOff { until: retry_at };
        Some(InformerStep::WatchBroken { retry_at })
    }

    /// The watch timed out (the request's `timeoutSeconds`, 5 to 10 minutes): the open watch is
    /// closed, undelivered events are dropped, and the reflector watches again from the last
    /// synced resourceVersion at once, without relisting. The server replays what happened since
    /// from its history, or answers 410 if that is too old.
    pub fn rewatch(&mut self, api: &mut dyn ListerWatcher, now: Time, rng: &mut Rng) -> Option<InformerStep> {
        let id = self.watch_id()?;
        api.stop_watch(id);
        Some(self.open_watch(api, now, rng).unwrap_or_else(|failed| failed))
    }

    /// The back-off after a retriable watch failure is over: watch again from the last synced
    /// resourceVersion (reflector.go `watch`: `continue` after `backoffManager.Backoff()`).
    /// `None` unless the reflector is in [`ReflectorState::RewatchAt`].
    pub fn retry_watch(&mut self, api: &mut dyn ListerWatcher, now: Time, rng: &mut Rng) -> Option<InformerStep> {
        self.rewatch_at()?;
        Some(self.open_watch(api, now, rng).unwrap_or_else(|failed| failed))
    }

    /// Opens a watch from the last synced resourceVersion. If the request fails, what follows is
    /// reflector.go `watch`'s choice (`isWatchErrorRetriable`): after "connection refused" or a
    /// 429 the reflector backs off and watches again without relisting ("most likely we will be
    /// able to restart watch where we ended"); after any other error `ListAndWatch` returns it
    /// and the reflector backs off, then relists (`Err` is the `WatchRetry` or `WatchFailed`
    /// step).
    fn open_watch(
        &mut self,
        api: &mut dyn ListerWatcher,
        now: Time,
        rng: &mut Rng,
    ) -> Result<InformerStep, InformerStep> {
        match api.watch(self.kind, self.last_sync_rv) {
            Ok(id) => {
                self.state = ReflectorState::Watching(id);
                self.watch_started = now;
                self.watch_events = 0;
                Ok(InformerStep::Rewatched { resource_version: self.last_sync_rv })
            }
            Err(status) => {
                let retry_at = now.after(self.backoff.step(now, rng));
                if is_watch_error_retriable(&status) {
                    self.state = ReflectorState::RewatchAt { until: retry_at };
                    Err(InformerStep::WatchRetry { message: status.message, retry_at })
                } else {
                    self.state = ReflectorState::BackingOff { until: retry_at };
                    Err(InformerStep::WatchFailed { message: status.message, retry_at })
                }
            }
        }
    }

    /// Whether the open watch has ended (the API server closed it, e.g. `ApiServer::break_watch`)
    /// and every event it queued has been delivered: the next [`Informer::deliver_next`] handles
    /// the end.
    pub fn watch_ended(&self, api: &dyn ListerWatcher) -> bool {
        self.watch_id().is_some_and(|id| !api.watch_is_open(id) && !api.has_pending_events(id))
    }

    /// Whether [`Informer::deliver_next`] has something to do: an event is queued on the open
    /// watch, or the watch has ended.
    pub fn has_deliverable(&self, api: &dyn ListerWatcher) -> bool {
        self.watch_id().is_some_and(|id| api.watch_has_news(id))
    }

    /// The watch stream ended without an ERROR event (reflector.go `handleWatch` returning): the
    /// reflector watches again from the last synced resourceVersion at once, without relisting;
    /// the server replays what happened since from its history, or answers 410 if that is too
    /// old. A watch that lasted under a second and delivered nothing is an error instead ("very
    /// short watch"): back off, then relist.
    fn watch_closed(&mut self, api: &mut dyn ListerWatcher, now: Time, rng: &mut Rng) -> InformerStep {
        if now.since(self.watch_started) < Duration::from_secs(1) && self.watch_events == 0 {
            if let Some(id) = self.watch_id() {
                api.stop_watch(id);
            }
            let retry_at = now.after(self.backoff.step(now, rng));
            self.state = ReflectorState::BackingOff { until: retry_at };
            return InformerStep::WatchBroken { retry_at };
        }
        self.open_watch(api, now, rng).unwrap_or_else(|failed| failed)
    }

    /// A resync check at `now` (`sharedProcessor.shouldResync` then `Store.Resync`): listeners
    /// whose period is due are marked syncing and get `Update(x, x)` for every cached object;
    /// the others are marked not syncing. `None` when no check is due.
    pub fn resync(&mut self, now: Time) -> Option<InformerStep> {
        self.next_resync_at().filter(|t| *t <= now)?;
        self.next_resync_check = Some(now.after(self.resync_check_period));
        let mut handlers = Vec::new();
        for (i, l) in self.listeners.iter_mut().enumerate() {
            let should = !l.resync_period.is_zero() && now >= l.next_resync;
            l.syncing = should;
            if should {
                l.next_resync = now.after(l.resync_period);
                handlers.push(HandlerId(i));
            }
        }
        if !handlers.is_empty() {
            let objs: Vec<Shared> = self.indexer.list().cloned().collect();
            for obj in objs {
                self.distribute(Notification::Update { old: obj.clone(), new: obj }, true);
            }
        }
        Some(InformerStep::Resync { handlers, objects: self.indexer.len() })
    }

    /// Stops the informer: the watch is closed and nothing more happens. Queued handler calls are
    /// kept so the page can show what was never processed.
    pub fn stop(&mut self, api: &mut dyn ListerWatcher) {
        if let Some(id) = self.watch_id() {
            api.stop_watch(id);
        }
        self.state = ReflectorState::Stopped;
        self.next_resync_check = None;
    }
}

/// reflector.go `isWatchErrorRetriable`: "connection refused" (the API server is most likely not
/// responsive, the watch can restart where it ended) and 429 Too Many Requests.
fn is_watch_error_retriable(status: &Status) -> bool {
    status.code() == 429 || status.message.contains("connection refused")
}

/// `determineResyncPeriod`: zero stays zero; no resync at all if the informer does not resync;
/// otherwise at least the informer's check period.
fn determine_resync_period(desired: Duration, check: Duration) -> Duration {
    if desired.is_zero() || check.is_zero() {
        Duration::ZERO
    } else {
        desired.max(check)
    }
}

impl InformerStep {
    /// One plain-English sentence for the learner; `resource` names the informer (`pods`).
    pub fn describe(&self, resource: &str) -> String {
        match self {
            InformerStep::Listed { watch_failed: Some(message), resource_version, .. } => format!(
                "The {resource} informer listed at resourceVersion {resource_version} but could not watch ({message}); it will list again after a back-off."
            ),
            InformerStep::Listed { items, resource_version, relist: false, .. } => format!(
                "The {resource} informer listed {items} object{} at resourceVersion {resource_version} and started watching from there.",
                plural(*items)
            ),
            InformerStep::Listed { resource_version, added, updated, tombstones, unchanged, .. } => format!(
                "The {resource} informer relisted at resourceVersion {resource_version}: {} new, {} changed, {} gone (tombstones), {unchanged} unchanged.",
                added.len(),
                updated.len(),
                tombstones.len()
            ),
            InformerStep::ListFailed { message, retry_at } => {
                format!("The {resource} informer could not list ({message}); it will try again at {retry_at}.")
            }
            InformerStep::Event { event_type, key, resource_version } => format!(
                "The {resource} informer received {} {key} (resourceVersion {resource_version}) and updated its cache before notifying its handlers.",
                event_type.as_str()
            ),
            InformerStep::Bookmark { resource_version } => {
                format!("The {resource} informer received a BOOKMARK: it is now synced to resourceVersion {resource_version}.")
            }
            InformerStep::WatchError { message, retry_at, .. } => format!(
                "The {resource} watch ended with an error ({message}); the informer backs off and relists at {retry_at}."
            ),
            InformerStep::WatchRetry { message, retry_at } => format!(
                "The {resource} informer could not watch ({message}); it watches again from its last resourceVersion at {retry_at}, without relisting."
            ),
            InformerStep::WatchFailed { message, retry_at } => {
                format!("The {resource} informer could not watch ({message}); it relists at {retry_at}.")
            }
            InformerStep::WatchBroken { retry_at } => format!(
                "The {resource} watch connection broke and the events in flight were lost; the informer relists at {retry_at}."
            ),
            InformerStep::Rewatched { resource_version } => {
                format!("The {resource} watch timed out; the informer watches again from resourceVersion {resource_version}.")
            }
            InformerStep::Resync { handlers, objects } => format!(
                "The {resource} informer resynced: {} handler{} will see an update for each of its {objects} cached object{}.",
                handlers.len(),
                plural(handlers.len()),
                plural(*objects)
            ),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The shared informers of one controller-manager process: one informer per kind, shared by all
/// the controllers of that process (client-go `SharedInformerFactory`). Restarting the process
/// means dropping the factory: the caches and handler queues go with it.
#[derive(Clone, Debug, Default)]
pub struct SharedInformerFactory {
    default_resync: Duration,
    informers: BTreeMap<String, Informer>,
}

impl SharedInformerFactory {
    /// A factory whose informers resync every `default_resync` (zero: never).
    pub fn new(default_resync: Duration) -> SharedInformerFactory {
        SharedInformerFactory { default_resync, informers: BTreeMap::new() }
    }

    /// The informer for `kind`, created on first use (`factory.Apps().V1().Deployments().Informer()`).
    pub fn informer_for(&mut self, kind: &'static Kind) -> &mut Informer {
        let resync = self.default_resync;
        self.informers.entry(kind.group_resource()).or_insert_with(|| Informer::new(kind, resync))
    }

    /// The informer for a `group_resource` such as `deployments.apps` or `pods`.
    pub fn get(&self, group_resource: &str) -> Option<&Informer> {
        self.informers.get(group_resource)
    }

    /// The informer for a `group_resource`, mutably.
    pub fn get_mut(&mut self, group_resource: &str) -> Option<&mut Informer> {
        self.informers.get_mut(group_resource)
    }

    /// Every informer, by group-resource.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Informer)> {
        self.informers.iter()
    }

    /// Every informer, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Informer)> {
        self.informers.iter_mut()
    }

    /// `Start`: runs the first `ListAndWatch` of every informer not started yet.
    pub fn start(&mut self, api: &mut dyn ListerWatcher, now: Time, rng: &mut Rng) -> Vec<(String, InformerStep)> {
        let mut steps = Vec::new();
        for (name, inf) in &mut self.informers {
            if *inf.state() == ReflectorState::NotStarted {
                steps.push((name.clone(), inf.list_and_watch(api, now, rng)));
            }
        }
        steps
    }

    /// `WaitForCacheSync`, without waiting: whether every informer has synced.
    pub fn has_synced(&self) -> bool {
        self.informers.values().all(Informer::has_synced)
    }

    /// `Shutdown`: stops every informer and closes its watch.
    pub fn shutdown(&mut self, api: &mut dyn ListerWatcher) {
        for inf in self.informers.values_mut() {
            inf.stop(api);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_the_cap_with_jitter_and_resets() {
        let mut rng = Rng::new(1);
        let mut b = Backoff::new();
        let t = Time::START;
        let mut base = Duration::from_millis(800);
        for _ in 0..8 {
            let d = b.step(t, &mut rng);
            assert!(d >= base && d < base * 2, "{d:?} not in [{base:?}, 2x)");
            base = (base * 2).min(Backoff::CAP);
        }
        let d = b.step(t, &mut rng);
        assert!(d >= Backoff::CAP && d < Backoff::CAP * 2);
        // More than 2 minutes after the last reset, it starts over.
        let d = b.step(t.after(Duration::from_secs(121)), &mut rng);
        assert!(d >= Backoff::INITIAL && d < Backoff::INITIAL * 2);
    }

    #[test]
    fn handler_resync_periods_follow_shared_informer_rules() {
        let kind = Kind::lookup("cm").expect("configmaps");
        let t = Time::START;
        let mut inf = Informer::new(kind, Duration::from_secs(30));
        let default = inf.add_event_handler("default", t);
        let fast = inf.add_event_handler_with_resync("fast", Duration::from_secs(10), t);
        let none = inf.add_event_handler_with_resync("none", Duration::ZERO, t);
        // "fast" lowers the check period before the start; the others keep their own periods.
        assert_eq!(inf.resync_check_period, Duration::from_secs(10));
        assert_eq!(inf.handler_resync_period(default), Some(Duration::from_secs(30)));
        assert_eq!(inf.handler_resync_period(fast), Some(Duration::from_secs(10)));
        assert_eq!(inf.handler_resync_period(none), Some(Duration::ZERO));
        // After the start a shorter period is raised to the check period instead.
        inf.state = ReflectorState::BackingOff { until: t };
        let late = inf.add_event_handler_with_resync("late", Duration::from_secs(5), t);
        assert_eq!(inf.handler_resync_period(late), Some(Duration::from_secs(10)));
        assert_eq!(inf.resync_check_period, Duration::from_secs(10));
        // Under a second is raised to the 1 s minimum.
        let mut fresh = Informer::new(kind, Duration::from_secs(30));
        let tiny = fresh.add_event_handler_with_resync("tiny", Duration::from_millis(10), t);
        assert_eq!(fresh.handler_resync_period(tiny), Some(MINIMUM_RESYNC_PERIOD));
        // An informer without resync gives no handler a resync.
        let mut quiet = Informer::new(kind, Duration::ZERO);
        let h = quiet.add_event_handler_with_resync("wants", Duration::from_secs(30), t);
        assert_eq!(quiet.handler_resync_period(h), Some(Duration::ZERO));
    }

    #[test]
    fn resync_period_rules() {
        assert_eq!(determine_resync_period(Duration::from_secs(5), Duration::ZERO), Duration::ZERO);
        assert_eq!(determine_resync_period(Duration::from_secs(5), Duration::from_secs(30)), Duration::from_secs(30));
        assert_eq!(determine_resync_period(Duration::ZERO, Duration::from_secs(30)), Duration::ZERO);
        assert_eq!(determine_resync_period(Duration::from_secs(60), Duration::from_secs(30)), Duration::from_secs(60));
    }
}
