//! "Owner graph": the objects that take part in garbage collection (Deployments, ReplicaSets,
//! Pods, Buckets) and the Buckets' external buckets, with ownerReferences as edges and every
//! deletion state marked (kubernetes `pkg/controller/garbagecollector/garbagecollector.go`,
//! `attemptToDeleteItem`: `deletionTimestamp`, the
//! `foregroundDeletion` and `orphan` finalizers, `blockOwnerDeletion`, the controller reference;
//! §5: finalizers and leaked external resources).
//!
//! The layout is a layered tree, deterministic: owners above dependents, siblings ordered by kind
//! then namespace then name, each leaf in its own column and each owner centred over its
//! children. An object with several owners is placed under the first live one; its other owner
//! references are still drawn.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::engine::apiserver::ObjectMetadata;
use crate::engine::kinds::Kind;
use crate::engine::world::World;

use super::cloud::cloud_buckets;
use super::{object_key, Capped};

/// Nodes drawn at most (in tree order); the rest are counted in the note.
pub const NODES_SHOWN: usize = 150;
/// A node's box width in SVG units.
pub const NODE_WIDTH: i32 = 156;
/// A node's box height.
pub const NODE_HEIGHT: i32 = 48;
/// Horizontal distance between leaf columns.
pub const COLUMN: i32 = 172;
/// Vertical distance between layers.
pub const LAYER: i32 = 84;
/// Space around the drawing.
pub const MARGIN: i32 = 8;

/// The kinds drawn, in sibling order.
const KINDS: [&str; 4] = ["Deployment", "Bucket", "ReplicaSet", "Pod"];

/// A mark on a node: what holds it, or how it is going away. Each has words (never colour alone).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeMark {
    /// `metadata.deletionTimestamp` is set.
    Terminating,
    /// The `foregroundDeletion` finalizer: waits for its blocking dependents.
    ForegroundDeletion,
    /// The `orphan` finalizer: the GC removes dependents' references first.
    Orphan,
    /// Any other finalizer.
    Finalizer(String),
    /// An external bucket without its `Bucket` object.
    Leaked,
    /// An external bucket's state in the cloud (`Creating`, `Ready`, `Deleting`).
    External(&'static str),
    /// An ownerReference whose owner is not in the cluster (the GC will delete this object).
    DanglingOwner(String),
}

impl NodeMark {
    /// The mark's words.
    pub fn label(&self) -> String {
        match self {
            NodeMark::Terminating => "Terminating".into(),
            NodeMark::ForegroundDeletion => "foregroundDeletion".into(),
            NodeMark::Orphan => "orphan".into(),
            NodeMark::Finalizer(f) => format!("finalizer {f}"),
            NodeMark::Leaked => "LEAKED".into(),
            NodeMark::External(s) => format!("cloud: {s}"),
            NodeMark::DanglingOwner(o) => format!("owner {o} gone"),
        }
    }
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
    /// The marks of an external bucket; an object's come from `meta`, read only if it is drawn.
    marks: Vec<NodeMark>,
    external: bool,
    /// The object's metadata (`None` for an external bucket).
    meta: Option<&'a ObjectMetadata>,
}

fn kind_rank(kind: &str) -> usize {
    KINDS.iter().position(|k| *k == kind).unwrap_or(KINDS.len())
}

/// One object of a metadata listing: kind, namespace ("" if cluster-scoped), name, metadata.
type Listed<'a> = (&'static str, &'a str, &'a str, &'a ObjectMetadata);

fn item_of<'a>((kind, namespace, name, meta): Listed<'a>) -> Item<'a> {
    let owners: Vec<Owner<'a>> = meta
        .owner_references
        .iter()
        .map(|r| {
            (
                Cow::Borrowed(r.uid.as_str()),
                r.controller == Some(true),
                r.block_owner_deletion == Some(true),
                (r.kind.as_str(), r.name.as_str()),
            )
        })
        .collect();
    Item {
        id: Cow::Borrowed(&meta.uid),
        kind: Cow::Borrowed(kind),
        namespace: Cow::Borrowed(namespace),
        name: Cow::Borrowed(name),
        owners,
        marks: Vec::new(),
        external: false,
        meta: Some(meta),
    }
}

/// An object's marks: deletion, finalizers, then owners that are not in the cluster (`live`
/// holds the uids of the objects listed). Built only for the objects drawn: at 1,000 pods, doing
/// it for all of them was a good part of this view's cost in the page.
fn marks_of(meta: &ObjectMetadata, live: &BTreeMap<&str, usize>) -> Vec<NodeMark> {
    let mut marks = Vec::new();
    if meta.deleting {
        marks.push(NodeMark::Terminating);
    }
    for f in &meta.finalizers {
        marks.push(match f.as_str() {
            "foregroundDeletion" => NodeMark::ForegroundDeletion,
            "orphan" => NodeMark::Orphan,
            other => NodeMark::Finalizer(other.to_string()),
        });
    }
    for r in &meta.owner_references {
        if !live.contains_key(r.uid.as_str()) {
            marks.push(NodeMark::DanglingOwner(format!("{} {}", r.kind, r.name)));
        }
    }
    marks
}

/// The owner graph of the world now. `touched` holds the `(kind, namespace/name)` pairs the
/// latest step touched (see [`super::touched_by_last_step`]). Reads the API server's metadata
/// listing only (no object is decoded).
pub fn owner_graph(world: &World, touched: &[(String, String)]) -> OwnerGraph {
    let api = world.api();
    let objects: Vec<Listed<'_>> = KINDS
        .iter()
        .filter_map(|k| Kind::by_kind(k))
        .flat_map(|kind| api.list_metadata(kind, None).map(move |(ns, name, m)| (kind.kind, ns, name, m)))
        .collect();
    let mut items: Vec<Item> = objects.iter().map(|o| item_of(*o)).collect();
    for b in cloud_buckets(world) {
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
            marks,
            external: true,
            meta: None,
        });
    }
    let touched: BTreeSet<(&str, String)> =
        crate::sort::btree_set(touched.iter().map(|(k, key)| (k.as_str(), key.clone())));
    layout(items, &touched)
}

fn layout(mut items: Vec<Item<'_>>, touched: &BTreeSet<(&str, String)>) -> OwnerGraph {
    crate::sort::sort_by(&mut items, |a, b| {
        (kind_rank(&a.kind), &a.namespace, &a.name).cmp(&(kind_rank(&b.kind), &b.namespace, &b.name))
    });
    let index: BTreeMap<&str, usize> = items.iter().enumerate().map(|(i, it)| (&*it.id, i)).collect();
    // The parent is the controller owner if drawn, else the first drawn owner.
    let parent: Vec<Option<usize>> = items
        .iter()
        .map(|it| {
            let drawn = |(uid, ..): &&Owner<'_>| index.contains_key(&**uid);
            it.owners.iter().filter(drawn).find(|o| o.1).or_else(|| it.owners.iter().find(drawn)).map(|o| index[&*o.0])
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
        if order.len() < super::graph::NODES_SHOWN {
            order.push((i, depth));
        }
        for &c in children[i].iter().rev() {
            stack.push((c, depth + 1));
        }
    }
    let shown: BTreeSet<usize> = crate::sort::btree_set(order.iter().map(|(i, _)| *i));
    // Leaves take the next column; owners sit centred over their drawn children (post-order).
    let mut x = vec![0i32; items.len()];
    let mut next_col = 0i32;
    for &(i, _) in &order {
        if !children[i].iter().any(|c| shown.contains(c)) {
            x[i] = MARGIN + next_col * COLUMN;
            next_col += 1;
        }
    }
    for &(i, _) in order.iter().rev() {
        let kids: Vec<usize> = children[i].iter().copied().filter(|c| shown.contains(c)).collect();
        if let (Some(first), Some(last)) = (kids.first(), kids.last()) {
            x[i] = (x[*first] + x[*last]) / 2;
        }
    }
    let name_of = |i: usize| format!("{} {}", items[i].kind, items[i].name);
    let mut nodes = Vec::with_capacity(order.len());
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
                words.push(w);
            } else if !what.0.is_empty() {
                words.push(format!("owner {} {} is gone", what.0, what.1));
            }
        }
        // The index holds every listed object's uid (and the external buckets' ids, which are
        // never an owner's uid).
        let marks = it.meta.map_or_else(|| it.marks.clone(), |m| marks_of(m, &index));
        words.extend(marks.iter().filter(|m| !matches!(m, NodeMark::DanglingOwner(_))).map(NodeMark::label));
        nodes.push(GraphNode {
            id: it.id.to_string(),
            kind: it.kind.to_string(),
            name: it.name.to_string(),
            depth,
            x: x[i],
            y: MARGIN + depth as i32 * LAYER,
            marks,
            touched: !it.external && touched.contains(&(&*it.kind, key)),
            accessible_name: words.join(", "),
        });
    }
    let pos: BTreeMap<&str, (i32, i32)> = crate::sort::btree_map(nodes.iter().map(|n| (n.id.as_str(), (n.x, n.y))));
    let mut edges = Vec::new();
    for n in &nodes {
        let it = &items[index[n.id.as_str()]];
        for (uid, controller, block, _) in &it.owners {
            if let Some(&(ox, oy)) = pos.get(&**uid) {
                edges.push(GraphEdge {
                    from: uid.to_string(),
                    to: n.id.clone(),
                    controller: *controller,
                    block_owner_deletion: *block,
                    external: it.external,
                    x1: ox + NODE_WIDTH / 2,
                    y1: oy + NODE_HEIGHT,
                    x2: n.x + NODE_WIDTH / 2,
                    y2: n.y,
                });
            }
        }
    }
    OwnerGraph {
        width: 2 * MARGIN + (next_col.max(1) - 1) * COLUMN + NODE_WIDTH,
        height: 2 * MARGIN + max_depth as i32 * LAYER + NODE_HEIGHT,
        nodes: Capped { items: nodes, total },
        edges,
    }
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

    #[test]
    fn a_deployment_draws_as_a_layered_tree() {
        let w = settled_web(2);
        let g = owner_graph(&w, &[]);
        let kinds: Vec<(&str, usize)> = g.nodes.items.iter().map(|n| (n.kind.as_str(), n.depth)).collect();
        assert_eq!(kinds, vec![("Deployment", 0), ("ReplicaSet", 1), ("Pod", 2), ("Pod", 2)]);
        assert_eq!(g.edges.len(), 3);
        assert!(g.edges.iter().all(|e| e.controller && e.block_owner_deletion && e.y1 < e.y2));
        // Owners are centred over their children; pods take their own columns.
        let n = &g.nodes.items;
        assert_eq!(n[2].x + COLUMN, n[3].x);
        assert_eq!(n[1].x, (n[2].x + n[3].x) / 2);
        assert_eq!(n[0].x, n[1].x);
        assert!(g.width >= n[3].x + NODE_WIDTH && g.height >= n[3].y + NODE_HEIGHT);
        assert!(n[1].accessible_name.starts_with("ReplicaSet web-"));
        assert!(n[1].accessible_name.contains("owned by Deployment web (controller) (blockOwnerDeletion)"));
        // Same world, same drawing.
        assert_eq!(g, owner_graph(&w, &[]));
    }

    #[test]
    fn a_foreground_deletion_cascades_node_by_node() {
        let mut w = settled_web(2);
        let dk = Kind::by_kind("Deployment").unwrap();
        let opts = DeleteOptions { propagation_policy: Some(Propagation::Foreground), ..Default::default() };
        w.delete(dk, Some("default"), "web", opts).unwrap();
        let g = owner_graph(&w, &[]);
        let d = &g.nodes.items[0];
        assert!(d.marks.contains(&NodeMark::Terminating) && d.marks.contains(&NodeMark::ForegroundDeletion));
        assert!(d.accessible_name.contains("Terminating, foregroundDeletion"));
        // Step: the node count never grows, and the Deployment is the last to go.
        let mut counts = vec![g.nodes.total];
        let mut saw_rs_foreground = false;
        for _ in 0..3000 {
            let Some(r) = w.step() else { break };
            let g = owner_graph(&w, &[]);
            saw_rs_foreground |=
                g.nodes.items.iter().any(|n| n.kind == "ReplicaSet" && n.marks.contains(&NodeMark::ForegroundDeletion));
            if g.nodes.total != *counts.last().unwrap() {
                counts.push(g.nodes.total);
                if g.nodes.total > 0 {
                    assert_eq!(g.nodes.items[0].kind, "Deployment", "the owner waits for its dependents");
                }
            }
            if g.nodes.total == 0
                || r.action == ActionKind::LeaseTick && w.pending().iter().all(|p| p.action == ActionKind::LeaseTick)
            {
                break;
            }
        }
        assert!(saw_rs_foreground, "the cascade goes foreground down the tree");
        assert_eq!(counts.last(), Some(&0), "{counts:?}");
        assert!(counts.windows(2).all(|c| c[1] < c[0]), "{counts:?}");
        assert!(counts.len() >= 3, "several steps, not one: {counts:?}");
    }

    #[test]
    fn caps_and_keeps_owners_first() {
        let w = settled_web(3);
        let items: Vec<Item> = (0..400)
            .map(|i| Item {
                id: format!("u{i}").into(),
                kind: "Pod".into(),
                namespace: "d".into(),
                name: format!("p{i:03}").into(),
                owners: vec![("root".into(), true, true, ("ReplicaSet", "r"))],
                marks: Vec::new(),
                external: false,
                meta: None,
            })
            .chain(std::iter::once(Item {
                id: "root".into(),
                kind: "ReplicaSet".into(),
                namespace: "d".into(),
                name: "r".into(),
                owners: Vec::new(),
                marks: Vec::new(),
                external: false,
                meta: None,
            }))
            .collect();
        let g = layout(items, &BTreeSet::new());
        assert_eq!(g.nodes.total, 401);
        assert_eq!(g.nodes.items.len(), NODES_SHOWN);
        assert_eq!(g.nodes.items[0].kind, "ReplicaSet");
        assert_eq!(g.edges.len(), NODES_SHOWN - 1);
        drop(w);
    }
}
