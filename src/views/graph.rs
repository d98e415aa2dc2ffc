//! "Owner graph": the objects that take part in garbage collection (Deployments, ReplicaSets,
//! Pods, Buckets) and the Buckets' external buckets, with ownerReferences as edges and garbage
//! collection drawn as it happens:
//!
//! - an object being deleted (`metadata.deletionTimestamp` set: "Terminating") and its
//!   finalizers (`foregroundDeletion`, `orphan`, a controller's own);
//! - an owner in foreground deletion and the dependents it waits for: those whose reference to
//!   it has `blockOwnerDeletion: true` (k/k `pkg/controller/garbagecollector/garbagecollector.go`,
//!   `processDeletingDependentsItem`: the `foregroundDeletion` finalizer is removed once no
//!   blocking dependent is left), their edges marked "blocks";
//! - what the latest step deleted, drawn once more from its last state ("deleted in this
//!   step"), and the ownerReferences it removed, drawn as removed edges: the garbage collector's
//!   `orphanDependents` (`attemptToOrphanWorker`) removes the owner's reference from each
//!   dependent and then the `orphan` finalizer, so the owner and the reference go in one step.
//!
//! What the latest step changed comes from the API server's watch history (each change keeps
//! the object before it): the changes above the previous record's resourceVersion.
//!
//! The layout is a layered tree, deterministic: owners above dependents, siblings ordered by kind
//! then namespace then name, each leaf in its own column and each owner centred over its
//! children. An object with several owners is placed under the first live one; its other owner
//! references are still drawn. A dependent whose reference the step removed stays under that
//! owner for the step, so the removed edge is short and visible.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::engine::apiserver::store::ContentStamp;
use crate::engine::apiserver::{EventType, ObjectMetadata};
use crate::engine::controllers::garbagecollector::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::{ObjectExt, OwnerReference};
use crate::engine::world::{StepRecord, World};

use super::cloud::{cloud_buckets, CloudBucketView};
use super::{object_key, Capped, Fnv};

/// Hashed with [`super::Fnv`] (FNV-1a): looked up thousands of times a step at scale, where the
/// standard library's SipHash was a third of this view's instructions.
type UidMap<'a, V> = HashMap<&'a str, V, BuildHasherDefault<Fnv>>;
type UidSet<'a> = HashSet<&'a str, BuildHasherDefault<Fnv>>;

/// Nodes drawn at most (in tree order); the rest are counted in the note.
pub const NODES_SHOWN: usize = 150;
/// A node's box width in SVG units.
pub const NODE_WIDTH: i32 = 168;
/// A node's box height: the kind, the name and three lines of [`GraphNode::lines`].
pub const NODE_HEIGHT: i32 = 76;
/// Horizontal distance between leaf columns.
pub const COLUMN: i32 = 184;
/// Vertical distance between layers (room between them for an edge's "blocks" or "removed").
pub const LAYER: i32 = 116;
/// Space around the drawing.
pub const MARGIN: i32 = 8;
/// Blocking dependents named in an owner's accessible name; more are counted.
pub const BLOCKERS_NAMED: usize = 5;

/// The kinds drawn, in sibling order.
const KINDS: [&str; 4] = ["Deployment", "Bucket", "ReplicaSet", "Pod"];

/// A mark on a node: what holds it, or how it is going away. Each has words (never colour alone).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeMark {
    /// A Pod whose `metadata.deletionTimestamp` is set: kubectl shows it as `Terminating`
    /// (k/k `pkg/printers/internalversion/printers.go`, `printPod`).
    Terminating,
    /// Any other object whose `metadata.deletionTimestamp` is set (kubectl has no word for it:
    /// `Terminating` is a Pod's printed status and a Namespace's phase).
    Deleting,
    /// The latest step deleted it: drawn from its last state, this step only.
    Deleted,
    /// The `foregroundDeletion` finalizer: waits for its blocking dependents.
    ForegroundDeletion,
    /// The `orphan` finalizer: the GC removes dependents' references first.
    Orphan,
    /// Any other finalizer.
    Finalizer(String),
    /// A finalizer an object deleted in the latest step still had in its last stored state: the
    /// step removed it, and with the last one gone the API server deleted the object (its DELETED
    /// watch event carries that last stored state, as etcd's does).
    FinalizerRemoved(String),
    /// An owner in foreground deletion: its dependents with `blockOwnerDeletion: true` that still
    /// exist (`Kind name`, the first [`BLOCKERS_NAMED`]) and how many there are. None left: the
    /// garbage collector removes `foregroundDeletion` and the owner goes.
    WaitingFor { names: Vec<String>, total: usize },
    /// An external bucket without its `Bucket` object.
    Leaked,
    /// An external bucket's state in the cloud (`Creating`, `Ready`, `Deleting`).
    External(&'static str),
    /// An ownerReference whose owner is not in the cluster (the GC will delete this object).
    DanglingOwner(String),
    /// The latest step removed this object's ownerReference to `owner` (`Kind name`);
    /// `orphaned`: the garbage collector's `orphanDependents` did, for an owner deleted with
    /// the `orphan` finalizer.
    RefRemoved { owner: String, orphaned: bool },
}

impl NodeMark {
    /// The mark's words.
    pub fn label(&self) -> String {
        match self {
            NodeMark::Terminating => "Terminating (deletionTimestamp set)".into(),
            NodeMark::Deleting => "being deleted (deletionTimestamp set)".into(),
            NodeMark::Deleted => "deleted in this step".into(),
            NodeMark::ForegroundDeletion => "finalizer foregroundDeletion".into(),
            NodeMark::Orphan => "finalizer orphan".into(),
            NodeMark::Finalizer(f) => format!("finalizer {f}"),
            NodeMark::FinalizerRemoved(f) => format!("finalizer {f} removed"),
            NodeMark::WaitingFor { names, total } => match total {
                0 => "no dependent blocks its deletion any more".into(),
                _ => {
                    let mut w = format!("waiting for {}", names.join(", "));
                    if *total > names.len() {
                        w.push_str(&format!(" and {} more", total - names.len()));
                    }
                    w.push_str(" (blockOwnerDeletion)");
                    w
                }
            },
            NodeMark::Leaked => "LEAKED".into(),
            NodeMark::External(s) => format!("cloud: {s}"),
            NodeMark::DanglingOwner(o) => format!("owner {o} gone"),
            NodeMark::RefRemoved { owner, orphaned: true } => {
                format!("orphaned: its ownerReference to {owner} removed in this step")
            }
            NodeMark::RefRemoved { owner, orphaned: false } => {
                format!("its ownerReference to {owner} removed in this step")
            }
        }
    }
}

/// The three short lines a node's box shows under its kind and name: its state, its finalizers,
/// and what it waits for or lost (each empty when there is nothing to say). Symbols go with
/// words: the drawing never relies on colour or a symbol alone.
fn lines_of(marks: &[NodeMark]) -> [String; 3] {
    let (mut state, mut finalizers, mut note) = (Vec::new(), Vec::new(), Vec::new());
    for m in marks {
        match m {
            NodeMark::Terminating => state.push("⊘ Terminating".to_string()),
            NodeMark::Deleting => state.push("⊘ deletionTimestamp set".to_string()),
            NodeMark::Deleted => state.push("✕ deleted in this step".to_string()),
            NodeMark::External(s) => state.push(format!("cloud: {s}")),
            NodeMark::Leaked => state.push("⚠ LEAKED".to_string()),
            NodeMark::DanglingOwner(_) => state.push("owner gone".to_string()),
            NodeMark::ForegroundDeletion => finalizers.push("⚑ foregroundDeletion".to_string()),
            NodeMark::Orphan => finalizers.push("⚑ orphan".to_string()),
            NodeMark::Finalizer(f) => finalizers.push(format!("⚑ {f}")),
            NodeMark::FinalizerRemoved(f) => finalizers.push(format!("⚑ {f} removed")),
            NodeMark::WaitingFor { total, .. } => note.push(match total {
                0 => "nothing blocks it now".to_string(),
                1 => "waits for 1 dependent".to_string(),
                n => format!("waits for {n} dependents"),
            }),
            NodeMark::RefRemoved { orphaned: true, .. } => note.push("✕ orphaned: ref removed".to_string()),
            NodeMark::RefRemoved { orphaned: false, .. } => note.push("✕ ownerRef removed".to_string()),
        }
    }
    [state.join(" · "), finalizers.join(" "), note.join(" · ")]
}

/// One node, placed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GraphNode {
    /// The object's uid, or `cloud:<name>` for an external bucket.
    pub id: String,
    /// `ReplicaSet`, or `Cloud bucket`.
    pub kind: String,
    /// `metadata.name` (the bucket's name in the cloud).
    pub name: String,
    /// Layer (0 for objects without a drawn owner).
    pub depth: usize,
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Deletion states and finalizers.
    pub marks: Vec<NodeMark>,
    /// What the box says under the name (see [`lines_of`]).
    pub lines: [String; 3],
    /// Whether the latest step touched it.
    pub touched: bool,
    /// What a screen reader says, and the line of the text alternative.
    pub accessible_name: String,
}

/// One ownerReference, from owner to dependent (or Bucket to its external bucket).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GraphEdge {
    /// Owner node id.
    pub from: String,
    /// Dependent node id.
    pub to: String,
    /// `controller: true`.
    pub controller: bool,
    /// `blockOwnerDeletion: true`.
    pub block_owner_deletion: bool,
    /// The owner is in foreground deletion and this dependent, which exists and has
    /// `blockOwnerDeletion: true`, holds it back.
    pub blocking: bool,
    /// The latest step removed this reference (drawn as removed, this step only).
    pub removed: bool,
    /// A Bucket to its external bucket (not an ownerReference).
    pub external: bool,
    /// Start (bottom centre of the owner) and end (top centre of the dependent).
    pub x1: i32,
    /// See `x1`.
    pub y1: i32,
    /// See `x1`.
    pub x2: i32,
    /// See `x1`.
    pub y2: i32,
}

/// The whole drawing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct OwnerGraph {
    /// Nodes in tree order (preorder), at most [`NODES_SHOWN`].
    pub nodes: Capped<GraphNode>,
    /// Edges between drawn nodes.
    pub edges: Vec<GraphEdge>,
    /// The SVG's width.
    pub width: i32,
    /// The SVG's height.
    pub height: i32,
}

/// One owner of an item: uid, controller, blockOwnerDeletion, and the owner's kind and name
/// (both empty for a Bucket's link to its external bucket).
type Owner<'a> = (Cow<'a, str>, bool, bool, (&'a str, &'a str));

/// An object or external bucket before layout. Borrows from the API server's metadata listing,
/// so that the objects not drawn (all but [`NODES_SHOWN`]) cost no copies.
struct Item<'a> {
    id: Cow<'a, str>,
    kind: Cow<'a, str>,
    namespace: Cow<'a, str>,
    name: Cow<'a, str>,
    owners: Vec<Owner<'a>>,
    /// The ownerReferences the latest step removed.
    removed: Vec<Owner<'a>>,
    /// The marks of an external bucket; an object's come from `meta`, read only if it is drawn.
    marks: Vec<NodeMark>,
    external: bool,
    /// Deleted by the latest step (drawn from its last state).
    gone: bool,
    /// The object's metadata (`None` for an external bucket).
    meta: Option<&'a ObjectMetadata>,
}

fn kind_rank(kind: &str) -> usize {
    KINDS.iter().position(|k| *k == kind).unwrap_or(KINDS.len())
}

/// One object of a metadata listing: kind, namespace ("" if cluster-scoped), name, metadata.
type Listed<'a> = (&'static str, &'a str, &'a str, &'a ObjectMetadata);

fn owners_of(meta: &ObjectMetadata) -> Vec<Owner<'_>> {
    meta.owner_references
        .iter()
        .map(|r| {
            (
                Cow::Borrowed(r.uid.as_str()),
                r.controller == Some(true),
                r.block_owner_deletion == Some(true),
                (r.kind.as_str(), r.name.as_str()),
            )
        })
        .collect()
}

fn item_of<'a>((kind, namespace, name, meta): Listed<'a>, gone: bool) -> Item<'a> {
    Item {
        id: Cow::Borrowed(&meta.uid),
        kind: Cow::Borrowed(kind),
        namespace: Cow::Borrowed(namespace),
        name: Cow::Borrowed(name),
        owners: owners_of(meta),
        removed: Vec::new(),
        marks: Vec::new(),
        external: false,
        gone,
        meta: Some(meta),
    }
}

/// The resourceVersions the latest step's writes lie in: above the previous record's, up to its
/// own. `None` before the first step.
fn last_step_window(history: &[StepRecord]) -> Option<(u64, u64)> {
    let last = history.last()?;
    let before = match history.len() {
        1 => {
            last.calls.iter().filter(|c| c.code < 300 && c.resource_version > 0).map(|c| c.resource_version).min()? - 1
        }
        n => history[n - 2].revision,
    };
    Some((before, last.revision))
}

/// What the latest step did to the drawn kinds: the objects it deleted (kind, last state) and
/// the ownerReferences it removed (the dependent's uid, the reference). A step changes a few
/// objects: plain lists, searched in full.
struct LastStep<'a> {
    deleted: Vec<(&'static str, &'a Frozen)>,
    removed: Vec<(&'a str, OwnerReference)>,
    /// The garbage collector orphaning an owner's dependents (`attemptToOrphan`).
    orphaning: bool,
}

fn last_step(world: &World) -> LastStep<'_> {
    let mut step = LastStep { deleted: Vec::new(), removed: Vec::new(), orphaning: false };
    let Some((after, upto)) = last_step_window(world.history()) else { return step };
    step.orphaning =
        world.history().last().and_then(StepRecord::worked_key).is_some_and(|k| k.starts_with("attemptToOrphan"));
    let api = world.api();
    for kind in KINDS.iter().filter_map(|k| Kind::by_kind(k)) {
        for (event, obj, prev) in api.changes_after(kind, after) {
            if obj.resource_version() > upto {
                break;
            }
            if event == EventType::Deleted {
                step.deleted.push((kind.kind, obj));
            } else if let Some(prev) = prev {
                let now = obj.owner_references();
                for r in prev.owner_references() {
                    if !now.iter().any(|n| n.uid == r.uid) {
                        step.removed.push((obj.uid(), r));
                    }
                }
            }
        }
    }
    step
}

/// An object's marks: deletion, finalizers, then owners that are not in the cluster (`live`
/// holds the uids of the objects listed). Built only for the objects drawn: at 1,000 pods, doing
/// it for all of them was a good part of this view's cost in the page.
fn marks_of(kind: &str, meta: &ObjectMetadata, live: &UidSet<'_>, gone: bool) -> Vec<NodeMark> {
    let mut marks = Vec::new();
    if gone {
        marks.push(NodeMark::Deleted);
    } else if meta.deleting {
        marks.push(if kind == "Pod" { NodeMark::Terminating } else { NodeMark::Deleting });
    }
    for f in &meta.finalizers {
        marks.push(match f.as_str() {
            _ if gone => NodeMark::FinalizerRemoved(f.clone()),
            FINALIZER_FOREGROUND => NodeMark::ForegroundDeletion,
            FINALIZER_ORPHAN => NodeMark::Orphan,
            other => NodeMark::Finalizer(other.to_string()),
        });
    }
    if !gone {
        for r in &meta.owner_references {
            if !live.contains(r.uid.as_str()) {
                marks.push(NodeMark::DanglingOwner(format!("{} {}", r.kind, r.name)));
            }
        }
    }
    marks
}

/// The owner graph of the world now. `touched` holds the `(kind, namespace/name)` pairs the
/// latest step touched (see [`super::touched_by_last_step`]). Reads the API server's metadata
/// listing (no object is decoded) and the latest step's changes in its watch history.
pub fn owner_graph(world: &World, touched: &[(String, String)]) -> OwnerGraph {
    draw(world, last_step(world), cloud_buckets(world)).marked(touched)
}

/// The owner graph, recomputed only when what it is drawn from changed: which objects of the
/// drawn kinds exist and how they are owned (the API server's ownership stamps, see
/// [`crate::engine::apiserver::ApiServer::ownership_stamp`]), the external buckets, or the latest
/// step's deletions and removed references. Most steps at scale change none of them (a watch
/// event delivered, a key taken from a queue, a pod bound or its status written): drawing 150 of
/// a thousand pods' objects again cost about 5 ms of such a step in the page. Which nodes the
/// step touched is read anew each time ([`GraphCache::touched_ids`]) and drawn apart from the
/// graph, so that a step that only touched other objects redraws only their marks.
#[derive(Default)]
pub struct GraphCache {
    /// What the drawing was made from (and whether the step it was made at deleted or removed
    /// nothing: only such a drawing can serve another step), and the drawing.
    last: Option<(Stamps, Vec<CloudBucketView>, bool, Drawn)>,
}

impl GraphCache {
    /// The owner graph of the world now with no node marked as touched (what [`owner_graph`]
    /// returns, less the marks).
    pub fn unmarked(&mut self, world: &World) -> OwnerGraph {
        self.refresh(world).graph.clone()
    }

    /// The ids of the nodes of the last [`GraphCache::unmarked`] drawing that `touched` (see
    /// [`owner_graph`]) marks, in drawing order.
    pub fn touched_ids(&self, touched: &[(String, String)]) -> Vec<String> {
        let Some((.., drawn)) = &self.last else { return Vec::new() };
        drawn
            .graph
            .nodes
            .items
            .iter()
            .zip(&drawn.keys)
            .filter(|(_, key)| key.as_ref().is_some_and(|k| touched.contains(k)))
            .map(|(node, _)| node.id.clone())
            .collect()
    }

    fn refresh(&mut self, world: &World) -> &Drawn {
        let step = last_step(world);
        let cloud = cloud_buckets(world);
        let api = world.api();
        let stamp: Stamps = KINDS.map(|k| Kind::by_kind(k).map(|kind| api.ownership_stamp(kind)).unwrap_or_default());
        // A step that deleted objects or removed references draws them, for that step only.
        let quiet = step.deleted.is_empty() && step.removed.is_empty();
        let entry = match self.last.take() {
            Some((s, c, was_quiet, drawn)) if quiet && was_quiet && s == stamp && c == cloud => (s, c, true, drawn),
            _ => {
                let drawn = draw(world, step, cloud.clone());
                (stamp, cloud, quiet, drawn)
            }
        };
        &self.last.insert(entry).3
    }
}

/// The ownership stamps of the drawn kinds, in [`KINDS`] order.
type Stamps = [ContentStamp; 4];

/// An owner graph before the latest step's touched objects are marked, with the
/// `(kind, namespace/name)` each node is marked by (`None`: an external bucket, never marked).
struct Drawn {
    graph: OwnerGraph,
    keys: Vec<Option<(String, String)>>,
}

impl Drawn {
    fn marked(&self, touched: &[(String, String)]) -> OwnerGraph {
        let mut graph = self.graph.clone();
        for (node, key) in graph.nodes.items.iter_mut().zip(&self.keys) {
            node.touched = key.as_ref().is_some_and(|k| touched.contains(k));
        }
        graph
    }
}

fn draw(world: &World, step: LastStep<'_>, buckets: Vec<CloudBucketView>) -> Drawn {
    let api = world.api();
    let objects: Vec<Listed<'_>> = KINDS
        .iter()
        .filter_map(|k| Kind::by_kind(k))
        .flat_map(|kind| api.list_metadata(kind, None).map(move |(ns, name, m)| (kind.kind, ns, name, m)))
        .collect();
    let ghost_meta: Vec<ObjectMetadata> = step.deleted.iter().map(|(_, o)| ObjectMetadata::of(o)).collect();
    let mut items: Vec<Item> = objects.iter().map(|o| item_of(*o, false)).collect();
    for ((kind, obj), meta) in step.deleted.iter().zip(&ghost_meta) {
        items.push(item_of((kind, obj.namespace().unwrap_or(""), obj.name(), meta), true));
    }
    for (uid, r) in &step.removed {
        if let Some(it) = items.iter_mut().find(|it| it.id == *uid) {
            let flags = (r.controller == Some(true), r.block_owner_deletion == Some(true));
            it.removed.push((Cow::Borrowed(r.uid.as_str()), flags.0, flags.1, (r.kind.as_str(), r.name.as_str())));
        }
    }
    for b in buckets {
        let mut marks = vec![NodeMark::External(b.state)];
        if b.leaked {
            marks.push(NodeMark::Leaked);
        }
        let owners = if objects.iter().any(|o| o.3.uid == b.owner_uid) {
            vec![(Cow::Owned(b.owner_uid.clone()), false, false, ("", ""))]
        } else {
            Vec::new()
        };
        items.push(Item {
            id: format!("cloud:{}", b.name).into(),
            kind: "Cloud bucket".into(),
            namespace: "".into(),
            name: b.name.into(),
            owners,
            removed: Vec::new(),
            marks,
            external: true,
            gone: false,
            meta: None,
        });
    }
    layout(items, step.orphaning)
}

/// For each owner in foreground deletion (live, deleting, with `foregroundDeletion`): its uid
/// and the live dependents whose reference to it has `blockOwnerDeletion: true`, in item order.
/// Scans the references only when some owner is in foreground deletion (rarely; there are few).
fn blocking_dependents<'a>(items: &[Item<'a>]) -> Vec<(&'a str, Vec<usize>)> {
    let mut waiting: Vec<(&'a str, Vec<usize>)> = items
        .iter()
        .filter(|it| !it.gone)
        .filter_map(|it| it.meta.filter(|m| m.deleting && m.finalizers.iter().any(|f| f == FINALIZER_FOREGROUND)))
        .map(|m| (m.uid.as_str(), Vec::new()))
        .collect();
    if waiting.is_empty() {
        return waiting;
    }
    for (i, it) in items.iter().enumerate().filter(|(_, it)| !it.gone && !it.external) {
        for (uid, _, block, _) in &it.owners {
            if let Some((_, deps)) = waiting.iter_mut().find(|(w, _)| *block && w == uid) {
                deps.push(i);
            }
        }
    }
    waiting
}

fn layout(mut items: Vec<Item<'_>>, orphaning: bool) -> Drawn {
    crate::sort::sort_by(&mut items, |a, b| {
        (kind_rank(&a.kind), &a.namespace, &a.name, a.gone).cmp(&(kind_rank(&b.kind), &b.namespace, &b.name, b.gone))
    });
    // Looked up, never walked: hashed (a thousand uids a step at 1,000 pods).
    let index: UidMap<'_, usize> = items.iter().enumerate().map(|(i, it)| (&*it.id, i)).collect();
    // Owners that exist now (a dependent of an object deleted in this step has lost its owner).
    let live: UidSet<'_> = items.iter().filter(|it| !it.gone && !it.external).map(|it| &*it.id).collect();
    // The parent is the controller owner if drawn, else the first drawn owner, else the owner
    // whose reference the step removed.
    let parent: Vec<Option<usize>> = items
        .iter()
        .map(|it| {
            let drawn = |(uid, ..): &&Owner<'_>| index.contains_key(&**uid);
            it.owners
                .iter()
                .filter(drawn)
                .find(|o| o.1)
                .or_else(|| it.owners.iter().find(drawn))
                .or_else(|| it.removed.iter().find(drawn))
                .map(|o| index[&*o.0])
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let mut roots = Vec::new();
    for (i, p) in parent.iter().enumerate() {
        match p {
            Some(p) if *p != i => children[*p].push(i),
            _ => roots.push(i),
        }
    }
    // Preorder walk (iterative: no recursion depth limit on odd input), capped.
    let mut order: Vec<(usize, usize)> = Vec::new();
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
    let mut seen = vec![false; items.len()];
    let mut total = 0;
    while let Some((i, depth)) = stack.pop() {
        if seen[i] {
            continue;
        }
        seen[i] = true;
        total += 1;
        if order.len() < NODES_SHOWN {
            order.push((i, depth));
        }
        for &c in children[i].iter().rev() {
            stack.push((c, depth + 1));
        }
    }
    let mut shown = vec![false; items.len()];
    for &(i, _) in &order {
        shown[i] = true;
    }
    // Leaves take the next column; owners sit centred over their drawn children (post-order).
    let mut x = vec![0i32; items.len()];
    let mut next_col = 0i32;
    for &(i, _) in &order {
        if !children[i].iter().any(|&c| shown[c]) {
            x[i] = MARGIN + next_col * COLUMN;
            next_col += 1;
        }
    }
    for &(i, _) in order.iter().rev() {
        let kids: Vec<usize> = children[i].iter().copied().filter(|&c| shown[c]).collect();
        if let (Some(first), Some(last)) = (kids.first(), kids.last()) {
            x[i] = (x[*first] + x[*last]) / 2;
        }
    }
    let blockers = blocking_dependents(&items);
    let name_of = |i: usize| format!("{} {}", items[i].kind, items[i].name);
    let mut nodes = Vec::with_capacity(order.len());
    let mut keys = Vec::with_capacity(order.len());
    let mut max_depth = 0;
    for &(i, depth) in &order {
        let it = &items[i];
        max_depth = max_depth.max(depth);
        let key = object_key(&it.namespace, &it.name);
        let mut words = vec![name_of(i)];
        if !it.namespace.is_empty() {
            words[0].push_str(&format!(" in namespace {}", it.namespace));
        }
        for (uid, controller, block, what) in &it.owners {
            if let Some(&o) = index.get(&**uid) {
                let mut w =
                    if it.external { format!("created by {}", name_of(o)) } else { format!("owned by {}", name_of(o)) };
                if *controller {
                    w.push_str(" (controller)");
                }
                if *block {
                    w.push_str(" (blockOwnerDeletion)");
                }
                if items[o].gone && !it.gone {
                    w.push_str(", which was deleted in this step");
                }
                words.push(w);
            } else if !what.0.is_empty() {
                words.push(format!("owner {} {} is gone", what.0, what.1));
            }
        }
        let mut marks = it.meta.map_or_else(|| it.marks.clone(), |m| marks_of(&it.kind, m, &live, it.gone));
        if let Some((_, deps)) = it.meta.and_then(|m| blockers.iter().find(|(uid, _)| *uid == m.uid)) {
            marks.push(NodeMark::WaitingFor {
                names: deps.iter().take(BLOCKERS_NAMED).map(|&d| name_of(d)).collect(),
                total: deps.len(),
            });
        }
        for (_, _, _, (kind, name)) in &it.removed {
            marks.push(NodeMark::RefRemoved { owner: format!("{kind} {name}"), orphaned: orphaning });
        }
        words.extend(marks.iter().filter(|m| !matches!(m, NodeMark::DanglingOwner(_))).map(NodeMark::label));
        nodes.push(GraphNode {
            id: it.id.to_string(),
            kind: it.kind.to_string(),
            name: it.name.to_string(),
            depth,
            x: x[i],
            y: MARGIN + depth as i32 * LAYER,
            lines: lines_of(&marks),
            marks,
            touched: false,
            accessible_name: words.join(", "),
        });
        keys.push((!it.external).then(|| (it.kind.to_string(), key)));
    }
    let pos: UidMap<'_, (i32, i32)> = nodes.iter().map(|n| (n.id.as_str(), (n.x, n.y))).collect();
    let mut edges = Vec::new();
    for n in &nodes {
        let it = &items[index[n.id.as_str()]];
        let current = it.owners.iter().map(|o| (o, false));
        for ((uid, controller, block, _), removed) in current.chain(it.removed.iter().map(|o| (o, true))) {
            if let Some(&(ox, oy)) = pos.get(&**uid) {
                edges.push(GraphEdge {
                    from: uid.to_string(),
                    to: n.id.clone(),
                    controller: *controller,
                    block_owner_deletion: *block,
                    blocking: !removed && !it.gone && *block && blockers.iter().any(|(b, _)| *b == &**uid),
                    removed,
                    external: it.external,
                    x1: ox + NODE_WIDTH / 2,
                    y1: oy + NODE_HEIGHT,
                    x2: n.x + NODE_WIDTH / 2,
                    y2: n.y,
                });
            }
        }
    }
    let graph = OwnerGraph {
        width: 2 * MARGIN + (next_col.max(1) - 1) * COLUMN + NODE_WIDTH,
        height: 2 * MARGIN + max_depth as i32 * LAYER + NODE_HEIGHT,
        nodes: Capped { items: nodes, total },
        edges,
    };
    Drawn { graph, keys }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::apiserver::delete::{DeleteOptions, Propagation};
    use crate::engine::world::ActionKind;

    fn settled_web(replicas: i64) -> World {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        w.create(super::super::watch::tests::deployment("web", replicas)).unwrap();
        w.run_until_idle(5000);
        w
    }

    fn delete_web(w: &mut World, propagation: Option<Propagation>) {
        let dk = Kind::by_kind("Deployment").unwrap();
        let opts = DeleteOptions { propagation_policy: propagation, ..Default::default() };
        w.delete(dk, Some("default"), "web", opts).unwrap();
    }

    /// The graph now, as the page draws it.
    fn graph(w: &World) -> OwnerGraph {
        owner_graph(w, &super::super::touched_by_last_step(w.history()))
    }

    /// Steps until the graph satisfies `done` (at most 3,000 steps); returns that graph.
    fn step_until(w: &mut World, what: &str, done: impl Fn(&OwnerGraph) -> bool) -> OwnerGraph {
        for _ in 0..3000 {
            let g = graph(w);
            if done(&g) {
                return g;
            }
            assert!(w.step().is_some(), "the world went idle before: {what}");
        }
        panic!("after 3,000 steps: {what}");
    }

    fn node<'a>(g: &'a OwnerGraph, kind: &str) -> Option<&'a GraphNode> {
        g.nodes.items.iter().find(|n| n.kind == kind)
    }

    fn is_only_periodic_left(w: &World) -> bool {
        w.pending().iter().all(|p| p.action.is_periodic())
    }

    /// The page's cache draws, at every step, exactly what a fresh computation draws: while pods
    /// are created and deleted (steps that draw what they deleted), around an orphaning delete,
    /// and after Step back followed by a different write (which reuses the resourceVersions the
    /// undone steps had, for other objects).
    #[test]
    fn the_cache_draws_what_a_fresh_graph_draws() {
        let mut w = settled_web(2);
        let mut cache = GraphCache::default();
        let check = |w: &World, cache: &mut GraphCache| {
            let touched = super::super::touched_by_last_step(w.history());
            let fresh = owner_graph(w, &touched);
            // The page's way: the drawing, then the touched ids of that drawing.
            let mut drawn = cache.unmarked(w);
            let ids = cache.touched_ids(&touched);
            assert!(drawn.nodes.items.iter().all(|n| !n.touched));
            for n in &mut drawn.nodes.items {
                n.touched = ids.contains(&n.id);
            }
            assert_eq!(drawn, fresh, "at step {}", w.position());
        };
        let dk = Kind::by_kind("Deployment").unwrap();
        let mut scaled = w.api().get(dk, Some("default"), "web").unwrap();
        scaled["spec"]["replicas"] = 4.into();
        w.update(scaled).unwrap();
        for _ in 0..400 {
            check(&w, &mut cache);
            if w.step().is_none() || is_only_periodic_left(&w) {
                break;
            }
        }
        // Step back, then write something else, with no redraw meanwhile (the page skips them
        // during a run): when the revision is back where the cache was drawn, it names other
        // contents, and only the ownership stamps tell.
        check(&w, &mut cache);
        let drawn_at = w.api().resource_version();
        for _ in 0..30 {
            assert!(w.step_back());
        }
        delete_web(&mut w, Some(Propagation::Orphan));
        while w.api().resource_version() < drawn_at {
            assert!(w.step().is_some());
        }
        assert_eq!(w.api().resource_version(), drawn_at, "the same revision, reached again");
        for _ in 0..400 {
            check(&w, &mut cache);
            if w.step().is_none() || is_only_periodic_left(&w) {
                break;
            }
        }
        check(&w, &mut cache);
    }

    #[test]
    fn a_deployment_draws_as_a_layered_tree() {
        let w = settled_web(2);
        let g = owner_graph(&w, &[]);
        let kinds: Vec<(&str, usize)> = g.nodes.items.iter().map(|n| (n.kind.as_str(), n.depth)).collect();
        assert_eq!(kinds, vec![("Deployment", 0), ("ReplicaSet", 1), ("Pod", 2), ("Pod", 2)]);
        assert_eq!(g.edges.len(), 3);
        assert!(g.edges.iter().all(|e| e.controller && e.block_owner_deletion && e.y1 < e.y2));
        assert!(g.edges.iter().all(|e| !e.blocking && !e.removed), "nothing is being deleted");
        // Owners are centred over their children; pods take their own columns.
        let n = &g.nodes.items;
        assert_eq!(n[2].x + COLUMN, n[3].x);
        assert_eq!(n[1].x, (n[2].x + n[3].x) / 2);
        assert_eq!(n[0].x, n[1].x);
        assert!(g.width >= n[3].x + NODE_WIDTH && g.height >= n[3].y + NODE_HEIGHT);
        assert!(n[1].accessible_name.starts_with("ReplicaSet web-"));
        assert!(n[1].accessible_name.contains("owned by Deployment web (controller) (blockOwnerDeletion)"));
        assert!(n.iter().all(|n| n.lines == [String::new(), String::new(), String::new()]), "{n:?}");
        // Same world, same drawing.
        assert_eq!(g, owner_graph(&w, &[]));
    }

    #[test]
    fn a_foreground_deletion_waits_for_its_blocking_dependents() {
        let mut w = settled_web(2);
        delete_web(&mut w, Some(Propagation::Foreground));
        let g = graph(&w);
        let d = &g.nodes.items[0];
        assert!(d.marks.contains(&NodeMark::Deleting) && d.marks.contains(&NodeMark::ForegroundDeletion));
        // The Deployment waits for its ReplicaSet, whose reference has blockOwnerDeletion.
        let rs = node(&g, "ReplicaSet").unwrap();
        assert!(d.marks.contains(&NodeMark::WaitingFor { names: vec![format!("ReplicaSet {}", rs.name)], total: 1 }));
        assert!(
            d.accessible_name.starts_with(&format!(
                "Deployment web in namespace default, being deleted (deletionTimestamp set), finalizer foregroundDeletion, waiting for ReplicaSet {} (blockOwnerDeletion)",
                rs.name
            )),
            "{}",
            d.accessible_name
        );
        assert_eq!(
            d.lines,
            ["⊘ deletionTimestamp set".to_string(), "⚑ foregroundDeletion".into(), "waits for 1 dependent".into()]
        );
        let blocking: Vec<&GraphEdge> = g.edges.iter().filter(|e| e.blocking).collect();
        assert_eq!(blocking.len(), 1);
        assert_eq!((blocking[0].from.as_str(), blocking[0].to.as_str()), (d.id.as_str(), rs.id.as_str()));

        // The garbage collector deletes the ReplicaSet in the foreground too: it waits for its pods.
        let g = step_until(&mut w, "the ReplicaSet waits for its pods", |g| {
            node(g, "ReplicaSet").is_some_and(|rs| rs.marks.contains(&NodeMark::ForegroundDeletion))
        });
        let rs = node(&g, "ReplicaSet").unwrap();
        assert!(rs.marks.contains(&NodeMark::Deleting), "{:?}", rs.marks);
        assert!(rs.marks.iter().any(|m| matches!(m, NodeMark::WaitingFor { total: 2, .. })), "{:?}", rs.marks);
        assert_eq!(rs.lines[2], "waits for 2 dependents");
        assert_eq!(g.edges.iter().filter(|e| e.blocking).count(), 3, "two pods hold the ReplicaSet, which holds web");

        // A pod goes: the step that deletes it still draws it, marked, and no longer counts it.
        let g = step_until(&mut w, "a pod is deleted", |g| {
            g.nodes.items.iter().any(|n| n.kind == "Pod" && n.marks.contains(&NodeMark::Deleted))
        });
        let ghost = g.nodes.items.iter().find(|n| n.marks.contains(&NodeMark::Deleted)).unwrap();
        assert_eq!(ghost.lines[0], "✕ deleted in this step");
        assert!(ghost.accessible_name.contains(", deleted in this step"), "{}", ghost.accessible_name);
        assert!(ghost.touched);
        assert!(g.edges.iter().filter(|e| e.to == ghost.id).all(|e| !e.blocking), "a deleted pod blocks nothing");
        let rs = node(&g, "ReplicaSet").unwrap();
        assert!(rs.marks.iter().any(|m| matches!(m, NodeMark::WaitingFor { total: 1, .. })), "{:?}", rs.marks);

        // Once nothing blocks the Deployment, it goes last: drawn once more as deleted, alone.
        let g = step_until(&mut w, "the Deployment is deleted", |g| {
            node(g, "Deployment").is_some_and(|d| d.marks.contains(&NodeMark::Deleted))
        });
        assert_eq!(g.nodes.total, 1, "{:?}", g.nodes.items);
        let d = &g.nodes.items[0];
        assert!(d.marks.contains(&NodeMark::FinalizerRemoved("foregroundDeletion".into())), "{:?}", d.marks);
        w.step();
        assert_eq!(graph(&w).nodes.total, 0);
    }

    #[test]
    fn a_foreground_deletion_cascades_node_by_node() {
        let mut w = settled_web(2);
        delete_web(&mut w, Some(Propagation::Foreground));
        let g = owner_graph(&w, &[]);
        let mut counts = vec![g.nodes.total];
        let mut saw_rs_foreground = false;
        for _ in 0..3000 {
            let Some(r) = w.step() else { break };
            let g = graph(&w);
            saw_rs_foreground |=
                g.nodes.items.iter().any(|n| n.kind == "ReplicaSet" && n.marks.contains(&NodeMark::ForegroundDeletion));
            if g.nodes.total != *counts.last().unwrap() {
                counts.push(g.nodes.total);
                if g.nodes.total > 0 {
                    assert_eq!(g.nodes.items[0].kind, "Deployment", "the owner waits for its dependents");
                }
            }
            if g.nodes.total == 0 || r.action == ActionKind::LeaseTick && is_only_periodic_left(&w) {
                break;
            }
        }
        assert!(saw_rs_foreground, "the cascade goes foreground down the tree");
        assert_eq!(counts.last(), Some(&0), "{counts:?}");
        assert!(counts.windows(2).all(|c| c[1] < c[0]), "{counts:?}");
        assert!(counts.len() >= 3, "several steps, not one: {counts:?}");
    }

    #[test]
    fn an_orphan_delete_draws_the_removed_reference_for_one_step() {
        let mut w = settled_web(2);
        delete_web(&mut w, Some(Propagation::Orphan));
        let g = graph(&w);
        let d = &g.nodes.items[0];
        assert_eq!(d.lines[..2], ["⊘ deletionTimestamp set".to_string(), "⚑ orphan".into()]);
        assert!(
            d.accessible_name.ends_with("being deleted (deletionTimestamp set), finalizer orphan"),
            "{}",
            d.accessible_name
        );

        // The garbage collector's attemptToOrphan removes the ReplicaSet's reference, then the
        // orphan finalizer: the Deployment and the reference go in the same step.
        let g = step_until(&mut w, "the reference is removed", |g| g.edges.iter().any(|e| e.removed));
        let last = w.history().last().unwrap();
        assert!(last.worked_key().is_some_and(|k| k.starts_with("attemptToOrphan Deployment default/web")), "{last}");
        let d = node(&g, "Deployment").unwrap();
        let rs = node(&g, "ReplicaSet").unwrap();
        assert_eq!(d.marks, [NodeMark::Deleted, NodeMark::FinalizerRemoved("orphan".into())]);
        assert_eq!(
            d.accessible_name,
            "Deployment web in namespace default, deleted in this step, finalizer orphan removed"
        );
        assert_eq!(d.lines[..2], ["✕ deleted in this step".to_string(), "⚑ orphan removed".into()]);
        let removed: Vec<&GraphEdge> = g.edges.iter().filter(|e| e.removed).collect();
        assert_eq!(removed.len(), 1);
        assert_eq!((removed[0].from.as_str(), removed[0].to.as_str()), (d.id.as_str(), rs.id.as_str()));
        assert_eq!(rs.depth, 1, "the ReplicaSet stays under its owner for this step");
        assert!(rs.marks.contains(&NodeMark::RefRemoved { owner: "Deployment web".into(), orphaned: true }));
        assert_eq!(rs.lines[2], "✕ orphaned: ref removed");
        assert!(
            rs.accessible_name.contains("orphaned: its ownerReference to Deployment web removed in this step"),
            "{}",
            rs.accessible_name
        );
        assert!(!rs.marks.iter().any(|m| matches!(m, NodeMark::DanglingOwner(_))), "it has no owner to miss");

        // The next step draws the survivors alone: the ReplicaSet is a root, its pods still under it.
        w.step();
        let g = graph(&w);
        assert!(g.edges.iter().all(|e| !e.removed));
        let kinds: Vec<(&str, usize)> = g.nodes.items.iter().map(|n| (n.kind.as_str(), n.depth)).collect();
        assert_eq!(kinds, vec![("ReplicaSet", 0), ("Pod", 1), ("Pod", 1)]);
        assert!(g.nodes.items.iter().all(|n| n.marks.is_empty()), "{:?}", g.nodes.items);
    }

    #[test]
    fn a_background_delete_leaves_dependents_whose_owner_is_gone() {
        let mut w = settled_web(2);
        delete_web(&mut w, None);
        // kubectl's DELETE removes the Deployment at once; this step still draws it, deleted.
        let g = graph(&w);
        let d = node(&g, "Deployment").unwrap();
        assert!(d.marks.contains(&NodeMark::Deleted) && d.touched, "{d:?}");
        let rs = node(&g, "ReplicaSet").unwrap();
        assert!(rs
            .accessible_name
            .contains("owned by Deployment web (controller) (blockOwnerDeletion), which was deleted in this step"));
        assert_eq!(rs.lines[0], "owner gone");
        // Then the ReplicaSet has no owner drawn, and the garbage collector deletes it.
        w.step();
        let g = graph(&w);
        let rs = node(&g, "ReplicaSet").unwrap();
        assert_eq!(rs.depth, 0);
        assert!(rs.accessible_name.contains("owner Deployment web is gone"), "{}", rs.accessible_name);
        let g = step_until(&mut w, "the ReplicaSet is deleted", |g| {
            node(g, "ReplicaSet").is_some_and(|rs| rs.marks.contains(&NodeMark::Deleted))
        });
        assert!(w.history().last().unwrap().actor.to_string().starts_with("garbage-collector-controller"));
        assert!(g.edges.iter().all(|e| !e.blocking && !e.removed), "background: nothing waits");
        // Its pods are deleted next, gracefully: Terminating before they go.
        let g = step_until(&mut w, "a pod is Terminating", |g| {
            g.nodes.items.iter().any(|n| n.kind == "Pod" && n.lines[0].starts_with("⊘ Terminating"))
        });
        let pod = g.nodes.items.iter().find(|n| n.marks.contains(&NodeMark::Terminating)).unwrap();
        assert!(pod.accessible_name.contains(", Terminating (deletionTimestamp set)"), "{}", pod.accessible_name);
    }

    #[test]
    fn a_bucket_shows_its_finalizer_and_its_external_bucket() {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        w.create(super::super::cloud::tests::bucket("photos")).unwrap();
        w.run_until_idle(5000);
        let g = graph(&w);
        let b = node(&g, "Bucket").unwrap();
        assert_eq!(b.lines[1], "⚑ example.com/bucket");
        assert!(b.accessible_name.ends_with("finalizer example.com/bucket"), "{}", b.accessible_name);
        let c = node(&g, "Cloud bucket").unwrap();
        assert!(c.lines[0].starts_with("cloud: "), "{:?}", c.lines);
        assert!(g.edges.iter().any(|e| e.external && e.to == c.id));
        // Deleted, it waits behind its finalizer while its cloud bucket is deleted (the
        // finalizers lesson says so).
        let bk = Kind::by_kind("Bucket").unwrap();
        w.delete(bk, Some("default"), "photos", DeleteOptions::default()).unwrap();
        let g = step_until(&mut w, "the cloud bucket is being deleted", |g| {
            node(g, "Cloud bucket").is_some_and(|c| c.lines[0] == "cloud: Deleting")
        });
        let b = node(&g, "Bucket").unwrap();
        assert_eq!(b.lines[..2], ["⊘ deletionTimestamp set".to_string(), "⚑ example.com/bucket".into()]);
        step_until(&mut w, "the Bucket is gone", |g| node(g, "Bucket").is_none());
    }

    #[test]
    fn a_no_op_write_after_the_orphaning_step_removes_nothing_again() {
        let mut w = settled_web(1);
        delete_web(&mut w, Some(Propagation::Orphan));
        step_until(&mut w, "the reference is removed", |g| g.edges.iter().any(|e| e.removed));
        // Every later step, whatever it writes, draws no removed edge and no deleted node: its
        // changes are above the previous record's resourceVersion only.
        for _ in 0..200 {
            if w.step().is_none() {
                break;
            }
            let g = graph(&w);
            assert!(g.edges.iter().all(|e| !e.removed), "{}", w.history().last().unwrap());
            assert!(g.nodes.items.iter().all(|n| !n.marks.contains(&NodeMark::Deleted)));
        }
    }

    #[test]
    fn caps_and_keeps_owners_first() {
        let w = settled_web(3);
        let item = |id: String, kind: &'static str, name: String, owners: Vec<Owner<'static>>| Item {
            id: id.into(),
            kind: kind.into(),
            namespace: "d".into(),
            name: name.into(),
            owners,
            removed: Vec::new(),
            marks: Vec::new(),
            external: false,
            gone: false,
            meta: None,
        };
        let items: Vec<Item> = (0..400)
            .map(|i| {
                let owner = ("root".into(), true, true, ("ReplicaSet", "r"));
                item(format!("u{i}"), "Pod", format!("p{i:03}"), vec![owner])
            })
            .chain(std::iter::once(item("root".into(), "ReplicaSet", "r".into(), Vec::new())))
            .collect();
        let g = layout(items, false).graph;
        assert_eq!(g.nodes.total, 401);
        assert_eq!(g.nodes.items.len(), NODES_SHOWN);
        assert_eq!(g.nodes.items[0].kind, "ReplicaSet");
        assert_eq!(g.edges.len(), NODES_SHOWN - 1);
        drop(w);
    }
}
