//! Watches: per-watch event queues fed from a bounded history window
//! (apiserver `pkg/storage/cacher/watch_cache.go`, `getAllEventsSinceLocked`; apimachinery
//! `pkg/watch/watch.go`).
//!
//! Every write appends one event to its kind's history and to the queue of every open watch on
//! that kind whose namespace and label selector let it through; nothing is pushed to clients.
//! The world decides when a queued event is delivered ([`super::ApiServer::next_event`]), which
//! is what lets the page show an informer lagging behind.
//!
//! The history window plays the watch cache's part: it keeps the last `limit` events of each kind
//! (default [`DEFAULT_HISTORY_LIMIT`], the historical `--default-watch-cache-size`). A watch
//! from an exact resourceVersion older than the window gets one ERROR event carrying
//! `410 Expired: too old resource version: X (Y)` (Y = oldest event kept − 1, as
//! `watch_cache.go` words it) and is closed.
//!
//! Selector transitions follow the cacher (`cache_watcher.go` `convertToWatchEvent`): an object
//! that starts matching arrives as ADDED, one that stops matching as DELETED carrying its
//! previous content stamped with the new resourceVersion.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::fields::FieldSelector;
use super::store::kind_index;
use crate::engine::frozen::Frozen;
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::labels::Selector;
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::status::Status;

/// How many events of each kind the history keeps unless told otherwise.
pub const DEFAULT_HISTORY_LIMIT: usize = 100;

/// A watch's handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WatchId(pub u64);

/// `watch.EventType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// `ADDED`.
    Added,
    /// `MODIFIED`.
    Modified,
    /// `DELETED`.
    Deleted,
    /// `BOOKMARK`.
    Bookmark,
    /// `ERROR`: the object is a Status.
    Error,
}

impl EventType {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
            EventType::Bookmark => "BOOKMARK",
            EventType::Error => "ERROR",
        }
    }
}

/// One watch event.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchEvent {
    /// The type.
    pub event_type: EventType,
    /// The object (for ERROR, a Status as JSON).
    pub object: Value,
}

/// An event waiting on a watch, not yet delivered: a [`WatchEvent`] whose object is shared with
/// the history window, the other watches and the world's snapshots. Every watch of a kind used to
/// hold its own copy of every object in flight, and each snapshot of the world copied them all
/// again: converging 10,000 pods took gigabytes. [`Watches::next`] hands out an owned copy.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingEvent {
    /// The type.
    pub event_type: EventType,
    /// The object (for ERROR, a Status as JSON).
    pub object: Shared,
}

impl PendingEvent {
    fn new(event_type: EventType, object: Value) -> PendingEvent {
        PendingEvent { event_type, object: Arc::new(Frozen::from(object)) }
    }
}

/// Where a watch starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchFrom {
    /// resourceVersion unset: "Get State and Start at Most Recent": a synthetic ADDED for every
    /// current object, then changes.
    Now,
    /// resourceVersion "0": "Get State and Start at Any" (served like `Now` here).
    Any,
    /// An exact resourceVersion: only changes after it; 410 if it is older than the history.
    Exact(u64),
}

/// One recorded change.
#[derive(Clone, Debug)]
pub(crate) struct Change {
    pub rv: u64,
    pub event_type: EventType,
    /// The object after the change; for DELETED, the last state stamped with the deletion RV.
    pub object: Shared,
    /// The object before the change (None for ADDED).
    pub prev: Option<Shared>,
}

#[derive(Clone, Debug)]
struct Watch {
    kind_idx: usize,
    namespace: Option<String>,
    selector: Selector,
    fields: FieldSelector,
    /// Invariant: `queue[head..]` are the undelivered events, oldest first; `queue[..head]`
    /// were delivered (emptied) and are dropped when they outnumber the rest.
    queue: Vec<PendingEvent>,
    head: usize,
    /// Closed after an ERROR: nothing more is queued.
    closed: bool,
}

impl Watch {
    fn push(&mut self, ev: PendingEvent) {
        if !self.closed {
            self.queue.push(ev);
        }
    }

    /// The event this watch should see for a change, if any (cache_watcher.go rules).
    fn convert(&self, change: &Change) -> Option<PendingEvent> {
        let ns_ok = |o: &Frozen| self.namespace.as_deref().is_none_or(|ns| o.namespace() == Some(ns));
        let kind = &KINDS[self.kind_idx];
        let passes = |o: &Frozen| ns_ok(o) && self.selector.matches_frozen(o.labels()) && self.fields.matches(kind, o);
        let cur = change.event_type != EventType::Deleted && passes(&change.object);
        let old = change.prev.as_deref().is_some_and(passes);
        let ev = |t: EventType, o: &Shared| Some(PendingEvent { event_type: t, object: Arc::clone(o) });
        match (change.event_type, cur, old) {
            (EventType::Added, true, _) => ev(EventType::Added, &change.object),
            (EventType::Modified, true, true) => ev(EventType::Modified, &change.object),
            (EventType::Modified, true, false) => ev(EventType::Added, &change.object),
            (EventType::Modified, false, true) => {
                let mut o = change.prev.as_deref().map_or(Value::Null, Frozen::to_value);
                super::set_resource_version(&mut o, change.rv);
                Some(PendingEvent::new(EventType::Deleted, o))
            }
            (EventType::Deleted, _, true) => ev(EventType::Deleted, &change.object),
            _ => None,
        }
    }
}

/// The history window and the open watches.
#[derive(Clone, Debug)]
pub(crate) struct Watches {
    next_id: u64,
    watches: BTreeMap<WatchId, Watch>,
    /// Open watch ids per kind index, so a write costs the number of watches on its kind.
    by_kind: Vec<Vec<WatchId>>,
    /// Per kind: the last `limit` changes, oldest first.
    history: Vec<VecDeque<Change>>,
    /// Per kind: a watch from resourceVersion R can resume iff R >= floor.
    floor: Vec<u64>,
    limit: usize,
    /// What a delivered event's slot holds until the queue is drained: one `null` shared by all
    /// (a fresh one was an allocation per event delivered; the event's own object would be kept
    /// alive by it).
    delivered: Shared,
}

impl Watches {
    pub fn new() -> Watches {
        Watches {
            next_id: 1,
            watches: BTreeMap::new(),
            by_kind: vec![Vec::new(); KINDS.len()],
            history: vec![VecDeque::new(); KINDS.len()],
            floor: vec![0; KINDS.len()],
            limit: DEFAULT_HISTORY_LIMIT,
            delivered: Shared::default(),
        }
    }

    /// Records a change and queues it for every watch that should see it.
    pub fn record(&mut self, kind_idx: usize, change: Change) {
        for id in &self.by_kind[kind_idx] {
            if let Some(w) = self.watches.get_mut(id) {
                if let Some(ev) = w.convert(&change) {
                    w.push(ev);
                }
            }
        }
        let h = &mut self.history[kind_idx];
        h.push_back(change);
        while h.len() > self.limit {
            if let Some(gone) = h.pop_front() {
                self.floor[kind_idx] = h.front().map_or(gone.rv, |c| c.rv - 1);
            }
        }
    }

    /// The limit, and each kind's floor (see [`super::ApiServer::watch_history`]).
    pub fn window(&self) -> (usize, Vec<(&'static str, u64)>) {
        (self.limit, KINDS.iter().zip(&self.floor).map(|(k, f)| (k.kind, *f)).collect())
    }

    pub fn set_limit(&mut self, n: usize) {
        self.limit = n.max(1);
        for k in 0..self.history.len() {
            let h = &mut self.history[k];
            while h.len() > self.limit {
                if let Some(gone) = h.pop_front() {
                    self.floor[k] = h.front().map_or(gone.rv, |c| c.rv - 1);
                }
            }
        }
    }

    /// Forgets all history: every resourceVersion before `current` becomes too old.
    pub fn expire(&mut self, current: u64) {
        for k in 0..self.history.len() {
            self.history[k].clear();
            self.floor[k] = current;
        }
    }

    /// The recorded changes of a kind with a resourceVersion above `rv`, oldest first (those the
    /// window still holds).
    pub fn changes_after(&self, kind_idx: usize, rv: u64) -> impl Iterator<Item = &Change> {
        let h = &self.history[kind_idx];
        h.range(h.partition_point(|c| c.rv <= rv)..)
    }

    /// Opens a watch. `initial` is the current state for `Now`/`Any` (already filtered by kind
    /// and namespace, in key order).
    pub fn open(
        &mut self,
        kind: &Kind,
        namespace: Option<&str>,
        selector: Selector,
        fields: FieldSelector,
        from: WatchFrom,
        initial: Vec<Shared>,
    ) -> WatchId {
        let kind_idx = kind_index(kind);
        let id = WatchId(self.next_id);
        self.next_id += 1;
        let mut w = Watch {
            kind_idx,
            namespace: namespace.map(str::to_string),
            selector,
            fields,
            queue: Vec::new(),
            head: 0,
            closed: false,
        };
        match from {
            WatchFrom::Now | WatchFrom::Any => {
                for o in initial {
                    if w.selector.matches_frozen(o.labels()) && w.fields.matches(kind, &o) {
                        w.push(PendingEvent { event_type: EventType::Added, object: o });
                    }
                }
            }
            WatchFrom::Exact(rv) => {
                let floor = self.floor[kind_idx];
                if rv < floor {
                    w.push(PendingEvent::new(EventType::Error, Status::expired(rv, floor).to_json()));
                    w.closed = true;
                } else {
                    for c in self.history[kind_idx].iter().filter(|c| c.rv > rv) {
                        if let Some(ev) = w.convert(c) {
                            w.push(ev);
                        }
                    }
                }
            }
        }
        if !w.closed {
            self.by_kind[kind_idx].push(id);
        }
        self.watches.insert(id, w);
        id
    }

    pub fn pending(&self, id: WatchId) -> &[PendingEvent] {
        self.watches.get(&id).map_or(&[], |w| &w.queue[w.head..])
    }

    pub fn next(&mut self, id: WatchId) -> Option<WatchEvent> {
        self.next_shared(id).map(|ev| WatchEvent { event_type: ev.event_type, object: ev.object.to_value() })
    }

    pub fn next_shared(&mut self, id: WatchId) -> Option<PendingEvent> {
        let stays = PendingEvent { event_type: EventType::Bookmark, object: Arc::clone(&self.delivered) };
        let w = self.watches.get_mut(&id)?;
        if w.head >= w.queue.len() {
            return None;
        }
        let ev = std::mem::replace(&mut w.queue[w.head], stays);
        w.head += 1;
        if w.head * 2 >= w.queue.len() && w.head >= 32 {
            w.queue.drain(..w.head);
            w.head = 0;
        }
        Some(ev)
    }

    pub fn is_open(&self, id: WatchId) -> bool {
        self.watches.get(&id).is_some_and(|w| !w.closed)
    }

    pub fn has_news(&self, id: WatchId) -> bool {
        self.watches.get(&id).is_none_or(|w| w.head < w.queue.len() || w.closed)
    }

    pub fn stop(&mut self, id: WatchId) {
        if let Some(w) = self.watches.remove(&id) {
            self.by_kind[w.kind_idx].retain(|x| *x != id);
        }
    }

    /// Queues a BOOKMARK carrying only `metadata.resourceVersion` (`Cacher.dispatchEvents`,
    /// k8s.io/apiserver/pkg/storage/cacher/cacher.go), for watches that asked for bookmarks
    /// (`allowWatchBookmarks`). The object has the watched kind's apiVersion/kind.
    pub fn bookmark(&mut self, id: WatchId, rv: u64, initial_events_end: bool) {
        if let Some(w) = self.watches.get_mut(&id) {
            let k = &KINDS[w.kind_idx];
            let mut object = serde_json::json!({"kind": k.kind, "apiVersion": k.api_version(), "metadata": {"resourceVersion": rv.to_string()}});
            if initial_events_end {
                object["metadata"]["annotations"] = serde_json::json!({"k8s.io/initial-events-end": "true"});
            }
            w.push(PendingEvent::new(EventType::Bookmark, object));
        }
    }

    /// Closes a watch with an ERROR event (used for faults: a broken stream).
    pub fn close_with(&mut self, id: WatchId, status: Option<&Status>) {
        if let Some(w) = self.watches.get_mut(&id) {
            if let Some(s) = status {
                w.push(PendingEvent::new(EventType::Error, s.to_json()));
            }
            w.closed = true;
            let k = w.kind_idx;
            self.by_kind[k].retain(|x| *x != id);
        }
    }
}
