//! The "Owner graph" region: an SVG drawn from `views::graph::OwnerGraph`, every node focusable
//! with its accessible name, and the same content as text for those who do not use the drawing.
//! Garbage collection is drawn with words, symbols and dash patterns, never colour alone: an
//! object being deleted has a dashed box that says "⊘ deletionTimestamp set" (a Pod: "⊘
//! Terminating", kubectl's word), a finalizer reads "⚑ name", an
//! object the step deleted is dotted and struck through, a removed reference is a dotted line
//! labelled "✕ removed", and a dependent holding an owner in foreground deletion is a thick
//! line labelled "blocks".

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use leptos::prelude::*;

use super::WorldSource;
use crate::views::graph::{
    GraphCache, GraphEdge, GraphNode, NodeMark, OwnerGraph as OwnerGraphModel, NODE_HEIGHT, NODE_WIDTH,
};
use crate::views::touched_by_last_step;

/// Characters of a name (12px, bold) that fit in a node box.
const NAME_CHARS: usize = 22;
/// Characters of a 10px line that fit in a node box.
const LINE_CHARS: usize = 26;
/// A 10px monospace character's width, for the background of an edge's label.
const CHAR_WIDTH: i32 = 6;

/// "Owner graph": objects as nodes, ownerReferences as lines from owner (above) to dependent.
#[component]
pub fn OwnerGraph(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    // Redrawn only when the objects, the external buckets or the step's deletions changed
    // (`GraphCache`): most steps at scale change none of them. Which nodes the step touched is a
    // memo of its own, so that a step that touched other objects redraws only those marks.
    let cache = Arc::new(Mutex::new(GraphCache::default()));
    let drawing = cache.clone();
    let graph = source.memo(move |w| drawing.lock().unwrap_or_else(PoisonError::into_inner).unmarked(w));
    // Reads `graph` first, so that the cache holds this world's drawing.
    let touched = source.memo(move |w| {
        graph.track();
        cache.lock().unwrap_or_else(PoisonError::into_inner).touched_ids(&touched_by_last_step(w.history()))
    });
    // Nodes and edges are keyed by what they show, not by where they sit: when a new pod shifts
    // the columns, the existing elements move (one attribute each) instead of being rebuilt,
    // which kept a step with 1,000 pods from fitting a frame (about a thousand layout objects
    // recreated per step). Each drawn node and edge owns a signal of its place and each node one
    // of its ✱ mark (`Movers`); two effects set only the signals whose value changed, so a step
    // wakes the elements it moved or marked, not every element of the drawing.
    let movers = Movers::default();
    Effect::new(move |_| graph.with(|g| movers.place(g)));
    Effect::new(move |_| touched.with(|t| movers.mark(t)));
    let view_box = move || graph.with(|g| format!("0 0 {} {}", g.width, g.height));
    view! {
        <Show
            when=move || graph.with(|g| g.nodes.total > 0)
            fallback=|| view! {
                <p class="panel__empty">
                    "No Deployment, ReplicaSet, Pod or Bucket exists. Create one in the console (for example kubectl create deployment web --image=nginx --replicas=2) and step: its objects and their owner references appear here."
                </p>
            }
        >
            <ul class="graph__legend" aria-label="How to read the owner graph">
                <li>"Lines go from owner (above) to dependent. Solid: controller reference; dashed: other owner or external resource; ● at the dependent's end: blockOwnerDeletion."</li>
                <li>"Thick, labelled “blocks”: a dependent an owner in foreground deletion waits for. Dotted, labelled “✕ removed”: a reference this step removed (orphaning)."</li>
                <li>"Boxes: ⊘ deletionTimestamp set (a Pod: Terminating; dashed), ⚑ a finalizer, ✕ deleted in this step (dotted), ✱ changed in this step."</li>
            </ul>
            <div class="graph__scroll">
                <svg
                    class="graph"
                    role="group"
                    aria-label="Owner graph drawing"
                    viewBox=view_box
                    width=move || graph.with(|g| g.width.to_string())
                    height=move || graph.with(|g| g.height.to_string())
                    // Shrinks to fit its column down to four fifths of its size (a Deployment's
                    // two Pods side by side fit a 360 px screen), and scrolls beyond that.
                    style:min-width=move || graph.with(|g| format!("{}px", g.width * 4 / 5))
                >
                    <For
                        each=move || graph.get().edges
                        key=|e| {
                            let flags = [e.controller, e.block_owner_deletion, e.blocking, e.removed, e.external];
                            (e.from.clone(), e.to.clone(), flags)
                        }
                        let:edge
                    >
                        <Edge edge movers />
                    </For>
                    <For
                        each=move || graph.get().nodes.items
                        key=|n| (n.id.clone(), n.name.clone(), n.lines.clone(), n.accessible_name.clone())
                        let:node
                    >
                        <Node node movers touched />
                    </For>
                </svg>
            </div>
            {move || graph.with(|g| g.nodes.note()).map(|n| view! { <p class="views__cap-note">{n}</p> })}
            <details class="graph__text">
                <summary>"Owner graph as text"</summary>
                <ul>
                    <For each=move || graph.get().nodes.items key=|n| (n.id.clone(), n.accessible_name.clone(), n.depth) let:node>
                        <li class=format!("graph__text-item graph__text-item--depth-{}", node.depth.min(4))>
                            {node.accessible_name}
                        </li>
                    </For>
                </ul>
            </details>
        </Show>
    }
}

/// The signals that move the drawn nodes and edges and mark the nodes a step touched, by node id
/// and by (owner id, dependent id). An element registers its signals when it is built and takes
/// them out when it is dropped; the token tells an element's entry from that of the element with
/// the same id that replaced it (the new one can register before the old one is dropped).
#[derive(Clone, Copy)]
struct Movers(StoredValue<MoverSet>);

/// A drawn node's registration: its token, its place (left, top) and its ✱ mark.
type NodeSignals = (u64, RwSignal<(i32, i32)>, RwSignal<bool>);
/// A drawn edge's registration: its token and its ends (x1, y1, x2, y2).
type EdgeSignals = (u64, RwSignal<[i32; 4]>);

#[derive(Default)]
struct MoverSet {
    next: u64,
    nodes: HashMap<String, NodeSignals>,
    edges: HashMap<(String, String), EdgeSignals>,
    /// The ids the last [`Movers::mark`] marked ✱, and those of nodes built marked since.
    touched: Vec<String>,
}

impl Default for Movers {
    fn default() -> Movers {
        Movers(StoredValue::new(MoverSet::default()))
    }
}

impl Movers {
    fn add_node(&self, id: String, at: RwSignal<(i32, i32)>, touched: RwSignal<bool>) -> u64 {
        self.0
            .try_update_value(|m| {
                m.next += 1;
                if touched.get_untracked() {
                    // So that the next `mark` unmarks it if it has to.
                    m.touched.push(id.clone());
                }
                m.nodes.insert(id, (m.next, at, touched));
                m.next
            })
            .unwrap_or_default()
    }

    fn add_edge(&self, key: (String, String), at: RwSignal<[i32; 4]>) -> u64 {
        self.0
            .try_update_value(|m| {
                m.next += 1;
                m.edges.insert(key, (m.next, at));
                m.next
            })
            .unwrap_or_default()
    }

    fn drop_node(&self, id: &str, token: u64) {
        self.0.try_update_value(|m| {
            if m.nodes.get(id).is_some_and(|e| e.0 == token) {
                m.nodes.remove(id);
            }
        });
    }

    fn drop_edge(&self, key: &(String, String), token: u64) {
        self.0.try_update_value(|m| {
            if m.edges.get(key).is_some_and(|e| e.0 == token) {
                m.edges.remove(key);
            }
        });
    }

    /// Moves the drawn elements whose place in `g` differs from where they are.
    fn place(&self, g: &OwnerGraphModel) {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        self.0.with_value(|m| {
            for n in &g.nodes.items {
                if let Some(&(_, at, _)) = m.nodes.get(&n.id) {
                    if at.get_untracked() != (n.x, n.y) {
                        nodes.push((at, (n.x, n.y)));
                    }
                }
            }
            for e in &g.edges {
                if let Some(&(_, at)) = m.edges.get(&(e.from.clone(), e.to.clone())) {
                    let to = [e.x1, e.y1, e.x2, e.y2];
                    if at.get_untracked() != to {
                        edges.push((at, to));
                    }
                }
            }
        });
        // Set outside the borrow: a signal's subscribers may build elements that register.
        for (at, to) in nodes {
            at.set(to);
        }
        for (at, to) in edges {
            at.set(to);
        }
    }

    /// Marks ✱ the drawn nodes in `now` and unmarks those the last call marked that are not.
    fn mark(&self, now: &[String]) {
        let mut flips = Vec::new();
        self.0.update_value(|m| {
            for id in m.touched.iter().chain(now) {
                if let Some(&(_, _, touched)) = m.nodes.get(id) {
                    let want = now.contains(id);
                    if touched.get_untracked() != want {
                        flips.push((touched, want));
                    }
                }
            }
            m.touched = now.to_vec();
        });
        for (touched, want) in flips {
            touched.set(want);
        }
    }
}

#[component]
fn Edge(edge: GraphEdge, movers: Movers) -> impl IntoView {
    let mut class = String::from("graph__edge");
    if edge.removed {
        class.push_str(" graph__edge--removed");
    } else if !edge.controller || edge.external {
        class.push_str(" graph__edge--dashed");
    }
    if edge.blocking {
        class.push_str(" graph__edge--blocking");
    }
    // Words on the line itself for the two states garbage collection is about.
    let label = if edge.removed {
        Some("✕ removed")
    } else if edge.blocking {
        Some("blocks")
    } else {
        None
    };
    let key = (edge.from.clone(), edge.to.clone());
    let at = RwSignal::new([edge.x1, edge.y1, edge.x2, edge.y2]);
    let token = movers.add_edge(key.clone(), at);
    on_cleanup(move || movers.drop_edge(&key, token));
    view! {
        <line
            class=class
            x1=move || at.get()[0]
            y1=move || at.get()[1]
            x2=move || at.get()[2]
            y2=move || at.get()[3]
        />
        {edge.block_owner_deletion.then(|| view! {
            <circle class="graph__block" cx=move || at.get()[2] cy=move || at.get()[3] + 1 r="4" />
        })}
        {label.map(|text| {
            // Centred on the line's midpoint: one attribute follows the edge when the layout moves.
            let half = (text.chars().count() as i32 * CHAR_WIDTH) / 2 + 3;
            let at_mid = move || {
                let [x1, y1, x2, y2] = at.get();
                format!("translate({} {})", (x1 + x2) / 2, (y1 + y2) / 2)
            };
            view! {
                <g transform=at_mid>
                    <rect class="graph__edge-label-bg" x=-half y="-8" width=2 * half height="14" rx="3" />
                    <text class="graph__edge-label" y="3" text-anchor="middle">{text}</text>
                </g>
            }
        })}
    }
}

/// `text` cut to `chars` characters, the last one an ellipsis when cut (the accessible name and
/// the text view keep the whole of it).
fn short(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_string()
    } else {
        let head: String = text.chars().take(chars - 1).collect();
        format!("{head}…")
    }
}

#[component]
fn Node(
    node: GraphNode,
    movers: Movers,
    /// The ids of the nodes the latest step touched (read once, when the node is built; then
    /// [`Movers::mark`] keeps its mark).
    touched: Memo<Vec<String>>,
) -> impl IntoView {
    let mut class = String::from("graph__node");
    for (cond, modifier) in [
        (
            node.marks.iter().any(|m| matches!(m, NodeMark::Terminating | NodeMark::Deleting)),
            " graph__node--terminating",
        ),
        (node.marks.contains(&NodeMark::Deleted), " graph__node--deleted"),
        (node.marks.contains(&NodeMark::Leaked), " graph__node--leaked"),
        (node.marks.iter().any(|m| matches!(m, NodeMark::External(_))), " graph__node--external"),
    ] {
        if cond {
            class.push_str(modifier);
        }
    }
    let id = node.id.clone();
    let at = RwSignal::new((node.x, node.y));
    let is_touched = RwSignal::new(touched.with_untracked(|t| t.contains(&id)));
    let token = movers.add_node(id.clone(), at, is_touched);
    on_cleanup(move || movers.drop_node(&id, token));
    let [state, finalizers, note] = node.lines;
    view! {
        <g
            class=class
            class:graph__node--touched=move || is_touched.get()
            tabindex="0"
            role="img"
            aria-label=node.accessible_name
            transform=move || {
                let (x, y) = at.get();
                format!("translate({x} {y})")
            }
        >
            <rect class="graph__box" x="0" y="0" width=NODE_WIDTH height=NODE_HEIGHT rx="4" />
            <text class="graph__kind" x="6" y="13">{node.kind}{move || is_touched.get().then_some(" ✱")}</text>
            <text class="graph__name" x="6" y="28">{short(&node.name, NAME_CHARS)}</text>
            <text class="graph__line graph__line--state" x="6" y="43">{short(&state, LINE_CHARS)}</text>
            <text class="graph__line" x="6" y="57">{short(&finalizers, LINE_CHARS)}</text>
            <text class="graph__line" x="6" y="70">{short(&note, LINE_CHARS)}</text>
        </g>
    }
}
