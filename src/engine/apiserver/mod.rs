//! The API server: storage with one global resourceVersion, the verbs and their rules, watches.
//!
//! A miniature kube-apiserver that behaves like the real one for the kinds in
//! [`crate::engine::kinds::KINDS`] (apiserver `pkg/registry/generic/registry/store.go`). Every call
//! is one request: it either fails with a typed [`Status`] carrying Kubernetes' exact code, reason
//! and message, or succeeds and (if it changed anything) takes exactly one new resourceVersion and
//! records exactly one watch event. The server never calls into clients: events wait in
//! per-watch queues until the world delivers them.
//!
//! The files follow the request path:
//! - [`decode`], [`schema`]: strict decoding (400 on unknown fields) under `fieldValidation`,
//!   defaults, field order;
//! - [`admission`]: namespace lifecycle (404/403) and the object-count quota;
//! - [`strategy`]: per-kind create/update preparation, generation, per-kind validation;
//! - [`validation`]: metadata validation and the 422 field errors;
//! - [`create`], [`update`], [`patch`], [`delete`]: the verbs;
//! - [`store`]: the objects (compact trees, shared with informer caches and snapshots) and the
//!   global revision;
//! - [`watch`]: history window and per-watch queues; [`fields`]: field selectors.
//!
//! The API in one place (all on [`ApiServer`]):
//! - reads: `get`, `get_shared`, `list`, `list_shared`, `list_filtered` (+ field selector),
//!   `list_metadata` (metadata only, nothing decoded), `all_objects`, `count`, `stored_bytes`,
//!   `resource_version`;
//! - writes: `create` / `create_validated`, `update` / `update_validated`, `update_status`,
//!   `finalize_namespace`, `bind` (pods/binding), `patch` / `patch_with` (fieldValidation),
//!   `delete` (→ [`Deleted`], whose `response()` is the HTTP body);
//! - watches: `watch`, `watch_filtered`, `watch_list`, `pending_events`, `next_event`,
//!   `watch_is_open`, `stop_watch`, `break_watch`, `send_bookmark`, `set_history_limit`,
//!   `expire_history`;
//! - the clock and limits: `now`, `set_now`, `set_object_limit`.
//!
//! Known differences from kube-apiserver 1.34 (each a deliberate simplification):
//! - one history window per kind stands in for the watch cache (default
//!   [`DEFAULT_HISTORY_LIMIT`] events); no LIST/GET resourceVersion semantics, no pagination;
//! - setting `spec.nodeName` on an unbound pod by update is allowed (the real server requires
//!   `pods/binding`, [`ApiServer::bind`]); the `ValidatePodUpdate` message stops before its
//!   `cmp.Diff` of the internal PodSpec;
//! - `%#v` renderings of `*bool` in owner-reference errors show the value, not an address;
//! - a strict-decoding 422 of a JSON/merge patch shows the patched object with sorted top-level
//!   keys only; `Ty::Any` corners of the schema (affinity, volume sources, probes' grpc, container
//!   statuses) are not checked for unknown fields;
//! - a generated name that collides is drawn again instead of answering a retryable error;
//! - the object cap counts objects per kind across namespaces (not a ResourceQuota object);
//! - no admission webhooks, RBAC, managedFields, server-side apply, dry run, Event TTL.

// Every verb answers `Result<_, Status>`, the API contract; Status is a plain value on purpose.
#![allow(clippy::result_large_err)]

pub mod admission;
pub mod create;
pub mod decode;
pub mod delete;
pub mod fields;
pub mod patch;
pub mod schema;
pub mod schema_docs;
pub mod store;
pub mod strategy;
pub mod update;
pub mod validation;
pub mod watch;

use std::sync::Arc;

use serde_json::{json, Value};

use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::{ObjectExt, Shared};
use crate::engine::rand::Rng;
use crate::engine::status::Status;
use crate::engine::time::Time;

pub use decode::FieldValidation;
pub use delete::{DeleteOptions, Deleted, Propagation, Removed};
pub use fields::FieldSelector;
pub use patch::{Patch, Subresource};
pub use watch::{EventType, PendingEvent, WatchEvent, WatchFrom, WatchId, DEFAULT_HISTORY_LIMIT};

pub use store::ObjectMetadata;
use store::{kind_index, Key, Store};
use watch::{Change, Watches};

/// The result of a LIST: the items in key order and the revision the list was served at.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectList {
    /// The items (namespace, then name order).
    pub items: Vec<Value>,
    /// The list's `metadata.resourceVersion`: the current revision, at least every item's RV.
    pub resource_version: u64,
}

/// The namespaces every cluster starts with.
pub const INITIAL_NAMESPACES: &[&str] = &["default", "kube-node-lease", "kube-public", "kube-system"];

/// The default cap on objects of one kind (reported like a quota error).
pub const DEFAULT_OBJECT_LIMIT: usize = 20_000;

/// The miniature API server. Cheap to clone: objects are shared behind `Arc`.
#[derive(Clone, Debug)]
pub struct ApiServer {
    store: Store,
    watches: Watches,
    now: Time,
    rng: Rng,
    object_limit: usize,
}

impl ApiServer {
    /// A server whose uids and generated names come from `seed`, with the clock at
    /// [`Time::START`] and the namespaces of [`INITIAL_NAMESPACES`] Active.
    pub fn new(seed: u64) -> ApiServer {
        let mut s = ApiServer {
            store: Store::new(),
            watches: Watches::new(),
            now: Time::START,
            rng: Rng::new(seed),
            object_limit: DEFAULT_OBJECT_LIMIT,
        };
        for ns in INITIAL_NAMESPACES {
            let created = s.create(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}));
            debug_assert!(created.is_ok(), "initial namespace {ns}");
        }
        s
    }

    /// The virtual clock's current time (pushed in by the world).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Sets the virtual clock.
    pub fn set_now(&mut self, t: Time) {
        self.now = t;
    }

    /// The current global revision.
    pub fn resource_version(&self) -> u64 {
        self.store.revision()
    }

    /// Caps the number of objects of each kind (default [`DEFAULT_OBJECT_LIMIT`]); creates
    /// beyond it fail with a 403 quota error.
    pub fn set_object_limit(&mut self, n: usize) {
        self.object_limit = n;
    }

    /// Which objects of `kind` exist and how they are owned (see [`store::Store::ownership_stamp`]).
    pub fn ownership_stamp(&self, kind: &Kind) -> store::ContentStamp {
        self.store.ownership_stamp(kind_index(kind))
    }

    /// The total size of the stored objects' JSON encodings, in bytes (what etcd would hold).
    pub fn stored_bytes(&self) -> usize {
        self.store.bytes()
    }

    /// How many objects of a kind exist.
    pub fn count(&self, kind: &Kind) -> usize {
        self.store.count(kind_index(kind))
    }

    fn key(kind: &Kind, ns: Option<&str>, name: &str) -> Key {
        let ns = if kind.namespaced { ns.unwrap_or("default") } else { "" };
        store::key(kind_index(kind), ns, name)
    }

    /// GET one object; 404 `deployments.apps "web" not found` when absent. For a namespaced kind
    /// `ns: None` means `default` (as for every single-object verb); for LIST and WATCH it means
    /// all namespaces.
    pub fn get(&self, kind: &Kind, ns: Option<&str>, name: &str) -> Result<Value, Status> {
        self.store.get_value(&Self::key(kind, ns, name)).ok_or_else(|| Status::not_found(kind, name))
    }

    /// GET as the shared tree: the same `Arc` that this version's watch events, lists and the
    /// informer caches holding it share (decoded at most once while anyone holds it).
    pub fn get_shared(&self, kind: &Kind, ns: Option<&str>, name: &str) -> Result<Shared, Status> {
        self.store.get_shared(&Self::key(kind, ns, name)).ok_or_else(|| Status::not_found(kind, name))
    }

    /// LIST as shared trees, with the list's revision: an object a watch event delivered (or an
    /// earlier list returned) and someone still holds is handed out again, not decoded again, so
    /// a relisting informer's cache shares the other processes' objects.
    pub fn list_shared(&self, kind: &Kind, ns: Option<&str>, sel: &Selector) -> (Vec<Shared>, u64) {
        let ns = if kind.namespaced { ns } else { None };
        let items = self.store.range_shared(kind_index(kind), ns, sel).collect();
        (items, self.store.revision())
    }

    /// LIST a kind in one namespace (`Some`) or all (`None`), filtered by a label selector.
    pub fn list(&self, kind: &Kind, ns: Option<&str>, sel: &Selector) -> Result<ObjectList, Status> {
        let ns = if kind.namespaced { ns } else { None };
        let items = self.store.range(kind_index(kind), ns, sel).collect();
        Ok(ObjectList { items, resource_version: self.store.revision() })
    }

    /// LIST with a label selector and a field selector (`--field-selector status.phase=Running`).
    /// A field the kind cannot select on is a 400 `field label not supported: <field>`.
    pub fn list_filtered(
        &self,
        kind: &Kind,
        ns: Option<&str>,
        sel: &Selector,
        fields: &FieldSelector,
    ) -> Result<ObjectList, Status> {
        fields.check(kind)?;
        let ns = if kind.namespaced { ns } else { None };
        let items = self
            .store
            .range_shared(kind_index(kind), ns, sel)
            .filter(|o| fields.matches(kind, o))
            .map(|o| o.to_value())
            .collect();
        Ok(ObjectList { items, resource_version: self.store.revision() })
    }

    /// A metadata-only LIST (`PartialObjectMetadataList`): every object of a kind in one
    /// namespace (`Some`) or all (`None`), as `(namespace, name, metadata)` in key order
    /// (namespace "" for cluster-scoped kinds), without decoding any object.
    pub fn list_metadata<'a>(
        &'a self,
        kind: &Kind,
        ns: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a str, &'a str, &'a ObjectMetadata)> + 'a {
        let ns = if kind.namespaced { ns } else { None };
        self.store.range_metadata(kind_index(kind), ns)
    }

    /// Every object of every kind, in storage order (for the page's views and for tests).
    pub fn all_objects(&self) -> impl Iterator<Item = Value> + '_ {
        self.store.all()
    }

    // ---- watches ----

    /// Opens a watch (apiserver `pkg/storage/cacher/cacher.go`, `Watch`). Events queue until
    /// delivered.
    pub fn watch(&mut self, kind: &Kind, ns: Option<&str>, sel: Selector, from: WatchFrom) -> WatchId {
        self.open_watch(kind, ns, sel, FieldSelector::everything(), from)
    }

    /// A streaming list (`sendInitialEvents=true`, the WatchList feature;
    /// `cacheWatcher.processInterval`, k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go):
    /// ADDED for every current object, then a BOOKMARK at the current revision annotated
    /// `k8s.io/initial-events-end: "true"`, then changes.
    pub fn watch_list(&mut self, kind: &Kind, ns: Option<&str>, sel: Selector) -> WatchId {
        let id = self.open_watch(kind, ns, sel, FieldSelector::everything(), WatchFrom::Now);
        self.watches.bookmark(id, self.store.revision(), true);
        id
    }

    /// Opens a watch with a field selector too (objects entering or leaving it arrive as
    /// ADDED/DELETED, as with labels); 400 for a field the kind cannot select on.
    pub fn watch_filtered(
        &mut self,
        kind: &Kind,
        ns: Option<&str>,
        sel: Selector,
        fields: FieldSelector,
        from: WatchFrom,
    ) -> Result<WatchId, Status> {
        fields.check(kind)?;
        Ok(self.open_watch(kind, ns, sel, fields, from))
    }

    fn open_watch(
        &mut self,
        kind: &Kind,
        ns: Option<&str>,
        sel: Selector,
        fields: FieldSelector,
        from: WatchFrom,
    ) -> WatchId {
        let ns = if kind.namespaced { ns } else { None };
        let initial = match from {
            WatchFrom::Now | WatchFrom::Any => self.store.range_shared(kind_index(kind), ns, &sel).collect(),
            WatchFrom::Exact(_) => Vec::new(),
        };
        self.watches.open(kind, ns, sel, fields, from, initial)
    }

    /// The events queued on a watch and not yet delivered, oldest first.
    pub fn pending_events(&self, id: WatchId) -> &[PendingEvent] {
        self.watches.pending(id)
    }

    /// Delivers (pops) the oldest queued event of a watch.
    pub fn next_event(&mut self, id: WatchId) -> Option<WatchEvent> {
        self.watches.next(id)
    }

    /// Delivers (pops) the oldest queued event of a watch with its object shared, not copied (an
    /// informer keeps it in its cache: every cache of the same object then holds one copy).
    pub fn next_shared_event(&mut self, id: WatchId) -> Option<PendingEvent> {
        self.watches.next_shared(id)
    }

    /// Whether a watch is still open (not stopped, not ended by an ERROR).
    pub fn watch_is_open(&self, id: WatchId) -> bool {
        self.watches.is_open(id)
    }

    /// Whether a watch has events queued or is no longer open (stopped, ended by an ERROR, or
    /// unknown): `!pending_events(id).is_empty() || !watch_is_open(id)` in one look-up.
    pub fn watch_has_news(&self, id: WatchId) -> bool {
        self.watches.has_news(id)
    }

    /// Closes a watch; undelivered events are lost.
    pub fn stop_watch(&mut self, id: WatchId) {
        self.watches.stop(id);
    }

    /// Breaks a watch stream the way a dropped connection does: no more events are queued
    /// (those already queued can still be delivered); the client must re-watch or relist.
    pub fn break_watch(&mut self, id: WatchId) {
        self.watches.close_with(id, None);
    }

    /// Queues a BOOKMARK at the current revision on a watch (the watch cache sends these
    /// periodically to clients that allow them; the world decides when).
    pub fn send_bookmark(&mut self, id: WatchId) {
        self.watches.bookmark(id, self.store.revision(), false);
    }

    /// Sets how many events of each kind the history window keeps (at least 1).
    pub fn set_history_limit(&mut self, n: usize) {
        self.watches.set_limit(n);
    }

    /// The watch history window (the watch cache's part): how many events of each kind it keeps,
    /// and per kind the oldest resourceVersion a watch can still start from (0: all of it; a watch
    /// from an older one gets `410 Expired`). For the page's picture of the API server.
    pub fn watch_history(&self) -> (usize, Vec<(&'static str, u64)>) {
        self.watches.window()
    }

    /// Forgets the history: every resourceVersion older than the current one is "too old".
    pub fn expire_history(&mut self) {
        self.watches.expire(self.store.revision());
    }

    /// The changes of a kind stored after resourceVersion `rv`, oldest first, as far back as the
    /// history window reaches: `(event type, the object after, the object before)` (for DELETED,
    /// the object's last state; no "before" for ADDED). The owner graph reads what the latest
    /// step deleted and which owner references it removed from here.
    pub fn changes_after<'a>(
        &'a self,
        kind: &Kind,
        rv: u64,
    ) -> impl Iterator<Item = (EventType, &'a Frozen, Option<&'a Frozen>)> + 'a {
        self.watches.changes_after(kind_index(kind), rv).map(|c| (c.event_type, &*c.object, c.prev.as_deref()))
    }

    // ---- the three ways a write lands ----

    /// Stores a new object at the next revision and records ADDED.
    fn commit_create(&mut self, key: Key, mut obj: Value) -> Value {
        let rv = self.store.next_revision();
        set_resource_version(&mut obj, rv);
        let object = self.store.put(key.clone(), &obj);
        self.watches.record(key.0, Change { rv, event_type: EventType::Added, object, prev: None });
        obj
    }

    /// Replaces an object. A write whose encoding is byte-identical to the stored one is not
    /// written: no new resourceVersion, no event (apiserver
    /// `pkg/storage/etcd3/store.go`, `GuaranteedUpdate`: an unchanged object is not written).
    fn commit_update(&mut self, key: Key, old: Arc<Value>, mut new: Value) -> Value {
        set_resource_version(&mut new, old.resource_version());
        // Both sides are normalized (same key order), so value equality is byte equality of
        // their encodings, without encoding.
        if new == *old {
            return new;
        }
        let rv = self.store.next_revision();
        set_resource_version(&mut new, rv);
        let prev = self.store.get_shared(&key);
        let object = self.store.put(key.clone(), &new);
        self.watches.record(key.0, Change { rv, event_type: EventType::Modified, object, prev });
        new
    }

    /// [`ApiServer::commit_update`] with the stored object as its shared tree.
    fn commit_update_shared(&mut self, key: Key, old: &Shared, mut new: Value) -> Value {
        set_resource_version(&mut new, old.resource_version());
        // Both sides are normalized (same key order): equal values have equal encodings.
        if **old == new {
            return new;
        }
        let rv = self.store.next_revision();
        set_resource_version(&mut new, rv);
        // Converted with the stored version's keys (mostly the same, in the same places).
        let object = self.store.put_tree(key.clone(), Frozen::from_like(&new, old));
        let prev = Some(Arc::clone(old));
        self.watches.record(key.0, Change { rv, event_type: EventType::Modified, object, prev });
        new
    }

    /// [`ApiServer::commit_update_shared`] of a new version built as a tree from the stored one
    /// (its metadata, resourceVersion included, as stored): nothing is written when it is equal;
    /// otherwise it is stored under the next revision. Returns what is stored.
    fn commit_update_tree(&mut self, key: Key, old: &Shared, new: Frozen) -> Shared {
        if new == **old {
            return Arc::clone(old);
        }
        let rv = self.store.next_revision();
        let new = new.with_resource_version(rv).unwrap_or_else(|| {
            let mut v = new.to_value();
            set_resource_version(&mut v, rv);
            Frozen::from_like(&v, old)
        });
        let object = self.store.put_tree(key.clone(), new);
        let prev = Some(Arc::clone(old));
        self.watches.record(key.0, Change { rv, event_type: EventType::Modified, object: Arc::clone(&object), prev });
        object
    }

    /// Removes an object and records DELETED carrying its last state stamped with the
    /// deletion revision (etcd3 `watchChan.transform`,
    /// k8s.io/apiserver/pkg/storage/etcd3/watcher.go). Returns that last state (the event's tree).
    fn commit_delete_shared(&mut self, key: Key, old: &Shared) -> Shared {
        let rv = self.store.next_revision();
        self.store.remove(&key);
        // The last state as a tree (a copy of the stored one, the revision replaced): copying the
        // tree to a `Value` and converting that back cost two copies of the object per deletion.
        let object = match old.with_resource_version(rv) {
            Some(tree) => Arc::new(tree),
            None => {
                let mut last = old.to_value();
                set_resource_version(&mut last, rv);
                Arc::new(Frozen::from(&last))
            }
        };
        let prev = Some(Arc::clone(old));
        self.watches.record(key.0, Change { rv, event_type: EventType::Deleted, object: Arc::clone(&object), prev });
        object
    }
}

/// Sets `metadata.resourceVersion`, keeping `metadata`'s keys in the apiserver's order.
pub(crate) fn set_resource_version(obj: &mut Value, rv: u64) {
    let meta = obj.meta_mut();
    let rv = Value::from(rv.to_string());
    if let Some(v) = meta.get_mut("resourceVersion") {
        *v = rv;
        return;
    }
    // A new key goes where ObjectMeta's order puts it when the metadata is in that order
    // already (then normalizing leaves the order alone instead of rebuilding the map; the
    // result is the same either way: every key is a known field).
    let order = |k: &str| schema::OBJECT_META.fields.iter().position(|f| f.name == k);
    let at = order("resourceVersion").unwrap_or(usize::MAX);
    // One pass, each key's place looked up once (every create comes here).
    let (mut last, mut index, mut in_order) = (0, 0, true);
    for k in meta.keys() {
        match order(k) {
            Some(i) if i >= last => {
                last = i;
                index += usize::from(i < at);
            }
            _ => {
                in_order = false;
                break;
            }
        }
    }
    if in_order {
        meta.shift_insert(index, "resourceVersion".into(), rv);
    } else {
        meta.insert("resourceVersion".into(), rv);
    }
    if let Some(m) = obj.get_mut("metadata") {
        schema::normalize(m, &schema::OBJECT_META);
    }
}
