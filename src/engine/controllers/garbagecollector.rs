//! The garbage collector (k/k `pkg/controller/garbagecollector/
//! garbagecollector.go`, `graph.go`, `graph_builder.go`, `operations.go`, `patch.go`).
//!
//! Two halves, as upstream:
//! - The **graph builder** ([`GarbageCollector::handle`]) hears every informer notification of
//!   every kind (except Events, which upstream ignores by default: `DefaultIgnoredResources`) and
//!   keeps the owner graph ([`Graph`]): a node per uid with its owners and dependents. An owner
//!   that is referenced but not yet observed gets a *virtual* node, queued to `attemptToDelete`
//!   so the collector verifies it with a live GET. When an object starts being deleted with the
//!   `foregroundDeletion` finalizer its node is marked `deletingDependents` and it and all its
//!   dependents are queued to `attemptToDelete`; with `orphan` it is queued to `attemptToOrphan`.
//!   When an object is deleted its dependents are queued, and so are owners waiting for it.
//! - The **workers** ([`GarbageCollector::reconcile`]) run `attemptToDeleteItem` and
//!   `attemptToOrphanWorker` against live objects.
//!
//! Differences from upstream, all invisible in the API traffic's outcome:
//! - One work queue carries both of upstream's queues; a key is `attemptToDelete/<uid>` or
//!   `attemptToOrphan/<uid>` (see [`QueueName`]).
//! - A *virtual delete event* (an owner verified absent) is processed by the worker that found
//!   it, in the same step, instead of travelling through the `graphChanges` queue.
//! - Owner references are removed with a JSON merge patch carrying the remaining references and
//!   the object's `resourceVersion` as a precondition: upstream's fallback (`patch.go`
//!   `deleteOwnerRefJSONMergePatch`) when strategic merge patch is unsupported.
//! - The `OwnerRefInvalidNamespace` Warning Event is written by the next worker run, since
//!   handlers never call the API server here.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};

use super::{Caches, Controller, Ctx, DeleteOpts, Enqueue, Outcome, ResourceEvent};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::object::{ObjectExt, OwnerReference, Shared};
use crate::engine::status::Status;
use crate::engine::time::Time;

/// `metav1.FinalizerOrphanDependents`.
pub const FINALIZER_ORPHAN: &str = "orphan";
/// `metav1.FinalizerDeleteDependents`.
pub const FINALIZER_FOREGROUND: &str = "foregroundDeletion";
/// The Event source component.
pub const COMPONENT: &str = "garbage-collector-controller";
/// Upstream's `absentOwnerCache` is an LRU of this many identities.
pub const ABSENT_OWNER_CACHE_SIZE: usize = 500;
/// `retry.DefaultBackoff.Steps`: attempts of a conflicting finalizer removal within one run.
const UPDATE_MAX_RETRIES: usize = 4;

/// The two queues of the upstream collector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum QueueName {
    /// `attemptToDelete`.
    AttemptToDelete,
    /// `attemptToOrphan`.
    AttemptToOrphan,
}

impl QueueName {
    /// `attemptToDelete` / `attemptToOrphan`.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueName::AttemptToDelete => "attemptToDelete",
            QueueName::AttemptToOrphan => "attemptToOrphan",
        }
    }

    /// The graph builder's internal form of a key: `attemptToDelete/<uid>`.
    fn key(self, uid: &str) -> String {
        format!("{}/{uid}", self.as_str())
    }

    /// Splits a work-queue key into the queue and the uid. Accepts the readable form the queue
    /// holds (`attemptToDelete Pod default/web-5d4f-x2x7k <uid>`: the uid is the last word) and
    /// the internal form (`attemptToDelete/<uid>`).
    pub fn parse(key: &str) -> Option<(QueueName, &str)> {
        let (q, uid) = match key.split_once(' ') {
            Some((q, rest)) => (q, rest.rsplit(' ').next()?),
            None => key.split_once('/')?,
        };
        let q = match q {
            "attemptToDelete" => QueueName::AttemptToDelete,
            "attemptToOrphan" => QueueName::AttemptToOrphan,
            _ => return None,
        };
        Some((q, uid))
    }
}

/// `objectReference`: an owner reference's coordinates plus a namespace.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identity {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// The namespace ("" for cluster-scoped objects, and for virtual owners of cluster-scoped
    /// dependents).
    pub namespace: String,
    /// `name`.
    pub name: String,
    /// `uid`.
    pub uid: String,
}

impl Identity {
    /// The identity of an observed object.
    pub fn of(obj: &impl ObjectExt) -> Identity {
        Identity {
            api_version: obj.api_version().to_string(),
            kind: obj.kind().to_string(),
            namespace: obj.namespace().unwrap_or("").to_string(),
            name: obj.name().to_string(),
            uid: obj.uid().to_string(),
        }
    }

    /// The identity an owner reference gives its owner, seen from a dependent in `namespace`.
    pub fn of_owner(r: &OwnerReference, namespace: &str) -> Identity {
        Identity {
            api_version: r.api_version.clone(),
            kind: r.kind.clone(),
            namespace: namespace.to_string(),
            name: r.name.clone(),
            uid: r.uid.clone(),
        }
    }

    /// `ownerReferenceMatchesCoordinates`: uid, name, kind and apiVersion agree.
    pub fn matches(&self, r: &OwnerReference) -> bool {
        self.uid == r.uid && self.name == r.name && self.kind == r.kind && self.api_version == r.api_version
    }
}

impl fmt::Display for Identity {
    /// Upstream's `objectReference.String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}/{}, namespace: {}, name: {}, uid: {}]",
            self.api_version, self.kind, self.namespace, self.name, self.uid
        )
    }
}

/// One node of the owner graph (upstream `node`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Who it is (for a virtual node: what its first dependent said).
    pub identity: Identity,
    /// Its owner references as last observed (empty for a virtual node).
    pub owners: Vec<OwnerReference>,
    /// The uids of the nodes that name this one as an owner.
    pub dependents: BTreeSet<Arc<str>>,
    /// The dependents whose reference to this node has `blockOwnerDeletion: true`
    /// (upstream's `blockingDependents()`, kept up to date instead of computed by a scan).
    pub blocking: BTreeSet<Arc<str>>,
    /// Those of [`Node::blocking`] that are neither being deleted nor deleting their own
    /// dependents: what a foreground owner still has to queue for deletion.
    pub blocking_idle: BTreeSet<Arc<str>>,
    /// The object has a `deletionTimestamp`.
    pub being_deleted: bool,
    /// The object is being deleted with the `foregroundDeletion` finalizer: the collector
    /// deletes its dependents, then removes the finalizer.
    pub deleting_dependents: bool,
    /// Only known from a dependent's owner reference; not (yet) observed by an informer.
    pub is_virtual: bool,
}

/// The owner graph, by uid. This is what the page's "Owner graph" view draws.
///
/// Invariants (checked by [`Graph::check_invariants`]): an owner reference of a node names either
/// a node that lists it as a dependent, or no node at all (the owner was deleted and removed; the
/// dependent is queued and its reference is dangling); every dependent a node lists is in the
/// graph and has an owner reference with that node's uid; virtual nodes have no owners; a node's
/// `blocking` and `blocking_idle` are exactly the dependents they describe.
///
/// A foreground deletion of an owner with n dependents visits the owner after each dependent is
/// gone; upstream computes `blockingDependents()` by a scan of the dependents each time (n² in
/// all). Here each node keeps those sets up to date as its dependents change, so a visit costs
/// the dependents it queues.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    /// `uidToNode`. Nodes and uids are shared: the world's snapshots copy the collector, and
    /// copying a graph of 10,000 pods node by node took 6.5 MB a snapshot; now a snapshot shares
    /// every node, and a node changed afterwards is copied on its first change.
    pub nodes: BTreeMap<Arc<str>, Arc<Node>>,
}

impl Graph {
    /// A node by uid.
    pub fn node(&self, uid: &str) -> Option<&Node> {
        self.nodes.get(uid).map(|n| &**n)
    }

    /// A node by uid, to change (copied first if a snapshot shares it).
    fn node_mut(&mut self, uid: &str) -> Option<&mut Node> {
        self.nodes.get_mut(uid).map(Arc::make_mut)
    }

    fn insert(&mut self, uid: &str, node: Node) {
        self.nodes.insert(Arc::from(uid), Arc::new(node));
    }

    /// The uids of a node's dependents whose reference to it has `blockOwnerDeletion: true`
    /// (`blockingDependents`).
    pub fn blocking_dependents(&self, uid: &str) -> Vec<String> {
        self.nodes.get(uid).map(|n| n.blocking.iter().map(|d| d.to_string()).collect()).unwrap_or_default()
    }

    /// Brings the `blocking` sets of a node's owners up to date with its references and state.
    fn relink_blocking(&mut self, uid: &str) {
        let Some(dep) = self.nodes.get(uid).cloned() else { return };
        let idle = !dep.being_deleted && !dep.deleting_dependents;
        for r in &dep.owners {
            // An owner removed and seen again does not list dependents that named it before.
            let Some(owner) = self.nodes.get(r.uid.as_str()).filter(|o| o.dependents.contains(uid)) else { continue };
            // As upstream: any reference to the owner that blocks (the same uid may appear twice).
            let blocks = dep.owners.iter().any(|o| o.uid == r.uid && o.block_owner_deletion == Some(true));
            if owner.blocking.contains(uid) == blocks && owner.blocking_idle.contains(uid) == (blocks && idle) {
                continue;
            }
            let Some(owner) = self.node_mut(&r.uid) else { continue };
            let key: Arc<str> = Arc::from(uid);
            if blocks {
                owner.blocking.insert(key.clone());
            } else {
                owner.blocking.remove(uid);
            }
            if blocks && idle {
                owner.blocking_idle.insert(key);
            } else {
                owner.blocking_idle.remove(uid);
            }
        }
    }

    /// Every ownership edge, for drawing: (owner uid, dependent uid, `blockOwnerDeletion`), in
    /// owner then dependent order.
    pub fn edges(&self) -> Vec<(&str, &str, bool)> {
        let mut out = Vec::new();
        for (uid, n) in &self.nodes {
            for d in &n.dependents {
                let block = self.nodes.get(d).is_some_and(|dep| {
                    dep.owners.iter().any(|r| *r.uid == **uid && r.block_owner_deletion == Some(true))
                });
                out.push((&**uid, &**d, block));
            }
        }
        out
    }

    /// The graph as an indented tree, for `lab graph` and tests: roots are nodes with no owner in
    /// the graph; children are dependents, sorted by kind, namespace and name; flags follow in
    /// brackets (`virtual`, `being deleted`, `deletingDependents`) and a dependent whose reference
    /// blocks its owner's foreground deletion is marked `blockOwnerDeletion`. A node reached
    /// twice (several owners) is printed under each owner; cycles are cut with `(cycle)`.
    pub fn tree(&self) -> String {
        fn label(n: &Node) -> String {
            let id = &n.identity;
            let mut s = if id.namespace.is_empty() {
                format!("{} {}", id.kind, id.name)
            } else {
                format!("{} {}/{}", id.kind, id.namespace, id.name)
            };
            let mut flags = Vec::new();
            if n.is_virtual {
                flags.push("virtual");
            }
            if n.being_deleted {
                flags.push("being deleted");
            }
            if n.deleting_dependents {
                flags.push("deletingDependents");
            }
            if !flags.is_empty() {
                s.push_str(&format!(" [{}]", flags.join(", ")));
            }
            s
        }
        fn sort_key(g: &Graph, uid: &str) -> (String, String, String) {
            g.node(uid)
                .map(|n| (n.identity.kind.clone(), n.identity.namespace.clone(), n.identity.name.clone()))
                .unwrap_or_default()
        }
        fn walk(g: &Graph, uid: &str, prefix: &str, path: &mut Vec<String>, out: &mut String) {
            let Some(n) = g.node(uid) else { return };
            let mut deps: Vec<&str> = n.dependents.iter().map(|d| &**d).collect();
            crate::sort::sort_by_key(&mut deps, |d| sort_key(g, d));
            for (i, d) in deps.iter().enumerate() {
                let last = i + 1 == deps.len();
                let Some(dn) = g.node(d) else { continue };
                let block = dn.owners.iter().any(|r| r.uid == uid && r.block_owner_deletion == Some(true));
                let mut line = format!("{prefix}{}{}", if last { "└─ " } else { "├─ " }, label(dn));
                if block {
                    line.push_str(" (blockOwnerDeletion)");
                }
                if path.iter().any(|p| p == d) {
                    out.push_str(&format!("{line} (cycle)\n"));
                    continue;
                }
                out.push_str(&line);
                out.push('\n');
                path.push(d.to_string());
                let child_prefix = format!("{prefix}{}", if last { "   " } else { "│  " });
                walk(g, d, &child_prefix, path, out);
                path.pop();
            }
        }
        let mut roots: Vec<&str> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.owners.iter().all(|r| !self.nodes.contains_key(r.uid.as_str())))
            .map(|(u, _)| &**u)
            .collect();
        crate::sort::sort_by_key(&mut roots, |u| sort_key(self, u));
        let mut out = String::new();
        for r in roots {
            let Some(n) = self.node(r) else { continue };
            out.push_str(&label(n));
            out.push('\n');
            walk(self, r, "", &mut vec![r.to_string()], &mut out);
        }
        out
    }

    /// Checks the invariants stated on the type.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (uid, n) in &self.nodes {
            if **uid != *n.identity.uid {
                return Err(format!("node {} stored under uid {uid}", n.identity));
            }
            if n.is_virtual && !n.owners.is_empty() {
                return Err(format!("virtual node {} has owners", n.identity));
            }
            for r in &n.owners {
                match self.nodes.get(r.uid.as_str()) {
                    None => {}
                    Some(o) if !o.dependents.contains(uid) => {
                        return Err(format!("owner {} does not list dependent {}", o.identity, n.identity))
                    }
                    Some(_) => {}
                }
            }
            let blocks = |d: &Node| d.owners.iter().any(|r| *r.uid == **uid && r.block_owner_deletion == Some(true));
            let blocking = crate::sort::btree_set(
                n.dependents.iter().filter(|d| self.nodes.get(&***d).is_some_and(|d| blocks(d))).cloned(),
            );
            let idle = crate::sort::btree_set(
                blocking
                    .iter()
                    .filter(|d| self.nodes.get(&***d).is_some_and(|d| !d.being_deleted && !d.deleting_dependents))
                    .cloned(),
            );
            if n.blocking != blocking || n.blocking_idle != idle {
                return Err(format!("{}'s blocking dependents are out of date", n.identity));
            }
            for d in &n.dependents {
                match self.nodes.get(d) {
                    None => return Err(format!("{} lists dependent uid {d} missing from the graph", n.identity)),
                    Some(dep) if !dep.owners.iter().any(|r| *r.uid == **uid) => {
                        return Err(format!("{} lists {} which does not name it", n.identity, dep.identity))
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }
}

/// A change the graph builder processes (upstream `event`).
enum GraphChange<'a> {
    /// Add or update, with the previous state when known.
    Upsert { old: Option<&'a Frozen>, new: &'a Frozen },
    /// An informer saw the object deleted.
    Delete(&'a Frozen),
    /// The collector verified that this identity does not exist (404 or uid mismatch).
    VirtualDelete(Identity),
}

/// The garbage collector's in-memory state (lost on restart: a restarted collector rebuilds the
/// graph from its informers' relists).
#[derive(Clone, Debug, Default)]
pub struct GarbageCollector {
    /// The owner graph.
    pub graph: Graph,
    /// `absentOwnerCache`: identities verified absent, oldest first.
    absent_owners: VecDeque<Identity>,
    /// Keys a worker added to the queues (drained by [`Controller::take_enqueues`]).
    enqueued: Vec<Enqueue>,
    /// Warning Events the graph builder wants written: (involved object, message).
    pending_events: Vec<(Value, String)>,
}

fn has(obj: &impl ObjectExt, f: &str) -> bool {
    obj.has_finalizer(f)
}

/// `deletionStartsWithFinalizer`: the new state is being deleted with `finalizer`, the old was not.
fn deletion_starts_with_finalizer(old: Option<&Frozen>, new: &Frozen, finalizer: &str) -> bool {
    if !new.is_deleting() || !has(new, finalizer) {
        return false;
    }
    match old {
        None => true,
        Some(old) => !old.is_deleting() || !has(old, finalizer),
    }
}

fn all_kinds() -> &'static [&'static Kind] {
    static ALL: OnceLock<Vec<&'static Kind>> = OnceLock::new();
    ALL.get_or_init(|| KINDS.iter().filter(|k| !(k.group.is_empty() && k.resource == "events")).collect())
}

impl GarbageCollector {
    /// A collector with an empty graph.
    pub fn new() -> GarbageCollector {
        GarbageCollector::default()
    }

    /// The owner graph (for the page and tests).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The work-queue key for a key of the graph builder: the queue, the node's kind and
    /// `namespace/name` as the graph knows them, and its uid, which alone identifies the item:
    /// `attemptToDelete ReplicaSet default/web-5d4f 2b059c24-...`. Upstream queues node pointers;
    /// the lab's queues hold strings, so the key names what the page should show.
    pub fn queue_key(&self, key: &str) -> String {
        match QueueName::parse(key) {
            Some((q, uid)) => match self.graph.node(uid) {
                Some(n) if n.identity.namespace.is_empty() => {
                    format!("{} {} {} {uid}", q.as_str(), n.identity.kind, n.identity.name)
                }
                Some(n) => {
                    format!("{} {} {}/{} {uid}", q.as_str(), n.identity.kind, n.identity.namespace, n.identity.name)
                }
                None => format!("{} {uid}", q.as_str()),
            },
            None => key.to_string(),
        }
    }

    fn absent(&self, id: &Identity) -> bool {
        self.absent_owners.contains(id)
    }

    fn mark_absent(&mut self, id: Identity) {
        if !self.absent(&id) {
            if self.absent_owners.len() >= ABSENT_OWNER_CACHE_SIZE {
                self.absent_owners.pop_front();
            }
            self.absent_owners.push_back(id);
        }
    }

    /// `addDependentToOwners`: links `uid` to the owners in `refs`, creating virtual owners
    /// (queued for verification). Returns the keys to enqueue.
    fn add_dependent_to_owners(&mut self, uid: &str, refs: &[OwnerReference], out: &mut Vec<String>) {
        let Some(dep) = self.graph.nodes.get(uid) else { return };
        let dep_identity = dep.identity.clone();
        let mut potentially_invalid = false;
        for r in refs {
            match self.graph.node_mut(&r.uid) {
                None => {
                    let node = Node {
                        identity: Identity::of_owner(r, &dep_identity.namespace),
                        owners: Vec::new(),
                        dependents: crate::sort::btree_set([Arc::from(uid)]),
                        blocking: BTreeSet::new(),
                        blocking_idle: BTreeSet::new(),
                        being_deleted: false,
                        deleting_dependents: false,
                        is_virtual: true,
                    };
                    self.graph.insert(&r.uid, node);
                    out.push(QueueName::AttemptToDelete.key(&r.uid));
                }
                Some(owner) => {
                    owner.dependents.insert(Arc::from(uid));
                    let owner_namespaced = !owner.identity.namespace.is_empty();
                    if owner_namespaced && owner.identity.namespace != dep_identity.namespace {
                        if !owner.is_virtual {
                            // An observed namespaced owner in another namespace: definitely wrong.
                            potentially_invalid = true;
                            self.report_invalid_namespace_owner_ref(&dep_identity, r);
                        }
                    } else if !owner.identity.matches(r) && !owner.is_virtual {
                        potentially_invalid = true;
                    }
                }
            }
        }
        if potentially_invalid {
            out.push(QueueName::AttemptToDelete.key(uid));
        }
    }

    /// `reportInvalidNamespaceOwnerRef`: a Warning Event on the dependent.
    fn report_invalid_namespace_owner_ref(&mut self, dep: &Identity, r: &OwnerReference) {
        let invalid = Identity::of_owner(r, &dep.namespace);
        let involved = json!({
            "apiVersion": dep.api_version, "kind": dep.kind,
            "metadata": {"name": dep.name, "namespace": dep.namespace, "uid": dep.uid}
        });
        let msg = format!("ownerRef {invalid} does not exist in namespace {:?}", dep.namespace);
        self.pending_events.push((involved, msg));
    }

    /// `removeDependentFromOwners`.
    fn remove_dependent_from_owners(&mut self, uid: &str, refs: &[OwnerReference]) {
        for r in refs {
            if let Some(owner) = self.graph.node_mut(&r.uid) {
                owner.dependents.remove(uid);
                owner.blocking.remove(uid);
                owner.blocking_idle.remove(uid);
            }
        }
    }

    /// `addUnblockedOwnersToDeleteQueue`: owners waiting on their dependents, whose blocking
    /// reference was just removed or made non-blocking.
    fn add_unblocked_owners(
        &self,
        removed: &[OwnerReference],
        changed: &[(OwnerReference, OwnerReference)],
    ) -> Vec<String> {
        let mut out = Vec::new();
        let waiting = |uid: &str| self.graph.node(uid).is_some_and(|n| n.deleting_dependents);
        for r in removed {
            if r.block_owner_deletion == Some(true) && waiting(&r.uid) {
                out.push(QueueName::AttemptToDelete.key(&r.uid));
            }
        }
        for (old, new) in changed {
            let was = old.block_owner_deletion == Some(true);
            let is = new.block_owner_deletion == Some(true);
            if was && !is && waiting(&new.uid) {
                out.push(QueueName::AttemptToDelete.key(&new.uid));
            }
        }
        out
    }

    /// `processTransitions`.
    fn process_transitions(&mut self, old: Option<&Frozen>, new: &Frozen, out: &mut Vec<String>) {
        let uid = new.uid();
        if deletion_starts_with_finalizer(old, new, FINALIZER_ORPHAN) {
            out.push(QueueName::AttemptToOrphan.key(uid));
            return;
        }
        if deletion_starts_with_finalizer(old, new, FINALIZER_FOREGROUND) {
            if let Some(n) = self.graph.node_mut(uid) {
                n.deleting_dependents = true;
                out.extend(n.dependents.iter().map(|d| QueueName::AttemptToDelete.key(d)));
                out.push(QueueName::AttemptToDelete.key(uid));
            }
        }
    }

    /// `processGraphChanges` for one change. Returns the keys to enqueue.
    fn process_graph_change(&mut self, change: GraphChange<'_>) -> Vec<String> {
        let mut out = Vec::new();
        match change {
            GraphChange::Upsert { old, new } => {
                let uid = new.uid().to_string();
                if uid.is_empty() {
                    return out;
                }
                let observed = Identity::of(new);
                // A virtual node is observed for real: adopt the observed identity, and re-check
                // dependents that named it by other coordinates.
                if let Some(existing) =
                    self.graph.nodes.get_mut(uid.as_str()).filter(|n| n.is_virtual).map(Arc::make_mut)
                {
                    {
                        if existing.identity != observed {
                            existing.identity = observed.clone();
                        }
                        existing.is_virtual = false;
                        let deps: Vec<Arc<str>> = existing.dependents.iter().cloned().collect();
                        for d in deps {
                            let Some(dep) = self.graph.node(&d) else { continue };
                            let Some(r) = dep.owners.iter().find(|r| r.uid == uid).cloned() else { continue };
                            let dep_id = dep.identity.clone();
                            let ns_ok = observed.namespace.is_empty() || observed.namespace == dep_id.namespace;
                            if !ns_ok {
                                self.report_invalid_namespace_owner_ref(&dep_id, &r);
                            }
                            if !ns_ok || !observed.matches(&r) {
                                out.push(QueueName::AttemptToDelete.key(&d));
                            }
                        }
                    }
                }
                let refs = new.owner_references();
                let being_deleted = new.is_deleting();
                match self.graph.node_mut(&uid) {
                    None => {
                        let node = Node {
                            identity: observed,
                            owners: refs.clone(),
                            dependents: BTreeSet::new(),
                            blocking: BTreeSet::new(),
                            blocking_idle: BTreeSet::new(),
                            being_deleted,
                            deleting_dependents: being_deleted && has(new, FINALIZER_FOREGROUND),
                            is_virtual: false,
                        };
                        self.graph.insert(&uid, node);
                        self.add_dependent_to_owners(&uid, &refs, &mut out);
                    }
                    Some(existing) => {
                        let (added, removed, changed) = reference_diffs(&existing.owners, &refs);
                        if being_deleted {
                            existing.being_deleted = true;
                        }
                        if !added.is_empty() || !removed.is_empty() || !changed.is_empty() {
                            existing.owners = refs.clone();
                            out.extend(self.add_unblocked_owners(&removed, &changed));
                            self.add_dependent_to_owners(&uid, &added, &mut out);
                            self.remove_dependent_from_owners(&uid, &removed);
                        }
                    }
                }
                self.process_transitions(old, new, &mut out);
                self.graph.relink_blocking(&uid);
            }
            GraphChange::Delete(obj) => {
                let uid = obj.uid().to_string();
                if let Some(node) = self.graph.nodes.get(uid.as_str()).cloned() {
                    self.remove_node(&node, Identity::of(obj), &mut out);
                }
            }
            GraphChange::VirtualDelete(deleted) => {
                let Some(existing) = self.graph.nodes.get(deleted.uid.as_str()).cloned() else { return out };
                let matching = |g: &Graph, deps: &BTreeSet<Arc<str>>| -> (Vec<Arc<str>>, Vec<Arc<str>>) {
                    deps.iter().cloned().partition(|d| {
                        g.node(d).is_some_and(|dep| {
                            dep.owners.iter().any(|r| r.uid == deleted.uid && deleted.matches(r))
                                && (deleted.namespace.is_empty() || deleted.namespace == dep.identity.namespace)
                        })
                    })
                };
                let (matching_deps, nonmatching) = matching(&self.graph, &existing.dependents);
                if existing.is_virtual && nonmatching.is_empty() || !existing.is_virtual && existing.identity == deleted
                {
                    self.remove_node(&existing, deleted, &mut out);
                } else {
                    // Some dependents (or the observed object) disagree with the verified-absent
                    // coordinates: keep the node, collect only the dependents that match.
                    if !matching_deps.is_empty() {
                        self.mark_absent(deleted.clone());
                        out.extend(matching_deps.iter().map(|d| QueueName::AttemptToDelete.key(d)));
                    }
                    if existing.is_virtual && existing.identity == deleted {
                        // Try another identity the remaining dependents give it.
                        let alt = nonmatching.iter().find_map(|d| {
                            let dep = self.graph.node(d)?;
                            let r = dep.owners.iter().find(|r| r.uid == deleted.uid)?;
                            Some(Identity::of_owner(r, &dep.identity.namespace))
                        });
                        if let Some(alt) = alt {
                            if let Some(n) = self.graph.node_mut(&deleted.uid) {
                                n.identity = alt;
                            }
                            out.push(QueueName::AttemptToDelete.key(&deleted.uid));
                        }
                    }
                }
            }
        }
        out
    }

    /// `removeNode` plus what follows it in `processGraphChanges`: dependents are queued (the
    /// identity is remembered as absent), and owners waiting for their dependents are re-queued.
    fn remove_node(&mut self, node: &Node, deleted: Identity, out: &mut Vec<String>) {
        let uid = node.identity.uid.clone();
        self.graph.nodes.remove(uid.as_str());
        self.remove_dependent_from_owners(&uid, &node.owners);
        if !node.dependents.is_empty() {
            self.mark_absent(deleted);
        }
        out.extend(node.dependents.iter().map(|d| QueueName::AttemptToDelete.key(d)));
        for r in &node.owners {
            if self.graph.node(&r.uid).is_some_and(|o| o.deleting_dependents) {
                out.push(QueueName::AttemptToDelete.key(&r.uid));
            }
        }
    }

    fn enqueue_from_worker(&mut self, keys: Vec<String>) {
        let keys: Vec<Enqueue> = keys.into_iter().map(|k| Enqueue::Now(self.queue_key(&k))).collect();
        self.enqueued.extend(keys);
    }

    /// `getObject`: a live GET of the node's object (read only: the stored tree).
    fn get_object(id: &Identity, ctx: &mut Ctx<'_>) -> Result<Shared, ItemError> {
        let kind = Kind::for_object(&id.api_version, &id.kind).ok_or_else(|| {
            ItemError::Retry(format!("unable to get REST mapping for {}/{}", id.api_version, id.kind))
        })?;
        let ns = kind.namespaced.then_some(id.namespace.as_str());
        ctx.api.get_shared(kind, ns, &id.name).map_err(ItemError::api)
    }

    /// `isDangling`: whether the owner a reference names is absent (404, or another uid).
    fn is_dangling(
        &mut self,
        r: &OwnerReference,
        item: &Node,
        ctx: &mut Ctx<'_>,
    ) -> Result<(bool, Option<Shared>), ItemError> {
        let mut id = Identity::of_owner(r, "");
        if self.absent(&id) {
            return Ok((true, None));
        }
        id.namespace = item.identity.namespace.clone();
        if self.absent(&id) {
            return Ok((true, None));
        }
        let kind = Kind::for_object(&r.api_version, &r.kind)
            .ok_or_else(|| ItemError::Retry(format!("unable to get REST mapping for {}/{}", r.api_version, r.kind)))?;
        if !kind.namespaced {
            id.namespace.clear();
        }
        if item.identity.namespace.is_empty() && kind.namespaced {
            return Err(ItemError::NamespacedOwnerOfClusterScopedObject);
        }
        let ns = kind.namespaced.then_some(item.identity.namespace.as_str());
        match ctx.api.get_shared(kind, ns, &r.name) {
            Err(e) if e.code() == 404 => {
                self.mark_absent(id);
                Ok((true, None))
            }
            Err(e) => Err(ItemError::api(e)),
            Ok(owner) if owner.uid() != r.uid => {
                self.mark_absent(id);
                Ok((true, None))
            }
            Ok(owner) => Ok((false, Some(owner))),
        }
    }

    /// `classifyReferences`: (solid, dangling, waitingForDependentsDeletion).
    #[allow(clippy::type_complexity)]
    fn classify_references(
        &mut self,
        item: &Node,
        refs: &[OwnerReference],
        ctx: &mut Ctx<'_>,
    ) -> Result<(Vec<OwnerReference>, Vec<OwnerReference>, Vec<OwnerReference>), ItemError> {
        let (mut solid, mut dangling, mut waiting) = (Vec::new(), Vec::new(), Vec::new());
        for r in refs {
            match self.is_dangling(r, item, ctx)? {
                (true, _) => dangling.push(r.clone()),
                (false, Some(owner)) if owner.is_deleting() && has(&*owner, FINALIZER_FOREGROUND) => {
                    waiting.push(r.clone())
                }
                _ => solid.push(r.clone()),
            }
        }
        Ok((solid, dangling, waiting))
    }

    /// `attemptToDeleteItem`.
    fn attempt_to_delete_item(&mut self, item: &Node, ctx: &mut Ctx<'_>) -> Result<(), ItemError> {
        if item.being_deleted && !item.deleting_dependents {
            // Being deleted and not waiting for dependents: nothing to do until it is gone.
            return Ok(());
        }
        let latest = match Self::get_object(&item.identity, ctx) {
            Err(ItemError::Api(e)) if e.code() == 404 => {
                let out = self.process_graph_change(GraphChange::VirtualDelete(item.identity.clone()));
                self.enqueue_from_worker(out);
                return Err(ItemError::EnqueuedVirtualDelete);
            }
            Err(e) => return Err(e),
            Ok(o) => o,
        };
        if latest.uid() != item.identity.uid {
            let out = self.process_graph_change(GraphChange::VirtualDelete(item.identity.clone()));
            self.enqueue_from_worker(out);
            return Err(ItemError::EnqueuedVirtualDelete);
        }
        if item.deleting_dependents {
            return self.process_deleting_dependents_item(item, ctx);
        }
        let refs = latest.owner_references();
        if refs.is_empty() {
            return Ok(());
        }
        let (solid, dangling, waiting) = self.classify_references(item, &refs, ctx)?;
        if !solid.is_empty() {
            if dangling.is_empty() && waiting.is_empty() {
                return Ok(());
            }
            // Waiting owners must be dropped too, or they would wait for this item forever.
            let uids: BTreeSet<String> = crate::sort::btree_set(dangling.iter().chain(&waiting).map(|r| r.uid.clone()));
            return remove_owner_refs(&item.identity, &uids, ctx);
        }
        if !waiting.is_empty() && !item.dependents.is_empty() {
            let cycle = item.dependents.iter().any(|d| self.graph.node(d).is_some_and(|n| n.deleting_dependents));
            if cycle {
                // Cycle prevention: make this item's references non-blocking before deleting it
                // in the foreground.
                unblock_owner_references(&item.identity, ctx)?;
            }
            return delete_object(&item.identity, &latest, "Foreground", ctx);
        }
        let policy = if has(&*latest, FINALIZER_ORPHAN) {
            "Orphan"
        } else if has(&*latest, FINALIZER_FOREGROUND) {
            "Foreground"
        } else {
            "Background"
        };
        delete_object(&item.identity, &latest, policy, ctx)
    }

    /// `processDeletingDependentsItem`.
    fn process_deleting_dependents_item(&mut self, item: &Node, ctx: &mut Ctx<'_>) -> Result<(), ItemError> {
        let node = self.graph.node(&item.identity.uid);
        if node.is_none_or(|n| n.blocking.is_empty()) {
            return remove_finalizer(&item.identity, FINALIZER_FOREGROUND, ctx);
        }
        // Upstream queues every blocking dependent that is not itself deletingDependents. Those
        // already being deleted would return at once (see `attempt_to_delete_item`): the lab
        // leaves them out, which changes no API call but spares a foreground deletion of n pods
        // n² empty steps.
        let keys: Vec<String> =
            node.iter().flat_map(|n| &n.blocking_idle).map(|d| QueueName::AttemptToDelete.key(d)).collect();
        self.enqueue_from_worker(keys);
        Ok(())
    }

    /// `attemptToDeleteWorker`: the outcome for the queue.
    fn attempt_to_delete_worker(&mut self, uid: &str, ctx: &mut Ctx<'_>) -> Outcome {
        let Some(item) = self.graph.nodes.get(uid).cloned() else {
            // Gone from the graph (observed deleted, or virtual and verified absent).
            return Outcome::Done;
        };
        match self.attempt_to_delete_item(&item, ctx) {
            Err(ItemError::EnqueuedVirtualDelete) | Err(ItemError::NamespacedOwnerOfClusterScopedObject) => {
                Outcome::Done
            }
            Err(e) => Outcome::Err(format!("error syncing item {}: {}", item.identity, e)),
            // Requeue a virtual node until an informer observes it or it is verified absent
            // (https://issue.k8s.io/56121).
            Ok(()) if item.is_virtual && self.graph.node(uid).is_some_and(|n| n.is_virtual) => {
                Outcome::Err(format!("item {} hasn't been observed via informer yet", item.identity))
            }
            Ok(()) => Outcome::Done,
        }
    }

    /// `attemptToOrphanWorker`: remove this owner from every dependent, then its `orphan` finalizer.
    fn attempt_to_orphan_worker(&mut self, uid: &str, ctx: &mut Ctx<'_>) -> Outcome {
        let Some(owner) = self.graph.nodes.get(uid).cloned() else { return Outcome::Done };
        let mut errs = Vec::new();
        for d in &owner.dependents {
            let Some(dep) = self.graph.node(d) else { continue };
            let id = dep.identity.clone();
            match remove_owner_refs(&id, &crate::sort::btree_set([uid.to_string()]), ctx) {
                Ok(()) => {}
                Err(ItemError::Api(e)) if e.code() == 404 => {}
                Err(e) => errs.push(format!("orphaning {} failed, {}", id, e)),
            }
        }
        if !errs.is_empty() {
            return Outcome::Err(format!("orphanDependents for {} failed with {}", owner.identity, errs.join(", ")));
        }
        match remove_finalizer(&owner.identity, FINALIZER_ORPHAN, ctx) {
            Ok(()) => Outcome::Done,
            Err(e) => Outcome::Err(e.to_string()),
        }
    }
}

/// Why one item's processing stopped.
#[derive(Debug)]
enum ItemError {
    /// The item was verified absent and removed from the graph (`enqueuedVirtualDeleteEventErr`).
    EnqueuedVirtualDelete,
    /// A cluster-scoped object names a namespaced owner: never collected, never retried.
    NamespacedOwnerOfClusterScopedObject,
    /// An API call failed.
    Api(Box<Status>),
    /// Anything else worth retrying.
    Retry(String),
}

impl ItemError {
    fn api(s: Status) -> ItemError {
        ItemError::Api(Box::new(s))
    }
}

impl fmt::Display for ItemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ItemError::EnqueuedVirtualDelete => f.write_str("enqueued virtual delete event"),
            ItemError::NamespacedOwnerOfClusterScopedObject => {
                f.write_str("cluster-scoped objects cannot refer to namespaced owners")
            }
            ItemError::Api(s) => f.write_str(&s.message),
            ItemError::Retry(s) => f.write_str(s),
        }
    }
}

/// `referencesDiffs`: references added, removed, and changed (same uid, other fields differ).
fn reference_diffs(
    old: &[OwnerReference],
    new: &[OwnerReference],
) -> (Vec<OwnerReference>, Vec<OwnerReference>, Vec<(OwnerReference, OwnerReference)>) {
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for n in new {
        match old.iter().find(|o| o.uid == n.uid) {
            None => added.push(n.clone()),
            Some(o) if o != n => changed.push((o.clone(), n.clone())),
            Some(_) => {}
        }
    }
    let removed = old.iter().filter(|o| !new.iter().any(|n| n.uid == o.uid)).cloned().collect();
    (added, removed, changed)
}

fn kind_of(id: &Identity) -> Result<&'static Kind, ItemError> {
    Kind::for_object(&id.api_version, &id.kind)
        .ok_or_else(|| ItemError::Retry(format!("unable to get REST mapping for {}/{}", id.api_version, id.kind)))
}

fn ns_of<'a>(kind: &Kind, id: &'a Identity) -> Option<&'a str> {
    kind.namespaced.then_some(id.namespace.as_str())
}

/// `deleteObject`: DELETE with the uid and resourceVersion preconditions; on a 409, if the
/// object's owner references did not change, retry with the uid precondition only.
fn delete_object(id: &Identity, latest: &Frozen, policy: &'static str, ctx: &mut Ctx<'_>) -> Result<(), ItemError> {
    let kind = kind_of(id)?;
    let mut opts = DeleteOpts {
        propagation: Some(policy),
        precondition_uid: Some(id.uid.clone()),
        precondition_resource_version: Some(latest.resource_version().to_string()),
        ..DeleteOpts::default()
    };
    match ctx.api.delete(kind, ns_of(kind, id), &id.name, &opts) {
        Ok(_) => Ok(()),
        Err(e) if e.code() == 404 => Ok(()),
        Err(e) if e.code() == 409 => {
            let now = match ctx.api.get_shared(kind, ns_of(kind, id), &id.name) {
                Err(e) if e.code() == 404 => return Ok(()),
                r => r.map_err(ItemError::api)?,
            };
            if now.uid() != id.uid || now.owner_references() != latest.owner_references() {
                return Err(ItemError::api(e));
            }
            opts.precondition_resource_version = None;
            match ctx.api.delete(kind, ns_of(kind, id), &id.name, &opts) {
                Ok(_) => Ok(()),
                Err(e) if e.code() == 404 => Ok(()),
                Err(e) => Err(ItemError::api(e)),
            }
        }
        Err(e) => Err(ItemError::api(e)),
    }
}

/// Removes the owner references with the given uids from an object (`deleteOwnerRefJSONMergePatch`):
/// a merge patch with the remaining references and the object's resourceVersion as precondition.
fn remove_owner_refs(id: &Identity, uids: &BTreeSet<String>, ctx: &mut Ctx<'_>) -> Result<(), ItemError> {
    let kind = kind_of(id)?;
    let obj = ctx.api.get(kind, ns_of(kind, id), &id.name).map_err(ItemError::api)?;
    if obj.uid() != id.uid {
        return Ok(());
    }
    let all = obj.meta().and_then(|m| m.get("ownerReferences")).and_then(Value::as_array).cloned().unwrap_or_default();
    let keep: Vec<Value> =
        all.into_iter().filter(|r| !r.get("uid").and_then(Value::as_str).is_some_and(|u| uids.contains(u))).collect();
    let refs = if keep.is_empty() { Value::Null } else { Value::Array(keep) };
    let patch = json!({"metadata": {"ownerReferences": refs, "resourceVersion": obj.resource_version().to_string()}});
    ctx.api.merge_patch(kind, ns_of(kind, id), &id.name, patch).map(|_| ()).map_err(ItemError::api)
}

/// `unblockOwnerReferencesJSONMergePatch`: every owner reference with `blockOwnerDeletion: false`.
fn unblock_owner_references(id: &Identity, ctx: &mut Ctx<'_>) -> Result<(), ItemError> {
    let kind = kind_of(id)?;
    let obj = ctx.api.get(kind, ns_of(kind, id), &id.name).map_err(ItemError::api)?;
    let mut refs =
        obj.meta().and_then(|m| m.get("ownerReferences")).and_then(Value::as_array).cloned().unwrap_or_default();
    for r in &mut refs {
        if r.get("blockOwnerDeletion").and_then(Value::as_bool) == Some(true) {
            r["blockOwnerDeletion"] = json!(false);
        }
    }
    let patch = json!({"metadata": {"ownerReferences": refs, "resourceVersion": obj.resource_version().to_string()}});
    ctx.api.merge_patch(kind, ns_of(kind, id), &id.name, patch).map(|_| ()).map_err(ItemError::api)
}

/// `removeFinalizer`: GET, then a merge patch of the remaining finalizers with the
/// resourceVersion as precondition, retried on conflict ([`UPDATE_MAX_RETRIES`] attempts).
fn remove_finalizer(id: &Identity, finalizer: &str, ctx: &mut Ctx<'_>) -> Result<(), ItemError> {
    let kind = kind_of(id)?;
    for _ in 0..UPDATE_MAX_RETRIES {
        let obj = match ctx.api.get(kind, ns_of(kind, id), &id.name) {
            Err(e) if e.code() == 404 => return Ok(()),
            Err(e) => {
                return Err(ItemError::Retry(format!(
                    "cannot finalize owner {id}, because cannot get it: {}. The garbage collector will retry later",
                    e.message
                )))
            }
            Ok(o) => o,
        };
        if !has(&obj, finalizer) {
            return Ok(());
        }
        let rest: Vec<&str> = obj.finalizers().into_iter().filter(|f| *f != finalizer).collect();
        let fins = if rest.is_empty() { Value::Null } else { json!(rest) };
        let patch = json!({"metadata": {"resourceVersion": obj.resource_version().to_string(), "finalizers": fins}});
        match ctx.api.merge_patch(kind, ns_of(kind, id), &id.name, patch) {
            Ok(_) => return Ok(()),
            Err(e) if e.code() == 409 => continue,
            Err(e) if e.code() == 404 => return Ok(()),
            Err(e) => return Err(ItemError::api(e)),
        }
    }
    Err(ItemError::Retry(format!(
        "updateMaxRetries({UPDATE_MAX_RETRIES}) has reached. The garbage collector will retry later for owner {id}"
    )))
}

impl Controller for GarbageCollector {
    fn name(&self) -> &'static str {
        "garbage-collector-controller"
    }

    fn watches(&self) -> &'static [&'static Kind] {
        all_kinds()
    }

    fn handle(&mut self, _kind: &'static Kind, n: &ResourceEvent, _cache: &Caches, _now: Time) -> Vec<Enqueue> {
        let change = match n {
            ResourceEvent::Add(o) => GraphChange::Upsert { old: None, new: o },
            ResourceEvent::Update(old, new) => GraphChange::Upsert { old: Some(old), new },
            ResourceEvent::Delete { obj, .. } => GraphChange::Delete(obj),
        };
        let mut keys = self.process_graph_change(change);
        let mut seen = BTreeSet::new();
        keys.retain(|k| seen.insert(k.clone()));
        keys.into_iter().map(|k| Enqueue::Now(self.queue_key(&k))).collect()
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        for (involved, msg) in std::mem::take(&mut self.pending_events) {
            ctx.event(COMPONENT, &involved, "Warning", "OwnerRefInvalidNamespace", &msg);
        }
        match QueueName::parse(key) {
            Some((QueueName::AttemptToDelete, uid)) => self.attempt_to_delete_worker(uid, ctx),
            Some((QueueName::AttemptToOrphan, uid)) => self.attempt_to_orphan_worker(uid, ctx),
            None => Outcome::Done,
        }
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(GarbageCollector::new())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn take_enqueues(&mut self) -> Vec<Enqueue> {
        let mut seen = BTreeSet::new();
        let mut keys = std::mem::take(&mut self.enqueued);
        keys.retain(|k| seen.insert(format!("{k:?}")));
        keys
    }
}

#[cfg(test)]
mod tests;
